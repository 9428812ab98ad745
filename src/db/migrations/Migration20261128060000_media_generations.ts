import { Migration } from '@mikro-orm/migrations';

/**
 * A stored file's bytes are named by the download attempt that wrote them (CONTRACT §12.7): a stale
 * attempt writes and deletes only its own, never the bytes another attempt stored.
 *
 * - `ai_media.generation`: the attempt whose bytes the row holds (set with `stored`, in the same
 *   conditional update); 0 for uploads and for files stored before this migration (their bytes keep
 *   the names they had: S3 key `media/{id}`, chunks of attempt 0).
 * - `ai_media_chunks.attempt`: the attempt a PostgreSQL chunk belongs to, in the primary key.
 */
export class Migration20261128060000_media_generations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table ai_media add column generation int not null default 0;
alter table ai_media_chunks add column attempt int not null default 0;
alter table ai_media_chunks drop constraint ai_media_chunks_pkey;
alter table ai_media_chunks add primary key (media_id, attempt, seq);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
delete from ai_media_chunks c using ai_media a where a.id = c.media_id and c.attempt <> a.generation;
alter table ai_media_chunks drop constraint ai_media_chunks_pkey;
alter table ai_media_chunks add primary key (media_id, seq);
alter table ai_media_chunks drop column attempt;
alter table ai_media drop column generation;
`);
  }
}
