import { Migration } from '@mikro-orm/migrations';

/**
 * `q` over message content (CONTRACT §10.5) reads a narrow copy of each message's text, lowered.
 *
 * A word found in many messages (1 in 10 of a project's 1M) had its trigram index hand PostgreSQL
 * 100,000 rows of `ai_messages` to recheck: wide rows, each lowered again by `ilike`. The same rows
 * in `ai_message_search` (ids and the lowered text only) are rechecked with a plain `like` against
 * the pattern folded the same way (`ilike` lowers both sides too): 50 → 30 ms for
 * that count on the bench's data, and more on real rows, which carry payloads and usage.
 *
 * Lowered by `og_fold`: `lower` under a Unicode collation (ICU's root, else C.utf8), so that "ÑANDÚ" is found by
 * "ñandú" whatever the database's own locale (the embedded one is C, whose `lower` and `ilike` fold ASCII only).
 *
 * Kept by triggers on `ai_messages` (every writer: the one-statement writes, the webhook, fixtures);
 * a message's row goes with it (on delete cascade). The index on `ai_messages.content` goes: the
 * search no longer reads it, and a message write no longer pays for its trigrams twice.
 */
export class Migration20261127000100_message_search extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
do $$
declare
  folding text := (select quote_ident(collname) from pg_collation where collname in ('und-x-icu', 'C.utf8', 'C.UTF-8')
                    order by collname = 'und-x-icu' desc limit 1);
begin
  execute format('create function og_fold(t text) returns text language sql immutable parallel safe as %L',
    'select lower(t collate ' || coalesce(folding, '"default"') || ')');
end $$;

create table ai_message_search (
  message_id int primary key references ai_messages (id) on delete cascade,
  project_id int not null,
  conversation_id int not null,
  body text not null
);
insert into ai_message_search (message_id, project_id, conversation_id, body)
  select id, project_id, conversation_id, og_fold(content) from ai_messages;
create index ai_message_search_body_trgm_idx on ai_message_search using gin (body gin_trgm_ops);
drop index if exists ai_messages_content_trgm_idx;

create function ai_messages_search_insert() returns trigger language plpgsql as $$
begin
  insert into ai_message_search (message_id, project_id, conversation_id, body)
    select id, project_id, conversation_id, og_fold(content) from ai_messages_new;
  return null;
end $$;
create trigger ai_messages_search_insert after insert on ai_messages referencing new table as ai_messages_new
  for each statement execute function ai_messages_search_insert();

create function ai_messages_search_update() returns trigger language plpgsql as $$
begin
  update ai_message_search set body = og_fold(new.content) where message_id = new.id;
  return null;
end $$;
create trigger ai_messages_search_update after update of content on ai_messages
  for each row when (old.content is distinct from new.content) execute function ai_messages_search_update();
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop trigger if exists ai_messages_search_update on ai_messages;
drop trigger if exists ai_messages_search_insert on ai_messages;
drop function if exists ai_messages_search_update();
drop function if exists ai_messages_search_insert();
drop table if exists ai_message_search;
drop function if exists og_fold(text);
create index if not exists ai_messages_content_trgm_idx on ai_messages using gin (content gin_trgm_ops);
`);
  }
}
