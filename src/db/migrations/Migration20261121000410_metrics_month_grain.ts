import { Migration } from '@mikro-orm/migrations';

/**
 * A third rollup grain, 2 = UTC calendar months, so a month-long period reads one month row
 * per key plus a few signed 15-minute edge buckets (see coverSigned in metrics.service.ts)
 * instead of about 30 day rows. The trigger functions of Migration20261121000400_metrics are
 * replaced with versions that also maintain grain 2; existing rollups get their month rows
 * summed from the day rows.
 */
export class Migration20261121000410_metrics_month_grain extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function metrics_bmonth(t timestamptz) returns timestamptz language sql immutable parallel safe as
$$ select date_trunc('month', t at time zone 'UTC') at time zone 'UTC' $$;

create or replace function metrics_refresh_orders(ids int[], gone boolean default false) returns void language plpgsql as $$
declare
  moved int[];
begin
  if ids is null or cardinality(ids) = 0 then return; end if;

  -- Orders whose (project, business, time) changed, or that became / stopped being AI orders:
  -- their lines move in the product rollup.
  select array_agg(coalesce(s.order_id, n.order_id)) into moved
  from (select * from metrics_order_state where order_id = any(ids)) s
  full join (select * from metrics_order_current(ids) where not gone) n on n.order_id = s.order_id
  where s.order_id is null or n.order_id is null or s.project_id <> n.project_id
     or s.business_id <> n.business_id or s.created_at <> n.created_at;

  if moved is not null then
    insert into metrics_product_rollup as r (project_id, grain, bucket, business_id, product_id, name, times_sold, orders, revenue)
    select project_id, g.grain, g.bucket, business_id, pid, name, sum(q), sum(sign), sum(rev)
    from (
      select k.project_id, k.business_id, k.created_at, k.order_id, coalesce(op.product_id, 0) pid, op.name, k.sign,
             k.sign * sum(op.quantity) q, k.sign * sum(op.quantity * op.price) rev
      from (
        select s.project_id, s.business_id, s.created_at, s.order_id, -1 sign from metrics_order_state s where s.order_id = any(moved)
        union all
        select n.project_id, n.business_id, n.created_at, n.order_id, 1 from metrics_order_current(moved) n where not gone
      ) k join order_products op on op.order_id = k.order_id
      group by 1, 2, 3, 4, 5, 6, 7
    ) x cross join lateral (values (0::smallint, metrics_b15(x.created_at)), (1::smallint, metrics_bday(x.created_at)), (2::smallint, metrics_bmonth(x.created_at))) g(grain, bucket)
    group by project_id, g.grain, g.bucket, business_id, pid, name
    having sum(q) <> 0 or sum(sign) <> 0 or sum(rev) <> 0
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, grain, bucket, business_id, product_id, name) do update
      set times_sold = r.times_sold + excluded.times_sold, orders = r.orders + excluded.orders, revenue = r.revenue + excluded.revenue;
  end if;

  insert into metrics_order_rollup as r (project_id, grain, bucket, business_id, agent_id, status_group, orders, revenue)
  select project_id, g.grain, g.bucket, business_id, agent_id, status_group, sum(sign), sum(sign * total)
  from (
    select s.project_id, s.business_id, s.created_at, s.agent_id, s.status_group, s.total, -1 sign from metrics_order_state s where s.order_id = any(ids)
    union all
    select n.project_id, n.business_id, n.created_at, n.agent_id, n.status_group, n.total, 1 from metrics_order_current(ids) n where not gone
  ) x cross join lateral (values (0::smallint, metrics_b15(x.created_at)), (1::smallint, metrics_bday(x.created_at)), (2::smallint, metrics_bmonth(x.created_at))) g(grain, bucket)
  group by project_id, g.grain, g.bucket, business_id, agent_id, status_group
  having sum(sign) <> 0 or sum(sign * total) <> 0
  order by 1, 2, 3, 4, 5, 6
  on conflict (project_id, grain, bucket, business_id, agent_id, status_group) do update
    set orders = r.orders + excluded.orders, revenue = r.revenue + excluded.revenue;

  delete from metrics_order_state where order_id = any(ids);
  if not gone then
    insert into metrics_order_state select * from metrics_order_current(ids);
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
  ) x cross join lateral (values (0::smallint, metrics_b15(x.created_at)), (1::smallint, metrics_bday(x.created_at)), (2::smallint, metrics_bmonth(x.created_at))) g(grain, bucket)
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
  ) x cross join lateral (values (0::smallint, metrics_b15(x.created_at)), (1::smallint, metrics_bday(x.created_at)), (2::smallint, metrics_bmonth(x.created_at))) g(grain, bucket)
  group by project_id, g.grain, g.bucket, business_id, agent_id, state
  having sum(sign) <> 0 or sum(sign * cost) <> 0 or sum(sign * coalesce(rt, 0)) <> 0 or sum(case when rt is null then 0 else sign end) <> 0
  order by 1, 2, 3, 4, 5, 6
  on conflict (project_id, grain, bucket, business_id, agent_id, state) do update
    set conversations = r.conversations + excluded.conversations, cost = r.cost + excluded.cost,
        rt_sum = r.rt_sum + excluded.rt_sum, rt_count = r.rt_count + excluded.rt_count
$$;

insert into metrics_order_rollup (project_id, grain, bucket, business_id, agent_id, status_group, orders, revenue)
select project_id, 2, metrics_bmonth(bucket), business_id, agent_id, status_group, sum(orders), sum(revenue)
from metrics_order_rollup where grain = 1 group by 1, 2, 3, 4, 5, 6;

insert into metrics_product_rollup (project_id, grain, bucket, business_id, product_id, name, times_sold, orders, revenue)
select project_id, 2, metrics_bmonth(bucket), business_id, product_id, name, sum(times_sold), sum(orders), sum(revenue)
from metrics_product_rollup where grain = 1 group by 1, 2, 3, 4, 5, 6;

insert into metrics_conversation_rollup (project_id, grain, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
select project_id, 2, metrics_bmonth(bucket), business_id, agent_id, state, sum(conversations), sum(cost), sum(rt_sum), sum(rt_count)
from metrics_conversation_rollup where grain = 1 group by 1, 2, 3, 4, 5, 6;
`);
  }
}
