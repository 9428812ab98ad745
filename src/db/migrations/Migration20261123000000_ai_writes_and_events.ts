import { Migration } from '@mikro-orm/migrations';

/**
 * The columns the writes of CONTRACT §9.1–§9.3 need, and the event log of §9.4 they all write.
 *
 * - Messages gain `usage` (null when none) and `external_id` (the provider's message id).
 * - Conversations gain `contact` (the provider's contact id, e.g. a WhatsApp wa_id). The one-active rule
 *   becomes two partial unique indexes: (agent, user) among conversations without a contact (the
 *   current conversation of §6.2), and (agent, contact) among those with one.
 * - `ai_events`: one row per event. Ids come from one sequence, but are taken only while the
 *   project's event lock is held (see services/events/event-log.ts), so within a project they increase in
 *   commit order. Visibility columns (agent, business, conversation, public) are copied at write
 *   time so a stream filters without joins. No foreign keys: events outlive what they describe
 *   until they are pruned by age.
 */
export class Migration20261123000000_ai_writes_and_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_messages add column usage jsonb null, add column external_id varchar(128) null;
alter table ai_conversations add column contact varchar(64) null;
drop index if exists ai_conversations_active_uq;
create unique index ai_conversations_active_uq on ai_conversations (agent_id, (coalesce(user_id, 0))) where status = 'active' and contact is null;
create unique index ai_conversations_active_contact_uq on ai_conversations (agent_id, contact) where status = 'active' and contact is not null;

create table ai_events (
  id bigserial primary key,
  project_id int not null,
  type varchar(32) not null,
  agent_id int null,
  business_id int null,
  conversation_id int null,
  public boolean not null default true,
  data jsonb not null,
  created_at timestamptz not null default now()
);
create index ai_events_project_idx on ai_events (project_id, id);
create index ai_events_created_idx on ai_events (created_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists ai_events;
drop index if exists ai_conversations_active_contact_uq;
drop index if exists ai_conversations_active_uq;
create unique index ai_conversations_active_uq on ai_conversations (agent_id, (coalesce(user_id, 0))) where status = 'active';
alter table ai_conversations drop column contact;
alter table ai_messages drop column usage, drop column external_id;
`);
  }
}
