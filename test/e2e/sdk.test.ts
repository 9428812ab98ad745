import 'reflect-metadata';
import { Ordering } from 'ordering-api-sdk';
// @ts-expect-error xhr2 ships no type declarations
import XMLHttpRequest from 'xhr2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD, USERS } from '../support/fixtures.js';
import { startWhatsAppFake, type FakeTemplate, type WhatsAppFake } from '../support/whatsapp-fake.js';

/**
 * The platform's official JavaScript SDK (`ordering-api-sdk` from npm) as a client, over a real
 * socket, with `xhr2` as its XMLHttpRequest. It sends what the dashboards send: `Content-Type:
 * application/json` on every request (bodyless action calls too), nested body values as JSON text,
 * `where` unencoded in the query string, `params` from `attributes`, X-APP-X / X-Country-Code-X.
 * Every call must get what the same call gets over plain HTTP.
 */
(globalThis as { window?: unknown }).window = { XMLHttpRequest };

const creds = (id: number) => ({ waba_id: `waba${id}`, phone_number_id: `phone${id}`, access_token: `token-${id}` });
const TEMPLATES = (id: number): FakeTemplate[] => [
  {
    id: `t${id}-1`,
    name: 'welcome',
    language: 'en',
    category: 'MARKETING',
    status: 'APPROVED',
    components: [{ type: 'BODY', text: 'Hi {{1}}' }],
  },
  {
    id: `t${id}-2`,
    name: 'receipt',
    language: 'es',
    category: 'UTILITY',
    status: 'PENDING',
    components: [{ type: 'BODY', text: 'Total {{1}}' }],
  },
];
const agentOf = (e: number) => 1 + e;
const at = (m: number) => new Date(Date.UTC(2026, 10, 2, 10, m)).toISOString();

let db: TestDatabase;
let fake: WhatsAppFake;
beforeAll(async () => {
  db = await createTestDatabase();
  fake = await startWhatsAppFake();
  const agents = [0, 1].map((e) => ({
    id: agentOf(e),
    business_id: 1,
    name: `Ventas ${e}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `ventas-${e}`,
    enabled: true,
    credentials: creds(agentOf(e)),
  }));
  const fixture = baseFixture({
    agents: [
      ...agents,
      { id: 9, business_id: 2, name: 'Web', provider: 'webchat', provider_type: 'chat', provider_external_id: 'web', enabled: true },
    ],
    templates: [0, 1].map((e) => ({
      id: agentOf(e) * 10 + 1,
      agent_id: agentOf(e),
      external_id: `t${agentOf(e)}-1`,
      name: 'welcome',
      language: 'en',
      category: 'MARKETING',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Hi {{1}}' }],
    })),
    conversations: [1, 2, 3, 12, 21, 42].map((id, k) => ({
      id,
      agent_id: k % 2 ? 9 : 1,
      business_id: k % 2 ? 2 : 1,
      user_id: k + 1,
      status: k % 3 ? 'closed' : 'active',
      status_reason: k % 3 ? 'completed' : null,
      created_at: at(k),
    })),
    messages: [
      { id: 1, conversation_id: 1, role: 'user', content: 'hola', public: true, created_at: at(1) },
      { id: 2, conversation_id: 1, role: 'system', content: 'prompt', public: false, created_at: at(2) },
    ],
  });
  fixture.projects[0].users!.push({ id: 40, name: 'Cel', cellphone: '5544332211', country_phone_code: '52', password: PASSWORD, level: 3 });
  await db.load(fixture);
  for (const e of [0, 1]) fake.addAccount({ ...creds(agentOf(e)), templates: TEMPLATES(agentOf(e)) });
});
afterAll(async () => {
  await fake?.close();
  await db?.orm.close();
});

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('ordering-api-sdk against OrderGraph (%s)', (engine, e) => {
  const agent = agentOf(e);
  let t: TestApp;
  let url: string;
  const wire: { method: string; url: string; headers: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { whatsappApiUrl: fake.url } });
    url = await t.listen();
    // What reaches the socket, to show what the SDK really sends.
    t.app.server.on('request', (req) => wire.push({ method: req.method!, url: req.url!, headers: { ...req.headers } }));
  });
  afterAll(() => t.close());

  const sdk = (settings: { accessToken?: string; apiKey?: string } = {}) =>
    new Ordering({ url, project: 'acme', language: 'en', appId: 'dashboard', countryCode: 'MX', ...settings });
  /** The SDK's answer as the server sent it (its `content` getter casts the result into models). */
  const sent = (res: unknown) => {
    const { response } = res as { response: { status: number; request: { responseText: string } } };
    return { status: response.status, body: JSON.parse(response.request.responseText) };
  };
  /** The same call over plain HTTP: encoded query, plain JSON body. */
  async function plain(
    method: string,
    path: string,
    opts: { query?: Record<string, string>; body?: unknown; key?: string; token?: string } = {},
  ) {
    const qs = opts.query ? `?${new URLSearchParams(opts.query)}` : '';
    const headers: Record<string, string> = {};
    if (opts.key) headers['x-api-key'] = opts.key;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}/v400/en/acme${path}${qs}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    return { status: res.status, body: (await res.json()) as any };
  }
  const withoutToken = (body: any) => ({ ...body, result: { ...body.result, session: { ...body.result.session, access_token: 'T' } } });

  it('POST /auth with an email, and with a cellphone without country code', async () => {
    const byEmail = await sdk().users().auth({ email: 'admin@acme.test', password: PASSWORD });
    const viaSdk = sent(byEmail);
    expect(viaSdk.status).toBe(200);
    expect(byEmail.content.result.id).toBe(USERS.admin);
    expect(withoutToken(viaSdk.body)).toEqual(
      withoutToken((await plain('POST', '/auth', { body: { email: 'admin@acme.test', password: PASSWORD } })).body),
    );

    const byPhone = sent(await sdk().users().auth({ cellphone: '5544332211', password: PASSWORD }));
    expect(byPhone.status).toBe(200);
    expect(byPhone.body.result).toMatchObject({ id: 40, cellphone: '5544332211', country_phone_code: '52' });
    expect(withoutToken(byPhone.body)).toEqual(
      withoutToken((await plain('POST', '/auth', { body: { cellphone: '5544332211', password: PASSWORD } })).body),
    );

    const wrong = sent(await sdk().users().auth({ cellphone: '5544332211', password: 'nope' }));
    expect(wrong).toEqual(await plain('POST', '/auth', { body: { cellphone: '5544332211', password: 'nope' } }));
    expect(wrong.status).toBe(401);
  });

  it('configs().asDictionary().get() with the session token', async () => {
    const token = sent(await sdk().users().auth({ email: 'admin@acme.test', password: PASSWORD })).body.result.session.access_token;
    const res = await sdk({ accessToken: token }).configs().asDictionary().get();
    const viaSdk = sent(res);
    expect(viaSdk.status).toBe(200);
    expect(viaSdk).toEqual(await plain('GET', '/configs', { query: { mode: 'dictionary' }, token }));
    expect(res.content.result.project_code.value).toBe('acme');
  });

  it('the conversation lists through get(path, {attributes, conditions, query})', async () => {
    const ordering = sdk({ apiKey: KEYS.server });
    const calls: { path: string; attributes?: string[]; conditions?: unknown; query?: Record<string, unknown> }[] = [
      { path: '/ai/conversations', attributes: ['id', 'status', 'agent_id'], query: { orderBy: '-id', page_size: 4 } },
      {
        path: '/ai/conversations',
        attributes: ['id', 'status', 'agent.name'],
        conditions: [
          { attribute: 'agent', conditions: [{ attribute: 'provider', value: 'whatsapp' }] },
          {
            conector: 'OR',
            conditions: [
              { attribute: 'id', value: { condition: 'ilike', value: '%2%' } },
              { attribute: 'status_reason', value: { condition: 'ilike', value: '%2%' } },
            ],
          },
        ],
      },
      {
        path: '/ai/conversations',
        conditions: [{ attribute: 'created_at', value: { condition: '>=', value: '2026-11-02 10:02:00' } }],
        query: { page: 2, page_size: 2 },
      },
      {
        path: '/ai/conversations/1/messages',
        attributes: ['role', 'content', 'public'],
        conditions: [{ attribute: 'public', value: false }],
      },
      { path: '/ai/conversations/1', attributes: ['status', 'agent'] },
    ];
    for (const { path, attributes, conditions, query } of calls) {
      const viaSdk = sent(
        await ordering.get(path, { json: true, attributes, conditions: conditions as never, query: query ? { ...query } : undefined }),
      );
      const q: Record<string, string> = {};
      if (attributes) q.params = attributes.join(',');
      if (conditions) q.where = JSON.stringify(conditions);
      for (const [k, v] of Object.entries(query ?? {})) q[k] = String(v);
      expect(viaSdk.status, path).toBe(200);
      expect(viaSdk, `${path} ${JSON.stringify(q)}`).toEqual(await plain('GET', path, { query: q, key: KEYS.server }));
    }
    wire.length = 0;
    const filtered = sent(
      await ordering.get('/ai/conversations', { json: true, attributes: ['id'], conditions: calls[1].conditions as never }),
    );
    expect(wire[0].url).toMatch(/^\/v400\/en\/acme\/ai\/conversations\?params=id&where=\[%7B%22attribute%22:%22agent%22,/); // not URL-encoded by the SDK
    expect(wire[0].headers).toMatchObject({
      'content-type': 'application/json',
      'x-api-key': KEYS.server,
      'x-app-x': 'dashboard',
      'x-country-code-x': 'MX',
    });
    expect(filtered.body.result.map((c: { id: number }) => c.id)).toEqual([21]);
  });

  it('post of a template send with body_parameters, as the SDK encodes it', async () => {
    const path = `/ai/agents/${agent}/templates/${agent * 10 + 1}/send`;
    fake.reset({ requests: true });
    const viaSdk = sent(await sdk({ apiKey: KEYS.server }).post(path, { to: '+5215512345678', body_parameters: ['Ana'] }, { json: true }));
    const overHttp = await plain('POST', path, { body: { to: '+5215512345678', body_parameters: ['Ana'] }, key: KEYS.server });
    expect(viaSdk.status).toBe(200);
    const noId = (b: any) => ({ ...b, result: { ...b.result, message_id: 'wamid' } });
    expect(noId(viaSdk.body)).toEqual(noId(overHttp.body));
    const bodies = fake.requests.filter((r) => r.method === 'POST').map((r) => r.body);
    expect(bodies).toHaveLength(2);
    expect(bodies[0]).toEqual(bodies[1]);
    expect(bodies[0].template.components).toEqual([{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }]);
  });

  it('put of translations, as the SDK encodes them', async () => {
    const path = `/ai/agents/${agent}/translations`;
    const translations = { en: { greeting: 'Hello', menu: { title: 'Menu' } }, es: { greeting: 'Hola' } };
    const viaSdk = sent(await sdk({ apiKey: KEYS.server }).put(path, { translations }, { json: true }));
    expect(viaSdk.status).toBe(200);
    expect(viaSdk.body.result.translations).toEqual(translations);
    expect(viaSdk).toEqual(await plain('PUT', path, { body: { translations }, key: KEYS.server }));
  });

  it('a bodyless post of templates/refresh (and of sync)', async () => {
    const ordering = sdk({ apiKey: KEYS.server });
    for (const action of ['refresh', 'sync']) {
      const path = `/ai/agents/${agent}/templates/${action}`;
      wire.length = 0;
      const bodyless = sent(await ordering.post(path, null, { json: true }));
      expect(wire[0].headers['content-type']).toBe('application/json');
      expect(wire[0].headers['content-length'] ?? '0').toBe('0');
      const emptyObject = sent(await ordering.post(path, undefined, { json: true }));
      const overHttp = await plain('POST', path, { key: KEYS.server });
      expect(bodyless.status, action).toBe(200);
      expect(bodyless).toEqual(overHttp);
      expect(emptyObject).toEqual(overHttp);
    }
    const stored = await plain('GET', `/ai/agents/${agent}/templates`, { key: KEYS.server });
    expect(stored.body.result.map((x: { name: string }) => x.name)).toEqual(['receipt', 'welcome']);
  });
});
