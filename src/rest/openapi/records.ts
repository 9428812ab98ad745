import { CONVERSATION_HANDLERS } from '../../entities/ai-conversation.js';
import { DELIVERY_STATUSES, MESSAGE_TYPES } from '../../entities/ai-message.js';
import { MEDIA_STATUSES } from '../../entities/ai-media.js';
import { TEMPLATE_SEND_STATUSES } from '../../entities/ai-template-send.js';
import { MESSAGE_ROLES, STATUS_REASONS } from '../../services/conversations/message-rules.js';
import type { JSONSchema } from '../json-schema.js';
import { ANY_RECORD_PAYLOAD, recordPayloadOf } from './payloads.js';

const oneOfStrings = (values: readonly string[], description?: string): JSONSchema => ({
  type: 'string',
  enum: [...values],
  ...(description && { description }),
});

const USAGE: JSONSchema = {
  type: 'object',
  description: 'What producing the messages cost; members never given are absent',
  properties: {
    cost: { type: 'number', minimum: 0 },
    response_time_ms: { type: 'integer', minimum: 0 },
    input_tokens: { type: 'integer', minimum: 0 },
    output_tokens: { type: 'integer', minimum: 0 },
  },
  additionalProperties: false,
};

const nstr = { type: ['string', 'null'] };
const REFERRAL: JSONSchema = {
  type: 'object',
  description: 'The Click-to-WhatsApp ad or post the customer came from (members WhatsApp did not send are null)',
  properties: {
    source_url: nstr,
    source_id: nstr,
    source_type: nstr,
    body: nstr,
    headline: nstr,
    media_type: nstr,
    image_url: nstr,
    video_url: nstr,
    thumbnail_url: nstr,
    ctwa_clid: nstr,
    welcome_message: { type: ['object', 'null'], properties: { text: nstr } },
  },
};

const REFERRED_PRODUCT: JSONSchema = {
  type: 'object',
  description:
    "The catalog product the customer asks about (WhatsApp's context.referred_product): product_retailer_id is the product's retailer_id in the agent's business",
  properties: { catalog_id: nstr, product_retailer_id: nstr },
  required: ['catalog_id', 'product_retailer_id'],
};

/** CONTRACT §15.5: an agent's order notices, keyed by status code. */
const ORDER_MESSAGES: JSONSchema = {
  type: 'object',
  description: 'The notice per order status code ("0" placed, "7" accepted, …)',
  propertyNames: { pattern: '^(0|[1-9]|1[0-9]|2[0-3])$' },
  additionalProperties: {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1, maxLength: 1024 },
      template_id: { type: ['integer', 'null'], format: 'int64' },
      locale: { type: ['string', 'null'] },
    },
    required: ['text', 'template_id', 'locale'],
  },
};

const EDITS: JSONSchema = {
  type: 'array',
  description: 'Earlier versions, oldest first (at most 20); edited_at is when that version was written (null for the original)',
  items: {
    type: 'object',
    properties: { content: { type: 'string' }, payload: ANY_RECORD_PAYLOAD, edited_at: { type: ['string', 'null'], format: 'date-time' } },
    required: ['content', 'payload', 'edited_at'],
  },
};

/**
 * Schemas of GraphQL fields whose GraphQL type says less than the record holds (a `String` that is one of
 * a few values, a `JSON` object of known members), by `Type.field`; nullability stays the field's own.
 * A field not (yet) in the schema is simply never looked up.
 */
export const FIELD_SCHEMAS: Readonly<Record<string, JSONSchema>> = {
  'AiMessage.type': oneOfStrings(MESSAGE_TYPES, 'What the message is; `payload` has the shape of its type'),
  'AiMessage.role': oneOfStrings(MESSAGE_ROLES),
  'AiMessage.delivery_status': oneOfStrings(DELIVERY_STATUSES, 'A reply sent on WhatsApp: where it is; null for a message sent nowhere'),
  'AiMessage.payload': ANY_RECORD_PAYLOAD,
  'AiMessage.usage': USAGE,
  'AiMessage.source': oneOfStrings(['api', 'whatsapp', 'business_app', 'history']),
  'AiMessage.referral': REFERRAL,
  'AiMessage.referred_product': REFERRED_PRODUCT,
  'AiMessage.edits': EDITS,
  'AiConversation.usage': USAGE,
  'AiConversation.status': oneOfStrings(['active', 'closed']),
  'AiConversation.status_reason': oneOfStrings(STATUS_REASONS),
  'AiConversation.handler': oneOfStrings(CONVERSATION_HANDLERS, 'ai: the agent runtime answers; human: a person took it over'),
  'AiConversation.source': oneOfStrings(['live', 'history']),
  'AiConversation.referral': REFERRAL,
  'AiMedia.status': oneOfStrings(MEDIA_STATUSES),
  'AiTemplateSend.status': oneOfStrings(TEMPLATE_SEND_STATUSES),
  'AiAgent.order_messages': ORDER_MESSAGES,
  'AiOrderConversion.status': oneOfStrings(
    ['pending', 'sent', 'failed'],
    'pending until the Purchase event is sent (sent) or given up (failed)',
  ),
};

/** Marks an object schema built for a GraphQL type, for passes that reshape records of that type (removed before publishing). */
export const GRAPHQL_TYPE = 'x-graphql-type';

/**
 * A message record whose `type` and `payload` are both always present becomes a `oneOf` of one variant
 * per type (`type` a constant, `payload` that type's shape), so a typed client narrows `payload` by `type`.
 * Other objects, and messages where a selection may leave either out, stay as they are. Every `x-graphql-type` mark is removed.
 */
export function byType(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(byType);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) if (k !== GRAPHQL_TYPE) out[k] = byType(v);
  const s = schema as JSONSchema;
  const required = (s.required as string[] | undefined) ?? [];
  if (s[GRAPHQL_TYPE] !== 'AiMessage' || !required.includes('type') || !required.includes('payload')) return out;
  const { type: _t, payload: _p, ...rest } = s.properties as Record<string, JSONSchema>;
  out.properties = byType(rest);
  out.required = required.filter((r) => r !== 'type' && r !== 'payload');
  out.oneOf = MESSAGE_TYPES.map((type) => ({
    type: 'object',
    properties: { type: { type: 'string', const: type }, payload: recordPayloadOf(type) },
    required: ['type', 'payload'],
  }));
  return out;
}

/**
 * What a `params` (or `fields`) selection can answer of a record: only `id` and the fields `always`
 * selected are certain, at every level; the rest may be left out.
 */
export function selectable(schema: JSONSchema, always: readonly string[] = []): JSONSchema {
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (!s || typeof s !== 'object') return s;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) out[k] = k === 'required' ? v : walk(v);
    if ((s as JSONSchema)[GRAPHQL_TYPE] && Array.isArray(out.required)) {
      const kept = (out.required as string[]).filter((r) => r === 'id' || always.includes(r));
      if (kept.length) out.required = kept;
      else delete out.required;
    }
    return out;
  };
  return walk(schema) as JSONSchema;
}
