import { documentWithSelection } from '../../graph/selection.js';
import { ACCESS } from '../../services/identity/access.js';
import { AGENT_ATTRIBUTES, AGENT_LIMITS, MAX_CREDENTIAL_KEYS, MAX_CREDENTIAL_VALUE } from '../../services/agents/agent.service.js';
import { integerId, object, pathId, type JSONSchema } from '../json-schema.js';
import { paged, type RouteInput, type RouteSpec } from '../route-spec.js';
import { listQuery, listVariables, sentMembers } from './conversation.routes.js';
import { ID_MAX } from '../../services/conversations/message-rules.js';

const common: Pick<RouteSpec, 'tags' | 'access' | 'ai'> = { tags: ['ai agents'], access: ACCESS.AI_ADMIN, ai: true };
const agentParams = object({ agent_id: integerId }, ['agent_id']);
const text = (maxLength: number, pattern?: string): JSONSchema => ({
  type: 'string',
  minLength: 1,
  maxLength,
  ...(pattern ? { pattern } : {}),
});
/** Write-only: an object of strings (a patch may set a key to null to remove it); never answered. */
const credentials = (patch: boolean): JSONSchema => ({
  type: 'object',
  maxProperties: MAX_CREDENTIAL_KEYS,
  additionalProperties: { type: patch ? ['string', 'null'] : 'string', minLength: 1, maxLength: MAX_CREDENTIAL_VALUE },
  description:
    'WhatsApp: waba_id, phone_number_id, access_token, app_secret, verify_token, dataset_id (the Conversions API dataset). Write-only.',
  example: { waba_id: '<waba id>', phone_number_id: '<phone number id>', access_token: '<access token>' },
});
const fields = (patch: boolean): Record<string, JSONSchema> => ({
  name: text(AGENT_LIMITS.name),
  business_id: { type: ['integer', 'null'], format: 'int64', minimum: 1, maximum: ID_MAX },
  provider: text(AGENT_LIMITS.provider),
  provider_type: text(AGENT_LIMITS.provider_type),
  provider_external_id: text(AGENT_LIMITS.provider_external_id, '^[a-zA-Z0-9_-]+$'),
  enabled: { type: 'boolean' },
  credentials: credentials(patch),
});
/** CONTRACT §15.5: checked member by member by the service (each problem names its member). */
const ORDER_MESSAGES: JSONSchema = {
  type: ['object', 'null'],
  description:
    'The notices an order of a WhatsApp conversation sends, replacing the whole object (null removes them): keys are order status codes ("0" placed, "1" to "23" moves), values {"text" (1-1024 characters; {{order}} the order id, {{total}} the total and its currency, {{eta}} the move\'s reason or -), "template_id" (an APPROVED template of the agent, sent outside the customer service window; optional), "locale" (optional)}.',
  example: { '7': { text: 'Order {{order}} accepted: {{total}}, ready in {{eta}}', template_id: null, locale: 'en' } },
};
const agentId = ({ params }: RouteInput) => ({ agent_id: pathId(params.agent_id) });
/** CONTRACT §10.3: agents a dashboard manages. Levels 0/2 and server keys; the service scopes a business owner. */
export const agentRoutes: RouteSpec[] = [
  {
    ...common,
    method: 'GET',
    path: '/ai/agents',
    operation: 'AiAgents',
    summary: 'Agents (credentials shown as booleans only): params, where, orderBy, page, page_size',
    schema: { querystring: listQuery('params') },
    variables: listVariables,
    document: ({ query }, base) =>
      documentWithSelection({ parameter: 'params', value: query.params, base, target: ['aiAgents', 'items'], relations: false }),
    ...paged('aiAgents'),
    list: { where: AGENT_ATTRIBUTES, orderBy: AGENT_ATTRIBUTES },
  },
  {
    ...common,
    method: 'GET',
    path: '/ai/agents/:agent_id',
    operation: 'AiAgent',
    errors: ['ERROR_AI_AGENT_NOT_FOUND'],
    record: 'Agent',
    summary: 'One agent; params selects its fields',
    schema: { params: agentParams, querystring: { type: 'object', properties: { params: { type: 'string', maxLength: 2000 } } } },
    variables: agentId,
    document: ({ query }, base) =>
      documentWithSelection({ parameter: 'params', value: query.params, base, target: ['aiAgent'], relations: false }),
  },
  {
    ...common,
    method: 'POST',
    path: '/ai/agents',
    operation: 'CreateAiAgent',
    errors: ['ERROR_BUSINESS_NOT_FOUND'],
    summary: 'Creates an agent; provider_external_id and a WhatsApp phone_number_id are unique in the project',
    schema: { body: object(fields(false), ['name', 'provider', 'provider_type', 'provider_external_id']) },
    variables: ({ body }) => sentMembers(body),
  },
  {
    ...common,
    method: 'PATCH',
    path: '/ai/agents/:agent_id',
    operation: 'UpdateAiAgent',
    errors: ['ERROR_AI_AGENT_NOT_FOUND', 'ERROR_BUSINESS_NOT_FOUND'],
    summary: 'Changes the fields given; credentials merge key by key, a key set to null is removed; order_messages replaces the notices',
    schema: { params: agentParams, body: object({ ...fields(true), order_messages: ORDER_MESSAGES }) },
    variables: (input) => ({ ...sentMembers(input.body), ...agentId(input) }),
  },
  {
    ...common,
    method: 'POST',
    path: '/ai/agents/:agent_id/credentials/check',
    operation: 'CheckAiAgentCredentials',
    errors: ['ERROR_AI_AGENT_NOT_FOUND', 'ERROR_AI_PROVIDER_NOT_CONFIGURED', 'ERROR_AI_PROVIDER_REJECTED', 'ERROR_AI_PROVIDER_UNAVAILABLE'],
    summary: "Reads the provider's phone number with the agent's credentials (display_phone_number, verified_name, quality_rating)",
    schema: { params: agentParams },
    variables: agentId,
  },
];
