import { Migration } from '@mikro-orm/migrations';

/**
 * The order metrics triggers planned anew at every call (issue 65, `npm run bench:orders` with pg_stat_statements and
 * track_planning): PostgreSQL's plan cache kept choosing custom plans for their statements over the trigger's arrays
 * and transition tables, so an order's insert spent 2 ms planning metrics_refresh_orders' and metrics_apply_lines'
 * statements against 0.3 ms running them (plans = calls). Their plans do not depend on the values, so they are
 * generic now. A placed order (an insert of orders no state knows) takes a one-statement path of the trigger itself:
 * its state and its delta, and its lines' products should the statement have any, as metrics_refresh_orders would
 * write them for an order with no previous state.
 */
export class Migration20261202000250_order_trigger_plans extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter function metrics_refresh_orders(int[], boolean) set plan_cache_mode = force_generic_plan;
alter function metrics_apply_lines(order_products[], order_products[]) set plan_cache_mode = force_generic_plan;

create or replace function metrics_orders_trg() returns trigger language plpgsql set plan_cache_mode = force_generic_plan as $$
begin
  if tg_op = 'UPDATE' then
    perform metrics_refresh_orders(array(select id from metrics_new union select id from metrics_old));
  elsif exists (select 1 from metrics_new n join metrics_order_state s on s.order_id = n.id) then
    perform metrics_refresh_orders(array(select id from metrics_new));
  else
    with cur as materialized (
      select o.id order_id, o.project_id, coalesce(o.business_id, 0) business_id, o.created_at, c.agent_id,
             metrics_status_group(o.status) status_group, coalesce(metrics_num(o.summary -> 'total'), 0) total
      from metrics_new o join ai_conversations c on c.id = o.conversation_id
    ), state as (
      insert into metrics_order_state select * from cur
    ), products as (
      insert into metrics_product_delta (project_id, bucket, business_id, product_id, name, times_sold, orders, revenue)
      select cur.project_id, metrics_b15(cur.created_at), cur.business_id, coalesce(op.product_id, 0), op.name,
             sum(op.quantity), count(distinct cur.order_id), sum(op.quantity * op.price)
      from cur join order_products op on op.order_id = cur.order_id
      group by 1, 2, 3, 4, 5
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

  override async down(): Promise<void> {
    this.addSql(`
alter function metrics_refresh_orders(int[], boolean) reset plan_cache_mode;
alter function metrics_apply_lines(order_products[], order_products[]) reset plan_cache_mode;

create or replace function metrics_orders_trg() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform metrics_refresh_orders(array(select id from metrics_new));
  elsif tg_op = 'UPDATE' then
    perform metrics_refresh_orders(array(select id from metrics_new union select id from metrics_old));
  end if;
  return null;
end $$;
`);
  }
}
