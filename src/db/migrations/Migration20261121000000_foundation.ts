import { Migration } from '@mikro-orm/migrations';

/**
 * The foundation schema: tenancy, identity, configs, and the AI/order tables that later
 * features fill in. Every tenant-owned table carries project_id.
 */
export class Migration20261121000000_foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table projects (
  id serial primary key,
  code varchar(64) not null unique,
  name varchar(255) not null,
  subscription_active boolean not null default true,
  maintenance boolean not null default false,
  ai_enabled boolean not null default false,
  plugins text[] not null default '{}',
  rate_limits jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table app_settings (
  key varchar(64) primary key,
  value jsonb not null,
  updated_at timestamptz not null default now()
);

create table franchises (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  name varchar(255) not null,
  created_at timestamptz not null default now()
);
create index franchises_project_idx on franchises (project_id);

create table businesses (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  franchise_id int null references franchises(id) on delete set null,
  name varchar(255) not null,
  created_at timestamptz not null default now()
);
create index businesses_project_idx on businesses (project_id, franchise_id);

create table users (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  name varchar(255) null,
  lastname varchar(255) null,
  email varchar(255) null,
  cellphone varchar(20) null,
  country_phone_code varchar(8) null,
  password_hash varchar(255) null,
  level smallint not null default 3,
  guest boolean not null default false,
  guest_token uuid null,
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_email_uq on users (project_id, lower(email)) where email is not null;
create unique index users_cellphone_uq on users (project_id, country_phone_code, cellphone) where cellphone is not null;
create unique index users_guest_token_uq on users (project_id, guest_token) where guest_token is not null;

create table user_businesses (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  user_id int not null references users(id) on delete cascade,
  business_id int not null references businesses(id) on delete cascade,
  unique (user_id, business_id)
);
create index user_businesses_business_idx on user_businesses (business_id);

create table sessions (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  user_id int not null references users(id) on delete cascade,
  token_hash char(64) not null unique,
  expires_at timestamptz not null,
  device_code varchar(255) null,
  platform varchar(64) null,
  ip varchar(64) null,
  forwarded_for varchar(1024) null,
  user_agent varchar(1024) null,
  created_at timestamptz not null default now()
);
create index sessions_user_idx on sessions (user_id);

create table api_keys (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  user_id int null references users(id) on delete cascade,
  server boolean not null default false,
  key_hash char(64) not null unique,
  name varchar(255) null,
  created_at timestamptz not null default now(),
  check (server or user_id is not null)
);

create table one_time_passwords (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  user_id int not null references users(id) on delete cascade,
  code_hash varchar(255) not null,
  expires_at timestamptz not null,
  used_at timestamptz null,
  attempts int not null default 0,
  created_at timestamptz not null default now()
);
create index one_time_passwords_user_idx on one_time_passwords (user_id, expires_at);

create table devices (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  user_id int not null references users(id) on delete cascade,
  notification_token varchar(1024) not null,
  notification_app varchar(255) null,
  notification_provider varchar(64) null,
  platform varchar(64) null,
  device_code varchar(255) null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (project_id, notification_token)
);

create table configs (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  key varchar(128) not null,
  value text not null default '',
  type smallint not null default 1,
  public boolean not null default false,
  hidden boolean not null default false,
  protected boolean not null default false,
  description text null,
  plugin varchar(64) null,
  v2_only boolean not null default false,
  business_manager_visible boolean not null default false,
  unique (project_id, key)
);

create table products (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  business_id int null references businesses(id) on delete set null,
  name varchar(255) not null,
  price numeric(12,2) not null default 0
);
create index products_project_idx on products (project_id);

create table ai_agents (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  business_id int null references businesses(id) on delete set null,
  name varchar(255) not null,
  provider varchar(32) not null,
  provider_type varchar(32) not null,
  provider_external_id varchar(128) not null,
  enabled boolean not null default true,
  credentials text null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (project_id, provider_external_id)
);
create index ai_agents_business_idx on ai_agents (project_id, business_id);

create table ai_templates (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  agent_id int not null references ai_agents(id) on delete cascade,
  external_id varchar(64) not null,
  name varchar(512) not null,
  language varchar(16) not null,
  category varchar(64) null,
  status varchar(16) not null,
  components jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (agent_id, external_id)
);

create table ai_translations (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  agent_id int not null references ai_agents(id) on delete cascade,
  locale varchar(5) not null,
  value jsonb not null default '{}',
  updated_at timestamptz not null default now(),
  unique (agent_id, locale)
);

create table ai_conversations (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  agent_id int not null references ai_agents(id) on delete cascade,
  user_id int null references users(id) on delete set null,
  business_id int null references businesses(id) on delete set null,
  status varchar(16) not null default 'active' check (status in ('active', 'closed')),
  status_reason varchar(16) null check (status_reason in ('completed', 'abandoned', 'failed')),
  usage jsonb not null default '{}',
  created_at timestamptz not null default now(),
  closed_at timestamptz null,
  updated_at timestamptz not null default now()
);
-- At most one active conversation per (agent, user); a server key's conversation has no user.
create unique index ai_conversations_active_uq on ai_conversations (agent_id, coalesce(user_id, 0)) where status = 'active';
create index ai_conversations_project_idx on ai_conversations (project_id, id);

create table ai_messages (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  conversation_id int not null references ai_conversations(id) on delete cascade,
  role varchar(16) not null check (role in ('user', 'assistant', 'system', 'tool')),
  content text not null default '',
  public boolean not null default true,
  created_at timestamptz not null default now()
);
create index ai_messages_conversation_idx on ai_messages (conversation_id, id);

create table orders (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  business_id int null references businesses(id) on delete set null,
  customer_id int null references users(id) on delete set null,
  conversation_id int null references ai_conversations(id) on delete set null,
  status smallint not null default 0,
  summary jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index orders_project_created_idx on orders (project_id, created_at);

create table order_products (
  id serial primary key,
  project_id int not null references projects(id) on delete cascade,
  order_id int not null references orders(id) on delete cascade,
  product_id int null,
  name varchar(255) not null,
  quantity int not null default 1,
  price numeric(12,2) not null default 0
);
create index order_products_order_idx on order_products (order_id);
`);
  }
}
