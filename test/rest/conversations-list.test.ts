import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';

/**
 * GET /ai/conversations, /ai/conversations/{id} and /ai/conversations/{id}/messages (spec §4.3,
 * CONTRACT §3, §6.2). Read-only: both engines see the same data and the expectations are
 * computed from the fixture below.
 */
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute)).toISOString();
const REASONS = ['completed', 'abandoned', 'failed'] as const;

interface Conv {
  id: number;
  agent_id: number;
  business_id: number;
  user_id: number | null;
  status: 'active' | 'closed';
  status_reason: string | null;
  created_at: string;
  closed_at: string | null;
}

/** 24 conversations: agent (and business) 1..3 in turn; every 4th active; created_at out of id order. */
const SMALL: Conv[] = Array.from({ length: 24 }, (_, k) => {
  const id = k + 1;
  const active = id % 4 === 0;
  return {
    id,
    agent_id: (k % 3) + 1,
    business_id: (k % 3) + 1,
    user_id: active ? id / 4 : id % 6 === 3 ? null : (id % 6) + 1,
    status: active ? 'active' : 'closed',
    status_reason: active ? null : REASONS[id % 3],
    created_at: at((id * 7) % 24),
    closed_at: active ? null : at(30 + id),
  };
});
/** The conversation with 10,000 messages. */
const BIG: Conv = {
  id: 25,
  agent_id: 1,
  business_id: 1,
  user_id: 3,
  status: 'closed',
  status_reason: 'completed',
  created_at: at(40),
  closed_at: at(50),
};
const ALL = [...SMALL, BIG];
const BIG_COUNT = 10_000;

const MESSAGES = [
  { id: 1, conversation_id: 1, role: 'user', content: 'hello', public: true, created_at: at(3) },
  { id: 2, conversation_id: 1, role: 'system', content: 'prompt', public: false, created_at: at(1) },
  { id: 3, conversation_id: 1, role: 'assistant', content: 'hi there', public: true, created_at: at(2) },
  { id: 4, conversation_id: 2, role: 'user', content: 'order', public: true, created_at: at(4) },
  { id: 5, conversation_id: 1, role: 'tool', content: '{}', public: false, created_at: at(5) },
];
const COUNTS = new Map<number, number>([
  [1, 4],
  [2, 1],
  [25, BIG_COUNT],
]);

const DEFAULT_FIELDS = [
  'agent_id',
  'assignee_id',
  'business_id',
  'closed_at',
  'contact',
  'contact_name',
  'contact_user_id',
  'contact_username',
  'created_at',
  'handler',
  'id',
  'last_message_at',
  'messages_count',
  'referral',
  'source',
  'status',
  'status_reason',
  'unread_count',
  'updated_at',
  'usage',
  'user_id',
  'window_expires_at',
];
const AGENT_FIELDS = [
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
];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const agent = (id: number, business_id: number) => ({
    id,
    business_id,
    name: `Agent ${id}`,
    provider: 'whatsapp',
    provider_type: id === 2 ? 'voice' : 'chat',
    provider_external_id: `agent-${id}`,
    enabled: true,
    credentials: { waba_id: 'w', phone_number_id: `p${id}`, access_token: 'SECRET-TOKEN' },
  });
  const fixture = baseFixture({
    agents: [agent(1, 1), agent(2, 2), agent(3, 3)],
    conversations: ALL.map((c) => ({ ...c, usage: { cost: c.id / 10, response_time_ms: 100 + c.id } })),
    messages: MESSAGES,
  });
  fixture.projects[1].agents = [agent(101, 101)];
  fixture.projects[1].conversations = [{ id: 101, agent_id: 101, business_id: 101, status: 'active', created_at: at(1) }];
  fixture.projects[1].messages = [{ id: 101, conversation_id: 101, role: 'user', content: 'other project', public: true }];
  fixture.projects.push({
    code: 'noai',
    name: 'No AI',
    ai_enabled: false,
    api_keys: [{ key: 'noai-server-key-0123456789', server: true }],
  });
  await db.load(fixture);
  await db.sql(
    `insert into ai_messages (project_id, conversation_id, role, content, public, created_at)
     select p.id, 25, case when g % 2 = 0 then 'user' else 'assistant' end, 'message ' || g, g % 3 <> 0, timestamptz '2026-11-01 13:00:00Z' + g * interval '1 second'
       from generate_series(1, ?) g, projects p where p.code = 'acme'`,
    [BIG_COUNT],
  );
});
afterAll(() => db.orm.close());

const ids = (body: { result: { id: number }[] }) => body.result.map((c) => c.id);
const sortIds = (rows: Conv[]) => rows.map((c) => c.id).sort((a, b) => a - b);

describe.each(ENGINES)('conversation lists (%s)', (engine) => {
  let t: TestApp;
  let owner2Token: string;
  let cityToken: string;
  beforeAll(async () => {
    t = await startApp(engine, db);
    const login = async (email: string) =>
      (await t.api({ method: 'POST', path: '/auth', body: { email, password: PASSWORD } })).json().result.session.access_token as string;
    owner2Token = await login('owner2@acme.test');
    cityToken = await login('city@acme.test');
  });
  afterAll(() => t.close());

  const list = (query: Record<string, string> = {}, auth: { key?: string; token?: string } = { key: KEYS.server }) =>
    t.api({ path: '/ai/conversations', query, ...auth });
  const where = (w: unknown, extra: Record<string, string> = {}) => list({ where: JSON.stringify(w), page_size: '100', ...extra });
  const expectBad = async (res: Awaited<ReturnType<typeof list>>, named?: string) => {
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ error: true, code: 'ERROR_VALIDATION' });
    if (named) expect(res.json().result.join(' ')).toContain(named);
  };

  describe('GET /ai/conversations', () => {
    it('lists the default projection with messages_count, 10 per page by id, with the pagination block', async () => {
      const res = await list();
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.error).toBe(false);
      expect(ids(body)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(Object.keys(body.result[0]).sort()).toEqual(DEFAULT_FIELDS);
      expect(body.result[0]).toMatchObject({
        id: 1,
        agent_id: 1,
        business_id: 1,
        status: 'closed',
        status_reason: 'abandoned',
        messages_count: 4,
        usage: { cost: 0.1, response_time_ms: 101 },
      });
      expect(body.result.map((c: any) => c.messages_count)).toEqual(body.result.map((c: any) => COUNTS.get(c.id) ?? 0));
      expect(body.pagination).toEqual({ current_page: 1, page_size: 10, total_pages: 3, total: 25, from: 1, to: 10 });
    });

    it('pagination on the middle, last and past-the-end pages', async () => {
      const middle = (await list({ page: '2' })).json();
      expect(ids(middle)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
      expect(middle.pagination).toEqual({ current_page: 2, page_size: 10, total_pages: 3, total: 25, from: 11, to: 20 });
      const last = (await list({ page: '3' })).json();
      expect(ids(last)).toEqual([21, 22, 23, 24, 25]);
      expect(last.pagination).toEqual({ current_page: 3, page_size: 10, total_pages: 3, total: 25, from: 21, to: 25 });
      const past = (await list({ page: '4' })).json();
      expect(past.result).toEqual([]);
      expect(past.pagination).toEqual({ current_page: 4, page_size: 10, total_pages: 3, total: 25, from: null, to: null });
      const seven = (await list({ page: '4', page_size: '7' })).json();
      expect(ids(seven)).toEqual([22, 23, 24, 25]);
      expect(seven.pagination).toEqual({ current_page: 4, page_size: 7, total_pages: 4, total: 25, from: 22, to: 25 });
    });

    it('an empty result has total and total_pages 0 and null from/to', async () => {
      const body = (await where({ status: 'nope' })).json();
      expect(body.result).toEqual([]);
      expect(body.pagination).toEqual({ current_page: 1, page_size: 100, total_pages: 0, total: 0, from: null, to: null });
    });

    it('page and page_size outside their ranges are a 400 naming them', async () => {
      for (const page_size of ['0', '101', '-1', 'abc', '1.5', '']) await expectBad(await list({ page_size }), 'page_size');
      for (const page of ['0', '-3', 'x', '2.5', '99999999999999999999', '1e400']) await expectBad(await list({ page }), 'page');
      expect((await list({ page_size: '100' })).json().result).toHaveLength(25);
    });

    describe('where', () => {
      it('object form: exact matches AND-ed, an array is any-of, null is "is null"', async () => {
        expect(ids((await where({ status: 'active' })).json())).toEqual(sortIds(ALL.filter((c) => c.status === 'active')));
        expect(ids((await where({ status: 'closed', agent_id: [1, 2] })).json())).toEqual(
          sortIds(ALL.filter((c) => c.status === 'closed' && [1, 2].includes(c.agent_id))),
        );
        expect(ids((await where({ user_id: null })).json())).toEqual(sortIds(ALL.filter((c) => c.user_id === null)));
        expect(ids((await where({})).json())).toHaveLength(25);
        expect((await where({ id: [] })).json()).toMatchObject({ result: [], pagination: { total: 0 } });
        expect(ids((await where([{ conditions: [], conector: 'OR' }])).json())).toHaveLength(25);
      });

      const cases: [string, unknown, (c: Conv) => boolean][] = [
        ['literal', [{ attribute: 'status_reason', value: 'failed' }], (c) => c.status_reason === 'failed'],
        ['literal array', [{ attribute: 'id', value: [3, 5, 99] }], (c) => [3, 5].includes(c.id)],
        ['=', [{ attribute: 'agent_id', value: { condition: '=', value: 2 } }], (c) => c.agent_id === 2],
        ['!=', [{ attribute: 'status', value: { condition: '!=', value: 'active' } }], (c) => c.status !== 'active'],
        ['<', [{ attribute: 'id', value: { condition: '<', value: 4 } }], (c) => c.id < 4],
        ['<=', [{ attribute: 'id', value: { condition: '<=', value: 4 } }], (c) => c.id <= 4],
        ['>', [{ attribute: 'created_at', value: { condition: '>', value: at(20) } }], (c) => c.created_at > at(20)],
        ['>=', [{ attribute: 'created_at', value: { condition: '>=', value: '2026-11-01T12:20:00Z' } }], (c) => c.created_at >= at(20)],
        ['ilike', [{ attribute: 'status_reason', value: { condition: 'ilike', value: 'COMP%' } }], (c) => c.status_reason === 'completed'],
        ['in', [{ attribute: 'business_id', value: { condition: 'in', value: [1, 3] } }], (c) => [1, 3].includes(c.business_id)],
        ['null', [{ attribute: 'closed_at', value: { condition: 'null' } }], (c) => c.closed_at === null],
        ['not_null', [{ attribute: 'user_id', value: { condition: 'not_null' } }], (c) => c.user_id !== null],
        [
          'several conditions AND-ed',
          [
            { attribute: 'status', value: 'closed' },
            { attribute: 'closed_at', value: { condition: '<', value: at(40) } },
          ],
          (c) => c.status === 'closed' && c.closed_at! < at(40),
        ],
        [
          'an OR group',
          [
            {
              conditions: [
                { attribute: 'id', value: 1 },
                { attribute: 'status', value: 'active' },
              ],
              conector: 'OR',
            },
          ],
          (c) => c.id === 1 || c.status === 'active',
        ],
        [
          'nested groups',
          [
            { attribute: 'agent_id', value: 1 },
            {
              conector: 'OR',
              conditions: [
                { attribute: 'status', value: 'active' },
                {
                  conector: 'AND',
                  conditions: [
                    { attribute: 'status_reason', value: 'failed' },
                    { attribute: 'id', value: { condition: '>', value: 10 } },
                  ],
                },
              ],
            },
          ],
          (c) => c.agent_id === 1 && (c.status === 'active' || (c.status_reason === 'failed' && c.id > 10)),
        ],
        [
          'a top-level group',
          {
            conditions: [
              { attribute: 'id', value: 2 },
              { attribute: 'id', value: 3 },
            ],
            conector: 'OR',
          },
          (c) => [2, 3].includes(c.id),
        ],
      ];
      it.each(cases)('array form: %s', async (_name, w, keep) => {
        const res = await where(w);
        expect(res.statusCode, res.body).toBe(200);
        expect(ids(res.json())).toEqual(sortIds(ALL.filter(keep)));
        expect(res.json().pagination.total).toBe(ALL.filter(keep).length);
      });

      it('malformed JSON is a 400 naming where', async () => {
        const res = await list({ where: '{"status": ' });
        await expectBad(res, 'where');
        expect(res.json().result).toEqual(['The value of where is not valid JSON.']);
      });

      it('an attribute not allow-listed is a 400 naming it', async () => {
        for (const attribute of ['usage', 'project_id', 'updated_at', 'id; drop table ai_conversations', '__proto__', 'constructor']) {
          const res = await where([{ attribute, value: 1 }]);
          await expectBad(res, attribute);
          expect(res.json().result[0]).toContain('cannot be used');
        }
        await expectBad(await list({ where: '{"project_id": 2}' }), 'project_id');
      });

      it('an unknown operator is a 400 naming it', async () => {
        const res = await where([{ attribute: 'id', value: { condition: 'like', value: 1 } }]);
        await expectBad(res, 'like');
        expect(res.json().result).toEqual(['The operator like is not supported.']);
        await expectBad(await where([{ attribute: 'id', value: { condition: '; select 1', value: 1 } }]), 'select 1');
      });

      it('malformed conditions and hostile values are 400s, never 5xx', async () => {
        const bad: unknown[] = [
          [{ attribute: 'id', value: { condition: '=' } }],
          [{ attribute: 'id', value: { condition: 'in', value: 3 } }],
          [{ attribute: 'created_at', value: { condition: 'ilike', value: '2026%' } }],
          [{ attribute: 'status', value: { condition: 'null', value: 'x' } }],
          [{ attribute: 'id' }],
          [{ value: 1 }],
          [{ attribute: 'id', value: 1, extra: true }],
          [{ attribute: 'id', value: 'abc' }],
          [{ attribute: 'id', value: 2 ** 53 }],
          [{ attribute: 'id', value: 1.5 }],
          [{ attribute: 'id', value: true }],
          [{ attribute: 'status', value: 5 }],
          [{ attribute: 'status', value: 'a\u0000b' }],
          [{ attribute: 'status', value: 'x'.repeat(2000) }],
          [{ attribute: 'created_at', value: '2026-13-45' }],
          [{ attribute: 'created_at', value: 'yesterday' }],
          [{ attribute: 'created_at', value: '1' }],
          [{ attribute: 'status', value: { $ne: null } }],
          [{ conditions: [{ attribute: 'id', value: 1 }], conector: 'XOR' }],
          [{ conditions: 'id = 1', conector: 'OR' }],
          [1],
          ['status'],
          'active',
          42,
          { status: { condition: '=', value: 'active' } },
          [{ conditions: [{ conditions: [{ conditions: [{ conditions: [{ conditions: [{ conditions: [] }] }] }] }] }] }],
          Array.from({ length: 101 }, (_, i) => ({ attribute: 'id', value: i })),
          [{ attribute: 'id', value: { condition: 'in', value: Array.from({ length: 1001 }, (_, i) => i) } }],
        ];
        for (const w of bad) {
          const res = await where(w);
          expect(res.statusCode, JSON.stringify(w).slice(0, 200)).toBe(400);
          expect(res.json().code).toBe('ERROR_VALIDATION');
        }
      });

      it('a value that reads like SQL is just a value', async () => {
        const res = await where({ status: "active' or '1'='1" });
        expect(res.statusCode).toBe(200);
        expect(res.json().result).toEqual([]);
      });
    });

    describe('orderBy', () => {
      it('descending', async () => {
        const body = (await list({ orderBy: '-created_at', page_size: '100' })).json();
        expect(ids(body)).toEqual(
          [...ALL].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id - b.id)).map((c) => c.id),
        );
      });

      it('multi-key, mixed directions', async () => {
        const body = (await list({ orderBy: 'agent_id,-id', page_size: '100' })).json();
        expect(ids(body)).toEqual([...ALL].sort((a, b) => a.agent_id - b.agent_id || b.id - a.id).map((c) => c.id));
        const nulls = (await list({ orderBy: '-status, status_reason ,id', page_size: '5' })).json();
        expect(nulls.result[0].status).toBe('closed');
      });

      it('an unknown attribute is a 400 naming it', async () => {
        for (const orderBy of ['usage', '-updated_at', 'id;drop table users', '--id', 'created_at desc', 'messages_total']) {
          await expectBad(await list({ orderBy }), orderBy.replace(/^-/, ''));
        }
      });

      it('an unknown attribute of where or orderBy names the attributes allowed there, in the four languages', async () => {
        const allowed = /status_reason.+last_message_at.+unread_count/;
        const expected: Record<string, RegExp> = {
          en: /the attributes allowed are: id, agent_id, /,
          es: /los atributos permitidos son: id, agent_id, /,
          fr: /les attributs permis sont : id, agent_id, /,
          ar: /السمات المسموح بها هي: id، agent_id، /,
        };
        for (const [lang, words] of Object.entries(expected)) {
          for (const query of [{ orderBy: '-nope' }, { where: '[{"attribute":"nope","value":"x"}]' }] as Record<string, string>[]) {
            const res = await t.api({ path: '/ai/conversations', query, key: KEYS.server, lang });
            expect(res.statusCode, res.body).toBe(400);
            expect(res.json().result[0]).toMatch(words);
            expect(res.json().result[0]).toMatch(allowed);
          }
        }
        // a relation group names its relation's own attributes
        const res = await where([{ attribute: 'agent', conditions: [{ attribute: 'secret', value: 1 }] }]);
        expect(res.json().result[0]).toContain('id, name, provider, provider_type, provider_external_id, enabled, business_id');
      });
    });

    describe('params', () => {
      it("selects fields and a relation's fields; id is always there", async () => {
        const res = await list({ params: 'status,agent.name', page_size: '2' });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().result).toEqual([
          { id: 1, status: 'closed', messages_count: 4, agent: { id: 1, name: 'Agent 1' } },
          { id: 2, status: 'closed', messages_count: 1, agent: { id: 2, name: 'Agent 2' } },
        ]);
      });

      it('a bare relation is its default projection, never with credentials', async () => {
        const body = (await list({ params: 'id,agent', page_size: '3' })).json();
        expect(Object.keys(body.result[0]).sort()).toEqual(['agent', 'id', 'messages_count']);
        expect(Object.keys(body.result[0].agent).sort()).toEqual(AGENT_FIELDS);
        expect(body.result.map((c: any) => c.agent.provider_type)).toEqual(['chat', 'voice', 'chat']);
        expect(JSON.stringify(body)).not.toContain('SECRET-TOKEN');
      });

      it('loads the relation once per page and counts messages in one grouped query', async () => {
        db.queries.length = 0;
        const res = await list({ params: 'agent.name', page_size: '25' });
        expect(res.statusCode).toBe(200);
        const agentQueries = db.queries.filter((q) => /from "ai_agents"/.test(q));
        expect(agentQueries).toHaveLength(1);
        expect(db.queries.filter((q) => /count\(\*\)::int as n from ai_messages/.test(q))).toHaveLength(1);
      });

      it('an unknown field is a 400 naming it', async () => {
        for (const [params, named] of [
          ['id,foo', 'foo'],
          ['agent.credentials.access_token', 'agent.credentials.access_token'],
          ['agent.nope', 'agent.nope'],
          ['status.x', 'status.x'],
          ['usage.cost', 'usage.cost'],
          ['__typename', '__typename'],
          ['id{__schema{types{name}}}', 'id{__schema'],
          ['agent.agent', 'agent.agent'],
          ['project', 'project'],
        ] as const) {
          const res = await list({ params });
          await expectBad(res, named);
          expect(res.json().result[0]).toContain('is not known');
        }
        await expectBad(await list({ params: 'x'.repeat(3000) }), 'params');
      });

      it('the same params twice give the same answer (the built document is cached)', async () => {
        const a = (await list({ params: 'user_id,closed_at', page_size: '3' })).json();
        const b = (await list({ params: 'user_id,closed_at', page_size: '3' })).json();
        expect(b).toEqual(a);
        expect(Object.keys(a.result[0]).sort()).toEqual(['closed_at', 'id', 'messages_count', 'user_id']);
      });
    });

    it('counts 10,000 messages in SQL without loading them', async () => {
      db.queries.length = 0;
      const res = await where({ id: 25 });
      expect(res.statusCode).toBe(200);
      expect(res.json().result[0].messages_count).toBe(BIG_COUNT);
      const messageQueries = db.queries.filter((q) => /\bai_messages\b/.test(q));
      // messages_count: one grouped count for the page; the caller's unread_count (CONTRACT §10.5) reads stored counts
      expect(messageQueries.length).toBe(1);
      expect(db.queries.filter((q) => /\bai_conversation_seen\b/.test(q) && !/\bai_messages\b/.test(q)).length).toBe(1);
      for (const q of messageQueries) {
        expect(q).toMatch(/count\(\*\)/);
        expect(q).toMatch(/group by (m\.)?conversation_id/);
      }
      expect(db.queries.filter((q) => /select\b(?:(?!count\().)*from "?ai_messages"?/is.test(q))).toEqual([]);
    });
  });

  describe('GET /ai/conversations/{conversation_id}', () => {
    const one = (id: string, query: Record<string, string> = {}, auth: { key?: string; token?: string } = { key: KEYS.server }) =>
      t.api({ path: `/ai/conversations/${id}`, query, ...auth });

    it('returns one conversation with messages_count', async () => {
      const res = await one('1');
      expect(res.statusCode).toBe(200);
      expect(Object.keys(res.json().result).sort()).toEqual(DEFAULT_FIELDS);
      expect(res.json().result).toMatchObject({ id: 1, messages_count: 4 });
      expect((await one('25')).json().result.messages_count).toBe(BIG_COUNT);
      expect((await one('000000000000000002')).json().result).toMatchObject({ id: 2, messages_count: 1 });
    });

    it('takes params', async () => {
      const res = await one('2', { params: 'status,agent.provider' });
      expect(res.json().result).toEqual({ id: 2, status: 'closed', messages_count: 1, agent: { id: 2, provider: 'whatsapp' } });
      await expectBad(await one('2', { params: 'nope' }), 'nope');
    });

    it("another project's id, a missing id or an impossible id: 400 ERROR_AI_CONVERSATION_NOT_FOUND", async () => {
      for (const id of ['101', '9999', '0', '9999999999', '999999999999999999']) {
        const res = await one(id);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ error: true, code: 'ERROR_AI_CONVERSATION_NOT_FOUND', result: ['The conversation was not found.'] });
      }
    });

    it('an id outside ^[0-9]{1,18}$ is a 400 (CONTRACT §16)', async () => {
      for (const id of ['abc', '-1', '1.5', '1%20or%201=1', '0000000000000000000002', '99999999999999999999']) {
        const res = await one(id);
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('ERROR_VALIDATION');
      }
    });
  });

  describe('GET /ai/conversations/{conversation_id}/messages', () => {
    const msgs = (id: string, query: Record<string, string> = {}, auth: { key?: string; token?: string } = { key: KEYS.server }) =>
      t.api({ path: `/ai/conversations/${id}/messages`, query, ...auth });

    it('lists every message, public or not, by id, paginated', async () => {
      const res = await msgs('1');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(ids(body)).toEqual([1, 2, 3, 5]);
      expect(body.result[1]).toEqual({
        id: 2,
        conversation_id: 1,
        role: 'system',
        content: 'prompt',
        public: false,
        created_at: at(1),
        usage: null,
        external_id: null,
        delivery_status: null,
        delivery_error: null,
        author_id: null,
        type: 'text',
        payload: null,
        reply_to_id: null,
        source: 'api',
        edited_at: null,
        edits: [],
        revoked_at: null,
        referral: null,
        referred_product: null,
        order_id: null,
      });
      expect(body.pagination).toEqual({ current_page: 1, page_size: 10, total_pages: 1, total: 4, from: 1, to: 4 });
      const big = (await msgs('25', { page: '3', page_size: '100' })).json();
      expect(big.result).toHaveLength(100);
      expect(big.pagination).toEqual({ current_page: 3, page_size: 100, total_pages: 100, total: BIG_COUNT, from: 201, to: 300 });
    });

    it('fields is a sparse fieldset, id always included; relations and unknown fields are 400', async () => {
      const body = (await msgs('1', { fields: 'role,content' })).json();
      expect(body.result[0]).toEqual({ id: 1, role: 'user', content: 'hello' });
      for (const fields of ['nope', 'conversation.id', 'content.x', 'project']) await expectBad(await msgs('1', { fields }), fields);
    });

    it('where, orderBy on its attributes', async () => {
      expect(ids((await msgs('1', { where: '{"public": false}' })).json())).toEqual([2, 5]);
      expect(
        ids(
          (await msgs('1', { where: JSON.stringify([{ attribute: 'role', value: { condition: 'in', value: ['user', 'tool'] } }]) })).json(),
        ),
      ).toEqual([1, 5]);
      expect(ids((await msgs('1', { orderBy: '-created_at' })).json())).toEqual([5, 1, 3, 2]);
      expect(ids((await msgs('1', { orderBy: 'role,-id' })).json())).toEqual([3, 2, 5, 1]);
      expect(
        ids((await msgs('1', { where: JSON.stringify([{ attribute: 'created_at', value: { condition: '<', value: at(3) } }]) })).json()),
      ).toEqual([2, 3]);
      await expectBad(await msgs('1', { where: '{"conversation_id": 2}' }), 'conversation_id');
      await expectBad(await msgs('1', { where: '{"public": "yes"}' }), 'where');
      await expectBad(await msgs('1', { orderBy: 'content' }), 'content');
    });

    it('foreign and missing conversations: 400 ERROR_AI_CONVERSATION_NOT_FOUND', async () => {
      for (const id of ['101', '9999']) {
        const res = await msgs(id);
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('ERROR_AI_CONVERSATION_NOT_FOUND');
      }
    });
  });

  describe('access', () => {
    it('a level-2 user sees only the conversations of the businesses they own', async () => {
      const owner = (await list({ page_size: '100' }, { key: KEYS.owner })).json();
      expect(ids(owner)).toEqual(sortIds(ALL.filter((c) => c.business_id === 1)));
      expect(owner.pagination.total).toBe(ALL.filter((c) => c.business_id === 1).length);
      const owner2 = (await list({ page_size: '100', where: '{"status":"closed"}' }, { token: owner2Token })).json();
      expect(ids(owner2)).toEqual(sortIds(ALL.filter((c) => c.business_id === 2 && c.status === 'closed')));
    });

    it('a level-2 user naming a conversation of another business gets the not-found 400', async () => {
      const mine = await t.api({ path: '/ai/conversations/1', key: KEYS.owner });
      expect(mine.statusCode).toBe(200);
      for (const path of ['/ai/conversations/2', '/ai/conversations/2/messages']) {
        const res = await t.api({ path, key: KEYS.owner });
        expect(res.statusCode).toBe(400);
        expect(res.json().code).toBe('ERROR_AI_CONVERSATION_NOT_FOUND');
      }
      // where cannot widen the scope
      const widened = (await list({ where: '{"business_id": [1, 2, 3]}', page_size: '100' }, { key: KEYS.owner })).json();
      expect(widened.result.every((c: any) => c.business_id === 1)).toBe(true);
    });

    it('administrators and server keys see every conversation of their project only', async () => {
      expect((await list({}, { key: KEYS.admin })).json().pagination.total).toBe(25);
      for (const key of [KEYS.otherServer, KEYS.otherAdmin]) {
        const res = await t.api({ project: 'other', path: '/ai/conversations', key });
        expect(ids(res.json())).toEqual([101]);
        expect(res.json().result[0].messages_count).toBe(1);
      }
    });

    it('other levels 401, anonymous 401, AI module off 403', async () => {
      for (const auth of [{ key: KEYS.customer }, { token: cityToken }, {}]) {
        for (const path of ['/ai/conversations', '/ai/conversations/1', '/ai/conversations/1/messages']) {
          const res = await t.api({ path, ...auth });
          expect(res.statusCode).toBe(401);
          expect(res.json().code).toBe('ERROR_UNAUTHORIZED');
        }
      }
      const off = await t.api({ project: 'noai', path: '/ai/conversations', key: 'noai-server-key-0123456789' });
      expect(off.statusCode).toBe(403);
      expect(off.json().code).toBe('ERROR_AI_MODULE_DISABLED');
    });
  });

  describe('on /graphql', () => {
    const gql = (query: string, variables: Record<string, unknown> = {}, key = KEYS.server) =>
      t.app.inject({ method: 'POST', url: '/graphql', headers: { 'x-api-key': key }, payload: { query, variables } });

    it('serves the same lists with the same rules', async () => {
      const res = await gql(
        `query ($w: JSON) { aiConversations(where: $w, orderBy: "-id", page_size: 3) { items { id messages_count agent { name } } pagination { total from to } } }`,
        { w: { status: 'closed', agent_id: 1 } },
      );
      const expected = ALL.filter((c) => c.status === 'closed' && c.agent_id === 1)
        .map((c) => c.id)
        .sort((a, b) => b - a);
      expect(res.json().data.aiConversations.items.map((c: any) => c.id)).toEqual(expected.slice(0, 3));
      expect(res.json().data.aiConversations.items[0]).toMatchObject({ id: 25, messages_count: BIG_COUNT, agent: { name: 'Agent 1' } });
      expect(res.json().data.aiConversations.pagination).toEqual({ total: expected.length, from: 1, to: 3 });
      const bad = (
        await gql('{ aiConversations(where: "[{\\"attribute\\":\\"usage\\",\\"value\\":1}]") { pagination { total } } }')
      ).json();
      expect(bad.errors[0].extensions.code).toBe('ERROR_VALIDATION');
      const foreign = (await gql('{ aiConversation(id: 101) { id } }')).json();
      expect(foreign.errors[0].extensions.code).toBe('ERROR_AI_CONVERSATION_NOT_FOUND');
      // an agent's credentials show only which keys are stored (CONTRACT §10.3)
      const credentials = await gql('{ aiConversations(page_size: 1) { items { agent { credentials } } } }');
      expect(credentials.json().data.aiConversations.items[0].agent.credentials).toEqual({
        waba_id: true,
        phone_number_id: true,
        access_token: true,
        app_secret: false,
        verify_token: false,
        dataset_id: false,
      });
      expect(credentials.body).not.toContain('SECRET-TOKEN');
      const stored = await db.sql<{ credentials: string }>('select credentials from ai_agents where id = 1');
      expect(stored[0].credentials).toBeTruthy();
      expect(stored[0].credentials).not.toContain('SECRET-TOKEN');
      const messages = (
        await gql('{ aiConversationMessages(conversation_id: 1, page_size: 2) { items { id public } pagination { total_pages } } }')
      ).json();
      expect(messages.data.aiConversationMessages).toEqual({
        items: [
          { id: 1, public: true },
          { id: 2, public: false },
        ],
        pagination: { total_pages: 2 },
      });
    });
  });
});
