import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, testCipher, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { startWhatsAppFake, type FakeTemplate, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * Both engines share this file's database and fake provider, so each engine has its own agents:
 * agent ids are `base(e) + n` (e = engine index), template ids `(base(e) + n) * 10 + k`.
 */
const base = (e: number) => 10 + e * 10;
const AGENT = { main: 1, foreignBusiness: 2, sync: 3, refresh: 4, noCreds: 5 };
const OTHER_AGENT = (e: number) => 150 + e;
const NOAI_AGENT = (e: number) => 170 + e;
const token = (agentId: number) => `EAAG-secret-token-${agentId}-do-not-leak`;
const creds = (agentId: number) => ({ waba_id: `waba${agentId}`, phone_number_id: `phone${agentId}`, access_token: token(agentId) });
const bodyText = (text: string) => [{ type: 'BODY', text }];
const NOAI_KEY = 'noai-server-key-0123456789';

function agent(id: number, business_id: number | null, withCreds = true) {
  return {
    id,
    business_id,
    name: `Agent ${id}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `agent-${id}`,
    enabled: true,
    ...(withCreds ? { credentials: creds(id) } : {}),
  };
}

/** Templates of the main agent, as stored and as the provider has them. */
function mainTemplates(agentId: number): FakeTemplate[] {
  return [
    { id: `m${agentId}-1`, name: 'welcome', language: 'es', category: 'MARKETING', status: 'APPROVED', components: bodyText('Hola {{1}}') },
    { id: `m${agentId}-2`, name: 'welcome', language: 'en', category: 'MARKETING', status: 'APPROVED', components: bodyText('Hi {{1}}') },
    { id: `m${agentId}-3`, name: 'receipt', language: 'en', category: 'UTILITY', status: 'PENDING', components: bodyText('Total {{1}}') },
    {
      id: `m${agentId}-4`,
      name: 'two_params',
      language: 'en',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' }, ...bodyText('Hello {{1}}, order {{2}} is ready')],
    },
    { id: `m${agentId}-5`, name: 'plain', language: 'en', category: 'UTILITY', status: 'APPROVED', components: bodyText('Hello there') },
  ];
}

function fixtureTemplates(agentId: number, list: FakeTemplate[]) {
  return list.map((t, k) => ({
    id: agentId * 10 + k + 1,
    agent_id: agentId,
    external_id: t.id,
    name: t.name,
    language: t.language,
    category: t.category,
    status: t.status,
    components: t.components,
  }));
}

const SYNC_STORED = (a: number): FakeTemplate[] => [
  {
    id: `s${a}-keep`,
    name: 'keep',
    language: 'en',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'k {{1}}', example: { body_text: [['x']] } }],
  },
  { id: `s${a}-upd`, name: 'upd', language: 'en', category: 'UTILITY', status: 'PENDING', components: bodyText('u') },
  { id: `s${a}-gone`, name: 'gone', language: 'es', category: 'UTILITY', status: 'APPROVED', components: bodyText('g') },
];
const SYNC_REMOTE = (a: number): FakeTemplate[] => [
  // same value, keys in another order: not an update
  {
    id: `s${a}-keep`,
    name: 'keep',
    language: 'en',
    category: 'UTILITY',
    status: 'APPROVED',
    components: [{ example: { body_text: [['x']] }, text: 'k {{1}}', type: 'BODY' }],
  },
  { id: `s${a}-upd`, name: 'upd', language: 'en', category: 'UTILITY', status: 'APPROVED', components: bodyText('u') },
  { id: `s${a}-new`, name: 'new', language: 'fr', category: 'MARKETING', status: 'PENDING', components: bodyText('n') },
];
const REFRESH_STORED = (a: number): FakeTemplate[] => [
  { id: `r${a}-1`, name: 'alpha', language: 'en', category: 'UTILITY', status: 'PENDING', components: bodyText('old') },
];
const REFRESH_REMOTE = (a: number): FakeTemplate[] => [
  { id: `r${a}-1`, name: 'alpha', language: 'en', category: 'UTILITY', status: 'APPROVED', components: bodyText('new') },
  { id: `r${a}-2`, name: 'echo', language: 'en', category: 'UTILITY', status: 'APPROVED', components: [] },
  { id: `r${a}-3`, name: 'bravo', language: 'es', category: 'UTILITY', status: 'REJECTED', components: [] },
  { id: `r${a}-4`, name: 'bravo', language: 'en', category: 'UTILITY', status: 'PAUSED', components: [] },
  { id: `r${a}-5`, name: 'charlie', language: 'en', category: 'UTILITY', status: 'DISABLED', components: [] },
];

let db: TestDatabase;
let fake: WhatsAppFake;
const logLines: string[] = [];
const seen: string[] = []; // every response body of this file, searched for tokens at the end
const ALL_TOKENS: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents: Record<string, unknown>[] = [];
  const templates: Record<string, unknown>[] = [];
  const otherAgents: Record<string, unknown>[] = [];
  const otherTemplates: Record<string, unknown>[] = [];
  for (const e of [0, 1]) {
    const b = base(e);
    agents.push(
      agent(b + AGENT.main, 1),
      agent(b + AGENT.foreignBusiness, 2),
      agent(b + AGENT.sync, 1),
      agent(b + AGENT.refresh, null),
      agent(b + AGENT.noCreds, null, false),
    );
    templates.push(
      ...fixtureTemplates(b + AGENT.main, mainTemplates(b + AGENT.main)),
      ...fixtureTemplates(b + AGENT.foreignBusiness, [
        { id: `f${b}`, name: 'welcome', language: 'en', status: 'APPROVED', components: bodyText('Hi {{1}}') },
      ]),
      ...fixtureTemplates(b + AGENT.sync, SYNC_STORED(b + AGENT.sync)),
      ...fixtureTemplates(b + AGENT.refresh, REFRESH_STORED(b + AGENT.refresh)),
    );
    fake.addAccount({ ...creds(b + AGENT.main), templates: mainTemplates(b + AGENT.main) });
    fake.addAccount({ ...creds(b + AGENT.sync), templates: SYNC_REMOTE(b + AGENT.sync) });
    fake.addAccount({ ...creds(b + AGENT.refresh), templates: REFRESH_REMOTE(b + AGENT.refresh) });
    otherAgents.push(agent(OTHER_AGENT(e), 101));
    otherTemplates.push(
      ...fixtureTemplates(OTHER_AGENT(e), [
        { id: `o${e}`, name: 'welcome', language: 'en', status: 'APPROVED', components: bodyText('Hi {{1}}') },
      ]),
    );
    for (const id of [b + 1, b + 2, b + 3, b + 4, OTHER_AGENT(e), NOAI_AGENT(e)]) ALL_TOKENS.push(token(id));
  }
  const fixture = baseFixture({ agents, templates });
  fixture.projects[1].agents = otherAgents;
  fixture.projects[1].templates = otherTemplates;
  fixture.projects.push({
    code: 'noai',
    name: 'No AI',
    ai_enabled: false,
    api_keys: [{ key: NOAI_KEY, server: true }],
    agents: [agent(NOAI_AGENT(0), null), agent(NOAI_AGENT(1), null)],
  });
  await db.load(fixture);
});
afterAll(async () => {
  await fake.close();
  await db.orm.close();
});
afterEach(() => fake.reset());

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('AI templates (%s)', (engine, e) => {
  const b = base(e);
  const MAIN = b + AGENT.main;
  const tid = (agentId: number, k: number) => agentId * 10 + k; // fixture template ids
  let t: TestApp;

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
  const send = (templateId: number, body: unknown, agentId = MAIN, key = KEYS.server) =>
    call({ method: 'POST', path: `/ai/agents/${agentId}/templates/${templateId}/send`, key, body });

  describe('list', () => {
    it('returns the stored templates ordered by name, then language', async () => {
      const res = await call({ path: `/ai/agents/${MAIN}/templates`, key: KEYS.server });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.error).toBe(false);
      expect(body.result.map((x: any) => `${x.name}:${x.language}`)).toEqual([
        'plain:en',
        'receipt:en',
        'two_params:en',
        'welcome:en',
        'welcome:es',
      ]);
      expect(Object.keys(body.result[0]).sort()).toEqual([
        'agent_id',
        'category',
        'components',
        'external_id',
        'id',
        'language',
        'name',
        'status',
        'updated_at',
      ]);
      expect(body.result[3]).toMatchObject({
        id: tid(MAIN, 2),
        agent_id: MAIN,
        external_id: `m${MAIN}-2`,
        category: 'MARKETING',
        status: 'APPROVED',
        components: bodyText('Hi {{1}}'),
      });
    });

    it('filters by status, case-insensitively; an unknown status is a 400', async () => {
      const res = await call({ path: `/ai/agents/${MAIN}/templates`, key: KEYS.server, query: { status: 'pending' } });
      expect(res.json().result.map((x: any) => x.name)).toEqual(['receipt']);
      const approved = await call({ path: `/ai/agents/${MAIN}/templates`, key: KEYS.admin, query: { status: 'APPROVED' } });
      expect(approved.json().result).toHaveLength(4);
      const bad = await call({ path: `/ai/agents/${MAIN}/templates`, key: KEYS.server, query: { status: 'LIVE' } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error: true, code: 'ERROR_VALIDATION' });
      expect(bad.json().result[0]).toMatch(/status/);
    });

    it('rejects a non-numeric agent id', async () => {
      const res = await call({ path: '/ai/agents/abc/templates', key: KEYS.server });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('ERROR_VALIDATION');
    });
  });

  describe('access', () => {
    it('lets a business owner use the agents of their own business only', async () => {
      expect((await call({ path: `/ai/agents/${MAIN}/templates`, key: KEYS.owner })).statusCode).toBe(200);
      for (const agentId of [b + AGENT.foreignBusiness, b + AGENT.refresh]) {
        const res = await call({ path: `/ai/agents/${agentId}/templates`, key: KEYS.owner });
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
      }
    });

    it('gives 401 to customers and anonymous callers', async () => {
      expect((await call({ path: `/ai/agents/${MAIN}/templates`, key: KEYS.customer })).json().code).toBe('ERROR_UNAUTHORIZED');
      expect((await call({ path: `/ai/agents/${MAIN}/templates`, key: KEYS.customer })).statusCode).toBe(401);
      expect((await call({ method: 'POST', path: `/ai/agents/${MAIN}/templates/sync` })).statusCode).toBe(401);
    });

    it('gives 403 when the AI module is off', async () => {
      const res = await call({ path: `/ai/agents/${NOAI_AGENT(e)}/templates`, project: 'noai', key: NOAI_KEY });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('ERROR_AI_MODULE_DISABLED');
      const sent = await call({
        method: 'POST',
        path: `/ai/agents/${NOAI_AGENT(e)}/templates/1/send`,
        project: 'noai',
        key: NOAI_KEY,
        body: { to: '5215512345678' },
      });
      expect(sent.statusCode).toBe(403);
    });

    it("answers 400 not-found for a missing agent or another project's agent and template", async () => {
      for (const agentId of [OTHER_AGENT(e), 99999]) {
        const res = await call({ path: `/ai/agents/${agentId}/templates`, key: KEYS.server });
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
      }
      for (const templateId of [tid(OTHER_AGENT(e), 1), tid(b + AGENT.foreignBusiness, 1), 987654]) {
        const res = await send(templateId, { to: '5215512345678', body_parameters: ['Ana'] });
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('ERROR_AI_TEMPLATE_NOT_FOUND');
      }
      const sync = await call({ method: 'POST', path: `/ai/agents/${OTHER_AGENT(e)}/templates/sync`, key: KEYS.server });
      expect(sync.json().code).toBe('ERROR_AI_AGENT_NOT_FOUND');
      expect(fake.requests.filter((r) => r.path.includes(`${OTHER_AGENT(e)}/`))).toHaveLength(0);
    });
  });

  describe('send', () => {
    it('sends an approved template, without the leading +, and answers the documented result', async () => {
      fake.reset({ requests: true });
      const res = await send(tid(MAIN, 2), { to: '+5215512345678', body_parameters: ['Ana'] });
      expect(res.statusCode).toBe(200);
      const { result } = res.json();
      expect(result).toEqual({
        message_id: expect.stringMatching(/^wamid\./),
        to: '5215512345678',
        template: 'welcome',
        language: 'en',
        status: 'accepted',
      });
      expect(fake.requests).toHaveLength(1);
      const [r] = fake.requests;
      expect(r.method).toBe('POST');
      expect(r.path).toBe(`/v21.0/phone${MAIN}/messages`);
      expect(r.headers.authorization).toBe(`Bearer ${token(MAIN)}`);
      expect(r.body).toEqual({
        messaging_product: 'whatsapp',
        to: '5215512345678',
        type: 'template',
        template: {
          name: 'welcome',
          language: { code: 'en' },
          components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }],
        },
      });
    });

    it('fills exactly the body placeholders (a header placeholder does not count)', async () => {
      const ok = await send(tid(MAIN, 4), { to: '5215512345678', body_parameters: ['Ana', '42'] });
      expect(ok.statusCode).toBe(200);
      const plain = await send(tid(MAIN, 5), { to: '5215512345678' });
      expect(plain.statusCode).toBe(200);
      for (const [templateId, params] of [
        [tid(MAIN, 2), []],
        [tid(MAIN, 2), ['a', 'b']],
        [tid(MAIN, 4), ['a']],
        [tid(MAIN, 5), ['a']],
      ] as const) {
        const res = await send(templateId, { to: '5215512345678', body_parameters: params });
        expect(res.statusCode, JSON.stringify(params)).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
        expect(res.json().result[0]).toMatch(/parameters/);
      }
      const missing = await send(tid(MAIN, 2), { to: '5215512345678' });
      expect(missing.json().code).toBe('ERROR_VALIDATION');
    });

    it('validates `to`: 10 to 15 characters, digits with an optional leading +, a string', async () => {
      fake.reset({ requests: true });
      for (const to of [
        '123456789',
        '1234567890123456',
        '+12345678901234X',
        '52155-12345',
        '52+1551234567',
        'abcdefghijkl',
        '++123456789',
        '',
      ]) {
        const res = await send(tid(MAIN, 2), { to, body_parameters: ['Ana'] });
        expect(res.statusCode, to).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
        expect(res.json().result[0]).toMatch(/\bto\b/);
      }
      for (const body of [
        { to: 5215512345678, body_parameters: ['Ana'] },
        { body_parameters: ['Ana'] },
        { to: '5215512345678', body_parameters: 'Ana' },
        { to: '5215512345678', body_parameters: [1] },
      ]) {
        const res = await send(tid(MAIN, 2), body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
      }
      expect((await send(tid(MAIN, 2), { to: '1234567890', body_parameters: ['Ana'] })).statusCode).toBe(200);
      expect((await send(tid(MAIN, 2), { to: '+12345678901234', body_parameters: ['Ana'] })).statusCode).toBe(200);
      expect(fake.requests.map((r) => r.body.to)).toEqual(['1234567890', '12345678901234']);
    });

    it('refuses a template that is not approved', async () => {
      const res = await send(tid(MAIN, 3), { to: '5215512345678', body_parameters: ['10'] });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('ERROR_AI_TEMPLATE_NOT_APPROVED');
    });

    it('maps a provider 5xx to 502 and a 4xx to 400 with the provider message', async () => {
      fake.fail('send', { status: 503 });
      const down = await send(tid(MAIN, 2), { to: '5215512345678', body_parameters: ['Ana'] });
      expect(down.statusCode).toBe(502);
      expect(down.json().code).toBe('ERROR_AI_PROVIDER_UNAVAILABLE');
      fake.reset();
      fake.fail('send', {
        status: 400,
        body: { error: { message: `(#131030) Recipient not in allowed list; token ${token(MAIN)}`, type: 'OAuthException', code: 131030 } },
      });
      const rejected = await send(tid(MAIN, 2), { to: '5215512345678', body_parameters: ['Ana'] }, MAIN, KEYS.admin);
      expect(rejected.statusCode).toBe(400);
      expect(rejected.json().code).toBe('ERROR_AI_PROVIDER_REJECTED');
      expect(rejected.json().result[0]).toContain('(#131030) Recipient not in allowed list');
      expect(rejected.body).not.toContain(token(MAIN));
    });

    it('answers 502 within the timeout when the provider never answers', async () => {
      fake.fail('send', { hang: true });
      const started = Date.now();
      const res = await send(tid(MAIN, 2), { to: '5215512345678', body_parameters: ['Ana'] });
      expect(res.statusCode).toBe(502);
      expect(res.json().code).toBe('ERROR_AI_PROVIDER_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('answers 400 when the agent has no credentials', async () => {
      const res = await call({ method: 'POST', path: `/ai/agents/${b + AGENT.noCreds}/templates/sync`, key: KEYS.server });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('ERROR_AI_PROVIDER_NOT_CONFIGURED');
    });
  });

  describe('sync', () => {
    const SYNC = b + AGENT.sync;
    const storedNames = async () =>
      (
        await db.sql<{ name: string; status: string }>('select name, status from ai_templates where agent_id = ? order by name', [SYNC])
      ).map((r) => `${r.name}:${r.status}`);

    it('reports created and updated templates; without delete_removed nothing is deleted; no change → []', async () => {
      fake.reset({ requests: true });
      const res = await call({ method: 'POST', path: `/ai/agents/${SYNC}/templates/sync`, key: KEYS.owner });
      expect(res.statusCode).toBe(200);
      expect(res.json().result).toEqual(['updated:upd:en', 'created:new:fr']);
      expect(await storedNames()).toEqual(['gone:APPROVED', 'keep:APPROVED', 'new:PENDING', 'upd:APPROVED']);
      // two pages of the provider list, exactly as documented
      expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET /v21.0/waba${SYNC}/message_templates`,
        `GET /v21.0/waba${SYNC}/message_templates`,
      ]);
      expect(fake.requests[1].query.after).toBeTruthy();

      const again = await call({
        method: 'POST',
        path: `/ai/agents/${SYNC}/templates/sync`,
        key: KEYS.server,
        body: { delete_removed: false },
      });
      expect(again.json().result).toEqual([]);
    });

    it('deletes templates the provider no longer has with delete_removed', async () => {
      const res = await call({
        method: 'POST',
        path: `/ai/agents/${SYNC}/templates/sync`,
        key: KEYS.server,
        body: { delete_removed: true },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().result).toEqual(['deleted:gone:es']);
      expect(await storedNames()).toEqual(['keep:APPROVED', 'new:PENDING', 'upd:APPROVED']);
      const again = await call({
        method: 'POST',
        path: `/ai/agents/${SYNC}/templates/sync`,
        key: KEYS.server,
        body: { delete_removed: true },
      });
      expect(again.json().result).toEqual([]);
    });

    it('validates delete_removed strictly, and the body as an object', async () => {
      for (const body of [{ delete_removed: 'yes' }, { delete_removed: 1 }, [true]]) {
        const res = await call({ method: 'POST', path: `/ai/agents/${SYNC}/templates/sync`, key: KEYS.server, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
      }
    });

    it('changes nothing when the provider fails during a sync', async () => {
      const before = await storedNames();
      fake.fail('list', { status: 500 }, { page: 2 });
      const res = await call({
        method: 'POST',
        path: `/ai/agents/${SYNC}/templates/sync`,
        key: KEYS.server,
        body: { delete_removed: true },
      });
      expect(res.statusCode).toBe(502);
      expect(await storedNames()).toEqual(before);
    });

    it('serialises concurrent syncs of one agent: each change is reported once', async () => {
      const account = fake.account(`waba${SYNC}`)!;
      account.templates.push({
        id: `s${SYNC}-late`,
        name: 'late',
        language: 'en',
        category: 'UTILITY',
        status: 'APPROVED',
        components: [],
      });
      const results = await Promise.all(
        [0, 1, 2].map(() => call({ method: 'POST', path: `/ai/agents/${SYNC}/templates/sync`, key: KEYS.server })),
      );
      expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
      expect(results.flatMap((r) => r.json().result)).toEqual(['created:late:en']);
      expect(await storedNames()).toEqual(['keep:APPROVED', 'late:APPROVED', 'new:PENDING', 'upd:APPROVED']);
    });
  });

  describe('refresh', () => {
    const REFRESH = b + AGENT.refresh;
    const snapshot = () =>
      db.sql('select id, external_id, name, language, status, components, updated_at from ai_templates where agent_id = ? order by id', [
        REFRESH,
      ]);

    it('leaves the stored templates as they were when the provider fails halfway', async () => {
      const before = await snapshot();
      fake.reset({ requests: true });
      fake.fail('list', { status: 500 }, { page: 2 });
      const res = await call({ method: 'POST', path: `/ai/agents/${REFRESH}/templates/refresh`, key: KEYS.server });
      expect(res.statusCode).toBe(502);
      expect(res.json().code).toBe('ERROR_AI_PROVIDER_UNAVAILABLE');
      expect(fake.requests.length).toBe(4); // page 1, then page 2 with two retries
      expect(await snapshot()).toEqual(before);

      fake.reset();
      fake.fail('list', { status: 403, body: { error: { message: 'Permissions error', type: 'OAuthException', code: 200 } } });
      const rejected = await call({ method: 'POST', path: `/ai/agents/${REFRESH}/templates/refresh`, key: KEYS.server });
      expect(rejected.statusCode).toBe(400);
      expect(rejected.json()).toEqual({
        error: true,
        code: 'ERROR_AI_PROVIDER_REJECTED',
        result: ['The provider rejected the request: Permissions error'],
      });
      expect(await snapshot()).toEqual(before);
    });

    it('answers 502 within the timeout when the listing never answers', async () => {
      fake.fail('list', { hang: true });
      const started = Date.now();
      const res = await call({ method: 'POST', path: `/ai/agents/${REFRESH}/templates/refresh`, key: KEYS.server });
      expect(res.statusCode).toBe(502);
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('pulls every page, upserts, and returns the stored list', async () => {
      const res = await call({ method: 'POST', path: `/ai/agents/${REFRESH}/templates/refresh`, key: KEYS.server, lang: 'es' });
      expect(res.statusCode).toBe(200);
      const { result } = res.json();
      expect(result.map((x: any) => `${x.name}:${x.language}:${x.status}`)).toEqual([
        'alpha:en:APPROVED',
        'bravo:en:PAUSED',
        'bravo:es:REJECTED',
        'charlie:en:DISABLED',
        'echo:en:APPROVED',
      ]);
      expect(result[0]).toMatchObject({ id: tid(REFRESH, 1), external_id: `r${REFRESH}-1`, components: bodyText('new') });
      const listed = await call({ path: `/ai/agents/${REFRESH}/templates`, key: KEYS.server });
      expect(listed.json().result).toEqual(result);
      const sync = await call({ method: 'POST', path: `/ai/agents/${REFRESH}/templates/sync`, key: KEYS.server });
      expect(sync.json().result).toEqual([]);
    });
  });

  describe('on /graphql', () => {
    it('lists and syncs with the same rules', async () => {
      const list = await graph('query($a: SafeInt!) { aiTemplates(agent_id: $a, status: "approved") { id name language status } }', {
        a: MAIN,
      });
      expect(list.errors).toBeUndefined();
      expect(list.data.aiTemplates.map((x: any) => x.name)).toEqual(['plain', 'two_params', 'welcome', 'welcome']);
      const bad = await graph('query($a: SafeInt!) { aiTemplates(agent_id: $a, status: "nope") { id } }', { a: MAIN });
      expect(bad.errors[0].extensions.code).toBe('ERROR_VALIDATION');
      const foreign = await graph('query($a: SafeInt!) { aiTemplates(agent_id: $a) { id } }', { a: OTHER_AGENT(e) });
      expect(foreign.errors[0].extensions).toMatchObject({ code: 'ERROR_AI_AGENT_NOT_FOUND', status: 400 });
      const sync = await graph('mutation($a: SafeInt!) { syncAiTemplates(agent_id: $a, delete_removed: false) }', { a: MAIN });
      expect(sync.data.syncAiTemplates).toEqual([]);
    });

    it('sends with the same validation', async () => {
      const q =
        'mutation($a: SafeInt!, $t: SafeInt!, $to: String!, $p: [String!]) { sendAiTemplate(agent_id: $a, template_id: $t, to: $to, body_parameters: $p) { message_id to template language status } }';
      const ok = await graph(q, { a: MAIN, t: tid(MAIN, 1), to: '+5215512345678', p: ['Ana'] });
      expect(ok.data.sendAiTemplate).toMatchObject({ to: '5215512345678', template: 'welcome', language: 'es', status: 'accepted' });
      const badTo = await graph(q, { a: MAIN, t: tid(MAIN, 1), to: '12345', p: ['Ana'] });
      expect(badTo.errors[0].extensions.code).toBe('ERROR_VALIDATION');
      const notApproved = await graph(q, { a: MAIN, t: tid(MAIN, 3), to: '5215512345678', p: ['1'] });
      expect(notApproved.errors[0].extensions.code).toBe('ERROR_AI_TEMPLATE_NOT_APPROVED');
      fake.fail('send', { status: 502 });
      const down = await graph(q, { a: MAIN, t: tid(MAIN, 1), to: '5215512345678', p: ['Ana'] });
      expect(down.errors[0].extensions).toMatchObject({ code: 'ERROR_AI_PROVIDER_UNAVAILABLE', status: 502 });
    });

    it('is closed to business owners', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'x-api-key': KEYS.owner },
        payload: { query: `{ aiTemplates(agent_id: ${MAIN}) { id } }` },
      });
      expect(res.statusCode).toBe(401);
    });
  });
});

describe('credentials', () => {
  it('are stored encrypted: the raw column holds no token and decrypts to the credentials', async () => {
    const rows = await db.sql<{ id: number; credentials: string }>(
      'select id, credentials from ai_agents where credentials is not null order by id',
    );
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) {
      for (const secret of ALL_TOKENS) expect(row.credentials).not.toContain(secret);
      expect(row.credentials).not.toContain('waba');
      expect(testCipher.decrypt(row.credentials)).toEqual(creds(row.id));
    }
  });

  it('never appear in a REST or GraphQL response or a log line', () => {
    expect(seen.length).toBeGreaterThan(40);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.some((l) => l.includes('provider call failed'))).toBe(true);
    for (const secret of ALL_TOKENS) {
      for (const body of seen) expect(body).not.toContain(secret);
      for (const line of logLines) expect(line).not.toContain(secret);
    }
  });
});
