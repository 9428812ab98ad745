import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
 * A real `ordergraph serve` on a PostgreSQL of this test's own, which the test freezes (SIGSTOP
 * on the postmaster and every backend) and stops: requests answer 503 within the bounds,
 * readiness within a second, the log stays short, the service recovers without a restart, and
 * SIGTERM exits within the shutdown deadline even while the database is frozen.
 */
const STATEMENT_MS = 1500;
const ACQUIRE_MS = 1000;
const SHUTDOWN_MS = 3000;
/** A request's worst case: a pooled connection's read bound (statement + 1 s), or the acquire wait, plus slack for a loaded machine. */
const REQUEST_BOUND_MS = STATEMENT_MS + 1000 + ACQUIRE_MS + 2000;

let dir: string;
let pgPort: number;
let pg: EmbeddedDatabase | undefined;
let url: string;
let child: ChildProcess | undefined;
let server: ServeProcess | undefined;
/** Everything the server printed so far. */
const output = () => server?.output() ?? '';
let base: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ordergraph-outage-'));
  fs.chmodSync(dir, 0o755);
  pgPort = await freePort();
  pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port: pgPort, fast: true });
  await ensureDatabase(pg.url, 'outage');
  url = withDatabase(pg.url, 'outage');
  const orm = await initORM({ clientUrl: url });
  await migrate(orm);
  await loadFixtures(orm, baseFixture(), testCipher);
  await loadFixtures(orm, { projects: [{ code: 'demo', name: 'Demo' }] }, testCipher);
  await orm.close();

  server = await startServe(url, {
    LOG_LEVEL: 'info',
    CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
    DB_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_MS),
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_MS),
  });
  child = server.child;
  base = server.base;
  await until(async () => (await fetch(`${base}/health/ready`).catch(() => null))?.status === 200, 60_000);
}, 180_000);

afterAll(async () => {
  thaw();
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await pg?.stop().catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

const freezer = new ClusterFreezer(() => pg?.dataDir ?? path.join(dir, 'pg'));
const freeze = () => freezer.freeze();
const thaw = () => freezer.thaw();

const until = (check: () => Promise<boolean>, ms: number) => waitUntil(check, ms, output);

async function timed(pathname: string): Promise<{ status: number; ms: number; body: any; retryAfter: string | null }> {
  const started = Date.now();
  const res = await fetch(`${base}${pathname}`, { headers: { 'x-api-key': KEYS.server }, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  return { status: res.status, ms: Date.now() - started, body: text ? JSON.parse(text) : null, retryAfter: res.headers.get('retry-after') };
}

const configs = () => timed('/v400/es/acme/configs');
const conversations = () => timed('/v400/en/acme/ai/conversations');

function expectUnavailable(r: Awaited<ReturnType<typeof timed>>): void {
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.body.error).toBe(true);
  expect(r.body.code).toBe('ERROR_SERVICE_UNAVAILABLE');
  expect(Number(r.retryAfter)).toBeGreaterThan(0);
  expect(r.ms).toBeLessThan(REQUEST_BOUND_MS);
}

function logLines(): { level: number; msg: string; [k: string]: unknown }[] {
  return output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

describe('a frozen, then stopped, database', () => {
  it('answers 503 within the bounds while frozen, readiness within a second, and recovers without a restart', async () => {
    expect((await configs()).status).toBe(200);
    freeze();
    try {
      // several at once: some wait on pooled connections, others for a new one
      const during = await Promise.all([configs(), conversations(), configs(), conversations(), configs()]);
      for (const r of during) expectUnavailable(r);
      expect(during[0].body.result[0]).toMatch(/no está disponible/);

      const ready = await timed('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.ms).toBeLessThan(1500);
      expect((await timed('/health/live')).status).toBe(200);
      console.log(`[outage.test] frozen: 503 after ${during.map((r) => r.ms).join(', ')} ms; /health/ready 503 after ${ready.ms} ms`);

      // keep failing for longer than one summary interval
      const deadline = Date.now() + 6000;
      while (Date.now() < deadline) expectUnavailable(await configs());
    } finally {
      thaw();
    }
    const recovery = await until(async () => (await configs()).status === 200, 15_000);
    console.log(`[outage.test] thawed: first 200 after ${recovery} ms`);
    expect((await timed('/health/ready')).status).toBe(200);
  }, 90_000);

  it('logs one error line with the cause, then summaries, never a stack or SQL per request', () => {
    const lines = logLines();
    const first = lines.filter((l) => l.msg?.startsWith('database unavailable'));
    expect(first).toHaveLength(1);
    expect(String(first[0].cause)).not.toMatch(/select|insert|update/i);
    const summaries = lines.filter((l) => l.msg === 'database still unavailable');
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    expect(summaries.length).toBeLessThanOrEqual(4);
    expect(summaries.every((l) => Number(l.failedRequests) > 0)).toBe(true);
    expect(output()).not.toMatch(/\n\s+at /); // no stack
    expect(lines.filter((l) => l.level >= 50)).toHaveLength(1); // the one error line
  });

  it('answers 503 while stopped, and recovers when it is back', async () => {
    await pg!.stop();
    pg = undefined;
    for (let i = 0; i < 3; i++) expectUnavailable(await configs());
    expect((await timed('/health/ready')).status).toBe(503);
    pg = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), port: pgPort, fast: true });
    await until(async () => (await configs()).status === 200, 15_000);
  }, 60_000);

  it('exits within the shutdown deadline on SIGTERM, cutting a request held by a frozen database', async () => {
    freeze();
    try {
      const inFlight = fetch(`${base}/v400/en/acme/ai/conversations`, { headers: { 'x-api-key': KEYS.server } }).then(
        (r) => r.status,
        () => 'cut',
      );
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
      child!.kill('SIGTERM');
      await exited;
      console.log(`[outage.test] SIGTERM with a frozen database: exited after ${Date.now() - started} ms`);
      expect(Date.now() - started).toBeLessThan(SHUTDOWN_MS + 2000);
      expect(['cut', 503]).toContain(await inFlight);
    } finally {
      thaw();
    }
  }, 30_000);
});
