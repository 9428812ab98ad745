import { Migration } from '@mikro-orm/migrations';

/**
 * Replies on WhatsApp (CONTRACT §10.1).
 *
 * - `ai_messages.delivery_status` / `delivery_error`: null for a message sent nowhere; `pending`
 *   when written, then `accepted` (the Cloud API's 2xx), `sent`, `delivered`, `read` or `failed`.
 * - `ai_conversations.last_inbound_at`: the newest `created_at` of a message received through the
 *   WhatsApp webhook, kept by the inbound service; `window_expires_at` is this + 24 h.
 * - `ai_message_sends`: the outbox of replies, one row per message to send, written in the
 *   message's own transaction. The sender (workers/whatsapp-sender.ts) claims due rows with
 *   FOR UPDATE SKIP LOCKED and leases them (`next_attempt_at` past the attempt's deadline) in the
 *   same statement; only the oldest pending row of a conversation is due (order per conversation).
 * - `ai_early_statuses`: Meta statuses whose id matched no message yet (the status outran the
 *   send's answer); applied when a message gets that external_id, forgotten after 10 minutes.
 */
export class Migration20261125000000_whatsapp_outbound extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_messages
  add column delivery_status varchar(16) null check (delivery_status in ('pending', 'accepted', 'sent', 'delivered', 'read', 'failed')),
  add column delivery_error varchar(1000) null;
alter table ai_conversations add column last_inbound_at timestamptz null;
update ai_conversations c set last_inbound_at = (
  select max(m.created_at) from ai_messages m where m.conversation_id = c.id and m.role = 'user' and m.external_id is not null)
 where c.contact is not null;
create index ai_messages_external_idx on ai_messages (external_id) where external_id is not null;

create table ai_message_sends (
  message_id int primary key references ai_messages (id) on delete cascade,
  project_id int not null,
  conversation_id int not null,
  status varchar(16) not null default 'pending' check (status in ('pending', 'done')),
  attempts int not null default 0,
  next_attempt_at timestamptz null default now(),
  last_error varchar(500) null,
  created_at timestamptz not null default now()
);
create index ai_message_sends_due_idx on ai_message_sends (next_attempt_at, message_id) where status = 'pending';
create index ai_message_sends_conversation_idx on ai_message_sends (conversation_id, message_id) where status = 'pending';

create table ai_early_statuses (
  agent_id int not null references ai_agents (id) on delete cascade,
  external_id varchar(128) not null,
  status varchar(16) not null,
  error varchar(1000) null,
  received_at timestamptz not null default now(),
  primary key (agent_id, external_id, status)
);
create index ai_early_statuses_received_idx on ai_early_statuses (received_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists ai_early_statuses;
drop table if exists ai_message_sends;
drop index if exists ai_messages_external_idx;
alter table ai_conversations drop column if exists last_inbound_at;
alter table ai_messages drop column if exists delivery_status, drop column if exists delivery_error;
`);
  }
}
