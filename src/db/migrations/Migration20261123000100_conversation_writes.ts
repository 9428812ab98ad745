import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys of CONTRACT §9.2 (rest/idempotency.ts): one row per (project, caller, key).
 * A row without `status` is running: `lease_until` bounds how long a process that died mid-request
 * keeps the key busy. `expires_at` (24 h) is indexed so the cleanup deletes expired rows in small
 * batches without reading the table; an expired row also counts as absent when a key is claimed.
 */
export class Migration20261123000100_conversation_writes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table idempotency_keys (
  project_id int not null references projects(id) on delete cascade,
  caller varchar(32) not null,
  key varchar(255) not null,
  method varchar(8) not null,
  path text not null,
  body jsonb null,
  token uuid not null,
  status smallint null,
  response text null,
  lease_until timestamptz not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (project_id, caller, key)
);
create index idempotency_keys_expires_idx on idempotency_keys (expires_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists idempotency_keys;');
  }
}
