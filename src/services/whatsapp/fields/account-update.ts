import type { RequestContext } from '../../../context/index.js';
import { credentialFlags } from '../../agents/agent-credentials.js';
import { iso } from '../../conversations/records.js';
import { writeWithEvents, type NewAiEvent } from '../../events/event-log.js';
import { run, type WebhookChange } from '../webhook-items.js';

/** Meta's account updates that mean the number left the Cloud API (CONTRACT §13.5). */
const OFFBOARDING: ReadonlySet<string> = new Set(['ACCOUNT_OFFBOARDED', 'ACCOUNT_DELETED', 'PARTNER_REMOVED']);

/**
 * Field `account_update` (CONTRACT §13.5): an offboarded number disables its agent (the one its
 * phone number id names, else every agent of the WABA the change names: `value.waba_info.waba_id`,
 * else `entry[].id`) with `disabled_reason` `offboarded`,
 * and emits `agent.updated`; its pending replies then fail as a disabled agent's do (§10.1). Other
 * events are ignored. Counts in neither `messages` nor `statuses`.
 */
export async function receiveAccountUpdate(ctx: RequestContext, change: WebhookChange): Promise<void> {
  const { agents, value } = change;
  if (typeof value.event !== 'string' || !OFFBOARDING.has(value.event) || !agents.length) return;
  await writeWithEvents(ctx, async (tx) => {
    const rows = await run(
      tx,
      `update ai_agents set enabled = false, disabled_reason = 'offboarded', updated_at = now()
        where project_id = ? and id = any(?::bigint[]) and enabled
        returning id, business_id, name, provider, provider_type, provider_external_id, enabled, disabled_reason, credential_keys,
                  created_at, updated_at`,
      [ctx.project.id, `{${agents.map((a) => a.id).join(',')}}`],
    );
    const events: NewAiEvent[] = rows.map((a) => ({
      type: 'agent.updated',
      data: agentRecord(a),
      agent_id: a.id,
      business_id: a.business_id ?? null,
      conversation_id: null,
    }));
    return { value: rows.length, events };
  });
  ctx.services.whatsappInbound.forget(ctx.project.id);
}

/** The agent record as the REST API shows it (CONTRACT §10.3), from a raw row. */
function agentRecord(a: Record<string, any>): Record<string, unknown> {
  return {
    id: a.id,
    business_id: a.business_id ?? null,
    name: a.name,
    provider: a.provider,
    provider_type: a.provider_type,
    provider_external_id: a.provider_external_id,
    enabled: a.enabled,
    disabled_reason: a.disabled_reason ?? null,
    credentials: credentialFlags(a.provider, a.credential_keys),
    created_at: iso(a.created_at),
    updated_at: iso(a.updated_at),
  };
}
