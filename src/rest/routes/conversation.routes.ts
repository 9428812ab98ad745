import { documentWithSelection } from '../../graph/selection.js';
import { ACCESS } from '../../services/access.js';
import { MAX_PAGE, MAX_PAGE_SIZE } from '../../services/list-query.js';
import type { JSONSchema } from '../json-schema.js';
import { rawWhere } from '../raw-where.js';
import { paged, type RouteInput, type RouteSpec } from '../route-spec.js';

/** Spec §4: integer ids match ^[0-9]+$; provider_external_id ^[a-zA-Z0-9-_]+$. Anything else: 400. */
const conversationIdParams: JSONSchema = {
  type: 'object',
  properties: { conversation_id: { type: 'string', pattern: '^[0-9]+$' } },
  required: ['conversation_id'],
};
const agentParams: JSONSchema = {
  type: 'object',
  properties: { provider_external_id: { type: 'string', pattern: '^[a-zA-Z0-9_-]+$' } },
  required: ['provider_external_id'],
};

const listQuery = (...selection: ('params' | 'fields')[]): JSONSchema => ({
  type: 'object',
  properties: {
    ...Object.fromEntries(selection.map((name) => [name, { type: 'string', maxLength: 2000 }])),
    where: { type: 'string', maxLength: 10000 },
    orderBy: { type: 'string', maxLength: 500 },
    page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
    page_size: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 10 },
  },
});

const INT_MAX = 2_147_483_647;
/** A well-formed id too large to exist is simply not found (0 never exists). */
const idOf = (raw: string) => {
  const s = raw.replace(/^0+(?=\d)/, '');
  return s.length <= 10 && Number(s) <= INT_MAX ? Number(s) : 0;
};

const listVariables = ({ query }: RouteInput) => ({
  where: rawWhere(query.where) ?? null,
  orderBy: query.orderBy ?? null,
  page: query.page ?? null,
  page_size: query.page_size ?? null,
});

export const conversationRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/ai/agents/:provider_external_id/conversations/current',
    operation: 'AiCurrentConversation',
    summary: 'The caller\'s active conversation with the agent, created when none is active',
    tags: ['ai-conversations'],
    access: ACCESS.AUTHENTICATED,
    ai: true,
    schema: { params: agentParams },
  },
  {
    method: 'GET',
    path: '/ai/agents/:provider_external_id/conversations/current/messages',
    operation: 'AiCurrentConversationMessages',
    summary: 'Public messages of the caller\'s active conversation with the agent, oldest first',
    tags: ['ai-conversations'],
    access: ACCESS.AUTHENTICATED,
    ai: true,
    schema: { params: agentParams },
  },
  {
    method: 'GET',
    path: '/ai/conversations',
    operation: 'AiConversations',
    summary: 'Conversations with messages_count: params, where, orderBy, page, page_size',
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: { querystring: listQuery('params') },
    variables: listVariables,
    document: ({ query }, base) =>
      documentWithSelection({ parameter: 'params', value: query.params, base, target: ['aiConversations', 'items'], relations: true, always: ['messages_count'] }),
    ...paged('aiConversations'),
  },
  {
    method: 'GET',
    path: '/ai/conversations/:conversation_id',
    operation: 'AiConversation',
    summary: 'One conversation with messages_count; params selects its fields',
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: { params: conversationIdParams, querystring: { type: 'object', properties: { params: { type: 'string', maxLength: 2000 } } } },
    variables: ({ params }) => ({ id: idOf(params.conversation_id) }),
    document: ({ query }, base) =>
      documentWithSelection({ parameter: 'params', value: query.params, base, target: ['aiConversation'], relations: true, always: ['messages_count'] }),
  },
  {
    method: 'GET',
    path: '/ai/conversations/:conversation_id/messages',
    operation: 'AiConversationMessages',
    summary: 'Every message of a conversation, public or not: fields, where, orderBy, page, page_size',
    tags: ['ai-conversations'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    // The SDK always selects with `params`: here it means what `fields` means, and `fields` wins.
    schema: { params: conversationIdParams, querystring: listQuery('fields', 'params') },
    variables: (input) => ({ conversation_id: idOf(input.params.conversation_id), ...listVariables(input) }),
    document: ({ query }, base) =>
      documentWithSelection({
        parameter: query.fields !== undefined ? 'fields' : 'params',
        value: query.fields ?? query.params,
        base,
        target: ['aiConversationMessages', 'items'],
        relations: false,
      }),
    ...paged('aiConversationMessages'),
  },
];
