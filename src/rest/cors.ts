import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The headers the platform's SDK and dashboards send (a bare `*` would not cover Authorization). */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'X-Api-Key',
  'Content-Type',
  'Accept',
  'Accept-Language',
  'X-APP-X',
  'X-Socket-Id-X',
  'X-Country-Code-X',
  'X-Request-Id',
  'X-Requested-With',
  'Idempotency-Key',
];
/** Headers scripts on another origin may read: the usage-limit answers, the request id, an idempotent replay. */
export const CORS_EXPOSED_HEADERS = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Scope',
  'X-RateLimit-Key',
  'X-Request-Id',
  'Idempotent-Replayed',
];
export const CORS_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * CORS for browser clients (CONTRACT §1). The plugin's root `onRequest` hook runs before every
 * route's own hooks, so a preflight (OPTIONS with Origin and Access-Control-Request-Method) is
 * answered 204 before the version, project and credential checks; every other answer to an
 * allowed origin, errors included, carries Access-Control-Allow-Origin. An OPTIONS that is not a
 * preflight is handled as any unknown method (404). No cookies: credentials mode is never allowed.
 */
export async function registerCors(app: FastifyInstance, origins: string[]): Promise<void> {
  const origin = origins.length === 0 || origins.includes('*') ? '*' : origins;
  const options = {
    origin,
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
    strictPreflight: false,
  };
  const notPreflight = { ...options, origin: false as const };
  await app.register(cors, {
    delegator: (req: FastifyRequest, cb: (err: Error | null, opts: typeof options | typeof notPreflight) => void) =>
      cb(null, req.method === 'OPTIONS' && !isPreflight(req) ? notPreflight : options),
  });
}

function isPreflight(req: FastifyRequest): boolean {
  return typeof req.headers.origin === 'string' && typeof req.headers['access-control-request-method'] === 'string';
}
