import { Migration } from '@mikro-orm/migrations';

/**
 * Replies that are more than text (CONTRACT §12.4, §12.5).
 *
 * - `ai_typing_calls`: per conversation, when the typing indicator last reached the provider; one
 *   statement claims a call (at most one per conversation and second, across processes).
 * - `ai_media_uploads`: a file of ours uploaded to the Cloud API for a phone number
 *   (`POST {phone_number_id}/media`): Meta's id, reused for 30 days. While an upload runs, its row
 *   holds a lease (`lease_until`, no `provider_media_id` yet): another process waits for its id
 *   instead of uploading the same file again; a lease left by a process that died runs out.
 */
export class Migration20261126000400_outbound_media extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table ai_typing_calls (
  conversation_id int primary key references ai_conversations (id) on delete cascade,
  project_id int not null references projects (id) on delete cascade,
  called_at timestamptz not null
);
create table ai_media_uploads (
  media_id text not null references ai_media (id) on delete cascade,
  phone_number_id text not null,
  project_id int not null references projects (id) on delete cascade,
  provider_media_id text null,
  uploaded_at timestamptz null,
  lease_until timestamptz not null,
  primary key (media_id, phone_number_id)
);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists ai_media_uploads; drop table if exists ai_typing_calls;`);
  }
}
