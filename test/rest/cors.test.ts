import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/** CORS for browser clients (CONTRACT §1): preflight before every check, exposed limit headers. */
const ORIGIN = 'http://dashboard.example';
const preflight = (
  t: TestApp,
  url: string,
  origin = ORIGIN,
  requestHeaders = 'authorization,x-api-key,content-type,x-app-x,x-socket-id-x,x-country-code-x',
) =>
  t.app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': requestHeaders },
  });
const allowed = (header: string | string[] | number | undefined) =>
  String(header ?? '')
    .toLowerCase()
    .split(/\s*,\s*/);

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
  await db.sql(`update projects set maintenance = true where code = 'other'`);
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('CORS (%s)', (engine) => {
  let t: TestApp;
  let listed: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
    listed = await startApp(engine, db, { config: { corsOrigins: ['http://a.example', ORIGIN] } });
  });
  afterAll(async () => {
    await t.close();
    await listed.close();
  });

  it('answers a preflight 204 before the version, project and credential checks', async () => {
    for (const url of [
      '/v400/en/acme/auth',
      '/v400/en/acme/ai/conversations',
      '/v401/en/acme/configs',
      '/v400/en/nope/configs',
      '/v400/en/other/configs',
      '/graphql',
    ]) {
      const res = await preflight(t, url);
      expect(res.statusCode, url).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(allowed(res.headers['access-control-allow-methods'])).toEqual(
        expect.arrayContaining(['get', 'post', 'put', 'patch', 'delete']),
      );
      expect(allowed(res.headers['access-control-allow-headers'])).toEqual(
        expect.arrayContaining([
          'authorization',
          'x-api-key',
          'content-type',
          'x-app-x',
          'x-socket-id-x',
          'x-country-code-x',
          'x-request-id',
        ]),
      );
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('puts the origin and the exposed headers on every answer, errors included', async () => {
    const ok = await t.api({ path: '/configs', key: KEYS.server, headers: { origin: ORIGIN } });
    expect(ok.statusCode).toBe(200);
    const unauthorized = await t.api({ path: '/configs', key: 'wrong-key', headers: { origin: ORIGIN } });
    expect(unauthorized.statusCode).toBe(401);
    const unknown = await t.api({ path: '/nothing-here', key: KEYS.server, headers: { origin: ORIGIN } });
    expect(unknown.statusCode).toBe(404);
    for (const res of [ok, unauthorized, unknown]) {
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(allowed(res.headers['access-control-expose-headers'])).toEqual(
        expect.arrayContaining([
          'retry-after',
          'x-ratelimit-limit',
          'x-ratelimit-remaining',
          'x-ratelimit-reset',
          'x-ratelimit-scope',
          'x-ratelimit-key',
          'x-request-id',
        ]),
      );
    }
  });

  it('with CORS_ORIGINS listing origins, reflects a listed one and gives another nothing', async () => {
    const yes = await preflight(listed, '/v400/en/acme/configs');
    expect(yes.statusCode).toBe(204);
    expect(yes.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(String(yes.headers.vary)).toMatch(/origin/i);
    const no = await preflight(listed, '/v400/en/acme/configs', 'http://evil.example');
    expect(no.headers['access-control-allow-origin']).toBeUndefined();
    const get = await listed.api({ path: '/configs', key: KEYS.server, headers: { origin: 'http://evil.example' } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    const mine = await listed.api({ path: '/configs', key: KEYS.server, headers: { origin: ORIGIN } });
    expect(mine.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('handles an OPTIONS that is not a preflight as an unknown method', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/v400/en/acme/configs' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: true, code: 'ERROR_NOT_FOUND' });
    const outside = await t.app.inject({ method: 'OPTIONS', url: '/v401/en/acme/configs', headers: { origin: ORIGIN } });
    expect(outside.statusCode).toBe(404);
    expect(outside.body).toBe('');
  });

  it('the CORS headers of each kind of answer, exactly as @fastify/cors wrote them', async () => {
    const cors = (res: { headers: Record<string, unknown> }) =>
      Object.fromEntries(
        Object.entries(res.headers).filter(([k]) => k.startsWith('access-control-') || k === 'vary' || k === 'content-length'),
      );
    const exposed =
      'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Scope, X-RateLimit-Key, X-Request-Id, Idempotent-Replayed';
    const pre = {
      vary: 'Origin',
      'access-control-allow-origin': '*',
      'access-control-expose-headers': exposed,
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers':
        'Authorization, X-Api-Key, Content-Type, Accept, Accept-Language, X-APP-X, X-Socket-Id-X, X-Country-Code-X, X-Request-Id, X-Requested-With, Idempotency-Key',
      'access-control-max-age': '600',
      'content-length': '0',
    };
    expect(cors(await preflight(t, '/v400/en/acme/configs'))).toEqual(pre);
    expect(cors(await preflight(listed, '/v400/en/acme/configs'))).toEqual({ ...pre, 'access-control-allow-origin': ORIGIN });
    const { 'access-control-allow-origin': _, ...refused } = pre;
    expect(cors(await preflight(listed, '/v400/en/acme/configs', 'http://evil.example'))).toEqual(refused);
    const get = await t.api({ path: '/configs', key: KEYS.server });
    expect(cors(get)).toEqual({
      vary: 'Origin',
      'access-control-allow-origin': '*',
      'access-control-expose-headers': exposed,
      'content-length': get.headers['content-length'],
    });
    const other = await listed.api({ path: '/configs', key: KEYS.server, headers: { origin: 'http://evil.example' } });
    expect(cors(other)).toEqual({
      vary: 'Origin',
      'access-control-expose-headers': exposed,
      'content-length': other.headers['content-length'],
    });
    const options = await t.app.inject({ method: 'OPTIONS', url: '/v400/en/acme/configs', headers: { origin: ORIGIN } });
    expect([options.statusCode, cors(options)]).toEqual([404, { vary: 'Origin', 'content-length': options.headers['content-length'] }]);
  });

  it('accepts and ignores the headers the clients always send', async () => {
    const plain = await t.api({ path: '/configs', key: KEYS.server, query: { mode: 'dictionary' } });
    const extra = await t.api({
      path: '/configs',
      key: KEYS.server,
      query: { mode: 'dictionary' },
      headers: { 'x-app-x': 'dashboard', 'x-socket-id-x': 'abc.123', 'x-country-code-x': 'MX' },
    });
    expect(extra.statusCode).toBe(200);
    expect(extra.json()).toEqual(plain.json());
  });
});
