import 'reflect-metadata';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD, USERS } from '../support/fixtures.js';

/** What no answer may ever contain (CONTRACT §2). */
const LEAKS: RegExp[] = [
  /\bstack\b/i,
  /\n\s*at /,
  /\bat [\w.<>]+ \(/,
  /\.(ts|js|mjs|cjs):\d+/,
  /node_modules/,
  /\bselect\b/i,
  /\binsert into\b/i,
  /\bdelete from\b/i,
  /\bon conflict\b/i,
  /\breturning\b/i,
  /\bwhere\b/i,
  /password_hash/i,
  /\$argon2/,
  /FST_/,
  /SyntaxError|TypeError|RangeError/,
];

let db: TestDatabase;
let usersBefore: unknown[];
const usersSnapshot = () => db.sql('select id, project_id, email, password_hash, level, enabled from users order by id');

beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
  usersBefore = await usersSnapshot();
});
afterAll(() => db?.orm.close());

describe.each(ENGINES)('hostile input (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  /** A 4xx error envelope that leaks nothing; returns its body. */
  function refused(res: LightMyRequestResponse, status?: number, code?: string) {
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    if (status) expect(res.statusCode).toBe(status);
    expect(String(res.headers['content-type'])).toContain('application/json');
    const body = res.json();
    expect(body.error).toBe(true);
    expect(typeof body.code).toBe('string');
    expect(body.code).toMatch(/^ERROR_[A-Z_]+$/);
    expect(Array.isArray(body.result)).toBe(true);
    if (code) expect(body.code).toBe(code);
    leaksNothing(res);
    return body as { error: true; code: string; result: string[] };
  }

  function leaksNothing(res: LightMyRequestResponse) {
    for (const re of LEAKS) expect(res.body, `${re} in ${res.body.slice(0, 200)}`).not.toMatch(re);
    expect(res.body.length).toBeLessThan(4096);
  }

  const postAuth = (payload: string | Buffer, contentType = 'application/json') =>
    t.app.inject({ method: 'POST', url: '/v400/en/acme/auth', headers: { 'content-type': contentType }, payload });

  describe('POST /auth', () => {
    it('refuses malformed JSON with a validation envelope naming the body', async () => {
      for (const payload of ['{"email": ', '{email: "a@b.co"}', "{'email':'a@b.co'}", '{"email":"a@b.co",}', '\u0000', '{"a":1}{"b":2}']) {
        const body = refused(await postAuth(payload), 400, 'ERROR_VALIDATION');
        expect(body.result.join(' ')).toContain('body');
      }
    });

    it('refuses an empty JSON body and non-object JSON', async () => {
      refused(await postAuth(''), 400, 'ERROR_VALIDATION');
      for (const payload of ['null', '[]', '"admin@acme.test"', '42', 'true', '[{"email":"admin@acme.test","password":"x"}]']) {
        refused(await postAuth(payload), 400, 'ERROR_VALIDATION');
      }
    });

    it('refuses wrong JSON types without coercing them', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ email: 12345, password: PASSWORD }, 'email'],
        [{ email: 'admin@acme.test', password: 12345678 }, 'password'],
        [{ email: 'admin@acme.test', password: true }, 'password'],
        [{ email: 'admin@acme.test', password: null }, 'password'],
        [{ cellphone: 5512345678, country_phone_code: 52, password: PASSWORD }, 'cellphone'],
        [{ guest_token: 1 }, 'guest_token'],
        [{ email: 'admin@acme.test', one_time_password: 123456 }, 'one_time_password'],
      ];
      for (const [payload, field] of cases) {
        const body = refused(await postAuth(JSON.stringify(payload)), 400, 'ERROR_VALIDATION');
        expect(body.result.join(' ')).toContain(field);
      }
    });

    it('refuses nested arrays and objects where strings are expected', async () => {
      const cases: Record<string, unknown>[] = [
        { email: ['admin@acme.test'], password: PASSWORD },
        { email: 'admin@acme.test', password: { $ne: null } },
        { email: { $regex: '.*' }, password: PASSWORD },
        { email: 'admin@acme.test', password: [[[PASSWORD]]] },
        { guest_token: { toString: 'x' } },
      ];
      for (const payload of cases) refused(await postAuth(JSON.stringify(payload)), 400, 'ERROR_VALIDATION');
    });

    it('refuses a 1 MB string field', async () => {
      const big = 'a'.repeat(1_000_000);
      for (const payload of [
        { email: `${big}@acme.test`, password: PASSWORD },
        { email: 'admin@acme.test', password: big },
      ]) {
        const body = refused(await postAuth(JSON.stringify(payload)), 400, 'ERROR_VALIDATION');
        expect(JSON.stringify(body)).not.toContain('aaaaaaaaaa');
      }
    });

    it('refuses a 2 MB body with the 413 envelope', async () => {
      const payload = JSON.stringify({ email: 'admin@acme.test', password: 'x'.repeat(2 * 1024 * 1024) });
      refused(await postAuth(payload), 413, 'ERROR_PAYLOAD_TOO_LARGE');
    });

    it('refuses JSON nested far deeper than any body needs', async () => {
      const depth = 200_000;
      refused(await postAuth('['.repeat(depth) + ']'.repeat(depth)), 400);
      refused(await postAuth(`{"email":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`), 400);
    });

    it('refuses prototype pollution', async () => {
      refused(await postAuth('{"email":"admin@acme.test","password":"x","__proto__":{"level":0}}'), 400);
      refused(await postAuth('{"email":"admin@acme.test","password":"x","constructor":{"prototype":{"level":0}}}'), 400);
    });

    it('ignores unknown fields: they neither fail validation nor change the result', async () => {
      const extra = { level: 0, guest: true, id: USERS.admin, is_admin: true, password_hash: 'x', project_id: 2 };
      const wrong = await postAuth(JSON.stringify({ email: 'customer@acme.test', password: 'wrong', ...extra }));
      refused(wrong, 401, 'ERROR_INVALID_CREDENTIALS');
      const ok = await postAuth(JSON.stringify({ email: 'customer@acme.test', password: PASSWORD, ...extra }));
      expect(ok.statusCode).toBe(200);
      expect(ok.json().result).toMatchObject({ id: USERS.customer, level: 3, guest: false });
      leaksNothing(ok);
    });

    it('treats SQL-like strings as plain data', async () => {
      const cases: [Record<string, unknown>, number][] = [
        [{ email: "' or 1=1 --", password: PASSWORD }, 400],
        [{ email: '"; drop table users; --', password: PASSWORD }, 400],
        [{ email: "admin'--@acme.test", password: PASSWORD }, 401],
        [{ email: "x'or'1'='1@acme.test", password: "' or 1=1 --" }, 401],
        [{ email: 'admin@acme.test', password: "' or 1=1 --" }, 401],
        [{ email: 'admin@acme.test', password: '"; drop table users; --' }, 401],
        [{ email: '%@acme.test', password: PASSWORD }, 401],
        [{ email: '_dmin@acme.test', password: PASSWORD }, 401],
        [{ cellphone: "5512345678' or '1'='1", country_phone_code: '52', password: PASSWORD }, 400],
        [{ cellphone: '5512345678', country_phone_code: "52' --", password: PASSWORD }, 400],
        [{ guest_token: "' or 1=1 --" }, 400],
        [{ email: 'admin@acme.test', one_time_password: "1' or '1'='1" }, 400],
      ];
      for (const [payload, status] of cases) refused(await postAuth(JSON.stringify(payload)), status);
      // Still an ordinary table, and the real password still works.
      const ok = await postAuth(JSON.stringify({ email: 'admin@acme.test', password: PASSWORD }));
      expect(ok.statusCode).toBe(200);
    });

    it('refuses bodies that are not JSON with 415', async () => {
      const cases: [string, string][] = [
        ['text/plain', 'email=admin@acme.test&password=x'],
        ['application/x-www-form-urlencoded', `email=admin%40acme.test&password=${encodeURIComponent(PASSWORD)}`],
        ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nadmin@acme.test\r\n--x--'],
        ['application/xml', '<auth><email>admin@acme.test</email></auth>'],
        ['image/png', '\u0089PNG'],
      ];
      for (const [type, payload] of cases) {
        const res = await postAuth(payload, type);
        expect([type, res.statusCode, res.body]).toEqual([type, 415, expect.any(String)]);
        refused(res, 415, 'ERROR_UNSUPPORTED_MEDIA_TYPE');
      }
    });

    it('ignores a query string of 10,000 parameters or a 50 KB value', async () => {
      const many = Array.from({ length: 10_000 }, (_, i) => `p${i}=${i}`).join('&');
      for (const qs of [many, `email=${'a'.repeat(50_000)}`]) {
        const res = await t.app.inject({
          method: 'POST',
          url: `/v400/en/acme/auth?${qs}`,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ email: 'nobody@acme.test', password: 'x' }),
        });
        refused(res, 401, 'ERROR_INVALID_CREDENTIALS');
      }
    });
  });

  describe('GET /configs', () => {
    const getConfigs = (qs: string, headers: Record<string, string> = { 'x-api-key': KEYS.server }) =>
      t.app.inject({ method: 'GET', url: `/v400/en/acme/configs${qs}`, headers });

    it('refuses hostile mode values', async () => {
      for (const mode of ["' or 1=1 --", '"; drop table users; --', 'dictionary\u0000', '{"$ne":null}', 'x'.repeat(50_000)]) {
        const body = refused(await getConfigs(`?mode=${encodeURIComponent(mode)}`), 400, 'ERROR_VALIDATION');
        expect(body.result.join(' ')).toContain('mode');
      }
    });

    it('refuses a repeated or bracketed mode', async () => {
      refused(await getConfigs('?mode=dictionary&mode=dashboard'), 400, 'ERROR_VALIDATION');
      refused(await getConfigs(`?${Array.from({ length: 10_000 }, () => 'mode=x').join('&')}`), 400, 'ERROR_VALIDATION');
    });

    it('survives a query string of 10,000 parameters', async () => {
      const many = Array.from({ length: 10_000 }, (_, i) => `p${i}=${'v'.repeat(5)}`).join('&');
      refused(await getConfigs(`?${many}`, {}), 401, 'ERROR_UNAUTHORIZED');
      refused(await getConfigs(`?${many}&mode=bogus`), 400, 'ERROR_VALIDATION');
      // Unknown parameters are otherwise ignored.
      const ok = await getConfigs(`?${many}`);
      expect(ok.statusCode).toBe(200);
      expect(ok.json().error).toBe(false);
    });

    it('refuses hostile credentials without leaking', async () => {
      const headers: Record<string, string>[] = [
        { 'x-api-key': "' or 1=1 --" },
        { 'x-api-key': 'k'.repeat(8_000) },
        { authorization: "Bearer ' or 1=1 --" },
        { authorization: `Bearer ${'t'.repeat(8_000)}` },
        { authorization: 'Bearer ../../etc/passwd' },
      ];
      for (const h of headers) refused(await getConfigs('', h), 401, 'ERROR_UNAUTHORIZED');
    });

    it('ignores a body sent with GET', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/v400/en/acme/configs',
        headers: { 'x-api-key': KEYS.server, 'content-type': 'application/json' },
        payload: '{"mode": "bogus", "__proto__": {"x": 1}}',
      });
      expect(res.statusCode).toBeLessThan(500);
      leaksNothing(res);
    });
  });

  describe('odd paths', () => {
    const paths = [
      '/v400/en/acme/configs/..%2F..%2Fetc%2Fpasswd',
      '/v400/en/acme/..%2Fother/configs',
      '/v400/en/acme/configs%00',
      '/v400/en/acme/%00',
      '/v400/en/acme/configs;drop',
      '/v400/en/acme/%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      '/v400/en/ac%20me/configs',
      '/v400/en/acme%27%20or%201%3D1--/configs',
      '/v400/en/acme/configs/%E0%A4%A',
      '/v400/en/acme/' + 'x'.repeat(5000),
      '/v400/en/acme//configs/',
      '/v400/en/acme/auth/..',
      '/v400/%ZZ/acme/configs',
      '/v400/en/%F0%9F%98%80/configs',
    ];
    for (const url of paths) {
      it(`answers ${url.slice(0, 60)} with a 4xx envelope`, async () => {
        const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': KEYS.server } });
        refused(res);
        expect(res.headers['x-request-id']).toBeTruthy();
        const post = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: '{}' });
        refused(post);
      });
    }
  });
});

// Runs after both engines' hostile requests (tests run in file order).
it('leaves the users table intact, row for row', async () => {
  expect(await db.sql("select to_regclass('public.users')::text as t")).toEqual([{ t: 'users' }]);
  expect(await usersSnapshot()).toEqual(usersBefore);
  expect(usersBefore.length).toBeGreaterThan(5);
});
