import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLICA_PROBE_MS } from '../../src/db/replicas.js';
import { CLI, ensureBuilt } from '../support/dist.js';

/**
 * The whole deployment of deploy/local-cluster (PostgreSQL primary + streaming replica,
 * PgBouncer in transaction mode, Redis, 2 nodes from dist/, HAProxy), driven over real sockets.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'deploy', 'local-cluster');
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The documented bound of a replica read's staleness (README, docs/scaling.md): two probe intervals, plus slack for a loaded machine. */
const STALENESS_MS = 2 * REPLICA_PROBE_MS + 1000;

function missing(): string | null {
  const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd} || test -x /usr/sbin/${cmd}`]).status === 0;
  const pg =
    fs.existsSync('/usr/lib/postgresql') &&
    fs.readdirSync('/usr/lib/postgresql').some((v) => fs.existsSync(`/usr/lib/postgresql/${v}/bin/pg_basebackup`));
  const absent = [...(pg ? [] : ['postgresql']), ...['haproxy', 'pgbouncer', 'redis-server'].filter((c) => !has(c))];
  if (!absent.length) return null;
  const canInstall = process.getuid?.() === 0 && has('apt-get');
  return canInstall ? null : `needs Debian's ${absent.join(', ')} (not installed, and apt-get cannot install them here)`;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
  });
}

async function portsFree(base: number, count: number): Promise<boolean> {
  for (let p = base; p < base + count; p++) {
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(p, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (!free) return false;
  }
  return true;
}

/** Usage limits are the operator's (CONTRACT §11): the nodes get this token from the environment. */
const OPERATOR_TOKEN = 'operator-token-local-cluster-0123456789';
const skip = missing();
if (skip) console.log(`local cluster test skipped: ${skip}`);

describe.skipIf(!!skip)('deploy/local-cluster: 2 nodes behind HAProxy, PgBouncer, a streaming replica, Redis', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let base: number;
  let key: string;
  const extra: ChildProcess[] = [];
  const lb = () => `http://127.0.0.1:${base + 10}`;
  const node = (i: number) => `http://127.0.0.1:${base + 10 + i}`;
  const api = (host: string, p: string, init: RequestInit = {}) =>
    fetch(`${host}/v400/en/demo${p}`, { ...init, headers: { 'x-api-key': key, ...(init.headers as Record<string, string>) } });

  async function setRules(rules: unknown[]): Promise<void> {
    const res = await fetch(`${node(1)}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${OPERATOR_TOKEN}` },
      body: JSON.stringify({
        query: 'mutation($r: [RateLimitRuleInput!]!) { setProjectRateLimits(project: "demo", rules: $r) { code } }',
        variables: { r: rules },
      }),
    });
    expect(res.status).toBe(200);
    await sleep(2500); // the other processes see project settings within 2 s (their project cache)
  }

  beforeAll(async () => {
    await ensureBuilt();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ordergraph-cluster-'));
    fs.chmodSync(dir, 0o755);
    // Below the kernel's ephemeral range (32768+ on Linux): a port picked there can be taken by any
    // outgoing connection between this check and the node's listen (CI once failed on EADDRINUSE).
    for (base = 20000 + Math.floor(Math.random() * 12000); !(await portsFree(base, 16)); base += 16);
    env = {
      ...process.env,
      OPERATOR_TOKEN,
      CLUSTER_DIR: path.join(dir, 'c'),
      CLUSTER_PORT_BASE: String(base),
      NODES: '2',
      LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    const { stdout } = await run(SCRIPT, ['up'], { env, timeout: 170_000 });
    key = /server API key\s+(\S+)/.exec(stdout)?.[1] ?? '';
    expect(key, stdout).not.toBe('');
    expect(stdout).toContain('postgres replica running');
  }, 180_000); // about 20 s on a quiet machine; the bound is for a loaded CI machine

  afterAll(async () => {
    for (const c of extra) if (c.exitCode === null) c.kill('SIGKILL');
    if (env) await run(SCRIPT, ['down', '--purge'], { env, timeout: 60_000 }).catch(() => undefined);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 70_000);

  it('reads a write made through one node from the other within the documented staleness', async () => {
    const made = await api(node(1), '/ai/agents/demo-whatsapp/conversations/current');
    expect(made.status).toBe(200);
    const id = ((await made.json()) as any).result.id as number;
    const started = Date.now();
    let seen = false;
    while (!seen && Date.now() - started < STALENESS_MS) {
      // newest first: the demo project has months of history, the new conversation is not on the first page by id
      const list = await api(node(2), '/ai/conversations?orderBy=-id', { headers: {} });
      expect(list.status).toBe(200);
      seen = ((await list.json()) as any).result.some((c: { id: number }) => c.id === id);
      if (!seen) await sleep(50);
    }
    expect(seen).toBe(true);
    // The get-or-create path reads the primary: through the other node it finds the same conversation at once.
    const again = await api(node(2), '/ai/agents/demo-whatsapp/conversations/current');
    expect(((await again.json()) as any).result.id).toBe(id);
  });

  it('counts limits exactly across both nodes in Redis: N requests spend N points', async () => {
    const N = 30;
    await setRules([{ scope: 'project', points: N, duration_s: 300, on_error: 'closed' }]);
    const answers = await Promise.all(Array.from({ length: N }, (_, i) => api(node(1 + (i % 2)), '/configs').then((r) => r.status)));
    expect(answers.filter((s) => s === 200)).toHaveLength(N);
    for (const i of [1, 2]) expect((await api(node(i), '/configs')).status).toBe(429);
  });

  it('counts limits exactly across two nodes in PostgreSQL (through PgBouncer): N requests spend N points', async () => {
    const N = 24;
    await setRules([{ scope: 'project', points: N, duration_s: 300, on_error: 'closed' }]);
    // Two more nodes without REDIS_URL: their counts live in PostgreSQL, reached through PgBouncer.
    const ports = [base + 14, base + 15];
    for (const port of ports) {
      const child = spawn(process.execPath, [CLI, 'serve'], {
        env: {
          ...process.env,
          PORT: String(port),
          DATABASE_URL: `postgres://postgres@127.0.0.1:${base + 2}/ordergraph`,
          DATABASE_DIRECT_URL: `postgres://postgres@127.0.0.1:${base}/ordergraph`,
          LOG_LEVEL: 'warn',
          REDIS_URL: '',
        },
        stdio: 'ignore',
      });
      extra.push(child);
    }
    for (const port of ports) {
      const deadline = Date.now() + 60_000;
      while (
        (await fetch(`http://127.0.0.1:${port}/health/ready`).then(
          (r) => r.status,
          () => 0,
        )) !== 200
      ) {
        if (Date.now() > deadline) throw new Error(`node on ${port} not ready`);
        await sleep(200);
      }
    }
    const host = (i: number) => `http://127.0.0.1:${ports[i % 2]}`;
    const answers = await Promise.all(Array.from({ length: N }, (_, i) => api(host(i), '/configs').then((r) => r.status)));
    expect(answers.filter((s) => s === 200)).toHaveLength(N);
    for (const i of [0, 1]) expect((await api(host(i), '/configs')).status).toBe(429);
    for (const c of extra) c.kill('SIGTERM');
    await setRules([]);
  }, 90_000);

  it('counts ip limits by the client address HAProxy forwards, whatever X-Forwarded-For the client sends', async () => {
    await setRules([{ scope: 'ip', points: 3, duration_s: 300 }]);
    // Clients on other loopback addresses than the balancer's own 127.0.0.1.
    const from = (localAddress: string, forged: string) =>
      new Promise<{ status: number; key?: string }>((resolve, reject) => {
        const req = http.get(
          `${lb()}/v400/en/demo/configs`,
          { localAddress, headers: { 'x-api-key': key, 'x-forwarded-for': forged } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, key: res.headers['x-ratelimit-key'] as string | undefined }));
          },
        );
        req.on('error', reject);
      });
    for (let i = 1; i <= 3; i++) expect((await from('127.0.0.2', `198.51.100.${i}`)).status).toBe(200);
    const over = await from('127.0.0.2', '198.51.100.99');
    expect(over.status).toBe(429);
    expect(over.key).toContain('127.0.0.2');
    expect((await from('127.0.0.3', '198.51.100.1')).status).toBe(200);
    await setRules([]);
  });

  it('goes on reading from the primary while the replica is stopped, and uses it again when it is back', async () => {
    await run(SCRIPT, ['replica', 'stop'], { env, timeout: 40_000 });
    try {
      for (let i = 0; i < 12; i++) {
        const res = await api(lb(), i % 2 ? '/ai/conversations' : '/ai/conversations?page_size=5');
        expect(res.status).toBe(200);
      }
      const metrics = await fetch(`${lb()}/v400/en/demo/ai/metrics/overview`, { headers: { 'x-api-key': key } });
      expect(metrics.status).toBe(200);
    } finally {
      await run(SCRIPT, ['replica', 'start'], { env, timeout: 40_000 });
    }
    for (let i = 0; i < 4; i++) expect((await api(lb(), '/ai/conversations')).status).toBe(200);
  }, 90_000);

  it('SIGKILL of one node mid-load fails only the requests in flight on it; the rest and everything after succeed', async () => {
    const pid = Number(fs.readFileSync(path.join(env.CLUSTER_DIR!, 'run', 'node-2.pid'), 'utf8').trim());
    const paths = ['/configs', '/ai/conversations', '/configs?mode=dictionary', '/ai/conversations/1'];
    const outcomes: { start: number; end: number; ok: boolean; status: number }[] = [];
    let killedAt = Infinity;
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const start = Date.now();
        const status = await api(lb(), paths[(w + i) % paths.length]).then(
          async (r) => (await r.arrayBuffer(), r.status),
          () => 0,
        );
        outcomes.push({ start, end: Date.now(), ok: status === 200 || status === 400, status });
      }
    };
    const workers = Array.from({ length: 6 }, (_, w) => worker(w));
    await sleep(1500);
    const killSent = Date.now();
    process.kill(pid, 'SIGKILL');
    // The node is gone once its port refuses connections (a dying process's listen socket still
    // takes connections for some milliseconds on a loaded machine: those requests were on the node).
    while (await accepts(base + 12)) await sleep(2);
    killedAt = Date.now();
    await sleep(3000);
    stop = true;
    await Promise.all(workers);

    const before = outcomes.filter((o) => o.end < killedAt);
    const failed = outcomes.filter((o) => !o.ok);
    expect(before.length).toBeGreaterThan(10);
    expect(outcomes.filter((o) => o.start > killedAt).length).toBeGreaterThan(10);
    // A failure is a request the dying node held: it ended after the kill and started before the
    // node stopped accepting (a worker may meet the dying node twice in that window, so no per-worker count).
    for (const f of failed) {
      expect(f.start, JSON.stringify({ killedAt, f })).toBeLessThanOrEqual(killedAt);
      expect(f.end, JSON.stringify({ killSent, f })).toBeGreaterThanOrEqual(killSent);
    }
    expect(outcomes.filter((o) => o.start > killedAt).every((o) => o.ok)).toBe(true);
    // Everything after: node 1 serves it all.
    const after = await Promise.all(Array.from({ length: 20 }, (_, i) => api(lb(), paths[i % 2]).then((r) => r.status)));
    expect(after.every((s) => s === 200)).toBe(true);
  }, 30_000);
});
