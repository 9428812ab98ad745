import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../../context/index.js';
import { conversationEvent, messageRecord } from '../../conversations/records.js';
import { writeWithEvents, type NewAiEvent } from '../../events/event-log.js';
import { applyEarlyStatuses, knownExternalId, lockExternalId, messageStatusEvent } from '../delivery.js';
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

/** CONTRACT §13.1: the types an echo is stored as (those §12.4 can send); others are logged and skipped. */
const ECHO_TYPES: ReadonlySet<string> = new Set([
  'text',
  'image',
  'audio',
  'video',
  'document',
  'sticker',
  'location',
  'contacts',
  'interactive',
  'reaction',
]);
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
  const to: Sender = { phone: phoneOf(e.to), bsuid: phoneOf(e.to) ? null : bsuidOf(e.to), name: null };
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

/**
 * One echo in one transaction: deduplicated with every message of the agent (the send-answer lock
 * first, so a reply of ours whose answer is being stored is seen), the conversation locked (or
 * opened with handler `human`), the handoff, the message, and what came for it early (statuses, edits).
 */
async function storeInTransaction(ctx: RequestContext, agent: WebhookAgent, to: Sender, it: ItemToStore): Promise<number> {
  const p = ctx.project.id;
  return writeWithEvents(ctx, async (tx) => {
    await lockExternalId(tx, agent.id, it.externalId);
    if (await knownExternalId(tx, p, agent.id, it.externalId)) return { value: 0, events: [] }; // ours, or stored already
    const [key] = await run(
      tx,
      `insert into ai_inbound_message_ids (agent_id, external_id, project_id) values (?, ?, ?) on conflict do nothing returning 1 as fresh`,
      [agent.id, it.externalId, p],
    );
    if (!key) return { value: 0, events: [] };
    const events: NewAiEvent[] = [];
    const conversation = await openConversation(tx, p, agent, to, events, 'human');
    await takeOver(tx, p, agent, conversation, events);
    const ctes = insertCtes(p, agent, to, it);
    const [message] = await run(tx, `with c as (select ?::int as id), k as (select 1), ${ctes.sql} select * from m`, [
      conversation.id,
      ...ctes.params,
    ]);
    events.push({
      type: 'message.created',
      data: messageRecord(message),
      agent_id: agent.id,
      business_id: agent.business_id,
      conversation_id: message.conversation_id,
      public: true,
    });
    const early = await applyEarlyStatuses(tx, p, [{ agentId: agent.id, externalId: it.externalId }]);
    for (const moved of early.get(`${agent.id}:${it.externalId}`) ?? []) events.push(messageStatusEvent(moved, agent));
    await applyEarlyChanges(tx, p, agent, message, events);
    return { value: 1, events, queued: it.item.media ? ['downloads', 'sends'] : ['sends'] };
  });
}

/**
 * CONTRACT §13.1's handoff, on the conversation locked by openConversation: an AI-handled one becomes
 * `human` (no assignee) with `conversation.handoff`; and the AI's replies of the conversation still
 * `pending` and not in flight fail as superseded, with `message.status`. The sender's claim locks the
 * send row (FOR UPDATE SKIP LOCKED) and names its process in the same statement: a send claimed before
 * this update is in flight (claimed_by set, its lease running) and goes on; one this update reaches
 * first is `done` before any claim can see it (the claim skips the locked row and re-checks `pending`).
 * A reply posted meanwhile waits for the conversation's lock, then meets handler `human` (409).
 */
async function takeOver(
  tx: EntityManager,
  p: number,
  agent: WebhookAgent,
  conversation: Record<string, any>,
  events: NewAiEvent[],
): Promise<void> {
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
        returning s.message_id)
     update ai_messages m set delivery_status = 'failed', delivery_error = ?
       from gone where m.id = gone.message_id and m.project_id = ? and m.delivery_status = 'pending'
     returning m.*`,
    [SUPERSEDED, conversation.id, p, SUPERSEDED, p],
  );
  failed.sort((a, b) => Number(a.id) - Number(b.id));
  for (const row of failed) events.push(messageStatusEvent(row, agent));
}
