import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgConnection } from '../../src/db/connection-guard.js';
import { selectRows } from '../../src/db/direct-read.js';
import { initORM } from '../../src/db/orm.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/**
 * The serving pool (knex/tarn, as `serve` makes it: bounded) never hands out a connection whose
 * query timed out on the client, whose statement was cancelled, or that was left in a
 * transaction: each is destroyed, and a client-side timeout closes the connection at once.
 */
type Pooled = PgConnection & {
  __knexUid: string;
  processID: number;
  query(text: string): Promise<unknown>;
  query(c: object): Promise<unknown>;
};

let db: TestDatabase;
let orm: MikroORM;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await initORM({ clientUrl: db.url, poolMax: 2, bounds: { statementTimeoutMs: 3000, acquireTimeoutMs: 2000 } });
});
afterAll(async () => {
  await orm?.close();
  await db?.orm.close();
});

const knexClient = () =>
  orm.em.getConnection().getKnex().client as unknown as {
    acquireConnection(): Promise<Pooled>;
    releaseConnection(c: Pooled): Promise<unknown>;
  };

/** Acquires a connection, does `use` with it, releases it; returns the connection. */
async function withConnection(use: (c: Pooled) => Promise<unknown>): Promise<Pooled> {
  const client = knexClient();
  const conn = await client.acquireConnection();
  try {
    await use(conn);
  } finally {
    await client.releaseConnection(conn);
  }
  return conn;
}

async function backendAlive(pid: number): Promise<boolean> {
  const rows = await db.sql<{ n: number }>('select count(*)::int as n from pg_stat_activity where pid = ?', [pid]);
  return rows[0].n > 0;
}

async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('the serving pool after a failure', () => {
  it('keeps a healthy connection (no churn on success)', async () => {
    const first = await withConnection((c) => c.query('select 1'));
    const second = await withConnection((c) => c.query('select 1'));
    expect(second.__knexUid).toBe(first.__knexUid);
  });

  it('closes a connection whose query timed out on the client, and never hands it out again', async () => {
    let err: unknown;
    const timedOut = await withConnection((c) =>
      c.query({ text: 'select pg_sleep(1.5)', query_timeout: 200 }).catch((e: unknown) => (err = e)),
    );
    expect(String((err as Error)?.message)).toBe('Query read timeout');
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(timedOut.__knex__disposed).toBeTruthy();
    const pid = timedOut.processID;
    const next = await withConnection((c) => c.query('select 1'));
    expect(next.__knexUid).not.toBe(timedOut.__knexUid);
    // the backend goes once its statement ends and it meets the closed socket
    expect(await eventually(async () => !(await backendAlive(pid)))).toBe(true);
  });

  it('fails what is queued behind a timed-out query at once, instead of after its own timeout', async () => {
    const started = Date.now();
    const conn = await knexClient().acquireConnection();
    try {
      const first = conn.query({ text: 'select pg_sleep(2)', query_timeout: 200 }).catch((e: unknown) => e);
      const second = conn.query({ text: 'select 1', query_timeout: 2500 }).catch((e: unknown) => e);
      expect(String(((await first) as Error).message)).toBe('Query read timeout');
      expect(isDatabaseUnavailable(await second)).toBe(true);
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      await knexClient().releaseConnection(conn);
    }
  });

  it('destroys a connection whose statement was cancelled (statement_timeout)', async () => {
    let err: unknown;
    const cancelled = await withConnection(async (c) => {
      await c.query('set statement_timeout = 100');
      await c.query('select pg_sleep(1)').catch((e: unknown) => (err = e));
    });
    expect((err as { code?: string }).code).toBe('57014');
    const next = await withConnection((c) => c.query('select 1'));
    expect(next.__knexUid).not.toBe(cancelled.__knexUid);
  });

  it('destroys a connection released inside a transaction (open or aborted) instead of handing it out', async () => {
    const open = await withConnection((c) => c.query('begin'));
    const aborted = await withConnection(async (c) => {
      await c.query('begin');
      await c.query('select 1/0').catch(() => undefined);
    });
    const next = await withConnection(async (c) => {
      await c.query('select 1');
      expect(c.getTransactionStatus?.()).toBe('I');
    });
    expect([open.__knexUid, aborted.__knexUid]).not.toContain(next.__knexUid);
  });

  it('serves the direct reads from the same guarded pool', async () => {
    const rows = await selectRows<{ ok: number }>(orm.em.fork(), 'select 1 as ok', []);
    expect(rows).toEqual([{ ok: 1 }]);
  });
});
