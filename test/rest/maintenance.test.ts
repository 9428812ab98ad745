import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

const configs = (t: TestApp, project = 'acme', key = KEYS.server) => t.api({ path: '/configs', project, key });

const OPERATOR_TOKEN = 'operator-token-maintenance-test-0123456789';

function graph(t: TestApp, query: string, key = KEYS.server) {
  return t.app.inject({ method: 'POST', url: '/graphql', headers: { 'x-api-key': key }, payload: { query } });
}

/** Application maintenance is the operator's (CONTRACT §11). */
function operator(t: TestApp, query: string) {
  return t.app.inject({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${OPERATOR_TOKEN}` }, payload: { query } });
}

/** Polls until `t` answers `status`; returns how long it took. */
async function until(t: TestApp, status: number, project = 'acme'): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 5000) {
    if ((await configs(t, project)).statusCode === status) return Date.now() - started;
    await sleep(100);
  }
  throw new Error(`still not ${status} after 5 s`);
}

/**
 * Two apps on one database stand for two server processes: each has its own caches, so a
 * switch made through one reaches the other only through the database (within the 2 s cache).
 */
describe.each(ENGINES)('maintenance (%s)', (engine) => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startApp(engine, db, { config: { operatorToken: OPERATOR_TOKEN } });
    b = await startApp(engine, db, { config: { operatorToken: OPERATOR_TOKEN } });
  });
  afterAll(async () => {
    await db.sql('update projects set maintenance = false');
    await db.sql("delete from app_settings where key = 'maintenance'");
    await a.close();
    await b.close();
  });

  it('switches project maintenance through /graphql: at once here, within seconds in another process, and back', async () => {
    expect((await configs(a)).statusCode).toBe(200);
    expect((await configs(b)).statusCode).toBe(200);

    const on = await graph(a, 'mutation { setProjectMaintenance(enabled: true) { code maintenance } }');
    expect(on.json()).toEqual({ data: { setProjectMaintenance: { code: 'acme', maintenance: true } } });
    const res = await configs(a);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: true, code: 'ERROR_MAINTENANCE' });
    expect(await until(b, 503)).toBeLessThanOrEqual(2500);
    // only that project; its /graphql answers 503 too, but for the one mutation that switches it back
    expect((await configs(a, 'other', KEYS.otherServer)).statusCode).toBe(200);
    const read = await graph(a, '{ project { maintenance } }');
    expect(read.statusCode).toBe(503);
    expect(read.json()).toMatchObject({ error: true, code: 'ERROR_MAINTENANCE' });

    const off = await graph(b, 'mutation { setProjectMaintenance(enabled: false) { maintenance } }');
    expect(off.json()).toEqual({ data: { setProjectMaintenance: { maintenance: false } } });
    expect((await configs(b)).statusCode).toBe(200);
    expect(await until(a, 200)).toBeLessThanOrEqual(2500);
  });

  it('answers project maintenance before authentication and before usage limits', async () => {
    await db.sql('update projects set maintenance = true, rate_limits = ?::jsonb where code = ?', [
      JSON.stringify([{ scope: 'project', points: 1, duration_s: 60 }]),
      'acme',
    ]);
    a.services.tenancy.forgetProject('acme');
    try {
      for (let i = 0; i < 3; i++) expect((await a.api({ path: '/configs' })).statusCode).toBe(503);
      expect((await a.api({ path: '/configs', key: 'wrong' })).json().code).toBe('ERROR_MAINTENANCE');
    } finally {
      await db.sql("update projects set maintenance = false, rate_limits = '[]'::jsonb where code = ?", ['acme']);
      await db.sql('delete from rate_limits');
      a.services.tenancy.forgetProject('acme');
    }
    expect((await configs(a)).statusCode).toBe(200);
  });

  it('switches application maintenance through /graphql for every project, within seconds everywhere, and back', async () => {
    const on = await operator(a, 'mutation { setApplicationMaintenance(enabled: true) }');
    expect(on.json()).toEqual({ data: { setApplicationMaintenance: true } });
    for (const project of ['acme', 'other', 'no-such-project']) {
      const res = await a.api({ path: '/configs', project, key: KEYS.server });
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('ERROR_MAINTENANCE');
    }
    expect(await until(b, 503, 'other')).toBeLessThanOrEqual(2500);
    // the version check still comes first
    const old = await a.app.inject({ method: 'GET', url: '/v399/en/acme/configs' });
    expect(old.statusCode).toBe(404);
    expect(old.body).toBe('');
    expect((await operator(b, '{ applicationMaintenance }')).json()).toEqual({ data: { applicationMaintenance: true } });

    const off = await operator(b, 'mutation { setApplicationMaintenance(enabled: false) }');
    expect(off.json()).toEqual({ data: { setApplicationMaintenance: false } });
    expect((await configs(b)).statusCode).toBe(200);
    expect(await until(a, 200)).toBeLessThanOrEqual(2500);
  });

  it('keeps the maintenance switches for internal callers: a customer key gets 401 from the graph', async () => {
    const res = await graph(a, 'mutation { setProjectMaintenance(enabled: true) { maintenance } }', KEYS.customer);
    expect(res.statusCode).toBe(401);
    expect((await configs(a)).statusCode).toBe(200);
  });

  it('puts the application in maintenance from the environment (MAINTENANCE_MODE)', async () => {
    const env = await startApp(engine, db, { config: { maintenance: true, operatorToken: OPERATOR_TOKEN } });
    try {
      const res = await configs(env);
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('ERROR_MAINTENANCE');
      expect((await operator(env, '{ applicationMaintenance }')).json()).toEqual({ data: { applicationMaintenance: true } });
    } finally {
      await env.close();
    }
  });
});
