import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';

const QUERY = '{ project { code } configs { key value } }';
const OPERATOR_TOKEN = 'operator-token-graphql-endpoint-0123456789';
const OPERATOR = { authorization: `Bearer ${OPERATOR_TOKEN}` };

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ configs: [{ key: 'acme_only', value: 'acme-value', public: true }] }));
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('/graphql (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { operatorToken: OPERATOR_TOKEN } });
  });
  afterAll(async () => {
    await t.services.settings.setMaintenance(false);
    await t.close();
  });

  const post = (query: string, headers: Record<string, string> = {}, variables?: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/graphql', headers, payload: { query, ...(variables ? { variables } : {}) } });
  const get = (query: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/graphql', headers, query: { query } });

  async function login(email: string): Promise<string> {
    const res = await t.api({ method: 'POST', path: '/auth', body: { email, password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    const token = res.json().result.session.access_token;
    expect(typeof token).toBe('string');
    return token;
  }

  function expectOwnProject(res: Awaited<ReturnType<typeof post>>, code: string, ownKey: string, foreignKey: string) {
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.project.code).toBe(code);
    const keys = body.data.configs.map((c: { key: string }) => c.key);
    expect(keys).toContain(ownKey);
    expect(keys).not.toContain(foreignKey);
    expect(body.data.configs.find((c: { key: string }) => c.key === 'project_code').value).toBe(code);
  }

  /** The REST envelope, as every refusal of the gates, with GraphQL's `errors` beside it (the same code). */
  function expectUnauthorized(res: Awaited<ReturnType<typeof post>>) {
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      error: true,
      code: 'ERROR_UNAUTHORIZED',
      result: ['Authentication is required.'],
      errors: [{ message: 'Authentication is required.', extensions: { code: 'ERROR_UNAUTHORIZED' } }],
    });
  }

  it('answers a server key with its own project', async () => {
    expectOwnProject(await post(QUERY, { 'x-api-key': KEYS.server }), 'acme', 'acme_only', 'other_secret');
  });

  it('answers a level-0 user by API key', async () => {
    expectOwnProject(await post(QUERY, { 'x-api-key': KEYS.admin }), 'acme', 'acme_only', 'other_secret');
  });

  it('answers a level-0 user by the bearer token from POST /auth', async () => {
    const token = await login('admin@acme.test');
    expectOwnProject(await post(QUERY, { authorization: `Bearer ${token}` }), 'acme', 'acme_only', 'other_secret');
  });

  it('refuses level 2 and level 3 users (key or token) with 401', async () => {
    expectUnauthorized(await post(QUERY, { 'x-api-key': KEYS.owner }));
    expectUnauthorized(await post(QUERY, { 'x-api-key': KEYS.customer }));
    const token = await login('customer@acme.test');
    expectUnauthorized(await post(QUERY, { authorization: `Bearer ${token}` }));
  });

  it('refuses no credentials, an unknown key and an unknown token with 401', async () => {
    expectUnauthorized(await post(QUERY));
    expectUnauthorized(await post(QUERY, { 'x-api-key': 'not-a-real-key-0123456789' }));
    expectUnauthorized(await post(QUERY, { authorization: 'Bearer not-a-real-token' }));
    expectUnauthorized(await get(QUERY));
  });

  it('keeps tenants apart: a key of project other sees other only', async () => {
    expectOwnProject(await post(QUERY, { 'x-api-key': KEYS.otherServer }), 'other', 'other_secret', 'acme_only');
    expectOwnProject(await post(QUERY, { 'x-api-key': KEYS.otherAdmin }), 'other', 'other_secret', 'acme_only');
  });

  it('runs a query sent by GET ?query=', async () => {
    expectOwnProject(await get(QUERY, { 'x-api-key': KEYS.server }), 'acme', 'acme_only', 'other_secret');
  });

  it('refuses a mutation sent by GET with 405, and changes nothing', async () => {
    const res = await get('mutation { setApplicationMaintenance(enabled: true) }', OPERATOR);
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json().errors[0].message).toBeTruthy();
    const state = await post('{ applicationMaintenance }', OPERATOR);
    expect(state.json().data.applicationMaintenance).toBe(false);
  });

  it('answers a syntax error with 400, a message and no stack', async () => {
    const res = await post('{ project { code ', { 'x-api-key': KEYS.server });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.errors.length).toBeGreaterThan(0);
    expect(body.errors[0].message).toMatch(/Syntax Error/i);
    expect(res.body).not.toMatch(/stack|stacktrace|\.ts:\d+|node_modules/i);
  });

  it('answers a query on an unknown field with 400 and no stack', async () => {
    const res = await post('{ project { nope } }', { 'x-api-key': KEYS.server });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toContain('nope');
    expect(res.body).not.toMatch(/stack|stacktrace|node_modules/i);
  });

  describe('GraphQL over HTTP', () => {
    const GRAPH = 'application/graphql-response+json';
    it('answers application/graphql-response+json when Accept asks for it, application/json otherwise', async () => {
      for (const [accept, type] of [
        [GRAPH, GRAPH],
        [`${GRAPH}, application/json;q=0.9`, GRAPH],
        [`application/json, ${GRAPH};q=0.5`, 'application/json'],
        ['application/json', 'application/json'],
        ['*/*', 'application/json'],
      ]) {
        const res = await post('{ project { code } }', { 'x-api-key': KEYS.server, accept });
        expect(res.statusCode, accept).toBe(200);
        expect(res.headers['content-type'], accept).toBe(`${type}; charset=utf-8`);
        expect(res.json().data.project.code).toBe('acme');
      }
    });

    it('has no data on a request that does not parse or validate (either type; 200 for a client asking for application/json alone)', async () => {
      for (const [accept, status] of [
        [GRAPH, 400],
        [undefined, 400],
        ['application/json', 200],
      ] as const) {
        for (const query of ['{ project { code ', '{ project { nope } }']) {
          const res = await post(query, { 'x-api-key': KEYS.server, ...(accept && { accept }) });
          expect(res.statusCode).toBe(status);
          expect(res.json()).not.toHaveProperty('data');
          expect(res.json().errors[0].message).toBeTruthy();
        }
      }
    });

    it("a gate's refusal is the REST envelope with GraphQL's errors beside it, whatever Accept says", async () => {
      const res = await post('{ project { code } }', { 'x-api-key': 'no-such-key-0123456789', accept: GRAPH });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        error: true,
        code: 'ERROR_UNAUTHORIZED',
        result: ['Authentication is required.'],
        errors: [{ message: 'Authentication is required.', extensions: { code: 'ERROR_UNAUTHORIZED' } }],
      });
    });
  });

  it("puts REST and the tenants' /graphql into maintenance through the operator, who still gets through, and restores it", async () => {
    // A second app on the same database stands for another process: its settings cache is its own.
    const other = await startApp(engine, db, { config: { operatorToken: OPERATOR_TOKEN } });
    try {
      const rest = () => other.api({ path: '/configs', key: KEYS.server });
      expect((await rest()).statusCode).toBe(200);

      const on = await post('mutation { setApplicationMaintenance(enabled: true) }', OPERATOR);
      expect(on.statusCode).toBe(200);
      expect(on.json().data.setApplicationMaintenance).toBe(true);

      const down = await pollUntil(rest, (r) => r.statusCode === 503, 5000);
      expect(down.statusCode).toBe(503);
      expect(down.json()).toMatchObject({ error: true, code: 'ERROR_MAINTENANCE' });
      // The process that set it sees it at once, on REST and on the tenants' /graphql alike.
      expect((await t.api({ path: '/configs', key: KEYS.server })).statusCode).toBe(503);
      const graph = await post(QUERY, { 'x-api-key': KEYS.server });
      expect(graph.statusCode).toBe(503);
      expect(graph.json()).toMatchObject({ error: true, code: 'ERROR_MAINTENANCE' });
      expect((await post('{ applicationMaintenance }', OPERATOR)).json().data.applicationMaintenance).toBe(true);

      const off = await post('mutation { setApplicationMaintenance(enabled: false) }', OPERATOR);
      expect(off.json().data.setApplicationMaintenance).toBe(false);
      const up = await pollUntil(rest, (r) => r.statusCode === 200, 5000);
      expect(up.statusCode).toBe(200);
      expect((await t.api({ path: '/configs', key: KEYS.server })).statusCode).toBe(200);
      expectOwnProject(await post(QUERY, { 'x-api-key': KEYS.server }), 'acme', 'acme_only', 'other_secret');
    } finally {
      await t.services.settings.setMaintenance(false);
      await other.close();
    }
  });
});

async function pollUntil<T>(fn: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (done(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}
