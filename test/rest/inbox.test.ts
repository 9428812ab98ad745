import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS, USERS } from '../support/fixtures.js';
import { FILL_UNREAD_COUNTS } from '../../src/db/migrations/Migration20261128059000_unread_counts.js';

/**
 * An inbox a busy counter can keep up with (CONTRACT §10.5): last_message_at, the caller's unread_count and
 * POST .../seen, the sort and filters (unread, assignee_id "me"), and q over contact and message content.
 * Both engines share the database: each uses its own agent and conversations (ids from B).
 */
const agent = (id: number, ext: string, business_id: number) => ({
  id,
  business_id,
  name: `Agent ${ext}`,
  provider: 'web',
  provider_type: 'chat',
  provider_external_id: ext,
  enabled: true,
});
const base = (i: number) => 10 + i * 20;
const conversation = (id: number, agentId: number, created: string, extra: Record<string, unknown> = {}) => ({
  id,
  agent_id: agentId,
  user_id: null,
  business_id: 1,
  status: 'active',
  usage: {},
  created_at: created,
  ...extra,
});
const message = (id: number, conversationId: number, role: string, content: string, at: string) => ({
  id,
  conversation_id: conversationId,
  role,
  content,
  public: true,
  created_at: at,
});
// Per engine: B two user messages (Nov 2), B+1 none (created Nov 3), B+2 the rider (Nov 4), B+3 business 2 (Nov 5).
const CONVERSATIONS = ENGINES.flatMap((_, i) => {
  const B = base(i);
  return [
    conversation(B, B, '2026-11-01T12:00:00Z', { contact: `3460000${B}01` }),
    conversation(B + 1, B, '2026-11-03T12:00:00Z', { contact: `3460000${B}02` }),
    conversation(B + 2, B, '2026-11-01T12:00:00Z', { contact: `3460011${B}22` }),
    conversation(B + 3, B + 1, '2026-11-01T12:00:00Z', { business_id: 2, contact: `3460000${B}04` }),
  ];
});
const MESSAGES = ENGINES.flatMap((_, i) => {
  const B = base(i);
  const m = B * 10;
  return [
    message(m, B, 'user', 'Una margherita, por favor', '2026-11-02T10:00:00Z'),
    message(m + 1, B, 'assistant', 'Claro, ¿algo más?', '2026-11-02T10:01:00Z'),
    message(m + 2, B, 'user', 'Nada más, 100% seguro_ok', '2026-11-02T10:05:00Z'),
    message(m + 3, B + 2, 'user', 'The rider is at the WRONG door!!', '2026-11-04T09:00:00Z'),
    message(m + 4, B + 3, 'user', 'wrong door at Norte', '2026-11-05T09:00:00Z'),
  ];
});

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: ENGINES.flatMap((e, i) => [agent(base(i), `in-${e}`, 1), agent(base(i) + 1, `in2-${e}`, 2)]),
    conversations: CONVERSATIONS,
    messages: MESSAGES,
  });
  fixture.projects[1].agents = [agent(101, 'in-other', 101)];
  fixture.projects[1].conversations = [conversation(101, 101, '2026-11-01T12:00:00Z', { business_id: 101, contact: '34600999999' })];
  fixture.projects[1].messages = [message(1001, 101, 'user', 'wrong door in another project', '2026-11-06T09:00:00Z')];
  await db.load(fixture);
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('inbox API of §10.5 (%s)', (engine) => {
  const B = base(ENGINES.indexOf(engine));
  const mine = [B, B + 1, B + 2, B + 3];
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t?.close());

  /** The conversations list restricted to this engine's agents, as ids. */
  const list = async (query: Record<string, string>, key = KEYS.server) => {
    const res = await t.api({ path: '/ai/conversations', key, query: { page_size: '100', ...query } });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().result as { id: number; unread_count: number; last_message_at: string }[]).filter((c) => mine.includes(c.id));
  };
  const ids = async (query: Record<string, string>, key = KEYS.server) => (await list(query, key)).map((c) => c.id);
  const seen = (id: number, body: unknown, key = KEYS.server) => t.api({ method: 'POST', path: `/ai/conversations/${id}/seen`, key, body });

  it('last_message_at: the newest message, else created_at; the list sorts by it; a new message moves it', async () => {
    const rows = await list({ orderBy: '-last_message_at' });
    expect(rows.map((c) => [c.id, c.last_message_at])).toEqual([
      [B + 3, '2026-11-05T09:00:00.000Z'],
      [B + 2, '2026-11-04T09:00:00.000Z'],
      [B + 1, '2026-11-03T12:00:00.000Z'],
      [B, '2026-11-02T10:05:00.000Z'],
    ]);
    // params selects it; a conversation's own read has it too
    const one = await t.api({ path: `/ai/conversations/${B}`, key: KEYS.server, query: { params: 'last_message_at,unread_count' } });
    expect(one.json().result).toEqual({ id: B, last_message_at: '2026-11-02T10:05:00.000Z', unread_count: 2, messages_count: 3 });
    // a message written now rises its conversation to the top
    const added = await t.api({
      method: 'POST',
      path: `/ai/conversations/${B}/messages`,
      key: KEYS.server,
      body: { role: 'system', content: 'note' },
    });
    expect(added.statusCode, added.body).toBe(200);
    const after = await list({ orderBy: '-last_message_at' });
    expect(after[0]).toMatchObject({ id: B, last_message_at: added.json().result.created_at });
  });

  it("unread_count is the caller's: user messages after its seen mark, which only moves forward", async () => {
    expect((await list({ orderBy: 'id' })).map((c) => [c.id, c.unread_count])).toEqual([
      [B, 2],
      [B + 1, 0],
      [B + 2, 1],
      [B + 3, 1],
    ]);
    // the first message seen: one unread left; the newest (no message_id): none
    const first = await seen(B, { message_id: B * 10 });
    expect([first.statusCode, first.json()]).toEqual([200, { error: false, result: { unread_count: 1 } }]);
    const all = await seen(B, {});
    expect(all.json().result).toEqual({ unread_count: 0 });
    // back to an older message: the mark stays
    expect((await seen(B, { message_id: B * 10 })).json().result).toEqual({ unread_count: 0 });
    // per caller: the administrator's key (a user) and the owner still have theirs
    expect((await list({ where: JSON.stringify({ id: B }) }, KEYS.admin))[0].unread_count).toBe(2);
    expect((await list({ where: JSON.stringify({ id: B }) }, KEYS.owner))[0].unread_count).toBe(2);
    expect((await list({ where: JSON.stringify({ id: B }) }))[0].unread_count).toBe(0);
    // the filter and the sort
    expect(await ids({ where: JSON.stringify({ unread: true }), orderBy: 'id' })).toEqual([B + 2, B + 3]);
    expect(await ids({ where: JSON.stringify({ unread: false }), orderBy: 'id' })).toEqual([B, B + 1]);
    expect(await ids({ where: JSON.stringify([{ attribute: 'unread_count', value: { condition: '>=', value: 1 } }]) })).toEqual([
      B + 2,
      B + 3,
    ]);
    expect((await list({ orderBy: '-unread_count,id' }, KEYS.admin)).map((c) => c.id)).toEqual([B, B + 2, B + 3, B + 1]);
    // a new inbound user message is unread again
    await t.api({ method: 'POST', path: `/ai/conversations/${B}/messages`, key: KEYS.server, body: { role: 'user', content: 'Hola?' } });
    expect((await list({ where: JSON.stringify({ id: B }) }))[0].unread_count).toBe(1);
    // a message of another conversation, or none at all: 400 naming message_id; nothing emitted by seen
    const events = async () => (await db.sql<{ n: number }>('select count(*)::int n from ai_events where conversation_id = ?', [B]))[0].n;
    const before = await events();
    const foreign = await seen(B, { message_id: B * 10 + 3 });
    expect([foreign.statusCode, foreign.json().code]).toEqual([400, 'ERROR_VALIDATION']);
    expect(foreign.json().result.join(' ')).toContain('message_id');
    const bad = await seen(B, { message_id: 'x' });
    expect([bad.statusCode, bad.json().code]).toEqual([400, 'ERROR_VALIDATION']);
    expect(await events()).toBe(before);
  });

  it('params selects last_message (the preview): the newest message, one query for the page', async () => {
    const res = await t.api({
      path: '/ai/conversations',
      key: KEYS.owner,
      query: { params: 'last_message.content,last_message.role', orderBy: 'id', where: JSON.stringify({ id: [B + 1, B + 2] }) },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().result).toEqual([
      { id: B + 1, messages_count: 0, last_message: null },
      { id: B + 2, messages_count: 1, last_message: { id: B * 10 + 3, role: 'user', content: 'The rider is at the WRONG door!!' } },
    ]);
  });

  it('seen: levels 0/2 and server keys, on conversations they can see', async () => {
    const owner2 = await seen(B + 3, {}, KEYS.owner);
    expect([owner2.statusCode, owner2.json().code]).toEqual([400, 'ERROR_AI_CONVERSATION_NOT_FOUND']);
    const customer = await seen(B, {}, KEYS.customer);
    expect(customer.statusCode).toBe(401);
    const other = await t.api({ method: 'POST', path: `/ai/conversations/${B}/seen`, project: 'other', key: KEYS.otherServer, body: {} });
    expect([other.statusCode, other.json().code]).toEqual([400, 'ERROR_AI_CONVERSATION_NOT_FOUND']);
    expect((await seen(B + 2, {}, KEYS.owner)).json().result).toEqual({ unread_count: 0 });
  });

  it('assignee_id "me": the calling user; nothing for a server key', async () => {
    const taken = await t.api({ method: 'POST', path: `/ai/conversations/${B + 1}/handoff`, key: KEYS.admin, body: { handler: 'human' } });
    expect(taken.json().result.assignee_id).toBe(USERS.admin);
    expect(await ids({ where: JSON.stringify({ assignee_id: 'me' }) }, KEYS.admin)).toEqual([B + 1]);
    expect(
      await ids({ where: JSON.stringify([{ attribute: 'assignee_id', value: { condition: 'in', value: ['me'] } }]) }, KEYS.admin),
    ).toEqual([B + 1]);
    expect(await ids({ where: JSON.stringify({ assignee_id: 'me' }) }, KEYS.owner)).toEqual([]);
    expect(await ids({ where: JSON.stringify({ assignee_id: 'me' }) })).toEqual([]);
    const wrong = await t.api({ path: '/ai/conversations', key: KEYS.admin, query: { where: JSON.stringify({ assignee_id: 'you' }) } });
    expect(wrong.statusCode).toBe(400);
  });

  it('q: contact or any message content contains it, case-insensitively, literally; scoped like the list', async () => {
    expect(await ids({ q: 'wrong DOOR' })).toEqual([B + 2, B + 3]);
    expect(await ids({ q: `0011${B}` })).toEqual([B + 2]);
    expect(await ids({ q: 'MARGHERITA' })).toEqual([B]);
    // % and _ are the characters themselves, not wildcards
    expect(await ids({ q: '100%' })).toEqual([B]);
    expect(await ids({ q: 'a_m' })).toEqual([]);
    expect(await ids({ q: 'seguro_ok' })).toEqual([B]);
    expect(await ids({ q: '\\' })).toEqual([]);
    // a level-2 owner finds only their businesses'; the other project's message is never found
    expect(await ids({ q: 'wrong door' }, KEYS.owner)).toEqual([B + 2]);
    const all = await t.api({ path: '/ai/conversations', key: KEYS.server, query: { q: 'another project', page_size: '100' } });
    expect(all.json().result).toEqual([]);
    // with the sort and the pagination: the total is the matches'
    const paged = await t.api({
      path: '/ai/conversations',
      key: KEYS.owner,
      query: { q: 'o', orderBy: '-last_message_at', page_size: '1' },
    });
    expect(paged.statusCode, paged.body).toBe(200);
    expect(paged.json().pagination.total).toBeGreaterThanOrEqual(2);
  });

  it("q: the total is the matches', with or without other filters; a message written now is found at once", async () => {
    const page = async (query: Record<string, string>) => {
      const res = await t.api({ path: '/ai/conversations', key: KEYS.server, query: { page_size: '100', ...query } });
      expect(res.statusCode, res.body).toBe(200);
      return { ids: (res.json().result as { id: number }[]).map((c) => c.id), total: res.json().pagination.total as number };
    };
    // both engines' conversations B+2 and B+3 hold "wrong door"; the other project's never counts
    const plain = await page({ q: 'Wrong Door' });
    expect(plain.ids.filter((id) => mine.includes(id)).sort()).toEqual([B + 2, B + 3]);
    expect(plain.total).toBe(plain.ids.length);
    const filtered = await page({ q: 'Wrong Door', where: JSON.stringify({ business_id: 2 }) });
    expect(filtered.ids.filter((id) => mine.includes(id))).toEqual([B + 3]);
    expect(filtered.total).toBe(filtered.ids.length);
    expect(filtered.total).toBeLessThan(plain.total);
    // a message written through the API is searchable in the same instant, by any case of its text
    const word = `Zebra-${engine}-ÑANDÚ`;
    const added = await t.api({
      method: 'POST',
      path: `/ai/conversations/${B + 1}/messages`,
      key: KEYS.server,
      body: { role: 'user', content: word },
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(await page({ q: word.toLowerCase() })).toEqual({ ids: [B + 1], total: 1 });
  });

  it('q: a word in thousands of conversations gives the page in last-activity order and the exact total', async () => {
    // 2,100 conversations of this engine's agent (past the 2,000 read by id), each with one message holding the word
    const word = `broadword${engine}`;
    const [{ id: project }] = await db.sql<{ id: number }>('select project_id as id from ai_conversations where id = ?', [B]);
    const made = await db.sql<{ id: number }>(
      `insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, created_at)
       select ?, ?, case when g % 3 = 0 then 2 else 1 end, '3461' || lpad(g::text, 6, '0') || ?, 'active', '{}', '2026-10-01T00:00:00Z'
         from generate_series(1, 2100) g returning id`,
      [project, B, String(B)],
    );
    const [first, last] = [Math.min(...made.map((r) => r.id)), Math.max(...made.map((r) => r.id))];
    await db.sql(
      `insert into ai_messages (project_id, conversation_id, role, content, public, created_at)
       select ?, c.id, 'user', 'Quiero ' || upper(?) || ' n' || c.id, true, timestamptz '2026-10-02T00:00:00Z' + (c.id - ?) * interval '1 minute'
         from ai_conversations c where c.id between ? and ? and c.created_at = '2026-10-01T00:00:00Z'`,
      [project, word, made[0].id, first, last],
    );
    const newest = [...made.map((r) => r.id)].sort((a, b) => b - a).slice(0, 5);
    const res = await t.api({
      path: '/ai/conversations',
      key: KEYS.server,
      query: { q: word, orderBy: '-last_message_at', page_size: '5' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect([res.json().result.map((c: { id: number }) => c.id), res.json().pagination.total]).toEqual([newest, 2100]);
    // a page near the start is walked in order, one past 600 conversations reads the hashed search: the same order
    const byActivity = [...made.map((r) => r.id)].sort((a, b) => b - a);
    for (const page of [6, 7]) {
      const deep = await t.api({
        path: '/ai/conversations',
        key: KEYS.server,
        query: { q: word, orderBy: '-last_message_at', page: String(page), page_size: '100', params: 'id' },
      });
      expect(deep.statusCode, deep.body).toBe(200);
      expect(deep.json().result.map((c: { id: number }) => c.id)).toEqual(byActivity.slice((page - 1) * 100, page * 100));
    }
    // with another filter the total is counted under it: business 2 holds every third
    const two = await t.api({
      path: '/ai/conversations',
      key: KEYS.server,
      query: { q: word, where: JSON.stringify({ business_id: 2 }), page: '2', page_size: '100' },
    });
    expect(two.statusCode, two.body).toBe(200);
    expect([two.json().pagination.total, two.json().result.length]).toEqual([700, 100]);
    await db.sql(`delete from ai_conversations where id between ? and ? and created_at = '2026-10-01T00:00:00Z'`, [first, last]);
  });

  it('q: 1 to 100 characters, else 400 naming q (es too)', async () => {
    for (const q of ['', 'x'.repeat(101), 'a\u0000b']) {
      const res = await t.api({ path: '/ai/conversations', key: KEYS.server, query: { q } });
      expect([res.statusCode, res.json().code], q).toEqual([400, 'ERROR_VALIDATION']);
      expect(res.json().result.join(' ')).toContain('q');
    }
    const es = await t.api({ path: '/ai/conversations', key: KEYS.server, lang: 'es', query: { q: 'x'.repeat(101) } });
    expect(es.json().result.join(' ')).toMatch(/campo q/);
    expect((await t.api({ path: '/ai/conversations', key: KEYS.server, query: { q: '€'.repeat(100) } })).statusCode).toBe(200);
  });

  it('unread_count read from the stored counts: as counted before after user messages, notes, marks, per viewer', async () => {
    // two conversations of this engine's own (X, Y), written over the API
    const [X, Y] = [B + 5, B + 6];
    for (const id of [X, Y])
      await db.sql(
        `insert into ai_conversations (id, project_id, agent_id, business_id, contact, status, usage, created_at)
         select ?, id, ?, 1, ?, 'active', '{}', '2026-11-01T12:00:00Z' from projects where code = 'acme'`,
        [id, B, `3469900${id}`],
      );
    const post = async (id: number, body: Record<string, unknown>) => {
      const res = await t.api({ method: 'POST', path: `/ai/conversations/${id}/messages`, key: KEYS.server, body });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().result.id as number;
    };
    const counts = async (key: string, where: unknown = { id: [X, Y] }) => {
      const query = { where: JSON.stringify(where), orderBy: '-unread_count,id', page_size: '100' };
      const res = await t.api({ path: '/ai/conversations', key, query });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().result as { id: number; unread_count: number }[])
        .filter((c) => [X, Y].includes(c.id))
        .map((c) => [c.id, c.unread_count]);
    };
    // the stored counts equal the messages counted, for every conversation and mark of the database
    const consistent = async () =>
      expect(
        await db.sql<{ n: number }>(
          `select (select count(*) from ai_conversations c where c.user_messages <>
                    (select count(*) from ai_messages m where m.conversation_id = c.id and m.role = 'user'))
                + (select count(*) from ai_conversation_seen s where s.user_messages <>
                    (select count(*) from ai_messages m where m.conversation_id = s.conversation_id and m.role = 'user' and m.id <= s.message_id))
                  as n`,
        ),
      ).toEqual([{ n: 0 }]);
    const first = await post(X, { role: 'user', content: 'hola' });
    await post(X, { role: 'assistant', content: 'hola, ¿qué desea?' });
    await post(X, { role: 'user', content: 'una pizza', public: false });
    await post(Y, { role: 'user', content: 'buenas' });
    expect(await counts(KEYS.server)).toEqual([
      [X, 2],
      [Y, 1],
    ]);
    // a seen mark: X ties Y (then id), then falls below it; the other viewer keeps its own count and order
    expect((await seen(X, { message_id: first })).json().result).toEqual({ unread_count: 1 });
    expect(await counts(KEYS.server)).toEqual([
      [X, 1],
      [Y, 1],
    ]);
    expect((await seen(X, {})).json().result).toEqual({ unread_count: 0 });
    expect(await counts(KEYS.server)).toEqual([
      [Y, 1],
      [X, 0],
    ]);
    expect(await counts(KEYS.admin)).toEqual([
      [X, 2],
      [Y, 1],
    ]);
    // a note, a non-public assistant message, a tool message: no user message, no change
    await post(X, { role: 'system', content: 'note: VIP', public: false });
    await post(X, { role: 'assistant', content: 'internal', public: false });
    await post(X, { role: 'tool', content: '{}' });
    expect(await counts(KEYS.server)).toEqual([
      [Y, 1],
      [X, 0],
    ]);
    // a new user message: unread again for every viewer
    await post(X, { role: 'user', content: '¿y la bebida?' });
    expect(await counts(KEYS.server)).toEqual([
      [X, 1],
      [Y, 1],
    ]);
    expect(await counts(KEYS.admin)).toEqual([
      [X, 3],
      [Y, 1],
    ]);
    // the other viewer's mark, back to an older message for this one (it stays), the filter
    expect((await seen(X, { message_id: first }, KEYS.admin)).json().result).toEqual({ unread_count: 2 });
    expect((await seen(X, { message_id: first })).json().result).toEqual({ unread_count: 1 });
    expect(await counts(KEYS.admin)).toEqual([
      [X, 2],
      [Y, 1],
    ]);
    expect(await counts(KEYS.admin, [{ attribute: 'unread_count', value: { condition: '>=', value: 2 } }])).toEqual([[X, 2]]);
    const one = await t.api({ path: `/ai/conversations/${X}`, key: KEYS.owner, query: { params: 'unread_count' } });
    expect(one.json().result).toMatchObject({ id: X, unread_count: 3 });
    await consistent();
    // the migration's fill gives the same counts back from the messages alone
    await db.sql('update ai_conversations set user_messages = 7');
    await db.sql('update ai_conversation_seen set user_messages = 7');
    for (const statement of FILL_UNREAD_COUNTS) await db.sql(statement);
    await consistent();
    expect(await counts(KEYS.admin)).toEqual([
      [X, 2],
      [Y, 1],
    ]);
  });

  it('the graph: q, the fields and the seen mutation', async () => {
    const gql = (query: string) =>
      t.app.inject({ method: 'POST', url: '/graphql', headers: { 'x-api-key': KEYS.admin }, payload: { query } });
    const res = await gql(`{ aiConversations(q: "rider", page_size: 100) { items { id last_message_at unread_count } } }`);
    expect(res.statusCode, res.body).toBe(200);
    const found = (res.json().data.aiConversations.items as { id: number }[]).filter((c) => mine.includes(c.id));
    expect(found).toEqual([{ id: B + 2, last_message_at: '2026-11-04T09:00:00.000Z', unread_count: 1 }]);
    const marked = await gql(`mutation { markAiConversationSeen(conversation_id: ${B + 2}) { unread_count } }`);
    expect(marked.json().data.markAiConversationSeen).toEqual({ unread_count: 0 });
    const tooLong = await gql(`{ aiConversations(q: "${'y'.repeat(101)}") { items { id } } }`);
    expect(tooLong.json().errors[0].extensions.code).toBe('ERROR_VALIDATION');
  });
});
