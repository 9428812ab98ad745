import { depthExceeds, MAX_BODY_DEPTH } from '../errors/depth.js';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DatabaseBreaker } from '../db/breaker.js';
import {
  isClientAbort,
  isDatabaseUnavailable,
  isRejectedInput,
  OutageLog,
  rejectedInput,
  rejectedSqlState,
  serviceUnavailable,
} from '../db/unavailable.js';
import { AppError } from '../errors/app-error.js';
import { appError, validationError } from '../errors/codes.js';
import { assertNoNul } from '../errors/nul.js';
import { resolveLang, translate } from '../i18n/messages.js';
import { MediaObjectMissing, MediaStoreUnavailable } from '../services/media/index.js';
import { problemsOfAjv } from './ajv-rules.js';
import { sendError } from './envelope.js';
import { NOSNIFF } from './security-headers.js';

/** 5xx answers that are states, not faults: maintenance, and a database outage (the outage log counts those). */
const ANSWERS_NOT_FAILURES = new Set(['ERROR_MAINTENANCE', 'ERROR_SERVICE_UNAVAILABLE']);

/** Every failure becomes an envelope here; nothing internal reaches a response. */
export function registerErrorHandling(app: FastifyInstance, breaker?: DatabaseBreaker): void {
  app.decorate('outage', new OutageLog(app.log, undefined, breaker && (() => breaker.suspect())));
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const lang = req.lang ?? resolveLang(segments(req.url)[2]);
    if (isClientAbort(err)) {
      // the client went away mid-body: nobody reads the answer, and nothing failed on our side
      req.log.info('the client closed the request before its body arrived');
      return sendError(reply, validationError([{ field: 'request', key: 'invalid_field' }]), lang);
    }
    if (isRejectedInput(err)) {
      // a value the database refused (CONTRACT §11: no input is an outage)
      req.log.warn({ sqlstate: rejectedSqlState(err) }, 'the database refused a value of the request');
      return sendError(reply, rejectedInput(), lang);
    }
    const media = mediaStoreFailure(err);
    if (media) {
      app.outage.unexpected(req.log, err, media.log);
      return sendError(reply, media.error, lang);
    }
    if (isDatabaseUnavailable(err)) {
      app.outage.failed(err);
      return sendError(reply, serviceUnavailable(), lang);
    }
    const mapped = toAppError(err);
    if (mapped.status >= 500 && !ANSWERS_NOT_FAILURES.has(mapped.extensions.code)) {
      app.outage.unexpected(req.log, (mapped as { cause?: unknown }).cause ?? err, 'request failed');
    }
    return sendError(reply, mapped, lang);
  });

  // An unsupported version answers an empty 404; under v400 an unknown path or method is an envelope.
  app.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) => {
    const seg = segments(req.url);
    if (seg[1] !== 'v400') return reply.code(404).send();
    return sendError(reply, appError('ERROR_NOT_FOUND'), resolveLang(seg[2]));
  });
}

/**
 * A media store that cannot give a file (CONTRACT §12.7): unreachable or failing, 503
 * ERROR_SERVICE_UNAVAILABLE with Retry-After; the object missing, 502 ERROR_AI_MEDIA_UNAVAILABLE
 * naming the reason. The log line names the store, never the database.
 */
function mediaStoreFailure(err: unknown): { error: AppError; log: string } | null {
  if (err instanceof MediaStoreUnavailable) return { error: serviceUnavailable(), log: `${err.dependency} unavailable: answering 503` };
  if (err instanceof MediaObjectMissing)
    return {
      error: appError('ERROR_AI_MEDIA_UNAVAILABLE', [{ key: 'ERROR_AI_MEDIA_UNAVAILABLE', params: { reason: err.message } }]),
      log: `${err.dependency}: a stored file is missing, answering 502`,
    };
  return null;
}

/**
 * While the server closes (SIGTERM), a request that still arrives gets 503 ERROR_SERVICE_UNAVAILABLE
 * with Retry-After and `connection: close`; requests already in flight finish.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (req, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    sendError(reply, serviceUnavailable(), resolveLang(segments(req.url)[2]));
  });
}

/**
 * While the database is known to be down (db/breaker.ts), API requests (`/v400/…`, `/graphql`) get
 * 503 ERROR_SERVICE_UNAVAILABLE with Retry-After at once, before anything waits on the database.
 */
export function failFastWhileDown(app: FastifyInstance, breaker: DatabaseBreaker): void {
  app.addHook('onRequest', (req, reply, done) => {
    if (!breaker.isDown || req.method === 'OPTIONS') return done();
    const seg = segments(req.url);
    if (seg[1] !== 'v400' && seg[1] !== 'graphql') return done();
    app.outage.refused();
    sendError(reply, serviceUnavailable(), resolveLang(seg[2]));
  });
}

/**
 * Failures of Fastify's router before any route runs (a URL that does not decode, an over-long
 * segment): an empty 404 outside v400, the not-found envelope under it; never Fastify's own body.
 */
export function frameworkErrors(_err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const seg = segments(req.raw.url ?? '');
  reply.header('x-request-id', req.id).headers(NOSNIFF); // the app's hooks do not run for these
  if (seg[1] !== 'v400') reply.code(404).send();
  else sendError(reply, appError('ERROR_NOT_FOUND'), resolveLang(seg[2]));
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (an over-long request line or
 * headers, a malformed request, a request that took too long to arrive): the envelope in English
 * (the path, hence the language, is unknown), then the connection closes.
 */
export function clientErrors(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const mapped =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? appError('ERROR_REQUEST_HEADERS_TOO_LARGE')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? appError('ERROR_REQUEST_TIMEOUT')
        : validationError([{ field: 'request', key: 'invalid_field' }]);
  const { code, status, messages } = mapped.extensions;
  const body = JSON.stringify({ error: true, code, result: messages.map((m) => translate('en', m)) });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

export { MAX_BODY_DEPTH } from '../errors/depth.js';

/** 400 naming `body` for a JSON body nested deeper than MAX_BODY_DEPTH (checked without recursion). */
export function limitBodyDepth(app: FastifyInstance): void {
  app.addHook('preValidation', (req, _reply, done) => {
    if (req.body !== null && typeof req.body === 'object' && depthExceeds(req.body, MAX_BODY_DEPTH)) {
      return done(validationError([{ field: 'body', rule: 'max_depth', params: { max: MAX_BODY_DEPTH } }]));
    }
    done();
  });
}

/**
 * 400 ERROR_VALIDATION naming the field for a NUL (U+0000) in any string of a request (CONTRACT §11):
 * path parameters and the query string before the route's checks read them (the project code is
 * looked up), the JSON body once validation has decoded its JSON-text members. Raw bodies (the
 * WhatsApp webhook) are the route's own: a notification keeps its text without the NUL.
 */
export function refuseNul(app: FastifyInstance): void {
  // callback hooks (a throw is Fastify's error as a rejection would be): no promise per request
  app.addHook('onRequest', (req, _reply, done) => {
    assertNoNul(req.params);
    assertNoNul(req.query);
    done();
  });
  app.addHook('preHandler', (req, _reply, done) => {
    if (req.body !== null && typeof req.body === 'object' && !Buffer.isBuffer(req.body)) assertNoNul(req.body);
    done();
  });
}

function toAppError(err: FastifyError): AppError {
  if (err instanceof AppError) return err;
  if (err.validation) return validationError(problemsOfAjv(err.validation, err.validationContext));
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return appError('ERROR_PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return appError('ERROR_UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return validationError([{ field: 'body', key: 'malformed_json' }]);
  }
  if (err instanceof SyntaxError || (err.statusCode && err.statusCode >= 400 && err.statusCode < 500)) {
    return validationError([{ field: 'body', key: 'malformed_json' }]);
  }
  const internal = appError('ERROR_INTERNAL');
  (internal as { cause?: unknown }).cause = err;
  return internal;
}

function segments(url: string): string[] {
  return url.split('?')[0].split('/');
}
