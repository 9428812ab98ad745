import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryStatus } from '../../entities/ai-message.js';
import { messageRecord } from '../conversations/conversation.service.js';
import type { NewAiEvent } from '../events/event-log.js';
import { MOVES_FROM } from './template-send.service.js';

/**
 * The delivery state of replies sent on WhatsApp (CONTRACT §10.1), shared by the sender (the
 * provider's answer) and the inbound webhook (Meta's statuses). Every function runs in the
 * caller's transaction.
 */

/** A status Meta may send about a message: forward only, with the rules of template sends. */
export type StatusMove = keyof typeof MOVES_FROM;
/** How long a status that matched no message yet is kept (CONTRACT §10.1). */
export const EARLY_STATUS_MINUTES = 10;
/** First key of the per-(agent, external id) lock that orders a status against the send's answer ("OGWs"). */
const STATUS_LOCK_CLASS = 0x4f475773;

export function messageStatusEvent(row: Record<string, any>, agent: { id: number; business_id?: number | null }): NewAiEvent {
  return { type: 'message.status', data: messageRecord(row), agent_id: agent.id, business_id: agent.business_id ?? null, conversation_id: row.conversation_id, public: row.public };
}

/**
 * Serialises, for one external id, the send's answer being stored and a status arriving: whichever
 * comes second sees the first's commit (READ COMMITTED reads afresh per statement), so a status is
 * either applied to the message or kept for it, never lost in between.
 */
export async function lockExternalId(tx: EntityManager, agentId: number, externalId: string): Promise<void> {
  await run(tx, 'select pg_advisory_xact_lock(?, hashtext(? || \':\' || ?))', [STATUS_LOCK_CLASS, String(agentId), externalId]);
}

/** Moves the agent's message with that external id forward; null when there is none or it would not move. */
export async function moveMessageStatus(
  tx: EntityManager,
  projectId: number,
  agentId: number,
  externalId: string,
  status: StatusMove,
  error: string | null,
): Promise<Record<string, any> | null> {
  const from = MOVES_FROM[status];
  const [row] = await run(
    tx,
    `update ai_messages m set delivery_status = ?, delivery_error = ?
       from ai_conversations c
      where m.project_id = ? and m.external_id = ? and m.delivery_status in (${from.map(() => '?').join(', ')})
        and c.id = m.conversation_id and c.project_id = m.project_id and c.agent_id = ?
      returning m.*`,
    [status, error, projectId, externalId, ...from, agentId],
  );
  return row ?? null;
}

/** True when a message or a template send of the agent carries that provider id. */
export async function knownExternalId(tx: EntityManager, projectId: number, agentId: number, externalId: string): Promise<boolean> {
  const [row] = await run(
    tx,
    `select exists (select 1 from ai_messages m join ai_conversations c on c.id = m.conversation_id
                     where m.project_id = ? and m.external_id = ? and c.agent_id = ?)
         or exists (select 1 from ai_template_sends where project_id = ? and agent_id = ? and message_id = ?) as known`,
    [projectId, externalId, agentId, projectId, agentId, externalId],
  );
  return row.known === true;
}

/** Keeps a status whose id matches nothing yet, for EARLY_STATUS_MINUTES. */
export async function keepEarlyStatus(tx: EntityManager, agentId: number, externalId: string, status: StatusMove, error: string | null): Promise<void> {
  await run(
    tx,
    `insert into ai_early_statuses (agent_id, external_id, status, error) values (?, ?, ?, ?)
     on conflict (agent_id, external_id, status) do update set error = excluded.error, received_at = now()`,
    [agentId, externalId, status, error],
  );
}

/**
 * After a message got its external id: the statuses kept for it (in the order they came) are
 * applied and forgotten. Returns the message as each move left it.
 */
export async function applyEarlyStatuses(tx: EntityManager, projectId: number, agentId: number, externalId: string): Promise<Record<string, any>[]> {
  const early = await run(
    tx,
    `delete from ai_early_statuses where agent_id = ? and external_id = ?
     returning status, error, received_at > now() - make_interval(mins => ?) as fresh, received_at`,
    [agentId, externalId, EARLY_STATUS_MINUTES],
  );
  early.sort((a, b) => new Date(a.received_at).getTime() - new Date(b.received_at).getTime());
  const moved: Record<string, any>[] = [];
  for (const s of early) {
    if (!s.fresh || !Object.hasOwn(MOVES_FROM, s.status)) continue;
    const row = await moveMessageStatus(tx, projectId, agentId, externalId, s.status as StatusMove, s.error);
    if (row) moved.push(row);
  }
  return moved;
}

/** Forgets statuses kept longer than EARLY_STATUS_MINUTES. */
export async function pruneEarlyStatuses(em: EntityManager): Promise<void> {
  await em.getConnection().execute('delete from ai_early_statuses where received_at < now() - make_interval(mins => ?)', [EARLY_STATUS_MINUTES], 'run');
}

/**
 * The send's final word on a pending message: `accepted` with the provider's id, or `failed` with
 * the reason. Null when the message is no longer pending (another attempt already decided it).
 */
export async function settleMessage(
  tx: EntityManager,
  projectId: number,
  messageId: number,
  outcome: { status: Extract<DeliveryStatus, 'accepted' | 'failed'>; externalId?: string; error?: string },
): Promise<Record<string, any> | null> {
  const [row] = await run(
    tx,
    `update ai_messages set delivery_status = ?, delivery_error = ?, external_id = coalesce(?, external_id)
      where project_id = ? and id = ? and delivery_status = 'pending'
      returning *`,
    [outcome.status, outcome.error ?? null, outcome.externalId ?? null, projectId, messageId],
  );
  return row ?? null;
}

async function run(tx: EntityManager, sql: string, params: unknown[]): Promise<Record<string, any>[]> {
  return tx.getConnection().execute<Record<string, any>[]>(sql, params, 'all', tx.getTransactionContext());
}
