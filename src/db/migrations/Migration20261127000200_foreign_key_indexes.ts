import { Migration } from '@mikro-orm/migrations';

/**
 * Deleting a row checks every foreign key that points at it: without an index on the referencing column, PostgreSQL
 * scans the referencing table once per deleted row. For the tables that hold many rows per conversation, deleting a
 * conversation or its messages became quadratic: the bench's reset of 100,000 messages ran 12 minutes, one seq scan
 * of `ai_messages` for `reply_to_id` per message. Both indexes are partial where the column can be null: a message
 * rarely replies to another, so its writes seldom pay for it.
 */
export class Migration20261127000200_foreign_key_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create index if not exists ai_messages_reply_to_idx on ai_messages (reply_to_id) where reply_to_id is not null;
create index if not exists ai_media_conversation_idx on ai_media (conversation_id) where conversation_id is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists ai_media_conversation_idx;
drop index if exists ai_messages_reply_to_idx;
`);
  }
}
