import { ruleKey, type Rule } from '../i18n/messages.js';
import { AppError, type Message } from './app-error.js';

/** Every error code the service answers with, and its HTTP status: the one mapping. */
export const ERROR_STATUS = {
  ERROR_VALIDATION: 400,
  ERROR_RECAPTCHA: 400,
  ERROR_BUSINESS_NOT_FOUND: 400,
  ERROR_AI_AGENT_NOT_FOUND: 400,
  ERROR_AI_TEMPLATE_NOT_FOUND: 400,
  ERROR_AI_CONVERSATION_NOT_FOUND: 400,
  ERROR_AI_TEMPLATE_NOT_APPROVED: 400,
  ERROR_AI_PROVIDER_REJECTED: 400,
  ERROR_AI_PROVIDER_NOT_CONFIGURED: 400,
  ERROR_AI_CONVERSATION_CLOSED: 400,
  ERROR_IDEMPOTENCY_KEY_REUSED: 400,
  ERROR_WEBHOOK_NOT_FOUND: 400,
  ERROR_WHATSAPP_WINDOW_CLOSED: 400,
  ERROR_AI_MESSAGE_NOT_FOUND: 400,
  ERROR_AI_MEDIA_NOT_FOUND: 400,
  ERROR_AI_REPLY_NOT_FOUND: 400,
  ERROR_AI_PRODUCT_NOT_FOUND: 400,
  ERROR_AI_CART_NOT_FOUND: 400,
  ERROR_AI_ORDER_NOT_FOUND: 400,
  ERROR_UNAUTHORIZED: 401,
  ERROR_INVALID_CREDENTIALS: 401,
  ERROR_WEBHOOK_SIGNATURE: 401,
  ERROR_PROJECT_NOT_FOUND: 401,
  ERROR_PROJECT_SUBSCRIPTION_INACTIVE: 401,
  ERROR_AI_MODULE_DISABLED: 403,
  ERROR_FORBIDDEN: 403,
  ERROR_WEBHOOK_VERIFICATION_FAILED: 403,
  ERROR_NOT_FOUND: 404,
  ERROR_REQUEST_TIMEOUT: 408,
  ERROR_AI_CONVERSATION_CONFLICT: 409,
  ERROR_IDEMPOTENCY_IN_PROGRESS: 409,
  ERROR_AI_CONVERSATION_HANDED_OFF: 409,
  ERROR_AI_MEDIA_PENDING: 409,
  ERROR_AI_MEDIA_FAILED: 409,
  ERROR_AI_CART_CHANGED: 409,
  ERROR_AI_ORDER_FINAL: 409,
  ERROR_PAYLOAD_TOO_LARGE: 413,
  ERROR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERROR_REQUEST_HEADERS_TOO_LARGE: 431,
  ERROR_RATE_LIMIT: 429,
  ERROR_INTERNAL: 500,
  ERROR_PROJECT_LOOKUP_FAILED: 500,
  ERROR_AI_PROVIDER_UNAVAILABLE: 502,
  ERROR_AI_MEDIA_UNAVAILABLE: 502,
  ERROR_MAINTENANCE: 503,
  ERROR_RATE_LIMIT_UNAVAILABLE: 503,
  ERROR_SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The current-conversation pair (spec §4.3, §7) answers its not-found conditions with 404 and
 * the same codes the other AI operations answer with 400: the one place that status is chosen.
 */
export const NOT_FOUND_404_CODES = ['ERROR_AI_AGENT_NOT_FOUND', 'ERROR_AI_CONVERSATION_NOT_FOUND'] as const;
export function notFound404(code: (typeof NOT_FOUND_404_CODES)[number]): AppError {
  return new AppError(code, 404, [{ key: code }]);
}

/** Builds the AppError for a code; the message key defaults to the code itself. */
export function appError(code: ErrorCode, messages: Message[] = [{ key: code }], extra = {}): AppError {
  return new AppError(code, ERROR_STATUS[code], messages, extra);
}

/**
 * An invalid field: the rule it breaks and the rule's parameters (i18n/messages.ts lists the rules,
 * e.g. `{ field: 'status_reason', rule: 'enum', params: { values: STATUS_REASONS } }`), or a catalogue
 * `key`; with neither, the generic "The field X is invalid.".
 */
export interface Problem {
  field: string;
  rule?: Rule;
  key?: string;
  params?: Message['params'];
}

/** One 400 ERROR_VALIDATION naming each invalid field, with what it must be where known. */
export function validationError(problems: Problem[]): AppError {
  return appError(
    'ERROR_VALIDATION',
    problems.map((p) => ({ key: p.rule ? ruleKey(p.rule) : (p.key ?? 'invalid_field'), params: { field: p.field, ...p.params } })),
  );
}
