import { Migration } from '@mikro-orm/migrations';

/**
 * CONTRACT §13.1, §13.2, §13.5, §13.6: the business's own phone, messages that change, customers from an ad.
 * - `ai_messages.source`: `api`, `whatsapp` (from the customer), `business_app` (an echo), `history`; existing
 *   rows backfilled (a `user` message with a provider id came through the webhook, everything else through the API).
 * - `ai_messages.edited_at`, `edits` (earlier versions, oldest first), `revoked_at`; `referral` on messages and
 *   conversations (the first of the conversation).
 * - `ai_messages.external_key`: the message's token inside its wamid, the same in every form Meta gives one
 *   message (the send's answer, a later webhook scoped by phone number or by BSUID; CONTRACT §13.2's last rule).
 * - `ai_agents.disabled_reason` (`offboarded`, else null).
 * - `ai_early_changes`: an edit or revoke whose original is not stored yet, kept 10 minutes (as ai_early_statuses).
 * - CONTRACT §12.1: one phone number may be two people (a different BSUID on each side): the unique active
 *   (agent, contact) holds only for conversations without a BSUID (ai_conversations_active_user_uq holds for
 *   the others); openers of one phone number are serialised by an advisory lock (whatsapp/inbound-notification.ts).
 *   The lookups by (agent, contact) keep an index of their own.
 */
export class Migration20261128055000_business_phone extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_messages
  add column source varchar(16) not null default 'api' check (source in ('api', 'whatsapp', 'business_app', 'history')),
  add column edited_at timestamptz null,
  add column edits jsonb not null default '[]',
  add column revoked_at timestamptz null,
  add column referral jsonb null,
  add column external_key varchar(128) null;
create index ai_messages_external_key_idx on ai_messages (external_key) where external_key is not null;
update ai_messages set source = 'whatsapp' where role = 'user' and external_id is not null;
alter table ai_conversations add column referral jsonb null;
create index ai_conversations_referral_source_idx on ai_conversations (project_id, (referral->>'source_id')) where referral is not null;
alter table ai_agents add column disabled_reason varchar(32) null;
drop index if exists ai_conversations_active_contact_uq;
create index ai_conversations_active_contact_idx on ai_conversations (agent_id, contact) where status = 'active' and contact is not null;
create unique index ai_conversations_active_contact_uq on ai_conversations (agent_id, contact)
  where status = 'active' and contact is not null and contact_user_id is null;
create table ai_early_changes (
  agent_id int not null references ai_agents (id) on delete cascade,
  external_id varchar(128) not null,
  external_key varchar(128) null,
  kind varchar(8) not null check (kind in ('edit', 'revoke')),
  item jsonb not null,
  received_at timestamptz not null default now()
);
create index ai_early_changes_id_idx on ai_early_changes (agent_id, external_id);
create index ai_early_changes_key_idx on ai_early_changes (agent_id, external_key) where external_key is not null;
create index ai_early_changes_received_idx on ai_early_changes (received_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table if exists ai_early_changes;
drop index if exists ai_conversations_active_contact_uq;
drop index if exists ai_conversations_active_contact_idx;
create unique index ai_conversations_active_contact_uq on ai_conversations (agent_id, contact) where status = 'active' and contact is not null;
alter table ai_agents drop column if exists disabled_reason;
drop index if exists ai_conversations_referral_source_idx;
alter table ai_conversations drop column if exists referral;
alter table ai_messages drop column if exists source, drop column if exists edited_at, drop column if exists edits,
  drop column if exists revoked_at, drop column if exists referral, drop column if exists external_key;
`);
  }
}
