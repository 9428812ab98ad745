import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { Project } from '../entities/project.js';
import type { User } from '../entities/user.js';
import type { Lang } from '../i18n/messages.js';

/**
 * The types every layer shares: rest, graph, resolvers and services all depend on this module, and it
 * imports none of them back (test/architecture/imports.test.ts). The service registry's members are
 * declared by `src/services/index.ts` through declaration merging into `ServiceRegistry`, so the
 * context can name `services` without importing the services.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ServiceRegistry {}

/** Who is calling: nobody yet, a user (by session or by a user-bound key), or a server key. */
export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'user'; user: User; via: 'session' | 'api_key'; credentialId?: number }
  | { kind: 'server'; apiKeyId: number };

/**
 * The one credential a caller came with, as open streams count and re-check it (services/events/streams.ts):
 * an API key or a session, by its row id; null for anonymous callers.
 */
export function credentialOf(caller: Caller): { kind: 'api_key' | 'session'; id: number } | null {
  if (caller.kind === 'server') return { kind: 'api_key', id: caller.apiKeyId };
  if (caller.kind === 'user' && caller.credentialId !== undefined) return { kind: caller.via, id: caller.credentialId };
  return null;
}

/**
 * The request context every resolver and service receives first. `em` is forked per request
 * and scoped to `project` by the tenant filter.
 */
export interface RequestContext {
  requestId: string;
  project: Project;
  caller: Caller;
  em: EntityManager;
  lang: Lang;
  /** The client address (socket, or first forwarded hop of a trusted proxy). */
  ip: string;
  /** Transport facts recorded with a session. */
  forwardedFor?: string;
  userAgent?: string;
  services: ServiceRegistry;
  log: FastifyBaseLogger;
  /**
   * Set by the REST gateway once a provider webhook's signature over the raw body has been
   * verified (CONTRACT §9.3): the enabled agents the body names. Operations that receive webhook
   * payloads refuse to run without it.
   */
  webhook?: VerifiedWebhook;
}

/**
 * The deployment's operator (`Authorization: Bearer OPERATOR_TOKEN` on /graphql, CONTRACT §11): not a
 * tenant, so no project, no caller and no tenant-scoped `em`. Only the operator's own root fields
 * run with it (rest/graphql-route.ts refuses any other before execution), and their resolvers
 * take `GraphContext` and narrow it with `assertOperator` (services/access.ts).
 */
export interface OperatorContext {
  operator: true;
  requestId: string;
  lang: Lang;
  services: ServiceRegistry;
  log: FastifyBaseLogger;
}

/** What a resolver of an operator setting receives: a tenant's context or the operator's. */
export type GraphContext = RequestContext | OperatorContext;

export function isOperator(ctx: GraphContext): ctx is OperatorContext {
  return (ctx as Partial<OperatorContext>).operator === true;
}

/** The agents a verified webhook delivery may write for, by their provider phone number id. */
export interface VerifiedWebhook {
  agents: readonly { id: number; business_id: number | null; phone_number_id: string | null; waba_id: string | null }[];
}

export function callerLevel(caller: Caller): number | undefined {
  return caller.kind === 'user' ? caller.user.level : undefined;
}
