import { ACCESS } from '../../services/identity/access.js';
import { AI_EVENT_TYPES } from '../../services/events/event-log.js';
import { MAX_PAGE, MAX_PAGE_SIZE } from '../../services/shared/list-query.js';
import { MAX_WEBHOOK_URL } from '../../services/events/webhook.service.js';
import { integerId, object, pathId } from '../json-schema.js';
import { paged, type RouteSpec } from '../route-spec.js';

const common: Pick<RouteSpec, 'tags' | 'access' | 'ai'> = { tags: ['ai webhooks'], access: ACCESS.INTERNAL, ai: true };
const webhookParams = object({ webhook_id: integerId }, ['webhook_id']);

/** CONTRACT §9.4 outbound webhooks: levels 0 and server keys. The service checks the URL's host and the 20-per-project cap. */
export const webhookRoutes: RouteSpec[] = [
  {
    ...common,
    method: 'GET',
    path: '/ai/webhooks',
    operation: 'AiWebhooks',
    summary: "The project's webhooks (at most 20; not paginated)",
  },
  {
    ...common,
    method: 'POST',
    path: '/ai/webhooks',
    operation: 'CreateAiWebhook',
    summary: 'Register a webhook; the answer alone carries its signing secret',
    schema: {
      body: object(
        {
          url: { type: 'string', minLength: 1, maxLength: MAX_WEBHOOK_URL },
          events: { type: 'array', minItems: 1, maxItems: 16, items: { type: 'string', enum: ['*', ...AI_EVENT_TYPES] } },
          enabled: { type: 'boolean' },
        },
        ['url', 'events'],
      ),
    },
    variables: ({ body }) => ({ url: body.url, events: body.events, enabled: body.enabled ?? true }),
  },
  {
    ...common,
    method: 'DELETE',
    path: '/ai/webhooks/:webhook_id',
    operation: 'DeleteAiWebhook',
    errors: ['ERROR_WEBHOOK_NOT_FOUND'],
    summary: 'Delete a webhook and its delivery log',
    schema: { params: webhookParams },
    variables: ({ params }) => ({ webhook_id: pathId(params.webhook_id) }),
  },
  {
    ...common,
    method: 'GET',
    path: '/ai/webhooks/:webhook_id/deliveries',
    operation: 'AiWebhookDeliveries',
    errors: ['ERROR_WEBHOOK_NOT_FOUND'],
    summary: "A webhook's deliveries, newest first: page, page_size",
    schema: {
      params: webhookParams,
      querystring: {
        type: 'object',
        properties: {
          page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
          page_size: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 10 },
        },
      },
    },
    variables: ({ params, query }) => ({
      webhook_id: pathId(params.webhook_id),
      page: query.page ?? null,
      page_size: query.page_size ?? null,
    }),
    ...paged('aiWebhookDeliveries'),
  },
];
