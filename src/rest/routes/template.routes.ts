import { ACCESS } from '../../services/identity/access.js';
import { SEND_TO_MAX, SEND_TO_MIN, SEND_TO_PATTERN } from '../../services/whatsapp/template.service.js';
import { integerId, object, pathId, type JSONSchema } from '../json-schema.js';
import type { RouteSpec } from '../route-spec.js';

const agentParams = object({ agent_id: integerId }, ['agent_id']);

/**
 * An optional JSON object body: a request without a body is valid, any JSON other than an object
 * (or `null`) is not. Fastify validates a missing body as `null`, which `type: object` would refuse.
 */
export function optionalObject(properties: Record<string, JSONSchema>): JSONSchema {
  const { type: _type, ...rest } = object(properties);
  return { ...rest, not: { type: ['array', 'string', 'number', 'boolean'] } };
}
const common: Pick<RouteSpec, 'tags' | 'access' | 'ai'> = { tags: ['ai templates'], access: ACCESS.AI_ADMIN, ai: true };

export const templateRoutes: RouteSpec[] = [
  {
    ...common,
    method: 'GET',
    path: '/ai/agents/:agent_id/templates',
    operation: 'AiTemplates',
    errors: ['ERROR_AI_AGENT_NOT_FOUND'],
    summary: "The agent's stored templates, optionally of one status, ordered by name and language",
    schema: {
      params: agentParams,
      // Case-insensitive: the service checks the value against the five statuses.
      querystring: { type: 'object', properties: { status: { type: 'string', maxLength: 32 } } },
    },
    variables: ({ params, query }) => ({ agent_id: pathId(params.agent_id), status: query.status ?? null }),
  },
  {
    ...common,
    method: 'POST',
    path: '/ai/agents/:agent_id/templates/refresh',
    operation: 'RefreshAiTemplates',
    errors: ['ERROR_AI_AGENT_NOT_FOUND', 'ERROR_AI_PROVIDER_NOT_CONFIGURED', 'ERROR_AI_PROVIDER_REJECTED', 'ERROR_AI_PROVIDER_UNAVAILABLE'],
    summary: 'Pull every template from the provider, upsert them, return the stored list',
    schema: { params: agentParams },
    variables: ({ params }) => ({ agent_id: pathId(params.agent_id) }),
  },
  {
    ...common,
    method: 'POST',
    path: '/ai/agents/:agent_id/templates/sync',
    operation: 'SyncAiTemplates',
    errors: ['ERROR_AI_AGENT_NOT_FOUND', 'ERROR_AI_PROVIDER_NOT_CONFIGURED', 'ERROR_AI_PROVIDER_REJECTED', 'ERROR_AI_PROVIDER_UNAVAILABLE'],
    summary: 'Reconcile the stored templates with the provider; one created|updated|deleted:NAME:LANG string per change',
    schema: { params: agentParams, body: optionalObject({ delete_removed: { type: 'boolean' } }) },
    variables: ({ params, body }) => ({ agent_id: pathId(params.agent_id), delete_removed: body?.delete_removed === true }),
  },
  {
    ...common,
    method: 'POST',
    path: '/ai/agents/:agent_id/templates/:template_id/send',
    operation: 'SendAiTemplate',
    errors: [
      'ERROR_AI_AGENT_NOT_FOUND',
      'ERROR_AI_TEMPLATE_NOT_FOUND',
      'ERROR_AI_TEMPLATE_NOT_APPROVED',
      'ERROR_AI_PROVIDER_NOT_CONFIGURED',
      'ERROR_AI_PROVIDER_REJECTED',
      'ERROR_AI_PROVIDER_UNAVAILABLE',
    ],
    summary: 'Send an approved template to a phone number',
    schema: {
      params: object({ agent_id: integerId, template_id: integerId }, ['agent_id', 'template_id']),
      body: object(
        {
          to: { type: 'string', minLength: SEND_TO_MIN, maxLength: SEND_TO_MAX, pattern: SEND_TO_PATTERN },
          body_parameters: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 1024 }, maxItems: 100 },
        },
        ['to'],
      ),
    },
    variables: ({ params, body }) => ({
      agent_id: pathId(params.agent_id),
      template_id: pathId(params.template_id),
      to: body.to,
      body_parameters: body.body_parameters ?? null,
    }),
  },
];
