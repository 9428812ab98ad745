import type { EntityManager } from '@mikro-orm/postgresql';
import { appError } from '../../errors/codes.js';
import type { ConversationHandler } from '../../entities/ai-conversation.js';
import { conversationEvent } from '../conversations/records.js';
import type { NewAiEvent } from '../events/event-log.js';
import type { InboundContent } from './inbound-types.js';
import { messageKey, run, type WebhookAgent } from './webhook-items.js';

/**
 * The (agent, person) conversation a webhook item belongs to (CONTRACT §12.1), and the statements
 * that store an item in it: a customer's message (§9.3) or the business's echo (§13.1).
 */

/** Who an item is about (CONTRACT §12.1): the phone number when Meta shares it, the BSUID, the profile name. */
export interface Sender {
  phone: string | null;
  bsuid: string | null;
  name: string | null;
  /** The contact's WhatsApp username (`profile.username`), when the delivery carried one (CONTRACT §10.5). */
  username: string | null;
}

/** What opening or matching a conversation needs of its agent (a webhook's agent, or a template send's). */
export type ConversationAgent = Pick<WebhookAgent, 'id'> & { business_id?: number | null };

/** How an item is stored: a customer's message, or the business's own from its phone (an echo). */
export interface ItemToStore {
  externalId: string;
  item: InboundContent;
  createdAt: Date;
  echo: boolean;
  /** CONTRACT §13.6: the item's `referral`, read; null when none. */
  referral: Record<string, unknown> | null;
}

/** The user whose country code and cellphone digits, joined, are the contact (same expression as users_phone_digits_idx). */
const USER_BY_PHONE = `(select id from users
   where project_id = ?
     and regexp_replace(coalesce(country_phone_code, ''), '[^0-9]', '', 'g') || regexp_replace(coalesce(cellphone, ''), '[^0-9]', '', 'g') = ?
   order by id limit 1)`;
/** CONTRACT §13.4: the name the business gave (agent, phone number) in its address book; it wins over `profile.name`. */
export const BOOK_NAME = `(select b.name from ai_contact_names b where b.agent_id = ?::bigint and b.phone = ?::text)`;
/**
 * First key of the per-(agent, phone number) lock of the address book's name ("OGnm"): a name's change
 * (fields/state-sync.ts) and the history import's conversations of that number (history-import.ts) take
 * it, so whichever commits second sees the other (issue 67: a name committed while the import was creating
 * the conversation was lost).
 */
export const NAME_LOCK_CLASS = 0x4f476e6d;
/** The name lock's second key for (agent, phone number). */
export const nameLockKey = (agentId: number, phone: string) => `${agentId}:${phone}`;
/** First key of the per-(agent, phone number) lock that serialises the openers of one number ("OGph"). */
const PHONE_LOCK_CLASS = 0x4f477068;

/** The contact's conversation, of this agent, active: same BSUID when both sides have one, else same phone number (CONTRACT §12.1). */
export const MATCH = `select id, handler from ai_conversations
   where project_id = ? and agent_id = ? and status = 'active'
     and ((?::text is not null and contact_user_id = ?::text)
       or (?::text is not null and contact = ?::text and (contact_user_id is null or ?::text is null)))
   order by (contact_user_id is not distinct from ?::text) desc, id
   limit 1
   for no key update`;
export const matchParams = (p: number, agent: ConversationAgent, s: Sender) => [
  p,
  agent.id,
  s.bsuid,
  s.bsuid,
  s.phone,
  s.phone,
  s.bsuid,
  s.bsuid,
];

/** The message of conversation `c` an external id names, in either of the forms Meta gives it (CONTRACT §13.2): the exact id first. */
const IN_CONVERSATION = `from ai_messages r where r.conversation_id = c.id and (r.external_id = ?::text or r.external_key = ?::text)
   order by (r.external_id is not distinct from ?::text) desc, r.id limit 1`;
const inConversation = (externalId: string | null) => [externalId, messageKey(externalId), externalId];

/**
 * The message inserted into the conversation `c` (a CTE of one `id`), as `m`; its file's download
 * job as `med`; the conversation touched as `touched`: for a customer's message the window, the
 * identifiers it learns and the name (a phone number replaces a BSUID in `contact` unless another
 * active conversation of the agent has it); for an echo only the BSUID it names (`to_user_id`) and
 * `updated_at` (CONTRACT §13.1: echoes neither open nor extend the window). The first referral stays the conversation's.
 */
export function insertCtes(p: number, agent: WebhookAgent, s: Sender, it: ItemToStore) {
  const { item } = it;
  const sql = `m as (insert into ai_messages (project_id, conversation_id, role, content, public, created_at, external_id, type, payload, reply_to_id,
                                  source, delivery_status, referral, external_key, referred_product)
       select ?::bigint, c.id, ?::text, ?::text, true, ?::timestamptz, ?::text, ?::text,
              case when ?::text is null then ?::jsonb
                   else jsonb_set(?::jsonb, '{message_id}', coalesce((select to_jsonb(r.id) ${IN_CONVERSATION}), 'null'::jsonb)) end,
              (select r.id ${IN_CONVERSATION}),
              ?::text, ?::text, ?::jsonb, ?::text, ?::jsonb
         from c where exists (select 1 from k)
       returning *),
     med as (insert into ai_media (id, project_id, origin, conversation_id, message_id, agent_id, mime_type, filename, provider_media_id)
       select ?::text, ?::bigint, 'inbound', m.conversation_id, m.id, ?::bigint, ?::text, ?::text, ?::text from m where ?::text is not null),
     touched as (update ai_conversations set updated_at = now(),
         last_inbound_at = case when ?::boolean then greatest(last_inbound_at, (select created_at from m)) else last_inbound_at end,
         contact_user_id = coalesce(contact_user_id, ?::text),
         contact_name = coalesce((select b.name from ai_contact_names b
                                   where b.agent_id = ai_conversations.agent_id and b.phone = coalesce(?::text, ai_conversations.contact)),
                                 ?::text, contact_name),
         profile_name = coalesce(?::text, profile_name),
         contact_username = coalesce(?::text, contact_username),
         contact = case when ?::text is not null and contact is distinct from ?::text and not exists (
                     select 1 from ai_conversations o where o.agent_id = ai_conversations.agent_id and o.status = 'active' and o.contact = ?::text)
                   then ?::text
                   when ?::text is not null and contact is distinct from ?::text and not exists (
                     select 1 from ai_conversations o where o.agent_id = ai_conversations.agent_id and o.status = 'active' and o.contact = ?::text)
                   then ?::text else contact end,
         referral = coalesce(referral, ?::jsonb)
       where project_id = ?::bigint and id in (select conversation_id from m))`;
  const payload = item.payload === null ? null : JSON.stringify(item.payload);
  const referral = it.referral === null ? null : JSON.stringify(it.referral);
  const media = item.media;
  // an echo teaches the conversation only the customer's BSUID (CONTRACT §13.1: `to_user_id`), never a name or a window
  const newContact = it.echo ? null : item.newContact;
  const learn: Sender = it.echo ? { phone: null, bsuid: s.bsuid, name: null, username: null } : s;
  const params = [
    p,
    it.echo ? 'assistant' : 'user',
    item.content,
    it.createdAt,
    it.externalId,
    item.type,
    item.reactedExternalId,
    payload,
    payload,
    ...inConversation(item.reactedExternalId),
    ...inConversation(item.contextId),
    it.echo ? 'business_app' : 'whatsapp',
    it.echo ? 'sent' : null,
    referral,
    messageKey(it.externalId),
    item.referredProduct === null ? null : JSON.stringify(item.referredProduct),
    media?.id ?? null,
    p,
    agent.id,
    media?.mime_type ?? null,
    media?.filename ?? null,
    media?.provider_media_id ?? null,
    media?.id ?? null,
    !it.echo,
    learn.bsuid,
    learn.phone,
    learn.name,
    learn.name,
    learn.username,
    // CONTRACT §12.2: a user_changed_number notice makes its new number the contact (unless another active conversation of the agent has it)
    newContact,
    newContact,
    newContact,
    newContact,
    learn.phone,
    learn.phone,
    learn.phone,
    learn.phone,
    referral,
    p,
  ];
  return { sql, params };
}

/**
 * The active conversation of (agent, person), opened (with `handler`) when none is active. Openers of
 * one phone number take a lock first (one number may be two people with different BSUIDs, so no unique
 * index can decide between them); the partial unique indexes ai_conversations_active_contact_uq (agent,
 * contact, for conversations without a BSUID) and ai_conversations_active_user_uq (agent, BSUID)
 * decide the other races: a concurrent opener's insert waits for the winner's commit, then does
 * nothing and reads the winner's row.
 */
export async function openConversation(
  tx: EntityManager,
  projectId: number,
  agent: ConversationAgent,
  sender: Sender,
  events: NewAiEvent[],
  handler: ConversationHandler = 'ai',
): Promise<Record<string, any>> {
  const contact = sender.phone ?? sender.bsuid;
  const [active] = await run(tx, MATCH, matchParams(projectId, agent, sender));
  if (active) return active;
  if (sender.phone) await run(tx, `select pg_advisory_xact_lock(?, hashtext(?))`, [PHONE_LOCK_CLASS, `${agent.id}:${sender.phone}`]);
  for (let attempt = 0; attempt < 3; attempt++) {
    // Locked like the write routes lock it, so the idle sweeper cannot close it under this message.
    const [existing] = await run(tx, MATCH, matchParams(projectId, agent, sender));
    if (existing) return existing;
    const [opened] = await run(
      tx,
      `insert into ai_conversations (project_id, agent_id, user_id, business_id, contact, contact_user_id, contact_name, profile_name,
                                     contact_username, status, usage, handler)
       values (?, ?, ${USER_BY_PHONE}, ?, ?, ?, coalesce(${BOOK_NAME}, ?::text), ?, ?, 'active', '{}', ?)
       on conflict do nothing
       returning *`,
      [
        projectId,
        agent.id,
        projectId,
        sender.phone,
        agent.business_id ?? null,
        contact,
        sender.bsuid,
        agent.id,
        sender.phone,
        sender.name,
        sender.name,
        sender.username,
        handler,
      ],
    );
    if (opened) {
      events.push(conversationEvent('conversation.created', opened, agent, 0));
      return opened;
    }
  }
  throw appError('ERROR_INTERNAL');
}
