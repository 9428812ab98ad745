import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes for the conversation lists (CONTRACT §3, §6.2): every attribute `where` and `orderBy`
 * accept on `GET /ai/conversations` (id, agent_id, user_id, business_id, status, status_reason,
 * created_at, closed_at) and on the messages list (id, role, public, created_at, always within one
 * conversation). Every conversation index leads with project_id, as every query is tenant-scoped.
 * "The active conversation of (agent, user)" is the foundation's partial unique index
 * ai_conversations_active_uq; the (project_id, id) index is the foundation's too.
 */
export class Migration20261121000200_conversations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create index ai_conversations_agent_idx on ai_conversations (project_id, agent_id, id);
create index ai_conversations_user_idx on ai_conversations (project_id, user_id, id);
create index ai_conversations_business_idx on ai_conversations (project_id, business_id, id);
create index ai_conversations_status_idx on ai_conversations (project_id, status, status_reason, id);
create index ai_conversations_status_reason_idx on ai_conversations (project_id, status_reason, id);
create index ai_conversations_created_idx on ai_conversations (project_id, created_at, id);
create index ai_conversations_closed_idx on ai_conversations (project_id, closed_at, id);
create index ai_messages_conversation_created_idx on ai_messages (conversation_id, created_at, id);
create index ai_messages_conversation_role_idx on ai_messages (conversation_id, role, id);
create index ai_messages_conversation_public_idx on ai_messages (conversation_id, public, created_at, id);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists ai_conversations_agent_idx;
drop index if exists ai_conversations_user_idx;
drop index if exists ai_conversations_business_idx;
drop index if exists ai_conversations_status_idx;
drop index if exists ai_conversations_status_reason_idx;
drop index if exists ai_conversations_created_idx;
drop index if exists ai_conversations_closed_idx;
drop index if exists ai_messages_conversation_created_idx;
drop index if exists ai_messages_conversation_role_idx;
drop index if exists ai_messages_conversation_public_idx;
`);
  }
}
