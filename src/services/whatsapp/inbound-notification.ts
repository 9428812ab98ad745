import { appError, validationError } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { assertAiModule } from '../identity/access.js';
import { FIELDS } from './fields/index.js';
import { accountWabaId, clip, isObject, list, type WebhookAgent, type WhatsAppDeliveryResult } from './webhook-items.js';

export { isObject, type WhatsAppDeliveryResult } from './webhook-items.js';

/**
 * A WhatsApp notification whose signature the gateway verified (CONTRACT §9.3, §13), read change by
 * change: each change goes to the receiver of its `field` (fields/index.ts); a field without one is
 * logged and ignored.
 */

/** What the log line about an unusable part keeps of it. */
const MAX_LOGGED_PROBLEMS = 20;

/**
 * The notification itself (the operation the gateway runs once WhatsAppInboundService.authenticate
 * passed). Every receiver writes each item in its own transaction. Unusable parts are skipped and logged once.
 */
export async function receiveNotification(ctx: RequestContext, payload: unknown): Promise<WhatsAppDeliveryResult> {
  const webhook = ctx.webhook;
  if (!webhook) throw appError('ERROR_WEBHOOK_SIGNATURE');
  assertAiModule(ctx);
  const problems: string[] = [];
  const result: WhatsAppDeliveryResult = { messages: 0, statuses: 0 };
  if (!isObject(payload)) throw validationError([{ field: 'body', rule: 'object' }]);
  if (payload.object !== undefined && payload.object !== 'whatsapp_business_account')
    problems.push('object is not whatsapp_business_account');

  for (const [e, entry] of list(payload.entry, 'entry', problems).entries()) {
    for (const [c, change] of list(isObject(entry) ? entry.changes : undefined, `entry[${e}].changes`, problems).entries()) {
      const where = `entry[${e}].changes[${c}]`;
      if (!isObject(change) || !isObject(change.value)) {
        problems.push(`${where}: not a change`);
        continue;
      }
      const receiver = typeof change.field === 'string' && Object.hasOwn(FIELDS, change.field) ? FIELDS[change.field] : undefined;
      if (!receiver) {
        problems.push(`${where}: field ${clip(change.field)} ignored`);
        continue;
      }
      const phone = isObject(change.value.metadata) ? change.value.metadata.phone_number_id : undefined;
      const agent = typeof phone === 'string' ? webhook.agents.find((a) => a.phone_number_id === phone) : undefined;
      const agents = agentsNamed(webhook.agents, agent, accountWabaId(entry, change.value));
      await receiver(ctx, { agent, agents, value: change.value, entry: entry as Record<string, any>, where, problems, result });
    }
  }
  if (problems.length) {
    ctx.log.warn(
      { unusable: problems.slice(0, MAX_LOGGED_PROBLEMS), count: problems.length, stored: result },
      'whatsapp notification partly unusable',
    );
  }
  return result;
}

/**
 * The agent the change names by phone number id, else every agent of the WABA it names
 * (`value.waba_info.waba_id`, else `entry[].id`: CONTRACT §13.5).
 */
function agentsNamed(all: readonly WebhookAgent[], agent: WebhookAgent | undefined, wabaId: string | null): readonly WebhookAgent[] {
  if (agent) return [agent];
  return wabaId ? all.filter((a) => a.waba_id === wabaId) : [];
}
