import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pgDriver from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres, withDatabase, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { initORM, migrate } from '../../src/db/orm.js';
import { loadFixtures } from '../../src/fixtures/load.js';
import { TEST_CREDENTIALS_KEY, testCipher } from '../support/db.js';
import { ensureBuilt } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { freePort } from '../support/net.js';
import { ClusterFreezer, waitUntil } from '../support/pg-faults.js';
import { startServe, type ServeProcess } from '../support/serve-process.js';

/**
 * Faults longer than the bounds, under a light mixed load (reads and translation PATCHes), on a
 * real `serve` and a PostgreSQL of this test's own: a freeze (SIGSTOP of the postmaster and every
 * backend) for more than twice the read bound, then an outage (the cluster stopped, then started).
 * Throughout: no 5xx but 503 (with Retry-After), no request longer than the bounds, and once the
 * database is known to be down requests fail fast (db/breaker.ts): the p99 time-to-answer of the
 * requests started during the fault is at most 1.5 s; every request started more than 1 s after
 * the thaw (2 s after a restart) succeeds, readiness says so, and the log holds no SQL and at most
 * one warning or error line per cause per 5 s.
 *
 * FAULT_PROBE=1 runs the issue's probe instead (the service's default timeouts, 30 s and 60 s
 * freezes and a 30 s outage, 8 clients) and prints its figures; FAULT_PROBE_CLI=<dist/src/cli/main.js>
 * runs it against another build (the figures before a change); FAULT_PROBE_FAULTS=freeze:30 runs
 * only the faults listed (kind:seconds, comma-separated).
 */
const PROBE = process.env.FAULT_PROBE === '1';
const STATEMENT_MS = PROBE ? 10_000 : 1000; // the default of DB_STATEMENT_TIMEOUT_MS in the probe
const ACQUIRE_MS = PROBE ? 5000 : 1000;
/** pg's client-side read bound: statement_timeout + 1 s (db/orm.ts CLIENT_READ_MARGIN_MS). */
const READ_BOUND_MS = STATEMENT_MS + 1000;
/** The limiter's store call (1 s, failing open) can precede the bounded database call; plus slack for a shared machine. */
const REQUEST_BOUND_MS = READ_BOUND_MS + ACQUIRE_MS + 1000 + 2500;
/**
 * Requests started this long after recovery must all succeed. After a freeze (issue 35's target:
 * 1 s), measured in four runs on a loaded 2-core machine (2026-11-25, afternoon), the first 200
 * came 95–318 ms after the thaw, while the pool's connections and the breaker's probe reconnect.
 * After an outage the server also replays its WAL once started: first 200 121–593 ms there.
 */
const RECOVERED_MS = { freeze: 1000, outage: 2000 } as const;
const CLIENTS = PROBE ? 8 : 6;
const AFTER_MS = PROBE ? 20_000 : 6000;
const FAULTS: { kind: 'freeze' | 'outage'; ms: number }[] = process.env.FAULT_PROBE_FAULTS
  ? process.env.FAULT_PROBE_FAULTS.split(',').map((f) => ({
      kind: f.split(':')[0] as 'freeze' | 'outage',
      ms: Number(f.split(':')[1]) * 1000,
    }))
  : PROBE
    ? [
        { kind: 'freeze', ms: 30_000 },
        { kind: 'freeze', ms: 60_000 },
        { kind: 'outage', ms: 30_000 },
      ]
    : [
        { kind: 'freeze', ms: 30_000 },
        { kind: 'outage', ms: 4000 },
      ];
/** The issue's bound: p99 time-to-answer of the requests started during a fault. */
const FAULT_P99_MS = 1500;
const AGENT = 1;

let dir: string;
let pgPort: number;
let pg: EmbeddedDatabase | undefined;
let server: ServeProcess | undefined;
let base: string;
/** Why this file cannot run here (no PostgreSQL of its own), printed by each test it skips. */
let cannot: string | undefined;
const freezer = new ClusterFreezer(() => pg?.dataDir ?? path.join(dir, 'pg'));
const output = () => server?.output() ?? '';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ordergraph-freeze-'));
  fs.chmodSync(dir, 0o755);
  pgPort = await freePort();
  try {
    pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port: pgPort, fast: true });
    freezer.children(); // the postmaster and its children can be found (postmaster.pid, ps)
  } catch (err) {
    cannot = `cannot start a PostgreSQL of its own: ${err instanceof Error ? err.message : String(err)}`;
    console.warn(`[freeze.test] skipped: ${cannot}`);
    return;
  }
  if (!process.env.FAULT_PROBE_CLI) await ensureBuilt();
  await ensureDatabase(pg.url, 'freeze');
  const url = withDatabase(pg.url, 'freeze');
  const orm = await initORM({ clientUrl: url });
  await migrate(orm);
  await loadFixtures(
    orm,
    baseFixture({
      agents: [
        {
          id: AGENT,
          business_id: 1,
          name: 'Agent',
          provider: 'whatsapp',
          provider_type: 'chat',
          provider_external_id: 'freeze-agent',
          enabled: true,
        },
      ],
      translations: [{ agent_id: AGENT, locale: 'en', value: { hello: 'Hello' } }],
    }),
    testCipher,
  );
  await orm.close();
  server = await startServe(
    url,
    {
      LOG_LEVEL: 'warn',
      CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
      ...(PROBE ? {} : { DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS), DB_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_MS) }),
    },
    { cli: process.env.FAULT_PROBE_CLI },
  );
  base = server.base;
  await until(async () => (await fetch(`${base}/health/ready`).catch(() => null))?.status === 200, 60_000);
}, 180_000);

afterAll(async () => {
  freezer.thaw();
  if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
  await pg?.stop().catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

const until = (check: () => Promise<boolean>, ms: number) => waitUntil(check, ms, output);

interface Sample {
  method: string;
  path: string;
  start: number;
  end: number;
  /** 0: no HTTP answer (connection failed, or no answer within 60 s). */
  status: number;
  code?: string;
  retryAfter: string | null;
}

const READS = ['/v400/en/acme/configs', '/v400/en/acme/ai/conversations', `/v400/es/acme/ai/agents/${AGENT}/translations`];

async function request(method: string, pathname: string, body?: unknown): Promise<Sample> {
  const start = Date.now();
  try {
    const res = await fetch(`${base}${pathname}`, {
      method,
      headers: { 'x-api-key': method === 'GET' ? KEYS.server : KEYS.admin, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    let code: string | undefined;
    try {
      code = text ? JSON.parse(text).code : undefined;
    } catch {
      code = 'not json';
    }
    return { method, path: pathname, start, end: Date.now(), status: res.status, code, retryAfter: res.headers.get('retry-after') };
  } catch {
    return { method, path: pathname, start, end: Date.now(), status: 0, retryAfter: null };
  }
}

/** CLIENTS loops of 80 % reads, 20 % translation PATCHes, until stopped. */
function load(): { stop: () => Promise<Sample[]> } {
  const samples: Sample[] = [];
  let running = true;
  let n = 0;
  const client = async () => {
    while (running) {
      const i = n++;
      samples.push(
        i % 5 === 4
          ? await request('PATCH', `/v400/en/acme/ai/agents/${AGENT}/translations`, { translations: { es: { n: String(i) } } })
          : await request('GET', READS[i % READS.length]),
      );
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  return {
    stop: async () => {
      running = false;
      await Promise.all(clients);
      return samples;
    },
  };
}

/** Readiness while the fault lasts and after it: its answer and how long it took. */
async function ready(): Promise<{ status: number; ms: number }> {
  const r = await request('GET', '/health/ready');
  return { status: r.status, ms: r.end - r.start };
}

/** Ten reads at once: how many succeed (what readiness must agree with). */
async function parallelReads(): Promise<number> {
  const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => request('GET', READS[i % READS.length])));
  return rs.filter((r) => r.status === 200).length;
}

interface Run {
  kind: 'freeze' | 'outage';
  /** Probe connections (db/breaker.ts) open 1.5 s after recovery: one probe at a time. */
  probes: number;
  /** Connection attempts waiting in the frozen server's listen queue at the thaw (null: not Linux). */
  queued: number | null;
  samples: Sample[];
  faultStart: number;
  recovered: number;
  readyDuring: { status: number; ms: number }[];
  readyAfter: { status: number; ms: number };
  parallelAfter: number;
}

async function underLoad(fault: { kind: 'freeze' | 'outage'; ms: number }): Promise<Run> {
  const running = load();
  await new Promise((r) => setTimeout(r, 1500));
  const readyDuring: Run['readyDuring'] = [];
  const faultStart = Date.now();
  if (fault.kind === 'freeze') freezer.freeze();
  else {
    await pg!.stop();
    pg = undefined;
  }
  let recovered: number;
  let queued: number | null = null;
  try {
    const until = faultStart + fault.ms;
    while (Date.now() < until - 1500) {
      readyDuring.push(await ready());
      await new Promise((r) => setTimeout(r, Math.min(3000, Math.max(0, until - Date.now() - 1500))));
    }
    await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now())));
  } finally {
    if (fault.kind === 'freeze') {
      queued = listenQueue(pgPort);
      freezer.thaw();
    } else pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port: pgPort, fast: true });
    recovered = Date.now();
  }
  await new Promise((r) => setTimeout(r, 1500));
  const probes = await probeConnections();
  const readyAfter = await ready();
  const parallelAfter = await parallelReads();
  await new Promise((r) => setTimeout(r, Math.max(0, recovered + AFTER_MS - Date.now())));
  const samples = await running.stop();
  return { kind: fault.kind, probes, queued, samples, faultStart, recovered, readyDuring, readyAfter, parallelAfter };
}

/**
 * The accept queue of the server listening on `port` (Linux: a listening socket's rx_queue in /proc/net/tcp): the
 * connection attempts a frozen server has not taken yet. At the thaw it forks a backend for each, in order.
 */
function listenQueue(port: number): number | null {
  try {
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    const row = fs
      .readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .find((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A');
    return row ? parseInt(row[4].split(':')[1], 16) : null;
  } catch {
    return null;
  }
}

async function probeConnections(): Promise<number> {
  const client = new pgDriver.Client({ connectionString: pg!.url });
  await client.connect();
  try {
    const { rows } = await client.query("select count(*)::int as n from pg_stat_activity where application_name = 'ordergraph-probe'");
    return rows[0].n;
  } finally {
    await client.end();
  }
}

/** Time-to-answer of the requests started while the fault lasted: count, median, p99, longest (ms). */
function duringFault(run: Run): { n: number; median: number; p99: number; max: number } {
  const ms = run.samples
    .filter((s) => s.start >= run.faultStart && s.start < run.recovered)
    .map((s) => s.end - s.start)
    .sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)] ?? 0;
  return { n: ms.length, median: at(0.5), p99: at(0.99), max: ms[ms.length - 1] ?? 0 };
}

function summary(label: string, run: Run): string {
  const { samples, recovered, faultStart } = run;
  const bound = RECOVERED_MS[run.kind];
  const during = duringFault(run);
  const by = (f: (s: Sample) => boolean) => samples.filter(f).length;
  const after = samples.filter((s) => s.start > recovered + bound);
  const firstOk = samples.filter((s) => s.start >= recovered && s.status === 200).sort((a, b) => a.end - b.end)[0];
  const inFlightWrites = samples.filter((s) => s.method === 'PATCH' && s.start < faultStart && s.end > faultStart);
  const codes = new Map<string, number>();
  for (const s of samples)
    if (s.status >= 500 || s.status === 0) codes.set(`${s.status} ${s.code ?? ''}`, (codes.get(`${s.status} ${s.code ?? ''}`) ?? 0) + 1);
  return [
    `[freeze.test] ${label}: ${samples.length} requests, ${by((s) => s.status === 503)} × 503, ${by((s) => s.status >= 500 && s.status !== 503)} other 5xx, ${by((s) => s.status === 0)} unanswered`,
    `  5xx by code: ${JSON.stringify(Object.fromEntries(codes))}`,
    `  started during the fault: ${during.n}, time to answer median ${during.median} ms, p99 ${during.p99} ms, longest ${during.max} ms`,
    `  started > ${bound / 1000} s after recovery: ${after.length}, failed: ${after.filter((s) => s.status !== 200).length}; first 200 ${firstOk ? firstOk.end - recovered : '—'} ms after recovery`,
    `  longest request: ${samples.reduce((m, s) => Math.max(m, s.end - s.start), 0)} ms; writes in flight at the fault's start answered after ${inFlightWrites.map((s) => `${s.end - faultStart} ms (${s.status})`).join(', ') || '—'}`,
    `  probe connections after recovery: ${run.probes}; connection attempts queued at the thaw: ${run.queued ?? '—'}`,
    `  readiness during: ${run.readyDuring.map((r) => `${r.status}/${r.ms}ms`).join(' ')}; after: ${run.readyAfter.status}/${run.readyAfter.ms}ms with ${run.parallelAfter}/10 parallel reads ok`,
  ].join('\n');
}

function expectHealthy(run: Run): void {
  const { samples, recovered } = run;
  const bound = RECOVERED_MS[run.kind];
  const bad = samples.filter((s) => s.status === 0 || (s.status >= 500 && s.status !== 503));
  expect(bad.slice(0, 5), 'no 5xx other than 503, every request answered').toEqual([]);
  expect(samples.filter((s) => s.status === 503 && !(Number(s.retryAfter) > 0))).toEqual([]);
  const late = samples.filter((s) => s.start > recovered + bound && s.status !== 200);
  expect(late.slice(0, 5), `every request started > ${bound / 1000} s after recovery succeeds`).toEqual([]);
  expect(samples.filter((s) => s.start > recovered + bound).length).toBeGreaterThan(CLIENTS);
  const during = duringFault(run);
  expect(during.n).toBeGreaterThan(CLIENTS);
  expect(during.p99, `p99 time-to-answer during the fault at most ${FAULT_P99_MS} ms`).toBeLessThanOrEqual(FAULT_P99_MS);
  const slow = samples.filter((s) => s.end - s.start > REQUEST_BOUND_MS);
  expect(slow.slice(0, 5), `no request longer than ${REQUEST_BOUND_MS} ms`).toEqual([]);
  const writes = samples.filter((s) => s.method === 'PATCH' && s.start < run.faultStart && s.end > run.faultStart);
  for (const w of writes)
    expect(w.end - run.faultStart, 'a write in flight at the fault is bounded as reads are').toBeLessThan(READ_BOUND_MS + 1000 + 1500);
  expect(run.readyDuring.length).toBeGreaterThan(0);
  for (const r of run.readyDuring) {
    expect(r.status, 'readiness fails while the database cannot serve').toBe(503);
    expect(r.ms).toBeLessThan(1500);
  }
  expect(run.readyAfter.status).toBe(200);
  expect(run.parallelAfter).toBe(10);
  expect(run.probes, 'one probe connection at a time').toBeLessThanOrEqual(1);
  // While the database is known to be down the pool does not try to connect (db/breaker.ts gatePool), and the probe
  // and the heartbeat keep one patient attempt each (PATIENT_CONNECT_MS); the LISTEN session retries with backoff.
  // Before, 65–74 attempts queued in 30 s, and the first answer came 1.2–1.9 s after the thaw on a 2-core host.
  if (run.kind === 'freeze' && run.queued !== null && !PROBE)
    expect(run.queued, 'connection attempts queued at the thaw, at most one per two seconds of freeze').toBeLessThanOrEqual(
      Math.ceil((run.recovered - run.faultStart) / 2000),
    );
}

function logLines(): { level: number; time: number; msg: string; [k: string]: unknown }[] {
  return output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

const SQL = /\b(select|insert|update|delete)\b[\s\S]*\b(from|into|set|where)\b/i;

describe('faults longer than the bounds, under load', () => {
  it('a client aborting its own PATCH is not a database outage', async (ctx) => {
    if (cannot) return ctx.skip();
    const before = logLines().length;
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(new URL(base).port), '127.0.0.1', () => {
        socket.write(
          `PATCH /v400/en/acme/ai/agents/${AGENT}/translations HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEYS.admin}\r\n` +
            'content-type: application/json\r\ncontent-length: 4000\r\n\r\n{"translations": {"es": {"a": "',
        );
        setTimeout(() => {
          socket.resetAndDestroy();
          resolve();
        }, 300);
      });
      socket.on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 500));
    const lines = logLines().slice(before);
    expect(
      lines.filter((l) => l.level >= 50),
      JSON.stringify(lines),
    ).toEqual([]);
    expect(lines.filter((l) => /unavailable/.test(l.msg))).toEqual([]);
    expect((await request('GET', READS[0])).status).toBe(200);
  });

  for (const fault of FAULTS) {
    it(
      `${fault.kind} for ${fault.ms / 1000} s: 503 during, every request ${RECOVERED_MS[fault.kind] / 1000} s after recovery succeeds, readiness tells the truth`,
      async (ctx) => {
        if (cannot) return ctx.skip();
        const run = await underLoad(fault);
        console.log(summary(`${fault.kind} ${fault.ms / 1000} s`, run));
        if (run.samples.some((s) => s.status === 0))
          console.log(`[freeze.test] unanswered requests; the server's output ends:\n${output().slice(-4000)}`);
        expectHealthy(run);
      },
      FAULTS.reduce((n, f) => n + f.ms, 0) + 120_000,
    );
  }

  it('logs no SQL at warning or error level, and at most one line per cause per 5 s', (ctx) => {
    if (cannot) return ctx.skip();
    const lines = logLines().filter((l) => l.level >= 40);
    console.log(`[freeze.test] ${lines.length} warning/error lines: ${[...new Set(lines.map((l) => l.msg))].join(' | ')}`);
    for (const l of lines) expect(JSON.stringify(l), 'no SQL in a warning or error line').not.toMatch(SQL);
    const last = new Map<string, number>();
    for (const l of lines) {
      const key = `${l.msg} ${JSON.stringify(l.cause ?? null)}`;
      const previous = last.get(key);
      if (previous !== undefined) expect(l.time - previous, `"${key}" twice within 5 s`).toBeGreaterThanOrEqual(4900);
      last.set(key, l.time);
    }
    expect(output()).not.toMatch(/already executing a query/);
  });
});
