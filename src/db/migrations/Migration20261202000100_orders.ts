import { Migration } from '@mikro-orm/migrations';

/**
 * Orders the AI takes (CONTRACT §15.1–15.4): the menu's new members, a conversation's cart, and what an order
 * placed from it keeps.
 * - `ai_carts`: one row per conversation that ever had a cart, kept when the cart is emptied (`lines` null), so
 *   `version` goes on counting across the conversation's carts; `shown` is the priced record (without `version` and
 *   `updated_at`) as last shown: a read that prices it differently is a change, under a new version.
 * - `orders.cart_version`: the cart version an order was placed from. The unique index on (conversation, version) is
 *   what makes a place exactly once under any concurrency: a second insert of the same version finds the first.
 */
export class Migration20261202000100_orders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table businesses
  add column currency char(3) not null default 'EUR',
  add column delivery_price numeric(12,2) not null default 0 check (delivery_price >= 0),
  add column tax_rate numeric(5,2) not null default 0 check (tax_rate >= 0 and tax_rate <= 100);

alter table products
  add column enabled boolean not null default true,
  add column retailer_id varchar(100) null,
  add column created_at timestamptz not null default now(),
  add column updated_at timestamptz not null default now(),
  -- q's text, folded once when written (as ai_replies.search)
  add column search text generated always as (og_fold(name)) stored;
create unique index products_business_retailer_uq on products (business_id, retailer_id) where retailer_id is not null;
create index products_project_business_idx on products (project_id, business_id, id);
-- its prefix (project_id) serves what products_project_idx did
drop index if exists products_project_idx;

create table ai_carts (
  conversation_id int primary key references ai_conversations (id) on delete cascade,
  project_id int not null references projects (id) on delete cascade,
  business_id int null references businesses (id) on delete set null,
  delivery_type smallint null,
  -- what the caller sent: [{product_id, retailer_id, quantity, comment}]; null: no cart
  lines jsonb null,
  address text null,
  location jsonb null,
  comment text null,
  version bigint not null default 0,
  shown jsonb null,
  updated_at timestamptz not null default now()
);
create index ai_carts_project_business_idx on ai_carts (project_id, business_id) where lines is not null;

alter table orders
  add column uuid uuid not null default gen_random_uuid(),
  add column delivery_type smallint null,
  add column paymethod varchar(32) null,
  add column currency char(3) null,
  add column address text null,
  add column location jsonb null,
  add column comment text null,
  add column history jsonb not null default '[]',
  add column conversion jsonb null,
  add column cart_version bigint null;
create unique index orders_uuid_uq on orders (uuid);
create unique index orders_conversation_version_uq on orders (conversation_id, cart_version) where cart_version is not null;
create index orders_project_id_idx on orders (project_id, id);
update orders o set currency = b.currency from businesses b where b.id = o.business_id and o.currency is null;

alter table order_products
  add column retailer_id varchar(100) null,
  add column comment text null;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
alter table order_products drop column retailer_id, drop column comment;
drop index if exists orders_project_id_idx;
alter table orders drop column uuid, drop column delivery_type, drop column paymethod, drop column currency, drop column address,
  drop column location, drop column comment, drop column history, drop column conversion, drop column cart_version;
drop table if exists ai_carts;
drop index if exists products_project_business_idx;
create index if not exists products_project_idx on products (project_id);
alter table products drop column search, drop column enabled, drop column retailer_id, drop column created_at, drop column updated_at;
alter table businesses drop column currency, drop column delivery_price, drop column tax_rate;
`);
  }
}
