import type { EntityManager } from '@mikro-orm/postgresql';
import { AiTemplate, TEMPLATE_STATUSES } from '../../entities/ai-template.js';
import type { AiAgent } from '../../entities/ai-agent.js';
import { appError, validationError, type Problem } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import type { CredentialCipher } from '../../platform/secrets.js';
import {
  ProviderError,
  providerAppError,
  type MessagingProvider,
  type ProviderRegistry,
  type ProviderTemplate,
} from '../../providers/messaging.js';
import { assertAiAdmin } from '../identity/access.js';
import { agentCredentials, findVisibleAgent } from '../agents/agent-lookup.js';
import { writeWithEvents } from '../events/event-log.js';
import { insertTemplateSend, templateSendEvent } from './template-send.service.js';
import { storeTemplateMessage } from './template-message.js';

/** `to` of a template send: 10–15 characters, digits with an optional leading `+` (CONTRACT §6.1). */
export const SEND_TO_PATTERN = '^\\+?[0-9]+$';
export const SEND_TO_MIN = 10;
export const SEND_TO_MAX = 15;

export interface TemplateSendResult {
  message_id: string;
  to: string;
  template: string;
  language: string;
  status: 'accepted';
}

/** The fields a provider template and a stored one are compared on (sync's "updated"). */
const COMPARED = ['name', 'language', 'category', 'status', 'components'] as const;

/** Templates of an agent (CONTRACT §6.1): list, refresh, sync and send through the agent's provider. */
export class TemplateService {
  constructor(
    private readonly providers: ProviderRegistry,
    private readonly cipher: CredentialCipher,
  ) {}

  async list(ctx: RequestContext, agentId: number, status?: string | null): Promise<AiTemplate[]> {
    assertAiAdmin(ctx);
    let wanted: string | undefined;
    if (status != null) {
      wanted = status.toUpperCase();
      if (!(TEMPLATE_STATUSES as readonly string[]).includes(wanted))
        throw validationError([{ field: 'status', rule: 'enum', params: { values: TEMPLATE_STATUSES } }]);
    }
    const agent = await findVisibleAgent(ctx, agentId);
    return stored(ctx.em, agent.id, wanted);
  }

  /** Pulls every template, then upserts them in one transaction: a failed pull changes nothing. */
  async refresh(ctx: RequestContext, agentId: number): Promise<AiTemplate[]> {
    assertAiAdmin(ctx);
    const agent = await findVisibleAgent(ctx, agentId, { credentials: true });
    const remote = await this.pull(ctx, agent);
    await ctx.em.transactional(async (em) => {
      await findVisibleAgent(ctx, agent.id, { em, lock: true });
      await reconcile(ctx, em, agent.id, remote, false);
    });
    ctx.em.clear();
    return stored(ctx.em, agent.id);
  }

  /** Reconciles with the provider; one `created|updated|deleted:NAME:LANG` string per change. */
  async sync(ctx: RequestContext, agentId: number, deleteRemoved: boolean): Promise<string[]> {
    assertAiAdmin(ctx);
    const agent = await findVisibleAgent(ctx, agentId, { credentials: true });
    const remote = await this.pull(ctx, agent);
    return ctx.em.transactional(async (em) => {
      await findVisibleAgent(ctx, agent.id, { em, lock: true });
      return reconcile(ctx, em, agent.id, remote, deleteRemoved);
    });
  }

  async send(
    ctx: RequestContext,
    agentId: number,
    templateId: number,
    to: string,
    bodyParameters: string[] | null | undefined,
  ): Promise<TemplateSendResult> {
    assertAiAdmin(ctx);
    const params = bodyParameters ?? [];
    const problems: Problem[] = [];
    if (typeof to !== 'string' || !new RegExp(SEND_TO_PATTERN).test(to)) problems.push({ field: 'to', rule: 'phone' });
    else if (to.length < SEND_TO_MIN || to.length > SEND_TO_MAX)
      problems.push({ field: 'to', rule: 'length', params: { min: SEND_TO_MIN, max: SEND_TO_MAX } });
    if (!Array.isArray(params)) problems.push({ field: 'body_parameters', rule: 'array' });
    else if (params.some((p) => typeof p !== 'string' || p.trim() === ''))
      problems.push({ field: 'body_parameters', rule: 'items_not_blank' });
    if (problems.length) throw validationError(problems);

    const agent = await findVisibleAgent(ctx, agentId, { credentials: true });
    const template = Number.isSafeInteger(templateId) ? await ctx.em.findOne(AiTemplate, { id: templateId, agent_id: agent.id }) : null;
    if (!template) throw appError('ERROR_AI_TEMPLATE_NOT_FOUND');
    if (template.status !== 'APPROVED') throw appError('ERROR_AI_TEMPLATE_NOT_APPROVED');
    const expected = bodyPlaceholderCount(template.components);
    if (params.length !== expected) {
      throw validationError([{ field: 'body_parameters', key: 'body_parameters_count', params: { expected } }]);
    }

    const digits = to.replace(/^\+/, '');
    const { message_id } = await this.callProvider(ctx, agent, (provider, credentials) =>
      provider.sendTemplate(credentials, { to: digits, name: template.name, language: template.language, bodyParameters: params }),
    );
    // The send log (CONTRACT §9.3): recorded once the provider accepted it, with its template.sent event.
    // §10.6: and as a `template` message of the contact's conversation
    await writeWithEvents(ctx, async (tx) => {
      const row = await insertTemplateSend(tx, ctx.project.id, { agent_id: agent.id, template_id: template.id, message_id, to: digits });
      if (!row) return { value: undefined, events: [] };
      const stored = await storeTemplateMessage(tx, ctx, agent, template, { message_id, to: digits, body_parameters: params });
      return { value: undefined, events: [templateSendEvent('template.sent', row, agent), ...stored] };
    });
    return { message_id, to: digits, template: template.name, language: template.language, status: 'accepted' };
  }

  private pull(ctx: RequestContext, agent: AiAgent): Promise<ProviderTemplate[]> {
    return this.callProvider(ctx, agent, (provider, credentials) => provider.listTemplates(credentials));
  }

  /** Runs a provider call; its failures become the contract's errors, logged without secrets. */
  private async callProvider<T>(
    ctx: RequestContext,
    agent: AiAgent,
    call: (provider: MessagingProvider, credentials: Record<string, unknown>) => Promise<T>,
  ): Promise<T> {
    try {
      const provider = this.providers.get(agent.provider);
      if (!provider) throw new ProviderError('not_configured', `no provider "${agent.provider}"`);
      return await call(provider, agentCredentials(agent, this.cipher));
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      ctx.log.warn({ agent_id: agent.id, provider: agent.provider, kind: err.kind, reason: err.reason }, 'provider call failed');
      throw providerAppError(err);
    }
  }
}

function stored(em: EntityManager, agentId: number, status?: string): Promise<AiTemplate[]> {
  return em.find(
    AiTemplate,
    { agent_id: agentId, ...(status ? { status } : {}) },
    { orderBy: { name: 'asc', language: 'asc', id: 'asc' } },
  );
}

/**
 * Upserts the provider's templates by `external_id` (changing only what differs) and, with
 * `deleteRemoved`, deletes stored templates the provider no longer has. Changes are listed in the
 * provider's order, then the deletions by name and language.
 */
async function reconcile(
  ctx: RequestContext,
  em: EntityManager,
  agentId: number,
  remote: ProviderTemplate[],
  deleteRemoved: boolean,
): Promise<string[]> {
  const existing = await em.find(AiTemplate, { agent_id: agentId }, { orderBy: { name: 'asc', language: 'asc', id: 'asc' } });
  const byExternal = new Map(existing.map((t) => [t.external_id, t]));
  const latest = new Map<string, ProviderTemplate>();
  for (const t of remote) latest.set(t.external_id, t); // a repeated id: the last one wins
  const changes: string[] = [];
  for (const t of latest.values()) {
    const current = byExternal.get(t.external_id);
    if (!current) {
      em.create(AiTemplate, { project: ctx.project, agent_id: agentId, ...fieldsOf(t) });
      changes.push(`created:${t.name}:${t.language}`);
      continue;
    }
    const next = fieldsOf(t);
    const differs = COMPARED.filter((f) => !sameJson(current[f], next[f]));
    if (differs.length) {
      for (const f of differs) (current as unknown as Record<string, unknown>)[f] = next[f];
      current.updated_at = new Date();
      changes.push(`updated:${t.name}:${t.language}`);
    }
  }
  if (deleteRemoved) {
    for (const t of existing) {
      if (latest.has(t.external_id)) continue;
      em.remove(t);
      changes.push(`deleted:${t.name}:${t.language}`);
    }
  }
  await em.flush();
  return changes;
}

function fieldsOf(t: ProviderTemplate) {
  return {
    external_id: t.external_id,
    name: t.name,
    language: t.language,
    category: t.category,
    status: t.status,
    components: t.components,
  };
}

/** Structural JSON equality: object key order is ignored, array order is not. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a == null || b == null) return (a ?? null) === (b ?? null);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return (
      ka.length === kb.length &&
      ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return false;
}

/** The number of body parameters a template needs: its highest `{{n}}` in the BODY component. */
export function bodyPlaceholderCount(components: unknown): number {
  if (!Array.isArray(components)) return 0;
  let max = 0;
  for (const c of components) {
    if (!c || typeof c !== 'object') continue;
    const { type, text } = c as { type?: unknown; text?: unknown };
    if (typeof type !== 'string' || type.toUpperCase() !== 'BODY' || typeof text !== 'string') continue;
    for (const m of text.matchAll(/\{\{\s*(\d+)\s*\}\}/g)) max = Math.max(max, Number(m[1]));
  }
  return max;
}
