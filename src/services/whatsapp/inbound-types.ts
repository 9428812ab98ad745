import { MEDIA_MESSAGE_TYPES, type MediaMessageType, type MessageType } from '../../entities/ai-message.js';
import { newMediaId } from '../media/index.js';

/**
 * One inbound item of Meta's `messages` read as CONTRACT §12.2 keeps it: its `type`, its `payload`
 * under Meta's names, its readable `content`, and the file to download (§12.3). Anything malformed
 * is `unsupported`, never an error.
 */
export interface InboundContent {
  type: MessageType;
  payload: Record<string, unknown> | null;
  content: string;
  /** A file to download: our new MEDIA id and what Meta said of it. */
  media: InboundMedia | null;
  /** A reaction's target at Meta (its `payload.message_id` is ours, looked up when stored). */
  reactedExternalId: string | null;
  /** `context.id`: the message at Meta this one answers. */
  contextId: string | null;
  /** CONTRACT §12.2: `context.referred_product` (`{catalog_id, product_retailer_id}`), else null. */
  referredProduct: ReferredProduct | null;
  /** CONTRACT §12.2: a `user_changed_number` notice's new number, which becomes the conversation's contact; else null. */
  newContact: string | null;
}

/** The catalog product an item asks about (CONTRACT §12.2; §15's product with that `retailer_id` in the agent's business). */
export interface ReferredProduct {
  catalog_id: string | null;
  product_retailer_id: string | null;
}

export interface InboundMedia {
  id: string;
  kind: MediaMessageType;
  provider_media_id: string;
  mime_type: string | null;
  filename: string | null;
}

/** CONTRACT §12.2: a payload is at most 64 KiB of JSON. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;
const MAX_PROVIDER_ID = 256;

type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Reads an item (its `type` and typed object). */
export function readInbound(m: Obj, history = false): InboundContent {
  const kind = typeof m.type === 'string' ? m.type : '';
  const contextId = isObj(m.context) && typeof m.context.id === 'string' && m.context.id.length <= 128 ? m.context.id : null;
  const read =
    history && MEDIA_MESSAGE_TYPES.includes(kind as MediaMessageType) && isObj(m[kind]) && !m[kind].id
      ? mediaWithoutId
      : (READERS[kind] ?? null);
  let out: Read | null;
  try {
    out = read ? read(m, kind) : null;
  } catch {
    out = null;
  }
  if (out && out.payload && Buffer.byteLength(JSON.stringify(out.payload)) > MAX_PAYLOAD_BYTES) out = null;
  const result = out ?? unsupported(m, kind);
  return {
    newContact: null,
    ...result,
    payload: clean(result.payload),
    content: clean(result.content),
    contextId,
    referredProduct: clean(referredProductOf(m.context)),
  };
}

/** What a reader gives: everything but the members every item has (`context`), and the new contact (system notices only). */
type Read = Omit<InboundContent, 'contextId' | 'referredProduct' | 'newContact'> & { newContact?: string | null };
type Reader = (m: Obj, kind: string) => Read | null;

/**
 * CONTRACT §12.2: `context.referred_product` kept as sent (strings, else null); null when the item has none.
 * The product it names is §15's product whose `retailer_id` is `product_retailer_id`, in the agent's business: what
 * `GET /ai/products?where={"business_id": …, "retailer_id": …}` answers (the unique index of Migration20261202000100_orders).
 */
function referredProductOf(context: unknown): ReferredProduct | null {
  const r = isObj(context) ? context.referred_product : undefined;
  if (!isObj(r)) return null;
  const id = (v: unknown) => (typeof v === 'string' && v.length <= 256 ? v : null);
  const product = { catalog_id: id(r.catalog_id), product_retailer_id: id(r.product_retailer_id) };
  return product.catalog_id === null && product.product_retailer_id === null ? null : product;
}

const plain = (type: MessageType, payload: Obj | null, content: string): Read => ({
  type,
  payload,
  content,
  media: null,
  reactedExternalId: null,
});

const READERS: Record<string, Reader> = {
  text: (m) => {
    const body = isObj(m.text) ? str(m.text.body) : null;
    return body === null ? null : plain('text', null, body);
  },
  location: (m) => {
    const l = m.location;
    if (!isObj(l)) return null;
    const latitude = num(l.latitude);
    const longitude = num(l.longitude);
    if (latitude === null || longitude === null || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
    const payload = { latitude, longitude, name: str(l.name), address: str(l.address), url: str(l.url) };
    const named = [payload.name, payload.address].filter((s): s is string => !!s);
    return plain('location', payload, named.length ? named.join(', ') : `${latitude},${longitude}`);
  },
  contacts: (m) => {
    if (!Array.isArray(m.contacts)) return null;
    const names = m.contacts.map((c: unknown) => (isObj(c) && isObj(c.name) ? str(c.name.formatted_name) : null)).filter(Boolean);
    return plain('contacts', { contacts: m.contacts }, names.length ? names.join(', ') : '[CONTACTS]');
  },
  interactive: (m) => {
    const i = m.interactive;
    if (!isObj(i)) return null;
    if (i.type === 'button_reply' || i.type === 'list_reply') {
      const r = i[i.type];
      if (!isObj(r) || typeof r.id !== 'string' || typeof r.title !== 'string') return null;
      const description = i.type === 'list_reply' ? str(r.description) : null;
      return plain('interactive', { reply_type: i.type, id: r.id, title: r.title, description }, r.title);
    }
    if (i.type === 'nfm_reply') {
      const r = i.nfm_reply;
      if (!isObj(r)) return null;
      // CONTRACT §12.2: a missing or broken response_json leaves `response` null; the answer is still interactive
      return plain('interactive', { reply_type: 'nfm_reply', name: str(r.name), response: flowResponse(r.response_json) }, '[INTERACTIVE]');
    }
    return null;
  },
  system: (m) => {
    const s = m.system;
    if (!isObj(s) || (s.body !== undefined && typeof s.body !== 'string')) return null;
    const payload = { type: str(s.type), body: str(s.body), wa_id: str(s.wa_id) };
    const read = plain('system', payload, payload.body ?? '[SYSTEM]');
    // CONTRACT §12.2: the new number becomes the contact of the conversation the notice lands in
    const changed = payload.type === 'user_changed_number' && /^[0-9]{1,64}$/.test(payload.wa_id ?? '') ? payload.wa_id : null;
    return { ...read, newContact: changed };
  },
  button: (m) => {
    const b = m.button;
    if (!isObj(b) || (b.text !== undefined && typeof b.text !== 'string') || (b.payload !== undefined && typeof b.payload !== 'string'))
      return null;
    return plain('button', { payload: str(b.payload), text: str(b.text) }, str(b.text) || '[BUTTON]');
  },
  order: (m) => {
    const o = m.order;
    if (!isObj(o) || !Array.isArray(o.product_items)) return null;
    const items = o.product_items.map((p: unknown) => {
      if (!isObj(p)) throw new Error('not an item');
      return {
        product_retailer_id: str(p.product_retailer_id),
        quantity: num(p.quantity) ?? (typeof p.quantity === 'string' ? Number(p.quantity) || null : null),
        item_price: num(p.item_price) ?? (typeof p.item_price === 'string' ? Number(p.item_price) || null : null),
        currency: str(p.currency),
      };
    });
    const text = str(o.text);
    return plain('order', { catalog_id: str(o.catalog_id), text, items }, text || '[ORDER]');
  },
  reaction: (m) => {
    const r = m.reaction;
    if (!isObj(r) || typeof r.message_id !== 'string' || r.message_id.length > 128) return null;
    const emoji = str(r.emoji) || null;
    return {
      ...plain('reaction', { external_id: r.message_id, message_id: null, emoji }, emoji ?? '[REACTION]'),
      reactedExternalId: r.message_id,
    };
  },
  ...Object.fromEntries(MEDIA_MESSAGE_TYPES.map((kind) => [kind, (m: Obj) => mediaItem(m, kind)])),
};

/** A Flow's `response_json` parsed, when it is the text of a JSON object; else null. */
function flowResponse(json: unknown): Obj | null {
  if (typeof json !== 'string') return null;
  try {
    const response: unknown = JSON.parse(json);
    return isObj(response) ? response : null;
  } catch {
    return null;
  }
}

function mediaItem(m: Obj, kind: MediaMessageType): Read | null {
  const part = m[kind];
  if (!isObj(part) || typeof part.id !== 'string' || !part.id || part.id.length > MAX_PROVIDER_ID) return null;
  const id = newMediaId();
  const mime = str(part.mime_type);
  const caption = kind === 'audio' || kind === 'sticker' ? null : str(part.caption);
  const filename = kind === 'document' ? str(part.filename) : null;
  const payload: Obj = {
    media: { id, status: 'pending', mime_type: mime, size: null, sha256: null, error: null },
    caption,
    ...(kind === 'document' && { filename }),
    ...(kind === 'audio' && { voice: bool(part.voice) }),
    ...(kind === 'sticker' && { animated: bool(part.animated) }),
  };
  return {
    type: kind,
    payload,
    content: caption || `[${kind.toUpperCase()}]`,
    media: { id, kind, provider_media_id: part.id, mime_type: mime, filename },
    reactedExternalId: null,
  };
}

/** CONTRACT §13.3: an imported media item without an id keeps its kind, with `payload.media` null (nothing to download). */
function mediaWithoutId(m: Obj, kind: string): Read {
  const part = m[kind] as Obj;
  const caption = kind === 'audio' || kind === 'sticker' ? null : str(part.caption);
  const payload: Obj = { media: null, caption, ...(kind === 'document' && { filename: str(part.filename) }) };
  return { type: kind as MediaMessageType, payload, content: caption || `[${kind.toUpperCase()}]`, media: null, reactedExternalId: null };
}

/** `unsupported`, and anything unreadable: Meta's type and its errors (code, title). */
function unsupported(m: Obj, kind: string): Read {
  const own = isObj(m.unsupported) ? str(m.unsupported.type) : null;
  // CONTRACT §12.2: `errors` null when the item has none
  const errors = Array.isArray(m.errors)
    ? m.errors
        .slice(0, 10)
        .filter(isObj)
        .map((e) => ({ code: num(e.code) ?? str(e.code), title: str(e.title)?.slice(0, 1000) ?? null }))
    : null;
  return plain('unsupported', { type: (own ?? kind).slice(0, 64) || null, errors }, '[UNSUPPORTED]');
}

/** NUL characters removed (PostgreSQL's text and jsonb cannot hold them; CONTRACT §11). */
function clean<T>(v: T): T {
  if (typeof v === 'string') return v.replaceAll('\u0000', '') as T;
  if (Array.isArray(v)) return v.map(clean) as T;
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replaceAll('\u0000', ''), clean(x)])) as T;
  return v;
}
