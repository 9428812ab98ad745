import { appError } from '../errors/codes.js';
import type { AppError } from '../errors/app-error.js';

/**
 * A messaging provider (WhatsApp Cloud API today): what the template operations need from it.
 * The services pick the implementation by `agent.provider` from a registry, so a new provider is
 * one more entry in `createProviders` and no change to the services or resolvers.
 */
export interface ProviderTemplate {
  /** The provider's own template id (stored as `external_id`). */
  external_id: string;
  name: string;
  language: string;
  category: string | null;
  /** One of TEMPLATE_STATUSES. */
  status: string;
  components: unknown[];
}

export interface SendTemplateInput {
  /** The recipient, digits only (no leading `+`). */
  to: string;
  name: string;
  language: string;
  bodyParameters: string[];
}

export interface SendTemplateResult {
  /** The provider's message id. */
  message_id: string;
}

/** What `checkCredentials` learns about the account (WhatsApp: the phone number). */
export interface CredentialCheck {
  display_phone_number: string | null;
  verified_name: string | null;
  quality_rating: string | null;
}

/** The decrypted credentials of an agent; each provider checks the fields it needs. */
export type ProviderCredentials = Record<string, unknown>;

export interface MessagingProvider {
  /** Every template of the account (all pages). Read-only and idempotent, so it may retry. */
  listTemplates(credentials: ProviderCredentials): Promise<ProviderTemplate[]>;
  /** Sends one template message. Never retried (not idempotent). */
  sendTemplate(credentials: ProviderCredentials, input: SendTemplateInput): Promise<SendTemplateResult>;
  /** Reads the account with the agent's credentials (read-only, one bounded call). */
  checkCredentials(credentials: ProviderCredentials): Promise<CredentialCheck>;
  /** Marks the contact's message read and shows the typing indicator (CONTRACT §12.4); one call, never retried. */
  markReadTyping(credentials: ProviderCredentials, messageId: string): Promise<void>;
}

export type ProviderRegistry = ReadonlyMap<string, MessagingProvider>;

/**
 * A provider call that failed. `unavailable`: unreachable, timed out, 5xx or a garbled answer
 * (502); `rejected`: the provider refused the request (4xx), `detail` is its own message;
 * `not_configured`: the agent has no usable credentials or no known provider.
 * `reason` is for logs only; neither it nor `detail` ever holds a credential.
 */
/**
 * A provider's account ids (WhatsApp's `waba_id`, `phone_number_id`) are ids (CONTRACT §11): 1–64
 * letters, digits, `_` or `-`. Checked where they are accepted (services/agents) and again where
 * one is placed in a provider URL (`pathSegment`), so `..` or `/` never moves a request elsewhere.
 */
export const PROVIDER_ID_MAX = 64;
export const PROVIDER_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const PROVIDER_ID_KEYS: ReadonlySet<string> = new Set(['waba_id', 'phone_number_id', 'dataset_id']);

/** An id as one path segment of a provider URL: percent-encoded, and an id or nothing leaves. */
export function pathSegment(id: string): string {
  if (!PROVIDER_ID.test(id)) throw new ProviderError('not_configured', 'a provider id that is not an id');
  return encodeURIComponent(id);
}

/**
 * Another provider id (a media id from Meta's webhook, which may hold dots) as one path segment:
 * percent-encoded, and never a segment the URL resolver would walk (`.`, `..`, empty).
 */
export function idSegment(id: string): string {
  if (id === '' || id === '.' || id === '..' || id.length > 256)
    throw new ProviderError('not_configured', 'a provider id that is not an id');
  return encodeURIComponent(id);
}

export class ProviderError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'rejected' | 'not_configured',
    readonly reason: string,
    readonly detail?: string,
  ) {
    super(`provider ${kind}: ${reason}`);
    this.name = 'ProviderError';
  }
}

/** The service's answer for a provider failure (CONTRACT §6.1). */
export function providerAppError(err: ProviderError): AppError {
  switch (err.kind) {
    case 'rejected':
      return appError('ERROR_AI_PROVIDER_REJECTED', [{ key: 'ERROR_AI_PROVIDER_REJECTED', params: { detail: err.detail ?? '' } }]);
    case 'not_configured':
      return appError('ERROR_AI_PROVIDER_NOT_CONFIGURED');
    case 'unavailable':
      return appError('ERROR_AI_PROVIDER_UNAVAILABLE');
  }
}

/** Replaces every occurrence of the given secrets in a text that came from outside. */
export function redact(text: string, secrets: unknown[]): string {
  let out = text;
  for (const s of secrets) {
    if (typeof s === 'string' && s.length >= 4) out = out.split(s).join('[redacted]');
  }
  return out;
}
