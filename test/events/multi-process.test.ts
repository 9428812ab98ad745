import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { withDatabase } from '../../src/db/embedded.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { pgbouncerBinary, startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';
import { openSse } from '../support/sse.js';
import { agent, customerKey, customers } from './support.js';

/**
 * Two real `serve` processes on one database: a conversation opened through one (its
 * conversation.created committed there) reaches an SSE stream open on the other within 1 s, with
 * PostgreSQL LISTEN/NOTIFY, with Redis pub/sub, and with the application's connections going
 * through PgBouncer in transaction mode (LISTEN then needs DATABASE_DIRECT_URL).
 */
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
let db: TestDatabase;
const extra = customers(3000, 30);

beforeAll(async () => {
  db = await createTestDatabase();
  const base = baseFixture().projects[0];
  await db.load(
    baseFixture({
      users: [...base.users!, ...extra.users!],
      api_keys: [...base.api_keys!, ...extra.api_keys!],
      agents: [agent(10, 'mp-bot', 1)],
    }),
  );
  await db.load({ projects: [{ code: 'demo', name: 'Demo' }] });
  await ensureEmitted('events multi-process.test');
}, 300_000);
afterAll(() => db.orm.close());

let nextUser = 3000;

/** Opens a stream on `reader`, writes through `writer` `n` times; every event arrives, each within 1 s of its commit. */
async function crossProcess(writer: ServeProcess, reader: ServeProcess, n = 5): Promise<void> {
  const stream = await openSse(`${reader.base}/v400/en/acme/ai/events`, { 'x-api-key': KEYS.server });
  expect(stream.status).toBe(200);
  try {
    for (let i = 0; i < n; i++) {
      const user = nextUser++;
      const res = await fetch(`${writer.base}/v400/en/acme/ai/agents/mp-bot/conversations/current`, {
        headers: { 'x-api-key': customerKey(user) },
      });
      const committedAt = Date.now();
      expect(res.status).toBe(200);
      const id = ((await res.json()) as any).result.id;
      await stream.until((s) => s.events.some((e) => JSON.parse(e.data).data.id === id), 1000);
      expect(Date.now() - committedAt).toBeLessThan(1000);
    }
  } finally {
    stream.close();
  }
}

/** Two `serve` processes on `url` (the second with `envB`): events written through each reach the other. */
async function bothWays(url: string, env: NodeJS.ProcessEnv, envB: NodeJS.ProcessEnv = env): Promise<void> {
  const [a, b] = await Promise.all([startServe(url, env), startServe(url, envB)]);
  try {
    await crossProcess(a, b);
    await crossProcess(b, a);
  } finally {
    await stopServe([a, b]);
  }
}

describe('events across two serve processes', () => {
  it('PostgreSQL LISTEN/NOTIFY', async () => {
    const env = { DATABASE_DIRECT_URL: db.directUrl, EVENTS_POLL_MS: '60000' };
    await bothWays(db.url, env, { ...env, GRAPHQL_ENGINE: 'apollo' });
  }, 120_000);

  it('Redis pub/sub (REDIS_URL)', async (ctx) => {
    const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const up = await probe.connect().then(
      () => true,
      () => false,
    );
    probe.disconnect();
    if (!up) {
      console.log(`[events multi-process] skipped Redis: nothing answers at ${REDIS_URL}`);
      ctx.skip();
    }
    const env = { DATABASE_DIRECT_URL: db.directUrl, REDIS_URL, EVENTS_POLL_MS: '60000' };
    await bothWays(db.url, env);
  }, 120_000);

  it('through PgBouncer in transaction mode (LISTEN on DATABASE_DIRECT_URL)', async (ctx) => {
    if (!pgbouncerBinary()) {
      console.log('[events multi-process] skipped PgBouncer: pgbouncer is not installed');
      ctx.skip();
    }
    const server = new URL(db.directUrl);
    const dbName = server.pathname.slice(1);
    server.pathname = '/';
    let bouncer: PgBouncer;
    try {
      bouncer = await startPgBouncer(server.toString());
    } catch (err) {
      console.log(`[events multi-process] skipped PgBouncer: ${(err as Error).message.slice(0, 200)}`);
      ctx.skip();
      return;
    }
    const env = { DATABASE_DIRECT_URL: db.directUrl, DATABASE_PREPARED_STATEMENTS: 'false', EVENTS_POLL_MS: '60000' };
    const pooled = withDatabase(bouncer.url, dbName);
    try {
      await bothWays(pooled, env);
    } finally {
      await bouncer.stop();
    }
  }, 120_000);
});
