import { Migration } from '@mikro-orm/migrations';

/**
 * `q` ignores accents as well as case (CONTRACT §10.5: `lucia` finds `Lucía`), over `contact_username` too.
 *
 * `og_fold` (Migration20261127000100) lowered; it now also takes the accents off: NFD, then the combining
 * marks (U+0300–U+036F) and Arabic's vowel marks (U+064B–U+0652) removed, and the few Latin letters that
 * carry their stroke inside the letter (ø, ł, đ, ħ, ı) spelled plainly. Built-in functions only, all immutable:
 * the `unaccent` extension ships with PostgreSQL (the embedded one and the system's) but is not everywhere a
 * project's database allows extensions, and its function is only stable, so it could not be indexed as is.
 *
 * The stored copies are folded again (`ai_message_search.body`, only the rows the new fold changes), and the
 * conversation's name columns are searched as `og_fold(column) like og_fold(pattern)` through trigram indexes
 * on that expression. `contact` (digits, or a BSUID) keeps its plain `ilike` and index.
 * `contact_username`: the WhatsApp `profile.username` of the newest delivery that carried one.
 */
export class Migration20261128057002_search_fold extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
do $$
declare
  folding text := (select quote_ident(collname) from pg_collation where collname in ('und-x-icu', 'C.utf8', 'C.UTF-8')
                    order by collname = 'und-x-icu' desc limit 1);
begin
  execute format('create or replace function og_fold(t text) returns text language sql immutable parallel safe as %L',
    'select translate(regexp_replace(normalize(lower(t collate ' || coalesce(folding, '"default"') || '), NFD), '
    || quote_literal('[\\u0300-\\u036f\\u064b-\\u0652]') || ', '''', ''g''), ''øłđħı'', ''oldhi'')');
end $$;

update ai_message_search s set body = og_fold(m.content)
  from ai_messages m where m.id = s.message_id and s.body is distinct from og_fold(m.content);

alter table ai_conversations add column contact_username text null;
drop index if exists ai_conversations_contact_name_trgm_idx;
create index ai_conversations_contact_name_fold_idx on ai_conversations using gin (og_fold(contact_name) gin_trgm_ops);
create index ai_conversations_contact_username_fold_idx on ai_conversations using gin (og_fold(contact_username) gin_trgm_ops);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists ai_conversations_contact_username_fold_idx;
drop index if exists ai_conversations_contact_name_fold_idx;
create index if not exists ai_conversations_contact_name_trgm_idx on ai_conversations using gin (contact_name gin_trgm_ops);
alter table ai_conversations drop column if exists contact_username;
`);
  }
}
