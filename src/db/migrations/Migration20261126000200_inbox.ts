import { Migration } from '@mikro-orm/migrations';

/**
 * An inbox a busy counter can keep up with (CONTRACT §10.5).
 *
 * - `ai_conversations.last_message_at`: the created_at of its newest message, else its own created_at.
 *   Kept by triggers, so every writer (REST, graph, the WhatsApp webhook's one-statement insert, fixtures)
 *   keeps it without knowing: a conversation starts at its created_at, and a statement that inserts messages
 *   moves each of their conversations forward (never back) once, from its transition table.
 * - `ai_conversation_seen`: per caller (`user:ID`, or `key:ID` for a server key) the id of the newest message
 *   it has seen in a conversation; `unread_count` counts the `user` messages after it
 *   (ai_messages_conversation_role_idx (conversation_id, role, id) answers it).
 * - `q`: trigram indexes (pg_trgm, shipped with PostgreSQL and trusted since 13: no superuser needed) on the
 *   message content and the conversation's contact, so `ilike '%…%'` is an index scan at 1M messages.
 *   (`contact_name` of §12.1 gets its own trigram index in the migration that adds it.)
 */
export class Migration20261126000200_inbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create extension if not exists pg_trgm;

alter table ai_conversations add column last_message_at timestamptz;
update ai_conversations c set last_message_at = coalesce((select max(m.created_at) from ai_messages m where m.conversation_id = c.id), c.created_at);
alter table ai_conversations alter column last_message_at set not null;
create index ai_conversations_last_message_idx on ai_conversations (project_id, last_message_at desc, id desc);
create index ai_conversations_contact_trgm_idx on ai_conversations using gin (contact gin_trgm_ops);
create index ai_messages_content_trgm_idx on ai_messages using gin (content gin_trgm_ops);

create function ai_conversations_last_message_default() returns trigger language plpgsql as $$
begin
  new.last_message_at := coalesce(new.last_message_at, new.created_at, now());
  return new;
end $$;
create trigger ai_conversations_last_message_default before insert on ai_conversations
  for each row execute function ai_conversations_last_message_default();

create function ai_messages_last_message_at() returns trigger language plpgsql as $$
begin
  update ai_conversations c set last_message_at = n.at
    from (select conversation_id, max(created_at) at from ai_messages_new group by conversation_id) n
   where c.id = n.conversation_id and c.last_message_at < n.at;
  return null;
end $$;
create trigger ai_messages_last_message_at after insert on ai_messages referencing new table as ai_messages_new
  for each statement execute function ai_messages_last_message_at();

create table ai_conversation_seen (
  project_id int not null references projects(id) on delete cascade,
  conversation_id int not null references ai_conversations(id) on delete cascade,
  viewer varchar(32) not null,
  message_id int not null,
  updated_at timestamptz not null default now(),
  primary key (conversation_id, viewer)
);
create index ai_conversation_seen_project_idx on ai_conversation_seen (project_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists ai_conversation_seen;
drop trigger if exists ai_messages_last_message_at on ai_messages;
drop function if exists ai_messages_last_message_at();
drop trigger if exists ai_conversations_last_message_default on ai_conversations;
drop function if exists ai_conversations_last_message_default();
drop index if exists ai_messages_content_trgm_idx;
drop index if exists ai_conversations_contact_trgm_idx;
drop index if exists ai_conversations_last_message_idx;
alter table ai_conversations drop column last_message_at;
`);
  }
}
