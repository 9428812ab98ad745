import { ACCESS } from '../../services/identity/access.js';
import { parseLastEventId } from '../../services/events/events.service.js';
import { integerId, pathId, type JSONSchema } from '../json-schema.js';
import type { RouteInput, RouteSpec } from '../route-spec.js';

/** The query of both SSE routes: the resume point and the credential forms EventSource can send. */
const resumeQuery = {
  last_event_id: { type: 'string', maxLength: 32 },
  access_token: { type: 'string', maxLength: 512 },
  api_key: { type: 'string', maxLength: 512 },
};

const eventsQuery: JSONSchema = {
  type: 'object',
  properties: {
    ...resumeQuery,
    types: { type: 'string', maxLength: 500 },
    conversation_id: integerId,
  },
};

/** `Last-Event-ID` (what EventSource sends when it reconnects) wins over `?last_event_id` (the URL it first opened). */
function lastEventId({ query, headers }: RouteInput): string | null {
  const header = headers?.['last-event-id'];
  if (typeof header === 'string' && header !== '') return String(parseLastEventId(header, 'Last-Event-ID'));
  const q = parseLastEventId(query.last_event_id);
  return q === null ? null : String(q);
}

export const eventRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/ai/events',
    operation: 'AiEvents',
    errors: ['ERROR_AI_CONVERSATION_NOT_FOUND'],
    summary: "Server-Sent Events of the project's AI module (resumable with Last-Event-ID)",
    tags: ['ai-events'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    stream: true,
    schema: { querystring: eventsQuery },
    variables: (input) => ({
      types:
        typeof input.query.types === 'string'
          ? input.query.types
              .split(',')
              .map((t: string) => t.trim())
              .filter(Boolean)
          : null,
      conversation_id: input.query.conversation_id !== undefined ? pathId(input.query.conversation_id) : null,
      last_event_id: lastEventId(input),
    }),
  },
  {
    method: 'GET',
    path: '/ai/agents/:provider_external_id/conversations/current/events',
    operation: 'AiCurrentConversationEvents',
    errors: [['ERROR_AI_AGENT_NOT_FOUND', 404]],
    summary: "Server-Sent Events of the caller's current conversation: public messages and its closing",
    tags: ['ai-events'],
    access: ACCESS.AUTHENTICATED,
    ai: true,
    stream: true,
    schema: {
      params: {
        type: 'object',
        properties: { provider_external_id: { type: 'string', pattern: '^[a-zA-Z0-9_-]+$' } },
        required: ['provider_external_id'],
      },
      querystring: { type: 'object', properties: resumeQuery },
    },
    variables: (input) => ({ provider_external_id: input.params.provider_external_id, last_event_id: lastEventId(input) }),
  },
];
