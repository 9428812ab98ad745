import { Migration } from '@mikro-orm/migrations';

/**
 * The metrics trigger of ai_conversations (as Migration20261127000300_metrics_trigger_plans wrote it),
 * counting only the rows `counted` admits: with `source = 'live'`, imported history (CONTRACT §13.3) is
 * in no AI metric. A conversation's `source` never changes, so an update's old and new rows agree.
 */
function metricsTrigger(counted: (alias: string) => string): string {
  return `
create or replace function metrics_conversations_trg() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into metrics_conversation_delta (project_id, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
    select project_id, metrics_b15(created_at), coalesce(business_id, 0), agent_id, metrics_conv_state(status, status_reason), count(*),
           sum(coalesce(metrics_num(usage -> 'cost'), 0)), sum(coalesce(metrics_num(usage -> 'response_time_ms'), 0)),
           count(metrics_num(usage -> 'response_time_ms'))
      from metrics_new n where ${counted('n')}
     group by project_id, metrics_b15(created_at), coalesce(business_id, 0), agent_id, metrics_conv_state(status, status_reason);
  elsif tg_op = 'UPDATE' then
    insert into metrics_conversation_delta (project_id, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
    select project_id, metrics_b15(created_at), business_id, agent_id, state, sum(sign), sum(sign * cost), sum(sign * coalesce(rt, 0)),
           sum(case when rt is null then 0 else sign end)
      from (select o.project_id, coalesce(o.business_id, 0) business_id, o.created_at, o.agent_id,
                   metrics_conv_state(o.status, o.status_reason) state, coalesce(metrics_num(o.usage -> 'cost'), 0) cost,
                   metrics_num(o.usage -> 'response_time_ms') rt, -1 sign
              from metrics_old o where ${counted('o')}
            union all
            select n.project_id, coalesce(n.business_id, 0), n.created_at, n.agent_id, metrics_conv_state(n.status, n.status_reason),
                   coalesce(metrics_num(n.usage -> 'cost'), 0), metrics_num(n.usage -> 'response_time_ms'), 1
              from metrics_new n where ${counted('n')}) x
     group by project_id, metrics_b15(created_at), business_id, agent_id, state
    having sum(sign) <> 0 or sum(sign * cost) <> 0 or sum(sign * coalesce(rt, 0)) <> 0 or sum(case when rt is null then 0 else sign end) <> 0;
    -- A conversation that changed agent moves its orders to the new agent.
    if exists (select 1 from metrics_new n join metrics_old d on d.id = n.id where d.agent_id <> n.agent_id) then
      perform metrics_refresh_orders(array(
        select o.id from orders o
        where o.conversation_id in (select n.id from metrics_new n join metrics_old d on d.id = n.id where d.agent_id <> n.agent_id)));
    end if;
  else
    insert into metrics_conversation_delta (project_id, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
    select project_id, metrics_b15(created_at), coalesce(business_id, 0), agent_id, metrics_conv_state(status, status_reason), -count(*),
           -sum(coalesce(metrics_num(usage -> 'cost'), 0)), -sum(coalesce(metrics_num(usage -> 'response_time_ms'), 0)),
           -count(metrics_num(usage -> 'response_time_ms'))
      from metrics_old o where ${counted('o')}
     group by project_id, metrics_b15(created_at), coalesce(business_id, 0), agent_id, metrics_conv_state(status, status_reason);
  end if;
  return null;
end $$;
`;
}

/**
 * The phone's history and address book (CONTRACT §13.3, §13.4).
 *
 * - `ai_contact_names`: the name the business gave a phone number, per agent (`name` null: removed),
 *   with the `changed_at` of the change that set it (an older change changes nothing).
 * - `ai_conversations.profile_name`: the newest `profile.name` (§12.1), what `contact_name` falls back
 *   to when the business's name is removed (backfilled from `contact_name`, which held it until now).
 * - `ai_conversations.source`: `history` for imported threads (one per agent and contact: the unique
 *   index), `live` for the rest; the metrics trigger counts only `live` ones.
 * - `ai_history_chunks`: each `history` change as received, the import's outbox (claimed like
 *   `ai_media`'s downloads: lease, `claimed_by`, attempts); `ai_agents.history`: the import's progress.
 */
export class Migration20261128056000_phone_history extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table ai_contact_names (
  agent_id int not null references ai_agents (id) on delete cascade,
  phone text not null,
  project_id int not null,
  name text null,
  changed_at timestamptz not null,
  primary key (agent_id, phone)
);
alter table ai_conversations add column profile_name text null, add column source varchar(8) not null default 'live';
update ai_conversations set profile_name = contact_name where contact_name is not null;
create unique index ai_conversations_history_uq on ai_conversations (agent_id, contact) where source = 'history';
alter table ai_agents add column history jsonb null;
create table ai_history_chunks (
  id bigserial primary key,
  project_id int not null,
  agent_id int not null references ai_agents (id) on delete cascade,
  business_number text null,
  value jsonb not null,
  status varchar(8) not null default 'pending',
  attempts int not null default 0,
  next_attempt_at timestamptz null default now(),
  claimed_by uuid null,
  last_error text null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index ai_history_chunks_due_idx on ai_history_chunks (next_attempt_at, id) where status = 'pending';
create index ai_history_chunks_agent_idx on ai_history_chunks (agent_id);
create index ai_history_chunks_claimed_idx on ai_history_chunks (claimed_by) where claimed_by is not null;
${metricsTrigger((a) => `${a}.source = 'live'`)}`);
  }

  override async down(): Promise<void> {
    this.addSql(`
${metricsTrigger(() => 'true')}
drop table ai_history_chunks;
alter table ai_agents drop column history;
drop index ai_conversations_history_uq;
alter table ai_conversations drop column source, drop column profile_name;
drop table ai_contact_names;
`);
  }
}
