import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { ensureDatabase } from '../../src/db/database.js';
import { withDatabase } from '../../src/db/embedded.js';
import { MIGRATIONS } from '../../src/db/migrations/index.js';
import { LATEST_MIGRATION } from '../../src/db/migrations/latest.js';
import { initORM, migrate } from '../../src/db/orm.js';

describe('migrations', () => {
  it('LATEST_MIGRATION is the last of the list, and the list is in name order (a new migration goes last)', () => {
    const names = MIGRATIONS.map((m) => m.name);
    expect(names.at(-1)).toBe(LATEST_MIGRATION);
    expect([...names].sort()).toEqual(names);
  });

  it('an empty database gets every migration; one that has the newest gets none, without the migrator being loaded', async () => {
    const name = `og_t_${process.pid}_${randomBytes(4).toString('hex')}`;
    await ensureDatabase(inject('dbServerUrl'), name);
    const url = withDatabase(inject('dbPooledUrl'), name);
    const first = await initORM({ clientUrl: url });
    try {
      expect(await migrate(first)).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      await first.close();
    }
    const second = await initORM({ clientUrl: url });
    try {
      expect(await migrate(second)).toEqual([]);
      expect(second.config.getExtension('@mikro-orm/migrator')).toBeUndefined();
    } finally {
      await second.close();
    }
  });
});
