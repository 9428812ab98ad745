import type { BenchScenario, PrepareScenarios } from '../types.js';

const PROJECT = 'bench-ai-writes';
const SERVER_KEY = 'bench-ai-writes-server-key-0123456789';
/** High ids, apart from bench/scenarios/conversations.ts and `seed-bench`. */
const BASE = 51_000_000;
const CONVERSATIONS = 200;
const USERS = 50;
/** What a message write leaves dead: its conversation's old row (never HOT: last_message_at is indexed). */
const VACUUM = ['ai_conversations', 'ai_messages', 'ai_message_search'];
const userKey = (i: number) => `bench-ai-writes-user-${i}-0123456789`;

/**
 * Writes (CONTRACT §9.1), each also answered by bench/baseline.ts with the same statements:
 * - `POST /ai/conversations/{id}/messages` with a server key and usage, successive requests
 *   spread over 200 active conversations (10 connections: never two at once on one conversation);
 * - `POST .../conversations/current/messages` by 50 customers in turn (each their own current conversation).
 * Both sample pg_stat_activity's wait events: writers of different conversations must not wait on
 * each other at all (target 0 lock waits/s); the sequencer passes of the event log are counted apart.
 */
export const prepare: PrepareScenarios = async ({ load, orm }) => {
  await load({
    projects: [
      {
        code: PROJECT,
        name: 'Bench AI writes',
        ai_enabled: true,
        businesses: [{ id: BASE, name: 'Bench writes shop' }],
        users: Array.from({ length: USERS }, (_, i) => ({
          id: BASE + i,
          name: `Customer ${i}`,
          email: `c${i}@bench-writes.test`,
          level: 3,
        })),
        api_keys: [{ key: SERVER_KEY, server: true }, ...Array.from({ length: USERS }, (_, i) => ({ key: userKey(i), user_id: BASE + i }))],
        // not `whatsapp`: the runtime's public replies would then be sent (CONTRACT §10.1, bench:outbound measures that)
        // and need an open 24-hour window; this scenario measures the write itself, as before
        agents: [
          {
            id: BASE,
            business_id: BASE,
            name: 'Bench writer',
            provider: 'app',
            provider_type: 'chat',
            provider_external_id: 'bench-writer',
            enabled: true,
          },
        ],
        conversations: Array.from({ length: CONVERSATIONS }, (_, i) => ({
          id: BASE + i,
          agent_id: BASE,
          user_id: null,
          contact: `bench-${i}`,
          business_id: BASE,
          status: 'active',
          status_reason: null,
          usage: {},
          created_at: '2026-11-01T12:00:00Z',
          closed_at: null,
        })),
      },
    ],
  });
  // Each run starts from the same state: no messages yet, every conversation active.
  const conn = orm.em.getConnection();
  await conn.execute(
    `delete from ai_messages where conversation_id in (select c.id from ai_conversations c join projects p on p.id = c.project_id where p.code = ?)`,
    [PROJECT],
  );
  await conn.execute(`delete from ai_conversations where contact is null and project_id = (select id from projects where code = ?)`, [
    PROJECT,
  ]);
  await conn.execute(
    `update ai_conversations set response_time_count = 0, response_time_sum = 0 where project_id = (select id from projects where code = ?)`,
    [PROJECT],
  );

  const prefix = `/v400/en/${PROJECT}`;
  const scenarios: BenchScenario[] = [
    {
      name: 'POST /ai/conversations/{id}/messages (server key, usage)',
      method: 'POST',
      path: `${prefix}/ai/conversations/${BASE}/messages`,
      headers: { 'x-api-key': SERVER_KEY },
      body: JSON.stringify({
        role: 'assistant',
        content: 'A bench reply',
        usage: { cost: 0.0012, response_time_ms: 420, input_tokens: 120, output_tokens: 48 },
      }),
      rotate: Array.from({ length: CONVERSATIONS }, (_, i) => ({ path: `${prefix}/ai/conversations/${BASE + i}/messages` })),
      baseline: true,
      sampleWaits: true,
      vacuum: VACUUM,
    },
    {
      name: 'POST /ai/agents/{provider_external_id}/conversations/current/messages',
      method: 'POST',
      path: `${prefix}/ai/agents/bench-writer/conversations/current/messages`,
      headers: { 'x-api-key': userKey(0) },
      body: JSON.stringify({ content: 'Hola, quiero una pizza' }),
      rotate: Array.from({ length: USERS }, (_, i) => ({ headers: { 'x-api-key': userKey(i) } })),
      baseline: true,
      sampleWaits: true,
      vacuum: VACUUM,
    },
  ];
  return scenarios;
};
