import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox tables whose claims name their process (workers/outbox-worker.ts) and that existed
 * before; `ai_media` (the media downloads) has its `claimed_by uuid` and index from its own
 * migration (Migration20261126000300). The liveness releases the tables the workers register.
 */
const OUTBOXES = ['ai_message_sends', 'ai_webhook_deliveries'];

/**
 * A process that dies costs seconds, not a lease (CONTRACT §10.1, issue 46; docs/scaling.md,
 * "Outbox liveness").
 *
 * - `process_heartbeats`: one row per running `serve` process, its identity (a random UUID per
 *   start), refreshed every 500 ms by one UPDATE of `beat_at` (workers/process-liveness.ts). No
 *   index on `beat_at` and a low fill factor: the beat is a HOT update of a handful of rows.
 *   `node` (NODE_NAME, else host:port) lets a restarted process find its predecessor; `host` and
 *   `pid` are for people, and for telling that predecessor dead.
 * - `claimed_by` on each outbox: the identity of the process whose claim leases the row, cleared by
 *   every write of the attempt's result. A row claimed by a process whose heartbeat is 2 s old is
 *   released (due again) by any other process. The partial index holds only the attempts in flight.
 */
export class Migration20261126000500_process_heartbeats extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table process_heartbeats (
  id uuid primary key,
  node varchar(255) not null,
  host varchar(255) not null,
  pid int not null,
  started_at timestamptz not null default now(),
  beat_at timestamptz not null default now()
) with (fillfactor = 50);
create index process_heartbeats_node_idx on process_heartbeats (node);`);
    for (const table of OUTBOXES) {
      this.addSql(`alter table ${table} add column claimed_by uuid null;`);
      this.addSql(`create index ${table}_claimed_idx on ${table} (claimed_by) where claimed_by is not null;`);
    }
  }

  override async down(): Promise<void> {
    for (const table of OUTBOXES) this.addSql(`alter table ${table} drop column if exists claimed_by;`);
    this.addSql('drop table if exists process_heartbeats;');
  }
}
