import type { EntityManager } from '@mikro-orm/postgresql';
import { runStatement } from '../../db/direct-read.js';
import type { DeliveryStatus } from '../../entities/ai-message.js';
import { messageRecord } from '../conversations/records.js';
import type { NewAiEvent } from '../events/event-log.js';
import { MOVES_FROM } from './template-send.service.js';
import { messageKey } from './webhook-items.js';

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
  return {
    type: 'message.status',
    data: messageRecord(row),
    agent_id: agent.id,
    business_id: agent.business_id ?? null,
    conversation_id: row.conversation_id,
    public: row.public,
  };
}

/**
 * Serialises, for one external id, the send's answer being stored and a status arriving: whichever
 * comes second sees the first's commit (READ COMMITTED reads afresh per statement), so a status is
 * either applied to the message or kept for it, never lost in between.
 */
export async function lockExternalId(tx: EntityManager, agentId: number, externalId: string): Promise<void> {
  await lockExternalIds(tx, [{ agentId, externalId }]);
}

/** lockExternalId for several ids, taken in the order of their keys (two batches never wait on each other in a circle). */
export async function lockExternalIds(tx: EntityManager, ids: { agentId: number; externalId: string }[]): Promise<void> {
  if (!ids.length) return;
  await run(
    tx,
    `select count(pg_advisory_xact_lock(?::int, k)) from (
       select distinct hashtext(agent_id::text || ':' || external_id) as k
         from jsonb_to_recordset(?::jsonb) as r(agent_id bigint, external_id text)
        order by k offset 0) keys`,
    [STATUS_LOCK_CLASS, JSON.stringify(ids.map((i) => ({ agent_id: i.agentId, external_id: i.externalId })))],
  );
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
export async function keepEarlyStatus(
  tx: EntityManager,
  agentId: number,
  externalId: string,
  status: StatusMove,
  error: string | null,
): Promise<void> {
  await run(
    tx,
    `insert into ai_early_statuses (agent_id, external_id, status, error) values (?, ?, ?, ?)
     on conflict (agent_id, external_id, status) do update set error = excluded.error, received_at = now()`,
    [agentId, externalId, status, error],
  );
}

/**
 * After messages got their external ids: the statuses kept for them are applied (in the order they
 * came) and forgotten. Returns, per `AGENT:EXTERNAL_ID`, the message as each move left it.
 */
export async function applyEarlyStatuses(
  tx: EntityManager,
  projectId: number,
  ids: { agentId: number; externalId: string }[],
): Promise<Map<string, Record<string, any>[]>> {
  const moved = new Map<string, Record<string, any>[]>();
  if (!ids.length) return moved;
  const early = await run(
    tx,
    `delete from ai_early_statuses e
      using jsonb_to_recordset(?::jsonb) as r(agent_id bigint, external_id text)
      where e.agent_id = r.agent_id and e.external_id = r.external_id
     returning e.agent_id, e.external_id, e.status, e.error, e.received_at > now() - make_interval(mins => ?::int) as fresh, e.received_at`,
    [JSON.stringify(ids.map((i) => ({ agent_id: i.agentId, external_id: i.externalId }))), EARLY_STATUS_MINUTES],
  );
  early.sort((a, b) => new Date(a.received_at).getTime() - new Date(b.received_at).getTime());
  for (const s of early) {
    if (!s.fresh || !Object.hasOwn(MOVES_FROM, s.status)) continue;
    const row = await moveMessageStatus(tx, projectId, s.agent_id, s.external_id, s.status as StatusMove, s.error);
    const key = `${s.agent_id}:${s.external_id}`;
    if (row) moved.set(key, [...(moved.get(key) ?? []), row]);
  }
  return moved;
}

/** Forgets statuses kept longer than EARLY_STATUS_MINUTES. */
export async function pruneEarlyStatuses(em: EntityManager): Promise<void> {
  await em
    .getConnection()
    .execute('delete from ai_early_statuses where received_at < now() - make_interval(mins => ?)', [EARLY_STATUS_MINUTES], 'run');
}

/** The send's final word on a pending message: `accepted` with the provider's id, or `failed` with the reason. */
export interface SendSettlement {
  messageId: number;
  status: Extract<DeliveryStatus, 'accepted' | 'failed'>;
  externalId?: string;
  error?: string;
}

/**
 * Writes the sends' final words on the project's messages (one statement), in message id order.
 * (`id = any(ARRAY)` beside the join: the planner counts a JSON recordset as 100 rows and would scan
 * the table; with the array it looks the rows up by key.)
 * A message no longer pending (another attempt already decided it) is left as it is and absent
 * from the answer.
 */
export async function settleMessages(tx: EntityManager, projectId: number, settlements: SendSettlement[]): Promise<Record<string, any>[]> {
  if (!settlements.length) return [];
  const rows = await run(
    tx,
    `update ai_messages m
        set delivery_status = r.status, delivery_error = r.error, external_id = coalesce(r.external_id, m.external_id),
            external_key = coalesce(r.external_key, m.external_key)
       from jsonb_to_recordset(?::jsonb) as r(id bigint, status text, error text, external_id text, external_key text)
      where m.project_id = ? and m.id = any(?::bigint[]) and m.id = r.id and m.delivery_status = 'pending'
      returning m.*`,
    [
      JSON.stringify(
        settlements.map((s) => ({
          id: s.messageId,
          status: s.status,
          error: s.error ?? null,
          external_id: s.externalId ?? null,
          external_key: messageKey(s.externalId),
        })),
      ),
      projectId,
      `{${settlements.map((s) => s.messageId).join(',')}}`,
    ],
  );
  return rows.sort((a, b) => Number(a.id) - Number(b.id));
}

/** Bind parameters in the caller's transaction (db/direct-read.ts), so these also run in a directTransaction; timestamps come as text. */
function run(tx: EntityManager, sql: string, params: unknown[]): Promise<Record<string, any>[]> {
  return runStatement<Record<string, any>>(tx.getConnection(), sql, params, tx.getTransactionContext());
}
