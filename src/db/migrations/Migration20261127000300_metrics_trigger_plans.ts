import { Migration } from '@mikro-orm/migrations';

/**
 * The conversations' metrics trigger writes its deltas in one PL/pgSQL statement per operation instead of calling
 * the SQL function `metrics_apply_conversations` with arrays of rows: PostgreSQL plans a SQL function's statement
 * again on every call, while PL/pgSQL keeps its plans for the session. A message write with usage updates its
 * conversation, so it paid that planning every time: 338 → 57 µs per conversation update (2,000 updates in one
 * transaction), and PostgreSQL's CPU per message write went about 1.55 → 0.8 ms with the trigger off entirely.
 * The deltas are the same sums (test/metrics/rollup-property.test.ts, concurrent-writers.test.ts); an update that
 * moves nothing they count inserts nothing (every sum of its group is 0, `having`).
 */
export class Migration20261127000300_metrics_trigger_plans extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function metrics_conversations_trg() returns trigger language plpgsql as $$
begin
  -- One statement per operation, in PL/pgSQL so its plan is kept per session: the SQL function
  -- metrics_apply_conversations is planned again on every call (about 300 µs of a message write).
  if tg_op = 'INSERT' then
    insert into metrics_conversation_delta (project_id, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
    select project_id, metrics_b15(created_at), coalesce(business_id, 0), agent_id, metrics_conv_state(status, status_reason), count(*),
           sum(coalesce(metrics_num(usage -> 'cost'), 0)), sum(coalesce(metrics_num(usage -> 'response_time_ms'), 0)),
           count(metrics_num(usage -> 'response_time_ms'))
      from metrics_new
     group by project_id, metrics_b15(created_at), coalesce(business_id, 0), agent_id, metrics_conv_state(status, status_reason);
  elsif tg_op = 'UPDATE' then
    insert into metrics_conversation_delta (project_id, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
    select project_id, metrics_b15(created_at), business_id, agent_id, state, sum(sign), sum(sign * cost), sum(sign * coalesce(rt, 0)),
           sum(case when rt is null then 0 else sign end)
      from (select o.project_id, coalesce(o.business_id, 0) business_id, o.created_at, o.agent_id,
                   metrics_conv_state(o.status, o.status_reason) state, coalesce(metrics_num(o.usage -> 'cost'), 0) cost,
                   metrics_num(o.usage -> 'response_time_ms') rt, -1 sign
              from metrics_old o
            union all
            select n.project_id, coalesce(n.business_id, 0), n.created_at, n.agent_id, metrics_conv_state(n.status, n.status_reason),
                   coalesce(metrics_num(n.usage -> 'cost'), 0), metrics_num(n.usage -> 'response_time_ms'), 1
              from metrics_new n) x
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
      from metrics_old
     group by project_id, metrics_b15(created_at), coalesce(business_id, 0), agent_id, metrics_conv_state(status, status_reason);
  end if;
  return null;
end $$;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
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
}
