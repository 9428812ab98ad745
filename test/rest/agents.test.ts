import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, testCipher, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';
import { backfillCredentialColumns } from '../../src/services/agents/agent-credentials.js';
import { MetaWebhooks, startWhatsAppFake, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * CONTRACT §10.3 over HTTP against the real database, under both engines. Each engine names its
 * own agents (`e{n}-…`), so both share one database. Every response body, every log line and every
 * SQL statement of the file is kept and searched for the plaintext secrets at the end.
 */
const OWNER2_KEY = 'acme-owner2-key-0123456789';
const SEED = { b1: 11, b2: 12, other: 150 }; // fixture agents per engine: id + 10 * e (other's ids ≥ 100)
const seedId = (name: keyof typeof SEED, e: number) => SEED[name] + 10 * e;
const secretOf = (tag: string) => `EAAG-agent-secret-${tag}-must-never-leak`;
const SECRETS: string[] = [];
const secret = (tag: string) => {
  const s = secretOf(tag);
  if (!SECRETS.includes(s)) SECRETS.push(s);
  return s;
};

let db: TestDatabase;
let fake: WhatsAppFake;
const seen: string[] = [];
const logLines: string[] = [];

function seedAgent(id: number, business_id: number, e: number) {
  return {
    id,
    business_id,
    name: `Seed ${id}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `e${e}-seed-${id}`,
    enabled: true,
    credentials: {
      waba_id: `w${id}`,
      phone_number_id: `seed-phone-${id}`,
      access_token: secret(`seed-${id}`),
      app_secret: secret(`seed-app-${id}`),
    },
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents = [0, 1].flatMap((e) => [seedAgent(seedId('b1', e), 1, e), seedAgent(seedId('b2', e), 2, e)]);
  const fixture = baseFixture({ agents });
  fixture.projects[0].api_keys!.push({ key: OWNER2_KEY, user_id: USERS.owner2 });
  fixture.projects[1].agents = [0, 1].map((e) => ({ ...seedAgent(seedId('other', e), 101, e), provider_external_id: `e${e}-shared` }));
  await db.load(fixture);
});
afterAll(async () => {
  // no secret value anywhere: not in an answer, a log line, or an SQL statement (they are encrypted first)
  expect(seen.length).toBeGreaterThan(100);
  expect(logLines.length).toBeGreaterThan(10);
  // and at rest: every row of every table, as text (credentials are stored encrypted, kept requests digested)
  const tables = await db.sql<{ name: string }>("select tablename as name from pg_tables where schemaname = 'public'");
  const stored: string[] = [];
  for (const { name } of tables) {
    const rows = await db.sql<{ row: string }>(`select t::text as row from "${name}" t`);
    stored.push(...rows.map((r) => r.row));
  }
  expect(stored.length).toBeGreaterThan(100);
  for (const s of SECRETS) {
    for (const [where, texts] of [
      ['answers', seen],
      ['logs', logLines],
      ['sql', db.queries],
      ['database', stored],
    ] as const) {
      const hit = texts.find((text) => text.includes(s));
      expect(hit, `${s} in ${where}`).toBeUndefined();
    }
  }
  await fake.close();
  await db.orm.close();
});
afterEach(() => fake.reset());

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('agents (%s)', (engine, e) => {
  let t: TestApp;
  let n = 0;
  const pei = (tag: string) => `e${e}-${tag}`;
  const phone = (tag: string) => `e${e}-phone-${tag}`;

  beforeAll(async () => {
    t = await startApp(engine, db, {
      config: { whatsappApiUrl: fake.url, providerTimeoutMs: 400, logLevel: 'debug' },
      logStream: { write: (line: string) => void logLines.push(line) },
    });
  });
  afterAll(() => t.close());

  async function call(opts: Parameters<TestApp['api']>[0]) {
    const res = await t.api(opts);
    seen.push(res.body);
    return res;
  }
  async function graph(query: string, variables: Record<string, unknown> = {}, key = KEYS.server) {
    const res = await t.app.inject({ method: 'POST', url: '/graphql', headers: { 'x-api-key': key }, payload: { query, variables } });
    seen.push(res.body);
    return res.json();
  }
  const whatsapp = (tag: string, extra: Record<string, unknown> = {}) => ({
    name: `Agent ${tag}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: pei(tag),
    credentials: { waba_id: `waba-${tag}`, phone_number_id: phone(tag), access_token: secret(`${e}-${tag}`) },
    ...extra,
  });
  // `key: null` sends no credential at all
  const create = (body: unknown, key: string | null = KEYS.server, headers: Record<string, string> = {}) =>
    call({ method: 'POST', path: '/ai/agents', key: key ?? undefined, body, headers });
  const patch = (id: number, body: unknown, key: string | null = KEYS.server, project = 'acme') =>
    call({ method: 'PATCH', path: `/ai/agents/${id}`, key: key ?? undefined, body, project });
  const check = (id: number, key: string | null = KEYS.server, project = 'acme') =>
    call({ method: 'POST', path: `/ai/agents/${id}/credentials/check`, key: key ?? undefined, project });
  const stored = async (id: number) => {
    const [row] = await db.sql<{ credentials: string | null; credential_keys: string[]; phone_number_id: string | null }>(
      'select credentials, credential_keys, phone_number_id from ai_agents where id = ?',
      [id],
    );
    return { ...row, plain: row.credentials ? testCipher.decrypt<Record<string, string>>(row.credentials) : null };
  };
  const created = async (tag: string, extra: Record<string, unknown> = {}) => {
    const res = await create(whatsapp(tag, extra));
    expect(res.statusCode, res.body).toBe(200);
    return res.json().result as Record<string, any>;
  };
  const expectInvalid = (res: { statusCode: number; json(): any }, field: string) => {
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('ERROR_VALIDATION');
    expect(res.json().result.join(' ')).toContain(field);
  };
  const tag = () => `t${++n}`;

  describe('create and read', () => {
    it('creates an agent and answers the record, credentials as booleans only', async () => {
      const res = await create(whatsapp('first', { business_id: 1 }));
      expect(res.statusCode).toBe(200);
      const agent = res.json().result;
      expect(Object.keys(agent).sort()).toEqual([
        'business_id',
        'created_at',
        'credentials',
        'disabled_reason',
        'enabled',
        'history',
        'id',
        'name',
        'order_messages',
        'provider',
        'provider_external_id',
        'provider_type',
        'updated_at',
      ]);
      expect(agent).toMatchObject({
        business_id: 1,
        name: 'Agent first',
        provider: 'whatsapp',
        provider_type: 'chat',
        provider_external_id: pei('first'),
        enabled: true,
      });
      expect(agent.credentials).toEqual({
        waba_id: true,
        phone_number_id: true,
        access_token: true,
        app_secret: false,
        verify_token: false,
        dataset_id: false,
      });
      const row = await stored(agent.id);
      expect(row.credentials).not.toContain(secretOf(`${e}-first`));
      expect(row.plain).toEqual({ waba_id: 'waba-first', phone_number_id: phone('first'), access_token: secretOf(`${e}-first`) });
      expect(row.phone_number_id).toBe(phone('first'));

      const one = await call({ path: `/ai/agents/${agent.id}`, key: KEYS.admin });
      expect(one.statusCode).toBe(200);
      expect(one.json().result).toEqual(agent);
      const some = await call({ path: `/ai/agents/${agent.id}`, key: KEYS.server, query: { params: 'name,credentials' } });
      expect(some.json().result).toEqual({ id: agent.id, name: 'Agent first', credentials: agent.credentials });
    });

    it('a provider without known keys shows the keys it stores; enabled defaults to true, false is kept', async () => {
      const res = await create({
        name: 'Voice',
        provider: 'twilio',
        provider_type: 'voice',
        provider_external_id: pei('voice'),
        enabled: false,
        credentials: { sid: secret(`${e}-sid`) },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().result).toMatchObject({ enabled: false, business_id: null, credentials: { sid: true } });
      const bare = await create({ name: 'Web', provider: 'web', provider_type: 'chat', provider_external_id: pei('web') });
      expect(bare.json().result).toMatchObject({ enabled: true, credentials: {} });
      expect((await stored(bare.json().result.id)).credentials).toBeNull();
    });

    it('lists with params, where, orderBy and pagination', async () => {
      for (const x of ['la', 'lb', 'lc']) await created(x, { business_id: 3 });
      const res = await call({
        path: '/ai/agents',
        key: KEYS.server,
        query: {
          where: JSON.stringify({ business_id: 3, provider_external_id: [pei('la'), pei('lb'), pei('lc')] }),
          orderBy: '-provider_external_id',
          page_size: '2',
          params: 'provider_external_id,credentials',
        },
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.result.map((a: any) => a.provider_external_id)).toEqual([pei('lc'), pei('lb')]);
      expect(Object.keys(body.result[0]).sort()).toEqual(['credentials', 'id', 'provider_external_id']);
      expect(body.pagination).toEqual({ current_page: 1, page_size: 2, total_pages: 2, total: 3, from: 1, to: 2 });
      const ilike = await call({
        path: '/ai/agents',
        key: KEYS.server,
        query: {
          where: JSON.stringify([
            { attribute: 'name', value: { condition: 'ilike', value: 'agent l%' } },
            { attribute: 'provider_external_id', value: { condition: 'ilike', value: `e${e}-%` } },
          ]),
        },
      });
      expect(ilike.json().pagination.total).toBe(3);
      for (const query of [
        { where: '{"credentials":1}' },
        { orderBy: 'credentials' },
        { params: 'credentials.access_token' },
        { where: '{"phone_number_id":"x"}' },
      ] as Record<string, string>[]) {
        const bad = await call({ path: '/ai/agents', key: KEYS.server, query });
        expect(bad.statusCode, JSON.stringify(query)).toBe(400);
      }
    });

    it('an unknown or malformed agent id is not found', async () => {
      for (const id of ['999999', '0']) {
        const res = await call({ path: `/ai/agents/${id}`, key: KEYS.server });
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
      }
      expect((await call({ path: '/ai/agents/abc', key: KEYS.server })).statusCode).toBe(400);
    });

    it('POST accepts an Idempotency-Key: the retry answers the kept answer and creates nothing', async () => {
      const key = `agents-${e}-${Date.now()}`;
      const first = await create(whatsapp('idem'), KEYS.server, { 'idempotency-key': key });
      const again = await create(whatsapp('idem'), KEYS.server, { 'idempotency-key': key });
      expect(first.statusCode).toBe(200);
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json().result.id).toBe(first.json().result.id);
      // the kept request is its fingerprint (an HMAC), never its values; another value is another body
      const [kept] = await db.sql<{ body: string; response: string }>(
        'select body::text as body, response::text as response from idempotency_keys where key = ?',
        [key],
      );
      expect(kept.body).toMatch(/^"hmac-sha256:[0-9a-f]{64}"$/);
      expect(kept.body).not.toContain(secretOf(`${e}-idem`));
      expect(kept.response).not.toContain(secretOf(`${e}-idem`));
      const other = await create(whatsapp('idem', { credentials: { access_token: secret(`${e}-idem-2`) } }), KEYS.server, {
        'idempotency-key': key,
      });
      expect(other.statusCode).toBe(400);
      expect(other.json().code).toBe('ERROR_IDEMPOTENCY_KEY_REUSED');
      // the SDK's JSON text for the credentials is kept as a digest too
      const textKey = `${key}-text`;
      const sdk = await create(
        { ...whatsapp('idem-text'), credentials: JSON.stringify({ access_token: secret(`${e}-idem-text`) }) },
        KEYS.server,
        { 'idempotency-key': textKey },
      );
      expect(sdk.statusCode).toBe(200);
      const [keptText] = await db.sql<{ body: string }>('select body::text as body from idempotency_keys where key = ?', [textKey]);
      expect(keptText.body).not.toContain(secretOf(`${e}-idem-text`));
    });
  });

  describe('levels and isolation', () => {
    it('refuses customers and anonymous callers with 401, on REST and the graph', async () => {
      const id = seedId('b1', e);
      for (const key of [KEYS.customer, null]) {
        expect((await call({ path: '/ai/agents', key: key ?? undefined })).statusCode).toBe(401);
        expect((await create(whatsapp(tag()), key)).statusCode).toBe(401);
        expect((await patch(id, { enabled: false }, key)).statusCode).toBe(401);
        expect((await check(id, key)).statusCode).toBe(401);
      }
      // /graphql refuses them at its gate, with REST's envelope (CONTRACT §11)
      const city = await graph('{ aiAgents { items { id } } }', {}, KEYS.customer);
      expect(city).toMatchObject({ error: true, code: 'ERROR_UNAUTHORIZED' });
    });

    it('a business owner sees, creates and changes agents of their own businesses only', async () => {
      const list = await call({ path: '/ai/agents', key: KEYS.owner, query: { page_size: '100' } });
      expect(list.statusCode).toBe(200);
      expect(new Set(list.json().result.map((a: any) => a.business_id))).toEqual(new Set([1]));
      expect(list.json().result.map((a: any) => a.id)).toContain(seedId('b1', e));

      const mine = await create(whatsapp('own', { business_id: 1 }), KEYS.owner);
      expect(mine.statusCode).toBe(200);
      expectInvalid(await create(whatsapp(tag()), KEYS.owner), 'business_id'); // required for a level-2 user
      expectInvalid(await create(whatsapp(tag(), { business_id: null }), KEYS.owner), 'business_id');
      for (const business_id of [2, 999]) {
        const res = await create(whatsapp(tag(), { business_id }), KEYS.owner);
        expectInvalid(res, 'business_id');
        expect(res.json().result).toEqual(['The field business_id must be the id of a business you can use.']);
      }
      expectInvalid(await patch(mine.json().result.id, { business_id: 2 }, KEYS.owner), 'business_id');

      // another owner's agent: the same answer as one that does not exist
      for (const [key, id] of [
        [KEYS.owner, seedId('b2', e)],
        [OWNER2_KEY, seedId('b1', e)],
        [OWNER2_KEY, mine.json().result.id],
      ] as const) {
        for (const res of [await call({ path: `/ai/agents/${id}`, key }), await patch(id, { enabled: false }, key), await check(id, key)]) {
          expect(res.statusCode).toBe(400);
          expect(res.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
        }
      }
      expect((await call({ path: `/ai/agents/${seedId('b2', e)}`, key: KEYS.server })).json().result.enabled).toBe(true);
    });

    it('an administrator names any business of the project; an unknown one is a 400 naming business_id', async () => {
      expect((await create(whatsapp('admin', { business_id: 2 }), KEYS.admin)).statusCode).toBe(200);
      expectInvalid(await create(whatsapp(tag(), { business_id: 101 })), 'business_id'); // the other project's business
      expectInvalid(await create(whatsapp(tag(), { business_id: 999 }), KEYS.admin), 'business_id');
    });

    it("another project's key never reaches acme's agents, and that project may reuse acme's values", async () => {
      const acme = await created('isolated');
      for (const key of [KEYS.otherServer, KEYS.otherAdmin]) {
        for (const res of [
          await call({ path: `/ai/agents/${acme.id}`, key, project: 'other' }),
          await patch(acme.id, { name: 'stolen' }, key, 'other'),
          await check(acme.id, key, 'other'),
        ]) {
          expect(res.statusCode).toBe(400);
          expect(res.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
        }
      }
      // acme's key on the other project is 401; the other project's list does not show acme's agents
      expect((await call({ path: '/ai/agents', key: KEYS.server, project: 'other' })).statusCode).toBe(401);
      const theirs = await call({ path: '/ai/agents', key: KEYS.otherServer, project: 'other', query: { page_size: '100' } });
      const otherIds = (
        await db.sql<{ id: number }>(
          "select a.id from ai_agents a join projects p on p.id = a.project_id where p.code = 'other' order by a.id",
        )
      ).map((r) => r.id);
      expect(theirs.json().result.map((a: any) => a.id)).toEqual(otherIds);
      const reuse = await call({ method: 'POST', path: '/ai/agents', key: KEYS.otherServer, project: 'other', body: whatsapp('isolated') });
      expect(reuse.statusCode).toBe(200);
      expect(reuse.json().result.provider_external_id).toBe(acme.provider_external_id);
      expect((await call({ path: `/ai/agents/${acme.id}`, key: KEYS.server })).json().result.name).toBe('Agent isolated');
    });
  });

  describe('validation', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['name empty', { name: '' }, 'name'],
      ['name too long', { name: 'x'.repeat(256) }, 'name'],
      ['name a number', { name: 7 }, 'name'],
      ['provider empty', { provider: '' }, 'provider'],
      ['provider too long', { provider: 'p'.repeat(65) }, 'provider'],
      ['provider_type too long', { provider_type: 't'.repeat(65) }, 'provider_type'],
      ['provider_type empty', { provider_type: '' }, 'provider_type'],
      ['provider_external_id with a space', { provider_external_id: 'a b' }, 'provider_external_id'],
      ['provider_external_id too long', { provider_external_id: 'x'.repeat(256) }, 'provider_external_id'],
      ['enabled 1', { enabled: 1 }, 'enabled'],
      ['enabled "true"', { enabled: 'true' }, 'enabled'],
      ['business_id text', { business_id: 'one' }, 'business_id'],
      ['credentials text', { credentials: 'token' }, 'credentials'],
      ['credentials an array', { credentials: ['x'] }, 'credentials'],
      ['a credential a number', { credentials: { access_token: 5 } }, 'access_token'],
      ['a credential empty', { credentials: { access_token: '' } }, 'access_token'],
      ['an unknown WhatsApp key', { credentials: { api_key: 'x' } }, 'credentials.api_key'],
      ['a null credential on create', { credentials: { access_token: null } }, 'access_token'],
      ['a malformed credential key', { provider: 'custom', credentials: { 'a-b': 'x' } }, 'credentials'],
    ];
    it.each(cases)('POST: %s → 400 naming the field', async (_label, change, field) => {
      const res = await create({ ...whatsapp(tag()), ...change });
      expectInvalid(res, field);
    });

    it.each(['name', 'provider', 'provider_type', 'provider_external_id'])('POST without %s → 400 naming it', async (field) => {
      const body: Record<string, unknown> = whatsapp(tag());
      delete body[field];
      const res = await create(body);
      expectInvalid(res, field);
      expect(res.json().result).toEqual([`The field ${field} is required.`]);
    });

    it('PATCH validates the same fields; the message comes in the request language', async () => {
      const id = (await created('pv')).id;
      for (const [, change, field] of cases.filter(([label]) => !label.includes('null credential')))
        expectInvalid(await patch(id, change), field);
      const es = await call({ method: 'PATCH', path: `/ai/agents/${id}`, key: KEYS.server, lang: 'es', body: { name: '' } });
      expect(es.json().result).toEqual(['El campo name no puede estar vacío.']);
      // a key another provider would take is refused when the agent becomes WhatsApp with it
      const web = (
        await create({
          name: 'Web',
          provider: 'web',
          provider_type: 'chat',
          provider_external_id: pei('to-wa'),
          credentials: { api_key: 'k' },
        })
      ).json().result;
      expectInvalid(await patch(web.id, { provider: 'whatsapp' }), 'credentials.api_key');
      expect((await call({ path: `/ai/agents/${id}`, key: KEYS.server })).json().result.name).toBe('Agent pv');
    });

    it('the graph applies the same rules', async () => {
      const res = await graph(
        'mutation($c: JSON) { createAiAgent(name: "G", provider: "whatsapp", provider_type: "chat", provider_external_id: "bad id", credentials: $c) { id } }',
        { c: { access_token: 'x' } },
      );
      expect(res.errors[0].extensions.code).toBe('ERROR_VALIDATION');
      expect(JSON.stringify(res.errors)).toContain('provider_external_id');
    });
  });

  describe('uniqueness under concurrency', () => {
    it('20 concurrent POSTs of one provider_external_id create exactly one agent', async () => {
      const body = (i: number) => whatsapp('race', { credentials: { phone_number_id: phone(`race-${i}`) } });
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create(body(i))));
      const ok = answers.filter((r) => r.statusCode === 200);
      expect(ok).toHaveLength(1);
      for (const r of answers.filter((x) => x.statusCode !== 200)) expectInvalid(r, 'provider_external_id');
      const rows = await db.sql(
        'select a.id from ai_agents a join projects p on p.id = a.project_id where p.code = ? and provider_external_id = ?',
        ['acme', pei('race')],
      );
      expect(rows).toHaveLength(1);
    });

    it('20 concurrent POSTs of one WhatsApp phone_number_id create exactly one agent', async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          create(whatsapp(`prace-${i}`, { credentials: { phone_number_id: phone('prace'), access_token: secret(`${e}-prace`) } })),
        ),
      );
      const ok = answers.filter((r) => r.statusCode === 200);
      expect(ok).toHaveLength(1);
      for (const r of answers.filter((x) => x.statusCode !== 200)) expectInvalid(r, 'phone_number_id');
      const rows = await db.sql("select id from ai_agents where provider = 'whatsapp' and phone_number_id = ?", [phone('prace')]);
      expect(rows).toHaveLength(1);
    });

    it('PATCH onto a taken value is a 400 naming it; a freed phone number can be used again', async () => {
      const a = await created('ua');
      const b = await created('ub');
      expectInvalid(await patch(b.id, { provider_external_id: a.provider_external_id }), 'provider_external_id');
      expectInvalid(await patch(b.id, { credentials: { phone_number_id: phone('ua') } }), 'phone_number_id');
      // a moves to another phone number: its old one is free; a removed phone number frees it too
      expect((await patch(a.id, { credentials: { phone_number_id: phone('ua2') } })).statusCode).toBe(200);
      expect((await patch(b.id, { credentials: { phone_number_id: phone('ua') } })).statusCode).toBe(200);
      expect((await patch(b.id, { credentials: { phone_number_id: null } })).statusCode).toBe(200);
      expect((await stored(b.id)).phone_number_id).toBeNull();
      // agents of other providers are not WhatsApp numbers
      const voice = await create({
        name: 'V',
        provider: 'twilio',
        provider_type: 'voice',
        provider_external_id: pei('uv'),
        credentials: { phone_number_id: phone('ua2') },
      });
      expect(voice.statusCode).toBe(200);
    });
  });

  describe('PATCH', () => {
    it('merges credentials key by key, null removes a key; other fields are left alone', async () => {
      const a = await created('merge', { business_id: 1 });
      const added = await patch(a.id, { credentials: { app_secret: secret(`${e}-merge-app`), verify_token: secret(`${e}-merge-verify`) } });
      expect(added.statusCode).toBe(200);
      expect(added.json().result.credentials).toEqual({
        waba_id: true,
        phone_number_id: true,
        access_token: true,
        app_secret: true,
        verify_token: true,
        dataset_id: false,
      });
      expect((await stored(a.id)).plain).toEqual({
        waba_id: 'waba-merge',
        phone_number_id: phone('merge'),
        access_token: secretOf(`${e}-merge`),
        app_secret: secretOf(`${e}-merge-app`),
        verify_token: secretOf(`${e}-merge-verify`),
      });
      const removed = await patch(a.id, { credentials: { verify_token: null, access_token: secret(`${e}-merge-rotated`) } });
      expect(removed.json().result.credentials).toMatchObject({ access_token: true, verify_token: false });
      const row = await stored(a.id);
      expect(row.plain).toEqual({
        waba_id: 'waba-merge',
        phone_number_id: phone('merge'),
        access_token: secretOf(`${e}-merge-rotated`),
        app_secret: secretOf(`${e}-merge-app`),
      });
      expect([...row.credential_keys].sort()).toEqual(['access_token', 'app_secret', 'phone_number_id', 'waba_id']);

      const renamed = await patch(a.id, { name: 'Renamed', provider_type: 'voice' });
      expect(renamed.json().result).toMatchObject({
        name: 'Renamed',
        provider_type: 'voice',
        business_id: 1,
        enabled: true,
        provider_external_id: pei('merge'),
      });
      expect(new Date(renamed.json().result.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(a.updated_at).getTime());
      expect((await stored(a.id)).plain).toEqual(row.plain);
      const unbound = await patch(a.id, { business_id: null });
      expect(unbound.json().result.business_id).toBeNull();
    });

    it('concurrent patches of different keys all land (the row lock serialises the read-modify-write)', async () => {
      const a = await created('lock');
      const keys = { app_secret: secret(`${e}-lock-app`), verify_token: secret(`${e}-lock-verify`), waba_id: 'waba-lock-2' };
      const answers = await Promise.all(Object.entries(keys).map(([k, v]) => patch(a.id, { credentials: { [k]: v } })));
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
      expect((await stored(a.id)).plain).toEqual({ phone_number_id: phone('lock'), access_token: secretOf(`${e}-lock`), ...keys });
    });
  });

  describe('credentials/check', () => {
    it('reads the phone number from the Cloud API with the agent token', async () => {
      const a = await created('chk');
      fake.addAccount({
        waba_id: 'waba-chk',
        phone_number_id: phone('chk'),
        access_token: secretOf(`${e}-chk`),
        templates: [],
        display_phone_number: '+52 55 1234 5678',
        verified_name: 'Pizzeria Centro',
        quality_rating: 'GREEN',
      });
      fake.reset({ requests: true });
      const res = await check(a.id);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        error: false,
        result: { display_phone_number: '+52 55 1234 5678', verified_name: 'Pizzeria Centro', quality_rating: 'GREEN' },
      });
      expect(fake.requests).toHaveLength(1);
      const [req] = fake.requests;
      expect(req.method).toBe('GET');
      expect(req.path).toBe(`/v21.0/${phone('chk')}`);
      expect(req.query).toEqual({ fields: 'display_phone_number,verified_name,quality_rating' });
      expect(req.headers.authorization).toBe(`Bearer ${secretOf(`${e}-chk`)}`);
      const owner = await call({ method: 'POST', path: `/ai/agents/${seedId('b1', e)}/credentials/check`, key: KEYS.owner });
      expect(owner.json().code).toBe('ERROR_AI_PROVIDER_REJECTED'); // reached the provider: unknown account there
    });

    it("a token the Cloud API refuses (401) is 400 ERROR_AI_PROVIDER_REJECTED with the provider's message", async () => {
      const a = await created('chk401');
      fake.addAccount({ waba_id: 'x', phone_number_id: phone('chk401'), access_token: 'another-token', templates: [] });
      const res = await check(a.id);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('ERROR_AI_PROVIDER_REJECTED');
      expect(res.json().result[0]).toContain('Invalid OAuth access token');
    });

    it('a provider that does not answer in PROVIDER_TIMEOUT_MS, or answers 5xx, is 502', async () => {
      const a = await created('chkslow');
      fake.addAccount({ waba_id: 'x', phone_number_id: phone('chkslow'), access_token: secretOf(`${e}-chkslow`), templates: [] });
      fake.fail('phone', { hang: true }, { times: 1 });
      const started = Date.now();
      const res = await check(a.id);
      expect(res.statusCode).toBe(502);
      expect(res.json().code).toBe('ERROR_AI_PROVIDER_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(3000);
      fake.fail('phone', { status: 503 }, { times: 1 });
      expect((await check(a.id)).statusCode).toBe(502);
      expect((await check(a.id)).statusCode).toBe(200);
    });

    it('a missing credential is a 400 naming it', async () => {
      const a = await created('chkmiss');
      await patch(a.id, { credentials: { access_token: null } });
      const res = await check(a.id);
      expectInvalid(res, 'access_token');
      const bare = (await create({ name: 'N', provider: 'whatsapp', provider_type: 'chat', provider_external_id: pei('chknone') })).json()
        .result;
      const none = await check(bare.id);
      expectInvalid(none, 'phone_number_id');
      expect(none.json().result.join(' ')).toContain('access_token');
    });
  });

  describe('disabling', () => {
    it('a disabled agent opens no current conversation (409 AGENT_DISABLED); enabling it again does', async () => {
      const a = await created('off');
      const current = () => call({ path: `/ai/agents/${pei('off')}/conversations/current`, key: KEYS.customer });
      expect((await patch(a.id, { enabled: false })).json().result.enabled).toBe(false);
      const res = await current();
      expect(res.statusCode).toBe(409);
      expect(res.json().result).toMatchObject({ agent_id: a.id, reason: 'AGENT_DISABLED' });
      expect((await patch(a.id, { enabled: true })).statusCode).toBe(200);
      expect((await current()).statusCode).toBe(200);
    });

    it("a disabled agent's inbound WhatsApp messages are ignored", async () => {
      const appSecret = secret(`${e}-inbound-app`);
      const a = await created('inbound', {
        credentials: { phone_number_id: phone('inbound'), access_token: secret(`${e}-inbound`), app_secret: appSecret },
      });
      const origin = await t.listen();
      const meta = new MetaWebhooks(`${origin}/v400/en/acme/ai/webhooks/whatsapp`);
      const deliver = (id: string) =>
        meta.post(MetaWebhooks.notification(phone('inbound'), { messages: [{ from: '5215500000001', id, text: 'hola' }] }), appSecret);
      const before = await deliver(`wamid.on.${e}`);
      expect(before.body).toEqual({ error: false, result: { messages: 1, statuses: 0 } });
      await patch(a.id, { enabled: false });
      const after = await deliver(`wamid.off.${e}`);
      expect(after.status).toBe(200);
      expect(after.body.result.messages).toBe(0);
      const rows = await db.sql(
        'select m.external_id from ai_messages m join ai_conversations c on c.id = m.conversation_id where c.agent_id = ?',
        [a.id],
      );
      expect(rows.map((r) => r.external_id)).toEqual([`wamid.on.${e}`]);
    });
  });

  describe('the graph', () => {
    it('shows credentials as booleans and runs the same operations', async () => {
      const res = await graph(
        `query($w: JSON) { aiAgents(where: $w) { items { id provider_external_id credentials } pagination { total } } }`,
        { w: { provider_external_id: pei('first') } },
      );
      expect(res.errors).toBeUndefined();
      expect(res.data.aiAgents.items[0].credentials).toEqual({
        waba_id: true,
        phone_number_id: true,
        access_token: true,
        app_secret: false,
        verify_token: false,
        dataset_id: false,
      });
      const id = res.data.aiAgents.items[0].id;
      const upd = await graph('mutation($id: SafeInt!) { updateAiAgent(agent_id: $id, name: "Graph name") { name credentials } }', { id });
      expect(upd.data.updateAiAgent.name).toBe('Graph name');
      const conv = await graph('{ aiConversations(page_size: 1) { items { agent { id credentials } } } }');
      expect(conv.errors).toBeUndefined();
    });
  });
});

describe('agents stored before the credential columns', () => {
  it('get their key names and phone number from the decrypted credentials (backfill at start)', async () => {
    const creds = { waba_id: 'old-waba', phone_number_id: 'old-phone', access_token: secret('old') };
    const [{ id }] = await db.sql<{ id: number }>(
      `insert into ai_agents (project_id, name, provider, provider_type, provider_external_id, credentials)
       select id, 'Old', 'whatsapp', 'chat', 'old-agent', ? from projects where code = 'acme' returning id`,
      [testCipher.encrypt(creds)],
    );
    // a second old agent with the same phone number: it keeps its key names, the number stays with the first
    const [{ id: twin }] = await db.sql<{ id: number }>(
      `insert into ai_agents (project_id, name, provider, provider_type, provider_external_id, credentials)
       select id, 'Old twin', 'whatsapp', 'chat', 'old-twin', ? from projects where code = 'acme' returning id`,
      [testCipher.encrypt(creds)],
    );
    expect(await backfillCredentialColumns(db.orm, testCipher)).toEqual({ filled: 1, conflicts: 1 });
    const rows = await db.sql<{ id: number; credential_keys: string[]; phone_number_id: string | null }>(
      'select id, credential_keys, phone_number_id from ai_agents where id in (?, ?) order by id',
      [id, twin],
    );
    expect(rows).toEqual([
      { id, credential_keys: ['access_token', 'phone_number_id', 'waba_id'], phone_number_id: 'old-phone' },
      { id: twin, credential_keys: ['access_token', 'phone_number_id', 'waba_id'], phone_number_id: null },
    ]);
    expect(await backfillCredentialColumns(db.orm, testCipher)).toEqual({ filled: 0, conflicts: 0 });
  });
});

describe('OpenAPI', () => {
  it('documents the agent routes, credentials as booleans in answers', async () => {
    const t = await startApp('mercurius', db);
    try {
      const doc = (await t.app.inject({ url: '/openapi.json' })).json();
      seen.push(JSON.stringify(doc));
      const paths = Object.keys(doc.paths).filter(
        (p) => p.includes('/ai/agents') && !p.includes('conversations') && !p.includes('templates') && !p.includes('translations'),
      );
      expect(paths.map((p) => p.replace(/^.*\/ai\//, '/ai/')).sort()).toEqual([
        '/ai/agents',
        '/ai/agents/{agent_id}',
        '/ai/agents/{agent_id}/credentials/check',
      ]);
      const text = JSON.stringify(doc);
      expect(text).toContain('"additionalProperties":{"type":"boolean"}');
    } finally {
      await t.close();
    }
  });
});
