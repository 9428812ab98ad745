import { Migration } from '@mikro-orm/migrations';

/**
 * A history chunk is stored as the `json` text it came as, not `jsonb`: nothing queries inside a stored chunk (the
 * import reads it whole), and turning 200 kB of JSON into jsonb cost the webhook 13–27 ms of PostgreSQL per chunk
 * against 3–6 ms for `json` (docs/benchmarks.md, issue 56); a webhook's chunks were stored one after another.
 */
export class Migration20261129000400_history_chunks_json extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table ai_history_chunks alter column value type json using value::json;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table ai_history_chunks alter column value type jsonb using value::jsonb;`);
  }
}
