import { documentWithSelection } from '../../graph/selection.js';
import { ACCESS } from '../../services/identity/access.js';
import { CONVERSATION_HANDLERS } from '../../entities/ai-conversation.js';
import {
  CONTENT_MAX,
  CURRENT_CONTENT_MAX,
  ID_MAX,
  MESSAGE_ROLES,
  STATUS_REASONS,
  USAGE_MAX,
} from '../../services/conversations/message-rules.js';
import { MAX_PAGE, MAX_PAGE_SIZE } from '../../services/shared/list-query.js';
import { OUTBOUND_TYPES } from '../../services/conversations/message-payload.js';
import {
  CONVERSATION_ATTRIBUTES,
  CONVERSATION_RELATIONS,
  MESSAGE_ATTRIBUTES,
  Q_MAX,
} from '../../services/conversations/conversation.service.js';
import { messageRequestBody } from '../openapi/payloads.js';
import { integerId, object, pathId, type JSONSchema } from '../json-schema.js';
import { MESSAGE_EXAMPLES } from './message-examples.js';
import { rawWhere } from '../raw-where.js';
import { paged, type RouteInput, type RouteSpec } from '../route-spec.js';

/** CONTRACT §16: integer ids are 1–18 digits; provider_external_id ^[a-zA-Z0-9-_]+$. Anything else: 400. */
const conversationIdParams: JSONSchema = {
  type: 'object',
  properties: { conversation_id: integerId },
  required: ['conversation_id'],
};
const agentParams: JSONSchema = {
  type: 'object',
  properties: { provider_external_id: { type: 'string', pattern: '^[a-zA-Z0-9_-]+$' } },
  required: ['provider_external_id'],
};

export const listQuery = (...selection: ('params' | 'fields')[]): JSONSchema => ({
  type: 'object',
  properties: {
    ...Object.fromEntries(selection.map((name) => [name, { type: 'string', maxLength: 2000 }])),
    where: { type: 'string', maxLength: 10000 },
    orderBy: { type: 'string', maxLength: 500 },
    page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
    page_size: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 10 },
  },
});

/** listQuery with `q`: a list that searches (1–Q_MAX characters). */
export const searchQuery = (...selection: ('params' | 'fields')[]): JSONSchema => {
  const schema = listQuery(...selection) as { properties: Record<string, JSONSchema> };
  return { ...schema, properties: { ...schema.properties, q: { type: 'string', minLength: 1, maxLength: Q_MAX } } };
};

/** Only the members a body sent: an absent one leaves the record's field as it is. */
export const sentMembers = (body: Record<string, unknown> | undefined) =>
  Object.fromEntries(Object.entries(body ?? {}).filter(([, v]) => v !== undefined));

/** Fields a conversation's `params` selection always answers. */
const CONVERSATION_ALWAYS = ['messages_count'] as const;

export const listVariables = ({ query }: RouteInput) => ({
  where: rawWhere(query.where) ?? null,
  orderBy: query.orderBy ?? null,
  page: query.page ?? null,
  page_size: query.page_size ?? null,
});

const usageMember = (type: 'number' | 'integer'): JSONSchema => ({ type, minimum: 0, maximum: USAGE_MAX });
/**
 * `type`, `payload` and `reply_to_id` (CONTRACT §12.4): the payload's members and Meta's limits are the
 * service's check (services/conversations/message-payload.ts), so REST and the graph name the same member
 * and rule; `content` is required for text only (the service says so).
 */
const messageMembers: Record<string, JSONSchema> = {
  role: { type: 'string', enum: [...MESSAGE_ROLES] },
  content: { type: 'string', minLength: 1, maxLength: CONTENT_MAX, description: 'Required for text; else computed when absent' },
  public: { type: 'boolean' },
  usage: object({
    cost: usageMember('number'),
    response_time_ms: usageMember('integer'),
    input_tokens: usageMember('integer'),
    output_tokens: usageMember('integer'),
  }),
  type: { type: 'string', enum: [...OUTBOUND_TYPES], default: 'text' },
  payload: {
    type: ['object', 'null'],
    description:
      "The type's object: location {latitude, longitude, name, address}; interactive, Meta's own object " +
      '(button, list, cta_url, location_request_message); image/video/document/audio/sticker {media_id | link, caption, filename}; ' +
      'reaction {message_id, emoji}',
  },
  reply_to_id: {
    type: ['integer', 'null'],
    format: 'int64',
    minimum: 1,
    maximum: ID_MAX,
    description: 'A message of the same conversation',
  },
};
const messageBody = { ...object(messageMembers, ['role']), 'x-examples': MESSAGE_EXAMPLES };

export const conversationRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/ai/agents/:provider_external_id/conversations/current',
    operation: 'AiCurrentConversation',
    errors: [['ERROR_AI_AGENT_NOT_FOUND', 404], 'ERROR_AI_CONVERSATION_CONFLICT'],
    summary: "The caller's active conversation with the agent, created when none is active",
    tags: ['ai-conversations'],
    access: ACCESS.AUTHENTICATED,
    ai: true,
    schema: { params: agentParams },
  },
  {
    method: 'GET',
    path: '/ai/agents/:provider_external_id/conversations/current/messages',
    operation: 'AiCurrentConversationMessages',
    errors: [['ERROR_AI_AGENT_NOT_FOUND', 404], ['ERROR_AI_CONVERSATION_NOT_FOUND', 404], 'ERROR_AI_CONVERSATION_CONFLICT'],
    summary: "Public messages of the caller's active conversation with the agent, oldest first",
    tags: ['ai-conversations'],
    access: ACCESS.AUTHENTICATED,
    ai: true,
    schema: { params: agentParams },
  },
  {
    method: 'GET',
    path: '/ai/conversations',
    operation: 'AiConversations',
    summary:
      'Conversations with messages_count, last_message_at and the caller\'s unread_count: params, where (also unread, assignee_id "me", referral_source_id: the ad that brought the customer, source: history conversations only when named), orderBy (also -last_message_at, unread_count), q (contact or message content contains it), page, page_size',
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: {
      querystring: searchQuery('params'),
    },
    variables: (input) => ({ ...listVariables(input), q: input.query.q ?? null }),
    document: ({ query }, base) =>
      documentWithSelection({
        parameter: 'params',
        value: query.params,
        base,
        target: ['aiConversations', 'items'],
        relations: true,
        always: CONVERSATION_ALWAYS,
      }),
    ...paged('aiConversations'),
    list: {
      where: CONVERSATION_ATTRIBUTES,
      orderBy: CONVERSATION_ATTRIBUTES,
      relations: CONVERSATION_RELATIONS,
      selectRelations: ['agent', 'last_message'],
      note: '`assignee_id` also takes "me" (the calling user); `unread` is true for conversations with messages the caller has not seen.',
    },
    selectionAlways: CONVERSATION_ALWAYS,
  },
  {
    method: 'GET',
    path: '/ai/conversations/:conversation_id',
    operation: 'AiConversation',
    errors: ['ERROR_AI_CONVERSATION_NOT_FOUND'],
    summary: 'One conversation with messages_count; params selects its fields',
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: { params: conversationIdParams, querystring: { type: 'object', properties: { params: { type: 'string', maxLength: 2000 } } } },
    variables: ({ params }) => ({ id: pathId(params.conversation_id) }),
    document: ({ query }, base) =>
      documentWithSelection({
        parameter: 'params',
        value: query.params,
        base,
        target: ['aiConversation'],
        relations: true,
        always: CONVERSATION_ALWAYS,
      }),
    selectionAlways: CONVERSATION_ALWAYS,
    record: 'Conversation',
  },
  {
    method: 'GET',
    path: '/ai/conversations/:conversation_id/messages/:message_id/media',
    operation: 'AiMessageMedia',
    errors: [
      'ERROR_AI_CONVERSATION_NOT_FOUND',
      'ERROR_AI_MESSAGE_NOT_FOUND',
      'ERROR_AI_MEDIA_PENDING',
      'ERROR_AI_MEDIA_FAILED',
      'ERROR_AI_MEDIA_UNAVAILABLE',
    ],
    summary: "A message's file: the bytes, with ETag, Range (206/416), If-None-Match (304); 409 while pending or failed",
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: {
      params: {
        type: 'object',
        properties: { conversation_id: integerId, message_id: integerId },
        required: ['conversation_id', 'message_id'],
      },
    },
    variables: ({ params }) => ({ conversation_id: pathId(params.conversation_id), message_id: pathId(params.message_id) }),
    file: (data) => ({ media_id: data.aiMessageMedia.id }),
  },
  {
    method: 'GET',
    path: '/ai/conversations/:conversation_id/messages',
    operation: 'AiConversationMessages',
    errors: ['ERROR_AI_CONVERSATION_NOT_FOUND'],
    summary:
      'Every message of a conversation, public or not: fields, where (also source: api, whatsapp, business_app, history), orderBy, page, page_size',
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    // The SDK always selects with `params`: here it means what `fields` means, and `fields` wins.
    schema: { params: conversationIdParams, querystring: listQuery('fields', 'params') },
    variables: (input) => ({ conversation_id: pathId(input.params.conversation_id), ...listVariables(input) }),
    document: ({ query }, base) =>
      documentWithSelection({
        parameter: query.fields !== undefined ? 'fields' : 'params',
        value: query.fields ?? query.params,
        base,
        target: ['aiConversationMessages', 'items'],
        relations: false,
      }),
    ...paged('aiConversationMessages'),
    list: { where: MESSAGE_ATTRIBUTES, orderBy: MESSAGE_ATTRIBUTES },
    record: 'Message',
  },
  {
    method: 'POST',
    path: '/ai/agents/:provider_external_id/conversations/current/messages',
    operation: 'AddAiCurrentConversationMessage',
    errors: [['ERROR_AI_AGENT_NOT_FOUND', 404], 'ERROR_AI_CONVERSATION_CONFLICT'],
    summary: "Adds a public user message to the caller's current conversation, opening it when none is active",
    tags: ['ai-conversations'],
    access: ACCESS.AUTHENTICATED,
    ai: true,
    schema: {
      params: agentParams,
      body: object({ content: { type: 'string', minLength: 1, maxLength: CURRENT_CONTENT_MAX } }, ['content']),
    },
    variables: ({ params, body }) => ({ provider_external_id: params.provider_external_id, content: body.content }),
  },
  {
    method: 'POST',
    path: '/ai/conversations/:conversation_id/messages',
    operation: 'AddAiConversationMessage',
    errors: [
      'ERROR_AI_CONVERSATION_NOT_FOUND',
      'ERROR_AI_CONVERSATION_CLOSED',
      'ERROR_AI_CONVERSATION_HANDED_OFF',
      'ERROR_AI_MESSAGE_NOT_FOUND',
      'ERROR_WHATSAPP_WINDOW_CLOSED',
    ],
    summary:
      "Adds a message (role, content, public, usage; type, payload and reply_to_id for locations, buttons, lists, files and reactions) to an active conversation; its usage is added to the conversation's",
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: { params: conversationIdParams, body: messageBody },
    documentedBody: () => {
      const { payload: _p, type: _t, ...shared } = messageMembers;
      const { body, components } = messageRequestBody(shared, ['role']);
      return { body: { ...body, 'x-examples': MESSAGE_EXAMPLES }, components };
    },
    variables: ({ params, body }) => ({
      conversation_id: pathId(params.conversation_id),
      role: body.role,
      content: body.content ?? null,
      public: body.public ?? null,
      usage: body.usage ?? null,
      type: body.type ?? null,
      payload: body.payload ?? null,
      reply_to_id: body.reply_to_id ?? null,
    }),
  },
  {
    method: 'POST',
    path: '/ai/conversations/:conversation_id/close',
    operation: 'CloseAiConversation',
    errors: ['ERROR_AI_CONVERSATION_NOT_FOUND', 'ERROR_AI_CONVERSATION_CLOSED'],
    summary: 'Closes an active conversation with a status_reason (completed, abandoned, failed)',
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: {
      params: conversationIdParams,
      body: object({ status_reason: { type: 'string', enum: [...STATUS_REASONS] } }, ['status_reason']),
    },
    variables: ({ params, body }) => ({ conversation_id: pathId(params.conversation_id), status_reason: body.status_reason }),
  },
  {
    method: 'POST',
    path: '/ai/conversations/:conversation_id/seen',
    operation: 'MarkAiConversationSeen',
    errors: ['ERROR_AI_CONVERSATION_NOT_FOUND', 'ERROR_AI_MESSAGE_NOT_FOUND'],
    summary: "Moves the caller's seen mark forward to message_id (default: the newest message); result {unread_count}; emits nothing",
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: {
      params: conversationIdParams,
      body: object({ message_id: { type: ['integer', 'null'], format: 'int64', minimum: 1, maximum: ID_MAX } }),
    },
    variables: ({ params, body }) => ({ conversation_id: pathId(params.conversation_id), message_id: body?.message_id ?? null }),
  },
  {
    method: 'POST',
    path: '/ai/conversations/:conversation_id/handoff',
    operation: 'HandoffAiConversation',
    errors: ['ERROR_AI_CONVERSATION_NOT_FOUND', 'ERROR_AI_CONVERSATION_CLOSED'],
    summary:
      'A person takes an active conversation over (handler human; assignee_id, else the calling user) or hands it back to the AI (handler ai)',
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: {
      params: conversationIdParams,
      body: object(
        {
          handler: { type: 'string', enum: [...CONVERSATION_HANDLERS] },
          assignee_id: { type: ['integer', 'null'], format: 'int64', minimum: 1, maximum: ID_MAX },
        },
        ['handler'],
      ),
    },
    variables: ({ params, body }) => ({
      conversation_id: pathId(params.conversation_id),
      handler: body.handler,
      assignee_id: body.assignee_id ?? null,
    }),
  },
  {
    method: 'POST',
    path: '/ai/conversations/:conversation_id/typing',
    operation: 'ShowAiConversationTyping',
    errors: [
      'ERROR_AI_CONVERSATION_NOT_FOUND',
      'ERROR_AI_CONVERSATION_CLOSED',
      'ERROR_AI_CONVERSATION_HANDED_OFF',
      'ERROR_WHATSAPP_WINDOW_CLOSED',
      'ERROR_AI_PROVIDER_NOT_CONFIGURED',
      'ERROR_AI_PROVIDER_REJECTED',
      'ERROR_AI_PROVIDER_UNAVAILABLE',
    ],
    summary:
      "The agent is composing: WhatsApp marks the customer's newest message read and shows the typing indicator (at most one provider call per conversation and second); false for other conversations",
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: { params: conversationIdParams },
    variables: ({ params }) => ({ conversation_id: pathId(params.conversation_id) }),
  },
];
