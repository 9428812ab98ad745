import { Migration } from '@mikro-orm/migrations';

/**
 * CONTRACT §11 (fourth review) and §13.3: an agent's `history` gains `failed`, the chunks whose import gave up after the
 * bounded attempts (workers/attempts.ts), `[]` until one does. Written by the importer when a chunk gives up, kept by
 * every later history change; here, the records written before it get their empty list.
 */
export class Migration20261202000100_history_failed extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `update ai_agents set history = jsonb_set(history, '{failed}', '[]'::jsonb) where history is not null and history->'failed' is null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`update ai_agents set history = history - 'failed' where history is not null;`);
  }
}
