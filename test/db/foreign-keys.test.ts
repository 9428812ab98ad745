import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/**
 * Deleting a conversation or a message checks every foreign key that points at it. A key on a table that holds many
 * rows per conversation needs an index on its referencing columns, or each deleted row scans that table
 * (Migration20261127000200_foreign_key_indexes: 100,000 messages took 12 minutes to delete).
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.orm.close());

it('every foreign key to a conversation or a message has an index on its referencing columns', async () => {
  const unindexed = await db.sql<{ key: string }>(
    `select c.conrelid::regclass || '.' || c.conname as key
       from pg_constraint c
      where c.contype = 'f' and c.confrelid::regclass::text in ('ai_conversations', 'ai_messages')
        and not exists (
          select 1 from pg_index i
           where i.indrelid = c.conrelid
             and (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
             and (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey)
      order by 1`,
  );
  expect(unindexed.map((r) => r.key)).toEqual([]);
  // the partial index answers the delete's check (reply_to_id = $1 implies not null)
  const [plan] = await db.sql<{ 'QUERY PLAN': string }>(
    'explain select 1 from only ai_messages x where reply_to_id = 12345 for key share of x',
  );
  expect(plan['QUERY PLAN']).not.toMatch(/Seq Scan/);
});
