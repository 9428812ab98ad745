import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type AppConfig, type GraphEngineName } from '../src/config.js';
import { credentialCipher } from '../src/platform/dev-key.js';
import { openBenchDatabase } from './database.js';
import { CONNECTIONS, fire, floorOf, machine, median, prepareScenarios, vacuumFor, type Run } from './harness.js';
import { startServe, startServer, type BenchServer } from './processes.js';
import type { BenchScenario } from './types.js';
import { sampleWaits } from './waits.js';

/**
 * `npm run bench [filter]` (`ratio`: the scenarios with a baseline; else a substring of names): every scenario of bench/scenarios against a real `ordergraph serve`
 * process per engine, with autocannon in this process. A scenario marked `baseline` is also sent
 * to bench/baseline.ts (hand-written Fastify + pg routes running the same SQL), alternating
 * OrderGraph and baseline runs (A B A B …, BENCH_PAIRS pairs, default 3); the ratio printed is the
 * median of the pairs' req/s ratios. DATABASE_URL when set, otherwise an embedded PostgreSQL kept
 * under .data/bench-pg. BENCH_DURATION (seconds, default 5) sets the length of each measured run,
 * BENCH_ENGINES (default `mercurius,apollo`) the engines.
 */
/**
 * Warm-ups before the first measured run. `serve` has far more code for V8 to compile than the baseline and takes
 * about 20 s of load to settle: its CPU per message write over successive 5 s runs of a fresh process read 2.50,
 * 1.53, 1.15, 1.09, 0.81, 0.86 ms (2026-11-27), and after 1 s of warm-up its first /graphql pair spent 1.25–1.30 ms
 * per request against 0.48–0.78 in the next two. The baseline, the commit floor and PostGraphile (which plans each
 * document on first sight: 40–60 % dearer per request after 1 s) settle within 5 s.
 */
const SERVE_WARMUP_SECONDS = 20;
const WARMUP_SECONDS = 5;
const BASELINE = path.join(__dirname, 'baseline.js');

interface Row {
  scenario: string;
  engine: GraphEngineName;
  rps: number;
  p50: number;
  p99: number;
  baselineRps?: number;
  baselineP99?: number;
  cpuMsPerReq: number;
  baselineCpuMsPerReq?: number;
  ratio?: number;
  ratios?: number[];
  /** Write scenarios: the commit floor (harness floorOf) measured in the same pairs, and the median of serve/floor per pair. */
  floorRps?: number;
  floorP99?: number;
  floorRatio?: number;
  /** A scenario with a `rival` (PostGraphile) when it ran: its req/s, p99 and CPU, and the median of serve/rival per pair. */
  rival?: { name: string; rps: number; p99: number; cpuMsPerReq: number; ratio: number };
  rssMb: number;
  loadSeconds: number;
  requests: number;
  bad: number;
}

/** The baseline must answer what the service answers (session tokens aside): checked once per scenario and engine. */
async function sameAnswer(a: string, b: string, s: BenchScenario): Promise<void> {
  const get = async (origin: string) => {
    const res = await fetch(origin + s.path, {
      method: s.method,
      body: s.body,
      headers: { ...(s.body !== undefined ? { 'content-type': 'application/json' } : {}), ...s.headers },
    });
    const text = (await res.text()).replace(/"ogs_[A-Za-z0-9_-]+"/g, '"<token>"');
    // a write answers a new row each time: its id and timestamps differ, the rest must not
    return `${res.status} ${s.method === 'GET' ? text : text.replace(/"(id|created_at|updated_at)":("[^"]*"|\d+)/g, '"$1":"<new>"')}`;
  };
  const [x, y] = [await get(a), await get(b)];
  if (x !== y)
    throw new Error(`${s.name}: the baseline answers differently\n  serve:    ${x.slice(0, 2000)}\n  baseline: ${y.slice(0, 2000)}`);
}

function table(rows: Row[]): string {
  const head = [
    'scenario',
    'engine',
    'req/s',
    'p50 ms',
    'p99 ms',
    'baseline req/s',
    'baseline p99 ms',
    'ratio',
    'floor req/s',
    'floor p99 ms',
    'ratio to floor',
    'CPU ms/req',
    'baseline CPU ms/req',
    'serve RSS MB',
    'non-2xx',
  ];
  const f = (n: number | undefined, digits = 0) => (n === undefined ? '–' : n.toFixed(digits));
  const body = rows.map((r) => [
    r.scenario,
    r.engine,
    f(r.rps),
    String(r.p50),
    String(r.p99),
    f(r.baselineRps),
    f(r.baselineP99),
    f(r.ratio, 2),
    f(r.floorRps),
    f(r.floorP99),
    f(r.floorRatio, 2),
    f(r.cpuMsPerReq, 2),
    f(r.baselineCpuMsPerReq, 2),
    `${r.rssMb.toFixed(0)} (${r.loadSeconds} s)`,
    String(r.bad),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < 2 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(head), rule, ...body.map(line)].join('\n');
}

/** The environment of one `serve`: the bench database, the engine, and a scenario group's overrides. */
function serveEnv(url: string, engine: GraphEngineName, config: Partial<AppConfig>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url, GRAPHQL_ENGINE: engine, LOG_LEVEL: 'warn' };
  for (const k of ['REDIS_URL', 'MAINTENANCE_MODE', 'TRUST_PROXY']) delete env[k];
  if (config.redisUrl) env.REDIS_URL = config.redisUrl;
  return env;
}

async function main(): Promise<void> {
  const filter = process.argv[2];
  if (filter === 'cluster') return clusterBench();
  if (filter === 'orders') return ordersBench();
  const duration = Number(process.env.BENCH_DURATION ?? 5);
  const pairs = Number(process.env.BENCH_PAIRS ?? 3);
  const engines = (process.env.BENCH_ENGINES ?? 'mercurius,apollo').split(',') as GraphEngineName[];
  if (!Number.isFinite(duration) || duration <= 0) throw new Error('BENCH_DURATION must be a positive number of seconds');
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error('BENCH_PAIRS must be a positive integer');
  const config = loadConfig();
  const cipher = credentialCipher(config.credentialsKey);

  const db = await openBenchDatabase();
  const rows: Row[] = [];
  let baseline: BenchServer | undefined;
  let rival: BenchServer | undefined;
  try {
    const scenarios = (await prepareScenarios(db.url, cipher)).filter(
      (s) => !filter || (filter === 'ratio' ? s.baseline : s.name.includes(filter)),
    );
    if (!scenarios.length) throw new Error(filter ? `no scenario matches "${filter}"` : 'no scenarios in bench/scenarios');
    if (scenarios.some((s) => s.baseline)) {
      baseline = await startServer(BASELINE, [], { ...process.env, DATABASE_URL: db.url }, '/health');
    }
    if (scenarios.some((s) => s.rival)) rival = await startRival(db.url);

    for (const [engine, overrides, group] of runs(scenarios, engines)) {
      const serve = await startServe(serveEnv(db.url, engine, overrides));
      let loadSeconds = 0;
      try {
        for (const s of group) {
          if (s.baseline) await sameAnswer(serve.origin, baseline!.origin, s);
          await fire(serve, s, SERVE_WARMUP_SECONDS);
          if (s.baseline) await fire(baseline!, s, WARMUP_SECONDS);
          const floor = floorOf(s);
          if (floor) await fire(baseline!, floor, WARMUP_SECONDS);
          const versus = s.rival && rival ? { server: rival, scenario: { ...s, body: s.rival.body, headers: {} } } : undefined;
          if (versus) await fire(versus.server, versus.scenario, WARMUP_SECONDS);
          const a: Run[] = [];
          const rv: Run[] = [];
          const b: Run[] = [];
          const fl: Run[] = [];
          for (let i = 0; i < (s.baseline || versus ? pairs : 1); i++) {
            await vacuumFor(db.url, s);
            const waits = s.sampleWaits ? sampleWaits(db.url) : undefined;
            const ra = await fire(serve, s, duration);
            if (waits) console.log(`  ${s.name} (${engine}) serve: ${await waits.stop()}`);
            a.push(ra);
            let line = `${engine.padEnd(9)} ${s.name}: ${ra.rps.toFixed(0)} req/s, p99 ${ra.p99} ms, cpu ${ra.cpuMsPerReq.toFixed(2)} ms/req [${ra.codes}]`;
            if (s.baseline) {
              await vacuumFor(db.url, s);
              const baselineWaits = s.sampleWaits ? sampleWaits(db.url) : undefined;
              const rb = await fire(baseline!, s, duration);
              if (baselineWaits) console.log(`  ${s.name} baseline: ${await baselineWaits.stop()}`);
              b.push(rb);
              line += ` | baseline ${rb.rps.toFixed(0)} req/s, p99 ${rb.p99} ms, cpu ${rb.cpuMsPerReq.toFixed(2)} ms/req [${rb.codes}] | ratio ${(ra.rps / rb.rps).toFixed(2)}`;
            }
            if (floor) {
              await vacuumFor(db.url, floor);
              const rf = await fire(baseline!, floor, duration);
              fl.push(rf);
              line += ` | floor ${rf.rps.toFixed(0)} req/s, p99 ${rf.p99} ms [${rf.codes}] | ratio to floor ${(ra.rps / rf.rps).toFixed(2)}`;
            }
            if (versus) {
              const rr = await fire(versus.server, versus.scenario, duration);
              rv.push(rr);
              line += ` | ${s.rival!.name} ${rr.rps.toFixed(0)} req/s, p99 ${rr.p99} ms, cpu ${rr.cpuMsPerReq.toFixed(2)} ms/req [${rr.codes}] | ratio ${(ra.rps / rr.rps).toFixed(2)}`;
            }
            console.log(line);
          }
          loadSeconds += SERVE_WARMUP_SECONDS + a.length * duration;
          const ratios = b.length ? a.map((r, i) => r.rps / b[i].rps) : undefined;
          rows.push({
            scenario: s.name,
            engine,
            rps: median(a.map((r) => r.rps)),
            p50: median(a.map((r) => r.p50)),
            p99: median(a.map((r) => r.p99)),
            baselineRps: b.length ? median(b.map((r) => r.rps)) : undefined,
            baselineP99: b.length ? median(b.map((r) => r.p99)) : undefined,
            cpuMsPerReq: median(a.map((r) => r.cpuMsPerReq)),
            baselineCpuMsPerReq: b.length ? median(b.map((r) => r.cpuMsPerReq)) : undefined,
            ratio: ratios && median(ratios),
            ratios,
            floorRps: fl.length ? median(fl.map((r) => r.rps)) : undefined,
            floorP99: fl.length ? median(fl.map((r) => r.p99)) : undefined,
            floorRatio: fl.length ? median(a.map((r, i) => r.rps / fl[i].rps)) : undefined,
            rival: rv.length
              ? {
                  name: s.rival!.name,
                  rps: median(rv.map((r) => r.rps)),
                  p99: median(rv.map((r) => r.p99)),
                  cpuMsPerReq: median(rv.map((r) => r.cpuMsPerReq)),
                  ratio: median(a.map((r, i) => r.rps / rv[i].rps)),
                }
              : undefined,
            rssMb: serve.rssMb(),
            loadSeconds,
            requests: a.reduce((n, r) => n + r.requests, 0),
            bad: [...a, ...b, ...fl, ...rv].reduce((n, r) => n + r.bad, 0),
          });
        }
      } finally {
        await serve.stop();
      }
    }
  } finally {
    await baseline?.stop();
    await rival?.stop();
    await db.stop();
  }

  console.log(
    `\nMachine: ${machine()}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}; ${duration} s per run after ${SERVE_WARMUP_SECONDS} s (serve) or ${WARMUP_SECONDS} s (the others) of warm-up, ${CONNECTIONS} connections, ${pairs} A/B pairs; values are medians of the runs, ratio = median of OrderGraph/baseline per pair; ratio to floor = median of OrderGraph/commit floor per pair (writes: one durable statement, bench/baseline.ts POST /floor); RSS after (s) of load.\n`,
  );
  console.log(table(rows));
  for (const r of rows.filter((row) => row.rival)) {
    const v = r.rival!;
    console.log(
      `${r.scenario} (${r.engine}) against ${v.name} on the same rows: ${r.rps.toFixed(0)} against ${v.rps.toFixed(0)} req/s (ratio ${v.ratio.toFixed(2)}, median per pair), p99 ${r.p99} against ${v.p99} ms, CPU ${r.cpuMsPerReq.toFixed(2)} against ${v.cpuMsPerReq.toFixed(2)} ms/req`,
    );
  }
  const failing = rows.filter((r) => r.bad > 0);
  if (failing.length) {
    console.error(
      `\n${failing.length} scenario(s) had non-2xx answers or errors: ${failing.map((r) => `${r.scenario} (${r.engine})`).join(', ')}`,
    );
    process.exitCode = 1;
  }
  const out = path.resolve('bench', 'results');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(
    path.join(out, `run-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    JSON.stringify({ machine: machine(), duration, pairs, rows }, null, 2),
  );
  if (!filter) {
    ordersBench();
    clusterBench();
  }
}

/** Carts replaced and placed beside the metrics overview (CONTRACT §15.8): bench/orders.ts. */
function ordersBench(): void {
  console.log('\nOrders (bench/orders.ts):');
  const run = spawnSync(process.execPath, [path.join(__dirname, 'orders.js')], { stdio: 'inherit' });
  if (run.status !== 0) process.exitCode = 1;
}

/**
 * The rival of the scenarios that name one: PostGraphile (bench/postgraphile.ts) from BENCH_POSTGRAPHILE, on a
 * Node ≥ 22 (BENCH_NODE22, else the one .ci/node22 finds or fetches). Unset: said once, and those pairs run alone.
 */
async function startRival(url: string): Promise<BenchServer | undefined> {
  if (!process.env.BENCH_POSTGRAPHILE) {
    console.log('PostGraphile not compared: set BENCH_POSTGRAPHILE to a folder where `npm install postgraphile@5` ran (Node ≥ 22)');
    return undefined;
  }
  let node = process.env.BENCH_NODE22;
  if (!node) {
    const found = spawnSync('bash', [path.resolve('.ci', 'node22')], { encoding: 'utf8' });
    if (found.status !== 0) throw new Error(`.ci/node22 failed: ${found.stderr}`);
    node = path.join(found.stdout.trim(), 'node');
  }
  const env = { ...process.env, DATABASE_URL: url, GRAPHILE_ENV: 'production' };
  return startServer(path.join(__dirname, 'postgraphile.js'), [], env, '/graphql', [], node);
}

/** 1 node against 2 behind HAProxy, and PgBouncer against a direct connection: bench/cluster.ts (deploy/local-cluster). */
function clusterBench(): void {
  console.log('\nCluster (bench/cluster.ts):');
  const run = spawnSync(process.execPath, [path.join(__dirname, 'cluster.js')], { stdio: 'inherit' });
  if (run.status !== 0) process.exitCode = 1;
}

/**
 * The servers to start, in order: per engine, one `serve` for the scenarios without `config` and
 * one per distinct `config` (e.g. the limits scenarios' `redisUrl`), so one run can compare stores.
 */
function runs(scenarios: BenchScenario[], engines: GraphEngineName[]): [GraphEngineName, Partial<AppConfig>, BenchScenario[]][] {
  const groups = new Map<string, { config: Partial<AppConfig>; list: BenchScenario[] }>();
  for (const s of scenarios) {
    const key = JSON.stringify(s.config ?? {}, (_k, v) => (v === undefined ? null : v));
    const group = groups.get(key) ?? { config: s.config ?? {}, list: [] };
    group.list.push(s);
    groups.set(key, group);
  }
  return engines.flatMap((engine) =>
    [...groups.values()].map((g): [GraphEngineName, Partial<AppConfig>, BenchScenario[]] => [engine, g.config, g.list]),
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
