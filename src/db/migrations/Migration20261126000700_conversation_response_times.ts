import { Migration } from '@mikro-orm/migrations';

/**
 * A conversation's mean response time kept from a count and a sum on its own row (issue 45).
 *
 * `usage.response_time_ms` is the mean, half up, over the conversation's messages that carry a
 * `response_time_ms`. A write used to take it from a scan of those messages in the statement that
 * updates the conversation; a message write that is one autocommit statement (lock, checks, message,
 * change, event) cannot: the statement's snapshot is taken before it waits on the conversation's row
 * lock, so the scan would miss a message the writer it waited for just committed. The row it locks is
 * read at its newest version, so the count and sum live there: `response_time_count` (messages with a
 * response time) and `response_time_sum` (their total), which every message write moves with the mean.
 * The fixtures loader sets them from the messages it loads (fixtures/load.ts).
 *
 * `ai_messages_last_message_at` (Migration20261126000200) updated the conversation a second time after
 * every message statement: an update that is not HOT (`last_message_at` is indexed: every index of the
 * table, two of them trigram GIN, gets an entry) and a second run of the conversation's metrics trigger,
 * about half of PostgreSQL's time in a message write. The message writes now move `last_message_at`
 * in their own update of the conversation, and the trigger updates only when some conversation is
 * behind (other writers: the WhatsApp webhook, fixtures), so it updates nothing after theirs.
 *
 * `metrics_conversations_trg` (Migration20261121000400) applied every update of conversations to the
 * metrics deltas, also one that changes nothing they count (a current-conversation message moves only
 * `updated_at` and `last_message_at`): it now returns at once for those.
 */
export class Migration20261126000700_conversation_response_times extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_conversations add column response_time_count bigint not null default 0,
                             add column response_time_sum numeric not null default 0;
update ai_conversations c set response_time_count = x.n, response_time_sum = x.total
  from (select conversation_id, count(usage->>'response_time_ms') n, coalesce(sum((usage->>'response_time_ms')::numeric), 0) total
          from ai_messages where usage->>'response_time_ms' is not null group by conversation_id) x
 where c.id = x.conversation_id;

create or replace function ai_messages_last_message_at() returns trigger language plpgsql as $$
begin
  if exists (select 1 from ai_messages_new n join ai_conversations c on c.id = n.conversation_id where c.last_message_at < n.created_at) then
    update ai_conversations c set last_message_at = n.at
      from (select conversation_id, max(created_at) at from ai_messages_new group by conversation_id) n
     where c.id = n.conversation_id and c.last_message_at < n.at;
  end if;
  return null;
end $$;

create or replace function metrics_conversations_trg() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform metrics_apply_conversations('{}'::ai_conversations[], array(select row(n.*)::ai_conversations from metrics_new n));
  elsif tg_op = 'UPDATE' then
    -- An update that moves nothing the rollups count (what metrics_apply_conversations reads, and the agent
    -- for the orders) would apply nothing: skipped (a current message's updated_at and last_message_at, tokens).
    if exists (select 1 from metrics_new n left join metrics_old o on o.id = n.id
                where o.id is null
                   or (o.project_id, o.business_id, o.agent_id, o.created_at, o.status, o.status_reason, o.usage -> 'cost',
                       o.usage -> 'response_time_ms')
                      is distinct from (n.project_id, n.business_id, n.agent_id, n.created_at, n.status, n.status_reason,
                                        n.usage -> 'cost', n.usage -> 'response_time_ms')) then
      perform metrics_apply_conversations(array(select row(o.*)::ai_conversations from metrics_old o), array(select row(n.*)::ai_conversations from metrics_new n));
      -- A conversation that changed agent moves its orders to the new agent.
      perform metrics_refresh_orders(array(
        select o.id from orders o
        where o.conversation_id in (select n.id from metrics_new n join metrics_old d on d.id = n.id where d.agent_id <> n.agent_id)));
    end if;
  else
    perform metrics_apply_conversations(array(select row(o.*)::ai_conversations from metrics_old o), '{}'::ai_conversations[]);
  end if;
  return null;
end $$;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
create or replace function ai_messages_last_message_at() returns trigger language plpgsql as $$
begin
  update ai_conversations c set last_message_at = n.at
    from (select conversation_id, max(created_at) at from ai_messages_new group by conversation_id) n
   where c.id = n.conversation_id and c.last_message_at < n.at;
  return null;
end $$;
create or replace function metrics_conversations_trg() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform metrics_apply_conversations('{}'::ai_conversations[], array(select row(n.*)::ai_conversations from metrics_new n));
  elsif tg_op = 'UPDATE' then
    perform metrics_apply_conversations(array(select row(o.*)::ai_conversations from metrics_old o), array(select row(n.*)::ai_conversations from metrics_new n));
    -- A conversation that changed agent moves its orders to the new agent.
    perform metrics_refresh_orders(array(
      select o.id from orders o
      where o.conversation_id in (select n.id from metrics_new n join metrics_old d on d.id = n.id where d.agent_id <> n.agent_id)));
  else
    perform metrics_apply_conversations(array(select row(o.*)::ai_conversations from metrics_old o), '{}'::ai_conversations[]);
  end if;
  return null;
end $$;
alter table ai_conversations drop column if exists response_time_count, drop column if exists response_time_sum;
`);
  }
}
