import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionContext } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormContextsSeen } from '../../src/db/async-contexts.js';
import { Config } from '../../src/entities/config.js';
import { TENANT_FILTER } from '../../src/entities/tenant.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, PASSWORD } from '../support/fixtures.js';

/** db/async-contexts.ts: MikroORM's storages keep their stores while they run, and are off once their runs have settled. */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

// Node's own flag (whether the storage, and so its share of the promise hook, is on)
const on = (storage: AsyncLocalStorage<unknown>) => (storage as unknown as { enabled: boolean }).enabled;
const transactions = (TransactionContext as unknown as { storage: AsyncLocalStorage<unknown> }).storage;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Background work of the app (sweepers) may be inside a transaction at any moment: wait, within a bound, for none to be. */
async function allOffWithin(ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(20)) if (!ormContextsSeen().some(on)) return true;
  return !ormContextsSeen().some(on);
}

describe.each(ENGINES)('async contexts (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  it('a login (a transaction and a flush) leaves none of MikroORM storages on once answered', async () => {
    const res = await t.api({ method: 'POST', path: '/auth', body: { email: 'admin@acme.test', password: PASSWORD } });
    expect(res.statusCode).toBe(200);
    expect(ormContextsSeen()).toContain(transactions);
    expect(ormContextsSeen().length).toBeGreaterThanOrEqual(2); // the transaction's and the flush's
    expect(await allOffWithin(5000)).toBe(true);
  });

  it('concurrent logins each get their own session', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.api({ method: 'POST', path: '/auth', body: { email: 'admin@acme.test', password: PASSWORD } })),
    );
    const tokens = answers.map((r) => (expect(r.statusCode).toBe(200), r.json().result.session.access_token as string));
    expect(new Set(tokens).size).toBe(8);
    for (const token of tokens) expect((await t.api({ path: '/configs', token })).statusCode).toBe(200);
  });
});

describe('the stores while runs are under way', () => {
  it('a transaction sees its EntityManager, a nested one its own, across awaits; the storage is off once both settled', async () => {
    const em = db.orm.em.fork();
    em.setFilterParams(TENANT_FILTER, { projectId: 1 });
    let later: Promise<unknown> | undefined;
    const other = em.fork().transactional(async (tx) => {
      await sleep(300);
      return TransactionContext.getEntityManager(tx.name) === tx;
    });
    await em.transactional(async (tx) => {
      expect(TransactionContext.getEntityManager(tx.name)).toBe(tx);
      await tx.transactional(async (inner) => {
        await sleep(5);
        expect(TransactionContext.getEntityManager(tx.name)).toBe(inner);
      });
      expect(TransactionContext.getEntityManager(tx.name)).toBe(tx);
      await tx.find(Config, {});
      later = sleep(400).then(() => TransactionContext.getEntityManager(tx.name));
    });
    expect(on(transactions)).toBe(true); // `other` is still running
    expect(await other).toBe(true);
    expect(on(transactions)).toBe(false);
    // work a finished transaction left behind no longer sees its EntityManager
    expect(await later).toBeUndefined();
  });

  it("a storage that is not MikroORM's stays as Node has it", async () => {
    const storage = new AsyncLocalStorage<string>();
    expect(await storage.run('a', async () => (await sleep(1), storage.getStore()))).toBe('a');
    expect(on(storage)).toBe(true);
    expect(ormContextsSeen()).not.toContain(storage);
    storage.disable();
  });
});
