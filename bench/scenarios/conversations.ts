import { loadOperations } from '../../src/graph/operations.js';
import { getSchema } from '../../src/graph/schema.js';
import type { BenchScenario, PrepareScenarios } from '../types.js';

const PROJECT = 'bench-ai';
const SERVER_KEY = 'bench-ai-server-key-0123456789';
/** High ids so this project's rows never meet another scenario's fixture ids nor the 1M (or 10M) rows of `seed-bench` in the same database. */
const AGENT_BASE = 50_000_000;
const CONVERSATION_BASE = 50_000_000;
const CONVERSATIONS = 60;
const MESSAGES_PER_CONVERSATION = 40;

/** The active (agent 0, no user) conversation: what a server key's `conversations/current` finds. */
export const ACTIVE_CONVERSATION = CONVERSATION_BASE + CONVERSATIONS;

/**
 * Project `bench-ai`: 3 agents, 60 closed conversations with 40 messages each and one active
 * conversation of agent 0 without a user. With a server key: the list of 50 (with `params`),
 * one conversation, its messages (page of 50), the current conversation (existing), each also
 * answered by bench/baseline.ts; and the list again as the named operation over POST /graphql.
 */
export const prepare: PrepareScenarios = async ({ load, orm }) => {
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute)).toISOString();
  await load({
    projects: [
      {
        code: PROJECT,
        name: 'Bench AI',
        ai_enabled: true,
        businesses: [{ id: AGENT_BASE, name: 'Bench AI shop' }],
        api_keys: [{ key: SERVER_KEY, server: true }],
        agents: [0, 1, 2].map((i) => ({
          id: AGENT_BASE + i,
          business_id: AGENT_BASE,
          name: `Bench agent ${i}`,
          provider: 'whatsapp',
          provider_type: i === 2 ? 'voice' : 'chat',
          provider_external_id: `bench-agent-${i}`,
          enabled: true,
        })),
        conversations: Array.from({ length: CONVERSATIONS }, (_, i) => ({
          id: CONVERSATION_BASE + i,
          agent_id: AGENT_BASE + (i % 3),
          business_id: AGENT_BASE,
          status: 'closed',
          status_reason: ['completed', 'abandoned', 'failed'][i % 3],
          usage: { cost: 0.01 * i, response_time_ms: 200 + i, input_tokens: 100, output_tokens: 50 },
          created_at: at(i),
          closed_at: at(i + 30),
        })).concat([
          {
            id: ACTIVE_CONVERSATION,
            agent_id: AGENT_BASE,
            business_id: AGENT_BASE,
            status: 'active',
            status_reason: null,
            usage: {},
            created_at: at(0),
            closed_at: null,
          } as never,
        ]),
      },
    ],
  });
  // Messages in bulk (idempotent: the conversations' messages are replaced).
  const conn = orm.em.getConnection();
  const ids = Array.from({ length: CONVERSATIONS }, (_, i) => CONVERSATION_BASE + i);
  await conn.execute(`delete from ai_messages where conversation_id in (${ids.map(() => '?').join(', ')})`, ids);
  // the stored count of user messages is kept by an insert trigger only (messages are never deleted through the API)
  await conn.execute(`update ai_conversations set user_messages = 0 where id in (${ids.map(() => '?').join(', ')})`, ids);
  await conn.execute(
    `insert into ai_messages (project_id, conversation_id, role, content, public, created_at)
     select p.id, c.id, case when g % 2 = 0 then 'user' else 'assistant' end, 'bench message ' || g, true, c.created_at + g * interval '1 second'
       from projects p
       join ai_conversations c on c.project_id = p.id
       cross join generate_series(1, ?) g
      where p.code = ?`,
    [MESSAGES_PER_CONVERSATION, PROJECT],
  );

  const op = loadOperations(await getSchema()).get('AiConversations');
  if (!op) throw new Error('operation AiConversations not found');
  const headers = { 'x-api-key': SERVER_KEY };
  const get = (name: string, path: string): BenchScenario => ({
    name,
    method: 'GET',
    path: `/v400/en/${PROJECT}${path}`,
    headers,
    baseline: true,
  });
  const scenarios: BenchScenario[] = [
    get('GET /ai/conversations/{id}', `/ai/conversations/${CONVERSATION_BASE}`),
    get('GET /ai/conversations?page_size=50&params=id,status,agent.name', '/ai/conversations?page_size=50&params=id,status,agent.name'),
    get('GET /ai/agents/{provider_external_id}/conversations/current', '/ai/agents/bench-agent-0/conversations/current'),
    get('GET /ai/conversations/{id}/messages?page_size=50', `/ai/conversations/${CONVERSATION_BASE}/messages?page_size=50`),
    {
      name: 'POST /graphql conversations (AiConversations, page_size 50)',
      method: 'POST',
      path: '/graphql',
      headers,
      body: JSON.stringify({ query: op.source, operationName: op.name, variables: { page_size: 50 } }),
    },
  ];
  return scenarios;
};
