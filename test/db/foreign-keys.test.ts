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

it('no plain b-tree index is the prefix of another on the same table (each one is paid on every non-HOT update)', async () => {
  // Migration20261127000400_redundant_index: a message write updates its conversation, never HOT, so every index of
  // ai_conversations takes an entry per message; an index whose columns lead another one answers nothing the other does not.
  const redundant = await db.sql<{ index: string }>(
    `with i as (
       select x.indrelid, x.indexrelid::regclass::text as name, x.indkey::text as keys
         from pg_index x join pg_class c on c.oid = x.indexrelid join pg_am am on am.oid = c.relam
        where am.amname = 'btree' and x.indpred is null and x.indexprs is null and not x.indisunique
          and c.relnamespace = 'public'::regnamespace)
     select a.name || ' (prefix of ' || b.name || ')' as index
       from i a join i b on a.indrelid = b.indrelid and a.name <> b.name
      where b.keys like a.keys || ' %' or (b.keys = a.keys and a.name > b.name)
      order by 1`,
  );
  expect(redundant.map((r) => r.index)).toEqual([]);
});
