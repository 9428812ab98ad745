import type { EntityManager } from '@mikro-orm/postgresql';
import { WHATSAPP_WINDOW_MS } from '../../entities/ai-conversation.js';
import type { OrderMessage } from '../../entities/ai-agent.js';
import { messageRecordSql, run } from '../conversations/records.js';
import type { OutboxKind } from '../events/event-log.js';
import { bodyPlaceholderCount } from '../whatsapp/template.service.js';
import { filledBody } from '../whatsapp/template-message.js';

/** What a notice shows of the order (order.service.ts's OrderRecord has it). */
export interface NoticeOrder {
  id: number;
  currency: string | null;
  summary: { total: number | null };
}

/** What a notice needs of the order's conversation, read under its row lock (noticeTarget). */
export interface NoticeTarget {
  conversation_id: number;
  agent_id: number;
  agent_business_id: number | null;
  window_open: boolean;
  /** The agent's notice per status (CONTRACT §15.5), or null. */
  order_messages: Record<string, OrderMessage> | null;
}

/** The order's conversation as a place sees it under its lock: its notices (null: not a WhatsApp conversation) and the ad's credit. */
export interface PlaceTarget {
  notices: NoticeTarget | null;
  agent_id: number;
  /** CONTRACT §15.6: the referral's `ctwa_clid` when the agent also stores `dataset_id` and `access_token`, else null. */
  conversion_clid: string | null;
}

/**
 * What a notice and the ad's credit read of a conversation `c` and its agent `a` (CONTRACT §15.5, §15.6): the agent's
 * business and notices, whether the window is open, whether it is a WhatsApp conversation (a contact, a `whatsapp`
 * agent), and the referral's `ctwa_clid` when the agent stores `dataset_id` and `access_token`. cart.service.ts
 * openCart reads them with the conversation for a place (locked when a notice is to be written: cart.service.ts cartWrite).
 */
export const TARGET_COLUMNS = `a.business_id as agent_business_id, a.order_messages,
       coalesce(c.last_inbound_at > now() - make_interval(secs => ${WHATSAPP_WINDOW_MS / 1000}), false) as window_open,
       coalesce(c.contact, '') <> '' and a.provider = 'whatsapp' as whatsapp,
       case when a.credential_keys @> array['dataset_id', 'access_token']::text[] then nullif(c.referral->>'ctwa_clid', '') end as clid`;

/** The target of a conversation row read with TARGET_COLUMNS (and its `id`, `agent_id`). */
export function targetOf(row: Record<string, any>): PlaceTarget {
  const notices: NoticeTarget | null = row.whatsapp
    ? {
        conversation_id: row.id,
        agent_id: row.agent_id,
        agent_business_id: row.agent_business_id ?? null,
        window_open: row.window_open === true,
        order_messages: row.order_messages ?? null,
      }
    : null;
  return { notices, agent_id: row.agent_id, conversion_clid: row.clid ?? null };
}

/**
 * A move's notice target: the order's conversation, locked (`for no key update`, as every message write locks it:
 * the notice takes its place among the conversation's messages in the order they commit), when it is a WhatsApp
 * conversation; null otherwise (an app conversation: no notice). A move takes it after the order's lock (nothing
 * locks a conversation, then an order); a place takes it with the cart's, before it (openCart).
 */
export async function noticeTarget(tx: EntityManager, projectId: number, conversationId: number | null): Promise<NoticeTarget | null> {
  if (conversationId === null) return null;
  const [row] = await run(
    tx,
    `select c.id, c.agent_id, ${TARGET_COLUMNS}
       from ai_conversations c join ai_agents a on a.id = c.agent_id and a.project_id = c.project_id
      where c.project_id = ? and c.id = ?
      for no key update of c`,
    [projectId, conversationId],
  );
  return row ? targetOf(row).notices : null;
}

/** `{{total}}`: the total with its currency, two decimals (`23.50 EUR`); `-` when the order has none. */
export function totalText(order: NoticeOrder): string {
  const total = order.summary.total;
  if (total === null) return '-';
  return [total.toFixed(2), order.currency].filter(Boolean).join(' ');
}

/** An entry's text with `{{order}}`, `{{total}}` and `{{eta}}` filled. */
export function noticeText(text: string, order: NoticeOrder, reason: string | null): string {
  const values: Record<string, string> = { order: String(order.id), total: totalText(order), eta: reason?.trim() ? reason : '-' };
  return text.replace(/\{\{\s*(order|total|eta)\s*\}\}/g, (_, name: string) => values[name]);
}

/** The agent's entry for `status` when it has a text: a notice to write (writeNotice), else null. */
export function noticeEntry(target: NoticeTarget, status: number): OrderMessage | null {
  const entry = target.order_messages?.[String(status)];
  return entry?.text ? entry : null;
}

/**
 * CONTRACT §15.5: the customer hears that the order was placed (`status` 0) or moved to `status`, in the caller's
 * transaction (the move's), when the agent has an entry for it. Inside the customer service window: a public
 * `assistant` text with the entry's text filled in, `pending`, with its row in the reply outbox (§10.1: sent after
 * every earlier message of the conversation); outside: the entry's template when it is still APPROVED (a `template`
 * message as §10.6 shows one, `pending`, sent by the same outbox with the order id, the total and the reason as its
 * body parameters); else nothing. Each carries `order_id`; its `message.created` goes to the events inbox in the
 * same statement. Returns the outbox kinds it queued rows for.
 */
export async function writeNotice(
  tx: EntityManager,
  projectId: number,
  target: NoticeTarget,
  order: NoticeOrder,
  status: number,
  reason: string | null,
): Promise<OutboxKind[]> {
  const entry = noticeEntry(target, status);
  if (!entry) return [];
  if (target.window_open) {
    await insertNotice(tx, projectId, target, order.id, { type: 'text', content: noticeText(entry.text, order, reason), payload: null });
    return ['sends'];
  }
  if (entry.template_id === null) return [];
  const [template] = await run(
    tx,
    `select id, name, language, components from ai_templates where id = ? and agent_id = ? and status = 'APPROVED'`,
    [entry.template_id, target.agent_id],
  );
  if (!template) return [];
  const values = [String(order.id), totalText(order), reason?.trim() ? reason : '-'];
  const count = bodyPlaceholderCount(template.components);
  const parameters = Array.from({ length: count }, (_, i) => values[i] ?? '-');
  await insertNotice(tx, projectId, target, order.id, {
    type: 'template',
    content: filledBody(template.components, parameters) || String(template.name),
    payload: { template_id: template.id, name: template.name, language: template.language, body_parameters: parameters },
  });
  return ['sends'];
}

/** The notice, its send, the conversation's change and its message.created, in one statement. */
async function insertNotice(
  tx: EntityManager,
  projectId: number,
  target: NoticeTarget,
  orderId: number,
  m: { type: 'text' | 'template'; content: string; payload: Record<string, unknown> | null },
): Promise<void> {
  await run(
    tx,
    `with m as (
       insert into ai_messages (project_id, conversation_id, role, content, public, usage, author_id, created_at, delivery_status,
                                type, payload, reply_to_id, order_id)
       values (?, ?, 'assistant', ?, true, null, null, now(), 'pending', ?, ?::jsonb, null, ?) returning *),
     queued as (
       insert into ai_message_sends (message_id, project_id, conversation_id)
       select id, project_id, conversation_id from m),
     changed as (
       update ai_conversations set updated_at = now(), last_message_at = greatest(last_message_at, now()) where id = ? and project_id = ?),
     inboxed as (
       insert into ai_event_inbox (project_id, type, agent_id, business_id, conversation_id, public, data, created_at)
       select m.project_id, 'message.created', ?::bigint, ?::bigint, m.conversation_id, true, ${messageRecordSql('m')}, clock_timestamp()
         from m)
     select m.id from m`,
    [
      projectId,
      target.conversation_id,
      m.content,
      m.type,
      m.payload ? JSON.stringify(m.payload) : null,
      orderId,
      target.conversation_id,
      projectId,
      target.agent_id,
      target.agent_business_id,
    ],
  );
}
