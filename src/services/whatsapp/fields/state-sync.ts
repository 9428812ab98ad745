import type { RequestContext } from '../../../context/index.js';
import { writeWithEvents } from '../../events/event-log.js';
import { NAME_LOCK_CLASS, nameLockKey } from '../stored-items.js';
import { clip, isObject, list, phoneOf, run, skip, unixSeconds, type WebhookAgent, type WebhookChange } from '../webhook-items.js';

const MAX_NAME = 256;

/**
 * Field `smb_app_state_sync` (CONTRACT §13.4): the business's address book. Each contact change in
 * one transaction: the (agent, number) name lock (shared with the history import, so a name and an
 * import's new conversation of that number, in either order and at any interleaving, end with the
 * name), then one statement: the name recorded for (agent, phone number) (`add`: `full_name`, else `first_name`;
 * `remove`: forgotten, kept as a null name so an older `add` cannot bring it back), and, when the
 * change is not older than the recorded one, `contact_name` of every conversation of the agent with
 * that number (the business's name, else the newest `profile.name`). Counts in neither `messages`
 * nor `statuses`.
 */
export async function receiveStateSync(ctx: RequestContext, change: WebhookChange): Promise<void> {
  const { agent, value, where, problems } = change;
  if (!agent) return;
  for (const [i, item] of list(value.state_sync, `${where}.value.state_sync`, problems).entries()) {
    await recordContact(ctx, agent, item, `${where}.value.state_sync[${i}]`, problems);
  }
}

async function recordContact(ctx: RequestContext, agent: WebhookAgent, item: unknown, where: string, problems: string[]) {
  if (!isObject(item) || item.type !== 'contact' || !isObject(item.contact)) return skip(problems, `${where}: not a contact change`);
  const phone = phoneOf(item.contact.phone_number);
  if (!phone) return skip(problems, `${where}: phone_number ${clip(item.contact.phone_number)} is not a phone number`);
  const at = unixSeconds(isObject(item.metadata) ? item.metadata.timestamp : undefined);
  if (!at) return skip(problems, `${where}: metadata.timestamp is not Unix seconds`);
  if (item.action !== 'add' && item.action !== 'remove') return skip(problems, `${where}: action ${clip(item.action)} unknown`);
  const name = item.action === 'add' ? (nameOf(item.contact.full_name) ?? nameOf(item.contact.first_name)) : null;
  if (item.action === 'add' && !name) return skip(problems, `${where}: no full_name or first_name`);
  await writeWithEvents(
    ctx,
    async (tx) => {
      await run(tx, `select pg_advisory_xact_lock(?, hashtext(?))`, [NAME_LOCK_CLASS, nameLockKey(agent.id, phone)]);
      // a statement of its own after the lock: it sees every conversation committed before the lock was granted
      await run(
        tx,
        `with b as (
       insert into ai_contact_names as b (agent_id, phone, project_id, name, changed_at) values (?, ?, ?, ?, ?)
       on conflict (agent_id, phone) do update set name = excluded.name, changed_at = excluded.changed_at
        where b.changed_at <= excluded.changed_at
       returning name)
     update ai_conversations c set contact_name = coalesce(b.name, c.profile_name)
       from b
      where c.project_id = ? and c.agent_id = ? and c.contact = ? and c.contact_name is distinct from coalesce(b.name, c.profile_name)`,
        [agent.id, phone, ctx.project.id, name, at, ctx.project.id, agent.id, phone],
      );
      return { value: null, events: [] };
    },
    { statementsOnly: true },
  );
  return 1;
}

function nameOf(v: unknown): string | null {
  return typeof v === 'string' && v.trim() ? v.replaceAll('\u0000', '').slice(0, MAX_NAME) : null;
}
