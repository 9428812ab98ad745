import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';

/**
 * The write routes of CONTRACT §9.1: a message to the current conversation, a message with usage
 * to any conversation, closing; their events (§9.4), their errors and the metrics that follow them.
 * Both engines share this file's database: every case uses the conversations and agents of its engine.
 */
// Not WhatsApp agents: these writes are about §9.1; replies sent on WhatsApp (§10.1) are whatsapp-replies.test.ts's.
const agent = (id: number, ext: string, extra: Record<string, unknown> = {}) => ({
  id,
  business_id: 1,
  name: `Agent ${ext}`,
  provider: 'web',
  provider_type: 'chat',
  provider_external_id: ext,
  enabled: true,
  ...extra,
});
const base = (i: number) => 10 + i * 20;
const AGENTS = [
  agent(1, 'w-off', { enabled: false }),
  ...ENGINES.flatMap((e, i) => [
    agent(base(i), `w-cur-${e}`),
    agent(base(i) + 1, `w-b2-${e}`, { business_id: 2 }),
    agent(base(i) + 2, `w-metrics-${e}`),
  ]),
];
const conversation = (id: number, agentId: number, extra: Record<string, unknown> = {}) => ({
  // a contact of its own: these are not anybody's current conversation (one active per agent and user)
  id,
  agent_id: agentId,
  user_id: null,
  contact: `c${id}`,
  business_id: 1,
  status: 'active',
  usage: {},
  created_at: '2026-11-01T12:00:00Z',
  ...extra,
});
// Per engine i: base+0 usage, base+1 errors, base+2 closing, base+3 closed, base+4 business 2, base+5 with fixture usage.
const CONVERSATIONS = [
  // the customer's active conversation with the disabled agent: a message to it is refused, nothing stored
  conversation(5, 1, { contact: null, user_id: USERS.customer }),
  ...ENGINES.flatMap((_, i) => [
    conversation(base(i), base(i)),
    conversation(base(i) + 1, base(i)),
    conversation(base(i) + 2, base(i)),
    conversation(base(i) + 3, base(i), { status: 'closed', status_reason: 'completed', closed_at: '2026-11-01T13:00:00Z' }),
    conversation(base(i) + 4, base(i) + 1, { business_id: 2 }),
    conversation(base(i) + 5, base(i), { usage: { cost: 1.25, response_time_ms: 300 } }),
  ]),
];
const MESSAGES = ENGINES.flatMap((_, i) => [
  // an earlier message carrying a response time: the mean includes it
  {
    id: base(i),
    conversation_id: base(i) + 5,
    role: 'assistant',
    content: 'earlier',
    public: true,
    created_at: '2026-11-01T12:01:00Z',
    usage: { response_time_ms: 300 },
  },
  { id: base(i) + 1, conversation_id: base(i) + 2, role: 'user', content: 'hello', public: true, created_at: '2026-11-01T12:01:00Z' },
]);

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({ agents: AGENTS, conversations: CONVERSATIONS, messages: MESSAGES });
  fixture.projects[1].agents = [agent(101, 'w-other', { business_id: 101 })];
  fixture.projects[1].conversations = [conversation(101, 101, { business_id: 101 })];
  await db.load(fixture);
});
afterAll(() => db.orm.close());

const events = (conversationId: number) =>
  db.sql<{ type: string; data: any; public: boolean }>('select type, data, public from ai_events where conversation_id = ? order by id', [
    conversationId,
  ]);

describe.each(ENGINES)('conversation writes (%s)', (engine) => {
  const i = ENGINES.indexOf(engine);
  const B = base(i);
  let t: TestApp;
  const post = (path: string, body: unknown, auth: { key?: string; token?: string } = { key: KEYS.server }, lang = 'en') =>
    t.api({ method: 'POST', path, body, lang, ...auth });
  const addMessage = (id: number | string, body: unknown, auth?: { key?: string }) => post(`/ai/conversations/${id}/messages`, body, auth);

  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  describe('POST .../conversations/current/messages', () => {
    const path = `/ai/agents/w-cur-${engine}/conversations/current/messages`;

    it('opens the current conversation once, adds public user messages, emits its events', async () => {
      const first = await post(path, { content: 'Hola' }, { key: KEYS.customer });
      expect(first.statusCode).toBe(200);
      const m1 = first.json().result;
      expect(m1).toMatchObject({ role: 'user', content: 'Hola', public: true, usage: null, external_id: null });
      const second = await post(path, { content: 'Quiero pizza' }, { key: KEYS.customer });
      expect(second.statusCode).toBe(200);
      const m2 = second.json().result;
      expect(m2.conversation_id).toBe(m1.conversation_id);

      const current = await t.api({ path: `/ai/agents/w-cur-${engine}/conversations/current`, key: KEYS.customer });
      expect(current.json().result.id).toBe(m1.conversation_id);
      const listed = await t.api({ path: `/ai/agents/w-cur-${engine}/conversations/current/messages`, key: KEYS.customer });
      expect(listed.json().result.map((m: { content: string }) => m.content)).toEqual(['Hola', 'Quiero pizza']);

      const rows = await db.sql('select id, user_id from ai_conversations where agent_id = ? and status = ?', [B, 'active']);
      expect(rows.filter((r) => r.user_id === USERS.customer)).toHaveLength(1);
      const log = await events(m1.conversation_id);
      expect(log.map((e) => e.type)).toEqual(['conversation.created', 'message.created', 'message.created']);
      expect(log[1].data).toEqual(m1);
      expect(log[0].data).toMatchObject({ id: m1.conversation_id, status: 'active', user_id: USERS.customer, messages_count: 0 });
    });

    it('opens a new conversation after the current one is closed', async () => {
      const first = (await post(path, { content: 'one' }, { key: KEYS.admin })).json().result;
      expect((await post(`/ai/conversations/${first.conversation_id}/close`, { status_reason: 'completed' })).statusCode).toBe(200);
      const next = await post(path, { content: 'two' }, { key: KEYS.admin });
      expect(next.statusCode).toBe(200);
      expect(next.json().result.conversation_id).not.toBe(first.conversation_id);
    });

    it('keeps one active conversation under concurrent first messages', async () => {
      const answers = await Promise.all(Array.from({ length: 8 }, (_, n) => post(path, { content: `c${n}` }, { key: KEYS.owner })));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(8).fill(200));
      const ids = new Set(answers.map((a) => a.json().result.conversation_id));
      expect(ids.size).toBe(1);
      const [id] = [...ids];
      expect((await events(id)).filter((e) => e.type === 'conversation.created')).toHaveLength(1);
      expect(await db.sql('select count(*)::int as n from ai_messages where conversation_id = ?', [id])).toEqual([{ n: 8 }]);
    });

    it('answers 404 for an unknown agent, 409 for a disabled one, 401 anonymous, 400 for bad content', async () => {
      const unknown = await post('/ai/agents/nobody/conversations/current/messages', { content: 'x' }, { key: KEYS.customer });
      expect([unknown.statusCode, unknown.json().code]).toEqual([404, 'ERROR_AI_AGENT_NOT_FOUND']);
      const off = await post('/ai/agents/w-off/conversations/current/messages', { content: 'x' }, { key: KEYS.customer });
      expect(off.statusCode).toBe(409);
      expect(off.json().result).toMatchObject({ agent_id: 1, reason: 'AGENT_DISABLED' });
      expect(await db.sql('select count(*)::int as n from ai_messages where conversation_id = 5')).toEqual([{ n: 0 }]);
      expect((await post(path, { content: 'x' }, {})).statusCode).toBe(401);
      for (const body of [{}, { content: '' }, { content: 'x'.repeat(4001) }, { content: 12 }, { content: ['x'] }, { content: null }]) {
        const res = await post(path, body, { key: KEYS.customer });
        expect([res.statusCode, res.json().code], JSON.stringify(body).slice(0, 40)).toEqual([400, 'ERROR_VALIDATION']);
        expect(res.json().result.join(' ')).toContain('content');
      }
      expect((await post(path, { content: '😀'.repeat(4000) }, { key: KEYS.customer })).statusCode).toBe(200);
    });
  });

  describe('POST /ai/conversations/{id}/messages', () => {
    it('adds the usage members the messages carry, and only those', async () => {
      const before = (await db.sql<{ updated_at: Date }>('select updated_at from ai_conversations where id = ?', [B]))[0].updated_at;
      const m1 = await addMessage(B, { role: 'assistant', content: 'Hi', usage: { cost: 0.1, input_tokens: 10, response_time_ms: 100 } });
      expect(m1.statusCode).toBe(200);
      expect(m1.json().result).toMatchObject({
        conversation_id: B,
        role: 'assistant',
        public: true,
        usage: { cost: 0.1, input_tokens: 10, response_time_ms: 100 },
      });
      expect(Object.keys(m1.json().result.usage).sort()).toEqual(['cost', 'input_tokens', 'response_time_ms']);
      const m2 = await addMessage(B, {
        role: 'tool',
        content: 'lookup',
        public: false,
        usage: { cost: 0.2, output_tokens: 5, response_time_ms: 201 },
      });
      expect(m2.json().result).toMatchObject({ public: false, usage: { cost: 0.2, output_tokens: 5, response_time_ms: 201 } });
      const m3 = await addMessage(B, { role: 'user', content: 'thanks' });
      expect(m3.json().result.usage).toBeNull();
      const m4 = await addMessage(B, { role: 'system', content: 'empty usage', usage: {} });
      expect(m4.json().result.usage).toEqual({});

      const c = (await t.api({ path: `/ai/conversations/${B}`, key: KEYS.server })).json().result;
      // 0.1 + 0.2 exactly; the mean of 100 and 201 is 150.5, rounded half up
      expect(c.usage).toEqual({ cost: 0.3, input_tokens: 10, output_tokens: 5, response_time_ms: 151 });
      expect(c.messages_count).toBe(4);
      expect(new Date(c.updated_at).getTime()).toBeGreaterThan(new Date(before).getTime());

      const log = await events(B);
      expect(log.map((e) => [e.type, e.public])).toEqual([
        ['message.created', true],
        ['message.created', false],
        ['message.created', true],
        ['message.created', true],
      ]);
      expect(log[1].data).toEqual(m2.json().result);
    });

    it('averages the response time over every message that carries one, fixture messages included', async () => {
      const res = await addMessage(B + 5, { role: 'assistant', content: 'x', usage: { response_time_ms: 101, cost: 0.5 } });
      expect(res.statusCode).toBe(200);
      const [row] = await db.sql<{ usage: unknown }>('select usage from ai_conversations where id = ?', [B + 5]);
      expect(row.usage).toEqual({ cost: 1.75, response_time_ms: 201 }); // (300 + 101) / 2 = 200.5 → 201
    });

    it('accepts usage as JSON text (the SDK form)', async () => {
      const res = await addMessage(B + 1, { role: 'assistant', content: 'sdk', usage: '{"input_tokens":3}' });
      expect(res.statusCode).toBe(200);
      expect(res.json().result.usage).toEqual({ input_tokens: 3 });
    });

    it.each([
      ['unknown role', { role: 'robot', content: 'x' }, 'role'],
      ['missing role', { content: 'x' }, 'role'],
      ['missing content', { role: 'user' }, 'content'],
      ['empty content', { role: 'user', content: '' }, 'content'],
      ['content over 32,000', { role: 'user', content: 'x'.repeat(32001) }, 'content'],
      ['a number as content', { role: 'user', content: 5 }, 'content'],
      ['a string as public', { role: 'user', content: 'x', public: 'true' }, 'public'],
      ['1 as public', { role: 'user', content: 'x', public: 1 }, 'public'],
      ['negative tokens', { role: 'user', content: 'x', usage: { input_tokens: -1 } }, 'usage.input_tokens'],
      ['fractional tokens', { role: 'user', content: 'x', usage: { output_tokens: 1.5 } }, 'usage.output_tokens'],
      ['fractional response time', { role: 'user', content: 'x', usage: { response_time_ms: 0.5 } }, 'usage.response_time_ms'],
      ['negative cost', { role: 'user', content: 'x', usage: { cost: -0.01 } }, 'usage.cost'],
      ['a string cost', { role: 'user', content: 'x', usage: { cost: '1' } }, 'usage.cost'],
      ['usage as an array', { role: 'user', content: 'x', usage: [1] }, 'usage'],
      ['usage as plain text', { role: 'user', content: 'x', usage: 'cheap' }, 'usage'],
      ['an array body', [{ role: 'user', content: 'x' }], 'body'],
    ])('refuses %s with 400 ERROR_VALIDATION naming the field', async (_name, body, field) => {
      const res = await addMessage(B + 1, body);
      expect([res.statusCode, res.json().code]).toEqual([400, 'ERROR_VALIDATION']);
      expect(res.json().result.join(' ')).toContain(field);
    });

    it('refuses a malformed body', async () => {
      const res = await t.api({
        method: 'POST',
        path: `/ai/conversations/${B + 1}/messages`,
        key: KEYS.server,
        headers: { 'content-type': 'application/json' },
        body: '{"role":',
      });
      expect([res.statusCode, res.json().code]).toEqual([400, 'ERROR_VALIDATION']);
    });

    it('answers not found for unknown, foreign and other-business conversations, closed for closed ones', async () => {
      const body = { role: 'user', content: 'x' };
      for (const id of [999999, 101, '99999999999', '0']) {
        const res = await addMessage(id, body);
        expect([res.statusCode, res.json().code], String(id)).toEqual([400, 'ERROR_AI_CONVERSATION_NOT_FOUND']);
      }
      const owner = await addMessage(B + 4, body, { key: KEYS.owner });
      expect([owner.statusCode, owner.json().code]).toEqual([400, 'ERROR_AI_CONVERSATION_NOT_FOUND']);
      expect((await addMessage(B + 1, body, { key: KEYS.owner })).statusCode).toBe(200);
      expect((await addMessage(B + 4, body, { key: KEYS.admin })).statusCode).toBe(200);
      const customer = await addMessage(B + 1, body, { key: KEYS.customer });
      expect([customer.statusCode, customer.json().code]).toEqual([401, 'ERROR_UNAUTHORIZED']);
      const closed = await post(`/ai/conversations/${B + 3}/messages`, body, { key: KEYS.server }, 'es');
      expect([closed.statusCode, closed.json().code]).toEqual([400, 'ERROR_AI_CONVERSATION_CLOSED']);
      expect(closed.json().result).toEqual(['La conversación está cerrada.']);
      expect(await db.sql('select count(*)::int as n from ai_messages where conversation_id in (?, ?, ?)', [B + 3, B + 4, 101])).toEqual([
        { n: 1 },
      ]);
    });

    it('serialises concurrent messages of one conversation (no usage lost)', async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => addMessage(B + 1, { role: 'assistant', content: 'c', usage: { input_tokens: 1, cost: 0.01 } })),
      );
      expect(answers.every((a) => a.statusCode === 200)).toBe(true);
      const [row] = await db.sql<{ usage: any }>('select usage from ai_conversations where id = ?', [B + 1]);
      expect(row.usage.input_tokens).toBe(23); // 3 from the SDK case above + 20
      expect(row.usage.cost).toBe(0.2);
    });

    it('keeps the mean response time exact under concurrent messages of one conversation', async () => {
      // each write is one statement that waits on the conversation's lock: the mean must count every
      // message committed while it waited (a scan in the statement's snapshot would miss them)
      const [before] = await db.sql<{ n: string; total: string }>(
        `select count(usage->>'response_time_ms') n, coalesce(sum((usage->>'response_time_ms')::numeric), 0) total
           from ai_messages where conversation_id = ?`,
        [B],
      );
      const times = Array.from({ length: 20 }, (_, k) => 100 + 7 * k);
      const answers = await Promise.all(
        times.map((t) => addMessage(B, { role: 'assistant', content: 'rt', usage: { response_time_ms: t } })),
      );
      expect(answers.map((a) => a.statusCode)).toEqual(times.map(() => 200));
      const [row] = await db.sql<{ usage: any; response_time_count: string }>(
        'select usage, response_time_count from ai_conversations where id = ?',
        [B],
      );
      const n = Number(before.n) + times.length;
      const total = Number(before.total) + times.reduce((a, b) => a + b, 0);
      expect(Number(row.response_time_count)).toBe(n);
      expect(row.usage.response_time_ms).toBe(Math.round(total / n));
    });
  });

  describe('POST /ai/conversations/{id}/close', () => {
    it('closes once with the reason, answers the record with messages_count, emits conversation.closed', async () => {
      const res = await post(`/ai/conversations/${B + 2}/close`, { status_reason: 'failed' });
      expect(res.statusCode).toBe(200);
      const c = res.json().result;
      expect(c).toMatchObject({ id: B + 2, status: 'closed', status_reason: 'failed', messages_count: 1 });
      expect(c.closed_at).not.toBeNull();
      const again = await post(`/ai/conversations/${B + 2}/close`, { status_reason: 'completed' });
      expect([again.statusCode, again.json().code]).toEqual([400, 'ERROR_AI_CONVERSATION_CLOSED']);
      const log = await events(B + 2);
      expect(log.map((e) => e.type)).toEqual(['conversation.closed']);
      // events are shared by every caller: they carry no caller's unread_count (CONTRACT §10.5)
      const { unread_count: _unread, ...shared } = c;
      expect(log[0].data).toEqual(shared);
      const [row] = await db.sql<{ status_reason: string }>('select status_reason from ai_conversations where id = ?', [B + 2]);
      expect(row.status_reason).toBe('failed');
    });

    it('refuses bad reasons, foreign conversations and callers below level 2', async () => {
      for (const body of [{}, { status_reason: 'done' }, { status_reason: 1 }, { status_reason: null }]) {
        const res = await post(`/ai/conversations/${B + 4}/close`, body);
        expect([res.statusCode, res.json().code]).toEqual([400, 'ERROR_VALIDATION']);
      }
      // no body at all (no content type, or JSON's with nothing in it) is a missing status_reason (CONTRACT §9.1)
      for (const headers of [{}, { 'content-type': 'application/json' }] as Record<string, string>[]) {
        const res = await t.api({ method: 'POST', path: `/ai/conversations/${B + 4}/close`, key: KEYS.server, headers });
        expect([res.statusCode, res.json().code]).toEqual([400, 'ERROR_VALIDATION']);
        expect(JSON.stringify(res.json().result)).toContain('status_reason');
      }
      const foreign = await post('/ai/conversations/101/close', { status_reason: 'completed' });
      expect([foreign.statusCode, foreign.json().code]).toEqual([400, 'ERROR_AI_CONVERSATION_NOT_FOUND']);
      const owner = await post(`/ai/conversations/${B + 4}/close`, { status_reason: 'completed' }, { key: KEYS.owner });
      expect([owner.statusCode, owner.json().code]).toEqual([400, 'ERROR_AI_CONVERSATION_NOT_FOUND']);
      expect((await post(`/ai/conversations/${B + 4}/close`, { status_reason: 'completed' }, { key: KEYS.customer })).statusCode).toBe(401);
      const [row] = await db.sql<{ status: string }>('select status from ai_conversations where id = ?', [B + 4]);
      expect(row.status).toBe('active');
    });
  });

  it('the graph has the same mutations', async () => {
    // /graphql lives at the root, not under the project
    const root = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server },
      payload: { query: `mutation { addAiConversationMessage(conversation_id: ${B + 1}, role: "robot", content: "x") { id } }` },
    });
    expect(root.json().errors[0].extensions.code).toBe('ERROR_VALIDATION');
    const ok = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server },
      payload: {
        query: `mutation { addAiConversationMessage(conversation_id: ${B + 1}, role: "user", content: "graph", usage: {cost: 1}) { content usage } }`,
      },
    });
    expect(ok.json().data.addAiConversationMessage).toEqual({ content: 'graph', usage: { cost: 1 } });
  });

  it('metrics follow the writes: chats and performance', async () => {
    const path = `/ai/agents/w-metrics-${engine}/conversations/current/messages`;
    const metrics = async (name: string) =>
      (await t.api({ path: `/ai/metrics/${name}`, key: KEYS.server, query: { business_id: '1' } })).json().result;
    const chats0 = await metrics('chats');
    const opened = (await post(path, { content: 'metrics' })).json().result;
    const chats1 = await metrics('chats');
    expect(chats1.total_chats.current).toBe(chats0.total_chats.current + 1);
    expect(chats1.active_chats.current).toBe(chats0.active_chats.current + 1);

    const perf0 = await metrics('performance');
    await addMessage(opened.conversation_id, { role: 'assistant', content: 'x', usage: { cost: 2, response_time_ms: 40 } });
    const perf1 = await metrics('performance');
    const n = chats1.total_chats.current;
    const costSum0 = perf0.average_cost.current * n;
    expect(perf1.average_cost.current).toBeCloseTo((costSum0 + 2) / n, 1);

    await post(`/ai/conversations/${opened.conversation_id}/close`, { status_reason: 'completed' });
    const chats2 = await metrics('chats');
    expect(chats2.completed_chats.current).toBe(chats1.completed_chats.current + 1);
    expect(chats2.active_chats.current).toBe(chats1.active_chats.current - 1);
  });
});
