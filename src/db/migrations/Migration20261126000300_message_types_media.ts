import { Migration } from '@mikro-orm/migrations';

/**
 * Every inbound message type, contacts without a phone number, and media (CONTRACT §12.1–12.3, §12.5).
 *
 * - `ai_messages.type` (every existing row is `text`), `payload` (Meta's typed object as §12.2 shapes
 *   it), `reply_to_id` (the message of the same conversation the item answers).
 * - `ai_conversations.contact` widened to 200 (a BSUID is up to 131 characters, parent ids longer);
 *   `contact_user_id` (Meta's business-scoped user id, BSUID) and `contact_name`.
 *   One active conversation per agent and person: `ai_conversations_active_contact_uq` (agent,
 *   contact) already holds for the phone number (or the BSUID when no phone is known);
 *   `ai_conversations_active_user_uq` does the same for the BSUID.
 * - `ai_media`: a stored file (`id` ours, random, not guessable), received from a customer
 *   (`origin` inbound: its message and conversation, cascaded with them) or uploaded by the
 *   project (`upload`). An inbound file is also its own download job, written in the webhook's
 *   transaction: `attempts`, `next_attempt_at` (the lease while an attempt runs, the backoff
 *   after) and `claimed_by` (the identity of the process whose claim holds it, process-liveness.ts;
 *   the partial index holds only the downloads in flight), as the other outboxes; `last_error`
 *   is the latest attempt's failure while it is retried, `error` the reason of `failed`.
 * - `ai_media_chunks`: the bytes of files kept in PostgreSQL (`storage` pg), in fixed-size rows.
 */
export class Migration20261126000300_message_types_media extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_messages
  add column type text not null default 'text' check (type in ('text', 'image', 'audio', 'video', 'document', 'sticker', 'location',
    'contacts', 'interactive', 'button', 'order', 'reaction', 'unsupported')),
  add column payload jsonb null,
  add column reply_to_id int null references ai_messages (id) on delete set null;
create index ai_messages_conversation_type_idx on ai_messages (conversation_id, type, id);

alter table ai_conversations
  alter column contact type varchar(200),
  add column contact_user_id text null,
  add column contact_name text null;
-- q (CONTRACT §10.5) searches the contact's name too, by trigrams like contact (Migration20261126000200_inbox)
create index ai_conversations_contact_name_trgm_idx on ai_conversations using gin (contact_name gin_trgm_ops);
create unique index ai_conversations_active_user_uq on ai_conversations (agent_id, contact_user_id)
  where status = 'active' and contact_user_id is not null;

create table ai_media (
  id text primary key,
  project_id int not null references projects (id) on delete cascade,
  origin text not null check (origin in ('inbound', 'upload')),
  conversation_id int null references ai_conversations (id) on delete cascade,
  message_id int null references ai_messages (id) on delete cascade,
  agent_id int null references ai_agents (id) on delete set null,
  status text not null default 'pending' check (status in ('pending', 'stored', 'failed')),
  mime_type text null,
  size int null,
  sha256 text null,
  error text null,
  filename text null,
  provider_media_id text null,
  storage text not null default 'pg' check (storage in ('pg', 's3')),
  attempts int not null default 0,
  next_attempt_at timestamptz null default now(),
  claimed_by uuid null,
  last_error text null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index ai_media_due_idx on ai_media (next_attempt_at, id) where status = 'pending' and origin = 'inbound';
create index ai_media_claimed_idx on ai_media (claimed_by) where claimed_by is not null;
create index ai_media_message_idx on ai_media (message_id) where message_id is not null;
create index ai_media_project_idx on ai_media (project_id, created_at, id);

create table ai_media_chunks (
  media_id text not null references ai_media (id) on delete cascade,
  seq int not null,
  data bytea not null,
  primary key (media_id, seq)
);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists ai_media_chunks;
drop table if exists ai_media;
drop index if exists ai_conversations_active_user_uq;
drop index if exists ai_conversations_contact_name_trgm_idx;
alter table ai_conversations drop column if exists contact_user_id, drop column if exists contact_name;
drop index if exists ai_messages_conversation_type_idx;
alter table ai_messages drop column if exists type, drop column if exists payload, drop column if exists reply_to_id;
`);
  }
}
