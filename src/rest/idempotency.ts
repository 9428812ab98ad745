import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IdempotencyStore, type IdempotencyRequest } from '../db/idempotency-store.js';
import { appError, validationError } from '../errors/codes.js';
import type { Caller } from '../context/index.js';
import type { CredentialCipher } from '../platform/secrets.js';
import type { Services } from '../services/index.js';
import type { RouteSpec } from './route-spec.js';

/**
 * `Idempotency-Key` (CONTRACT §9.2) for every POST route of the AI module, whatever its operation:
 * the gateway spreads these hooks into each such route.
 *
 * - preValidation (after the checks of §1 up to the AI module): the header's form, and the body as
 *   it came (before validation drops unknown members or adds defaults), kept for the comparison as
 *   its fingerprint only (CONTRACT §11: an HMAC under CREDENTIALS_KEY of its canonical JSON, never
 *   the values, nor a plain hash of them: a body may carry a short secret such as a verify_token).
 * - preHandler (after input validation, so refusals up to there are never kept): claim the key,
 *   or answer the kept answer (`Idempotent-Replayed: true`), 400 ERROR_IDEMPOTENCY_KEY_REUSED
 *   for another method/path/body, 409 ERROR_IDEMPOTENCY_IN_PROGRESS + Retry-After: 1 while it runs.
 * - onSend: keep the answer (status and body), or forget the claim for a 5xx.
 *
 * Kept answers are sealed with the credential cipher (AES-256-GCM under CREDENTIALS_KEY, like agent
 * credentials): some carry a secret (`POST /ai/webhooks` answers the webhook's signing `secret`,
 * once), and a kept answer is a copy of it for 24 hours. Every answer is sealed, not only those of
 * routes known to carry one: one rule that a new route cannot forget, for a few microseconds per
 * request. Rows kept before sealing existed are read as they are.
 *
 * Anonymous callers have no caller scope: their key is checked for form and otherwise ignored.
 */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

interface State extends IdempotencyRequest {
  token?: string;
  replayed?: boolean;
}

const states = new WeakMap<FastifyRequest, State>();
const stores = new WeakMap<Services, IdempotencyStore>();

export function idempotencyHooks(spec: RouteSpec, services: Services) {
  if (spec.method !== 'POST' || !spec.ai) return {};
  let store = stores.get(services);
  if (!store) stores.set(services, (store = new IdempotencyStore(services.deps.orm)));
  const kept = store;
  const { cipher } = services.deps;

  return {
    preValidation: async (req: FastifyRequest) => {
      const header = req.headers[IDEMPOTENCY_HEADER];
      if (header === undefined) return;
      if (typeof header !== 'string' || !KEY_FORM.test(header))
        throw validationError([{ field: 'Idempotency-Key', rule: 'printable', params: { min: 1, max: 255 } }]);
      const caller = callerScope(req.ctx!.caller);
      if (!caller) return;
      states.set(req, {
        projectId: req.ctx!.project.id,
        caller,
        key: header,
        method: req.method,
        path: apiPath(req.url),
        body: req.body === undefined || req.body === null ? null : JSON.stringify(cipher.fingerprint(canonicalJson(req.body))),
      });
    },

    preHandler: async (req: FastifyRequest, reply: FastifyReply) => {
      const state = states.get(req);
      if (!state) return;
      const token = randomUUID();
      const claim = await kept.claim(state, token);
      switch (claim.kind) {
        case 'claimed':
          state.token = token;
          return;
        case 'reused':
          throw appError('ERROR_IDEMPOTENCY_KEY_REUSED');
        case 'running':
          throw appError('ERROR_IDEMPOTENCY_IN_PROGRESS', undefined, { headers: { 'retry-after': '1' } });
        case 'done':
          state.replayed = true;
          return reply
            .code(claim.status)
            .header('idempotent-replayed', 'true')
            .type('application/json; charset=utf-8')
            .send(unseal(cipher, claim.response));
      }
    },

    onSend: async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const state = states.get(req);
      if (!state?.token || state.replayed) return payload;
      try {
        if (reply.statusCode >= 500) await kept.release(state, state.token);
        else
          await kept.complete(
            state,
            state.token,
            reply.statusCode,
            seal(cipher, typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : ''),
          );
      } catch (err) {
        // The key stays "running" until its lease ends; the answer itself is still sent.
        req.log.error({ err }, 'idempotency key could not be stored');
      }
      return payload;
    },
  };
}

/**
 * JSON text with every object's keys sorted: bodies equal as JSON (key order, spacing, `1.0` and
 * `1`) have one text, hence one fingerprint, as the structural comparison of §9.2 wants.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

const SEALED = 'sealed:';

function seal(cipher: CredentialCipher, answer: string): string {
  return SEALED + cipher.encrypt(answer);
}

function unseal(cipher: CredentialCipher, kept: string): string {
  return kept.startsWith(SEALED) ? cipher.decrypt<string>(kept.slice(SEALED.length)) : kept;
}

/** A server key is its own caller; a user is one caller whether by session or by one of its keys. */
function callerScope(caller: Caller): string | null {
  if (caller.kind === 'user') return `u:${caller.user.id}`;
  if (caller.kind === 'server') return `k:${caller.apiKeyId}`;
  return null;
}

/** The path under /{version}/{lang}/{project}, without the query string: the language does not make another request. */
function apiPath(url: string): string {
  return '/' + url.split('?')[0].split('/').slice(4).join('/');
}
