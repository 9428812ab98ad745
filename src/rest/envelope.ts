import type { FastifyReply } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { appError, ERROR_STATUS, type ErrorCode } from '../errors/codes.js';
import type { GraphErrorLike } from '../graph/engines.js';
import { translate, type Lang } from '../i18n/messages.js';
import type { RouteOutput } from './route-spec.js';

/** The success envelope of CONTRACT §2. */
export function success(out: RouteOutput): Record<string, unknown> {
  return out.pagination ? { error: false, result: out.result, pagination: out.pagination } : { error: false, result: out.result };
}

/** The error envelope: a stable code, messages in the request's language (or the 409's object). */
export function sendError(reply: FastifyReply, err: AppError, lang: Lang): FastifyReply {
  const { code, status, messages, result, headers } = err.extensions;
  if (headers) reply.headers(headers);
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ error: true, code, result: result ?? messages.map((m) => translate(lang, m)) });
}

/** An AppError from a graph result's errors; anything unexpected is a 500 that leaks nothing. */
export function fromGraphErrors(errors: readonly GraphErrorLike[]): AppError {
  for (const e of errors) {
    const ext = e.extensions ?? {};
    const code = ext.code as string;
    if (code in ERROR_STATUS && typeof ext.status === 'number' && Array.isArray(ext.messages)) {
      return new AppError(code, ext.status, ext.messages as never, {
        result: ext.result as never,
        headers: ext.headers as never,
      });
    }
  }
  const first = errors[0];
  if (first?.documentError) return appError('ERROR_VALIDATION');
  return internal(errors);
}

function internal(errors: readonly GraphErrorLike[]): AppError {
  const err = appError('ERROR_INTERNAL');
  (err as { cause?: unknown }).cause = errors;
  return err;
}

export function isErrorCode(code: string): code is ErrorCode {
  return code in ERROR_STATUS;
}
