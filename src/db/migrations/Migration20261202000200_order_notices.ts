import { Migration } from '@mikro-orm/migrations';

/**
 * Order notices and the ad's credit (CONTRACT §15.5, §15.6; docs/orders.md).
 *
 * - `ai_agents.order_messages`: the notice per order status (`{"7": {"text", "template_id", "locale"}, …}`), or null.
 * - `ai_messages.order_id`: the order whose notice the message is, else null (no foreign key: fixture orders and
 *   messages load in any order, and nothing is ever deleted). Nullable without a default: no rewrite of the table.
 * - `ai_conversion_sends`: the outbox of Conversions API events (workers/conversion-sender.ts), one row per order,
 *   written in the placing transaction; claimed as every outbox of the service is (`attempts`, `next_attempt_at`,
 *   `claimed_by` released by the process liveness). `status` `pending` until the event is sent or given up (`done`).
 */
export class Migration20261202000200_order_notices extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_agents add column order_messages jsonb null;
alter table ai_messages add column order_id int null;
create table ai_conversion_sends (
  order_id int primary key,
  project_id int not null,
  agent_id int not null,
  ctwa_clid text not null,
  status varchar(8) not null default 'pending',
  attempts int not null default 0,
  next_attempt_at timestamptz null default now(),
  claimed_by uuid null,
  last_error text null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index ai_conversion_sends_due_idx on ai_conversion_sends (next_attempt_at, order_id) where status = 'pending';
create index ai_conversion_sends_claimed_idx on ai_conversion_sends (claimed_by) where claimed_by is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists ai_conversion_sends;
alter table ai_messages drop column if exists order_id;
alter table ai_agents drop column if exists order_messages;
`);
  }
}
