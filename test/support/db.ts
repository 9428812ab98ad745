import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inject } from 'vitest';
import { ensureDatabase } from '../../src/db/database.js';
import { withDatabase } from '../../src/db/embedded.js';
import { initORM } from '../../src/db/orm.js';
import { loadFixtures } from '../../src/fixtures/load.js';
import type { FixtureFile } from '../../src/fixtures/types.js';
import { CredentialCipher } from '../../src/platform/secrets.js';

export const TEST_CREDENTIALS_KEY = 'test-credentials-key';
export const testCipher = new CredentialCipher(TEST_CREDENTIALS_KEY);

export interface TestDatabase {
  /** What the application uses (DATABASE_URL): through PgBouncer under TEST_PGBOUNCER=1. */
  url: string;
  /** The same database without a pooler (DATABASE_DIRECT_URL): migrations and sessions. */
  directUrl: string;
  orm: MikroORM;
  /** Every SQL statement run through this ORM, newest last (cleared by tests as they need). */
  queries: string[];
  load(fixture: FixtureFile): Promise<void>;
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

/** A fresh, migrated database of its own for one test file (cloned from the run's template). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = inject('dbServerUrl');
  const name = `og_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(server, name, inject('templateDb'));
  const url = withDatabase(inject('dbPooledUrl'), name);
  const directUrl = withDatabase(server, name);
  const queries: string[] = [];
  const orm = await initORM({ clientUrl: url, onQuery: (line) => queries.push(line) });
  return {
    url,
    directUrl,
    orm,
    queries,
    load: async (fixture) => {
      await loadFixtures(orm, fixture, testCipher);
    },
    sql: (text, params = []) => orm.em.getConnection().execute(text, params, 'all'),
  };
}
