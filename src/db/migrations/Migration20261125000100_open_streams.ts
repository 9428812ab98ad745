import { Migration } from '@mikro-orm/migrations';

/**
 * Open streams per process, project and credential (services/events/streams.ts): what the caps of
 * CONTRACT §11 count across processes. UNLOGGED: nothing here needs to survive a crash of the
 * database (after one, the processes' heartbeats write their counts again), and it costs no WAL.
 */
export class Migration20261125000100_open_streams extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create unlogged table open_streams (
  project_id int not null,
  credential varchar(32) not null,
  process_id uuid not null,
  n int not null,
  seen_at timestamptz not null default now(),
  primary key (project_id, credential, process_id)
);
create index open_streams_process_idx on open_streams (process_id);`);
  }
}
