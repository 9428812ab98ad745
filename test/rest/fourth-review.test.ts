import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, PASSWORD, USERS } from '../support/fixtures.js';
import { openSse, type SseClient } from '../support/sse.js';

/**
 * CONTRACT §11, fourth review, the counter's side: `where` on `unread_count` and `messages_count` (every operator,
 * `ilike` on the decimal text) and `params=last_message.*` never a 5xx; `assignee_id` an enabled operator who can
 * see the conversation; `GET /ai/operators` enabled users only, a business owner shown only the businesses it shares;
 * `DELETE /auth/session` ends the caller's session (and its streams), nothing else. Both engines.
 */
const U = { disabledAdmin: 7, wes: 8, abe: 9, disabledOwner: 10 };
const agent = (id: number, business: number) => ({
  id,
  business_id: business,
  name: `Agent ${id}`,
  provider: 'openai',
  provider_type: 'chat',
  provider_external_id: `fourth-${id}`,
  enabled: true,
});
const at = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const messages = (conversation: number, first: number, n: number, users: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: first + i,
    conversation_id: conversation,
    role: i < users ? 'user' : 'assistant',
    content: `m${first + i}`,
    public: true,
    created_at: at(100 - i),
  }));

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: [agent(1, 1), agent(2, 2), agent(3, 3)],
    conversations: [
      { id: 1, agent_id: 1, business_id: 1, contact: '5215500000001', status: 'active', created_at: at(200) },
      { id: 2, agent_id: 1, business_id: 1, contact: '5215500000002', status: 'active', created_at: at(200) },
      { id: 3, agent_id: 2, business_id: 2, contact: '5215500000003', status: 'active', created_at: at(200) },
    ],
    // conversation 1: 3 messages, 2 from the customer; 2: 1 message from the customer; 3: 12, all from the customer
    messages: [...messages(1, 100, 3, 2), ...messages(2, 200, 1, 1), ...messages(3, 300, 12, 12)],
  });
  fixture.projects[0].users!.push(
    { id: U.disabledAdmin, name: 'Vera', email: 'vera@acme.test', password: PASSWORD, level: 0, enabled: false },
    { id: U.wes, name: 'Wes', email: 'wes@acme.test', password: PASSWORD, level: 2, business_ids: [1, 2, 3] },
    { id: U.abe, name: 'Abe', email: 'abe@acme.test', password: PASSWORD, level: 0, business_ids: [3] },
    { id: U.disabledOwner, name: 'Xen', email: 'xen@acme.test', password: PASSWORD, level: 2, business_ids: [1], enabled: false },
  );
  await db.load(fixture);
  // the newest message of conversation 1 edited and revoked (as §13.2's changes leave it)
  await db.sql(
    `update ai_messages set edited_at = now(), revoked_at = now(), edits = '[{"content":"m101","edited_at":"2026-11-30T10:00:00.000Z"}]'::jsonb where id = 102`,
  );
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('fourth review, the counter (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  const streams: SseClient[] = [];
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { streams: { perCredential: 20, perProject: 2000, revalidateMs: 400 } } });
    origin = await t.listen();
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await t.close();
  });

  const list = async (query: Record<string, string>, key = KEYS.server) => {
    const res = await t.api({ path: '/ai/conversations', key, query: { page_size: '100', orderBy: 'id', ...query } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ result: Record<string, any>[]; pagination: { total: number } }>();
  };
  const ids = async (where: unknown, key = KEYS.server) => (await list({ where: JSON.stringify(where) }, key)).result.map((c) => c.id);
  const cond = (attribute: string, condition: string, value?: unknown) => [
    { attribute, value: value === undefined ? { condition } : { condition, value } },
  ];

  describe('where on unread_count and messages_count', () => {
    it('unread_count: every operator, ilike on the decimal text (was a 500)', async () => {
      expect(await ids(cond('unread_count', 'ilike', '1%'))).toEqual([2, 3]);
      expect(await ids(cond('unread_count', 'ilike', '%2'))).toEqual([1, 3]);
      expect(await ids(cond('unread_count', '=', 2))).toEqual([1]);
      expect(await ids(cond('unread_count', '!=', 2))).toEqual([2, 3]);
      expect(await ids(cond('unread_count', '<', 2))).toEqual([2]);
      expect(await ids(cond('unread_count', '<=', 2))).toEqual([1, 2]);
      expect(await ids(cond('unread_count', '>', 2))).toEqual([3]);
      expect(await ids(cond('unread_count', '>=', 2))).toEqual([1, 3]);
      expect(await ids(cond('unread_count', 'in', [1, 12]))).toEqual([2, 3]);
      expect(await ids(cond('unread_count', 'null'))).toEqual([]);
      expect(await ids(cond('unread_count', 'not_null'))).toEqual([1, 2, 3]);
    });

    it('messages_count: every operator, ilike on the decimal text; sortable', async () => {
      expect(await ids({ messages_count: 3 })).toEqual([1]);
      expect(await ids(cond('messages_count', 'ilike', '1_'))).toEqual([3]);
      expect(await ids(cond('messages_count', 'ilike', '%'))).toEqual([1, 2, 3]);
      expect(await ids(cond('messages_count', '!=', 3))).toEqual([2, 3]);
      expect(await ids(cond('messages_count', '<', 3))).toEqual([2]);
      expect(await ids(cond('messages_count', '<=', 3))).toEqual([1, 2]);
      expect(await ids(cond('messages_count', '>', 3))).toEqual([3]);
      expect(await ids(cond('messages_count', '>=', 3))).toEqual([1, 3]);
      expect(await ids(cond('messages_count', 'in', [1, 12]))).toEqual([2, 3]);
      expect(await ids(cond('messages_count', 'null'))).toEqual([]);
      expect(await ids(cond('messages_count', 'not_null'))).toEqual([1, 2, 3]);
      const sorted = await list({ orderBy: '-messages_count' });
      expect(sorted.result.map((c) => [c.id, c.messages_count])).toEqual([
        [3, 12],
        [1, 3],
        [2, 1],
      ]);
      // a value that is no integer is the usual 400, not a 500
      const bad = await t.api({ path: '/ai/conversations', key: KEYS.server, query: { where: JSON.stringify({ messages_count: 'x' }) } });
      expect(bad.statusCode).toBe(400);
    });

    it('the same through /graphql', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json', 'x-api-key': KEYS.server },
        payload: {
          query: 'query($where: JSON) { aiConversations(where: $where, orderBy: "id") { items { id } pagination { total } } }',
          variables: { where: [...cond('unread_count', 'ilike', '1%'), ...cond('messages_count', 'ilike', '1%')] },
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ data: { aiConversations: { items: [{ id: 2 }, { id: 3 }], pagination: { total: 2 } } } });
    });
  });

  describe('params=last_message.*', () => {
    const MEMBERS = [
      'author_id',
      'content',
      'conversation_id',
      'created_at',
      'delivery_error',
      'delivery_status',
      'edited_at',
      'edits',
      'external_id',
      'id',
      'payload',
      'public',
      'referral',
      'reply_to_id',
      'revoked_at',
      'role',
      'source',
      'type',
      'usage',
    ];
    it('every member selectable, an edited and revoked message included (edited_at, revoked_at were a 500)', async () => {
      for (const member of ['edited_at', 'revoked_at']) {
        const res = await list({ params: `id,last_message.${member}` });
        expect(res.result.find((c) => c.id === 1)!.last_message[member]).toMatch(/^\d{4}-\d{2}-\d{2}T/);
        expect(res.result.find((c) => c.id === 2)!.last_message[member]).toBeNull();
      }
      const all = await list({ params: ['id', ...MEMBERS.map((m) => `last_message.${m}`)].join(',') });
      const first = all.result.find((c) => c.id === 1)!;
      expect(Object.keys(first.last_message).sort()).toEqual(MEMBERS);
      expect(first.last_message).toMatchObject({ id: 102, conversation_id: 1, content: 'm102', role: 'assistant' });
      expect(first.last_message.edits).toEqual([{ content: 'm101', edited_at: '2026-11-30T10:00:00.000Z' }]);
      // one conversation too
      const one = await t.api({
        path: '/ai/conversations/1',
        key: KEYS.server,
        query: { params: 'id,last_message.edited_at,last_message.revoked_at' },
      });
      expect(one.statusCode, one.body).toBe(200);
    });
  });

  describe('assignee_id of a handoff', () => {
    const handoff = (assignee: number, conversation = 1, key = KEYS.server) =>
      t.api({ method: 'POST', path: `/ai/conversations/${conversation}/handoff`, key, body: { handler: 'human', assignee_id: assignee } });
    it.each([
      ['a disabled administrator', U.disabledAdmin],
      ['a disabled owner of the business', U.disabledOwner],
      ['an owner of another business', USERS.owner2],
      ['a customer', USERS.customer],
      ['a user of no one', 999],
    ])('%s: 400 naming assignee_id, nothing changes', async (_name, assignee) => {
      const before = (await db.sql('select handler, assignee_id from ai_conversations where id = 1'))[0];
      const res = await handoff(assignee);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().code).toBe('ERROR_VALIDATION');
      expect(JSON.stringify(res.json().result)).toContain('assignee_id');
      expect((await db.sql('select handler, assignee_id from ai_conversations where id = 1'))[0]).toEqual(before);
    });
    it('an enabled administrator, or an enabled owner of the business, is assigned', async () => {
      for (const assignee of [USERS.admin, U.abe, U.wes, USERS.owner]) {
        const res = await handoff(assignee);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().result).toMatchObject({ handler: 'human', assignee_id: assignee });
      }
      // Olga (business 1) is no assignee of business 2's conversation; Wes is
      expect((await handoff(USERS.owner, 3)).statusCode).toBe(400);
      expect((await handoff(U.wes, 3)).statusCode).toBe(200);
      await t.api({ method: 'POST', path: '/ai/conversations/1/handoff', key: KEYS.server, body: { handler: 'ai' } });
      await t.api({ method: 'POST', path: '/ai/conversations/3/handoff', key: KEYS.server, body: { handler: 'ai' } });
    });
  });

  describe('GET /ai/operators', () => {
    it('enabled users only; administrators with business_ids []', async () => {
      const res = await t.api({ path: '/ai/operators', key: KEYS.server });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().result).toEqual([
        { id: U.abe, name: 'Abe', level: 0, business_ids: [] },
        { id: USERS.admin, name: 'Ada', level: 0, business_ids: [] },
        { id: USERS.owner, name: 'Olga', level: 2, business_ids: [1] },
        { id: USERS.owner2, name: 'Otto', level: 2, business_ids: [2] },
        { id: U.wes, name: 'Wes', level: 2, business_ids: [1, 2, 3] },
      ]);
    });
    it('a business owner sees the administrators (assignable, §10.2) and each colleague with only the businesses they share', async () => {
      const res = await t.api({ path: '/ai/operators', key: KEYS.owner });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().result).toEqual([
        { id: U.abe, name: 'Abe', level: 0, business_ids: [] },
        { id: USERS.admin, name: 'Ada', level: 0, business_ids: [] },
        { id: USERS.owner, name: 'Olga', level: 2, business_ids: [1] },
        { id: U.wes, name: 'Wes', level: 2, business_ids: [1] },
      ]);
    });
  });

  describe('DELETE /auth/session', () => {
    const signIn = async (email = 'owner@acme.test') => {
      const res = await t.api({ method: 'POST', path: '/auth', body: { email, password: PASSWORD } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().result.session.access_token as string;
    };
    const signOut = (headers: Record<string, string>) => t.api({ method: 'DELETE', path: '/auth/session', headers });
    const reads = async (token: string) => (await t.api({ path: '/ai/conversations', token })).statusCode;

    it("ends the caller's session: 200 true, then 401 everywhere (REST, /graphql, streams); the user's other sessions go on", async () => {
      const [a, b] = [await signIn(), await signIn()];
      expect(await reads(a)).toBe(200);
      const stream = await openSse(`${origin}/v400/en/acme/ai/events`, { authorization: `Bearer ${a}` });
      const other = await openSse(`${origin}/v400/en/acme/ai/events`, { authorization: `Bearer ${b}` });
      streams.push(stream, other);
      expect(stream.status).toBe(200);

      const res = await signOut({ authorization: `Bearer ${a}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ error: false, result: true });
      const ended = Date.now();
      // at once in this process: REST, the graph, another sign-out
      expect(await reads(a)).toBe(401);
      const graph = await t.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${a}` },
        payload: { query: '{ __typename }' },
      });
      expect(graph.statusCode).toBe(401);
      expect((await signOut({ authorization: `Bearer ${a}` })).statusCode).toBe(401);
      // its stream ends (the re-validation, 400 ms here; 60 s at most), the other session's goes on
      await Promise.race([stream.closed, new Promise((r) => setTimeout(r, 5000))]);
      expect(stream.ended).toBe(true);
      expect(Date.now() - ended).toBeLessThan(5000);
      expect(other.ended).toBe(false);
      expect(await reads(b)).toBe(200);
      expect((await signOut({ authorization: `Bearer ${b}` })).statusCode).toBe(200);
    });

    it('an API key, a server key or no credential is 401, and ends nothing', async () => {
      const token = await signIn();
      const credentials: Record<string, string>[] = [{ 'x-api-key': KEYS.owner }, { 'x-api-key': KEYS.server }, {}];
      for (const headers of credentials) {
        const res = await signOut(headers);
        expect(res.statusCode, JSON.stringify(headers)).toBe(401);
        expect(res.json()).toMatchObject({ error: true, code: 'ERROR_UNAUTHORIZED' });
      }
      expect(await reads(token)).toBe(200);
      // a customer's session ends the same way
      const customer = await signIn('customer@acme.test');
      expect((await signOut({ authorization: `Bearer ${customer}` })).statusCode).toBe(200);
      expect((await t.api({ path: '/ai/agents/fourth-1/conversations/current', token: customer })).statusCode).toBe(401);
    });
  });
});
