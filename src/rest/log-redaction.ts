import type { FastifyRequest } from 'fastify';

/**
 * Credentials may arrive in the query string (`?access_token=`, `?api_key=`: the SSE routes, for
 * browsers' EventSource, which cannot send headers; `hub.verify_token`: Meta's webhook
 * verification). They are never written to logs: the request serializer logs the URL with their
 * values replaced, and every log message string is scrubbed too.
 *
 * A parameter is judged by its name as the query parser reads it, not as it was typed: percent-
 * decoded (`api%5Fkey`, `%61ccess_token`, decoded again while it changes, so a double encoding
 * counts too), in any case, and with separators ignored (`apiKey`, `api-key`); so whatever
 * spelling a client used, its value does not reach a log.
 */
const SECRET_NAMES = new Set(['apikey', 'accesstoken', 'hubverifytoken', 'verifytoken', 'password']);
/** One `name=value` of a query string, wherever it sits in a URL or a message (a value ends at &, #, a space or a quote). */
const QUERY_PAIR = /([?&])([^=&#\s"?]*)=([^&#\s"]*)/g;

function isSecretName(raw: string): boolean {
  let name = raw;
  for (let i = 0; i < 4 && name.includes('%'); i++) {
    const decoded = name.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (decoded === name) break;
    name = decoded;
  }
  return SECRET_NAMES.has(name.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

/** The text with the value of every credential parameter replaced by `[Redacted]`. */
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined || !url.includes('=')) return url;
  return url.replace(QUERY_PAIR, (pair, sep: string, name: string) => (isSecretName(name) ? `${sep}${name}=[Redacted]` : pair));
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
    if (typeof args[i] === 'string') args[i] = redactUrl(args[i] as string);
  }
  method.apply(this, args);
}
