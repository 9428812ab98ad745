import { Migration } from '@mikro-orm/migrations';

/**
 * The conversations list sorted by `unread_count` then `last_message_at` (CONTRACT §10.5) without reading the whole
 * project: for a conversation the caller has no mark on, unread_count is `user_messages`, so the page's unmarked
 * candidates are this index's first entries (read forward or backward), and only the caller's few marked ones are
 * computed (ConversationService.list, `unreadCandidates`). Live conversations only: the list keeps history out
 * unless `where` names `source`, and then takes the generic query.
 *
 * `user_messages` is indexed from now on, so the trigger's update of it (Migration20261128059000_unread_counts) is
 * no longer HOT: it writes an entry in every index of the table, like the `last_message_at` update before it.
 */
export class Migration20261129000100_unread_sort_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index ai_conversations_unread_idx on ai_conversations (project_id, user_messages desc, last_message_at desc, id) where source = 'live';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists ai_conversations_unread_idx;`);
  }
}
