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
 * CORS for browser clients (CONTRACT §1). The root `onRequest` hook runs before every route's own
 * hooks, so a preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered 204
 * before the version, project and credential checks; every other answer to an allowed origin,
 * errors included, carries Access-Control-Allow-Origin. An OPTIONS that is not a preflight is
 * handled as any unknown method (404). No cookies: credentials mode is never allowed.
 *
 * The headers @fastify/cors 11 wrote with these options (through its delegator: `Vary: Origin` on
 * every answer, Access-Control-Expose-Headers on every answer but a non-preflight OPTIONS), built
 * once: the plugin copied its options and re-joined the header lists on every request.
 */
export function registerCors(app: FastifyInstance, origins: string[]): void {
  const any = origins.length === 0 || origins.includes('*');
  const allowed = new Set(origins);
  const exposed = CORS_EXPOSED_HEADERS.join(', ');
  const preflight = {
    'access-control-allow-methods': CORS_METHODS.join(', '),
    'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
    'access-control-max-age': '600',
    'content-length': '0',
  };
  app.addHook('onRequest', (req, reply, done) => {
    varyOrigin(reply);
    const options = req.method === 'OPTIONS';
    if (options && !isPreflight(req)) return done();
    const origin = req.headers.origin;
    if (any) reply.header('access-control-allow-origin', '*');
    else if (typeof origin === 'string' && allowed.has(origin)) reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', exposed);
    if (!options) return done();
    reply.headers(preflight).code(204).send();
  });
  // a preflight never reaches it (answered above); any other OPTIONS is an unknown route
  app.options('*', { schema: { hide: true } }, (_req, reply) => void reply.callNotFound());
}

/** `Vary: Origin`, added to a Vary another hook set (as the plugin's `vary` did). */
function varyOrigin(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  if (vary === undefined) reply.header('vary', 'Origin');
  else if (
    vary !== '*' &&
    !String(vary)
      .split(',')
      .some((v) => v.trim().toLowerCase() === 'origin')
  )
    reply.header('vary', `${String(vary)}, Origin`);
}

function isPreflight(req: FastifyRequest): boolean {
  return typeof req.headers.origin === 'string' && typeof req.headers['access-control-request-method'] === 'string';
}
