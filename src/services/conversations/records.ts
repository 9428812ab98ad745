import { windowExpiresAt } from '../../entities/ai-conversation.js';
import { type AiEventType, type NewAiEvent } from '../events/event-log.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { runStatement } from '../../db/direct-read.js';

/**
 * Conversations and messages as the API shows them (REST records, graph rows, event data), from
 * an entity or a raw row read in the caller's transaction.
 */

/**
 * Raw SQL in the caller's transaction (rows as the graph reads them); bind parameters (db/direct-read.ts
 * runStatement), every statement names its project.
 */
export async function run(tx: EntityManager, sql: string, params: unknown[]): Promise<any[]> {
  const rows = await runStatement<any>(tx.getConnection(), sql, params, tx.getTransactionContext());
  for (const row of rows) for (const k of TIMESTAMPS) if (typeof row[k] === 'string') row[k] = new Date(row[k]);
  return rows;
}

/** The driver hands timestamps over as text; the graph's DateTime wants dates. */
export const TIMESTAMPS = [
  'created_at',
  'closed_at',
  'updated_at',
  'last_inbound_at',
  'last_message_at',
  'edited_at',
  'revoked_at',
] as const;

export const agentOf = (conversation: Record<string, any>) => ({
  id: conversation.agent_id as number,
  business_id: (conversation.agent_business_id ?? null) as number | null,
});

export const iso = (v: unknown) => (v == null ? null : new Date(v as string | Date).toISOString());

/** The conversation record as the REST API shows it (CONTRACT §6.2, §9.1), from an entity or a raw row. */
export function conversationRecord(c: Record<string, any>, messagesCount: number): Record<string, unknown> {
  return {
    id: c.id,
    agent_id: c.agent_id,
    user_id: c.user_id ?? null,
    business_id: c.business_id ?? null,
    status: c.status,
    status_reason: c.status_reason ?? null,
    usage: c.usage ?? {},
    created_at: iso(c.created_at),
    closed_at: iso(c.closed_at),
    updated_at: iso(c.updated_at),
    contact: c.contact ?? null,
    contact_user_id: c.contact_user_id ?? null,
    contact_name: c.contact_name ?? null,
    contact_username: c.contact_username ?? null,
    window_expires_at: iso(windowExpiresAt(c.last_inbound_at)),
    handler: c.handler ?? 'ai',
    assignee_id: c.assignee_id ?? null,
    last_message_at: iso(c.last_message_at ?? c.created_at),
    referral: c.referral ?? null,
    source: c.source ?? 'live',
    messages_count: messagesCount,
  };
}

/** SQL for an instant as the API's records write it (`2026-12-02T01:02:03.456Z`, UTC, milliseconds), from `expr`. */
export const isoText = (expr: string) => `to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * messageRecord built by PostgreSQL from the row `m` (an alias of ai_messages' columns), as jsonb:
 * for writes that are one statement with their event (whatsapp/inbound-notification.ts). Keep the two in
 * step; test/rest/whatsapp-webhooks.test.ts compares an event built here with the REST record.
 */
export function messageRecordSql(m: string): string {
  return `jsonb_build_object('id', ${m}.id, 'conversation_id', ${m}.conversation_id, 'role', ${m}.role, 'content', ${m}.content,
    'public', ${m}.public, 'created_at', ${isoText(`${m}.created_at`)},
    'usage', ${m}.usage, 'external_id', ${m}.external_id, 'delivery_status', ${m}.delivery_status,
    'delivery_error', ${m}.delivery_error, 'author_id', ${m}.author_id, 'type', ${m}.type, 'payload', ${m}.payload,
    'reply_to_id', ${m}.reply_to_id, 'source', ${m}.source,
    'edited_at', ${isoText(`${m}.edited_at`)}, 'edits', ${m}.edits,
    'revoked_at', ${isoText(`${m}.revoked_at`)}, 'referral', ${m}.referral,
    'referred_product', ${m}.referred_product, 'order_id', ${m}.order_id)`;
}

/** The message record as the REST API shows it (CONTRACT §6.2, §9.1). */
export function messageRecord(m: Record<string, any>): Record<string, unknown> {
  return {
    id: m.id,
    conversation_id: m.conversation_id,
    role: m.role,
    content: m.content,
    public: m.public,
    created_at: iso(m.created_at),
    usage: m.usage ?? null,
    external_id: m.external_id ?? null,
    delivery_status: m.delivery_status ?? null,
    delivery_error: m.delivery_error ?? null,
    author_id: m.author_id ?? null,
    type: m.type ?? 'text',
    payload: m.payload ?? null,
    reply_to_id: m.reply_to_id ?? null,
    source: m.source ?? 'api',
    edited_at: iso(m.edited_at),
    edits: m.edits ?? [],
    revoked_at: iso(m.revoked_at),
    referral: m.referral ?? null,
    referred_product: m.referred_product ?? null,
    order_id: m.order_id ?? null,
  };
}

/** A conversation.created / conversation.closed event, visible by the agent's business. */
export function conversationEvent(
  type: AiEventType,
  row: Record<string, any>,
  agent: { id: number; business_id?: number | null },
  messagesCount: number,
): NewAiEvent {
  return {
    type,
    data: conversationRecord(row, messagesCount),
    agent_id: agent.id,
    business_id: agent.business_id ?? null,
    conversation_id: row.id,
  };
}
