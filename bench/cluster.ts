import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { SERVE_NODE_ARGS } from './processes.js';

/**
 * `npm run bench:cluster`: the deployment of deploy/local-cluster (its own folder and ports,
 * CLUSTER_PORT_BASE default 47432, far from the 54339 of the other benchmarks), measured on one
 * route (`GET /configs` of the demo project with its server key):
 *   - 1 node, directly, against 2 nodes behind HAProxy;
 *   - one node whose DATABASE_URL is PgBouncer (transaction mode) against one connected to the
 *     primary directly (an extra process this script starts on the same database and Redis).
 * Each run: 1 s warm-up, then BENCH_DURATION seconds (default 5), BENCH_CONNECTIONS (default 10).
 * A cluster that this script started is stopped at the end (its data kept for the next run).
 */
const ROOT = path.resolve(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'deploy', 'local-cluster');
const BASE = Number(process.env.CLUSTER_PORT_BASE ?? 47432);
const DIR = process.env.CLUSTER_DIR ?? path.join(os.tmpdir(), 'ordergraph-bench-cluster');
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DIRECT_PORT = BASE + 15;

interface Row {
  setup: string;
  target: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  /** CPU milliseconds per request: the OrderGraph processes, PostgreSQL (primary's processes), PgBouncer + HAProxy. */
  cpuNode: number;
  cpuPg: number;
  cpuProxies: number;
}

const TICK = 100; // USER_HZ on Linux

/** utime + stime of a process, in ms (0 when it is gone). */
function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICK;
  } catch {
    return 0;
  }
}

function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === ppid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function pidFile(file: string): number {
  try {
    return Number(fs.readFileSync(file, 'utf8').split('\n')[0].trim());
  } catch {
    return 0;
  }
}

/** CPU used so far by the cluster's processes, grouped. */
function cpuSnapshot(nodePids: number[]): { node: number; pg: number; proxies: number } {
  const postmaster = pidFile(path.join(DIR, 'pg-primary', 'postmaster.pid'));
  const pg = [postmaster, ...childrenOf(postmaster)];
  const proxies = [pidFile(path.join(DIR, 'run', 'pgbouncer.pid')), pidFile(path.join(DIR, 'run', 'haproxy.pid'))];
  const sum = (pids: number[]) => pids.reduce((t, p) => t + (p ? cpuMs(p) : 0), 0);
  return { node: sum(nodePids), pg: sum(pg), proxies: sum(proxies) };
}

const env: NodeJS.ProcessEnv = { ...process.env, CLUSTER_DIR: DIR, CLUSTER_PORT_BASE: String(BASE), NODES: '2', LOG_LEVEL: 'warn' };
delete env.DATABASE_URL;
delete env.REDIS_URL;

function cluster(...args: string[]): string {
  return execFileSync(SCRIPT, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

async function measure(setup: string, origin: string, key: string, nodePids: number[]): Promise<Row> {
  const opts = { url: `${origin}/v400/en/demo/configs`, headers: { 'x-api-key': key }, connections: CONNECTIONS, timeout: 10 };
  await autocannon({ ...opts, duration: 1 });
  const before = cpuSnapshot(nodePids);
  const r = await autocannon({ ...opts, duration: DURATION });
  const after = cpuSnapshot(nodePids);
  const n = Math.max(1, r['2xx'] + r.non2xx);
  const per = (k: 'node' | 'pg' | 'proxies') => Math.round(((after[k] - before[k]) / n) * 100) / 100;
  return {
    cpuNode: per('node'),
    cpuPg: per('pg'),
    cpuProxies: per('proxies'),
    setup,
    target: origin,
    reqPerSec: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r['2xx'] + r.non2xx,
    non2xx: r.non2xx + r.errors,
  };
}

async function waitReady(origin: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (
      (await fetch(`${origin}/health/ready`).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      return;
  }
  throw new Error(`${origin} not ready`);
}

async function main(): Promise<void> {
  const wasRunning = /node 1\s+running/.test(cluster('status'));
  const up = cluster('up');
  process.stdout.write(up);
  const key = /server API key\s+(\S+)/.exec(up)?.[1];
  if (!key) throw new Error(`no demo server key in ${DIR}/logs (remove ${DIR} to start afresh)`);
  let direct: ChildProcess | undefined;
  try {
    direct = spawn(process.execPath, [...SERVE_NODE_ARGS, path.join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'serve'], {
      env: {
        ...process.env,
        PORT: String(DIRECT_PORT),
        DATABASE_URL: `postgres://postgres@127.0.0.1:${BASE}/ordergraph`,
        REDIS_URL: `redis://127.0.0.1:${BASE + 3}`,
        DATABASE_REPLICA_URLS: `postgres://postgres@127.0.0.1:${BASE + 1}/ordergraph`,
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    await waitReady(`http://127.0.0.1:${DIRECT_PORT}`);
    const rows: Row[] = [];
    const node1 = `http://127.0.0.1:${BASE + 11}`;
    const nodes = [1, 2].map((i) => pidFile(path.join(DIR, 'run', `node-${i}.pid`)));
    rows.push(await measure('1 node, directly (DATABASE_URL = PgBouncer)', node1, key, nodes));
    rows.push(await measure('2 nodes behind HAProxy (DATABASE_URL = PgBouncer)', `http://127.0.0.1:${BASE + 10}`, key, nodes));
    rows.push(
      await measure('1 node, DATABASE_URL = the primary directly (no PgBouncer)', `http://127.0.0.1:${DIRECT_PORT}`, key, [
        direct.pid ?? 0,
      ]),
    );
    print(rows);
    const out = path.join(ROOT, 'bench', 'results');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(
      path.join(out, `cluster-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
      JSON.stringify({ machine: machine(), rows }, null, 2),
    );
    if (rows.some((r) => r.non2xx)) process.exitCode = 1;
  } finally {
    direct?.kill('SIGTERM');
    if (!wasRunning) cluster('down');
  }
}

function machine(): string {
  return `${os.cpus()[0]?.model ?? 'unknown CPU'}, nproc ${os.cpus().length}, Node ${process.version}, load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
}

function print(rows: Row[]): void {
  console.log(`\n${machine()}; GET /configs (demo, server key), ${CONNECTIONS} connections, ${DURATION} s after 1 s warm-up\n`);
  console.log('| setup | req/s | p50 ms | p99 ms | requests | non-2xx | CPU ms/req: nodes | PostgreSQL | PgBouncer + HAProxy |');
  console.log('|---|--:|--:|--:|--:|--:|--:|--:|--:|');
  for (const r of rows) {
    console.log(
      `| ${r.setup} | ${r.reqPerSec} | ${r.p50} | ${r.p99} | ${r.requests} | ${r.non2xx} | ${r.cpuNode} | ${r.cpuPg} | ${r.cpuProxies} |`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
