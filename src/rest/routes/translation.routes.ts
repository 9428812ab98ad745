import { LOCALES } from '../../entities/ai-translation.js';
import { ACCESS } from '../../services/identity/access.js';
import { integerId, object, pathId } from '../json-schema.js';
import type { RouteSpec } from '../route-spec.js';
import { optionalObject } from './template.routes.js';
import { ID_MAX } from '../../services/conversations/message-rules.js';

const agentParams = object({ agent_id: integerId }, ['agent_id']);
const common: Pick<RouteSpec, 'tags' | 'access' | 'ai'> = { tags: ['ai translations'], access: ACCESS.AI_ADMIN, ai: true };
/** `{LOCALE: object | null}`; the service checks the locales and values (also for /graphql). */
const translationsBody = optionalObject({ translations: { type: ['object', 'null'] } });
const write = ({ params, body }: { params: Record<string, any>; body: any }) => ({
  agent_id: pathId(params.agent_id),
  translations: body?.translations ?? null,
});

export const translationRoutes: RouteSpec[] = [
  {
    ...common,
    method: 'GET',
    path: '/ai/agents/:agent_id/translations',
    operation: 'AiTranslations',
    errors: ['ERROR_AI_AGENT_NOT_FOUND'],
    summary: "The agent's translations keyed by locale, or one locale's value ({} when none)",
    schema: { params: agentParams, querystring: { type: 'object', properties: { locale: { type: 'string', enum: [...LOCALES] } } } },
    variables: ({ params, query }) => ({ agent_id: pathId(params.agent_id), locale: query.locale ?? null }),
  },
  {
    ...common,
    method: 'PUT',
    path: '/ai/agents/:agent_id/translations',
    operation: 'ReplaceAiTranslations',
    errors: ['ERROR_AI_AGENT_NOT_FOUND'],
    summary: "Replace the agent's translations",
    schema: { params: agentParams, body: translationsBody },
    variables: write,
  },
  {
    ...common,
    method: 'PATCH',
    path: '/ai/agents/:agent_id/translations',
    operation: 'UpdateAiTranslations',
    errors: ['ERROR_AI_AGENT_NOT_FOUND'],
    summary: 'Deep-merge translations per locale; null removes a key',
    schema: { params: agentParams, body: translationsBody },
    variables: write,
  },
  {
    ...common,
    method: 'POST',
    path: '/ai/agents/:agent_id/translations/copy',
    operation: 'CopyAiTranslations',
    errors: ['ERROR_AI_AGENT_NOT_FOUND'],
    summary: "Replace the agent's translations with another agent's of the same project",
    schema: {
      params: agentParams,
      body: object({ source_agent_id: { type: 'integer', format: 'int64', minimum: 1, maximum: ID_MAX } }, ['source_agent_id']),
    },
    variables: ({ params, body }) => ({ agent_id: pathId(params.agent_id), source_agent_id: body.source_agent_id }),
  },
];
