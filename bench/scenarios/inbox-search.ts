import { createHash } from 'node:crypto';
import type { BenchScenario, PrepareScenarios } from '../types.js';

const PROJECT = 'bench-inbox';
const SERVER_KEY = 'bench-inbox-server-key-0123456789';
/** Ids far from every other scenario's and from `seed-bench`'s rows. */
const BASE = 60_000_000;
/** CONTRACT §10.5: q answers in ≤ 100 ms p99 at 1M messages in a project (BENCH_INBOX_MESSAGES to change it). */
const MESSAGES = Number(process.env.BENCH_INBOX_MESSAGES ?? 1_000_000);
const PER_CONVERSATION = 20;
const WORDS = ['pizza', 'margherita', 'entrega', 'consegna', 'Lieferung', 'بيتزا', 'mesa', 'tavolo', 'bestellen', 'gracias'];

/** The 12 hex digits of message g's code (SQL's `left(md5(g::text), 12)`): a search for them finds that one message. */
export const rareToken = (g: number) => createHash('md5').update(String(g)).digest('hex').slice(0, 12);

/**
 * Project `bench-inbox`: 1M messages in 50,000 WhatsApp conversations (20 each), content mixing restaurant words in
 * four languages with a token unique to each message. Scenarios: `q` for one message's token (1 match), a contact's
 * digits, a word found in ~1/10 of the messages, each on the first page by last activity (the console's request).
 * Seeding takes minutes on a fresh database (the trigram index grows with it) and is skipped when done, so these
 * scenarios run only when asked for by name: `npm run bench inbox` (BENCH_ENGINES=mercurius BENCH_DURATION=5 to keep it short).
 */
export const prepare: PrepareScenarios = async ({ load, orm }) => {
  if (!(process.argv[2] ?? '').includes('inbox')) return [];
  const conn = orm.em.getConnection();
  const [done] = await conn.execute<{ n: number }[]>(
    `select count(*)::int as n from ai_messages m join projects p on p.id = m.project_id where p.code = ?`,
    [PROJECT],
  );
  if (!done || done.n < MESSAGES) {
    await load({
      projects: [
        {
          code: PROJECT,
          name: 'Bench inbox',
          ai_enabled: true,
          businesses: [{ id: BASE, name: 'Bench inbox shop' }],
          api_keys: [{ key: SERVER_KEY, server: true }],
          agents: [
            {
              id: BASE,
              business_id: BASE,
              name: 'Bench inbox agent',
              provider: 'whatsapp',
              provider_type: 'chat',
              provider_external_id: 'bench-inbox-agent',
              enabled: true,
            },
          ],
        },
      ],
    });
    const conversations = Math.ceil(MESSAGES / PER_CONVERSATION);
    await conn.execute(`delete from ai_conversations where project_id = (select id from projects where code = ?)`, [PROJECT]);
    await conn.execute(
      `insert into ai_conversations (project_id, agent_id, business_id, contact, contact_name, status, usage, created_at)
       select p.id, ?, ?, '346' || lpad(g::text, 8, '0'), 'Lucía Peña ' || to_hex(g), case when g % 5 = 0 then 'closed' else 'active' end, '{}',
              now() - (g || ' minutes')::interval
         from projects p cross join generate_series(1, ?) g where p.code = ?`,
      [BASE, BASE, conversations, PROJECT],
    );
    await conn.execute(
      `insert into ai_messages (project_id, conversation_id, role, content, public, created_at)
       select c.project_id, c.id, case when g % 2 = 0 then 'user' else 'assistant' end,
              (array[${WORDS.map(() => '?').join(', ')}])[1 + (c.id * ${PER_CONVERSATION} + g) % ${WORDS.length}]
                || ' ' || 'tok' || to_hex(c.id * ${PER_CONVERSATION} + g) || 'x ñ' || left(md5((c.id * ${PER_CONVERSATION} + g)::text), 12),
              true, c.created_at + (g || ' seconds')::interval
         from ai_conversations c cross join generate_series(1, ?) g
        where c.project_id = (select id from projects where code = ?)`,
      [...WORDS, PER_CONVERSATION, PROJECT],
    );
    await conn.execute('analyze ai_messages');
    await conn.execute('analyze ai_conversations');
  }
  // §10.6: 1,000 saved replies (their shortcut and a few words, one of them unique)
  await conn.execute(
    `insert into ai_replies (project_id, shortcut, content)
     select p.id, 'r' || g, (array['Abrimos a las nueve', 'Está en camino', 'Gracias por tu pedido', 'Tu mesa está lista'])[1 + g % 4]
              || ' · código ' || left(md5(g::text), 8)
       from projects p cross join generate_series(1, 1000) g where p.code = ?
     on conflict do nothing`,
    [PROJECT],
  );
  const [probe] = await conn.execute<{ id: number }[]>(
    `select c.id from ai_conversations c join projects p on p.id = c.project_id where p.code = ? order by c.id limit 1 offset 1234`,
    [PROJECT],
  );
  const headers = { 'x-api-key': SERVER_KEY };
  const list = (name: string, q: string): BenchScenario => ({
    name,
    method: 'GET',
    path: `/v400/en/${PROJECT}/ai/conversations?q=${encodeURIComponent(q)}&orderBy=-last_message_at&page_size=30`,
    headers,
  });
  return [
    list('inbox GET /ai/conversations?q=<one message> (1M messages)', rareToken(probe.id * PER_CONVERSATION + 7)),
    list('inbox GET /ai/conversations?q=<contact digits> (1M messages)', `346${String(4321).padStart(8, '0')}`),
    list('inbox GET /ai/conversations?q=<a word in 1/10 of messages> (1M messages)', 'consegna'),
    // §10.5: without the accents the text has (a message's "ñ" + code, a contact's name "Lucía Peña …")
    list('inbox GET /ai/conversations?q=<one message, no accent> (1M messages)', `n${rareToken(probe.id * PER_CONVERSATION + 7)}`),
    list('inbox GET /ai/conversations?q=<a name, no accent> (1M messages)', `lucia pena ${(4321).toString(16)}`),
    {
      name: 'inbox GET /ai/replies?q=<one reply> (1,000 replies)',
      method: 'GET',
      path: `/v400/en/${PROJECT}/ai/replies?q=${createHash('md5').update('777').digest('hex').slice(0, 8)}`,
      headers,
    },
    {
      name: 'inbox GET /ai/replies?q=<a word of 1/4, no accent> (1,000 replies)',
      method: 'GET',
      path: `/v400/en/${PROJECT}/ai/replies?q=esta`,
      headers,
    },
    {
      name: 'inbox GET /ai/conversations?orderBy=-unread_count (1M messages)',
      method: 'GET',
      path: `/v400/en/${PROJECT}/ai/conversations?orderBy=-unread_count,-last_message_at&page_size=30`,
      headers,
    },
  ];
};
