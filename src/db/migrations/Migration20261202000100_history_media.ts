import { Migration } from '@mikro-orm/migrations';

/**
 * CONTRACT §13.3: the files of the phone's history (`media_placeholder` items of the last 14 days) come in
 * later `history` changes whose `value.messages` carry the media items. A media item whose imported message
 * is not stored yet (its chunk still waits for the import, or comes later) waits here, per (agent, message
 * id), until the import of that message applies it.
 */
export class Migration20261202000100_history_media extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table ai_history_media (
  agent_id int not null references ai_agents (id) on delete cascade,
  external_id text not null,
  project_id int not null,
  item json not null,
  created_at timestamptz not null default now(),
  primary key (agent_id, external_id)
);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists ai_history_media;`);
  }
}
