import { ACCESS } from '../../services/identity/access.js';
import { SEND_ORDER, SEND_WHERE } from '../../services/whatsapp/template-send.service.js';
import { MAX_PAGE, MAX_PAGE_SIZE } from '../../services/shared/list-query.js';
import { integerId, object, pathId } from '../json-schema.js';
import { rawWhere } from '../raw-where.js';
import { paged, type RouteSpec } from '../route-spec.js';

/**
 * WhatsApp both ways (CONTRACT §9.3). The two webhook routes are open to anonymous callers (Meta
 * sends no API key) but still pass the pipeline of §1 (version, maintenance, project, limits, AI
 * module); the notification is authenticated by its signature over the raw body before its operation runs.
 */
export const whatsappRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/ai/webhooks/whatsapp',
    operation: 'WhatsAppWebhookChallenge',
    errors: ['ERROR_WEBHOOK_VERIFICATION_FAILED'],
    summary: "Meta's webhook verification: hub.challenge as text/plain when hub.verify_token is a WhatsApp agent's verify_token",
    tags: ['ai webhooks'],
    access: ACCESS.OPEN,
    ai: true,
    plainText: true,
    schema: {
      querystring: {
        type: 'object',
        properties: {
          'hub.mode': { type: 'string', maxLength: 64 },
          'hub.verify_token': { type: 'string', maxLength: 1024 },
          'hub.challenge': { type: 'string', maxLength: 1024 },
        },
      },
    },
    variables: ({ query }) => ({
      mode: query['hub.mode'] ?? null,
      verify_token: query['hub.verify_token'] ?? null,
      challenge: query['hub.challenge'] ?? null,
    }),
  },
  {
    method: 'POST',
    path: '/ai/webhooks/whatsapp',
    operation: 'ReceiveWhatsAppNotification',
    errors: ['ERROR_WEBHOOK_SIGNATURE'],
    summary: "Meta's notifications (messages and statuses), signed with X-Hub-Signature-256 over the raw body",
    tags: ['ai webhooks'],
    access: ACCESS.OPEN,
    ai: true,
    rawBody: (ctx, raw, headers) => ctx.services.whatsappInbound.authenticate(ctx, raw, headers['x-hub-signature-256']),
    variables: ({ body }) => ({ payload: body }),
  },
  {
    method: 'GET',
    path: '/ai/agents/:agent_id/templates/sends',
    operation: 'AiTemplateSends',
    errors: ['ERROR_AI_AGENT_NOT_FOUND'],
    summary: "The agent's template sends and their delivery status, newest first: where, orderBy, page, page_size",
    tags: ['ai templates'],
    access: ACCESS.AI_ADMIN,
    ai: true,
    schema: {
      params: object({ agent_id: integerId }, ['agent_id']),
      querystring: {
        type: 'object',
        properties: {
          where: { type: 'string', maxLength: 10000 },
          orderBy: { type: 'string', maxLength: 500 },
          page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
          page_size: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 10 },
        },
      },
    },
    variables: ({ params, query }) => ({
      agent_id: pathId(params.agent_id),
      where: rawWhere(query.where) ?? null,
      orderBy: query.orderBy ?? null,
      page: query.page ?? null,
      page_size: query.page_size ?? null,
    }),
    ...paged('aiTemplateSends'),
    list: { where: SEND_WHERE, orderBy: SEND_ORDER },
    record: 'TemplateSend',
  },
];
