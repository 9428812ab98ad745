import net from 'node:net';
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimitRule } from '../../src/entities/project.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OPERATOR_TOKEN = 'operator-token-limits-test-0123456789';
const RATE_HEADERS = [
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-scope',
  'x-ratelimit-key',
];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

/** Sets acme's rules in the database and starts every count from zero. */
async function setRules(apps: TestApp[], rules: RateLimitRule[]): Promise<void> {
  await db.sql('update projects set rate_limits = ?::jsonb where code = ?', [JSON.stringify(rules), 'acme']);
  await db.sql('delete from rate_limits');
  for (const t of apps) t.services.tenancy.forgetProject('acme');
}

const configs = (t: TestApp, headers: Record<string, string> = {}, key: string | null = KEYS.server) =>
  t.api({ path: '/configs', key: key ?? undefined, headers });

function expectLimited(
  res: { statusCode: number; headers: Record<string, unknown>; json(): any },
  scope: string,
  key: string,
  limit: number,
) {
  expect(res.statusCode).toBe(429);
  const body = res.json();
  expect(body.error).toBe(true);
  expect(body.code).toBe('ERROR_RATE_LIMIT');
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  expect(res.headers['x-ratelimit-scope']).toBe(scope);
  expect(res.headers['x-ratelimit-key']).toBe(key);
  expect(res.headers['x-ratelimit-reset']).toBe(res.headers['retry-after']);
  expect(body.result[0]).toContain(String(res.headers['retry-after']));
  return Number(res.headers['retry-after']);
}

describe.each(ENGINES)('usage limits on PostgreSQL (%s)', (engine) => {
  let t: TestApp;
  let proxied: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { operatorToken: OPERATOR_TOKEN } });
    proxied = await startApp(engine, db, { config: { trustProxy: ['127.0.0.1'] } });
  });
  afterAll(async () => {
    await setRules([t, proxied], []);
    await t.close();
    await proxied.close();
  });

  it('passes the first 3 requests with their own status and answers the 4th with 429 and true headers', async () => {
    await setRules([t], [{ scope: 'project', points: 3, duration_s: 60, on_error: 'closed' }]);
    for (let i = 1; i <= 3; i++) {
      const res = await configs(t);
      expect(res.statusCode, `request ${i}`).toBe(200);
      for (const h of RATE_HEADERS) expect(res.headers[h]).toBeUndefined();
    }
    const fourth = await configs(t);
    const retry = expectLimited(fourth, 'project', 'acme', 3);
    expect(retry).toBeGreaterThanOrEqual(59);
    expect(retry).toBeLessThanOrEqual(60);
    // the store holds the same truth the headers tell
    const [row] = await db.sql<{ points: number; expire: string }>("select points, expire from rate_limits where key like 'rl:%:acme'");
    expect(row.points).toBe(4);
    expect(Math.ceil((Number(row.expire) - Date.now()) / 1000)).toBeLessThanOrEqual(retry);
  });

  it('translates the 429 message', async () => {
    await setRules([t], [{ scope: 'project', points: 1, duration_s: 60 }]);
    await configs(t);
    const res = await t.api({ path: '/configs', key: KEYS.server, lang: 'es' });
    expect(res.statusCode).toBe(429);
    expect(res.json().result[0]).toMatch(/^Demasiadas solicitudes/);
  });

  it('opens again when the window resets', async () => {
    await setRules([t], [{ scope: 'project', points: 2, duration_s: 1 }]);
    expect((await configs(t)).statusCode).toBe(200);
    expect((await configs(t)).statusCode).toBe(200);
    expect(expectLimited(await configs(t), 'project', 'acme', 2)).toBe(1);
    await sleep(1100);
    expect((await configs(t)).statusCode).toBe(200);
    expect((await configs(t)).statusCode).toBe(200);
    expect((await configs(t)).statusCode).toBe(429);
  });

  it('bans after ban_after excesses for ban_s, answering 429 with the ban time, then lets the subject in again', async () => {
    await setRules([t], [{ scope: 'project', points: 1, duration_s: 1, ban_after: 2, ban_s: 3 }]);
    expect((await configs(t)).statusCode).toBe(200);
    expect(expectLimited(await configs(t), 'project', 'acme', 1)).toBe(1); // excess 1: the window's time
    const bannedAt = Date.now();
    expect(expectLimited(await configs(t), 'project', 'acme', 1)).toBe(3); // excess 2: banned for 3 s
    await sleep(1200); // the window has reset, the ban has not
    const during = expectLimited(await configs(t), 'project', 'acme', 1);
    expect(during).toBeGreaterThanOrEqual(1);
    expect(during).toBeLessThanOrEqual(2);
    await sleep(Math.max(0, bannedAt + 3100 - Date.now()));
    expect((await configs(t)).statusCode).toBe(200);
  });

  it('counts the ip scope by the socket address, ignoring x-forwarded-for from an untrusted peer', async () => {
    await setRules([t], [{ scope: 'ip', points: 1, duration_s: 60 }]);
    expect((await configs(t, { 'x-forwarded-for': '203.0.113.7' })).statusCode).toBe(200);
    expectLimited(await configs(t, { 'x-forwarded-for': '203.0.113.8' }), 'ip', '127.0.0.1', 1);
  });

  it('counts the ip scope by the first forwarded hop behind a trusted proxy', async () => {
    await setRules([proxied], [{ scope: 'ip', points: 1, duration_s: 60 }]);
    expect((await configs(proxied, { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' })).statusCode).toBe(200);
    expectLimited(await configs(proxied, { 'x-forwarded-for': '203.0.113.7' }), 'ip', '203.0.113.7', 1);
    expect((await configs(proxied, { 'x-forwarded-for': '203.0.113.8' })).statusCode).toBe(200);
  });

  it('counts the user scope per user, and skips it for callers without a user', async () => {
    await setRules([t], [{ scope: 'user', points: 1, duration_s: 60 }]);
    expect((await configs(t, {}, KEYS.customer)).statusCode).toBe(200);
    expectLimited(await configs(t, {}, KEYS.customer), 'user', String(USERS.customer), 1);
    expect((await configs(t, {}, KEYS.admin)).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await configs(t, {}, KEYS.server)).statusCode).toBe(200);
  });

  it('spends every rule and answers with the first rule that stops the request', async () => {
    await setRules(
      [t],
      [
        { scope: 'project', points: 5, duration_s: 60 },
        { scope: 'user', points: 1, duration_s: 60 },
      ],
    );
    expect((await configs(t, {}, KEYS.customer)).statusCode).toBe(200);
    expectLimited(await configs(t, {}, KEYS.customer), 'user', String(USERS.customer), 1);
    expect((await configs(t)).statusCode).toBe(200);
    expect((await configs(t)).statusCode).toBe(200);
    expect((await configs(t)).statusCode).toBe(200); // 5 project points spent, the rejected one included
    expectLimited(await configs(t), 'project', 'acme', 5);
  });

  it('runs before authentication: anonymous and invalid callers spend the project point and get 429 when over', async () => {
    await setRules([t], [{ scope: 'project', points: 2, duration_s: 60 }]);
    expect((await configs(t, {}, null)).statusCode).toBe(401);
    expect((await configs(t, {}, 'not-a-real-key')).statusCode).toBe(401);
    expectLimited(await configs(t, {}, null), 'project', 'acme', 2);
    expectLimited(await configs(t, {}, 'not-a-real-key'), 'project', 'acme', 2);
    expectLimited(await configs(t), 'project', 'acme', 2);
  });

  it('comes after maintenance and the project lookup', async () => {
    await setRules([t], [{ scope: 'project', points: 1, duration_s: 60 }]);
    await configs(t);
    expect((await t.api({ path: '/configs', project: 'nope', key: KEYS.server })).statusCode).toBe(401);
    await db.sql('update projects set maintenance = true where code = ?', ['acme']);
    t.services.tenancy.forgetProject('acme');
    try {
      expect((await configs(t)).json().code).toBe('ERROR_MAINTENANCE');
    } finally {
      await db.sql('update projects set maintenance = false where code = ?', ['acme']);
      t.services.tenancy.forgetProject('acme');
    }
    expect((await configs(t)).statusCode).toBe(429);
  });

  it('answers 503 with Retry-After 1 when the store fails and the rule is closed, lets requests through when open, and recovers', async () => {
    await setRules([t], [{ scope: 'project', points: 3, duration_s: 60, on_error: 'closed' }]);
    expect((await configs(t)).statusCode).toBe(200);
    await db.sql('alter table rate_limits rename to rate_limits_down');
    try {
      const res = await configs(t);
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('ERROR_RATE_LIMIT_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();

      await db.sql('update projects set rate_limits = ?::jsonb where code = ?', [
        JSON.stringify([{ scope: 'project', points: 3, duration_s: 60, on_error: 'open' }]),
        'acme',
      ]);
      t.services.tenancy.forgetProject('acme');
      for (let i = 0; i < 5; i++) expect((await configs(t)).statusCode).toBe(200);
    } finally {
      await db.sql('alter table rate_limits_down rename to rate_limits');
    }
    // back, without a restart: counting resumes where it was (on_error does not change the count: 1 point was spent before)
    expect((await configs(t)).statusCode).toBe(200);
    expect((await configs(t)).statusCode).toBe(200);
    expectLimited(await configs(t), 'project', 'acme', 3);
    // and the closed rule counts again too
    await setRules([t], [{ scope: 'project', points: 1, duration_s: 60, on_error: 'closed' }]);
    expect((await configs(t)).statusCode).toBe(200);
    expectLimited(await configs(t), 'project', 'acme', 1);
  });

  it('does not hang when the store does not answer (a lock held on the table): closed → 503 within the bound, open → through', async () => {
    await setRules([t], [{ scope: 'project', points: 100, duration_s: 60, on_error: 'closed' }]);
    expect((await configs(t)).statusCode).toBe(200);
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table rate_limits in access exclusive mode');
      const started = Date.now();
      const res = await configs(t);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(Date.now() - started).toBeLessThan(2500);
      await db.sql('update projects set rate_limits = ?::jsonb where code = ?', [
        JSON.stringify([{ scope: 'project', points: 100, duration_s: 60, on_error: 'open' }]),
        'acme',
      ]);
      t.services.tenancy.forgetProject('acme');
      expect((await configs(t)).statusCode).toBe(200);
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    await setRules([t], [{ scope: 'project', points: 1, duration_s: 60, on_error: 'closed' }]);
    expect((await configs(t)).statusCode).toBe(200);
    expectLimited(await configs(t), 'project', 'acme', 1);
  });

  it('changes the limits through /graphql, validated, effective at once', async () => {
    await setRules([t], []);
    // usage limits are the operator's (CONTRACT §11): the operator token, naming the project
    const gql = (query: string, variables?: object) =>
      t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        payload: { query, variables },
      });
    const set = 'mutation($rules: [RateLimitRuleInput!]!) { setProjectRateLimits(project: "acme", rules: $rules) { code rate_limits } }';

    const bad = await gql(set, {
      rules: [
        { scope: 'project', points: 0, duration_s: 60 },
        { scope: 'ip', points: 1, duration_s: 1, ban_after: 2 },
      ],
    });
    expect(bad.json().errors[0].extensions.code).toBe('ERROR_VALIDATION');
    expect(bad.json().errors[0].message).toContain('points');
    const badEnum = await gql(set, { rules: [{ scope: 'planet', points: 1, duration_s: 60 }] });
    expect(badEnum.json().errors.length).toBeGreaterThan(0);
    expect(badEnum.json().data ?? null).toBeNull();
    expect((await configs(t)).statusCode).toBe(200);

    const ok = await gql(set, { rules: [{ scope: 'project', points: 1, duration_s: 60, on_error: 'closed' }] });
    expect(ok.json().data.setProjectRateLimits).toEqual({
      code: 'acme',
      rate_limits: [{ scope: 'project', points: 1, duration_s: 60, on_error: 'closed' }],
    });
    expect((await configs(t)).statusCode).toBe(200);
    expectLimited(await configs(t), 'project', 'acme', 1);
    // the operator is never limited, so a limit can always be lifted
    const off = await gql(set, { rules: [] });
    expect(off.json().data.setProjectRateLimits.rate_limits).toEqual([]);
    expect((await configs(t)).statusCode).toBe(200);

    const customer = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.customer },
      payload: { query: set, variables: { rules: [] } },
    });
    expect(customer.statusCode).toBe(401);
    const tenant = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server },
      payload: { query: set, variables: { rules: [] } },
    });
    expect(tenant.statusCode).toBe(200);
    expect(tenant.json().errors[0].extensions.code).toBe('ERROR_FORBIDDEN');
  });

  it('keeps the auth lockout of POST /auth: the 11th attempt is 429 with scope auth', async () => {
    await setRules([t], []);
    const email = `nobody-${engine}@acme.test`;
    const attempt = () => t.api({ method: 'POST', path: '/auth', body: { email, password: 'wrong-password' } });
    for (let i = 1; i <= 10; i++) expect((await attempt()).statusCode, `attempt ${i}`).toBe(401);
    const res = await attempt();
    expect(res.statusCode).toBe(429);
    expect(res.headers['x-ratelimit-scope']).toBe('auth');
    expect(res.headers['x-ratelimit-key']).toBe(email);
    expect(res.headers['x-ratelimit-limit']).toBe('10');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(14 * 60);
  });
});

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.log('[limits.test] Redis cases skipped: REDIS_URL is not set');

describe.skipIf(!REDIS_URL).each(ENGINES)('usage limits on Redis (%s)', (engine) => {
  let t: TestApp;
  let redis: Redis;
  const dbName = () => new URL(db.url).pathname.slice(1);

  async function setRedisRules(apps: TestApp[], rules: RateLimitRule[]) {
    await db.sql('update projects set rate_limits = ?::jsonb where code = ?', [JSON.stringify(rules), 'acme']);
    const keys = await redis.keys(`${dbName()}:rl:*`);
    if (keys.length) await redis.del(...keys);
    for (const a of apps) a.services.tenancy.forgetProject('acme');
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL!);
    t = await startApp(engine, db, { config: { redisUrl: REDIS_URL } });
  });
  afterAll(async () => {
    await setRedisRules([t], []);
    await t.close();
    redis.disconnect();
  });

  it('counts in Redis: the 4th request of 3 is 429 with true headers, and nothing is written to PostgreSQL', async () => {
    expect(t.services.deps.limiter.kind).toBe('redis');
    await setRedisRules([t], [{ scope: 'project', points: 3, duration_s: 60, on_error: 'closed' }]);
    await db.sql('delete from rate_limits');
    for (let i = 0; i < 3; i++) expect((await configs(t)).statusCode).toBe(200);
    const retry = expectLimited(await configs(t), 'project', 'acme', 3);
    expect(retry).toBeGreaterThanOrEqual(59);
    const [key] = await redis.keys(`${dbName()}:rl:*:acme`);
    expect(await redis.get(key)).toBe('4');
    expect(await db.sql('select key from rate_limits')).toEqual([]);
  });

  it('bans and lifts the ban on Redis', async () => {
    await setRedisRules([t], [{ scope: 'project', points: 1, duration_s: 1, ban_after: 1, ban_s: 2 }]);
    expect((await configs(t)).statusCode).toBe(200);
    expect(expectLimited(await configs(t), 'project', 'acme', 1)).toBe(2);
    await sleep(1200);
    expect((await configs(t)).statusCode).toBe(429);
    await sleep(1000);
    expect((await configs(t)).statusCode).toBe(200);
  });

  /** A TCP relay in front of Redis that the test can cut and restore; each connection reaches Redis after `delayMs`. */
  async function redisRelay(delayMs = 0) {
    const sockets = new Set<net.Socket>();
    const target = new URL(REDIS_URL!);
    const relay = net.createServer((client) => {
      sockets.add(client);
      client.pause();
      setTimeout(() => {
        if (client.destroyed) return;
        const upstream = net.connect(Number(target.port || 6379), target.hostname);
        sockets.add(upstream);
        client.pipe(upstream).pipe(client);
        client.resume();
        upstream.on('error', drop).on('close', drop);
        function drop() {
          client.destroy();
          upstream.destroy();
        }
        client.on('error', drop).on('close', drop);
      }, delayMs);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
    const close = () => {
      relay.close();
      for (const s of sockets) s.destroy();
    };
    return { relay, sockets, port: (relay.address() as net.AddressInfo).port, close };
  }

  it('a process whose Redis connection is still being made waits for it: its first requests are counted, not refused', async () => {
    const { port, close } = await redisRelay(600);
    const slow = await startApp(engine, db, { config: { redisUrl: `redis://127.0.0.1:${port}` } });
    try {
      await setRedisRules([slow], [{ scope: 'project', points: 2, duration_s: 60, on_error: 'closed' }]);
      // the request's own wait (building the app is not timed: on a loaded host it takes seconds by itself)
      const started = Date.now();
      expect((await configs(slow)).statusCode).toBe(200);
      expect(Date.now() - started).toBeLessThan(600 + 1000); // within the relay's delay and the store's bound
      expect((await configs(slow)).statusCode).toBe(200);
      expectLimited(await configs(slow), 'project', 'acme', 2);
    } finally {
      await slow.close();
      close();
    }
  });

  it('fails closed or open when Redis is unreachable, and recovers when it comes back (no restart)', async () => {
    const { relay, sockets, port, close } = await redisRelay();
    const viaRelay = await startApp(engine, db, { config: { redisUrl: `redis://127.0.0.1:${port}` } });
    try {
      await setRedisRules([viaRelay], [{ scope: 'project', points: 100, duration_s: 60, on_error: 'closed' }]);
      expect((await configs(viaRelay)).statusCode).toBe(200);

      const closed = new Promise<void>((r) => relay.close(() => r()));
      for (const s of sockets) s.destroy();
      sockets.clear();
      await closed;
      await sleep(100);
      const started = Date.now();
      const down = await configs(viaRelay);
      expect(down.statusCode).toBe(503);
      expect(down.json().code).toBe('ERROR_RATE_LIMIT_UNAVAILABLE');
      expect(down.headers['retry-after']).toBe('1');
      expect(Date.now() - started).toBeLessThan(2500);

      await db.sql('update projects set rate_limits = ?::jsonb where code = ?', [
        JSON.stringify([{ scope: 'project', points: 100, duration_s: 60, on_error: 'open' }]),
        'acme',
      ]);
      viaRelay.services.tenancy.forgetProject('acme');
      expect((await configs(viaRelay)).statusCode).toBe(200);

      await db.sql('update projects set rate_limits = ?::jsonb where code = ?', [
        JSON.stringify([{ scope: 'project', points: 2, duration_s: 60, on_error: 'closed' }]),
        'acme',
      ]);
      viaRelay.services.tenancy.forgetProject('acme');
      await new Promise<void>((r) => relay.listen(port, '127.0.0.1', () => r()));
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await configs(viaRelay)).statusCode;
        if (status !== 200) await sleep(200);
      }
      expect(status).toBe(200); // ioredis reconnected by itself
      expect((await configs(viaRelay)).statusCode).toBe(200);
      expectLimited(await configs(viaRelay), 'project', 'acme', 2);
    } finally {
      await viaRelay.close();
      close();
    }
  });

  it('answers 503 for closed and lets requests through for open when Redis is at a closed port', async () => {
    const dead = await startApp(engine, db, { config: { redisUrl: 'redis://127.0.0.1:1' } });
    try {
      await setRedisRules([dead], [{ scope: 'project', points: 100, duration_s: 60, on_error: 'closed' }]);
      const res = await configs(dead);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      await setRedisRules([dead], [{ scope: 'project', points: 100, duration_s: 60, on_error: 'open' }]);
      expect((await configs(dead)).statusCode).toBe(200);
    } finally {
      await setRedisRules([dead], []);
      await dead.close();
    }
  });
});
