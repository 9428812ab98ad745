import { AiAgent } from '../../entities/ai-agent.js';
import { appError, validationError, type Problem } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import type { CredentialCipher } from '../../platform/secrets.js';
import {
  PROVIDER_ID,
  PROVIDER_ID_KEYS,
  PROVIDER_ID_MAX,
  ProviderError,
  providerAppError,
  type CredentialCheck,
  type ProviderRegistry,
} from '../../providers/messaging.js';
import { assertAiAdmin, visibleBusinessIds } from '../identity/access.js';
import { findVisibleAgent } from './agent-lookup.js';
import { readPage, type Page } from '../conversations/conversation.service.js';
import { ID_MAX } from '../conversations/message-rules.js';
import { pagination, parseListQuery, toFilter, type Attributes, type ListInput } from '../shared/list-query.js';
import { credentialColumns, decryptCredentials, KEYS_PARAM, KNOWN_CREDENTIAL_KEYS } from './agent-credentials.js';
import { checkOrderMessages } from './order-messages.js';

/** What `where` and `orderBy` accept on the agents list (CONTRACT §10.3). */
export const AGENT_ATTRIBUTES: Attributes = {
  id: 'id',
  business_id: 'id',
  name: 'string',
  provider: 'string',
  provider_type: 'string',
  provider_external_id: 'string',
  enabled: 'boolean',
  created_at: 'timestamp',
};

/** Field bounds of CONTRACT §10.3 (lengths in characters). */
export const AGENT_LIMITS = { name: 255, provider: 64, provider_type: 64, provider_external_id: 255 } as const;
export const PROVIDER_EXTERNAL_ID = /^[a-zA-Z0-9_-]+$/;
export const MAX_CREDENTIAL_KEYS = 20;
export const MAX_CREDENTIAL_VALUE = 4096;
const CREDENTIAL_KEY = /^[A-Za-z0-9_]{1,64}$/;
/** Names an object literal treats specially: never credential keys. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** The credentials `credentials/check` needs, per provider. */
const CHECKED_KEYS: Readonly<Record<string, readonly string[]>> = { whatsapp: ['phone_number_id', 'access_token'] };
/** The unique index on a project's WhatsApp phone numbers (the migration's name). */
const PHONE_INDEX = 'ai_agents_whatsapp_phone_uq';
const RECORD_COLUMNS =
  'id, business_id, name, provider, provider_type, provider_external_id, enabled, disabled_reason, history, order_messages, credential_keys, created_at, updated_at';

/** A create or a patch as received: every member unchecked; `credentials` values may be null in a patch. */
export interface AgentInput {
  name?: unknown;
  business_id?: unknown;
  provider?: unknown;
  provider_type?: unknown;
  provider_external_id?: unknown;
  enabled?: unknown;
  credentials?: unknown;
  /** CONTRACT §15.5: a patch only; null removes them. */
  order_messages?: unknown;
}

interface CheckedFields {
  name?: string;
  business_id?: number | null;
  provider?: string;
  provider_type?: string;
  provider_external_id?: string;
  enabled?: boolean;
}

/**
 * Agents a dashboard manages (CONTRACT §10.3): levels 0 and 2 and server keys, a business owner
 * within their businesses. Credentials are write-only: encrypted with the credentials cipher, and
 * only the names of the stored keys (`credential_keys`) ever leave this service. Uniqueness of
 * `provider_external_id` and of a WhatsApp `phone_number_id` per project is the database's
 * (unique indexes): a losing concurrent write gets 400 naming the field, never a duplicate.
 */
export class AgentService {
  constructor(
    private readonly providers: ProviderRegistry,
    private readonly cipher: CredentialCipher,
  ) {}

  /** `GET /ai/agents`: paginated; a business owner sees the agents of their businesses only. */
  async list(ctx: RequestContext, input: ListInput): Promise<Page<AiAgent>> {
    assertAiAdmin(ctx);
    const q = parseListQuery(input, AGENT_ATTRIBUTES);
    const scope = await visibleBusinessIds(ctx);
    if (scope !== null && scope.length === 0) return { items: [], pagination: pagination(q.page, q.page_size, 0, 0) };
    return readPage(ctx, AiAgent, q, () => {
      const filters = [toFilter(q.where), ...(scope ? [{ business_id: { $in: scope } }] : [])].filter((f) => Object.keys(f).length);
      return filters.length ? { $and: filters } : {};
    });
  }

  /** `GET /ai/agents/{id}`: missing, another project's or another owner's → 400 ERROR_AI_AGENT_NOT_FOUND. */
  async get(ctx: RequestContext, agentId: number): Promise<AiAgent> {
    assertAiAdmin(ctx);
    return findVisibleAgent(ctx, agentId);
  }

  /** `POST /ai/agents`. */
  async create(ctx: RequestContext, input: AgentInput): Promise<AiAgent> {
    assertAiAdmin(ctx);
    const problems: Problem[] = [];
    const fields = checkFields(input, problems, true);
    const credentials = input.credentials === undefined ? {} : checkCredentialPatch(fields.provider, input.credentials, problems, false);
    if (problems.length) throw validationError(problems);
    await this.checkBusiness(ctx, fields.business_id, true);
    const provider = fields.provider!;
    const columns = credentialColumns(provider, credentials as Record<string, string>);
    const stored = columns.credential_keys.length ? this.cipher.encrypt(credentials) : null;
    const [row] = await uniquely(() =>
      ctx.em.getConnection().execute<Record<string, unknown>[]>(
        `insert into ai_agents (project_id, business_id, name, provider, provider_type, provider_external_id, enabled, credentials, credential_keys, phone_number_id)
         values (?, ?, ?, ?, ?, ?, ?, ?, ${KEYS_PARAM}, ?)
         returning ${RECORD_COLUMNS}`,
        [
          ctx.project.id,
          fields.business_id ?? null,
          fields.name,
          provider,
          fields.provider_type,
          fields.provider_external_id,
          fields.enabled ?? true,
          stored,
          JSON.stringify(columns.credential_keys),
          columns.phone_number_id,
        ],
        'all',
      ),
    );
    return ctx.em.map(AiAgent, row);
  }

  /**
   * `PATCH /ai/agents/{id}`: the fields given; `credentials` merges key by key (`null` removes a
   * key). The row is locked for the read-modify-write of the encrypted set, so concurrent patches
   * of different keys both land; the merged set is re-encrypted in the one update.
   */
  async update(ctx: RequestContext, agentId: number, input: AgentInput): Promise<AiAgent> {
    assertAiAdmin(ctx);
    const problems: Problem[] = [];
    const fields = checkFields(input, problems, false);
    if (input.credentials !== undefined) checkCredentialPatch(undefined, input.credentials, problems, true);
    if (problems.length) throw validationError(problems);
    if ('business_id' in fields) await this.checkBusiness(ctx, fields.business_id, false);
    const row = await uniquely(() =>
      ctx.em.transactional(async (tx) => {
        const agent = await findVisibleAgent(ctx, agentId, { em: tx, lock: true, credentials: true });
        const provider = fields.provider ?? agent.provider;
        const merged = decryptCredentials(this.cipher, agent.credentials);
        const patch = (input.credentials ?? {}) as Record<string, string | null>;
        for (const [key, value] of Object.entries(patch)) {
          if (value === null) delete merged[key];
          else merged[key] = value;
        }
        // the merged set against the (possibly new) provider's keys
        checkCredentialPatch(provider, merged, problems, false);
        const orderMessages =
          input.order_messages === undefined ? undefined : await checkOrderMessages(tx, agent.id, input.order_messages, problems);
        if (problems.length) throw validationError(problems);
        const columns = credentialColumns(provider, merged);
        const [updated] = await tx.getConnection().execute<Record<string, unknown>[]>(
          `update ai_agents set
             name = coalesce(?, name), provider = ?, provider_type = coalesce(?, provider_type),
             provider_external_id = coalesce(?, provider_external_id), enabled = coalesce(?, enabled),
             disabled_reason = case when ?::boolean then null else disabled_reason end,
             business_id = case when ? then ? else business_id end,
             credentials = ?, credential_keys = ${KEYS_PARAM}, phone_number_id = ?,
             order_messages = case when ?::boolean then ?::jsonb else order_messages end, updated_at = now()
           where id = ? and project_id = ?
           returning ${RECORD_COLUMNS}`,
          [
            fields.name ?? null,
            provider,
            fields.provider_type ?? null,
            fields.provider_external_id ?? null,
            fields.enabled ?? null,
            fields.enabled === true, // CONTRACT §13.5: enabling again clears the reason
            'business_id' in fields,
            fields.business_id ?? null,
            columns.credential_keys.length ? this.cipher.encrypt(merged) : null,
            JSON.stringify(columns.credential_keys),
            columns.phone_number_id,
            orderMessages !== undefined,
            orderMessages ? JSON.stringify(orderMessages) : null,
            agent.id,
            ctx.project.id,
          ],
          'all',
          tx.getTransactionContext(),
        );
        return updated;
      }),
    );
    this.changed(ctx);
    return ctx.em.map(AiAgent, row);
  }

  /** `POST /ai/agents/{id}/credentials/check`: one bounded read of the provider's account. */
  async checkCredentials(ctx: RequestContext, agentId: number): Promise<CredentialCheck> {
    assertAiAdmin(ctx);
    const agent = await findVisibleAgent(ctx, agentId, { credentials: true });
    const provider = this.providers.get(agent.provider);
    if (!provider) throw appError('ERROR_AI_PROVIDER_NOT_CONFIGURED');
    const credentials = decryptCredentials(this.cipher, agent.credentials);
    const missing = (CHECKED_KEYS[agent.provider] ?? []).filter((key) => !credentials[key]);
    if (missing.length) throw validationError(missing.map((key) => ({ field: `credentials.${key}`, key: 'required_field' })));
    try {
      return await provider.checkCredentials(credentials);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      ctx.log.warn({ agent_id: agent.id, provider: agent.provider, kind: err.kind, reason: err.reason }, 'credentials check failed');
      throw providerAppError(err);
    }
  }

  /** An agent changed: this process's inbound webhook stops using what it cached (others within 1 s). */
  private changed(ctx: RequestContext): void {
    ctx.services.whatsappInbound.forget(ctx.project.id);
  }

  /**
   * `business_id`: a business of the project, or null; a business owner must name one of their own
   * (required when creating). Unknown and not-owned answer alike.
   */
  private async checkBusiness(ctx: RequestContext, businessId: number | null | undefined, creating: boolean): Promise<void> {
    const owned = await visibleBusinessIds(ctx);
    if (owned) {
      if (businessId == null)
        throw validationError([{ field: 'business_id', rule: creating && businessId === undefined ? 'required' : 'business' }]);
      if (!owned.includes(businessId)) throw validationError([{ field: 'business_id', rule: 'business' }]);
      return;
    }
    if (businessId == null) return;
    const found = await ctx.em
      .getConnection()
      .execute<unknown[]>('select 1 from businesses where project_id = ? and id = ?', [ctx.project.id, businessId], 'all');
    if (!found.length) throw validationError([{ field: 'business_id', rule: 'business' }]);
  }
}

/** Checks the scalar fields present (all required ones when creating); problems name each field. */
function checkFields(input: AgentInput, problems: Problem[], creating: boolean): CheckedFields {
  const out: CheckedFields = {};
  const text = (field: 'name' | 'provider' | 'provider_type' | 'provider_external_id', pattern?: RegExp) => {
    const value = input[field];
    if (value === undefined || (value === null && creating)) {
      if (creating) problems.push({ field, rule: 'required' });
      return;
    }
    const length = typeof value === 'string' ? [...value].length : 0;
    if (typeof value !== 'string') problems.push({ field, rule: 'string' });
    else if (!value.trim()) problems.push({ field, rule: 'not_empty' });
    else if (length > AGENT_LIMITS[field]) problems.push({ field, rule: 'max_length', params: { max: AGENT_LIMITS[field] } });
    else if (pattern && !pattern.test(value)) problems.push({ field, rule: 'external_id' });
    else out[field] = value;
  };
  text('name');
  text('provider');
  text('provider_type');
  text('provider_external_id', PROVIDER_EXTERNAL_ID);
  if (input.enabled !== undefined) {
    if (typeof input.enabled === 'boolean') out.enabled = input.enabled;
    else if (input.enabled !== null || !creating) problems.push({ field: 'enabled', rule: 'boolean' });
  }
  if (input.business_id !== undefined) {
    const id = input.business_id;
    if (id === null) out.business_id = null;
    else if (typeof id === 'number' && Number.isInteger(id) && id > 0 && id <= ID_MAX) out.business_id = id;
    else problems.push({ field: 'business_id', rule: 'range', params: { min: 1, max: ID_MAX } });
  }
  return out;
}

/**
 * `credentials`: an object of non-empty strings (`null` removes a key in a patch), at most 20 keys;
 * a provider with known keys (WhatsApp's five) takes only those. Returns the object as given.
 */
function checkCredentialPatch(
  provider: string | undefined,
  value: unknown,
  problems: Problem[],
  patch: boolean,
): Record<string, string | null> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    problems.push({ field: 'credentials', rule: 'object' });
    return {};
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_CREDENTIAL_KEYS) problems.push({ field: 'credentials', rule: 'max_keys', params: { max: MAX_CREDENTIAL_KEYS } });
  const known = provider === undefined ? undefined : KNOWN_CREDENTIAL_KEYS[provider];
  for (const [key, v] of entries) {
    const wellFormed = CREDENTIAL_KEY.test(key) && !RESERVED_KEYS.has(key);
    const field = wellFormed ? `credentials.${key}` : 'credentials';
    if (!wellFormed) problems.push({ field, key: 'unknown_field' });
    else if (known && !known.includes(key)) problems.push({ field, rule: 'key_enum', params: { values: known } });
    else if (v === null ? !patch : typeof v !== 'string' || !v || [...v].length > MAX_CREDENTIAL_VALUE) {
      problems.push({ field, rule: 'length', params: { min: 1, max: MAX_CREDENTIAL_VALUE } });
    } else if (PROVIDER_ID_KEYS.has(key) && typeof v === 'string' && !PROVIDER_ID.test(v)) {
      // whatever the provider: these go into provider URLs
      problems.push({ field, rule: 'provider_id', params: { max: PROVIDER_ID_MAX } });
    }
  }
  return value as Record<string, string | null>;
}

/** Runs a write; a unique violation on the agent's identifiers becomes 400 naming the field. */
async function uniquely<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    if (e?.code !== '23505') throw err;
    if (e.constraint === PHONE_INDEX) throw validationError([{ field: 'credentials.phone_number_id', key: 'duplicate_field' }]);
    if (e.constraint?.includes('provider_external_id')) throw validationError([{ field: 'provider_external_id', key: 'duplicate_field' }]);
    throw err;
  }
}
