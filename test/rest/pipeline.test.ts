import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture();
  fixture.projects.push(
    {
      code: 'lapsed',
      name: 'Lapsed',
      subscription_active: false,
      users: [{ id: 300, email: 'a@lapsed.test', password: PASSWORD, level: 0 }],
    },
    { code: 'paused', name: 'Paused', maintenance: true, users: [{ id: 310, email: 'a@paused.test', password: PASSWORD, level: 0 }] },
  );
  await db.load(fixture);
});
afterAll(() => db.orm.close());

/** An error envelope with the given status and code; returns its messages. */
function expectEnvelope(
  res: { statusCode: number; headers: Record<string, unknown>; json(): any },
  status: number,
  code: string,
): string[] {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toContain('application/json');
  const body = res.json();
  expect(body).toEqual({ error: true, code, result: expect.any(Array) });
  expect(body.result.length).toBeGreaterThan(0);
  return body.result;
}

describe.each(ENGINES)('request pipeline (%s)', (engine) => {
  let t: TestApp;
  let down: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
    down = await startApp(engine, db, { config: { maintenance: true } });
  });
  afterAll(async () => {
    await t.close();
    await down.close();
  });

  const login = async (project: string, email: string) => {
    const res = await t.api({ method: 'POST', path: '/auth', project, body: { email, password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    return res.json().result.session.access_token as string;
  };

  describe('versions and paths', () => {
    for (const url of ['/v401/en/acme/configs', '/v4/en/acme/configs', '/V400/en/acme/configs', '/foo', '/', '/v401/en/acme/auth']) {
      it(`answers ${url} with an empty 404`, async () => {
        const res = await t.app.inject({ method: 'GET', url, headers: { 'x-api-key': KEYS.server } });
        expect(res.statusCode).toBe(404);
        expect(res.body).toBe('');
        expect(res.headers['content-length']).toBe('0');
        expect(res.headers['x-request-id']).toBeTruthy();
      });
    }

    it('answers POST to another version with an empty 404 too', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v401/en/acme/auth',
        payload: { email: 'admin@acme.test', password: PASSWORD },
      });
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe('');
    });

    it('answers an unknown path under v400 with the ERROR_NOT_FOUND envelope', async () => {
      const res = await t.api({ path: '/nope', key: KEYS.server });
      expectEnvelope(res, 404, 'ERROR_NOT_FOUND');
      const deep = await t.app.inject({ method: 'GET', url: '/v400/en/acme/configs/extra/segments' });
      expectEnvelope(deep, 404, 'ERROR_NOT_FOUND');
    });

    it('answers an unknown method under v400 with the ERROR_NOT_FOUND envelope', async () => {
      expectEnvelope(await t.api({ method: 'DELETE', path: '/configs', key: KEYS.server }), 404, 'ERROR_NOT_FOUND');
      expectEnvelope(await t.api({ method: 'GET', path: '/auth' }), 404, 'ERROR_NOT_FOUND');
    });

    it('answers a URL that does not decode like any other path: empty outside v400, the envelope under it', async () => {
      const outside = await t.app.inject({ method: 'GET', url: '/v401/%zz/acme/configs' });
      expect(outside.statusCode).toBe(404);
      expect(outside.body).toBe('');
      expect(outside.headers['x-request-id']).toBeTruthy();
      for (const url of ['/v400/en/acme/%zz', '/v400/es/%E0%A4%A/configs']) {
        const res = await t.app.inject({ method: 'GET', url });
        expectEnvelope(res, 404, 'ERROR_NOT_FOUND');
        expect(res.body).not.toContain('FST_');
        expect(res.headers['x-request-id']).toBeTruthy();
      }
    });

    it("takes a project code longer than the router's default parameter limit as an unknown project", async () => {
      const res = await t.app.inject({ method: 'GET', url: `/v400/en/${'a'.repeat(500)}/configs` });
      expectEnvelope(res, 401, 'ERROR_PROJECT_NOT_FOUND');
    });

    it('translates the not-found envelope', async () => {
      const [msg] = expectEnvelope(await t.api({ path: '/nope', lang: 'es' }), 404, 'ERROR_NOT_FOUND');
      expect(msg).toBe('El recurso solicitado no existe.');
    });
  });

  describe('projects', () => {
    it('answers an unknown project with 401 ERROR_PROJECT_NOT_FOUND', async () => {
      const [msg] = expectEnvelope(await t.api({ path: '/configs', project: 'nope', key: KEYS.server }), 401, 'ERROR_PROJECT_NOT_FOUND');
      expect(msg).toBe('The project does not exist.');
    });

    for (const code of ['ACME', '-acme', 'ac.me', 'a'.repeat(65), 'acme%27%20or%201%3D1', '%C3%A9t%C3%A9']) {
      it(`treats the malformed project code ${code.slice(0, 20)} as unknown`, async () => {
        const res = await t.app.inject({ method: 'GET', url: `/v400/en/${code}/configs`, headers: { 'x-api-key': KEYS.server } });
        expectEnvelope(res, 401, 'ERROR_PROJECT_NOT_FOUND');
      });
    }

    it('answers a project without an active subscription with 401 ERROR_PROJECT_SUBSCRIPTION_INACTIVE', async () => {
      expectEnvelope(await t.api({ path: '/configs', project: 'lapsed' }), 401, 'ERROR_PROJECT_SUBSCRIPTION_INACTIVE');
      const auth = await t.api({ method: 'POST', path: '/auth', project: 'lapsed', body: { email: 'a@lapsed.test', password: PASSWORD } });
      expectEnvelope(auth, 401, 'ERROR_PROJECT_SUBSCRIPTION_INACTIVE');
    });

    it('answers a project in maintenance with 503 ERROR_MAINTENANCE', async () => {
      expectEnvelope(await t.api({ path: '/configs', project: 'paused' }), 503, 'ERROR_MAINTENANCE');
      const auth = await t.api({ method: 'POST', path: '/auth', project: 'paused', body: { email: 'a@paused.test', password: PASSWORD } });
      expectEnvelope(auth, 503, 'ERROR_MAINTENANCE');
    });

    it('answers 500 ERROR_PROJECT_LOOKUP_FAILED when the lookup fails, with no internals', async () => {
      await db.sql('alter table projects rename to projects_x');
      let res;
      try {
        // A code this app has never looked up, so the cache cannot answer.
        res = await t.api({ path: '/configs', project: `uncached-${engine}`, key: KEYS.server });
      } finally {
        await db.sql('alter table projects_x rename to projects');
      }
      const [msg] = expectEnvelope(res, 500, 'ERROR_PROJECT_LOOKUP_FAILED');
      expect(msg).toBe('The project could not be loaded.');
      expect(res.body).not.toMatch(/projects_x|relation|select|from|stack|\bat /i);
      // The service recovers once the table is back.
      expect((await t.api({ path: '/configs', key: KEYS.server })).statusCode).toBe(200);
    });
  });

  describe('maintenance', () => {
    it('answers every v400 request with 503 during application maintenance', async () => {
      const [msg] = expectEnvelope(await down.api({ path: '/configs', key: KEYS.server }), 503, 'ERROR_MAINTENANCE');
      expect(msg).toBe('The service is under maintenance.');
      const auth = await down.api({ method: 'POST', path: '/auth', body: { email: 'admin@acme.test', password: PASSWORD } });
      expectEnvelope(auth, 503, 'ERROR_MAINTENANCE');
    });
  });

  describe('authentication', () => {
    it('refuses a missing token', async () => {
      expectEnvelope(await t.api({ path: '/configs' }), 401, 'ERROR_UNAUTHORIZED');
    });

    it('refuses an invalid token', async () => {
      expectEnvelope(await t.api({ path: '/configs', token: 'ogs_not-a-real-token' }), 401, 'ERROR_UNAUTHORIZED');
    });

    for (const authorization of ['Basic YWRtaW46cGFzc3dvcmQ=', 'Bearer', 'Bearer ', 'Bearer a b', 'Token abc', '']) {
      it(`refuses the malformed Authorization header "${authorization}"`, async () => {
        const res = await t.api({ path: '/configs', headers: { authorization } });
        expectEnvelope(res, 401, 'ERROR_UNAUTHORIZED');
      });
    }

    it('accepts the word bearer in any case', async () => {
      const token = await login('acme', 'admin@acme.test');
      const res = await t.api({ path: '/configs', headers: { authorization: `bEaReR ${token}` } });
      expect(res.statusCode).toBe(200);
    });

    it('refuses an invalid API key', async () => {
      expectEnvelope(await t.api({ path: '/configs', key: 'acme-not-a-key-0000000000' }), 401, 'ERROR_UNAUTHORIZED');
    });

    it('lets the API key decide when both are sent', async () => {
      const token = await login('acme', 'admin@acme.test');
      expectEnvelope(await t.api({ path: '/configs', token, key: 'acme-not-a-key-0000000000' }), 401, 'ERROR_UNAUTHORIZED');
      expect((await t.api({ path: '/configs', token: 'bogus', key: KEYS.server })).statusCode).toBe(200);
    });

    it('refuses a key or a token of another project', async () => {
      expectEnvelope(await t.api({ path: '/configs', key: KEYS.otherServer }), 401, 'ERROR_UNAUTHORIZED');
      expectEnvelope(await t.api({ path: '/configs', key: KEYS.otherAdmin }), 401, 'ERROR_UNAUTHORIZED');
      const foreign = await login('other', 'admin@other.test');
      expect((await t.api({ path: '/configs', project: 'other', token: foreign })).statusCode).toBe(200);
      expectEnvelope(await t.api({ path: '/configs', token: foreign }), 401, 'ERROR_UNAUTHORIZED');
    });

    it('refuses an expired session', async () => {
      const token = await login('acme', 'owner@acme.test');
      expect((await t.api({ path: '/configs', token })).statusCode).toBe(200);
      await db.sql("update sessions set expires_at = now() - interval '1 second' where token_hash = ?", [sha256(token)]);
      // A valid session is remembered per process for at most CALLER_CACHE_MS (the rule: refused everywhere within 2 s).
      const deadline = Date.now() + 2000;
      let res = await t.api({ path: '/configs', token });
      while (res.statusCode === 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        res = await t.api({ path: '/configs', token });
      }
      expectEnvelope(res, 401, 'ERROR_UNAUTHORIZED');
    });

    it('refuses the session of a user disabled since', async () => {
      const token = await login('acme', 'owner2@acme.test');
      await db.sql('update users set enabled = false where id = 6');
      try {
        expectEnvelope(await t.api({ path: '/configs', token }), 401, 'ERROR_UNAUTHORIZED');
      } finally {
        await db.sql('update users set enabled = true where id = 6');
      }
    });
  });

  describe('order of checks', () => {
    it('a bad version wins over maintenance', async () => {
      const res = await down.app.inject({ method: 'GET', url: '/v401/en/acme/configs' });
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe('');
    });

    it('application maintenance wins over an unknown project', async () => {
      expectEnvelope(await down.api({ path: '/configs', project: 'nope' }), 503, 'ERROR_MAINTENANCE');
    });

    it('an unknown project wins over a missing token', async () => {
      expectEnvelope(await t.api({ path: '/configs', project: 'nope' }), 401, 'ERROR_PROJECT_NOT_FOUND');
    });

    it('an inactive subscription wins over project maintenance and a missing token', async () => {
      await db.sql("update projects set maintenance = true where code = 'lapsed'");
      try {
        t.services.tenancy.forgetProject('lapsed');
        expectEnvelope(await t.api({ path: '/configs', project: 'lapsed' }), 401, 'ERROR_PROJECT_SUBSCRIPTION_INACTIVE');
      } finally {
        await db.sql("update projects set maintenance = false where code = 'lapsed'");
        t.services.tenancy.forgetProject('lapsed');
      }
    });

    it('project maintenance wins over a missing token', async () => {
      expectEnvelope(await t.api({ path: '/configs', project: 'paused' }), 503, 'ERROR_MAINTENANCE');
    });

    it('authentication wins over input validation', async () => {
      expectEnvelope(await t.api({ path: '/configs', query: { mode: 'bogus' } }), 401, 'ERROR_UNAUTHORIZED');
      expectEnvelope(await t.api({ path: '/configs', query: { mode: 'bogus' }, key: KEYS.server }), 400, 'ERROR_VALIDATION');
    });
  });

  describe('languages', () => {
    const cases: [string, string][] = [
      ['en', 'The project does not exist.'],
      ['es', 'El proyecto no existe.'],
      ['fr', "Le projet n'existe pas."],
      ['ar', 'المشروع غير موجود.'],
      ['es-MX', 'El proyecto no existe.'],
      ['fr-CA', "Le projet n'existe pas."],
      ['de', 'The project does not exist.'],
      ['xx-YY', 'The project does not exist.'],
      ['e$', 'The project does not exist.'],
      ['%20es', 'The project does not exist.'],
      ['e'.repeat(300), 'The project does not exist.'],
    ];
    for (const [lang, message] of cases) {
      it(`answers lang ${lang.slice(0, 12)} in its language or English`, async () => {
        const res = await t.app.inject({ method: 'GET', url: `/v400/${lang}/nope/configs` });
        expect(expectEnvelope(res, 401, 'ERROR_PROJECT_NOT_FOUND')).toEqual([message]);
      });
    }

    it('translates authentication and validation messages too', async () => {
      expect(expectEnvelope(await t.api({ path: '/configs', lang: 'fr' }), 401, 'ERROR_UNAUTHORIZED')).toEqual([
        "L'authentification est requise.",
      ]);
      expect(expectEnvelope(await t.api({ path: '/configs', lang: 'ar' }), 401, 'ERROR_UNAUTHORIZED')).toEqual(['المصادقة مطلوبة.']);
      const [msg] = expectEnvelope(
        await t.api({ path: '/configs', lang: 'es-MX', key: KEYS.server, query: { mode: 'x' } }),
        400,
        'ERROR_VALIDATION',
      );
      expect(msg).toContain('mode');
      expect(msg).toMatch(/^El campo/);
    });

    it('translates maintenance', async () => {
      expect(expectEnvelope(await down.api({ path: '/configs', lang: 'es' }), 503, 'ERROR_MAINTENANCE')).toEqual([
        'El servicio está en mantenimiento.',
      ]);
    });
  });

  describe('request ids', () => {
    it('puts x-request-id on every kind of response', async () => {
      const responses = [
        await t.api({ path: '/configs', key: KEYS.server }),
        await t.api({ path: '/configs' }),
        await t.api({ path: '/configs', project: 'nope' }),
        await t.api({ path: '/nope' }),
        await t.api({ method: 'POST', path: '/auth', body: { email: 'x' } }),
        await t.app.inject({ method: 'GET', url: '/v401/en/acme/configs' }),
        await down.api({ path: '/configs' }),
      ];
      const ids = responses.map((r) => r.headers['x-request-id']);
      for (const rid of ids) expect(typeof rid === 'string' && rid.length > 0).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('keeps a well-formed x-request-id from the client and replaces a malformed one', async () => {
      const kept = await t.api({ path: '/configs', key: KEYS.server, headers: { 'x-request-id': 'client-req.42' } });
      expect(kept.headers['x-request-id']).toBe('client-req.42');
      const replaced = await t.api({ path: '/configs', key: KEYS.server, headers: { 'x-request-id': 'bad id <script>' } });
      expect(replaced.headers['x-request-id']).not.toBe('bad id <script>');
      expect(String(replaced.headers['x-request-id'])).toMatch(/^[\w.-]{1,64}$/);
    });
  });
});
