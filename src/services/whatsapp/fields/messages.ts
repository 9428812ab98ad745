import type { RequestContext } from '../../../context/index.js';
import { messageRecord, messageRecordSql } from '../../conversations/records.js';
import { appendEvents, writeWithEvents, type NewAiEvent } from '../../events/event-log.js';
import type { WriteResult } from '../../conversations/write-batches.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MOVES_FROM, moveTemplateSend, templateSendEvent } from '../template-send.service.js';
import { readInbound } from '../inbound-types.js';
import { keepEarlyStatus, knownExternalId, lockExternalId, messageStatusEvent, moveMessageStatus, type StatusMove } from '../delivery.js';
import { applyEarlyChanges, changeOf, receiveChange } from '../message-changes.js';
import { readReferral } from '../referral.js';
import { cartFromCatalog, type OrderConversation } from '../../orders/index.js';
import { insertCtes, MATCH, matchParams, openConversation, type ItemToStore, type Sender } from '../stored-items.js';
import {
  bsuidOf,
  clip,
  externalIdOf,
  isObject,
  messageKey,
  optionalList,
  phoneOf,
  run,
  skip,
  unixSeconds,
  type WebhookAgent,
  type WebhookChange,
} from '../webhook-items.js';

/**
 * Field `messages` (CONTRACT §9.3, §12, §13.2, §13.6): the customers' messages into the (agent,
 * contact) conversation, their edits and revokes onto the messages they change, and delivery
 * statuses into the send log or onto the replies. Each item in its own transaction, so what was
 * stored before a crash stays and Meta's retry stores only the rest.
 */
export async function receiveMessages(ctx: RequestContext, change: WebhookChange): Promise<void> {
  const { agent, value, where, problems, result } = change;
  if (!agent) return; // naming no enabled agent of the project: ignored (CONTRACT §9.3)
  for (const [m, message] of optionalList(value.messages, `${where}.value.messages`, problems).entries()) {
    result.messages += await storeMessage(ctx, agent, message, value.contacts, `${where}.value.messages[${m}]`, problems);
  }
  for (const [s, status] of optionalList(value.statuses, `${where}.value.statuses`, problems).entries()) {
    result.statuses += await moveStatus(ctx, agent, status, `${where}.value.statuses[${s}]`, problems);
  }
}

/** Meta's statuses that say nothing about delivery (CONTRACT §10.1). */
const IGNORED_STATUSES: ReadonlySet<string> = new Set(['played', 'deleted', 'warning']);
const MAX_NAME = 256;

/** One inbound message, in its own transaction: 1 when stored, 0 when skipped (a retry, unusable, an edit or a revoke). */
async function storeMessage(
  ctx: RequestContext,
  agent: WebhookAgent,
  m: unknown,
  contacts: unknown,
  where: string,
  problems: string[],
): Promise<number> {
  if (!isObject(m)) return skip(problems, `${where}: not a message`);
  const id = externalIdOf(m.id);
  if (!id) return skip(problems, `${where}: no usable id`);
  const phone = phoneOf(m.from);
  const entry = contactEntry(contacts, phone, bsuidOf(m.from_user_id));
  // CONTRACT §12.1: the contacts[] entry's user_id is the BSUID when the item lacks from_user_id
  const bsuid = bsuidOf(m.from_user_id) ?? bsuidOf(isObject(entry) ? entry.user_id : undefined);
  // CONTRACT §12.1: skipped only when neither the phone number nor the BSUID is usable
  if (!phone && !bsuid) return skip(problems, `${where}: no usable from or from_user_id`);
  const createdAt = unixSeconds(m.timestamp);
  // Without its time a message cannot be dated (nor open the customer service window): skipped (CONTRACT §9.3).
  if (!createdAt) return skip(problems, `${where}: timestamp ${clip(m.timestamp)} is not Unix seconds`);
  const edit = changeOf(m);
  if (edit) return receiveChange(ctx, agent, edit, createdAt, where, problems);
  const sender: Sender = { phone, bsuid, name: profileName(entry), username: profileName(entry, 'username') };
  const item = readInbound(m);
  if (item.type === 'unsupported' && m.type !== 'unsupported') problems.push(`${where}: ${clip(m.type)} stored as unsupported`);
  const it: ItemToStore = { externalId: id, item, createdAt, echo: false, referral: readReferral(m.referral) };

  for (let attempt = 0; ; attempt++) {
    try {
      // a catalog cart also replaces the conversation's cart (CONTRACT §15.2): the transaction of storeOpening
      const intoActive = it.item.type === 'order' ? null : await storeInActive(ctx, agent, sender, it);
      if (intoActive !== null) return intoActive;
      return await storeOpening(ctx, agent, sender, it);
    } catch (err) {
      // another delivery of the same person took the contact or BSUID a moment ago: once more reads its conversation
      if ((err as { code?: string }).code !== '23505' || attempt > 0) throw err;
    }
  }
}

/**
 * The contact's first message (or its conversation was closed), or a message that changes or was
 * changed early: in one transaction, the message's key first (a concurrent delivery of the same id
 * waits on it, then finds it taken), then the active conversation (another delivery may have opened
 * it meanwhile) or a new one, then the message, then the edits and revokes that came before it.
 */
async function storeOpening(ctx: RequestContext, agent: WebhookAgent, sender: Sender, it: ItemToStore): Promise<number> {
  const p = ctx.project.id;
  return writeWithEvents(ctx, async (tx) => {
    const [key] = await run(
      tx,
      `insert into ai_inbound_message_ids (agent_id, external_id, project_id) values (?, ?, ?) on conflict do nothing returning 1 as fresh`,
      [agent.id, it.externalId, p],
    );
    if (!key) return { value: 0, events: [] }; // already stored: Meta retried
    const events: NewAiEvent[] = [];
    const conversation = await openConversation(tx, p, agent, sender, events);
    const ctes = insertCtes(p, agent, sender, it);
    const [message] = await run(tx, `with c as (select ?::bigint as id), k as (select 1), ${ctes.sql} select * from m`, [
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
    await applyEarlyChanges(tx, p, agent, message, events);
    const catalog = it.item.type === 'order';
    if (catalog) {
      // the message's events first, then the cart's cart.updated (which its own statement puts in the inbox)
      await appendEvents(tx, p, events.splice(0));
      await cartFromCatalog(tx, p, agent, conversation as OrderConversation, catalogItems(it.item.payload));
    }
    return { value: 1, events, inboxed: catalog, queued: it.item.media ? ['downloads'] : [] };
  });
}

/**
 * One status, in its own transaction: 1 when it moved a template send or a reply forward, else 0.
 * A status whose id matches nothing yet is kept for the reply whose send answer is still on its
 * way (CONTRACT §10.1); `played`, `deleted` and `warning` say nothing about delivery: ignored.
 */
async function moveStatus(ctx: RequestContext, agent: WebhookAgent, s: unknown, where: string, problems: string[]): Promise<number> {
  if (!isObject(s)) return skip(problems, `${where}: not a status`);
  const { status } = s;
  const id = externalIdOf(s.id);
  if (!id) return skip(problems, `${where}: no usable id`);
  if (typeof status === 'string' && IGNORED_STATUSES.has(status)) return 0;
  if (typeof status !== 'string' || !Object.hasOwn(MOVES_FROM, status)) return skip(problems, `${where}: status ${clip(status)} unknown`);
  const next = status as StatusMove;
  return writeWithEvents(ctx, async (tx) => {
    // a template send is also a message of its conversation (CONTRACT §10.6): the status moves both
    await lockExternalId(tx, agent.id, id);
    const send = await moveTemplateSend(tx, ctx.project.id, agent.id, id, next, next === 'failed' ? firstErrorTitle(s.errors) : null);
    const message = await moveMessageStatus(tx, ctx.project.id, agent.id, id, next, next === 'failed' ? firstErrorCode(s.errors) : null);
    const events = [
      ...(send ? [templateSendEvent('template.status', send, agent)] : []),
      ...(message ? [messageStatusEvent(message, agent)] : []),
    ];
    if (events.length) return { value: 1, events };
    if (!(await knownExternalId(tx, ctx.project.id, agent.id, id)))
      await keepEarlyStatus(tx, agent.id, id, next, next === 'failed' ? firstErrorCode(s.errors) : null);
    return { value: 0, events: [] };
  });
}

/**
 * The common case in one statement of the project's inbound batch (conversations/write-batches.ts: shared
 * with concurrent deliveries, one commit and one sequencer pass; one round trip instead of four): when the
 * contact has an active conversation, its row is locked, the message's key taken, the message and its
 * file's download job stored, the conversation touched and its message.created put in the events inbox.
 * 1 when stored, 0 when the key was taken (Meta retried; a concurrent delivery of the same id waits on the
 * conversation's row or the key, then finds it taken); null when the contact has no active conversation,
 * or an edit or revoke of this id came first: nothing was written, and storeOpening's transaction stores it.
 */
function storeInActive(ctx: RequestContext, agent: WebhookAgent, sender: Sender, it: ItemToStore): Promise<number | null> {
  return ctx.services.conversationWrites.inBatch('inbound', {
    ctx,
    order: `${agent.id}\u0000${sender.phone ?? ''}\u0000${sender.bsuid ?? ''}`,
    oneStatement: true,
    work: (tx) => inActive(tx, ctx.project.id, agent, sender, it),
  });
}

async function inActive(
  tx: EntityManager,
  p: number,
  agent: WebhookAgent,
  sender: Sender,
  it: ItemToStore,
): Promise<WriteResult<number | null>> {
  const ctes = insertCtes(p, agent, sender, it);
  const [row] = await run(
    tx,
    `with early as (select exists (select 1 from ai_early_changes where agent_id = ? and (external_id = ? or external_key = ?)) as e),
     c as (${MATCH}),
     k as (insert into ai_inbound_message_ids (agent_id, external_id, project_id)
           select ?, ?, ? where exists (select 1 from c) and not (select e from early)
           on conflict do nothing returning 1),
     ${ctes.sql},
     ev as (insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
            select ?, 'message.created', ?, ?, m.conversation_id, true, ${messageRecordSql('m')}, clock_timestamp() from m)
     select exists (select 1 from c) and not (select e from early) as active, exists (select 1 from k) as fresh`,
    [
      agent.id,
      it.externalId,
      messageKey(it.externalId),
      ...matchParams(p, agent, sender),
      agent.id,
      it.externalId,
      p,
      ...ctes.params,
      p,
      agent.id,
      agent.business_id,
    ],
  );
  if (!row.active) return { value: null, wrote: false };
  if (!row.fresh) return { value: 0, wrote: false };
  return { value: 1, wrote: true, queued: it.item.media ? ['downloads'] : [] };
}

/** A stored `order` message's items (inbound-types.ts): their retailer ids and quantities; Meta's item_price is never read. */
function catalogItems(payload: unknown): { product_retailer_id: string | null; quantity: number | null }[] {
  const items = isObject(payload) && Array.isArray(payload.items) ? payload.items : [];
  return items.filter(isObject).map((i) => ({
    product_retailer_id: typeof i.product_retailer_id === 'string' ? i.product_retailer_id : null,
    quantity: typeof i.quantity === 'number' ? i.quantity : null,
  }));
}

/** The item's `contacts[]` entry: by wa_id or user_id, else the only one. */
function contactEntry(contacts: unknown, phone: string | null, bsuid: string | null): unknown {
  if (!Array.isArray(contacts)) return undefined;
  const found = contacts.find((c) => isObject(c) && ((phone && c.wa_id === phone) || (bsuid && c.user_id === bsuid)));
  return found ?? (contacts.length === 1 && isObject(contacts[0]) && (!phone || contacts[0].wa_id === undefined) ? contacts[0] : undefined);
}

/** Its `profile.name` (or another member of the profile), when given. */
function profileName(entry: unknown, member: 'name' | 'username' = 'name'): string | null {
  const name = isObject(entry) && isObject(entry.profile) ? entry.profile[member] : undefined;
  return typeof name === 'string' && name.trim() ? name.replaceAll('\u0000', '').slice(0, MAX_NAME) : null;
}

/** A reply's `delivery_error` from a failed status: `"CODE: TITLE"` of its first error (CONTRACT §10.1). */
function firstErrorCode(errors: unknown): string | null {
  const first = Array.isArray(errors) ? errors[0] : undefined;
  const title = firstErrorTitle(errors);
  const code = isObject(first) && (typeof first.code === 'number' || typeof first.code === 'string') ? String(first.code) : null;
  if (code && title) return `${code}: ${title}`.slice(0, 1000);
  return title ?? code;
}

function firstErrorTitle(errors: unknown): string | null {
  const first = Array.isArray(errors) ? errors[0] : undefined;
  const title = isObject(first) ? (first.title ?? first.message) : undefined;
  return typeof title === 'string' && title ? title.slice(0, 1000) : null;
}
