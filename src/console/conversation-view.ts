/* OrderGraph console: how a conversation and a message read in the inbox: the contact, the queue's preview, the
 * window's time left, who a message is from and its delivery tick (the message's body is message-view.ts). */
import type { Conversation, Message } from './api-types.js';
import * as dom from './dom.js';
import { h } from './dom.js';
import { lang, n, t } from './i18n.js';

/** The queue's row of a message (`params=last_message.…`). */
export interface LastMessage {
  id: number;
  role: string;
  content: string;
  created_at: string;
  edited_at: string | null;
  revoked_at: string | null;
}
/** A conversation as the queue holds it: the API's, with the fields `params` adds and the row's own mark. */
export type Conv = Conversation & {
  last_message?: LastMessage | null;
  agent?: { name: string; enabled: boolean; provider?: string } | null;
  /** 'edited' or 'was_deleted': the row's mark until it is opened. */
  changed?: string | null;
};
const TICKS: Record<string, string> = { pending: '🕓', accepted: '✓', sent: '✓', delivered: '✓✓', read: '✓✓', failed: '✗' };
/** The `delivery_error`s the service itself writes (workers/whatsapp-sender.ts, providers), by their words' keys. */
const REASON_WORDS: Record<string, string> = { 'agent disabled': 'reason_agent_disabled', timeout: 'reason_timeout' };
/** The `delivery_error` of an AI reply a person's answer from the phone made needless (services/whatsapp/fields/echoes.ts). */
const SUPERSEDED = 'superseded by the business app';
const timeOnly = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit' });
const dateTime = new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
/** A time today; a date and a time before today. */
export function when(iso: string): string {
  const d = new Date(iso);
  return (d.toDateString() === new Date().toDateString() ? timeOnly : dateTime).format(d);
}
export function contactOf(c: Conv): string {
  const shown =
    c.contact_name || (c.contact ? (/^[0-9]+$/.test(c.contact) ? '+' + c.contact : c.contact) : t('conversation') + ' #' + n(c.id));
  return dom.plain(shown);
}
/** The contact as an isolated run: a name in its own direction, a phone number always left to right (+34…, also in Arabic). */
export function contactNode(c: Conv, cls?: string): HTMLElement {
  return h('bdi', { class: cls, dir: c.contact_name ? 'auto' : 'ltr' }, contactOf(c));
}
/** The row's last words: a deleted message says so (its text is gone), an edited one shows its new text, marked. */
export function previewOf(m: LastMessage | null | undefined): string {
  if (!m) return t('no_messages_yet');
  if (m.revoked_at) return '⊘ ' + t('deleted_message');
  return (m.edited_at ? '✎ ' : '') + firstWords(m.content);
}
export function firstWords(text: unknown): string {
  const s = dom.plain(text).replace(/\s+/g, ' ').trim();
  return s.length > 80 ? s.slice(0, 79) + '…' : s;
}
export function windowWords(c: Conv): string {
  const left = c.window_expires_at ? Date.parse(c.window_expires_at) - Date.now() : -1;
  if (left <= 0) return t('window_closed');
  const hours = Math.floor(left / 3600000),
    minutes = Math.floor((left % 3600000) / 60000);
  return hours ? t('window_left', { h: n(hours), m: n(minutes) }) : t('window_left_min', { m: n(minutes) });
}
export function windowOpen(c: Conv): boolean {
  return !!c.window_expires_at && Date.parse(c.window_expires_at) > Date.now();
}
export function agentOff(c: Conv): boolean {
  return !!c.agent && c.agent.enabled === false;
}
/** Who a message is from, at a glance: the customer, the AI, a person of the team, the business's phone (§13.1). */
export function sideOf(m: Message): string {
  if (m.role !== 'assistant') return m.role === 'user' ? 'customer' : 'system';
  if (m.source === 'business_app') return 'phone';
  if (m.author_id != null) return 'team';
  if (m.order_id != null) return 'notice';
  return 'ai';
}
export function authorLabel(m: Message): string {
  const side = sideOf(m);
  if (side === 'customer' || side === 'system') return t('role_' + m.role);
  return t('side_' + side);
}
export function tick(m: Message): HTMLElement | null {
  if (!m.delivery_status) return null;
  // an AI reply the phone's answer made needless was never meant to go: not a failure (§13.1)
  if (m.delivery_status === 'failed' && m.delivery_error === SUPERSEDED)
    return h('span', { class: 'tick superseded', 'data-status': 'superseded' }, t('st_superseded'));
  // the provider's reason in its own direction (Latin text and codes inside Arabic), without bidirectional controls
  // the service's own reasons in words of the page's language; a provider's `CODE: TEXT` as it came
  const own = m.delivery_error && REASON_WORDS[m.delivery_error];
  const reason =
    m.delivery_status === 'failed' && m.delivery_error
      ? [': ', own ? h('span', { class: 'reason' }, t(own)) : dom.name(m.delivery_error, { class: 'reason', dir: 'ltr' })]
      : null;
  return h(
    'span',
    { class: 'tick ' + m.delivery_status, 'data-status': m.delivery_status },
    h('bdi', null, (TICKS[m.delivery_status] || '') + ' ' + t('st_' + m.delivery_status)),
    reason,
  );
}
