import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

const CONFIGS = [
  { key: 'store_name', value: 'Acme', type: 1, public: true, description: 'Shown to customers' },
  { key: 'hidden_flag', value: 'x', public: true, hidden: true, description: 'Hidden' },
  { key: 'private_flag', value: 'y', public: false },
  { key: 'loyalty_rate', value: '10', public: true, plugin: 'loyalty' },
  { key: 'delivery_zone', value: 'z', public: true, plugin: 'delivery' },
  { key: 'owner_panel', value: 'on', public: false, business_manager_visible: true },
  { key: 'gateway_secret', value: 's3cret', type: 7, public: true, protected: true, description: 'Gateway' },
  { key: 'legacy_v2', value: 'old', public: true, v2_only: true },
];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ configs: CONFIGS }));
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('GET /configs (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  const keys = (body: { result: { key: string }[] }) => body.result.map((e) => e.key);

  it('lists everything for a server key, ordered by key, with real protected values', async () => {
    const res = await t.api({ path: '/configs', key: KEYS.server });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.error).toBe(false);
    expect(keys(body)).toEqual([
      'ai_module_enabled',
      'api_version',
      'delivery_zone',
      'gateway_secret',
      'hidden_flag',
      'legacy_v2',
      'loyalty_rate',
      'owner_panel',
      'private_flag',
      'project_code',
      'store_name',
    ]);
    expect(body.result.find((e: any) => e.key === 'gateway_secret').value).toBe('s3cret');
  });

  it('shows PROTECT to an administrator, who otherwise sees everything', async () => {
    const body = (await t.api({ path: '/configs', key: KEYS.admin })).json();
    expect(keys(body)).toContain('private_flag');
    expect(body.result.find((e: any) => e.key === 'gateway_secret').value).toBe('PROTECT');
  });

  it('shows a customer only public, visible entries of enabled plugins', async () => {
    const body = (await t.api({ path: '/configs', key: KEYS.customer })).json();
    expect(keys(body)).toEqual([
      'ai_module_enabled',
      'api_version',
      'gateway_secret',
      'legacy_v2',
      'loyalty_rate',
      'project_code',
      'store_name',
    ]);
  });

  it('adds business-manager entries for a business owner', async () => {
    const body = (await t.api({ path: '/configs', key: KEYS.owner })).json();
    expect(keys(body)).toContain('owner_panel');
    expect(keys(body)).not.toContain('private_flag');
  });

  it('gives built-in entries their fixed shape and model-backed entries a description', async () => {
    const body = (await t.api({ path: '/configs', key: KEYS.customer })).json();
    const builtIn = body.result.find((e: any) => e.key === 'project_code');
    expect(builtIn).toEqual({
      id: null,
      key: 'project_code',
      value: 'acme',
      type: 1,
      public: true,
      hidden: false,
      protected: false,
      plugin: null,
    });
    expect(body.result.find((e: any) => e.key === 'ai_module_enabled').value).toBe('1');
    expect(body.result.find((e: any) => e.key === 'api_version').value).toBe('400');
    const stored = body.result.find((e: any) => e.key === 'store_name');
    expect(stored).toMatchObject({ key: 'store_name', value: 'Acme', description: 'Shown to customers', type: 1 });
    expect(typeof stored.id).toBe('number');
  });

  it('keys by key in dictionary mode, without v2-only entries or descriptions', async () => {
    const body = (await t.api({ path: '/configs', key: KEYS.server, query: { mode: 'dictionary' } })).json();
    expect(Array.isArray(body.result)).toBe(false);
    expect(body.result.legacy_v2).toBeUndefined();
    expect(body.result.store_name).toMatchObject({ key: 'store_name', value: 'Acme' });
    expect('description' in body.result.store_name).toBe(false);
    expect(body.result.project_code.value).toBe('acme');
  });

  it('treats mode=dashboard as the array, not as dictionary', async () => {
    const body = (await t.api({ path: '/configs', key: KEYS.server, query: { mode: 'dashboard' } })).json();
    expect(Array.isArray(body.result)).toBe(true);
    expect(keys(body)).toContain('legacy_v2');
  });

  it('rejects any other mode with a 400 naming it', async () => {
    const res = await t.api({ path: '/configs', key: KEYS.server, query: { mode: 'Dictionary' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: true, code: 'ERROR_VALIDATION' });
    expect(res.json().result[0]).toContain('mode');
  });

  it('is never anonymous', async () => {
    const res = await t.api({ path: '/configs' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: true, code: 'ERROR_UNAUTHORIZED' });
  });

  it("never shows another project's entries, and refuses another project's key", async () => {
    const own = (await t.api({ path: '/configs', key: KEYS.server })).json();
    expect(keys(own)).not.toContain('other_secret');
    const foreign = await t.api({ path: '/configs', key: KEYS.otherServer });
    expect(foreign.statusCode).toBe(401);
  });
});
