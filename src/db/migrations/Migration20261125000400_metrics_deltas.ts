import { Migration } from '@mikro-orm/migrations';

/** Class of the advisory lock that lets one compactor at a time fold deltas (pg_try_advisory_xact_lock(int, int), "OGMc"). */
export const COMPACT_LOCK_CLASS = 1330072931;

/**
 * Conversation metrics without a row shared by writers (issue 34). The conversation trigger
 * used to upsert every write into the rollup rows of its (project, bucket, business, agent,
 * state) at five grains, so writers of different conversations of one agent queued on the same
 * day, month and 6-hour rows (`Lock:transactionid`).
 *
 * Now the trigger appends its signed change to `metrics_conversation_delta` (plain inserts, no
 * unique key: nobody waits), at the 15-minute grain only: a delta of bucket b belongs to the
 * bucket of b at every coarser grain. Reads run on the rollups only when every boundary is on the
 * 15-minute grid, so they place each delta exactly and add it to the rollup sums in the same
 * statement (one snapshot; services/metrics/shared.ts conversationDeltas), which keeps every
 * answer exact at once. `metrics_compact_conversations` (workers/metrics-compactor.ts,
 * about every second) moves a batch of deltas into the rollups at every grain in one
 * statement, under a transaction-scoped advisory lock so one compactor runs at a time across
 * processes: a reader sees the deltas before that commit, or the rollups after it, never both.
 */
export class Migration20261125000400_metrics_deltas extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table metrics_conversation_delta (
  project_id int not null,
  bucket timestamptz not null,
  business_id int not null,
  agent_id int not null,
  state smallint not null,
  conversations bigint not null,
  cost numeric not null,
  rt_sum numeric not null,
  rt_count bigint not null
);
create index metrics_conversation_delta_idx on metrics_conversation_delta (project_id, bucket);
-- Rows live about a second: vacuum often, so reads and the compactor do not walk dead rows for a minute.
alter table metrics_conversation_delta set (autovacuum_vacuum_threshold = 500, autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_insert_threshold = 500, autovacuum_vacuum_insert_scale_factor = 0, autovacuum_analyze_threshold = 500,
  autovacuum_analyze_scale_factor = 0);

create or replace function metrics_apply_conversations(olds ai_conversations[], news ai_conversations[]) returns void language sql as $$
  insert into metrics_conversation_delta (project_id, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
  select project_id, metrics_b15(created_at), business_id, agent_id, state, sum(sign), sum(sign * cost), sum(sign * coalesce(rt, 0)),
         sum(case when rt is null then 0 else sign end)
  from (
    select u.project_id, coalesce(u.business_id, 0) business_id, u.created_at, u.agent_id, metrics_conv_state(u.status, u.status_reason) state,
           coalesce(metrics_num(u.usage -> 'cost'), 0) cost, metrics_num(u.usage -> 'response_time_ms') rt, u.sign
    from (select l.*, -1 sign from unnest(olds) l union all select l.*, 1 from unnest(news) l) u
  ) x
  group by project_id, metrics_b15(created_at), business_id, agent_id, state
  having sum(sign) <> 0 or sum(sign * cost) <> 0 or sum(sign * coalesce(rt, 0)) <> 0 or sum(case when rt is null then 0 else sign end) <> 0
$$;

-- Folds up to batch deltas into the rollups at every grain; -1 when another compactor holds the lock.
create function metrics_compact_conversations(batch int) returns int language plpgsql as $$
declare
  moved int;
begin
  if not pg_try_advisory_xact_lock(${COMPACT_LOCK_CLASS}, 0) then return -1; end if;
  with d as (
    delete from metrics_conversation_delta
    where ctid = any(array(select ctid from metrics_conversation_delta limit batch))
    returning *
  ), folded as (
    insert into metrics_conversation_rollup as r (project_id, grain, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
    select d.project_id, g.grain, g.bucket, d.business_id, d.agent_id, d.state, sum(d.conversations), sum(d.cost), sum(d.rt_sum), sum(d.rt_count)
    from d cross join lateral metrics_buckets(d.bucket) g
    group by 1, 2, 3, 4, 5, 6
    having sum(d.conversations) <> 0 or sum(d.cost) <> 0 or sum(d.rt_sum) <> 0 or sum(d.rt_count) <> 0
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, grain, bucket, business_id, agent_id, state) do update
      set conversations = r.conversations + excluded.conversations, cost = r.cost + excluded.cost,
          rt_sum = r.rt_sum + excluded.rt_sum, rt_count = r.rt_count + excluded.rt_count
  )
  select count(*) into moved from d;
  return moved;
end $$;

create or replace function metrics_truncate_trg() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'orders' then
    truncate metrics_order_state, metrics_order_rollup, metrics_product_rollup;
  elsif tg_table_name = 'order_products' then
    truncate metrics_product_rollup;
  elsif tg_table_name = 'ai_conversations' then
    truncate metrics_conversation_rollup, metrics_conversation_delta;
  end if;
  return null;
end $$;
`);
  }
}
