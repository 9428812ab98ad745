import { Migration } from '@mikro-orm/migrations';

/**
 * A cheaper metrics_refresh_orders: the orders' previous contributions (state) and current
 * ones are read once into arrays instead of once per step, and orders that neither were nor
 * are AI orders return at once (no rollup statement at all). Same results: the property test
 * compares the rollups with the raw-scan reference.
 */
export class Migration20261121000440_metrics_refresh_once extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
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

  -- Orders whose (project, business, time) changed, or that became / stopped being AI orders:
  -- their lines move in the product rollup.
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
    ) x cross join lateral (values (0::smallint, metrics_b15(x.created_at)), (1::smallint, metrics_bday(x.created_at)),
                                   (2::smallint, metrics_bmonth(x.created_at))) g(grain, bucket)
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
  ) x cross join lateral (values (0::smallint, metrics_b15(x.created_at)), (1::smallint, metrics_bday(x.created_at)),
                                 (2::smallint, metrics_bmonth(x.created_at))) g(grain, bucket)
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
`);
  }
}
