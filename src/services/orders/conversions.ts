import type { EntityManager } from '@mikro-orm/postgresql';
import { run } from '../conversations/records.js';

/** CONTRACT §15.6: Meta refuses a whole request whose `event_time` is more than 7 days old. */
export const CONVERSION_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
/** CONTRACT §15.6: the conversion of an order whose event is still to be sent. */
export const PENDING_CONVERSION = { status: 'pending', error: null, sent_at: null } as const;

/**
 * CONTRACT §15.6, in the placing transaction: when the order's conversation came from an ad (its `referral` has a
 * `ctwa_clid`) and its agent has the `dataset_id` and `access_token` credentials (by their stored names, never
 * decrypted here: notices.ts placeTarget reads both under the conversation's lock), the order's Purchase event is
 * queued in the outbox `ai_conversion_sends` (workers/conversion-sender.ts) and the order's `conversion` is
 * `pending`, in one statement. Returns whether it was queued.
 */
export async function queueConversion(
  tx: EntityManager,
  projectId: number,
  orderId: number,
  agentId: number,
  clid: string,
): Promise<boolean> {
  const rows = await run(
    tx,
    `with queued as (
       insert into ai_conversion_sends (order_id, project_id, agent_id, ctwa_clid) values (?, ?, ?, ?)
       on conflict (order_id) do nothing
       returning order_id)
     update orders set conversion = ?::jsonb where project_id = ? and id in (select order_id from queued) returning id`,
    [orderId, projectId, agentId, clid, JSON.stringify(PENDING_CONVERSION), projectId],
  );
  return rows.length > 0;
}
