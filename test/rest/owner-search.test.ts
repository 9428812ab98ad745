import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { containsPattern, scopedSearchParams, scopedSearchSql } from '../../src/services/conversations/conversation.service.js';

/**
 * CONTRACT §11, fourth review: a business owner learns nothing of other businesses from the conversations list. Its
 * `q` search is scoped first and searched after (scopedSearchSql): the plan's work (every node's rows and loops, and
 * the buffers it reads) is the same whether other businesses hold no match or thousands; its answers and totals are
 * its own; a `where` naming other businesses' ids matches nothing. And `q`'s total counts only the conversations the
 * list shows (history ones only when `where` names `source`). Both engines share the data (read only).
 */
const agent = (id: number, business: number) => ({
  id,
  business_id: business,
  name: `Agent ${id}`,
  provider: 'openai',
  provider_type: 'chat',
  provider_external_id: `owner-search-${id}`,
  enabled: true,
});
const at = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const conversation = (id: number, business: number, contact: string, source = 'live') => ({
  id,
  agent_id: business,
  business_id: business,
  contact,
  status: source === 'history' ? 'closed' : 'active',
  ...(source === 'history' ? { status_reason: 'completed', source } : {}),
  created_at: at(500 - id),
});
const message = (id: number, conversationId: number, content: string) => ({
  id,
  conversation_id: conversationId,
  role: 'user',
  content,
  public: true,
  created_at: at(400 - id / 100),
});

let db: TestDatabase;
let projectId: number;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [agent(1, 1), agent(2, 2)],
      conversations: [
        ...[1, 2, 3, 4, 5].map((i) => conversation(i, 1, `521550000000${i}`)),
        conversation(6, 1, '5215500000006', 'history'),
        conversation(7, 2, '5215500000007'),
      ],
      messages: [
        message(1, 1, 'hola'),
        message(2, 1, 'un queso gorgonzola, por favor'),
        message(3, 2, 'gorgonzola y pan'),
        message(4, 3, 'nada'),
        message(5, 4, 'la cuenta'),
        message(6, 5, 'gracias'),
        // history: matched, never listed without `where` on source, never counted then
        message(7, 6, 'gorgonzola del año pasado'),
        message(8, 7, 'gorgonzola en otra sucursal'),
      ],
    }),
  );
  [{ id: projectId }] = await db.sql<{ id: number }>(`select id from projects where code = 'acme'`);
  await db.sql(`update ai_conversations set source = 'history' where id = 6`);
});
afterAll(() => db.orm.close());

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}
/** Every node of the owner's search plan, run: what it is, on what, how many rows and loops; and the buffers read. */
async function ownerSearchWork(pattern: string) {
  const [row] = await db.sql<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    `explain (analyze, buffers, costs off, timing off, format json) ${scopedSearchSql()}`,
    scopedSearchParams(projectId, [1], pattern),
  );
  const nodes: string[] = [];
  const relations = new Set<string>();
  const walk = (n: PlanNode) => {
    nodes.push(
      `${n['Node Type']} ${n['Relation Name'] ?? ''} ${n['Index Name'] ?? ''} rows=${n['Actual Rows']} loops=${n['Actual Loops']}`,
    );
    if (n['Index Name']) relations.add(n['Index Name']);
    for (const c of n.Plans ?? []) walk(c);
  };
  const plan = row['QUERY PLAN'][0].Plan;
  walk(plan);
  return { nodes, relations, buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'] };
}

/** Other businesses' conversations and messages, as many as `n`, none matching the probe's words yet. */
async function otherBusinesses(n: number) {
  await db.sql(
    `insert into ai_conversations (project_id, agent_id, business_id, contact, contact_name, status, usage, created_at, updated_at)
     select ?, 2, 2, '5219' || lpad(g::text, 9, '0'), 'secret zebra42 ' || g, 'active', '{}', now(), now() from generate_series(1, ?) g`,
    [projectId, n],
  );
  await db.sql(
    `insert into ai_messages (project_id, conversation_id, role, content, public, created_at)
     select ?, c.id, 'user', 'my secret zebra42, roquefort', true, now() from ai_conversations c, generate_series(1, 3)
      where c.project_id = ? and c.business_id = 2 and c.id <> 7`,
    [projectId, projectId],
  );
  await db.sql('vacuum analyze ai_conversations, ai_messages, ai_message_search');
}

/** The same rows now all match (`password zebra42`, `gorgonzola`): what the probe timed, a match anywhere in the project. */
async function otherBusinessesMatch() {
  await db.sql(`update ai_conversations set contact_name = replace(contact_name, 'secret', 'password') where business_id = 2 and id <> 7`);
  await db.sql(`update ai_messages set content = 'my password zebra42, gorgonzola'
                 where conversation_id in (select id from ai_conversations where business_id = 2 and id <> 7)`);
  await db.sql('vacuum analyze ai_conversations, ai_messages, ai_message_search');
}

describe('a business owner searches its own businesses only', () => {
  it("the search plan's work does not depend on other businesses' data (EXPLAIN ANALYZE, BUFFERS)", async () => {
    await otherBusinesses(3000);
    const patterns = [containsPattern('password zebra'), containsPattern('gorgonzola'), containsPattern('5215')];
    const before = [];
    for (const p of patterns) before.push(await ownerSearchWork(p));
    await otherBusinessesMatch();
    const after = [];
    for (const p of patterns) after.push(await ownerSearchWork(p));
    for (const [i, b] of before.entries()) {
      expect(after[i].nodes, patterns[i]).toEqual(b.nodes);
      expect(after[i].buffers, patterns[i]).toBe(b.buffers);
      // no index over the whole project's text (the trigram ones) is asked
      expect(
        [...after[i].relations].filter((r) => r.includes('trgm')),
        patterns[i],
      ).toEqual([]);
    }
    // and every node's rows are the owner's: its five live conversations and their messages at most
    for (const w of after) for (const node of w.nodes) expect(Number(/rows=(\d+)/.exec(node)![1])).toBeLessThanOrEqual(6);
  });
});

describe.each(ENGINES)('the list (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  const list = async (query: Record<string, string>, key: string) => {
    const res = await t.api({ path: '/ai/conversations', key, query: { orderBy: 'id', page_size: '100', ...query } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ result: { id: number }[]; pagination: { total: number } }>();
  };

  it("the owner's answers are its own: q, totals, and a where naming other businesses matches nothing", async () => {
    const found = await list({ q: 'gorgonzola' }, KEYS.owner);
    expect(found.result.map((c) => c.id)).toEqual([1, 2]);
    expect(found.pagination.total).toBe(2);
    const none = await list({ q: 'password zebra' }, KEYS.owner);
    expect(none.result).toEqual([]);
    expect(none.pagination.total).toBe(0);
    expect((await list({ q: 'gorgonzola', page_size: '1', page: '2' }, KEYS.owner)).pagination.total).toBe(2);
    for (const where of [{ business_id: 2 }, { business_id: [2, 3] }, [{ attribute: 'business_id', value: { condition: '>', value: 1 } }]])
      expect((await list({ where: JSON.stringify(where) }, KEYS.owner)).result, JSON.stringify(where)).toEqual([]);
    expect((await list({ where: JSON.stringify({ business_id: [1, 2] }), q: 'gorgonzola' }, KEYS.owner)).result.map((c) => c.id)).toEqual([
      1, 2,
    ]);
    // a condition on the agent relation looks at its businesses' agents only; the unread order is among its own
    const byAgent = [{ attribute: 'agent', conditions: [{ attribute: 'business_id', value: 2 }] }];
    expect((await list({ where: JSON.stringify(byAgent) }, KEYS.owner)).result).toEqual([]);
    const unread = await list({ orderBy: '-unread_count,-last_message_at' }, KEYS.owner);
    expect(unread.result.map((c) => c.id).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(unread.pagination.total).toBe(5);
    // the history conversation when `where` names source
    const history = await list({ q: 'gorgonzola', where: JSON.stringify({ source: 'history' }) }, KEYS.owner);
    expect(history.result.map((c) => c.id)).toEqual([6]);
    expect(history.pagination.total).toBe(1);
  });

  it("q's total counts only the conversations the list shows (history ones left out), for every caller", async () => {
    // only the history conversation matches: no row, and a total of 0 (was 1)
    for (const key of [KEYS.server, KEYS.admin, KEYS.owner])
      expect(await list({ q: 'año pasado' }, key)).toMatchObject({ result: [], pagination: { total: 0 } });
    // the three live ones of the fixture and the other businesses' 3,000 (the first test's), not the history one
    const server = await list({ q: 'gorgonzola' }, KEYS.server);
    expect(server.result.map((c) => c.id).slice(0, 3)).toEqual([1, 2, 7]);
    expect(server.pagination.total).toBe(3 + 3000);
    const few = await list({ q: 'queso gorgonzola' }, KEYS.admin);
    expect(few).toMatchObject({ result: [{ id: 1 }], pagination: { total: 1 } });
  });
});
