import { Migration } from '@mikro-orm/migrations';

/**
 * WhatsApp both ways (CONTRACT §9.3).
 *
 * - `ai_template_sends`: the send log. One row per template sent (status `accepted`), moved forward
 *   by Meta's status notifications; `(agent_id, message_id)` is unique (Meta's wamid names one send).
 * - `ai_inbound_message_ids`: the provider message ids already stored, per agent. Its primary key
 *   `(agent_id, external_id)` is what makes a retried delivery store nothing twice: a message's
 *   transaction inserts its key first (`on conflict do nothing`), so a concurrent delivery of the
 *   same id waits on the key and then finds it taken. A table of its own rather than an `agent_id`
 *   column on ai_messages: the API's own writes (no external id) stay untouched, and the key is
 *   taken before the conversation is opened, so a duplicate never opens one.
 * - `users_phone_digits_idx`: the contact → user match (country code and cellphone digits joined).
 */
export class Migration20261123000200_whatsapp extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table ai_template_sends (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  agent_id int not null references ai_agents(id) on delete cascade,
  template_id int null references ai_templates(id) on delete set null,
  message_id varchar(128) not null,
  "to" varchar(16) not null,
  status varchar(16) not null default 'accepted' check (status in ('accepted', 'sent', 'delivered', 'read', 'failed')),
  error text null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (agent_id, message_id)
);
create index ai_template_sends_agent_idx on ai_template_sends (project_id, agent_id, created_at, id);

create table ai_inbound_message_ids (
  agent_id int not null references ai_agents(id) on delete cascade,
  external_id varchar(128) not null,
  project_id int not null references projects(id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (agent_id, external_id)
);

create index users_phone_digits_idx on users (project_id, (regexp_replace(coalesce(country_phone_code, ''), '[^0-9]', '', 'g') || regexp_replace(coalesce(cellphone, ''), '[^0-9]', '', 'g')));
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists users_phone_digits_idx;
drop table if exists ai_inbound_message_ids;
drop table if exists ai_template_sends;
`);
  }
}
