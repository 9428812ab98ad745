import { Migration } from '@mikro-orm/migrations';

/**
 * Outbound webhooks of CONTRACT §9.4 and their durable outbox.
 *
 * - `ai_webhooks`: at most 20 per project (checked by the service under a per-project lock).
 *   `secret` is the signing secret encrypted with the credentials cipher (platform/secrets.ts):
 *   it must be readable to sign, so it is encrypted, not hashed, and returned only once.
 * - `ai_webhook_deliveries`: one row per (event, webhook), written by `appendEvents` in the
 *   event's own transaction. `delivery_id` is the UUID every attempt carries. The dispatcher
 *   claims due rows (`status = 'pending' and next_attempt_at <= now()`, the partial index) with
 *   FOR UPDATE SKIP LOCKED and pushes `next_attempt_at` past the attempt's deadline in the same
 *   statement (a lease), so a process that dies mid-attempt only delays the next one.
 *   Deleting a webhook deletes its deliveries.
 */
export class Migration20261123000300_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table ai_webhooks (
  id serial primary key,
  project_id int not null references projects (id) on delete cascade,
  url varchar(2048) not null,
  events jsonb not null,
  enabled boolean not null default true,
  secret text not null,
  created_at timestamptz not null default now()
);
create index ai_webhooks_project_idx on ai_webhooks (project_id, id);

create table ai_webhook_deliveries (
  id bigserial primary key,
  project_id int not null,
  webhook_id int not null references ai_webhooks (id) on delete cascade,
  event_id bigint not null,
  event_type varchar(32) not null,
  delivery_id uuid not null default gen_random_uuid() unique,
  status varchar(16) not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts int not null default 0,
  last_status_code int null,
  last_error varchar(500) null,
  next_attempt_at timestamptz null default now(),
  delivered_at timestamptz null,
  created_at timestamptz not null default now()
);
create index ai_webhook_deliveries_due_idx on ai_webhook_deliveries (next_attempt_at, id) where status = 'pending';
create index ai_webhook_deliveries_webhook_idx on ai_webhook_deliveries (webhook_id, id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists ai_webhook_deliveries; drop table if exists ai_webhooks;');
  }
}
