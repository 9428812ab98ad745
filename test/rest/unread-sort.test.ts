import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * GET /ai/conversations sorted by the caller's unread_count then last_message_at (CONTRACT §10.5), whose first pages
 * are found from the unread index (unmarked conversations) plus the caller's marked ones: every page must be the one
 * the definition gives, computed here from the fixture and the marks.
 */
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute)).toISOString();

/** Conversation c: c % 5 user messages; c and c + 15 tie on user messages and last_message_at (then id decides). */
const IDS = Array.from({ length: 30 }, (_, k) => k + 1);
const HISTORY = [31, 32];
const users = (c: number) => (HISTORY.includes(c) ? 4 : c % 5);
const businessOf = (c: number) => (c % 3 === 0 ? 2 : 1);
const start = (c: number) => (c % 3) * 10;
/** The id of conversation c's k-th user message (1-based). */
const userMessage = (c: number, k: number) => c * 100 + k;
/** Odd conversations with one user message end with an assistant reply (a later last_message_at). */
const replied = (c: number) => c % 5 === 1 && c % 2 === 1;
const lastMessageAt = (c: number) => at(start(c) + users(c) + (replied(c) ? 1 : 0));

const conversation = (id: number, project = 'acme') => ({
  id,
  agent_id: project === 'acme' ? businessOf(id) : 101,
  user_id: null,
  business_id: project === 'acme' ? businessOf(id) : 101,
  status: id % 4 === 0 ? 'closed' : 'active',
  usage: {},
  created_at: at(start(id)),
  contact: `3461000${String(id).padStart(4, '0')}`,
});
const messagesOf = (c: number) => [
  ...Array.from({ length: users(c) }, (_, i) => ({
    id: userMessage(c, i + 1),
    conversation_id: c,
    role: 'user',
    content: `message ${i + 1}`,
    public: true,
    created_at: at(start(c) + i + 1),
  })),
  ...(replied(c)
    ? [{ id: c * 100 + 50, conversation_id: c, role: 'assistant', content: 'ok', public: true, created_at: lastMessageAt(c) }]
    : []),
];
const agent = (id: number, business_id: number) => ({
  id,
  business_id,
  name: `Agent ${id}`,
  provider: 'whatsapp',
  provider_type: 'chat',
  provider_external_id: `unread-${id}`,
  enabled: true,
});

/** Per caller: conversation → the user messages its mark has seen (all of them: unread 0). */
const MARKS: Record<string, Record<number, number>> = {
  [KEYS.server]: { 4: 2, 9: 4, 13: 1, 21: 1, 23: 1, 14: 4 },
  [KEYS.admin]: { 4: 4, 14: 1, 8: 3 },
  [KEYS.owner]: { 1: 1, 8: 2, 19: 4 },
};

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const fixture = baseFixture({
    agents: [agent(1, 1), agent(2, 2)],
    conversations: [...IDS, ...HISTORY].map((c) => conversation(c)),
    messages: [...IDS, ...HISTORY].flatMap(messagesOf),
  });
  // another project's conversation with the most user messages never shows
  fixture.projects[1].agents = [agent(101, 101)];
  fixture.projects[1].conversations = [conversation(101, 'other')];
  fixture.projects[1].messages = Array.from({ length: 4 }, (_, i) => ({ ...messagesOf(24)[i], id: 10100 + i, conversation_id: 101 }));
  await db.load(fixture);
  // imported threads (their messages loaded as live ones: the most unread, were they listed)
  await db.sql(`update ai_conversations set source = 'history' where id in (${HISTORY.join(', ')})`);
});
afterAll(() => db.orm.close());

interface Row {
  id: number;
  unread_count: number;
  last_message_at: string;
}

/** What the list must answer: the caller's visible conversations, by (unread_count, last_message_at, id) as asked. */
function expected(key: string, opts: { keep?: (c: number) => boolean; direction?: 1 | -1; idDirection?: 1 | -1; history?: boolean } = {}) {
  const { keep = () => true, direction = -1, idDirection = 1, history = false } = opts;
  const marks = MARKS[key];
  return [...IDS, ...(history ? HISTORY : [])]
    .filter((c) => (key === KEYS.owner ? businessOf(c) === 1 : true) && keep(c))
    .map((c) => ({ id: c, unread_count: users(c) - (marks[c] ?? 0), last_message_at: lastMessageAt(c) }))
    .sort(
      (a, b) =>
        direction * (a.unread_count - b.unread_count) ||
        direction * a.last_message_at.localeCompare(b.last_message_at) ||
        idDirection * (a.id - b.id),
    );
}

describe.each(ENGINES)('conversations sorted by unread_count (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
    // the marks, over the API (the second engine's are the same marks again: a mark never moves back)
    for (const [key, marks] of Object.entries(MARKS)) {
      for (const [c, seen] of Object.entries(marks)) {
        const res = await t.api({ method: 'POST', path: `/ai/conversations/${c}/seen`, key, body: { message_id: userMessage(+c, seen) } });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().result.unread_count).toBe(users(+c) - seen);
      }
    }
  });
  afterAll(() => t?.close());

  /** Every page of the list at `page_size`, joined, with the total each page gave. */
  const pages = async (key: string, query: Record<string, string>, pageSize = 4) => {
    const rows: Row[] = [];
    const totals = new Set<number>();
    for (let page = 1; ; page++) {
      const res = await t.api({
        path: '/ai/conversations',
        key,
        query: { params: 'unread_count,last_message_at', page_size: String(pageSize), page: String(page), ...query },
      });
      expect(res.statusCode, res.body).toBe(200);
      const { result, pagination } = res.json<{ result: Row[]; pagination: { total: number; total_pages: number } }>();
      rows.push(...result.map(({ id, unread_count, last_message_at }) => ({ id, unread_count, last_message_at })));
      totals.add(pagination.total);
      if (page >= pagination.total_pages) return { rows, totals: [...totals] };
    }
  };

  it('every page in order: unmarked and marked conversations mixed, marks with nothing unread, ties by id', async () => {
    db.queries.length = 0;
    const desc = await pages(KEYS.server, { orderBy: '-unread_count,-last_message_at' });
    const all = expected(KEYS.server);
    expect(desc).toEqual({ rows: all, totals: [30] });
    // the pages were found from the candidates (the unread index's walk and the marks), not by the generic query
    expect(db.queries.filter((q) => /any\(array\(/.test(q)).length).toBeGreaterThanOrEqual(8);
    // the same rows in one page; 7 and 22 tie on both keys (2 unread, minute 12): id decides
    expect((await pages(KEYS.server, { orderBy: '-unread_count,-last_message_at' }, 30)).rows).toEqual(all);
    expect(all.findIndex((r) => r.id === 22)).toBe(all.findIndex((r) => r.id === 7) + 1);
  });

  it('ascending, and ties broken by id descending when named', async () => {
    expect((await pages(KEYS.server, { orderBy: 'unread_count,last_message_at' }, 7)).rows).toEqual(
      expected(KEYS.server, { direction: 1 }),
    );
    expect((await pages(KEYS.server, { orderBy: '-unread_count,-last_message_at,-id' }, 5)).rows).toEqual(
      expected(KEYS.server, { idDirection: -1 }),
    );
  });

  it('with where: columns, unread_count itself and a relation group', async () => {
    const active = await pages(KEYS.server, { orderBy: '-unread_count,-last_message_at', where: '{"status":"active"}' }, 3);
    expect(active.rows).toEqual(expected(KEYS.server, { keep: (c) => c % 4 !== 0 }));
    const unread = await pages(
      KEYS.server,
      {
        orderBy: '-unread_count,-last_message_at',
        where: JSON.stringify([
          { attribute: 'unread_count', value: { condition: '>=', value: 2 } },
          { attribute: 'agent', conditions: [{ attribute: 'business_id', value: 1 }] },
        ]),
      },
      3,
    );
    const marks = MARKS[KEYS.server];
    expect(unread.rows).toEqual(expected(KEYS.server, { keep: (c) => users(c) - (marks[c] ?? 0) >= 2 && businessOf(c) === 1 }));
    expect(unread.totals).toEqual([unread.rows.length]);
    // nothing unread: the marked conversations with the most unread fail the filter, those seen to the end pass it
    const seen = await pages(KEYS.server, { orderBy: '-unread_count,-last_message_at', where: '{"unread_count":0}' }, 2);
    expect(seen.rows).toEqual(expected(KEYS.server, { keep: (c) => users(c) === (marks[c] ?? 0) }));
    expect(seen.rows.slice(0, 2).map((r) => r.id)).toEqual([14, 5]);
  });

  it("each caller's own marks; a level-2 user's businesses only", async () => {
    expect((await pages(KEYS.admin, { orderBy: '-unread_count,-last_message_at' }, 6)).rows).toEqual(expected(KEYS.admin));
    const owner = await pages(KEYS.owner, { orderBy: '-unread_count,-last_message_at' }, 6);
    expect(owner).toEqual({ rows: expected(KEYS.owner), totals: [20] });
  });

  it('imported history is out unless where names source (then the generic query, the same order)', async () => {
    const live = await pages(KEYS.server, { orderBy: '-unread_count,-last_message_at' }, 30);
    expect(live.rows.some((r) => HISTORY.includes(r.id))).toBe(false);
    db.queries.length = 0;
    const where = JSON.stringify([{ attribute: 'source', value: { condition: 'in', value: ['live', 'history'] } }]);
    const both = await pages(KEYS.server, { orderBy: '-unread_count,-last_message_at', where }, 8);
    expect(both).toEqual({ rows: expected(KEYS.server, { history: true }), totals: [32] });
    expect(db.queries.filter((q) => /any\(array\(/.test(q))).toEqual([]);
  });

  it("the total without where: the live conversations in the caller's businesses, as rows are added, moved and deleted", async () => {
    const total = async (key: string) => {
      const res = await t.api({ path: '/ai/conversations', key, query: { page_size: '1', orderBy: '-unread_count,-last_message_at' } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ pagination: { total: number } }>().pagination.total;
    };
    const totals = async () => [await total(KEYS.server), await total(KEYS.owner)];
    expect(await totals()).toEqual([30, 20]);
    await db.sql(
      `insert into ai_conversations (id, project_id, agent_id, business_id, contact, status, usage, source)
       select c.id, p.id, 1, 1, '34610009' || c.id, 'active', '{}', c.source from projects p,
              (values (40, 'live'), (41, 'history')) c (id, source) where p.code = 'acme'`,
    );
    expect(await totals()).toEqual([31, 21]);
    await db.sql('update ai_conversations set business_id = 1 where id = 3');
    expect(await totals()).toEqual([31, 22]);
    // the metrics compactor folds the deltas into the rollups: the same totals
    await db.sql('select metrics_compact_conversations(100000)');
    expect(await totals()).toEqual([31, 22]);
    await db.sql('delete from ai_conversations where id in (40, 41)');
    await db.sql('update ai_conversations set business_id = 2 where id = 3');
    expect(await totals()).toEqual([30, 20]);
  });

  it('a page past the walked ones: the generic query, the same total', async () => {
    const res = await t.api({
      path: '/ai/conversations',
      key: KEYS.server,
      query: { orderBy: '-unread_count,-last_message_at', page: '200', page_size: '10' },
    });
    expect(res.json()).toMatchObject({ result: [], pagination: { total: 30, current_page: 200 } });
  });
});
