import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../../context/index.js';
import { OUTBOUND_TYPES } from '../../conversations/message-payload.js';
import { conversationEvent, messageRecord } from '../../conversations/records.js';
import { writeWithEvents, type NewAiEvent, type OutboxKind } from '../../events/event-log.js';
import { applyEarlyStatuses, lockExternalId, messageStatusEvent } from '../delivery.js';
import { readInbound } from '../inbound-types.js';
import { applyEarlyChanges, changeOf, receiveChange } from '../message-changes.js';
import { insertCtes, openConversation, type ItemToStore, type Sender } from '../stored-items.js';
import {
  bsuidOf,
  clip,
  externalIdOf,
  isObject,
  optionalList,
  phoneOf,
  run,
  skip,
  unixSeconds,
  type WebhookAgent,
  type WebhookChange,
} from '../webhook-items.js';

/** CONTRACT §13.1: the types an echo is stored as (those a reply can send, and contact cards); others are logged and skipped. */
const ECHO_TYPES: ReadonlySet<string> = new Set([...OUTBOUND_TYPES, 'contacts']);
/** The `delivery_error` of an AI reply an echo made needless. */
export const SUPERSEDED = 'superseded by the business app';

/**
 * Field `smb_message_echoes` (CONTRACT §13.1): what the business sent from the WhatsApp Business app
 * on its phone, stored once in the (agent, `to`) conversation as a public `assistant` message with
 * `source` `business_app` and `delivery_status` `sent`; the person takes the conversation from the
 * AI (handler `human`, the AI's replies not yet being sent fail). Edits and revokes change the earlier message.
 */
export async function receiveEchoes(ctx: RequestContext, change: WebhookChange): Promise<void> {
  const { agent, value, where, problems, result } = change;
  if (!agent) return;
  for (const [i, echo] of optionalList(value.message_echoes, `${where}.value.message_echoes`, problems).entries()) {
    result.messages += await storeEcho(ctx, agent, echo, `${where}.value.message_echoes[${i}]`, problems);
  }
}

async function storeEcho(ctx: RequestContext, agent: WebhookAgent, e: unknown, where: string, problems: string[]): Promise<number> {
  if (!isObject(e)) return skip(problems, `${where}: not an echo`);
  const id = externalIdOf(e.id);
  if (!id) return skip(problems, `${where}: no usable id`);
  const createdAt = unixSeconds(e.timestamp);
  if (!createdAt) return skip(problems, `${where}: timestamp ${clip(e.timestamp)} is not Unix seconds`);
  const edit = changeOf(e);
  if (edit) return receiveChange(ctx, agent, edit, createdAt, where, problems);
  // CONTRACT §13.1: `to_user_id`, when given, is the customer's BSUID (§12.1); a `to` that is no phone number may be one too
  const to: Sender = {
    phone: phoneOf(e.to),
    bsuid: bsuidOf(e.to_user_id) ?? (phoneOf(e.to) ? null : bsuidOf(e.to)),
    name: null,
    username: null,
  };
  if (!to.phone && !to.bsuid) return skip(problems, `${where}: no usable to`);
  if (typeof e.type !== 'string' || !ECHO_TYPES.has(e.type)) return skip(problems, `${where}: echo of type ${clip(e.type)} skipped`);
  const it: ItemToStore = { externalId: id, item: readInbound(e), createdAt, echo: true, referral: null };
  for (let attempt = 0; ; attempt++) {
    try {
      return await storeInTransaction(ctx, agent, to, it);
    } catch (err) {
      if ((err as { code?: string }).code !== '23505' || attempt > 0) throw err;
    }
  }
}

/** The echo's key in ai_inbound_message_ids, taken unless the id is already a message or a template send of the agent. */
const FRESH_KEY = `insert into ai_inbound_message_ids (agent_id, external_id, project_id)
  select ?::bigint, ?::text, ?::bigint
   where not exists (select 1 from ai_messages m join ai_conversations c on c.id = m.conversation_id
                      where m.project_id = ? and m.external_id = ? and c.agent_id = ?)
     and not exists (select 1 from ai_template_sends where project_id = ? and agent_id = ? and message_id = ?)
  on conflict do nothing returning 1 as fresh`;

/**
 * One echo in one transaction: deduplicated with every message of the agent (the send-answer lock
 * first, so a reply of ours whose answer is being stored is seen), the conversation locked (or
 * opened with handler `human`), the handoff, the message, and what came for it early (statuses, edits).
 */
async function storeInTransaction(ctx: RequestContext, agent: WebhookAgent, to: Sender, it: ItemToStore): Promise<number> {
  const p = ctx.project.id;
  return writeWithEvents(
    ctx,
    async (tx) => {
      await lockExternalId(tx, agent.id, it.externalId);
      // ours (a message or a template send of the agent), or stored already: nothing changes
      const [key] = await run(tx, FRESH_KEY, [agent.id, it.externalId, p, p, it.externalId, agent.id, p, agent.id, it.externalId]);
      if (!key) return { value: 0, events: [] };
      const events: NewAiEvent[] = [];
      const conversation = await openConversation(tx, p, agent, to, events, 'human');
      const superseded = await takeOver(tx, p, agent, conversation, events);
      const ctes = insertCtes(p, agent, to, it);
      const [message] = await run(
        tx,
        `with c as (select ?::bigint as id), k as (select 1), ${ctes.sql}
       select m.*, exists (select 1 from ai_early_statuses where agent_id = ? and external_id = m.external_id) as early_statuses,
              exists (select 1 from ai_early_changes where agent_id = ? and (external_id = m.external_id or external_key = m.external_key))
                as early_changes
         from m`,
        [conversation.id, ...ctes.params, agent.id, agent.id],
      );
      const { early_statuses: earlyStatuses, early_changes: earlyChanges, ...row } = message;
      events.push({
        type: 'message.created',
        data: messageRecord(row),
        agent_id: agent.id,
        business_id: agent.business_id,
        conversation_id: row.conversation_id,
        public: true,
      });
      if (earlyStatuses) {
        const early = await applyEarlyStatuses(tx, p, [{ agentId: agent.id, externalId: it.externalId }]);
        for (const moved of early.get(`${agent.id}:${it.externalId}`) ?? []) events.push(messageStatusEvent(moved, agent));
      }
      if (earlyChanges) await applyEarlyChanges(tx, p, agent, row, events);
      const queued: OutboxKind[] = [...(it.item.media ? (['downloads'] as const) : []), ...(superseded ? (['sends'] as const) : [])];
      return { value: 1, events, queued };
    },
    STATEMENTS_ONLY,
  );
}

/** Every statement of these transactions is a db/direct-read.ts statement: a plain transaction, no ORM unit of work. */
const STATEMENTS_ONLY = { statementsOnly: true };

/**
 * CONTRACT §13.1's handoff, on the conversation locked by openConversation: an AI-handled one becomes
 * `human` (no assignee) with `conversation.handoff`; and the AI's replies of the conversation still
 * `pending` and not in flight fail as superseded, with `message.status`. The sender's claim locks the
 * send row (FOR UPDATE SKIP LOCKED) and names its process in the same statement: a send claimed before
 * this update is in flight (claimed_by set, its lease running) and goes on; one this update reaches
 * first is `done` before any claim can see it (the claim skips the locked row and re-checks `pending`).
 * A reply posted meanwhile waits for the conversation's lock, then meets handler `human` (409). (`serve`'s
 * sender always names its process; one run without liveness, in some tests, leaves claimed_by null and its
 * sends in flight look superseded.)
 */
async function takeOver(
  tx: EntityManager,
  p: number,
  agent: WebhookAgent,
  conversation: Record<string, any>,
  events: NewAiEvent[],
): Promise<number> {
  if (conversation.handler === 'ai') {
    const [row] = await run(
      tx,
      `update ai_conversations c set handler = 'human', assignee_id = null, updated_at = now()
        where c.id = ? and c.project_id = ?
        returning c.*, (select count(*)::int from ai_messages m where m.conversation_id = c.id and m.project_id = c.project_id) as messages_count`,
      [conversation.id, p],
    );
    events.push(conversationEvent('conversation.handoff', row, agent, row.messages_count));
  }
  const failed = await run(
    tx,
    `with gone as (
       update ai_message_sends s set status = 'done', next_attempt_at = null, claimed_by = null, last_error = ?
         from ai_messages m
        where s.conversation_id = ? and s.project_id = ? and s.status = 'pending'
          and not (s.claimed_by is not null and s.next_attempt_at > now())
          and m.id = s.message_id and m.role = 'assistant' and m.author_id is null and m.source = 'api'
          and m.order_id is null
        returning s.message_id)
     update ai_messages m set delivery_status = 'failed', delivery_error = ?
       from gone where m.id = gone.message_id and m.project_id = ? and m.delivery_status = 'pending'
     returning m.*`,
    [SUPERSEDED, conversation.id, p, SUPERSEDED, p],
  );
  failed.sort((a, b) => Number(a.id) - Number(b.id));
  for (const row of failed) events.push(messageStatusEvent(row, agent));
  return failed.length;
}
