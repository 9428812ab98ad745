import { DELIVERY_STATUSES, MEDIA_MESSAGE_TYPES, MESSAGE_TYPES } from '../../entities/ai-message.js';
import { MEDIA_STATUSES } from '../../entities/ai-media.js';
import { INTERACTIVE_TYPES, LIMITS, OUTBOUND_TYPES } from '../../services/conversations/message-payload.js';
import type { JSONSchema } from '../json-schema.js';

/**
 * The shapes of a message's `payload` per `type`, for /openapi.json: what a request may send
 * (closed, Meta's limits) and what a record holds (the members Meta sent for an inbound message,
 * or the members posted for a reply). Referenced from `components.schemas` by name.
 */
const ref = (name: string): JSONSchema => ({ $ref: `#/components/schemas/${name}` });
const str = (description?: string, maxLength?: number): JSONSchema => ({
  type: 'string',
  ...(maxLength && { maxLength }),
  ...(description && { description }),
});
const nstr = (description?: string): JSONSchema => ({ type: ['string', 'null'], ...(description && { description }) });
const closed = (properties: Record<string, JSONSchema>, required: string[] = [], description?: string): JSONSchema => ({
  type: 'object',
  ...(description && { description }),
  properties,
  ...(required.length && { required }),
  additionalProperties: false,
});
const open = (properties: Record<string, JSONSchema>, required: string[] = [], description?: string): JSONSchema => ({
  type: 'object',
  ...(description && { description }),
  properties,
  ...(required.length && { required }),
});
const textObject = (max: number): JSONSchema => closed({ text: str(undefined, max) }, ['text']);

const pascal = (s: string) => s.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase());

/* ---------- requests (POST /ai/conversations/{id}/messages) ---------- */

const replyButton = closed(
  {
    type: { type: 'string', const: 'reply' },
    reply: closed({ id: str('Unique among the buttons', LIMITS.replyId), title: str('Unique among the buttons', LIMITS.replyTitle) }, [
      'id',
      'title',
    ]),
  },
  ['type', 'reply'],
);

const interactiveRequest = (type: (typeof INTERACTIVE_TYPES)[number]): JSONSchema => {
  const common = {
    type: { type: 'string', const: type },
    body: textObject(type === 'button' ? LIMITS.buttonBody : type === 'list' ? LIMITS.listBody : LIMITS.otherBody),
  };
  const header = closed({ type: { type: 'string', const: 'text' }, text: str(undefined, LIMITS.headerText) }, ['type', 'text']);
  const footer = textObject(LIMITS.footerText);
  const actions: Record<string, JSONSchema> = {
    button: closed({ buttons: { type: 'array', minItems: 1, maxItems: LIMITS.buttons, items: replyButton } }, ['buttons']),
    list: closed(
      {
        button: str('The label of the button that opens the list', LIMITS.listButton),
        sections: {
          type: 'array',
          minItems: 1,
          maxItems: LIMITS.sections,
          items: closed(
            {
              title: str(undefined, LIMITS.sectionTitle),
              rows: {
                type: 'array',
                minItems: 1,
                maxItems: LIMITS.rows,
                items: closed(
                  {
                    id: str('Unique in the list', LIMITS.rowId),
                    title: str(undefined, LIMITS.rowTitle),
                    description: str(undefined, LIMITS.rowDescription),
                  },
                  ['id', 'title'],
                ),
              },
            },
            ['rows'],
          ),
        },
      },
      ['button', 'sections'],
    ),
    cta_url: closed(
      {
        name: { type: 'string', const: 'cta_url' },
        parameters: closed({ display_text: str(undefined, LIMITS.displayText), url: str('An https URL', LIMITS.url) }, [
          'display_text',
          'url',
        ]),
      },
      ['name', 'parameters'],
    ),
    location_request_message: closed({ name: { type: 'string', const: 'send_location' } }, ['name']),
  };
  const members =
    type === 'location_request_message' ? { ...common, action: actions[type] } : { ...common, header, footer, action: actions[type] };
  return closed(members, ['type', 'body', 'action']);
};

const mediaRequest = (kind: (typeof MEDIA_MESSAGE_TYPES)[number]): JSONSchema =>
  closed(
    {
      media_id: str('A file uploaded with POST /ai/media (exactly one of media_id and link)', LIMITS.mediaId),
      link: str('An https URL WhatsApp downloads the file from (exactly one of media_id and link)', LIMITS.url),
      ...(kind !== 'audio' && kind !== 'sticker' && { caption: str(undefined, LIMITS.caption) }),
      ...(kind === 'document' && { filename: str('The name the customer sees', LIMITS.filename) }),
    },
    [],
  );

const REQUEST_PAYLOADS: Record<Exclude<(typeof OUTBOUND_TYPES)[number], 'text'>, JSONSchema> = {
  location: closed(
    {
      latitude: { type: 'number', minimum: -90, maximum: 90 },
      longitude: { type: 'number', minimum: -180, maximum: 180 },
      name: str(undefined, LIMITS.locationText),
      address: str(undefined, LIMITS.locationText),
    },
    ['latitude', 'longitude'],
  ),
  interactive: { oneOf: INTERACTIVE_TYPES.map((t) => interactiveRequest(t)) },
  reaction: closed(
    {
      message_id: { type: 'integer', format: 'int64', minimum: 1, description: 'A message of the same conversation' },
      emoji: { type: 'string', description: 'One emoji; the empty string removes the reaction' },
    },
    ['message_id', 'emoji'],
  ),
  ...(Object.fromEntries(MEDIA_MESSAGE_TYPES.map((k) => [k, mediaRequest(k)])) as Record<(typeof MEDIA_MESSAGE_TYPES)[number], JSONSchema>),
};

/**
 * The body of a message write as a `oneOf` by `type` (absent means `text`), given the members every type
 * shares (role, content, public, usage, reply_to_id). The text variant does not require `type` (CONTRACT
 * §12.2: a message posted without one is a text), so the `oneOf` has no `discriminator` (OpenAPI wants the
 * discriminating member required in every variant, and openapi-typescript would make it so): the variants
 * exclude each other by `type`'s `const` (required in every variant but text) and `payload` (required in every
 * variant but text, which has none).
 */
export function messageRequestBody(
  shared: Record<string, JSONSchema>,
  required: string[],
): { body: JSONSchema; components: Record<string, JSONSchema> } {
  const components: Record<string, JSONSchema> = {};
  const variants = OUTBOUND_TYPES.map((type) => {
    const name = `${pascal(type)}MessageRequest`;
    components[name] = closed(
      {
        ...shared,
        type: {
          type: 'string',
          const: type,
          ...(type === 'text' && { description: 'Optional: a message without `type` is a text' }),
        },
        // a text has no payload: the variants then exclude each other (every other one requires it)
        ...(type !== 'text' && { payload: REQUEST_PAYLOADS[type] }),
        ...(type !== 'text' && {
          content: {
            ...shared.content,
            description: "Computed from the payload when left out (the caption, the body's text, the location's name…)",
          },
        }),
      },
      type === 'text' ? [...required, 'content'] : [...required, 'type', 'payload'],
    );
    return { type, name };
  });
  return { body: { oneOf: variants.map((v) => ref(v.name)) }, components };
}

/* ---------- records ---------- */

export const MEDIA_RECORD: JSONSchema = open(
  {
    id: str('Ours: random, not guessable, unique in the service'),
    status: { type: 'string', enum: [...MEDIA_STATUSES], description: 'pending while being downloaded, then stored or failed' },
    mime_type: nstr(),
    size: { type: ['integer', 'null'], description: 'In bytes, once stored' },
    sha256: nstr('The hex SHA-256 of the stored bytes'),
    error: nstr('Why the file failed, else null'),
  },
  ['id', 'status'],
  'A file the service keeps (served by GET /ai/conversations/{conversation_id}/messages/{message_id}/media)',
);

const mediaRecord = (kind: string): JSONSchema =>
  open(
    {
      media: { oneOf: [ref('Media'), { type: 'null' }], description: 'A received file (null in a history import without one)' },
      caption: nstr(),
      ...(kind === 'document' && { filename: nstr() }),
      ...(kind === 'audio' && { voice: { type: ['boolean', 'null'], description: 'A voice note' } }),
      ...(kind === 'sticker' && { animated: { type: ['boolean', 'null'] } }),
      media_id: str('A reply: the uploaded file it sends'),
      link: str('A reply: the URL WhatsApp downloads'),
    },
    [],
    "A received file (media, caption…), or a reply's media_id or link",
  );

const RECORD_PAYLOADS: Record<Exclude<(typeof MESSAGE_TYPES)[number], 'text'>, JSONSchema> = {
  location: open({ latitude: { type: 'number' }, longitude: { type: 'number' }, name: nstr(), address: nstr(), url: nstr() }, [
    'latitude',
    'longitude',
  ]),
  contacts: open({ contacts: { type: 'array', items: { type: 'object' }, description: "Meta's contact cards as sent" } }, ['contacts']),
  interactive: {
    anyOf: [
      open(
        {
          reply_type: { type: 'string', enum: ['button_reply', 'list_reply', 'nfm_reply'] },
          id: str('The tapped button or row'),
          title: str(),
          description: nstr(),
          name: nstr("A Flow's name"),
          response: {
            type: ['object', 'null'],
            description: "A Flow's answer (null when WhatsApp's response_json was missing or not an object)",
          },
        },
        ['reply_type'],
        "The customer's tap on a button or list row, or a Flow's answer",
      ),
      { ...interactiveRecord(), description: 'A reply with buttons, a list, a link button or a location request, as posted' },
    ],
  },
  button: open({ payload: nstr(), text: nstr() }, [], "A tap on a template's quick-reply button"),
  template: open(
    {
      template_id: { type: 'integer', format: 'int64', description: 'The approved template sent' },
      name: str("The template's name at the provider"),
      language: str(),
      body_parameters: { type: ['array', 'null'], items: { type: 'string' }, description: "Values of the body's placeholders, in order" },
    },
    ['template_id', 'name', 'language'],
    'A template sent to the contact (its send shares the message id at the provider and its statuses)',
  ),
  order: open(
    {
      catalog_id: nstr(),
      text: nstr(),
      items: {
        type: 'array',
        items: open({
          product_retailer_id: nstr(),
          quantity: { type: ['number', 'null'] },
          item_price: { type: ['number', 'null'] },
          currency: nstr(),
        }),
      },
    },
    ['items'],
  ),
  reaction: open(
    {
      external_id: str("The reacted message's id at WhatsApp"),
      message_id: { type: ['integer', 'null'], format: 'int64', description: 'Ours, or null when unknown' },
      emoji: { type: ['string', 'null'], description: 'null (or empty) when the reaction was removed' },
    },
    ['message_id', 'emoji'],
  ),
  system: open(
    {
      type: nstr("WhatsApp's system.type, e.g. user_changed_number"),
      body: nstr('The notice as WhatsApp wrote it (it names the old number)'),
      wa_id: nstr('The new number, when given'),
    },
    [],
    "A notice of WhatsApp about the customer (the customer changed their number: the new number becomes the conversation's contact)",
  ),
  unsupported: open(
    {
      type: nstr("WhatsApp's name of the type"),
      errors: { type: ['array', 'null'], items: open({ code: { type: ['integer', 'string', 'null'] }, title: nstr() }) },
    },
    [],
  ),
  ...(Object.fromEntries(MEDIA_MESSAGE_TYPES.map((k) => [k, mediaRecord(k)])) as Record<(typeof MEDIA_MESSAGE_TYPES)[number], JSONSchema>),
};

function interactiveRecord(): JSONSchema {
  return open(
    {
      type: { type: 'string', enum: [...INTERACTIVE_TYPES] },
      header: { type: 'object' },
      body: { type: 'object' },
      footer: { type: 'object' },
      action: { type: 'object' },
    },
    ['type'],
  );
}

/** `components.schemas` of every record payload (`LocationPayload`, …) and `Media`. */
export function recordPayloadComponents(): Record<string, JSONSchema> {
  return {
    Media: MEDIA_RECORD,
    ...Object.fromEntries(Object.entries(RECORD_PAYLOADS).map(([type, schema]) => [`${pascal(type)}Payload`, schema])),
  };
}

/** A record's `payload` for one type: null for text, else that type's shape (or null: a revoked message, an old row). */
export function recordPayloadOf(type: (typeof MESSAGE_TYPES)[number]): JSONSchema {
  return type === 'text' ? { type: 'null' } : { oneOf: [ref(`${pascal(type)}Payload`), { type: 'null' }] };
}

/** A record's `payload` when `type` is not beside it (a selection without it): any type's shape, or null. */
export const ANY_RECORD_PAYLOAD: JSONSchema = {
  anyOf: [...MESSAGE_TYPES.filter((t) => t !== 'text').map((t) => ref(`${pascal(t)}Payload`)), { type: 'null' }],
  description: "The typed content under WhatsApp's names; null for text",
};

export { MESSAGE_TYPES, DELIVERY_STATUSES };
