import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';

/**
 * Two real `ordergraph serve` processes on one database (and two on one Redis): requests
 * alternate between them over real sockets, and the 429 arrives at exactly the limit, so the
 * count (and the ban) is one, not one per process.
 */
const POINTS = 4;
const RULES = [{ scope: 'project', points: POINTS, duration_s: 60, ban_after: 2, ban_s: 30, on_error: 'closed' }];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ rate_limits: RULES as never }));
  // `serve` seeds a demo project when none exists; one that exists keeps both processes from seeding
  await db.load({ projects: [{ code: 'demo', name: 'Demo' }] });
  await ensureEmitted('multi-process.test');
}, 300_000);
afterAll(() => db.orm.close());

function startServer(redisUrl?: string): Promise<ServeProcess> {
  return startServe(db.url, { DATABASE_DIRECT_URL: db.directUrl, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
}

const configs = (s: ServeProcess) => fetch(`${s.base}/v400/en/acme/configs`, { headers: { 'x-api-key': KEYS.server } });

/** Alternates requests between the two servers and checks the one shared count and ban. */
async function sharedCount(a: ServeProcess, b: ServeProcess): Promise<void> {
  const servers = [a, b];
  for (let i = 0; i < POINTS; i++) {
    const res = await configs(servers[i % 2]);
    expect(res.status, `request ${i + 1} (server ${i % 2 ? 'B' : 'A'})`).toBe(200);
  }
  // request POINTS+1, on whichever server is next: the limit is crossed exactly here
  const over = await configs(servers[POINTS % 2]);
  expect(over.status).toBe(429);
  expect(over.headers.get('x-ratelimit-limit')).toBe(String(POINTS));
  expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(over.headers.get('x-ratelimit-scope')).toBe('project');
  expect(over.headers.get('x-ratelimit-key')).toBe('acme');
  expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(30); // the 60 s window
  expect(((await over.json()) as { code: string }).code).toBe('ERROR_RATE_LIMIT');

  // the second excess, on the other server, reaches ban_after: both now answer with the 30 s ban
  const banned = await configs(servers[(POINTS + 1) % 2]);
  expect(banned.status).toBe(429);
  expect(banned.headers.get('retry-after')).toBe('30');
  for (const s of servers) {
    const res = await configs(s);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(30);
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeLessThanOrEqual(30);
  }
}

describe('two server processes on one PostgreSQL database', () => {
  let servers: ServeProcess[] = [];
  beforeAll(async () => {
    servers = await Promise.all([startServer(), startServer()]);
  }, 120_000);
  afterAll(() => stopServe(servers), 30_000);

  it('share one count and one ban', async () => {
    await sharedCount(servers[0], servers[1]);
    const rows = await db.sql<{ key: string; points: number }>(
      "select key, points from rate_limits where key like 'rl:%acme' order by key",
    );
    expect(rows.length).toBeGreaterThan(0);
  });
});

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.log('[multi-process.test] Redis case skipped: REDIS_URL is not set');

describe.skipIf(!REDIS_URL)('two server processes on one Redis', () => {
  let servers: ServeProcess[] = [];
  beforeAll(async () => {
    // a fresh count: the PostgreSQL case above counted in the table, this one counts in Redis
    await db.sql('delete from rate_limits');
    servers = await Promise.all([startServer(REDIS_URL), startServer(REDIS_URL)]);
  }, 120_000);
  afterAll(async () => {
    await stopServe(servers);
    const redis = new Redis(REDIS_URL!);
    const keys = await redis.keys(`${new URL(db.url).pathname.slice(1)}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }, 30_000);

  it('share one count and one ban, and write nothing to the PostgreSQL table', async () => {
    await sharedCount(servers[0], servers[1]);
    expect(await db.sql('select key from rate_limits')).toEqual([]);
  });
});
