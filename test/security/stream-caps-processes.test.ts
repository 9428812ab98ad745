import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { openSse, type SseClient } from '../support/sse.js';

/**
 * CONTRACT §11's stream caps across processes (issue 29, finding 7): two real `serve` processes on
 * one database (one per engine), with small caps (3 per credential, 5 per project): the streams of
 * both count against one credential's and one project's cap; a stream closed on one process frees
 * its slot for the other within 1 s. Under TEST_PGBOUNCER=1 the admissions go through PgBouncer.
 */
const PER_CREDENTIAL = 3;
const PER_PROJECT = 5;

let db: TestDatabase;
let a: ServeProcess;
let b: ServeProcess;
const streams: SseClient[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
  await db.load({ projects: [{ code: 'demo', name: 'Demo' }] });
  await ensureEmitted('stream-caps-processes.test');
  const env = {
    DATABASE_DIRECT_URL: db.directUrl,
    STREAMS_PER_CREDENTIAL: String(PER_CREDENTIAL),
    STREAMS_PER_PROJECT: String(PER_PROJECT),
  };
  [a, b] = await Promise.all([startServe(db.url, env), startServe(db.url, { ...env, GRAPHQL_ENGINE: 'apollo' })]);
}, 300_000);
afterAll(async () => {
  for (const s of streams) s.close();
  await stopServe([a, b].filter(Boolean));
  await db.orm.close();
});

async function sse(p: ServeProcess, key: string, project = 'acme'): Promise<SseClient> {
  const s = await openSse(`${p.base}/v400/en/${project}/ai/events`, { 'x-api-key': key });
  streams.push(s);
  return s;
}

function expectRefused(s: SseClient, scope: string): void {
  expect(s.status).toBe(429);
  expect(Number(s.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(s.headers['x-ratelimit-scope']).toBe(scope);
  expect(JSON.parse(s.body())).toMatchObject({ error: true, code: 'ERROR_RATE_LIMIT' });
}

describe('stream caps across two serve processes (mercurius and apollo)', () => {
  it('one credential and one project are counted across processes; a slot freed on one is usable on the other within 1 s', async () => {
    // the administrator's key: 2 streams on A, 1 on B = its cap
    for (const p of [a, a, b]) expect((await sse(p, KEYS.admin)).status).toBe(200);
    expectRefused(await sse(b, KEYS.admin), 'stream-credential');
    expectRefused(await sse(a, KEYS.admin), 'stream-credential');

    // the server key: one on each, so the project holds 5 = its cap
    const onB = await sse(b, KEYS.server);
    expect(onB.status).toBe(200);
    expect((await sse(a, KEYS.server)).status).toBe(200);
    expectRefused(await sse(a, KEYS.owner), 'stream-project');
    expectRefused(await sse(b, KEYS.owner), 'stream-project');

    // another project is not affected
    expect((await sse(a, KEYS.otherServer, 'other')).status).toBe(200);

    // closed on B, usable on A within 1 s
    onB.close();
    const closedAt = Date.now();
    let again = await sse(a, KEYS.owner);
    while (again.status !== 200 && Date.now() - closedAt < 1000) {
      await new Promise((r) => setTimeout(r, 100));
      again = await sse(a, KEYS.owner);
    }
    expect(again.status).toBe(200);
    expect(Date.now() - closedAt).toBeLessThan(1000);
    expectRefused(await sse(b, KEYS.server), 'stream-project');
  }, 60_000);

  it('a process that stops takes its streams out of the count', async () => {
    for (const s of streams) s.close();
    await new Promise((r) => setTimeout(r, 1000));
    const onA = await Promise.all([sse(a, KEYS.admin), sse(a, KEYS.server), sse(a, KEYS.owner)]);
    expect(onA.map((s) => s.status)).toEqual([200, 200, 200]);
    await stopServe([a]);
    // A's streams ended with it; B admits up to the project's cap again
    const onB = await Promise.all([sse(b, KEYS.admin), sse(b, KEYS.admin), sse(b, KEYS.server), sse(b, KEYS.server), sse(b, KEYS.owner)]);
    expect(onB.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    expectRefused(await sse(b, KEYS.owner), 'stream-project');
  }, 60_000);
});
