import { randomBytes } from 'node:crypto';
import { Migrator } from '@mikro-orm/migrations';
import { describe, expect, inject, it } from 'vitest';
import { ensureDatabase } from '../../src/db/database.js';
import { withDatabase } from '../../src/db/embedded.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { initORM } from '../../src/db/orm.js';
import { loadFixtures } from '../../src/fixtures/load.js';
import { testCipher } from '../support/db.js';

/**
 * CONTRACT §10.5: `last_message_at` is the newest message's `created_at`, also when the message is dated before the
 * conversation was opened (a late delivery). Migration20261128057001 corrects the rows stored before it: a database
 * migrated up to the one before, loaded, then migrated to the end.
 */
describe('Migration20261128057001_late_last_message_at', () => {
  it('corrects the stored last_message_at of conversations whose messages are older than the conversation', async () => {
    const name = `og_t_${process.pid}_${randomBytes(4).toString('hex')}`;
    await ensureDatabase(inject('dbServerUrl'), name);
    const orm = await initORM({ clientUrl: withDatabase(inject('dbPooledUrl'), name) });
    try {
      orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList: MIGRATIONS });
      Migrator.register(orm);
      await orm.migrator.up({ to: 'Migration20261127000400_redundant_index' });
      const agent = { id: 1, name: 'A', provider: 'web', provider_type: 'chat', provider_external_id: 'a', enabled: true };
      const conversation = (id: number, created_at: string) => ({
        id,
        agent_id: 1,
        contact: `3460000000${id}`,
        status: 'active',
        usage: {},
        created_at,
      });
      const message = (id: number, conversation_id: number, created_at: string) => ({
        id,
        conversation_id,
        role: 'user',
        content: 'hola',
        public: true,
        created_at,
      });
      await loadFixtures(
        orm,
        {
          projects: [
            {
              code: 'late',
              agents: [agent],
              // 1: a late delivery (its only message a day older); 2: a message after creation; 3: no message
              conversations: [
                conversation(1, '2026-11-02T12:00:00Z'),
                conversation(2, '2026-11-02T12:00:00Z'),
                conversation(3, '2026-11-02T12:00:00Z'),
              ],
              messages: [
                message(1, 1, '2026-11-01T08:00:00Z'),
                message(2, 1, '2026-11-01T07:00:00Z'),
                message(3, 2, '2026-11-02T13:00:00Z'),
              ],
            },
          ],
        },
        testCipher,
      );
      const read = () =>
        orm.em
          .getConnection()
          .execute<{ id: number; at: Date }[]>('select id, last_message_at as at from ai_conversations order by id')
          .then((rows) => rows.map((r) => [r.id, new Date(r.at).toISOString()]));
      // before: the late conversation kept its own created_at
      expect((await read())[0]).toEqual([1, '2026-11-02T12:00:00.000Z']);
      await orm.migrator.up();
      expect(await read()).toEqual([
        [1, '2026-11-01T08:00:00.000Z'],
        [2, '2026-11-02T13:00:00.000Z'],
        [3, '2026-11-02T12:00:00.000Z'],
      ]);
    } finally {
      await orm.close(true);
    }
  });
});
