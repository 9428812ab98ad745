import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initORM, migrate } from '../src/db/orm.js';
import { loadFixtures } from '../src/fixtures/load.js';
import type { CredentialCipher } from '../src/platform/secrets.js';
import type { BenchServer } from './processes.js';
import type { BenchScenario, PrepareScenarios } from './types.js';

/**
 * Vacuums a scenario's `vacuum` tables before a measured run. A write scenario leaves dead rows behind (every
 * message write updates its conversation, never HOT); autovacuum would clear them within a minute, but a host
 * may run without it (this one's system PostgreSQL does), and then each run pays for the dead rows of the runs
 * before it: the same build measured 558–652 req/s before a vacuum and 786–881 after (2026-11-27).
 */
export async function vacuumFor(url: string, s: BenchScenario): Promise<void> {
  if (!s.vacuum?.length) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // the names are the scenarios' own constants (bench/scenarios), not input
    await client.query(`vacuum (analyze) ${s.vacuum.join(', ')}`);
  } finally {
    await client.end();
  }
}

/** What bench/run.ts and bench/ab.ts share: the scenarios, one measured run, the median. */
/** Concurrent connections of every run: 10, or BENCH_CONNECTIONS (issue 34 compares 50 with 10). */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS) || 10;

export interface Run {
  rps: number;
  /** The server's CPU time per answered request (ms): less sensitive to other load on the machine than req/s. */
  cpuMsPerReq: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
}

/** Every compiled scenario file (dist/bench/scenarios/*.js), in name order. */
function scenarioFiles(): string[] {
  const dir = path.join(__dirname, 'scenarios');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => path.join(dir, f));
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

export async function fire(server: BenchServer, s: BenchScenario, duration: number): Promise<Run & { codes: string }> {
  const cpu0 = server.cpuMs();
  let turn = 0;
  const headers = { ...(s.body !== undefined ? { 'content-type': 'application/json' } : {}), ...s.headers };
  const r = await autocannon({
    ...(s.rotate && {
      requests: [
        {
          method: s.method,
          path: s.path,
          headers,
          body: s.body,
          setupRequest: (req: any) => {
            const v = s.rotate![turn++ % s.rotate!.length];
            return { ...req, ...(v.path && { path: v.path }), headers: { ...req.headers, ...v.headers } };
          },
        },
      ],
    }),
    url: server.origin + s.path,
    method: s.method,
    headers: { ...(s.body !== undefined ? { 'content-type': 'application/json' } : {}), ...s.headers },
    body: s.body,
    ...(s.next && { requests: [{ setupRequest: (req: Record<string, any>) => nextRequest(req, s) }] }),
    connections: CONNECTIONS,
    duration,
    timeout: 10,
  });
  const answered = r['2xx'] + r.non2xx;
  return {
    cpuMsPerReq: answered ? (server.cpuMs() - cpu0) / answered : NaN,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r['2xx'] + r.non2xx,
    bad: r.non2xx + r.errors + r.timeouts,
    codes: Object.entries(r.statusCodeStats)
      .map(([code, { count }]) => `${code}×${count}`)
      .join(' '),
  };
}

/**
 * The commit floor of a write scenario (issue 45): the baseline process's `POST /floor/:id` (one
 * autocommit statement inserting a message-sized row and bumping its conversation's counter) with
 * the scenario's body, over 200 conversations; undefined for a read and for a POST that writes no message
 * (`POST /auth`: the floor would answer its body with 500).
 */
export function floorOf(s: BenchScenario): BenchScenario | undefined {
  if (s.method !== 'POST' || !s.baseline || s.body === undefined || !writesMessage(s.body)) return undefined;
  return {
    name: `${s.name} [floor]`,
    method: 'POST',
    path: '/floor/1',
    body: s.body,
    rotate: Array.from({ length: 200 }, (_, i) => ({ path: `/floor/${i + 1}` })),
    vacuum: s.vacuum && ['bench_floor.conversations', 'bench_floor.messages'],
  };
}

/** A message-shaped body: a JSON object with a string `content`. */
function writesMessage(body: string): boolean {
  try {
    return typeof (JSON.parse(body) as { content?: unknown }).content === 'string';
  } catch {
    return false;
  }
}

/** A scenario whose every request differs: its `next()` body and headers over the scenario's own. */
function nextRequest(req: Record<string, any>, s: BenchScenario): Record<string, any> {
  const { body, headers } = s.next!();
  return { ...req, body, headers: { ...req.headers, ...headers } };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The host, for the line under every table. */
export function machine(): string {
  let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  try {
    const line = fs
      .readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) cpu = line.split(':').slice(1).join(':').trim();
  } catch {
    // not Linux: os.cpus() is enough
  }
  return `${cpu}, nproc ${os.availableParallelism()}, Node ${process.version}`;
}

/** Migrates the bench database and prepares every scenario of bench/scenarios. */
export async function prepareScenarios(url: string, cipher: CredentialCipher): Promise<BenchScenario[]> {
  const orm = await initORM({ clientUrl: url, poolMax: 5 });
  try {
    await migrate(orm);
    return await prepareAll(orm, cipher);
  } finally {
    await orm.close();
  }
}
