import { Migration } from '@mikro-orm/migrations';

const ROLLUPS = [
  { table: 'metrics_order_rollup', keys: 'business_id, agent_id, status_group', values: ['orders', 'revenue'] },
  { table: 'metrics_product_rollup', keys: 'business_id, product_id, name', values: ['times_sold', 'orders', 'revenue'] },
  { table: 'metrics_conversation_rollup', keys: 'business_id, agent_id, state', values: ['conversations', 'cost', 'rt_sum', 'rt_count'] },
];

/** The grains this migration adds, with the function that bins an instant into each. */
const ADDED = [
  { grain: 3, bin: 'metrics_bhour' },
  { grain: 4, bin: 'metrics_b6h' },
];

/** The hour and 6-hour rows of every rollup, summed from its 15-minute rows (exact: every value is a sum). */
export const BACKFILL_SQL = ADDED.flatMap(({ grain, bin }) =>
  ROLLUPS.map(
    ({ table, keys, values }) =>
      `insert into ${table} (project_id, grain, bucket, ${keys}, ${values.join(', ')})
       select project_id, ${grain}::smallint, ${bin}(bucket), ${keys}, ${values.map((v) => `sum(${v})`).join(', ')}
       from ${table} where grain = 0
       group by project_id, ${bin}(bucket), ${keys}
       having ${values.map((v) => `sum(${v}) <> 0`).join(' or ')}`,
  ),
);

/**
 * Two more rollup grains, 3 = UTC hours and 4 = UTC 6-hour blocks (issue 9, volume
 * independence). A month in a half-hour zone such as Asia/Kolkata starts and ends 5.5 hours off
 * a UTC day; its edges were read as 44 quarter-hour buckets, and at 10M orders each quarter-hour
 * holds most of the key space, so the rows a month reads grew with volume. Now an edge is at
 * most one 6-hour block, a few hours and the quarter-hours of a half hour (services/metrics/cover.ts),
 * which the key space bounds whatever the volume.
 *
 * `metrics_buckets(t)` names every grain once, for the triggers and the bench seeder's rebuild;
 * the three trigger functions are redefined to use it (their logic is that of
 * Migration20261121000400_metrics, unchanged) and the new rows are backfilled from the
 * 15-minute rows. The rollups are locked first, so no write committed during the migration can
 * miss its new rows.
 */
export class Migration20261122000000_metrics_hour_grains extends Migration {
  override async up(): Promise<void> {
    this.addSql(`lock table ${ROLLUPS.map((r) => r.table).join(', ')} in share row exclusive mode;`);
    this.addSql(`
create function metrics_bhour(t timestamptz) returns timestamptz language sql immutable parallel safe as
$$ select date_bin('1 hour', t, timestamptz '1970-01-01 00:00:00+00') $$;

create function metrics_b6h(t timestamptz) returns timestamptz language sql immutable parallel safe as
$$ select date_bin('6 hours', t, timestamptz '1970-01-01 00:00:00+00') $$;

-- Every grain's bucket of an instant. A single-statement SQL function: PostgreSQL inlines it.
create function metrics_buckets(t timestamptz) returns table (grain smallint, bucket timestamptz)
language sql immutable parallel safe as
$$ values (0::smallint, metrics_b15(t)), (3::smallint, metrics_bhour(t)), (4::smallint, metrics_b6h(t)),
          (1::smallint, metrics_bday(t)), (2::smallint, metrics_bmonth(t)) $$;

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
    insert into metrics_product_rollup as r (project_id, grain, bucket, business_id, product_id, name, times_sold, orders, revenue)
    select project_id, g.grain, g.bucket, business_id, pid, name, sum(q), sum(sign), sum(rev)
    from (
      select k.project_id, k.business_id, k.created_at, k.order_id, coalesce(op.product_id, 0) pid, op.name, k.sign,
             k.sign * sum(op.quantity) q, k.sign * sum(op.quantity * op.price) rev
      from (
        select s.project_id, s.business_id, s.created_at, s.order_id, -1 sign from unnest(olds) s where s.order_id = any(moved)
        union all
        select n.project_id, n.business_id, n.created_at, n.order_id, 1 from unnest(news) n where n.order_id = any(moved)
      ) k join order_products op on op.order_id = k.order_id
      group by 1, 2, 3, 4, 5, 6, 7
    ) x cross join lateral metrics_buckets(x.created_at) g
    group by project_id, g.grain, g.bucket, business_id, pid, name
    having sum(q) <> 0 or sum(sign) <> 0 or sum(rev) <> 0
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, grain, bucket, business_id, product_id, name) do update
      set times_sold = r.times_sold + excluded.times_sold, orders = r.orders + excluded.orders, revenue = r.revenue + excluded.revenue;
  end if;

  insert into metrics_order_rollup as r (project_id, grain, bucket, business_id, agent_id, status_group, orders, revenue)
  select project_id, g.grain, g.bucket, business_id, agent_id, status_group, sum(sign), sum(sign * total)
  from (
    select s.project_id, s.business_id, s.created_at, s.agent_id, s.status_group, s.total, -1 sign from unnest(olds) s
    union all
    select n.project_id, n.business_id, n.created_at, n.agent_id, n.status_group, n.total, 1 from unnest(news) n
  ) x cross join lateral metrics_buckets(x.created_at) g
  group by project_id, g.grain, g.bucket, business_id, agent_id, status_group
  having sum(sign) <> 0 or sum(sign * total) <> 0
  order by 1, 2, 3, 4, 5, 6
  on conflict (project_id, grain, bucket, business_id, agent_id, status_group) do update
    set orders = r.orders + excluded.orders, revenue = r.revenue + excluded.revenue;

  if cardinality(olds) > 0 then
    delete from metrics_order_state where order_id = any(ids);
  end if;
  if cardinality(news) > 0 then
    insert into metrics_order_state select * from unnest(news);
  end if;
end $$;

create or replace function metrics_apply_lines(olds order_products[], news order_products[]) returns void language sql as $$
  insert into metrics_product_rollup as r (project_id, grain, bucket, business_id, product_id, name, times_sold, orders, revenue)
  select project_id, g.grain, g.bucket, business_id, pid, name, sum(q), sum(dorders), sum(rev)
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
  ) x cross join lateral metrics_buckets(x.created_at) g
  group by project_id, g.grain, g.bucket, business_id, pid, name
  having sum(q) <> 0 or sum(dorders) <> 0 or sum(rev) <> 0
  order by 1, 2, 3, 4, 5, 6
  on conflict (project_id, grain, bucket, business_id, product_id, name) do update
    set times_sold = r.times_sold + excluded.times_sold, orders = r.orders + excluded.orders, revenue = r.revenue + excluded.revenue
$$;

create or replace function metrics_apply_conversations(olds ai_conversations[], news ai_conversations[]) returns void language sql as $$
  insert into metrics_conversation_rollup as r (project_id, grain, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
  select project_id, g.grain, g.bucket, business_id, agent_id, state, sum(sign), sum(sign * cost), sum(sign * coalesce(rt, 0)),
         sum(case when rt is null then 0 else sign end)
  from (
    select u.project_id, coalesce(u.business_id, 0) business_id, u.created_at, u.agent_id, metrics_conv_state(u.status, u.status_reason) state,
           coalesce(metrics_num(u.usage -> 'cost'), 0) cost, metrics_num(u.usage -> 'response_time_ms') rt, u.sign
    from (select l.*, -1 sign from unnest(olds) l union all select l.*, 1 from unnest(news) l) u
  ) x cross join lateral metrics_buckets(x.created_at) g
  group by project_id, g.grain, g.bucket, business_id, agent_id, state
  having sum(sign) <> 0 or sum(sign * cost) <> 0 or sum(sign * coalesce(rt, 0)) <> 0 or sum(case when rt is null then 0 else sign end) <> 0
  order by 1, 2, 3, 4, 5, 6
  on conflict (project_id, grain, bucket, business_id, agent_id, state) do update
    set conversations = r.conversations + excluded.conversations, cost = r.cost + excluded.cost,
        rt_sum = r.rt_sum + excluded.rt_sum, rt_count = r.rt_count + excluded.rt_count
$$;
`);
    this.addSql(`set local work_mem = '256MB';`); // the backfill's aggregates, without spilling to disk
    for (const sql of BACKFILL_SQL) this.addSql(`${sql};`);
  }
}
