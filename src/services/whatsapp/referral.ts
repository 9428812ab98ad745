import { isObject } from './webhook-items.js';

/** CONTRACT §13.6: the members of a Click-to-WhatsApp `referral` that are kept (strings; `welcome_message` its `{text}`). */
const TEXT_MEMBERS = [
  'source_url',
  'source_id',
  'source_type',
  'body',
  'headline',
  'media_type',
  'image_url',
  'video_url',
  'thumbnail_url',
  'ctwa_clid',
] as const;
const MAX_MEMBER = 4096;

/** An item's `referral` as a message record keeps it (every member, the missing ones null); null when the item has none. */
export function readReferral(v: unknown): Record<string, unknown> | null {
  if (!isObject(v)) return null;
  const text = (x: unknown) => (typeof x === 'string' ? x.replaceAll('\u0000', '').slice(0, MAX_MEMBER) : null);
  const out: Record<string, unknown> = {};
  for (const k of TEXT_MEMBERS) out[k] = text(v[k]);
  out.welcome_message = isObject(v.welcome_message) ? { text: text(v.welcome_message.text) } : null;
  return out;
}
