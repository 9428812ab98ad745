import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import type { MikroORM } from '@mikro-orm/postgresql';
import { build } from '../src/app.js';
import { loadConfig, type AppConfig, type GraphEngineName } from '../src/config.js';
import { ensureDatabase } from '../src/db/database.js';
import { startEmbeddedPostgres, withDatabase } from '../src/db/embedded.js';
import { initORM, migrate } from '../src/db/orm.js';
import { loadFixtures } from '../src/fixtures/load.js';
import { credentialCipher } from '../src/platform/dev-key.js';
import type { CredentialCipher } from '../src/platform/secrets.js';
import type { BenchScenario, PrepareScenarios } from './types.js';

/**
 * `npm run bench [filter]`: every scenario of bench/scenarios under each engine, with autocannon.
 * DATABASE_URL when set, otherwise an embedded PostgreSQL kept under .data/bench-pg.
 * BENCH_DURATION (seconds, default 5) sets the length of each measured run.
 */
const ENGINES: GraphEngineName[] = ['mercurius', 'apollo'];
const CONNECTIONS = 10;
const WARMUP_SECONDS = 1;
const BENCH_PG_PORT = 54339;
const BENCH_DB = 'ordergraph_bench';

interface Row {
  scenario: string;
  engine: GraphEngineName;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function openBenchDatabase(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => undefined };
  const server = await startEmbeddedPostgres({ dir: path.resolve('.data', 'bench-pg'), port: BENCH_PG_PORT });
  try {
    await ensureDatabase(server.url, BENCH_DB);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { url: withDatabase(server.url, BENCH_DB), stop: server.stop };
}

/** Every compiled scenario file (dist/bench/scenarios/*.js), in name order. */
function scenarioFiles(): string[] {
  const dir = path.join(__dirname, 'scenarios');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort().map((f) => path.join(dir, f));
}

async function prepareAll(orm: MikroORM, cipher: CredentialCipher): Promise<BenchScenario[]> {
  const all: BenchScenario[] = [];
  for (const file of scenarioFiles()) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(file) as { prepare?: PrepareScenarios; default?: { prepare?: PrepareScenarios } };
    const prepare = mod.prepare ?? mod.default?.prepare;
    if (typeof prepare !== 'function') throw new Error(`${path.basename(file)}: no exported prepare()`);
    const scenarios = await prepare({ orm, load: async (fixture) => void (await loadFixtures(orm, fixture, cipher)) });
    for (const s of scenarios) {
      if (all.some((o) => o.name === s.name)) throw new Error(`${path.basename(file)}: scenario "${s.name}" is defined twice`);
      all.push(s);
    }
    console.log(`prepared ${path.basename(file, '.js')}: ${scenarios.map((s) => s.name).join(', ')}`);
  }
  return all;
}

function fire(origin: string, s: BenchScenario, duration: number) {
  return autocannon({
    url: origin + s.path,
    method: s.method,
    headers: { ...(s.body !== undefined ? { 'content-type': 'application/json' } : {}), ...s.headers },
    body: s.body,
    connections: CONNECTIONS,
    duration,
    timeout: 10,
  });
}

function machine(): string {
  let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  try {
    const line = fs.readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'));
    if (line) cpu = line.split(':').slice(1).join(':').trim();
  } catch {
    // not Linux: os.cpus() is enough
  }
  return `${cpu}, nproc ${os.availableParallelism()}, Node ${process.version}`;
}

function table(rows: Row[]): string {
  const head = ['scenario', 'engine', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'non-2xx'];
  const body = rows.map((r) => [r.scenario, r.engine, r.rps.toFixed(0), String(r.p50), String(r.p99), String(r.requests), String(r.non2xx + r.errors)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < 2 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(head), rule, ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const filter = process.argv[2];
  const duration = Number(process.env.BENCH_DURATION ?? 5);
  if (!Number.isFinite(duration) || duration <= 0) throw new Error('BENCH_DURATION must be a positive number of seconds');
  const config = loadConfig();
  const cipher = credentialCipher(config.credentialsKey);

  const db = await openBenchDatabase();
  const orm = await initORM({ clientUrl: db.url, poolMax: CONNECTIONS + 5 });
  const rows: Row[] = [];
  try {
    await migrate(orm);
    const scenarios = (await prepareAll(orm, cipher)).filter((s) => !filter || s.name.includes(filter));
    if (!scenarios.length) throw new Error(filter ? `no scenario matches "${filter}"` : 'no scenarios in bench/scenarios');

    for (const [engine, overrides, group] of runs(scenarios)) {
      const { app } = await build({ orm, logger: false, config: { ...config, graphqlEngine: engine, databaseUrl: db.url, ...overrides } });
      try {
        await app.listen({ port: 0, host: '127.0.0.1' });
        const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
        for (const s of group) {
          await fire(origin, s, WARMUP_SECONDS);
          const r = await fire(origin, s, duration);
          const row: Row = {
            scenario: s.name, engine, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99,
            requests: r['2xx'] + r.non2xx, non2xx: r.non2xx, errors: r.errors + r.timeouts,
          };
          rows.push(row);
          const bad = row.non2xx + row.errors;
          const codes = Object.entries(r.statusCodeStats).map(([code, { count }]) => `${code}×${count}`).join(' ');
          console.log(`${engine.padEnd(9)} ${s.name}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms [${codes}]` +
            (bad ? `  !! ${row.non2xx} non-2xx, ${row.errors} errors/timeouts` : ''));
        }
      } finally {
        // autocannon drops its sockets mid-request when a run ends: let those requests finish
        // before the engine stops (Apollo warns about operations received during shutdown).
        await new Promise((r) => setTimeout(r, 1000));
        await app.close();
      }
    }
  } finally {
    await orm.close();
    await db.stop();
  }

  console.log(`\nMachine: ${machine()}; ${duration} s per run after ${WARMUP_SECONDS} s warm-up, ${CONNECTIONS} connections.\n`);
  console.log(table(rows));
  const failing = rows.filter((r) => r.non2xx + r.errors > 0);
  if (failing.length) {
    console.error(`\n${failing.length} run(s) had non-2xx answers or errors: ${failing.map((r) => `${r.scenario} (${r.engine})`).join(', ')}`);
    process.exitCode = 1;
  }
  const out = path.resolve('bench', 'results');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, `run-${new Date().toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify({ machine: machine(), duration, rows }, null, 2));
}

/**
 * The apps to build, in order: per engine, one app for the scenarios without `config` and one per
 * distinct `config` (e.g. the limits scenarios' `redisUrl`), so one run can compare stores.
 */
function runs(scenarios: BenchScenario[]): [GraphEngineName, Partial<AppConfig>, BenchScenario[]][] {
  const groups = new Map<string, { config: Partial<AppConfig>; list: BenchScenario[] }>();
  for (const s of scenarios) {
    const key = JSON.stringify(s.config ?? {}, (_k, v) => (v === undefined ? null : v));
    const group = groups.get(key) ?? { config: s.config ?? {}, list: [] };
    group.list.push(s);
    groups.set(key, group);
  }
  return ENGINES.flatMap((engine) => [...groups.values()].map((g): [GraphEngineName, Partial<AppConfig>, BenchScenario[]] => [engine, g.config, g.list]));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack ?? err.message : err);
  process.exit(1);
});
