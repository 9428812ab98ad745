import type { FastifyInstance } from 'fastify';

/**
 * Headers every answer carries, and those of the pages a browser renders from this service
 * (CONTRACT §11, "pages that cannot be dressed up"). Set in the first `onRequest` hook, so errors,
 * 404s, redirects, SSE (its hijacked head copies the reply's headers), /metrics, health and Meta's
 * `hub.challenge` echo all carry them; answers made before Fastify routes a request
 * (rest/errors.ts `frameworkErrors`, `clientErrors`, the WebSocket upgrade refusal) set
 * `NOSNIFF` themselves. /console sets its own policy (rest/console.ts).
 */
export const NOSNIFF = { 'x-content-type-options': 'nosniff' } as const;

/**
 * GraphiQL (rest/graphiql.ts) and swagger-ui (/docs): every script and style from this origin (the
 * packages are served locally; no inline script), requests to this origin only, never in a frame.
 * Inline styles stay allowed: both render style attributes of their own, and neither page writes
 * a caller's data into its HTML.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGES = /^\/(graphiql|docs)(\/|\?|$)/;

export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(NOSNIFF);
    if (PAGES.test(req.url)) reply.headers({ 'content-security-policy': PAGE_CSP, 'x-frame-options': 'DENY' });
    done();
  });
}
