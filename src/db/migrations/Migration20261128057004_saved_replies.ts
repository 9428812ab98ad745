import { Migration } from '@mikro-orm/migrations';

/**
 * Saved replies (CONTRACT §10.6): a project's answers an operator reuses. `shortcut` is unique in the project
 * (the index also serves the list's project scope); `q` reads `search`, both columns folded once when written (1,000
 * replies: a scan of that column, ~0.4 ms, instead of folding every row at every request, ~4 ms).
 */
export class Migration20261128057004_saved_replies extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table ai_replies (
  id serial primary key,
  project_id int not null references projects (id) on delete cascade,
  shortcut varchar(32) not null,
  content text not null,
  -- q's text: both columns folded like the inbox's search (og_fold), apart (a contains-pattern cannot match across U+001F)
  search text generated always as (og_fold(shortcut) || chr(31) || og_fold(content)) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index ai_replies_project_shortcut_uq on ai_replies (project_id, shortcut);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists ai_replies;');
  }
}
