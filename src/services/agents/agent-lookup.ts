import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AiAgent } from '../../entities/ai-agent.js';
import { appError } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import type { CredentialCipher } from '../../platform/secrets.js';
import { ProviderError, type ProviderCredentials } from '../../providers/messaging.js';
import { visibleBusinessIds } from '../identity/access.js';

/**
 * The agent an AI operation names, as the caller may see it: missing, of another project (the
 * tenant filter) or, for a business owner, of a business they do not own → 400 ERROR_AI_AGENT_NOT_FOUND.
 * `em` lets a transaction lock the row (`lock: true`, FOR UPDATE) to serialise writers per agent.
 */
export async function findVisibleAgent(
  ctx: RequestContext,
  agentId: number,
  opts: { em?: EntityManager; lock?: boolean; credentials?: boolean } = {},
): Promise<AiAgent> {
  const em = opts.em ?? ctx.em;
  if (!Number.isSafeInteger(agentId) || agentId <= 0) throw appError('ERROR_AI_AGENT_NOT_FOUND');
  const agent = await em.findOne(
    AiAgent,
    { id: agentId },
    {
      ...(opts.credentials ? { populate: ['credentials'] as never } : {}),
      ...(opts.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}),
    },
  );
  if (!agent) throw appError('ERROR_AI_AGENT_NOT_FOUND');
  const visible = await visibleBusinessIds(ctx);
  if (visible && (agent.business_id == null || !visible.includes(agent.business_id))) throw appError('ERROR_AI_AGENT_NOT_FOUND');
  return agent;
}

/** The agent's decrypted provider credentials (loaded with `credentials: true`); never logged or returned. */
export function agentCredentials(agent: AiAgent, cipher: CredentialCipher): ProviderCredentials {
  if (!agent.credentials) throw new ProviderError('not_configured', 'agent without credentials');
  try {
    const value = cipher.decrypt<unknown>(agent.credentials);
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value as ProviderCredentials;
  } catch {
    throw new ProviderError('not_configured', 'credentials cannot be decrypted');
  }
}
