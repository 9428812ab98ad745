import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { causeOf, isClientAbort, isDatabaseUnavailable, LineLimiter, safeError } from '../../src/db/unavailable.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.orm.close());

/** The error a real statement raises through the ORM. */
async function failure(sql: string): Promise<unknown> {
  try {
    await db.sql(sql);
  } catch (err) {
    return err;
  }
  throw new Error(`${sql} did not fail`);
}

describe('what counts as the database being unavailable', () => {
  it('a statement in a transaction a fault already aborted, or ended, is a 503 cause', async () => {
    const em = db.orm.em.fork();
    const aborted = await em
      .transactional(async (tx) => {
        const run = (sql: string) => tx.getConnection().execute(sql, [], 'all', tx.getTransactionContext());
        await run('select 1/0').catch(() => undefined);
        return run('select 1').then(
          () => null,
          (err: unknown) => err,
        );
      })
      .catch((err: unknown) => err);
    expect((aborted as { code?: string })?.code ?? (aborted as { cause?: { code?: string } })?.cause?.code).toBe('25P02');
    expect(isDatabaseUnavailable(aborted)).toBe(true);
    expect(isDatabaseUnavailable(new Error('Transaction query already complete, run with DEBUG=knex:tx for more info'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Client was closed and is not queryable'))).toBe(true);
  });

  it('a request the client aborted is not an outage; a database socket reset is', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    expect(isClientAbort(aborted)).toBe(true);
    expect(isDatabaseUnavailable(aborted)).toBe(false);
    const dbReset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
    expect(isClientAbort(dbReset)).toBe(false);
    expect(isDatabaseUnavailable(dbReset)).toBe(true);
  });

  it('an ordinary query error is not an outage', async () => {
    expect(isDatabaseUnavailable(await failure('select * from no_such_table'))).toBe(false);
  });
});

describe('log lines under faults', () => {
  it('an error for a log line carries no SQL', async () => {
    const err = await failure("select secret_column from no_such_table where x = 'value'");
    expect(String((err as Error).message)).toMatch(/no_such_table/); // the ORM's message holds the statement
    const safe = safeError(err);
    expect(JSON.stringify(safe)).not.toMatch(/select|secret_column|'value'/i);
    expect(safe.message).toBe(causeOf(err));
    expect(String(safe.stack)).toMatch(/^\s+at /);
  });

  it('admits one line per key per interval and counts the ones held back', () => {
    const lines = new LineLimiter(5000);
    expect(lines.admit('a', 0)).toBe(0);
    expect(lines.admit('a', 1000)).toBe(false);
    expect(lines.admit('b', 1000)).toBe(0);
    expect(lines.admit('a', 4999)).toBe(false);
    expect(lines.admit('a', 5000)).toBe(2);
    expect(lines.admit('a', 6000)).toBe(false);
  });
});
