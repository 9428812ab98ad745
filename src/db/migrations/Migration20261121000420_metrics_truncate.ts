import { Migration } from '@mikro-orm/migrations';

/**
 * TRUNCATE fires no row or statement triggers of the insert/update/delete kind, so the
 * metrics rollups get their own: truncating a source table empties what was built from it
 * (for every project, as TRUNCATE does).
 */
export class Migration20261121000420_metrics_truncate extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function metrics_truncate_trg() returns trigger language plpgsql as $$
begin
  if tg_table_name = 'orders' then
    truncate metrics_order_state, metrics_order_rollup, metrics_product_rollup;
  elsif tg_table_name = 'order_products' then
    truncate metrics_product_rollup;
  elsif tg_table_name = 'ai_conversations' then
    truncate metrics_conversation_rollup;
  end if;
  return null;
end $$;

create trigger metrics_orders_truncate after truncate on orders for each statement execute function metrics_truncate_trg();
create trigger metrics_lines_truncate after truncate on order_products for each statement execute function metrics_truncate_trg();
create trigger metrics_conversations_truncate after truncate on ai_conversations for each statement execute function metrics_truncate_trg();
`);
  }
}
