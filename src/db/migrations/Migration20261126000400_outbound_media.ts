import { Migration } from '@mikro-orm/migrations';

/**
 * Replies that are more than text (CONTRACT §12.4, §12.5).
 *
 * - `ai_typing_calls`: per conversation, when the typing indicator last reached the provider; one
 *   statement claims a call (at most one per conversation and second, across processes).
 */
export class Migration20261126000400_outbound_media extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table ai_typing_calls (
  conversation_id int primary key references ai_conversations (id) on delete cascade,
  project_id int not null references projects (id) on delete cascade,
  called_at timestamptz not null
);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists ai_typing_calls;`);
  }
}
