import { ACCESS } from '../../services/identity/access.js';
import { REPLY_CONTENT_MAX, SHORTCUT_MAX, SHORTCUT_PATTERN } from '../../services/conversations/replies.service.js';
import { integerId, object, pathId, type JSONSchema } from '../json-schema.js';
import { paged, type RouteInput, type RouteSpec } from '../route-spec.js';
import { listQuery, listVariables, searchQuery, sentMembers } from './conversation.routes.js';

/** CONTRACT §10.6: saved replies, colleagues by name, a conversation's orders. */
const common: Pick<RouteSpec, 'tags' | 'access' | 'ai'> = { tags: ['ai-counter'], access: ACCESS.AI_ADMIN, ai: true };
/** Writes of saved replies: level 0 and server keys. */
const writer: Pick<RouteSpec, 'tags' | 'access' | 'ai'> = { ...common, access: ACCESS.INTERNAL };
const replyParams = object({ reply_id: integerId }, ['reply_id']);
const replyFields: Record<string, JSONSchema> = {
  shortcut: { type: 'string', minLength: 1, maxLength: SHORTCUT_MAX, pattern: SHORTCUT_PATTERN },
  content: { type: 'string', minLength: 1, maxLength: REPLY_CONTENT_MAX },
};
const replyId = ({ params }: RouteInput) => ({ reply_id: pathId(params.reply_id) });

export const counterRoutes: RouteSpec[] = [
  {
    ...common,
    method: 'GET',
    path: '/ai/replies',
    operation: 'AiReplies',
    summary:
      "The project's saved replies: where, orderBy (id, shortcut, created_at, updated_at), q (shortcut or content contains it), page, page_size",
    schema: {
      querystring: searchQuery(),
    },
    variables: (input) => ({ ...listVariables(input), q: input.query.q ?? null }),
    ...paged('aiReplies'),
  },
  {
    ...writer,
    method: 'POST',
    path: '/ai/replies',
    operation: 'CreateAiReply',
    summary: 'Saves a reply; shortcut is unique in the project',
    schema: { body: object(replyFields, ['shortcut', 'content']) },
    variables: ({ body }) => sentMembers(body),
  },
  {
    ...writer,
    method: 'PATCH',
    path: '/ai/replies/:reply_id',
    operation: 'UpdateAiReply',
    errors: ['ERROR_AI_REPLY_NOT_FOUND'],
    summary: 'Changes the fields given of a saved reply',
    schema: { params: replyParams, body: object(replyFields) },
    variables: (input) => ({ ...sentMembers(input.body), ...replyId(input) }),
  },
  {
    ...writer,
    method: 'DELETE',
    path: '/ai/replies/:reply_id',
    operation: 'DeleteAiReply',
    errors: ['ERROR_AI_REPLY_NOT_FOUND'],
    summary: 'Deletes a saved reply; answers it as it was',
    schema: { params: replyParams },
    variables: replyId,
  },
  {
    ...common,
    method: 'GET',
    path: '/ai/businesses',
    operation: 'AiBusinesses',
    summary: 'The businesses the caller may see (a business owner: theirs), by name, with their currency',
  },
  {
    ...common,
    method: 'GET',
    path: '/ai/operators',
    operation: 'AiOperators',
    summary:
      'Colleagues who can see conversations (levels 0 and 2), by name; a business owner sees the administrators and those who share a business',
  },
  {
    ...common,
    method: 'GET',
    path: '/ai/conversations/:conversation_id/orders',
    operation: 'AiConversationOrders',
    errors: ['ERROR_AI_CONVERSATION_NOT_FOUND'],
    summary:
      'The orders placed in a conversation, newest first: {id, status, total (summary.total), business_id, created_at}; page, page_size',
    schema: {
      params: object({ conversation_id: integerId }, ['conversation_id']),
      querystring: listQuery(),
    },
    variables: ({ params, query }) => ({ conversation_id: pathId(params.conversation_id), page: query.page, page_size: query.page_size }),
    ...paged('aiConversationOrders'),
  },
];
