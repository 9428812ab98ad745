import { Migration } from '@mikro-orm/migrations';

/**
 * `ai_conversations_project_created_idx (project_id, created_at)` is the prefix of `ai_conversations_created_idx
 * (project_id, created_at, id)`: every query it answers, the longer one answers as well. A message write moves its
 * conversation's indexed `last_message_at`, so the update is never HOT and writes an entry in every index of
 * `ai_conversations`; this one was paid on every message for nothing.
 */
export class Migration20261127000400_redundant_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index if exists ai_conversations_project_created_idx;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index if not exists ai_conversations_project_created_idx on ai_conversations (project_id, created_at);`);
  }
}
