import { Migration } from '@mikro-orm/migrations';
import { COMPACT_LOCK_CLASS } from './Migration20261125000400_metrics_deltas.js';

const DELTA_STORAGE = `(autovacuum_vacuum_threshold = 500, autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_insert_threshold = 500, autovacuum_vacuum_insert_scale_factor = 0, autovacuum_analyze_threshold = 500,
  autovacuum_analyze_scale_factor = 0)`;

/**
 * Order metrics without a row shared by writers (issue 65), as the conversations' since issue 34. Orders were written
 * by fixture loads only; now agents place them concurrently, and the order triggers upserted every placement into the
 * same rollup rows (the business's day, month, hour… at five grains, then the series rollups and the products'), so
 * placings queued on each other's row locks until commit: 83 ms of metrics_refresh_orders per order at 10 connections
 * (pg_stat_user_functions, npm run bench:orders).
 *
 * Now the triggers append signed changes to `metrics_order_delta` and `metrics_product_delta` (plain inserts at the
 * 15-minute grain: nobody waits); reads add the deltas to the rollups in the same statement (services/metrics), and
 * `metrics_compact_conversations` (the one compactor: its name is older than this) folds all three kinds of delta
 * into the rollups at every grain under its advisory lock. Pending order rows are folded first.
 */
export class Migration20261202000150_order_metric_deltas extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table metrics_order_delta (
  project_id int not null,
  bucket timestamptz not null,
  business_id int not null,
  agent_id int not null,
  status_group smallint not null,
  orders bigint not null,
  revenue numeric not null
) with ${DELTA_STORAGE};
create index metrics_order_delta_idx on metrics_order_delta (project_id, bucket);

create table metrics_product_delta (
  project_id int not null,
  bucket timestamptz not null,
  business_id int not null,
  product_id int not null,
  name varchar(255) not null,
  times_sold bigint not null,
  orders bigint not null,
  revenue numeric not null
) with ${DELTA_STORAGE};
create index metrics_product_delta_idx on metrics_product_delta (project_id, bucket);

create or replace function metrics_refresh_orders(ids int[], gone boolean default false) returns void language plpgsql as $$
declare
  olds metrics_order_state[];
  news metrics_order_state[];
  moved int[];
begin
  if ids is null or cardinality(ids) = 0 then return; end if;
  select array_agg(s) into olds from metrics_order_state s where s.order_id = any(ids);
  if not gone then
    select array_agg(row(n.*)::metrics_order_state) into news from metrics_order_current(ids) n;
  end if;
  if olds is null and news is null then return; end if;
  olds := coalesce(olds, '{}');
  news := coalesce(news, '{}');

  select array_agg(coalesce(s.order_id, n.order_id)) into moved
  from unnest(olds) s full join unnest(news) n on n.order_id = s.order_id
  where s.order_id is null or n.order_id is null or s.project_id <> n.project_id
     or s.business_id <> n.business_id or s.created_at <> n.created_at;

  if moved is not null then
    insert into metrics_product_delta (project_id, bucket, business_id, product_id, name, times_sold, orders, revenue)
    select project_id, metrics_b15(created_at), business_id, pid, name, sum(q), sum(sign), sum(rev)
    from (
      select k.project_id, k.business_id, k.created_at, k.order_id, coalesce(op.product_id, 0) pid, op.name, k.sign,
             k.sign * sum(op.quantity) q, k.sign * sum(op.quantity * op.price) rev
      from (
        select s.project_id, s.business_id, s.created_at, s.order_id, -1 sign from unnest(olds) s where s.order_id = any(moved)
        union all
        select n.project_id, n.business_id, n.created_at, n.order_id, 1 from unnest(news) n where n.order_id = any(moved)
      ) k join order_products op on op.order_id = k.order_id
      group by 1, 2, 3, 4, 5, 6, 7
    ) x
    group by project_id, metrics_b15(created_at), business_id, pid, name
    having sum(q) <> 0 or sum(sign) <> 0 or sum(rev) <> 0;
  end if;

  insert into metrics_order_delta (project_id, bucket, business_id, agent_id, status_group, orders, revenue)
  select project_id, metrics_b15(created_at), business_id, agent_id, status_group, sum(sign), sum(sign * total)
  from (
    select s.project_id, s.business_id, s.created_at, s.agent_id, s.status_group, s.total, -1 sign from unnest(olds) s
    union all
    select n.project_id, n.business_id, n.created_at, n.agent_id, n.status_group, n.total, 1 from unnest(news) n
  ) x
  group by project_id, metrics_b15(created_at), business_id, agent_id, status_group
  having sum(sign) <> 0 or sum(sign * total) <> 0;

  if cardinality(olds) > 0 then
    delete from metrics_order_state where order_id = any(ids);
  end if;
  if cardinality(news) > 0 then
    insert into metrics_order_state select * from unnest(news);
  end if;
end $$;

create or replace function metrics_apply_lines(olds order_products[], news order_products[]) returns void language sql as $$
  insert into metrics_product_delta (project_id, bucket, business_id, product_id, name, times_sold, orders, revenue)
  select project_id, metrics_b15(created_at), business_id, pid, name, sum(q), sum(dorders), sum(rev)
  from (
    select s.project_id, s.business_id, s.created_at, c.pid, c.name, c.q, c.rev,
      (case when after_c > 0 then 1 else 0 end) - (case when after_c - c.new_c + c.old_c > 0 then 1 else 0 end) dorders
    from (
      select order_id, coalesce(product_id, 0) pid, name, sum(sign * quantity) q, sum(sign * quantity * price) rev,
             count(*) filter (where sign = 1) new_c, count(*) filter (where sign = -1) old_c
      from (select l.*, -1 sign from unnest(olds) l union all select l.*, 1 from unnest(news) l) u
      group by 1, 2, 3
    ) c
    join metrics_order_state s on s.order_id = c.order_id
    cross join lateral (
      select count(*) after_c from order_products op
      where op.order_id = c.order_id and coalesce(op.product_id, 0) = c.pid and op.name = c.name
    ) a
  ) x
  group by project_id, metrics_b15(created_at), business_id, pid, name
  having sum(q) <> 0 or sum(dorders) <> 0 or sum(rev) <> 0
$$;

-- Folds up to batch deltas of each kind into the rollups at every grain; -1 when another compactor holds the lock;
-- else the most rows one kind moved (batch: call again).
create or replace function metrics_compact_conversations(batch int) returns int language plpgsql as $$
declare
  moved_c int;
  moved_o int;
  moved_p int;
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
  select count(*) into moved_c from d;
  with d as (
    delete from metrics_order_delta
    where ctid = any(array(select ctid from metrics_order_delta limit batch))
    returning *
  ), folded as (
    insert into metrics_order_rollup as r (project_id, grain, bucket, business_id, agent_id, status_group, orders, revenue)
    select d.project_id, g.grain, g.bucket, d.business_id, d.agent_id, d.status_group, sum(d.orders), sum(d.revenue)
    from d cross join lateral metrics_buckets(d.bucket) g
    group by 1, 2, 3, 4, 5, 6
    having sum(d.orders) <> 0 or sum(d.revenue) <> 0
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, grain, bucket, business_id, agent_id, status_group) do update
      set orders = r.orders + excluded.orders, revenue = r.revenue + excluded.revenue
  )
  select count(*) into moved_o from d;
  with d as (
    delete from metrics_product_delta
    where ctid = any(array(select ctid from metrics_product_delta limit batch))
    returning *
  ), folded as (
    insert into metrics_product_rollup as r (project_id, grain, bucket, business_id, product_id, name, times_sold, orders, revenue)
    select d.project_id, g.grain, g.bucket, d.business_id, d.product_id, d.name, sum(d.times_sold), sum(d.orders), sum(d.revenue)
    from d cross join lateral metrics_buckets(d.bucket) g
    group by 1, 2, 3, 4, 5, 6
    having sum(d.times_sold) <> 0 or sum(d.orders) <> 0 or sum(d.revenue) <> 0
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, grain, bucket, business_id, product_id, name) do update
      set times_sold = r.times_sold + excluded.times_sold, orders = r.orders + excluded.orders, revenue = r.revenue + excluded.revenue
  )
  select count(*) into moved_p from d;
  return greatest(moved_c, moved_o, moved_p);
end $$;

create or replace function metrics_truncate_trg() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'orders' then
    truncate metrics_order_state, metrics_order_rollup, metrics_product_rollup, metrics_order_delta, metrics_product_delta;
  elsif tg_table_name = 'order_products' then
    truncate metrics_product_rollup, metrics_product_delta;
  elsif tg_table_name = 'ai_conversations' then
    truncate metrics_conversation_rollup, metrics_conversation_delta;
  end if;
  return null;
end $$;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`select metrics_compact_conversations(2147483647);`);
    this.addSql(`drop table metrics_order_delta; drop table metrics_product_delta;`);
  }
}
