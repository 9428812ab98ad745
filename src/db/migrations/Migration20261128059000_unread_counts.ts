import { Migration } from '@mikro-orm/migrations';

/** The stored counts from the messages (the test of the migration runs it on counts it spoiled). */
export const FILL_UNREAD_COUNTS = [
  `update ai_conversations c set user_messages = (select count(*) from ai_messages m where m.conversation_id = c.id and m.role = 'user' and m.source <> 'history')`,
  `update ai_conversation_seen s set user_messages = (
     select count(*) from ai_messages m where m.conversation_id = s.conversation_id and m.role = 'user' and m.source <> 'history' and m.id <= s.message_id)`,
];

/**
 * The sort by `unread_count` (CONTRACT §10.5) without counting messages per request: what it needs is stored.
 *
 * - `ai_conversations.user_messages`: how many `user` messages the conversation has. Kept by a trigger of its
 *   own (every writer keeps it without knowing, like `last_message_at`), in the inserting statement's
 *   transaction; messages are never deleted nor change role, so inserts are the only change.
 * - `ai_conversation_seen.user_messages`: how many `user` messages the conversation had up to the mark
 *   (`id <= message_id`), written with the mark (ConversationService.markSeen).
 * - The caller's unread_count is then `c.user_messages - coalesce(s.user_messages, 0)`: no read of ai_messages.
 *   A list reads the caller's marks once (a hashed set, by ai_conversation_seen_viewer_idx) instead of
 *   looking a mark up per conversation; the project's index (project_id) is its prefix, so it goes.
 */
export class Migration20261128059000_unread_counts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_conversations add column user_messages int not null default 0;
alter table ai_conversation_seen add column user_messages int not null default 0;

create index ai_conversation_seen_viewer_idx on ai_conversation_seen (project_id, viewer, conversation_id);
drop index if exists ai_conversation_seen_project_idx;
${FILL_UNREAD_COUNTS.join(';\n')};

create function ai_messages_user_messages() returns trigger language plpgsql as $$
begin
  update ai_conversations c set user_messages = c.user_messages + n.n
    from (select conversation_id, count(*)::int n from ai_messages_new where role = 'user' and source <> 'history' group by conversation_id) n
   where c.id = n.conversation_id;
  return null;
end $$;
create trigger ai_messages_user_messages after insert on ai_messages referencing new table as ai_messages_new
  for each statement execute function ai_messages_user_messages();
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop trigger if exists ai_messages_user_messages on ai_messages;
drop function if exists ai_messages_user_messages();
create index if not exists ai_conversation_seen_project_idx on ai_conversation_seen (project_id);
drop index if exists ai_conversation_seen_viewer_idx;
alter table ai_conversation_seen drop column user_messages;
alter table ai_conversations drop column user_messages;
`);
  }
}
