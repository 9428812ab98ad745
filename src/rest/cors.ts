import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

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
 * CORS for browser clients (CONTRACT §1). A root `onRequest` hook runs before every route's own
 * hooks, so a preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered 204
 * before the version, project and credential checks; every other answer to an allowed origin,
 * errors included, carries Access-Control-Allow-Origin. An OPTIONS that is not a preflight is
 * handled as any unknown method (404). No cookies: credentials mode is never allowed.
 *
 * Our own hook rather than @fastify/cors: the options never change, while the plugin's per-request
 * options (needed for the not-a-preflight case) copied and normalised them on every request
 * (issue 45). The headers are the plugin's: `Vary: Origin` on every answer, the exposed headers
 * whether or not the origin is allowed, the preflight's methods, headers and max-age.
 */
export async function registerCors(app: FastifyInstance, origins: string[]): Promise<void> {
  const any = origins.length === 0 || origins.includes('*');
  const listed = new Set(origins);
  const exposed = CORS_EXPOSED_HEADERS.join(', ');
  const preflightHeaders = {
    'access-control-allow-methods': CORS_METHODS.join(', '),
    'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
    'access-control-max-age': '600',
  };
  app.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    varyOnOrigin(reply);
    const preflight = req.method === 'OPTIONS' && isPreflight(req);
    if (req.method === 'OPTIONS' && !preflight) return done();
    const origin = req.headers.origin;
    if (any) reply.header('access-control-allow-origin', '*');
    else if (typeof origin === 'string' && listed.has(origin)) reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', exposed);
    if (!preflight) return done();
    reply.headers(preflightHeaders).code(204).header('content-length', '0').send();
  });
  // Lets the router accept OPTIONS on any path; preflights were answered by the hook.
  app.options('*', { schema: { hide: true } }, (_req, reply) => reply.callNotFound());
}

/** Adds `Origin` to the answer's Vary (set first, so usually alone). */
function varyOnOrigin(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  if (vary === undefined) reply.header('vary', 'Origin');
  else if (
    vary !== '*' &&
    !String(vary)
      .toLowerCase()
      .split(/\s*,\s*/)
      .includes('origin')
  )
    reply.header('vary', `${String(vary)}, Origin`);
}

function isPreflight(req: FastifyRequest): boolean {
  return typeof req.headers.origin === 'string' && typeof req.headers['access-control-request-method'] === 'string';
}
