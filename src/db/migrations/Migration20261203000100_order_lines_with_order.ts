import { Migration } from '@mikro-orm/migrations';

/**
 * A placed order and its lines in one statement (issue 65: a place is one statement in autocommit). The statement-level
 * triggers of `orders` and `order_products` then fire at the end of the same statement, in an order PostgreSQL does not
 * promise. Until now the order's trigger counted the lines already there and the lines' trigger skipped lines whose order
 * had no state yet, so an order's lines were counted once only when the order's statement ended before its lines'; fired
 * the other way round within one statement, they counted twice. Now only the lines' trigger counts lines: it attributes
 * them through the order's state, or, while the order has none yet, through the order itself (what its state will be:
 * metrics_order_current), so a new order's lines count once whichever trigger fires first.
 */
export class Migration20261203000100_order_lines_with_order extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function metrics_apply_lines(olds order_products[], news order_products[]) returns void language sql
set plan_cache_mode = force_generic_plan as $$
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
    cross join lateral (
      select s.project_id, s.business_id, s.created_at from metrics_order_state s where s.order_id = c.order_id
      union all
      select n.project_id, n.business_id, n.created_at from metrics_order_current(array[c.order_id]) n
       where not exists (select 1 from metrics_order_state s where s.order_id = c.order_id)
    ) s
    cross join lateral (
      select count(*) after_c from order_products op
      where op.order_id = c.order_id and coalesce(op.product_id, 0) = c.pid and op.name = c.name
    ) a
  ) x
  group by project_id, metrics_b15(created_at), business_id, pid, name
  having sum(q) <> 0 or sum(dorders) <> 0 or sum(rev) <> 0
$$;

create or replace function metrics_orders_trg() returns trigger language plpgsql set plan_cache_mode = force_generic_plan as $$
begin
  if tg_op = 'UPDATE' then
    perform metrics_refresh_orders(array(select id from metrics_new union select id from metrics_old));
  elsif exists (select 1 from metrics_new n join metrics_order_state s on s.order_id = n.id) then
    perform metrics_refresh_orders(array(select id from metrics_new));
  else
    -- new orders: their state and their delta; their lines are the lines' trigger's (metrics_apply_lines)
    with cur as materialized (
      select o.id order_id, o.project_id, coalesce(o.business_id, 0) business_id, o.created_at, c.agent_id,
             metrics_status_group(o.status) status_group, coalesce(metrics_num(o.summary -> 'total'), 0) total
      from metrics_new o join ai_conversations c on c.id = o.conversation_id
    ), state as (
      insert into metrics_order_state select * from cur
    )
    insert into metrics_order_delta (project_id, bucket, business_id, agent_id, status_group, orders, revenue)
    select project_id, metrics_b15(created_at), business_id, agent_id, status_group, count(*), sum(total)
    from cur
    group by 1, 2, 3, 4, 5;
  end if;
  return null;
end $$;
`);
  }
}
