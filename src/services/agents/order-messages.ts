import type { EntityManager } from '@mikro-orm/postgresql';
import type { OrderMessage } from '../../entities/ai-agent.js';
import type { Problem } from '../../errors/codes.js';
import { ID_MAX } from '../conversations/message-rules.js';

/** CONTRACT §15.5: a notice's text (characters), a locale's length. */
export const ORDER_MESSAGE_TEXT_MAX = 1024;
export const ORDER_MESSAGE_LOCALE_MAX = 35;
/** The platform's order statuses (CONTRACT §15.4): the keys an agent's `order_messages` may hold. */
export const ORDER_MESSAGE_KEYS = Array.from({ length: 24 }, (_, s) => String(s));
const ENTRY_MEMBERS = ['text', 'template_id', 'locale'];

/**
 * `order_messages` of a PATCH (CONTRACT §15.5, §10.3): null, or an object keyed by status code whose values are
 * `{"text" (1–1,024), "template_id" (an APPROVED template of the agent, optional), "locale" (optional)}`; every
 * problem names its member. The templates are looked up in `tx` (the agent's row is locked by the caller).
 * Returns the object as stored (each entry with its three members), or null.
 */
export async function checkOrderMessages(
  tx: EntityManager,
  agentId: number,
  value: unknown,
  problems: Problem[],
): Promise<Record<string, OrderMessage> | null> {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push({ field: 'order_messages', rule: 'object' });
    return null;
  }
  const out: Record<string, OrderMessage> = {};
  const templates: [string, number][] = [];
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    const field = `order_messages.${key}`;
    if (!ORDER_MESSAGE_KEYS.includes(key)) {
      problems.push({
        field: /^[A-Za-z0-9_]{1,64}$/.test(key) ? field : 'order_messages',
        rule: 'key_enum',
        params: { values: ORDER_MESSAGE_KEYS },
      });
      continue;
    }
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
      problems.push({ field, rule: 'object' });
      continue;
    }
    const e = entry as Record<string, unknown>;
    for (const member of Object.keys(e))
      if (!ENTRY_MEMBERS.includes(member))
        problems.push({ field: `${field}.${member}`, rule: 'key_enum', params: { values: ENTRY_MEMBERS } });
    const text = e.text;
    if (text === undefined || text === null) problems.push({ field: `${field}.text`, rule: 'required' });
    else if (typeof text !== 'string') problems.push({ field: `${field}.text`, rule: 'string' });
    else if (!text.trim()) problems.push({ field: `${field}.text`, rule: 'not_empty' });
    else if ([...text].length > ORDER_MESSAGE_TEXT_MAX)
      problems.push({ field: `${field}.text`, rule: 'max_length', params: { max: ORDER_MESSAGE_TEXT_MAX } });
    const templateId = e.template_id ?? null;
    if (templateId !== null) {
      if (typeof templateId !== 'number' || !Number.isInteger(templateId) || templateId < 1 || templateId > ID_MAX)
        problems.push({ field: `${field}.template_id`, rule: 'approved_template' });
      else templates.push([key, templateId]);
    }
    const locale = e.locale ?? null;
    if (locale !== null) {
      if (typeof locale !== 'string') problems.push({ field: `${field}.locale`, rule: 'string' });
      else if (!locale.trim() || [...locale].length > ORDER_MESSAGE_LOCALE_MAX)
        problems.push({ field: `${field}.locale`, rule: 'length', params: { min: 1, max: ORDER_MESSAGE_LOCALE_MAX } });
    }
    out[key] = {
      text: typeof text === 'string' ? text : '',
      template_id: typeof templateId === 'number' ? templateId : null,
      locale: typeof locale === 'string' ? locale : null,
    };
  }
  if (templates.length) {
    const rows = await tx
      .getConnection()
      .execute<{ id: number }[]>(
        `select id from ai_templates where agent_id = ? and status = 'APPROVED' and id = any(?::bigint[])`,
        [agentId, `{${templates.map(([, id]) => id).join(',')}}`],
        'all',
        tx.getTransactionContext(),
      );
    const approved = new Set(rows.map((r) => Number(r.id)));
    for (const [key, id] of templates)
      if (!approved.has(id)) problems.push({ field: `order_messages.${key}.template_id`, rule: 'approved_template' });
  }
  return out;
}
