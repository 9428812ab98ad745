import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEQUENCER_LOCK_CLASS } from '../../src/services/events/event-log.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';
import { until } from '../support/webhook-receiver.js';

/**
 * Coalesced message writes (issue 69, docs/write-batches.md): concurrent writes of a project share one
 * transaction (rows of one transaction share their `xmin`), and each still gets its own answer, its own
 * events in order (CONTRACT §9.4, §10.1), its own refusal or failure, and its idempotent replay (§9.2).
 */
const base = (i: number) => 100 + i * 100;
// Per engine: base+0..base+9 active, base+10 closed, base+20 the ordered one, base+30..39 the failures', base+40..49 idempotency's.
const conversation = (id: number, agentId: number, extra: Record<string, unknown> = {}) => ({
  id,
  agent_id: agentId,
  user_id: null,
  contact: `b${id}`,
  business_id: 1,
  status: 'active',
  usage: {},
  created_at: '2026-12-01T12:00:00Z',
  ...extra,
});
const ids = (from: number, n: number) => Array.from({ length: n }, (_, k) => from + k);
const AGENTS = ENGINES.flatMap((e, i) => [
  {
    id: base(i),
    business_id: 1,
    name: `Batch ${e}`,
    provider: 'web',
    provider_type: 'chat',
    provider_external_id: `batch-${e}`,
    enabled: true,
  },
  // base+1: a WhatsApp agent whose contacts (base+50..59) have active conversations
  {
    id: base(i) + 1,
    business_id: 1,
    name: `Batch WA ${e}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `batch-wa-${e}`,
    enabled: true,
    credentials: { phone_number_id: `pn-batch-${e}`, access_token: 't', app_secret: `secret-batch-${e}`, verify_token: 'v' },
  },
]);
const contactOf = (id: number) => `5255000${id}`;
const CONVERSATIONS = ENGINES.flatMap((_, i) => [
  ...[...ids(base(i), 10), base(i) + 20, ...ids(base(i) + 30, 10), ...ids(base(i) + 40, 10)].map((id) => conversation(id, base(i))),
  conversation(base(i) + 10, base(i), { status: 'closed', status_reason: 'completed', closed_at: '2026-12-01T13:00:00Z' }),
  ...ids(base(i) + 50, 10).map((id) => conversation(id, base(i) + 1, { contact: contactOf(id) })),
]);
const MESSAGES = ENGINES.map((_, i) => ({
  id: base(i),
  conversation_id: base(i) + 30,
  role: 'user',
  content: 'to answer',
  public: true,
  created_at: '2026-12-01T12:01:00Z',
}));
const REFUSED = 'refused by the database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ agents: AGENTS, conversations: CONVERSATIONS, messages: MESSAGES }));
  // a real constraint a row can break inside a batch (validation lets this content through)
  await db.sql(`alter table ai_messages add constraint batch_test_refused check (content <> '${REFUSED}') not valid`);
});
afterAll(async () => {
  await db.sql('alter table ai_messages drop constraint if exists batch_test_refused');
  await db.orm.close();
});

/** How many transactions wrote these messages. */
const transactions = async (messageIds: number[]) =>
  (
    await db.sql<{ n: number }>('select count(distinct xmin::text)::int as n from ai_messages where id = any(array[?]::int[])', [
      messageIds,
    ])
  )[0].n;
const messageEvents = (conversationIds: number[]) =>
  db.sql<{ id: string; conversation_id: number; data: any }>(
    `select id, conversation_id, data from ai_events where type = 'message.created' and conversation_id = any(array[?]::int[]) order by id`,
    [conversationIds],
  );

describe.each(ENGINES)('coalesced message writes (%s)', (engine) => {
  const B = base(ENGINES.indexOf(engine));
  let t: TestApp;
  const addMessage = (id: number, body: unknown, headers: Record<string, string> = {}) =>
    t.api({ method: 'POST', path: `/ai/conversations/${id}/messages`, body, key: KEYS.server, headers });

  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  it('50 concurrent writes, one to a closed conversation: 49 stored with their events in order, one 400', async () => {
    const targets = Array.from({ length: 50 }, (_, n) => (n === 23 ? B + 10 : B + (n % 10)));
    const answers = await Promise.all(targets.map((id, n) => addMessage(id, { role: 'assistant', content: `m${n}`, usage: { cost: 1 } })));
    expect(answers.map((a) => a.statusCode)).toEqual(targets.map((id) => (id === B + 10 ? 400 : 200)));
    expect(answers[23].json().code).toBe('ERROR_AI_CONVERSATION_CLOSED');
    const stored = answers.filter((a) => a.statusCode === 200).map((a) => a.json().result);
    expect(stored.map((m) => m.content)).toEqual(targets.flatMap((id, n) => (id === B + 10 ? [] : [`m${n}`])));
    expect(await transactions(stored.map((m) => m.id))).toBeLessThan(49);

    const log = await messageEvents([...ids(B, 11)]);
    expectAnswersLogged(log, stored);
    for (const id of ids(B, 10)) {
      const mine = log.filter((e) => e.conversation_id === id).map((e) => e.data.id);
      expect(mine).toEqual([...mine].sort((a, b) => a - b));
      const usage = (await db.sql<{ usage: any }>('select usage from ai_conversations where id = ?', [id]))[0].usage;
      expect(usage).toEqual({ cost: targets.filter((c) => c === id).length });
    }
    expect(await db.sql('select count(*)::int as n from ai_messages where conversation_id = ?', [B + 10])).toEqual([{ n: 0 }]);
  });

  it('a batch commits while the one before it waits for its sequencer pass; answers and events keep their order', async () => {
    const [{ project_id }] = await db.sql<{ project_id: number }>('select project_id from ai_conversations where id = ?', [B]);
    const stored = async (content: string) =>
      (await db.sql<{ n: number }>('select count(*)::int as n from ai_messages where content = ?', [content]))[0].n === 1;
    const locker = new pg.Client({ connectionString: db.directUrl });
    await locker.connect();
    const lock = [SEQUENCER_LOCK_CLASS, project_id];
    let first, second;
    try {
      // the project's sequencer lock held here: a committed batch's pass (and so its answer) waits for it
      await locker.query('select pg_advisory_lock($1, $2)', lock);
      first = addMessage(B + 1, { role: 'assistant', content: `${engine} before the pass` });
      await until(() => stored(`${engine} before the pass`), 10_000, 'the first write committed');
      second = addMessage(B + 2, { role: 'assistant', content: `${engine} while it waits` });
      await until(() => stored(`${engine} while it waits`), 10_000, 'the next batch committed during the first pass');
    } finally {
      await locker.query('select pg_advisory_unlock($1, $2)', lock);
      await locker.end();
    }
    const answers = await Promise.all([first, second]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    const log = await messageEvents([B + 1, B + 2]);
    expect(log.slice(-2).map((e) => e.data.id)).toEqual(answers.map((a) => a.json().result.id));
  });

  it('keeps the order of writes to one conversation from 10 clients', async () => {
    const client = async (c: number) => {
      const mine: number[] = [];
      for (let n = 0; n < 10; n++) {
        const res = await addMessage(B + 20, { role: 'assistant', content: `c${c}-${n}`, usage: { cost: 0.25, response_time_ms: c } });
        expect(res.statusCode).toBe(200);
        mine.push(res.json().result.id);
      }
      return mine;
    };
    const sent = await Promise.all(Array.from({ length: 10 }, (_, c) => client(c)));
    for (const mine of sent) expect(mine).toEqual([...mine].sort((a, b) => a - b));
    const all = sent.flat();
    expect(await transactions(all)).toBeLessThan(100);
    const log = await messageEvents([B + 20]);
    // the conversation's events in the order of its messages, each client's in the order it sent them
    expect(log.map((e) => e.data.id)).toEqual([...all].sort((a, b) => a - b));
    for (const [c, mine] of sent.entries()) {
      expect(log.filter((e) => e.data.content.startsWith(`c${c}-`)).map((e) => e.data.content)).toEqual(mine.map((_, n) => `c${c}-${n}`));
    }
    const [row] = await db.sql<{ usage: any }>('select usage from ai_conversations where id = ?', [B + 20]);
    // 0.25 × 100 exactly; the mean of 10 × (0..9) is 4.5, half up
    expect(row.usage).toEqual({ cost: 25, response_time_ms: 5 });
  });

  it('a row the database refuses fails alone, in either kind of write; the others are stored', async () => {
    const writes = Array.from({ length: 20 }, (_, n) => ({
      id: B + 30 + (n % 10),
      body: {
        role: 'assistant',
        content: n === 7 || n === 12 ? REFUSED : `f${n}`,
        // two name a message (the write of several statements, under its savepoint); the refused 12th too
        ...(n % 2 === 0 && n % 10 === 0 ? { reply_to_id: B } : {}),
      },
    }));
    writes[12].id = B + 30;
    Object.assign(writes[12].body, { reply_to_id: B });
    const answers = await Promise.all(writes.map((w) => addMessage(w.id, w.body)));
    expect(answers.map((a) => a.statusCode)).toEqual(writes.map((_, n) => (n === 7 || n === 12 ? 500 : 200)));
    const stored = answers.filter((a) => a.statusCode === 200).map((a) => a.json().result);
    expect(stored).toHaveLength(18);
    expect(stored.filter((m) => m.reply_to_id === B)).toHaveLength(2);
    expect(await transactions(stored.map((m) => m.id))).toBeLessThan(18);
    const rows = await db.sql<{ id: number }>(
      'select id from ai_messages where conversation_id = any(array[?]::int[]) and id <> ? order by id',
      [ids(B + 30, 10), B],
    );
    expect(rows.map((r) => r.id)).toEqual(stored.map((m) => m.id).sort((a, b) => a - b));
    const log = await messageEvents(ids(B + 30, 10));
    expectAnswersLogged(log, stored);
  });

  it('replays idempotent writes under batching: one row each, the kept answers again', async () => {
    const request = (n: number) =>
      addMessage(B + 40 + (n % 10), { role: 'assistant', content: `i${n}` }, { 'idempotency-key': `batch-${engine}-${n}` });
    const first = await Promise.all(Array.from({ length: 30 }, (_, n) => request(n)));
    expect(first.map((a) => a.statusCode)).toEqual(Array(30).fill(200));
    expect(await transactions(first.map((a) => a.json().result.id))).toBeLessThan(30);
    // the same keys again, concurrently, twice each: nothing runs again
    const again = await Promise.all(Array.from({ length: 60 }, (_, k) => request(k % 30)));
    expect(again.map((a) => [a.statusCode, a.headers['idempotent-replayed']])).toEqual(Array(60).fill([200, 'true']));
    expect(again.map((a) => a.json().result)).toEqual([...first, ...first].map((a) => a.json().result));
    expect(
      await db.sql('select count(*)::int as n from ai_messages where conversation_id = any(array[?]::int[])', [ids(B + 40, 10)]),
    ).toEqual([{ n: 30 }]);
    expect(await messageEvents(ids(B + 40, 10))).toHaveLength(30);
  });

  it('coalesces the current-conversation writes too', async () => {
    const path = `/ai/agents/batch-${engine}/conversations/current/messages`;
    const opened = await t.api({ method: 'POST', path, body: { content: 'first' }, key: KEYS.customer });
    expect(opened.statusCode).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => t.api({ method: 'POST', path, body: { content: `u${n}` }, key: KEYS.customer })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    const stored = answers.map((a) => a.json().result);
    expect(new Set(stored.map((m) => m.conversation_id))).toEqual(new Set([opened.json().result.conversation_id]));
    expect(await transactions(stored.map((m) => m.id))).toBeLessThan(20);
    const log = await messageEvents([opened.json().result.conversation_id]);
    expect(log.map((e) => e.data)).toEqual([opened.json().result, ...stored].sort((a, b) => a.id - b.id));
  });
});

describe.each(ENGINES)('coalesced inbound WhatsApp messages (%s)', (engine) => {
  const B = base(ENGINES.indexOf(engine));
  let t: TestApp;
  let meta: MetaWebhooks;

  beforeAll(async () => {
    t = await startApp(engine, db);
    meta = new MetaWebhooks(`${await t.listen()}/v400/en/acme/ai/webhooks/whatsapp`);
  });
  afterAll(() => t.close());

  it('concurrent deliveries into active conversations share commits; a retried id is stored once', async () => {
    const wamid = (n: number) => `wamid.batch.${engine}.${n}`;
    const deliver = (n: number) =>
      meta.post(
        MetaWebhooks.notification(`pn-batch-${engine}`, {
          messages: [{ id: wamid(n), from: contactOf(B + 50 + (n % 10)), text: `in${n}` }],
        }),
        `secret-batch-${engine}`,
      );
    // delivery 0 twice at once, as Meta retries
    const answers = await Promise.all([...Array.from({ length: 30 }, (_, n) => deliver(n)), deliver(0)]);
    expect(answers.map((a) => a.status)).toEqual(Array(31).fill(200));
    expect(answers.reduce((sum, a) => sum + (a.body as { result: { messages: number } }).result.messages, 0)).toBe(30);
    const stored = await db.sql<{ id: number; content: string; conversation_id: number }>(
      'select id, content, conversation_id from ai_messages where conversation_id = any(array[?]::int[]) order by id',
      [ids(B + 50, 10)],
    );
    expect(stored.map((m) => m.content).sort()).toEqual(Array.from({ length: 30 }, (_, n) => `in${n}`).sort());
    for (const m of stored) expect(m.conversation_id).toBe(B + 50 + (Number(m.content.slice(2)) % 10));
    expect(await transactions(stored.map((m) => m.id))).toBeLessThan(30);
    const log = await messageEvents(ids(B + 50, 10));
    expect(log.map((e) => e.data.id)).toEqual(stored.map((m) => m.id));
  });
});

/** Every stored answer has exactly one message.created, whose data is the answer. */
function expectAnswersLogged(log: { data: { id: number } }[], stored: { id: number }[]): void {
  expect(log.map((e) => e.data.id).sort((a, b) => a - b)).toEqual(stored.map((m) => m.id).sort((a, b) => a - b));
  for (const e of log) expect(e.data).toEqual(stored.find((m) => m.id === e.data.id));
}
