import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { until } from '../support/webhook-receiver.js';
import { MetaWebhooks } from '../support/whatsapp-fake.js';
import { loadConfig } from '../../src/config.js';
import { HistoryImporter } from '../../src/workers/history-importer.js';

/**
 * CONTRACT §13.4 (the phone's address book) and §13.3 (the phone's history) over a real socket and
 * a real database, under both engines (each engine its own agent). Bodies are signed as Meta signs them.
 */
const base = (e: number) => 560 + e * 10;
const secret = (id: number) => `app-secret-${id}`;
const creds = (id: number) => ({
  waba_id: `waba${id}`,
  phone_number_id: `pn${id}`,
  access_token: `token-${id}`,
  app_secret: secret(id),
  verify_token: `verify-${id}`,
});
let seq = 0;
const wamid = (tag: string) => `wamid.${tag}.${process.pid}.${++seq}`;
const phoneNo = () => `52156${String(Date.now() % 1e6).padStart(6, '0')}${String(++seq).padStart(3, '0')}`;
const now = () => String(Math.floor(Date.now() / 1000));

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  const agents = [0, 1].map((e) => ({
    id: base(e) + 1,
    business_id: 1,
    name: `WA ${base(e) + 1}`,
    provider: 'whatsapp',
    provider_type: 'chat',
    provider_external_id: `wa-${base(e) + 1}`,
    enabled: true,
    credentials: creds(base(e) + 1),
  }));
  await db.load(baseFixture({ agents }));
});
afterAll(() => db.orm.close());

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
/** An importer of this test's database, configured from `env` as `serve` would be, polling every `pollMs`. */
const startImporter = (env: Record<string, string>, pollMs: number) =>
  new HistoryImporter({ orm: db.orm, config: { ...loadConfig(env).historyImport, pollMs }, log: quiet }).start();

describe.each(ENGINES.map((engine, e) => [engine, e] as const))('the phone (%s)', (engine, e) => {
  const AGENT = base(e) + 1;
  let t: TestApp;
  let meta: MetaWebhooks;
  let importer: HistoryImporter;
  let off: () => void;
  beforeAll(async () => {
    t = await startApp(engine, db);
    meta = new MetaWebhooks(`${await t.listen()}/v400/en/acme/ai/webhooks/whatsapp`);
    importer = startImporter({}, 100);
    off = t.services.events.onWork((kind) => (kind === null || kind === 'history' ? importer.wake() : undefined));
  });
  afterAll(async () => {
    off();
    await importer.stop();
    await t.close();
  });

  const change = (field: string, value: Record<string, unknown>) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: `waba${AGENT}`,
        changes: [{ field, value: { messaging_product: 'whatsapp', metadata: { phone_number_id: `pn${AGENT}` }, ...value } }],
      },
    ],
  });
  const inbound = (phone: string, profile: string, body = 'hola') =>
    meta.post(
      change('messages', {
        contacts: [{ wa_id: phone, profile: { name: profile } }],
        messages: [{ id: wamid('in'), from: phone, timestamp: now(), type: 'text', text: { body } }],
      }),
      secret(AGENT),
    );
  const book = (items: unknown[]) => meta.post(change('smb_app_state_sync', { state_sync: items }), secret(AGENT));
  const contact = (action: 'add' | 'remove', phone: string, at: number, names: Record<string, string> = {}) => ({
    type: 'contact',
    contact: { phone_number: phone, ...names },
    action,
    metadata: { timestamp: String(at) },
  });
  const namesOf = async (phone: string) =>
    (
      await db.sql<{ contact_name: string | null }>(
        'select contact_name from ai_conversations where agent_id = ? and contact = ? order by id',
        [AGENT, phone],
      )
    ).map((r) => r.contact_name);
  const listed = async (phone: string) =>
    (await t.api({ path: '/ai/conversations', query: { q: phone, orderBy: 'id', page_size: '100' }, key: KEYS.server }))
      .json()
      .result.map((c: { contact_name: string | null }) => c.contact_name);

  describe('§13.4 the address book', () => {
    it("the business's name wins over profile.name, on old and new conversations; remove falls back to the newest profile.name", async () => {
      const phone = phoneNo();
      const t0 = Math.floor(Date.now() / 1000);
      await inbound(phone, 'Lu');
      const [first] = await db.sql<{ id: number }>('select id from ai_conversations where agent_id = ? and contact = ?', [AGENT, phone]);
      await db.sql(`update ai_conversations set status = 'closed', status_reason = 'completed', closed_at = now() where id = ?`, [
        first.id,
      ]);
      await inbound(phone, 'Lucy');
      expect(await namesOf(phone)).toEqual(['Lu', 'Lucy']);

      const added = await book([contact('add', phone, t0, { full_name: 'Lucía Pérez', first_name: 'Lucía' })]);
      expect(added.status).toBe(200);
      expect(await namesOf(phone)).toEqual(['Lucía Pérez', 'Lucía Pérez']);
      expect(await listed(phone)).toEqual(['Lucía Pérez', 'Lucía Pérez']);

      // a delivery keeps the business's name; a new conversation opens with it
      await inbound(phone, 'Lucy Two');
      expect(await namesOf(phone)).toEqual(['Lucía Pérez', 'Lucía Pérez']);
      await db.sql(
        `update ai_conversations set status = 'closed', status_reason = 'completed', closed_at = now() where agent_id = ? and contact = ?`,
        [AGENT, phone],
      );
      await inbound(phone, 'Lucy Three');
      expect(await namesOf(phone)).toEqual(['Lucía Pérez', 'Lucía Pérez', 'Lucía Pérez']);

      // only first_name: recorded
      await book([contact('add', phone, t0 + 1, { first_name: 'Lucía' })]);
      expect(await namesOf(phone)).toEqual(['Lucía', 'Lucía', 'Lucía']);

      // remove: each conversation's newest profile.name
      await book([contact('remove', phone, t0 + 2)]);
      expect(await namesOf(phone)).toEqual(['Lu', 'Lucy Two', 'Lucy Three']);
      await inbound(phone, 'Lucy Four');
      expect(await namesOf(phone)).toEqual(['Lu', 'Lucy Two', 'Lucy Four']);
    });

    it('a change older than the recorded one changes nothing (an add after a newer remove, too)', async () => {
      const phone = phoneNo();
      const t0 = Math.floor(Date.now() / 1000);
      await inbound(phone, 'Pepe');
      await book([contact('add', phone, t0 + 10, { full_name: 'José (viernes)' })]);
      await book([contact('add', phone, t0 + 5, { full_name: 'José viejo' })]);
      expect(await namesOf(phone)).toEqual(['José (viernes)']);
      await book([contact('remove', phone, t0 + 20)]);
      expect(await namesOf(phone)).toEqual(['Pepe']);
      await book([contact('add', phone, t0 + 15, { full_name: 'José otra vez' })]);
      expect(await namesOf(phone)).toEqual(['Pepe']);
      // the same timestamp applies (an edit in the same second)
      await book([contact('add', phone, t0 + 20, { full_name: 'José' })]);
      expect(await namesOf(phone)).toEqual(['José']);
    });

    it('a name recorded before any conversation names the first one; unusable items are skipped, not a 500', async () => {
      const phone = phoneNo();
      const res = await book([
        contact('add', phone, Number(now()), { full_name: 'Marta' }),
        { type: 'contact', contact: { phone_number: 'x' }, action: 'add', metadata: { timestamp: now() } },
        { type: 'contact', contact: { phone_number: phone, full_name: 'Nope' }, action: 'add' },
        'junk',
      ]);
      expect(res.status).toBe(200);
      await inbound(phone, 'marta_99');
      expect(await namesOf(phone)).toEqual(['Marta']);
      const [row] = await db.sql<{ profile_name: string }>('select profile_name from ai_conversations where agent_id = ? and contact = ?', [
        AGENT,
        phone,
      ]);
      expect(row.profile_name).toBe('marta_99');
    });
  });

  describe('§13.3 the history', () => {
    const BUSINESS = '15550001111';
    const history = (chunks: unknown[]) =>
      meta.post(
        change('history', { metadata: { phone_number_id: `pn${AGENT}`, display_phone_number: '+1 555-000-1111' }, history: chunks }),
        secret(AGENT),
      );
    const imported = () =>
      until(
        async () => {
          const [row] = await db.sql<{ n: number }>(
            `select count(*)::int as n from ai_history_chunks where agent_id = ? and status = 'pending'`,
            [AGENT],
          );
          return row.n === 0;
        },
        10_000,
        'the import to finish',
      );
    const agentHistory = async () =>
      (await t.api({ path: `/ai/agents/${AGENT}`, key: KEYS.server })).json().result.history as Record<string, unknown> | null;
    const T = Math.floor(Date.now() / 1000);
    const hoursAgo = (h: number) => String(T - h * 3600);
    const fromCustomer = (id: string, phone: string, at: string, body: string) => ({
      id,
      from: phone,
      timestamp: at,
      type: 'text',
      text: { body },
    });
    const fromBusiness = (id: string, phone: string, at: string, body: string, status = 'READ') => ({
      id,
      from: BUSINESS,
      to: phone,
      timestamp: at,
      type: 'text',
      text: { body },
      history_context: { status },
    });
    // one day for every reading, so that two readings compare the same series even across midnight
    const day = new Date().toISOString().slice(0, 10);
    const metricsNow = async () => {
      const q = { business_id: '1' };
      const out: Record<string, unknown> = {};
      for (const name of ['chats', 'performance', 'overview', 'agents'])
        out[name] = (await t.api({ path: `/ai/metrics/${name}`, key: KEYS.server, query: q })).json().result;
      out.series = (
        await t.api({
          path: '/ai/metrics/series',
          key: KEYS.server,
          query: { ...q, metric: 'conversations', group_by: 'hour', from: day, to: day },
        })
      ).json().result;
      return out;
    };

    it('imports threads into one closed history conversation per contact: roles, statuses, media, dedup, later chunks', async () => {
      const phone = phoneNo();
      const other = phoneNo();
      const live = wamid('live');
      // a message already stored live is not stored twice
      await meta.post(
        change('messages', {
          contacts: [{ wa_id: phone, profile: { name: 'Ana' } }],
          messages: [{ id: live, from: phone, timestamp: hoursAgo(1), type: 'text', text: { body: 'ya estaba' } }],
        }),
        secret(AGENT),
      );
      const metrics0 = await metricsNow();
      const [a1, a2, b1, dup, img, doc] = ['a1', 'a2', 'b1', 'dup', 'img', 'doc'].map(wamid);
      const started = Date.now();
      const res = await history([
        {
          metadata: { phase: '0', chunk_order: '1', progress: '40' },
          threads: [
            {
              id: phone,
              messages: [
                fromCustomer(a1, phone, hoursAgo(5), '¿Abren el viernes?'),
                fromBusiness(a2, phone, hoursAgo(4), 'Sí, hasta las 11'),
                fromCustomer(live, phone, hoursAgo(1), 'ya estaba'),
                { id: img, from: phone, timestamp: hoursAgo(3), type: 'image', image: { caption: 'menú' } },
                fromBusiness(doc, phone, hoursAgo(2), 'x', 'WEIRD'),
                fromCustomer(dup, phone, hoursAgo(3), 'dos veces'),
                fromCustomer(dup, phone, hoursAgo(3), 'dos veces'),
              ],
            },
            { id: other, messages: [fromBusiness(b1, other, hoursAgo(6), 'Su pedido va en camino', 'delivered')] },
          ],
        },
      ]);
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
      await imported();
      const [conv] = await db.sql<Record<string, any>>(
        `select * from ai_conversations where agent_id = ? and contact = ? and source = 'history'`,
        [AGENT, phone],
      );
      expect(conv).toMatchObject({ status: 'closed', status_reason: 'completed', contact_name: null, last_inbound_at: null });
      expect(new Date(conv.created_at).getTime() / 1000).toBe(Number(hoursAgo(5)));
      expect(new Date(conv.closed_at).getTime() / 1000).toBe(Number(hoursAgo(2)));
      const msgs = await db.sql<Record<string, any>>(
        'select external_id, role, source, delivery_status, type, payload, content from ai_messages where conversation_id = ? order by created_at',
        [conv.id],
      );
      expect(msgs.map((m) => [m.external_id, m.role, m.source, m.delivery_status])).toEqual([
        [a1, 'user', 'history', null],
        [a2, 'assistant', 'history', 'read'],
        [img, 'user', 'history', null],
        [dup, 'user', 'history', null],
        [doc, 'assistant', 'history', 'sent'],
      ]);
      expect(msgs[2]).toMatchObject({ type: 'image', payload: { media: null, caption: 'menú' }, content: 'menú' });
      expect((await db.sql('select 1 from ai_messages where external_id = ?', [live])).length).toBe(1);
      // no events, never unread, kept out of the list unless `where` names source
      const events = await db.sql(
        `select 1 from ai_events where conversation_id = ? union all select 1 from ai_event_inbox where conversation_id = ?`,
        [conv.id, conv.id],
      );
      expect(events).toEqual([]);
      const list = async (where?: unknown) =>
        (
          await t.api({
            path: '/ai/conversations',
            key: KEYS.server,
            query: { q: phone, page_size: '100', ...(where ? { where: JSON.stringify(where) } : {}) },
          })
        ).json().result as { id: number; source: string; unread_count: number }[];
      expect((await list()).map((c) => c.source)).toEqual(['live']);
      const withHistory = await list({ source: 'history' });
      expect(withHistory.map((c) => [c.id, c.source, c.unread_count])).toEqual([[conv.id, 'history', 0]]);
      expect((await list([{ attribute: 'source', value: { condition: 'in', value: ['history', 'live'] } }])).length).toBe(2);
      expect(await metricsNow()).toEqual(metrics0);
      expect(await agentHistory()).toMatchObject({ progress: 40, phase: 0, messages: 6, declined: false });

      // a later chunk (numbers as numbers) adds to the same conversation and widens its dates; a repeated chunk adds nothing
      const a3 = wamid('a3');
      const later = {
        metadata: { phase: 1, chunk_order: 2, progress: 100 },
        threads: [{ id: phone, messages: [fromCustomer(a3, phone, hoursAgo(9), 'antes')] }],
      };
      await history([later]);
      await history([later]);
      await imported();
      const [again] = await db.sql<Record<string, any>>(
        `select * from ai_conversations where agent_id = ? and contact = ? and source = 'history'`,
        [AGENT, phone],
      );
      expect(again.id).toBe(conv.id);
      expect(new Date(again.created_at).getTime() / 1000).toBe(Number(hoursAgo(9)));
      expect(new Date(again.closed_at).getTime() / 1000).toBe(Number(hoursAgo(2)));
      expect((await db.sql('select 1 from ai_messages where conversation_id = ?', [conv.id])).length).toBe(6);
      expect(await agentHistory()).toMatchObject({ progress: 100, phase: 1, messages: 7, declined: false });
      expect(await metricsNow()).toEqual(metrics0);
    });

    it('a declined share is recorded; progress and phase keep the highest seen', async () => {
      await history([{ metadata: { phase: 0, chunk_order: 1, progress: 5 }, errors: [{ code: 2593109, title: 'declined' }] }]);
      expect(await agentHistory()).toMatchObject({ progress: 100, phase: 1, declined: true });
      const before = await agentHistory();
      expect((await history('junk' as never)).status).toBe(200);
      expect((await history(['junk'])).status).toBe(200);
      expect(await agentHistory()).toEqual(before);
    });

    it('an import that more than doubles the messages refreshes their statistics (plans made on a small table are dropped)', async () => {
      // Autovacuum off on the table for the test: its vacuum of the inserted rows also counts them (reltuples), and the
      // importer then rightly skips its own ANALYZE (the statistics already count the rows); the test is of the importer.
      await db.sql('alter table ai_messages set (autovacuum_enabled = off)');
      onTestFinished(() => db.sql('alter table ai_messages reset (autovacuum_enabled)').then(() => undefined));
      await db.sql('analyze ai_messages');
      const [before] = await db.sql<{ n: number; at: string }>(
        `select greatest(1000, c.reltuples)::int as n, s.last_analyze as at
           from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'ai_messages'`,
      );
      const phone = phoneNo();
      const messages = Array.from({ length: before.n + 50 }, (_, i) => fromCustomer(wamid('grow'), phone, hoursAgo(90), `g${i}`));
      expect((await history([{ metadata: { phase: 0, chunk_order: 1, progress: 10 }, threads: [{ id: phone, messages }] }])).status).toBe(
        200,
      );
      await imported();
      // The ANALYZE runs after the chunk's transaction committed, so it may still be running when the chunk shows done.
      // Its row estimate (pg_class.reltuples) is what the planner reads: before the import it was below messages.length
      // (that is how n was chosen), and only an ANALYZE that saw the imported rows brings it to at least that.
      // (n_mod_since_analyze is no witness: a backend may flush its insert counts after the ANALYZE reset them.)
      let after = { at: before.at, rows: 0 };
      await until(
        async () => {
          [after] = await db.sql<{ at: string; rows: number }>(
            `select s.last_analyze as at, c.reltuples::int as rows
               from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'ai_messages'`,
          );
          return after.rows >= messages.length;
        },
        5000,
        "the importer's ANALYZE",
      );
      expect(after.rows).toBeGreaterThanOrEqual(messages.length);
      expect(new Date(after.at).getTime()).toBeGreaterThan(new Date(before.at).getTime());
    });

    it('HISTORY_IMPORT_RATE paces a process: 3 chunks of 50 messages at 100/s take at least a second, all stored', async () => {
      await importer.stop();
      importer = startImporter({ HISTORY_IMPORT_RATE: '100' }, 50);
      expect(loadConfig({}).historyImport.messagesPerSecond).toBe(6000);
      const phone = phoneNo();
      const chunk = (c: number) => ({
        metadata: { phase: 0, chunk_order: c + 1, progress: 10 },
        threads: [
          { id: phone, messages: Array.from({ length: 50 }, (_, i) => fromCustomer(wamid(`pace${c}`), phone, hoursAgo(50 - i), `m${i}`)) },
        ],
      });
      const started = performance.now();
      expect((await history([chunk(0), chunk(1), chunk(2)])).status).toBe(200);
      await imported();
      expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
      const [row] = await db.sql<{ n: number }>(
        `select count(*)::int as n from ai_messages m join ai_conversations c on c.id = m.conversation_id
          where c.agent_id = ? and c.contact = ? and m.source = 'history'`,
        [AGENT, phone],
      );
      expect(row.n).toBe(150);
    });
  });
});
