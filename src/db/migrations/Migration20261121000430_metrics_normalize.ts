import { Migration } from '@mikro-orm/migrations';

/**
 * Brings a database that ran an early draft of Migration20261121000400_metrics (applied in
 * shared development databases while it was being written) to its final trigger definitions:
 * the one-argument metrics_refresh_orders is dropped (it made the two-argument version of
 * …0410 ambiguous), the trigger functions are replaced, and the order delete trigger is the
 * row-level BEFORE DELETE one. On a database that ran the final text, this changes nothing.
 */
export class Migration20261121000430_metrics_normalize extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop function if exists metrics_refresh_orders(int[]);

create or replace function metrics_orders_trg() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform metrics_refresh_orders(array(select id from metrics_new));
  elsif tg_op = 'UPDATE' then
    perform metrics_refresh_orders(array(select id from metrics_new union select id from metrics_old));
  end if;
  return null;
end $$;

create or replace function metrics_orders_del_trg() returns trigger language plpgsql as $$
begin
  perform metrics_refresh_orders(array[old.id], true);
  return old;
end $$;

create or replace function metrics_lines_trg() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform metrics_apply_lines('{}'::order_products[], array(select row(n.*)::order_products from metrics_new n));
  elsif tg_op = 'UPDATE' then
    perform metrics_apply_lines(array(select row(o.*)::order_products from metrics_old o), array(select row(n.*)::order_products from metrics_new n));
  else
    perform metrics_apply_lines(array(select row(o.*)::order_products from metrics_old o), '{}'::order_products[]);
  end if;
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

drop trigger if exists metrics_orders_del on orders;
create trigger metrics_orders_del before delete on orders
  for each row execute function metrics_orders_del_trg();
`);
  }
}
