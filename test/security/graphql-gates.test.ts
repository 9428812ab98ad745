import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Finding 6 of issue 29 (CONTRACT §11): `/graphql` passes the gates of REST in the order of §1 —
 * application maintenance, the project and its maintenance, usage limits, then the credential —
 * with REST's statuses, envelope and headers. Over a real socket.
 */
const FIVE_PER_MINUTE = [{ scope: 'project', points: 5, duration_s: 60 }];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('/graphql gates (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  beforeAll(async () => {
    t = await startApp(engine, db);
    origin = await t.listen();
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await t.services.settings.setMaintenance(false);
    await db.sql("update projects set rate_limits = '[]'::jsonb, maintenance = false, subscription_active = true");
    await db.sql('delete from rate_limits');
    t.services.tenancy.forgetProject('acme');
  });

  async function setAcme(sql: string, params: unknown[] = []): Promise<void> {
    await db.sql(`update projects set ${sql} where code = 'acme'`, params);
    await db.sql('delete from rate_limits');
    t.services.tenancy.forgetProject('acme');
  }
  const graphql = async (key: string | undefined, query = '{ project { code } }') => {
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };
  const rest = (key = KEYS.server) => fetch(`${origin}/v400/en/acme/configs`, { headers: { 'x-api-key': key } });

  it('spends usage limits on /graphql as on REST (the review: 5 points per 60 s, 20 /graphql calls all 200)', async () => {
    await setAcme('rate_limits = ?::jsonb', [JSON.stringify(FIVE_PER_MINUTE)]);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await graphql(KEYS.server)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, ...Array(15).fill(429)]);

    const limited = await graphql(KEYS.server);
    expect(limited.body).toMatchObject({ error: true, code: 'ERROR_RATE_LIMIT' });
    expect(limited.headers.get('x-ratelimit-limit')).toBe('5');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-scope')).toBe('project');
    expect(limited.headers.get('x-ratelimit-key')).toBe('acme');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // one count for both doors
    expect((await rest()).status).toBe(429);
  });

  it('counts REST and /graphql together, and spends the points before the credential is judged', async () => {
    await setAcme('rate_limits = ?::jsonb', [JSON.stringify([{ scope: 'project', points: 3, duration_s: 60 }])]);
    expect((await rest()).status).toBe(200);
    expect((await graphql(KEYS.server)).status).toBe(200);
    // a customer's key is not admitted by /graphql, but its request spends a point first (§1: limits, then the credential)
    expect((await graphql(KEYS.customer)).status).toBe(401);
    expect((await graphql(KEYS.server)).status).toBe(429);
    expect((await graphql(KEYS.customer)).status).toBe(429);
  });

  it('answers 503 for a project in maintenance (the review: data on /graphql), except the mutation that switches it off', async () => {
    await setAcme('maintenance = true');
    expect((await rest()).status).toBe(503);
    const res = await graphql(KEYS.server);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error: true,
      code: 'ERROR_MAINTENANCE',
      result: ['The service is under maintenance.'],
      errors: [{ message: 'The service is under maintenance.', extensions: { code: 'ERROR_MAINTENANCE' } }],
    });
    // another operation beside the switch, or a document whose operation cannot be told, does not pass
    expect(
      (await graphql(KEYS.server, 'mutation { setProjectMaintenance(enabled: false) { code } deleteAiWebhook(webhook_id: 1) { id } }'))
        .status,
    ).toBe(503);
    expect(
      (await graphql(KEYS.admin, 'mutation { setProjectMaintenance(enabled: false) { code } } query Q { project { code } }')).status,
    ).toBe(503);
    expect(await db.sql('select code from projects where maintenance')).toEqual([{ code: 'acme' }]);

    const off = await graphql(KEYS.admin, 'mutation { setProjectMaintenance(enabled: false) { code maintenance } }');
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ data: { setProjectMaintenance: { code: 'acme', maintenance: false } } });
    expect((await rest()).status).toBe(200);
    expect((await graphql(KEYS.server)).status).toBe(200);
    // another project was never in maintenance
    expect((await graphql(KEYS.otherServer)).body).toEqual({ data: { project: { code: 'other' } } });
  });

  it('answers application maintenance first: 503 before any credential is looked at', async () => {
    await t.services.settings.setMaintenance(true);
    for (const key of [KEYS.server, 'no-such-key-0123456789', undefined]) {
      const res = await graphql(key);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error: true, code: 'ERROR_MAINTENANCE' });
    }
  });

  it('answers a project without an active subscription with its 401, and unknown credentials with 401, in the REST envelope', async () => {
    await setAcme('subscription_active = false');
    expect((await graphql(KEYS.server)).body).toEqual({
      error: true,
      code: 'ERROR_PROJECT_SUBSCRIPTION_INACTIVE',
      result: ['The project has no active subscription.'],
      errors: [{ message: 'The project has no active subscription.', extensions: { code: 'ERROR_PROJECT_SUBSCRIPTION_INACTIVE' } }],
    });
    const unknown = await graphql('no-such-key-0123456789');
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ error: true, code: 'ERROR_UNAUTHORIZED' });
  });
});
