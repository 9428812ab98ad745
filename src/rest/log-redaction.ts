import type { FastifyRequest } from 'fastify';

/**
 * Credentials may arrive in the query string (`?access_token=`, `?api_key=`: the SSE routes, for
 * browsers' EventSource, which cannot send headers). They are never written to logs: the request
 * serializer logs the URL with their values replaced, and every log message string is scrubbed too.
 */
const QUERY_CREDENTIAL = /([?&](?:access_token|api_key)=)[^&#\s"]*/gi;

export function redactUrl(url: string | undefined): string | undefined {
  return url === undefined ? url : url.replace(QUERY_CREDENTIAL, '$1[Redacted]');
}

/** Fastify's own request serializer, with the URL redacted. */
export function requestSerializer(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'] as string | undefined,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  };
}

/** pino `hooks.logMethod`: message strings (a 404's "Route GET:/… not found", an error's text) lose query credentials. */
export function scrubLogMethod(this: unknown, args: unknown[], method: (...a: unknown[]) => void): void {
  for (let i = 0; i < args.length; i++) {
    if (typeof args[i] === 'string' && /access_token|api_key/i.test(args[i] as string)) args[i] = redactUrl(args[i] as string);
  }
  method.apply(this, args);
}
