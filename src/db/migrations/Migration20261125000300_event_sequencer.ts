import { Migration } from '@mikro-orm/migrations';

/**
 * Event ids without a lock shared by a project's writers (CONTRACT §9.4, issue 34).
 *
 * Writers append their events to `ai_event_inbox` in their own transaction, with no lock: `seq`
 * only orders the rows of one transaction, and the rows of one conversation (whose writers hold its
 * row lock, so they commit one after the other). A sequencer pass (services/events/event-log.ts)
 * moves the committed rows of one project into `ai_events` in one statement, under a lock only
 * passes take: ids are drawn there, after the rows were committed, so they increase in the order
 * events become visible. The inbox is a queue: rows live there for milliseconds.
 */
export class Migration20261125000300_event_sequencer extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table ai_event_inbox (
  seq bigint generated always as identity,
  project_id int not null,
  type varchar(32) not null,
  agent_id int null,
  business_id int null,
  conversation_id int null,
  public boolean not null,
  data jsonb not null,
  created_at timestamptz not null,
  primary key (project_id, seq)
) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists ai_event_inbox;');
  }
}
