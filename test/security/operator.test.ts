import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Finding 1 of issue 29 (CONTRACT §11, operator settings): application maintenance and a project's
 * usage limits belong to the operator (OPERATOR_TOKEN), not to any tenant. Over a real socket.
 */
const OPERATOR_TOKEN = 'operator-token-security-test-0123456789abcdef';
const LIMITS = 'mutation($p: String!, $r: [RateLimitRuleInput!]!) { setProjectRateLimits(project: $p, rules: $r) { code rate_limits } }';
const ONE_PER_MINUTE = [{ scope: 'project', points: 1, duration_s: 60 }];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('the operator (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { operatorToken: OPERATOR_TOKEN } });
    origin = await t.listen();
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await t.services.settings.setMaintenance(false);
    await db.sql("update projects set rate_limits = '[]'::jsonb, maintenance = false");
    await db.sql('delete from rate_limits');
    for (const code of ['acme', 'other']) t.services.tenancy.forgetProject(code);
  });

  const graphql = async (headers: Record<string, string>, query: string, variables?: object) => {
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const configs = (project: string, key: string) => fetch(`${origin}/v400/en/${project}/configs`, { headers: { 'x-api-key': key } });
  const storedLimits = async (code: string) =>
    (await db.sql<{ rate_limits: unknown }>('select rate_limits from projects where code = ?', [code]))[0].rate_limits;

  it("refuses a tenant's administrator key that switches application maintenance (the review's request): ERROR_FORBIDDEN, nothing changes", async () => {
    for (const key of [KEYS.admin, KEYS.server]) {
      const res = await graphql({ 'x-api-key': key }, 'mutation { setApplicationMaintenance(enabled: true) }');
      expect(res.status).toBe(200);
      expect(res.body.data ?? null).toBeNull();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0].extensions.code).toBe('ERROR_FORBIDDEN');
      const read = await graphql({ 'x-api-key': key }, '{ applicationMaintenance }');
      expect(read.body.errors[0].extensions.code).toBe('ERROR_FORBIDDEN');
    }
    expect(await db.sql("select * from app_settings where key = 'maintenance' and value = 'true'::jsonb")).toEqual([]);
    expect((await configs('other', KEYS.otherServer)).status).toBe(200);
    expect((await configs('acme', KEYS.server)).status).toBe(200);
  });

  it('refuses a tenant lifting (or setting) its own usage limits, with the new signature and every project named: ERROR_FORBIDDEN', async () => {
    // four points: the three refused /graphql requests spend theirs too (CONTRACT §11), REST gets the last
    const rules = [{ scope: 'project', points: 4, duration_s: 60 }];
    await db.sql('update projects set rate_limits = ?::jsonb where code = ?', [JSON.stringify(rules), 'acme']);
    t.services.tenancy.forgetProject('acme');
    for (const [key, project] of [
      [KEYS.server, 'acme'],
      [KEYS.admin, 'acme'],
      [KEYS.server, 'other'],
    ]) {
      const res = await graphql({ 'x-api-key': key }, LIMITS, { p: project, r: [] });
      expect(res.status).toBe(200);
      expect(res.body.errors[0].extensions.code).toBe('ERROR_FORBIDDEN');
      expect(res.body.data ?? null).toBeNull();
    }
    expect(await storedLimits('acme')).toEqual(rules);
    expect(await storedLimits('other')).toEqual([]);
    // still limited on REST: one request, then 429
    expect((await configs('acme', KEYS.server)).status).toBe(200);
    expect((await configs('acme', KEYS.server)).status).toBe(429);
  });

  it('gives other callers 401: a level-3 key, a level-2 key, a wrong operator token', async () => {
    for (const headers of <Record<string, string>[]>[
      { 'x-api-key': KEYS.customer },
      { 'x-api-key': KEYS.owner },
      { authorization: `Bearer ${OPERATOR_TOKEN}x` },
      { authorization: 'Bearer ' },
    ]) {
      const res = await graphql(headers, 'mutation { setApplicationMaintenance(enabled: true) }');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: true, code: 'ERROR_UNAUTHORIZED' });
    }
    expect(await t.services.settings.maintenance()).toBe(false);
  });

  it("lets the operator set a named project's limits (effective on REST at once) and lift them, never limited itself", async () => {
    const set = await graphql(operator, LIMITS, { p: 'acme', r: ONE_PER_MINUTE });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      data: { setProjectRateLimits: { code: 'acme', rate_limits: [{ ...ONE_PER_MINUTE[0], on_error: 'open' }] } },
    });
    expect((await configs('acme', KEYS.server)).status).toBe(200);
    expect((await configs('acme', KEYS.server)).status).toBe(429);
    expect((await configs('other', KEYS.otherServer)).status).toBe(200); // only the project named
    for (let i = 0; i < 3; i++)
      expect((await graphql(operator, '{ applicationMaintenance }')).body).toEqual({ data: { applicationMaintenance: false } });
    const off = await graphql(operator, LIMITS, { p: 'acme', r: [] });
    expect(off.body.data.setProjectRateLimits.rate_limits).toEqual([]);
    expect((await configs('acme', KEYS.server)).status).toBe(200);

    const unknown = await graphql(operator, LIMITS, { p: 'no-such-project', r: [] });
    expect(unknown.body.errors[0].extensions.code).toBe('ERROR_VALIDATION');
    expect(unknown.body.errors[0].message).toContain('project');
  });

  it('lets the operator switch application maintenance, and through it while every tenant gets 503', async () => {
    const on = await graphql(operator, 'mutation { setApplicationMaintenance(enabled: true) }');
    expect(on.body).toEqual({ data: { setApplicationMaintenance: true } });
    expect((await configs('acme', KEYS.server)).status).toBe(503);
    expect((await graphql({ 'x-api-key': KEYS.server }, '{ project { code } }')).status).toBe(503);
    expect((await graphql(operator, '{ applicationMaintenance }')).body).toEqual({ data: { applicationMaintenance: true } });
    const off = await graphql(operator, 'mutation { setApplicationMaintenance(enabled: false) }');
    expect(off.body).toEqual({ data: { setApplicationMaintenance: false } });
    expect((await configs('acme', KEYS.server)).status).toBe(200);
  });

  it("never runs a tenant's operation with the operator token (no project to run it on): 401, fragments included", async () => {
    for (const query of [
      '{ project { code } }',
      '{ applicationMaintenance project { code } }',
      '{ ... on Query { project { code } } }',
      'mutation { setProjectMaintenance(enabled: true) { code } }',
    ]) {
      const res = await graphql(operator, query);
      expect(res.status, query).toBe(401);
      expect(res.body).toMatchObject({ error: true, code: 'ERROR_UNAUTHORIZED' });
    }
    expect(await db.sql('select code from projects where maintenance')).toEqual([]);
  });
});

describe.each(ENGINES)('without OPERATOR_TOKEN (%s)', (engine) => {
  it('refuses to start with a guessable (short) operator token', async () => {
    await expect(startApp(engine, db, { config: { operatorToken: 'short-token' } })).rejects.toThrow(/OPERATOR_TOKEN/);
  });

  it('has no operator through the API: any bearer is a (failed) tenant credential', async () => {
    const t = await startApp(engine, db, { config: { operatorToken: undefined } });
    try {
      const origin = await t.listen();
      for (const authorization of [`Bearer ${OPERATOR_TOKEN}`, 'Bearer undefined', 'Bearer ']) {
        const res = await fetch(`${origin}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization },
          body: JSON.stringify({ query: 'mutation { setApplicationMaintenance(enabled: true) }' }),
        });
        expect(res.status).toBe(401);
      }
      expect(await t.services.settings.maintenance()).toBe(false);
    } finally {
      await t.close();
    }
  });
});
