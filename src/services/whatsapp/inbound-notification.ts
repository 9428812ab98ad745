import type { EntityManager } from '@mikro-orm/postgresql';
import { appError, validationError } from '../../errors/codes.js';
import type { RequestContext, VerifiedWebhook } from '../../context/index.js';
import { assertAiModule } from '../identity/access.js';
import { conversationEvent, messageRecord, messageRecordSql } from '../conversations/records.js';
import { eventsCommitted, writeWithEvents, type NewAiEvent } from '../events/event-log.js';
import { MOVES_FROM, moveTemplateSend, templateSendEvent } from './template-send.service.js';
import { readInbound, type InboundContent } from './inbound-types.js';
import { keepEarlyStatus, knownExternalId, lockExternalId, messageStatusEvent, moveMessageStatus, type StatusMove } from './delivery.js';

/**
 * A WhatsApp notification whose signature the gateway verified (CONTRACT §9.3), read and stored:
 * inbound messages into the (agent, contact) conversation, delivery statuses into the send log
 * or onto the replies.
 */

type WebhookAgent = VerifiedWebhook['agents'][number];

export interface WhatsAppDeliveryResult {
  messages: number;
  statuses: number;
}

/** Meta's statuses that say nothing about delivery (CONTRACT §10.1). */
const IGNORED_STATUSES: ReadonlySet<string> = new Set(['played', 'deleted', 'warning']);
/** `ai_conversations.contact` and `ai_inbound_message_ids.external_id` widths. */
const MAX_CONTACT = 64;
const MAX_EXTERNAL_ID = 128;
/** What the log line about an unusable part keeps of it. */
const MAX_LOGGED_PROBLEMS = 20;

/** The user whose country code and cellphone digits, joined, are the contact (same expression as users_phone_digits_idx). */
export const USER_BY_PHONE = `(select id from users
   where project_id = ?
     and regexp_replace(coalesce(country_phone_code, ''), '[^0-9]', '', 'g') || regexp_replace(coalesce(cellphone, ''), '[^0-9]', '', 'g') = ?
   order by id limit 1)`;

/**
 * The notification itself (the operation the gateway runs once WhatsAppInboundService.authenticate
 * passed). Each message and each status is written in its own transaction, so what was stored
 * before a crash stays and Meta's retry stores only the rest. Unusable parts are skipped and logged once.
 */
export async function receiveNotification(ctx: RequestContext, payload: unknown): Promise<WhatsAppDeliveryResult> {
  const webhook = ctx.webhook;
  if (!webhook) throw appError('ERROR_WEBHOOK_SIGNATURE');
  assertAiModule(ctx);
  const byPhone = new Map(webhook.agents.map((a) => [a.phone_number_id, a]));
  const problems: string[] = [];
  const result: WhatsAppDeliveryResult = { messages: 0, statuses: 0 };
  if (!isObject(payload)) throw validationError([{ field: 'body', rule: 'object' }]);
  if (payload.object !== undefined && payload.object !== 'whatsapp_business_account')
    problems.push('object is not whatsapp_business_account');

  for (const [e, entry] of list(payload.entry, 'entry', problems).entries()) {
    for (const [c, change] of list(isObject(entry) ? entry.changes : undefined, `entry[${e}].changes`, problems).entries()) {
      const where = `entry[${e}].changes[${c}]`;
      if (!isObject(change) || !isObject(change.value)) {
        problems.push(`${where}: not a change`);
        continue;
      }
      if (change.field !== 'messages') {
        problems.push(`${where}: field ${clip(change.field)} ignored`);
        continue;
      }
      const phone = isObject(change.value.metadata) ? change.value.metadata.phone_number_id : undefined;
      const agent = typeof phone === 'string' ? byPhone.get(phone) : undefined;
      if (!agent) continue; // naming no enabled agent of the project: ignored (CONTRACT §9.3)
      const { messages, statuses } = change.value;
      for (const [m, message] of optionalList(messages, `${where}.value.messages`, problems).entries()) {
        result.messages += await storeMessage(ctx, agent, message, change.value.contacts, `${where}.value.messages[${m}]`, problems);
      }
      for (const [s, status] of optionalList(statuses, `${where}.value.statuses`, problems).entries()) {
        result.statuses += await moveStatus(ctx, agent, status, `${where}.value.statuses[${s}]`, problems);
      }
    }
  }
  if (problems.length) {
    ctx.log.warn(
      { unusable: problems.slice(0, MAX_LOGGED_PROBLEMS), count: problems.length, stored: result },
      'whatsapp notification partly unusable',
    );
  }
  return result;
}

/** Who sent an item (CONTRACT §12.1): the phone number when Meta shares it, the BSUID, the profile name. */
interface Sender {
  phone: string | null;
  bsuid: string | null;
  name: string | null;
  /** The contact's WhatsApp username (`profile.username`), when the delivery carried one (CONTRACT §10.5). */
  username: string | null;
}

/** A BSUID: two letters, a period, letters and digits (parent ids add segments: `US.ENT.…`). */
const BSUID = /^[A-Za-z]{2}(\.[A-Za-z0-9]{1,128}){1,3}$/;
const MAX_NAME = 256;

/** One inbound message, in its own transaction: 1 when stored, 0 when skipped (a retry, or unusable). */
async function storeMessage(
  ctx: RequestContext,
  agent: WebhookAgent,
  m: unknown,
  contacts: unknown,
  where: string,
  problems: string[],
): Promise<number> {
  if (!isObject(m)) return skip(problems, `${where}: not a message`);
  const { id } = m;
  if (typeof id !== 'string' || !id || id.length > MAX_EXTERNAL_ID) return skip(problems, `${where}: no usable id`);
  const phone = typeof m.from === 'string' && /^[0-9]{1,64}$/.test(m.from) && m.from.length <= MAX_CONTACT ? m.from : null;
  const bsuid = typeof m.from_user_id === 'string' && m.from_user_id.length <= 200 && BSUID.test(m.from_user_id) ? m.from_user_id : null;
  // CONTRACT §12.1: skipped only when neither the phone number nor the BSUID is usable
  if (!phone && !bsuid) return skip(problems, `${where}: no usable from or from_user_id`);
  const createdAt = unixSeconds(m.timestamp);
  // Without its time a message cannot be dated (nor open the customer service window): skipped (CONTRACT §9.3).
  if (!createdAt) return skip(problems, `${where}: timestamp ${clip(m.timestamp)} is not Unix seconds`);
  const sender: Sender = {
    phone,
    bsuid,
    name: profileName(contacts, phone, bsuid),
    username: profileName(contacts, phone, bsuid, 'username'),
  };
  const item = readInbound(m);
  if (item.type === 'unsupported' && m.type !== 'unsupported') problems.push(`${where}: ${clip(m.type)} stored as unsupported`);

  for (let attempt = 0; ; attempt++) {
    try {
      const intoActive = await storeInActive(ctx, agent, sender, id, item, createdAt);
      if (intoActive !== null) return intoActive;
      return await storeOpening(ctx, agent, sender, id, item, createdAt);
    } catch (err) {
      // another delivery of the same person took the contact or BSUID a moment ago: once more reads its conversation
      if ((err as { code?: string }).code !== '23505' || attempt > 0) throw err;
    }
  }
}

/** The contact's conversation, of this agent, active: same BSUID when both sides have one, else same phone number (CONTRACT §12.1). */
const MATCH = `select id from ai_conversations
   where project_id = ? and agent_id = ? and status = 'active'
     and ((?::text is not null and contact_user_id = ?::text)
       or (?::text is not null and contact = ?::text and (contact_user_id is null or ?::text is null)))
   order by (contact_user_id is not distinct from ?::text) desc, id
   limit 1
   for no key update`;
const matchParams = (p: number, agent: WebhookAgent, s: Sender) => [p, agent.id, s.bsuid, s.bsuid, s.phone, s.phone, s.bsuid, s.bsuid];

/**
 * The message inserted into the conversation `c` (a CTE of one `id`), as `m`; its file's download
 * job as `med`; the conversation touched (window, the identifiers it learns, the name) as `touched`.
 * A phone number replaces a BSUID in `contact` unless another active conversation of the agent has it.
 */
function insertCtes(p: number, agent: WebhookAgent, s: Sender, externalId: string, item: InboundContent, createdAt: Date) {
  const sql = `m as (insert into ai_messages (project_id, conversation_id, role, content, public, created_at, external_id, type, payload, reply_to_id)
       select ?, c.id, 'user', ?, true, ?::timestamptz, ?, ?,
              case when ?::text is null then ?::jsonb
                   else jsonb_set(?::jsonb, '{message_id}', coalesce((select to_jsonb(r.id) from ai_messages r
                          where r.external_id = ?::text and r.conversation_id = c.id order by r.id limit 1), 'null'::jsonb)) end,
              (select r.id from ai_messages r where r.external_id = ?::text and r.conversation_id = c.id order by r.id limit 1)
         from c where exists (select 1 from k)
       returning *),
     med as (insert into ai_media (id, project_id, origin, conversation_id, message_id, agent_id, mime_type, filename, provider_media_id)
       select ?::text, ?, 'inbound', m.conversation_id, m.id, ?, ?, ?, ? from m where ?::text is not null),
     touched as (update ai_conversations set updated_at = now(), last_inbound_at = greatest(last_inbound_at, (select created_at from m)),
         contact_user_id = coalesce(contact_user_id, ?::text),
         contact_name = coalesce(?::text, contact_name),
         contact_username = coalesce(?::text, contact_username),
         contact = case when ?::text is not null and contact is distinct from ?::text and not exists (
                     select 1 from ai_conversations o where o.agent_id = ai_conversations.agent_id and o.status = 'active' and o.contact = ?::text)
                   then ?::text else contact end
       where project_id = ? and id in (select conversation_id from m))`;
  const payload = item.payload === null ? null : JSON.stringify(item.payload);
  const media = item.media;
  const params = [
    p,
    item.content,
    createdAt,
    externalId,
    item.type,
    item.reactedExternalId,
    payload,
    payload,
    item.reactedExternalId,
    item.contextId,
    media?.id ?? null,
    p,
    agent.id,
    media?.mime_type ?? null,
    media?.filename ?? null,
    media?.provider_media_id ?? null,
    media?.id ?? null,
    s.bsuid,
    s.name,
    s.username,
    s.phone,
    s.phone,
    s.phone,
    s.phone,
    p,
  ];
  return { sql, params };
}

/**
 * The contact's first message (or its conversation was closed): in one transaction, the message's
 * key first (a concurrent delivery of the same id waits on it, then finds it taken), then the
 * active conversation (another delivery may have opened it meanwhile) or a new one, then the message.
 */
async function storeOpening(
  ctx: RequestContext,
  agent: WebhookAgent,
  sender: Sender,
  externalId: string,
  item: InboundContent,
  createdAt: Date,
): Promise<number> {
  const p = ctx.project.id;
  return writeWithEvents(ctx, async (tx) => {
    const [key] = await run(
      tx,
      `insert into ai_inbound_message_ids (agent_id, external_id, project_id) values (?, ?, ?) on conflict do nothing returning 1 as fresh`,
      [agent.id, externalId, p],
    );
    if (!key) return { value: 0, events: [] }; // already stored: Meta retried
    const events: NewAiEvent[] = [];
    const conversation = await openConversation(tx, p, agent, sender, events);
    const ctes = insertCtes(p, agent, sender, externalId, item, createdAt);
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
    return { value: 1, events, queued: item.media ? ['downloads'] : [] };
  });
}

/**
 * One status, in its own transaction: 1 when it moved a template send or a reply forward, else 0.
 * A status whose id matches nothing yet is kept for the reply whose send answer is still on its
 * way (CONTRACT §10.1); `played`, `deleted` and `warning` say nothing about delivery: ignored.
 */
async function moveStatus(ctx: RequestContext, agent: WebhookAgent, s: unknown, where: string, problems: string[]): Promise<number> {
  if (!isObject(s)) return skip(problems, `${where}: not a status`);
  const { id, status } = s;
  if (typeof id !== 'string' || !id || id.length > MAX_EXTERNAL_ID) return skip(problems, `${where}: no usable id`);
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
 * The common case in one statement, atomic without a transaction (one round trip instead of four):
 * when the contact has an active conversation, its row is locked, the message's key taken, the
 * message and its file's download job stored, the conversation touched and its message.created put
 * in the events inbox. 1 when stored, 0 when the key was taken (Meta retried; a concurrent delivery
 * of the same id waits on the conversation's row, then finds it taken); null when the contact has no
 * active conversation: nothing was written, and storeOpening's transaction opens one.
 */
async function storeInActive(
  ctx: RequestContext,
  agent: WebhookAgent,
  sender: Sender,
  externalId: string,
  item: InboundContent,
  createdAt: Date,
): Promise<number | null> {
  const p = ctx.project.id;
  const ctes = insertCtes(p, agent, sender, externalId, item, createdAt);
  const [row] = await ctx.em.getConnection().execute<{ active: boolean; fresh: boolean }[]>(
    `with c as (${MATCH}),
     k as (insert into ai_inbound_message_ids (agent_id, external_id, project_id)
           select ?, ?, ? where exists (select 1 from c)
           on conflict do nothing returning 1),
     ${ctes.sql},
     ev as (insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
            select ?, 'message.created', ?, ?, m.conversation_id, true, ${messageRecordSql('m')}, clock_timestamp() from m)
     select exists (select 1 from c) as active, exists (select 1 from k) as fresh`,
    [...matchParams(p, agent, sender), agent.id, externalId, p, ...ctes.params, p, agent.id, agent.business_id],
    'all',
  );
  if (!row.active) return null;
  if (!row.fresh) return 0;
  await eventsCommitted(ctx, item.media ? ['downloads'] : []);
  return 1;
}

/**
 * The active conversation of (agent, person), opened when none is active. The partial unique indexes
 * ai_conversations_active_contact_uq (agent, contact) and ai_conversations_active_user_uq (agent,
 * BSUID) decide races: a concurrent opener's insert waits for the winner's commit, then does nothing
 * and reads the winner's row.
 */
async function openConversation(
  tx: EntityManager,
  projectId: number,
  agent: WebhookAgent,
  sender: Sender,
  events: NewAiEvent[],
): Promise<Record<string, any>> {
  const contact = sender.phone ?? sender.bsuid;
  for (let attempt = 0; attempt < 3; attempt++) {
    // Locked like the write routes lock it, so the idle sweeper cannot close it under this message.
    const [existing] = await run(tx, MATCH, matchParams(projectId, agent, sender));
    if (existing) return existing;
    const [opened] = await run(
      tx,
      `insert into ai_conversations (project_id, agent_id, user_id, business_id, contact, contact_user_id, contact_name, contact_username,
         status, usage)
       values (?, ?, ${USER_BY_PHONE}, ?, ?, ?, ?, ?, 'active', '{}')
       on conflict do nothing
       returning *`,
      [projectId, agent.id, projectId, sender.phone, agent.business_id, contact, sender.bsuid, sender.name, sender.username],
    );
    if (opened) {
      events.push(conversationEvent('conversation.created', opened, agent, 0));
      return opened;
    }
  }
  // The phone number is another person's conversation (a different BSUID): the message joins the
  // conversation that holds the number rather than being lost.
  const [holder] = await run(
    tx,
    `select id from ai_conversations where project_id = ? and agent_id = ? and status = 'active' and (contact = ? or contact_user_id = ?)
      order by id limit 1 for no key update`,
    [projectId, agent.id, contact, sender.bsuid],
  );
  if (holder) return holder;
  throw appError('ERROR_INTERNAL');
}

function run(tx: EntityManager, sql: string, params: unknown[]): Promise<Record<string, any>[]> {
  return tx.getConnection().execute<Record<string, any>[]>(sql, params, 'all', tx.getTransactionContext());
}

/** The `profile.name` (or another member of the profile) of the item's `contacts[]` entry (by wa_id or user_id), when given. */
function profileName(contacts: unknown, phone: string | null, bsuid: string | null, member: 'name' | 'username' = 'name'): string | null {
  if (!Array.isArray(contacts)) return null;
  const entry = contacts.find((c) => isObject(c) && ((phone && c.wa_id === phone) || (bsuid && c.user_id === bsuid)));
  const name = isObject(entry) && isObject(entry.profile) ? entry.profile[member] : undefined;
  return typeof name === 'string' && name.trim() ? name.replaceAll('\u0000', '').slice(0, MAX_NAME) : null;
}

/** Unix seconds (a number or its decimal text, Meta sends text) as a Date; null when it is not one. */
function unixSeconds(v: unknown): Date | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^[0-9]{1,12}$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 253_402_300_799) return null;
  return new Date(n * 1000);
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

/** An array where one is required; anything else is logged and read as empty. */
function list(v: unknown, where: string, problems: string[]): unknown[] {
  if (Array.isArray(v)) return v;
  problems.push(`${where}: not an array`);
  return [];
}

/** An array that may be absent. */
function optionalList(v: unknown, where: string, problems: string[]): unknown[] {
  return v === undefined ? [] : list(v, where, problems);
}

function skip(problems: string[], problem: string): 0 {
  problems.push(problem);
  return 0;
}

const clip = (v: unknown) => JSON.stringify(v ?? null).slice(0, 40);

export function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
