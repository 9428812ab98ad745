import { Migration } from '@mikro-orm/migrations';

/**
 * People who take over (CONTRACT §10.2).
 *
 * - `ai_conversations.handler`: `ai` (default) or `human`; `assignee_id`: the user handling it, or null.
 * - `ai_messages.author_id`: the user who added the message through the API; null for server keys
 *   and inbound WhatsApp messages.
 * The partial index serves the inbox's "handled by people" filter without touching AI conversations.
 */
export class Migration20261125000200_handoff extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_conversations
  add column handler varchar(8) not null default 'ai' check (handler in ('ai', 'human')),
  add column assignee_id int null references users(id) on delete set null;
alter table ai_messages add column author_id int null references users(id) on delete set null;
create index ai_conversations_handler_idx on ai_conversations (project_id, assignee_id) where handler = 'human';
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists ai_conversations_handler_idx;
alter table ai_messages drop column author_id;
alter table ai_conversations drop column assignee_id, drop column handler;
`);
  }
}
