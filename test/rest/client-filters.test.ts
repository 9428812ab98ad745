import http from 'node:http';
import { parse as legacyParse } from 'node:url';
import { RawQueryFragment } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * `where` as the dashboards and the SDK write it (CONTRACT §3): relation groups on `agent`,
 * `ilike` on integers, `YYYY-MM-DD HH:mm:ss` timestamps, raw unencoded JSON in the query string.
 */
interface Conv {
  id: number;
  agent_id: number;
  business_id: number;
  user_id: number | null;
  status: 'active' | 'closed';
  created_at: string;
}
const AGENTS = [
  { id: 1, business_id: 1, name: 'Ventas', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'ventas', enabled: true },
  { id: 2, business_id: 2, name: 'Soporte', provider: 'whatsapp', provider_type: 'voice', provider_external_id: 'soporte', enabled: false },
  { id: 3, business_id: 3, name: 'Web bot', provider: 'webchat', provider_type: 'chat', provider_external_id: 'web', enabled: true },
];
const at = (h: number, m: number) => new Date(Date.UTC(2026, 10, 3, h, m)).toISOString();
const CONVS: Conv[] = [4, 7, 12, 42, 142, 420, 51, 88].map((id, k) => ({
  id,
  agent_id: (k % 3) + 1,
  business_id: (k % 3) + 1,
  user_id: k === 0 ? null : (k % 6) + 1,
  status: k % 2 ? 'closed' : 'active',
  created_at: at(8 + k, 30),
}));
const idsOf = (rows: Conv[]) => rows.map((c) => c.id).sort((a, b) => a - b);
const agentOf = (c: Conv) => AGENTS.find((a) => a.id === c.agent_id)!;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: AGENTS,
    conversations: CONVS.map((c) => ({ ...c })),
    messages: [
      { id: 1, conversation_id: 4, role: 'user', content: 'hola', public: true, created_at: at(9, 0) },
      { id: 2, conversation_id: 4, role: 'assistant', content: 'hola, ¿qué tal?', public: true, created_at: at(9, 1) },
      { id: 3, conversation_id: 4, role: 'system', content: 'prompt', public: false, created_at: at(9, 2) },
    ],
  });
  // Another project's agent matches every agent condition used below: it must never count.
  fixture.projects[1].agents = [
    {
      id: 101,
      business_id: 101,
      name: 'Ventas',
      provider: 'whatsapp',
      provider_type: 'chat',
      provider_external_id: 'ventas',
      enabled: true,
    },
  ];
  fixture.projects[1].conversations = [{ id: 1042, agent_id: 101, business_id: 101, status: 'active', created_at: at(9, 0) }];
  await db.load(fixture);
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('filters the clients write (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  let ownerToken: string;
  beforeAll(async () => {
    t = await startApp(engine, db);
    base = await t.listen();
    ownerToken = (
      await t.api({ method: 'POST', path: '/auth', body: { email: 'owner@acme.test', password: 'correct horse battery staple' } })
    ).json().result.session.access_token;
  });
  afterAll(() => t.close());

  const where = (w: unknown, auth: { key?: string; token?: string } = { key: KEYS.server }) =>
    t.api({
      path: '/ai/conversations',
      query: { where: typeof w === 'string' ? w : JSON.stringify(w), page_size: '100', params: 'id' },
      ...auth,
    });
  const ids = (res: { json(): any }) => res.json().result.map((c: { id: number }) => c.id);
  const expectBad = (res: { statusCode: number; json(): any }, named: string) => {
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('ERROR_VALIDATION');
    expect(res.json().result.join(' ')).toContain(named);
  };

  describe('relation groups', () => {
    const cases: [string, unknown, (c: Conv) => boolean][] = [
      [
        'agent provider',
        [{ attribute: 'agent', conditions: [{ attribute: 'provider', value: 'whatsapp' }] }],
        (c) => agentOf(c).provider === 'whatsapp',
      ],
      [
        'agent name ilike, OR',
        [
          {
            attribute: 'agent',
            conector: 'OR',
            conditions: [
              { attribute: 'name', value: { condition: 'ilike', value: '%bot%' } },
              { attribute: 'provider_type', value: 'voice' },
            ],
          },
        ],
        (c) => agentOf(c).name.toLowerCase().includes('bot') || agentOf(c).provider_type === 'voice',
      ],
      [
        'agent enabled with a conversation condition',
        [
          { attribute: 'status', value: 'active' },
          {
            attribute: 'agent',
            conditions: [
              { attribute: 'enabled', value: true },
              { attribute: 'business_id', value: { condition: 'in', value: [1, 2] } },
            ],
          },
        ],
        (c) => c.status === 'active' && agentOf(c).enabled && [1, 2].includes(agentOf(c).business_id),
      ],
      [
        'inside an OR group',
        [
          {
            conector: 'OR',
            conditions: [
              { attribute: 'id', value: 4 },
              { attribute: 'agent', conditions: [{ attribute: 'provider_external_id', value: 'web' }] },
            ],
          },
        ],
        (c) => c.id === 4 || agentOf(c).provider_external_id === 'web',
      ],
      ['an empty relation group constrains nothing', [{ attribute: 'agent', conditions: [] }], () => true],
      [
        'agent id operators',
        [{ attribute: 'agent', conditions: [{ attribute: 'id', value: { condition: '>=', value: 2 } }] }],
        (c) => c.agent_id >= 2,
      ],
      [
        'ilike on an agent integer',
        [{ attribute: 'agent', conditions: [{ attribute: 'business_id', value: { condition: 'ilike', value: '%3' } }] }],
        (c) => agentOf(c).business_id === 3,
      ],
    ];
    it.each(cases)('%s', async (_name, w, keep) => {
      const res = await where(w);
      expect(res.statusCode, res.body).toBe(200);
      expect(ids(res)).toEqual(idsOf(CONVS.filter(keep)));
      expect(res.json().pagination.total).toBe(CONVS.filter(keep).length);
    });

    it("stays inside the project and the caller's businesses, with every value bound", async () => {
      db.queries.length = 0;
      const res = await where([{ attribute: 'agent', conditions: [{ attribute: 'name', value: 'Ventas' }] }]);
      expect(ids(res)).toEqual(idsOf(CONVS.filter((c) => c.agent_id === 1)));
      const sql = db.queries.find((q) => q.includes('ai_agents') && q.includes('ai_conversations'))!;
      expect(sql).toMatch(/"ag"\."project_id" = \$\d/);
      expect(sql).not.toContain('Ventas');
      const owner = await where([{ attribute: 'agent', conditions: [{ attribute: 'provider', value: 'whatsapp' }] }], {
        token: ownerToken,
      });
      expect(ids(owner)).toEqual(idsOf(CONVS.filter((c) => c.business_id === 1)));
    });

    it('a group naming an attribute that is not a relation, or an unknown one, is a 400 naming it', async () => {
      expectBad(await where([{ attribute: 'status', conditions: [{ attribute: 'provider', value: 'whatsapp' }] }]), 'status');
      expect((await where([{ attribute: 'status', conditions: [] }])).json().result).toEqual(['The attribute status is not a relation.']);
      expectBad(await where([{ attribute: 'business', conditions: [] }]), 'business');
    });

    it("inside a relation group only the relation's attributes count, one level deep", async () => {
      expectBad(await where([{ attribute: 'agent', conditions: [{ attribute: 'credentials', value: 'x' }] }]), 'credentials');
      expectBad(await where([{ attribute: 'agent', conditions: [{ attribute: 'status', value: 'active' }] }]), 'status');
      expectBad(await where([{ attribute: 'agent', conditions: [{ attribute: 'agent', conditions: [] }] }]), 'agent');
      expectBad(await where([{ attribute: 'agent', conditions: [{ attribute: 'enabled', value: 'yes' }] }]), 'where');
      expectBad(await where([{ attribute: 'agent', conditions: [], extra: 1 }]), 'where');
    });

    it('the messages list has no relations', async () => {
      const res = await t.api({
        path: '/ai/conversations/4/messages',
        key: KEYS.server,
        query: { where: JSON.stringify([{ attribute: 'agent', conditions: [] }]) },
      });
      expectBad(res, 'agent');
    });
  });

  describe('ilike on integers', () => {
    it('compares the decimal text, alone or OR-ed with text fields', async () => {
      expect(ids(await where([{ attribute: 'id', value: { condition: 'ilike', value: '%42%' } }]))).toEqual([42, 142, 420]);
      const search = await where([
        {
          conector: 'OR',
          conditions: [
            { attribute: 'id', value: { condition: 'ilike', value: '%12%' } },
            { attribute: 'status', value: { condition: 'ilike', value: '%12%' } },
            { attribute: 'agent', conditions: [{ attribute: 'name', value: { condition: 'ilike', value: '%soporte%' } }] },
          ],
        },
      ]);
      expect(ids(search)).toEqual(idsOf(CONVS.filter((c) => String(c.id).includes('12') || c.agent_id === 2)));
      expect(ids(await where([{ attribute: 'agent_id', value: { condition: 'ilike', value: '3' } }]))).toEqual(
        idsOf(CONVS.filter((c) => c.agent_id === 3)),
      );
    });

    it('leaves no raw SQL fragments behind in the ORM (they are registered per request)', async () => {
      const w = [{ attribute: 'id', value: { condition: 'ilike', value: '%4%' } }];
      await where(w);
      const before = RawQueryFragment.checkCacheSize();
      for (let i = 0; i < 20; i++) await where(i % 2 ? w : [{ attribute: 'agent', conditions: w }]);
      expect(RawQueryFragment.checkCacheSize()).toBe(before);
    });

    it('ilike on a boolean or a timestamp is a 400 naming the attribute', async () => {
      const res = await where([
        { attribute: 'agent', conditions: [{ attribute: 'enabled', value: { condition: 'ilike', value: 'tr%' } }] },
      ]);
      expectBad(res, 'enabled');
      expect(res.json().result).toEqual(['The attribute enabled cannot be compared with ilike.']);
      expectBad(await where([{ attribute: 'created_at', value: { condition: 'ilike', value: '2026%' } }]), 'created_at');
      const messages = await t.api({
        path: '/ai/conversations/4/messages',
        key: KEYS.server,
        query: { where: JSON.stringify([{ attribute: 'public', value: { condition: 'ilike', value: 't%' } }]) },
      });
      expectBad(messages, 'public');
      expectBad(await where([{ attribute: 'id', value: { condition: 'ilike', value: 42 } }]), 'where');
    });
  });

  describe('timestamps as YYYY-MM-DD HH:mm:ss', () => {
    it("are UTC when no zone is given, whatever the server's zone", async () => {
      const expected = idsOf(CONVS.filter((c) => c.created_at >= at(10, 30) && c.created_at < at(13, 0)));
      const w = (from: string, to: string) => [
        { attribute: 'created_at', value: { condition: '>=', value: from } },
        { attribute: 'created_at', value: { condition: '<', value: to } },
      ];
      const saved = process.env.TZ;
      try {
        for (const tz of ['UTC', 'America/Mexico_City', 'Asia/Kolkata']) {
          process.env.TZ = tz;
          expect(ids(await where(w('2026-11-03 10:30:00', '2026-11-03 13:00:00'))), tz).toEqual(expected);
          expect(ids(await where(w('2026-11-03T10:30:00Z', '2026-11-03T13:00:00Z'))), tz).toEqual(expected);
          expect(ids(await where(w('2026-11-03 16:00:00+05:30', '2026-11-03 18:30:00+0530'))), tz).toEqual(expected);
          expect(ids(await where(w('2026-11-03 10:30', '2026-11-03T13:00'))), tz).toEqual(expected);
        }
      } finally {
        if (saved === undefined) delete process.env.TZ;
        else process.env.TZ = saved;
      }
      expect(ids(await where({ created_at: '2026-11-03 08:30:00' }))).toEqual([4]);
      for (const bad of ['2026-11-03 25:00:00', '2026-11-03  10:00:00', '03/11/2026 10:00:00'])
        expectBad(await where({ created_at: bad }), 'where');
    });
  });

  describe('raw where in the query string', () => {
    /** `raw`: sent byte for byte; `url`: as a browser (WHATWG URL) escapes it; `legacy`: as Node's url.parse (the SDK's xhr2) does. */
    const get = (query: string, how: 'raw' | 'url' | 'legacy'): Promise<{ status: number; body: any }> =>
      new Promise((resolve, reject) => {
        const path = `/v400/en/acme/ai/conversations?${query}`;
        const { port } = new URL(base);
        const headers = { 'x-api-key': KEYS.server };
        const onResponse = (res: http.IncomingMessage) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        };
        const req =
          how === 'url'
            ? http.request(new URL(`${base}${path}`), { headers }, onResponse)
            : http.request(
                { host: '127.0.0.1', port, headers, path: how === 'raw' ? path : legacyParse(`${base}${path}`, false, true).path! },
                onResponse,
              );
        req.on('error', reject);
        req.end();
      });

    it('unencoded {, }, ", :, ,, [ and ] parse as their encoded forms, and a % of the text stays a %', async () => {
      for (const w of [
        [
          { attribute: 'status', value: 'active' },
          { attribute: 'agent', conditions: [{ attribute: 'provider', value: 'whatsapp' }] },
        ],
        { status: 'closed', agent_id: [1, 3] },
        [{ attribute: 'id', value: { condition: 'ilike', value: '%42%' } }],
        [{ attribute: 'agent', conditions: [{ attribute: 'name', value: { condition: 'ilike', value: '%web bot%' } }] }],
        [{ attribute: 'agent', conditions: [{ attribute: 'name', value: { condition: 'ilike', value: 'VENTA%' } }] }],
      ]) {
        const text = JSON.stringify(w);
        const encoded = await get(`params=id,status&page_size=100&where=${encodeURIComponent(text)}`, 'raw');
        expect(encoded.status, text).toBe(200);
        expect(encoded.body.pagination.total, text).toBeGreaterThan(0);
        for (const how of ['raw', 'url', 'legacy'] as const) {
          if (how === 'raw' && text.includes(' ')) continue; // Node refuses a raw space in a request line
          const res = await get(`params=id,status&page_size=100&where=${text}`, how);
          expect(res.status, `${how} ${text}`).toBe(200);
          expect(res.body, `${how} ${text}`).toEqual(encoded.body);
        }
      }
    });
  });

  describe('params on the messages list', () => {
    const messages = (query: Record<string, string>) => t.api({ path: '/ai/conversations/4/messages', key: KEYS.server, query });

    it('means what fields means; fields wins when both are sent', async () => {
      const byParams = await messages({ params: 'role,content' });
      const byFields = await messages({ fields: 'role,content' });
      expect(byParams.statusCode).toBe(200);
      expect(byParams.json()).toEqual(byFields.json());
      expect(byParams.json().result).toEqual([
        { id: 1, role: 'user', content: 'hola' },
        { id: 2, role: 'assistant', content: 'hola, ¿qué tal?' },
        { id: 3, role: 'system', content: 'prompt' },
      ]);
      const both = await messages({ fields: 'public', params: 'role,content' });
      expect(both.json().result).toEqual([
        { id: 1, public: true },
        { id: 2, public: true },
        { id: 3, public: false },
      ]);
      const withWhere = await messages({ params: 'role', where: JSON.stringify({ public: false }) });
      expect(withWhere.json().result).toEqual([{ id: 3, role: 'system' }]);
    });

    it('an unknown field or a relation in params is a 400 naming it, as with fields', async () => {
      for (const params of ['nope', 'conversation.agent', 'agent']) {
        const res = await messages({ params });
        expectBad(res, params.split('.')[0]);
        expect(res.json()).toEqual((await messages({ fields: params })).json());
      }
      expectBad(await messages({ params: 'role', fields: 'nope' }), 'nope');
      // A bad params is ignored when fields decides.
      expect((await messages({ params: 'nope', fields: 'role' })).statusCode).toBe(200);
    });
  });

  it('the graph takes the same where', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server },
      payload: {
        query: 'query($w: JSON) { aiConversations(where: $w, page_size: 100) { items { id } } }',
        variables: { w: [{ attribute: 'agent', conditions: [{ attribute: 'provider', value: 'webchat' }] }] },
      },
    });
    expect(
      res
        .json()
        .data.aiConversations.items.map((c: { id: number }) => c.id)
        .sort((a: number, b: number) => a - b),
    ).toEqual(idsOf(CONVS.filter((c) => c.agent_id === 3)));
  });
});
