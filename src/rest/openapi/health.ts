/** /health/live and /health/ready (rest/health.ts) in /openapi.json. */
const requestId = { 'X-Request-Id': { description: "The request's id", schema: { type: 'string' } } };
const retryAfter = { 'Retry-After': { description: 'Seconds to wait before asking again', schema: { type: 'integer', minimum: 0 } } };
const json = (schema: Record<string, unknown>) => ({ 'application/json': { schema } });

export const HEALTH_PATHS: Record<string, Record<string, unknown>> = {
  '/health/live': {
    get: {
      operationId: 'HealthLive',
      summary: 'The process is up (also while it sheds load)',
      tags: ['health'],
      security: [],
      responses: {
        200: {
          description: 'Alive',
          headers: requestId,
          content: json({
            type: 'object',
            properties: { status: { type: 'string', const: 'ok' } },
            required: ['status'],
            additionalProperties: false,
          }),
        },
      },
    },
  },
  '/health/ready': {
    get: {
      operationId: 'HealthReady',
      summary: 'The process can serve requests: its database answers a read within 900 ms and it is not shedding load',
      tags: ['health'],
      security: [],
      responses: {
        200: {
          description:
            'Ready; `streams` says how many event streams are open against their bound (a process at the bound still serves requests)',
          headers: requestId,
          content: json({
            type: 'object',
            properties: {
              status: { type: 'string', const: 'ok' },
              streams: {
                type: 'object',
                properties: { open: { type: 'integer', minimum: 0 }, max: { type: 'integer', minimum: 0 }, full: { type: 'boolean' } },
                required: ['open', 'max', 'full'],
                additionalProperties: false,
              },
            },
            required: ['status', 'streams'],
            additionalProperties: false,
          }),
        },
        503: {
          description: 'Not ready: the database did not answer in time, or the process sheds load (`reason`: what it is short of)',
          headers: { ...requestId, ...retryAfter },
          content: json({
            type: 'object',
            properties: { status: { type: 'string', const: 'unavailable' }, reason: { type: ['string', 'null'] } },
            required: ['status'],
            additionalProperties: false,
          }),
        },
      },
    },
  },
};
