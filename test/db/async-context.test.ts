import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionContext } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/entities/config.js';
import { TENANT_FILTER } from '../../src/entities/tenant.js';
import { releaseAsyncContextsWhenIdle } from '../../src/platform/async-context.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';

/** platform/async-context.ts: MikroORM's storages keep their stores while they run, and are off once they have settled. */
let db: TestDatabase;
beforeAll(async () => {
  releaseAsyncContextsWhenIdle();
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

// Node 20's own flag (whether the storage, and so its promise hook, is on)
const on = (storage: AsyncLocalStorage<unknown>) => (storage as unknown as { enabled: boolean }).enabled;
const transactions = (TransactionContext as unknown as { storage: AsyncLocalStorage<unknown> }).storage;

describe('async contexts released when idle', () => {
  it('a transaction sees its EntityManager, nested ones theirs, and the storage is off once they settled', async () => {
    const em = db.orm.em.fork();
    em.setFilterParams(TENANT_FILTER, { projectId: 1 });
    let later: Promise<unknown> | undefined;
    await em.transactional(async (tx) => {
      expect(TransactionContext.getEntityManager(tx.name)).toBe(tx);
      await tx.transactional(async (inner) => {
        await new Promise((r) => setTimeout(r, 5));
        expect(TransactionContext.getEntityManager(tx.name)).toBe(inner);
      });
      expect(TransactionContext.getEntityManager(tx.name)).toBe(tx);
      await tx.find(Config, {});
      expect(on(transactions)).toBe(true);
      later = new Promise((r) => setTimeout(r, 20)).then(() => TransactionContext.getEntityManager(tx.name));
    });
    expect(on(transactions)).toBe(false);
    // work left behind by a finished transaction no longer sees its EntityManager
    expect(await later).toBeUndefined();
  });

  it('concurrent runs keep the storage on until the last has settled; a synchronous run is left as Node does it', async () => {
    const storage = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const slow = storage.run('a', async () => {
      await new Promise((r) => setTimeout(r, 30));
      seen.push(storage.getStore());
    });
    await storage.run('b', async () => {
      await new Promise((r) => setTimeout(r, 5));
      seen.push(storage.getStore());
    });
    expect(on(storage)).toBe(true);
    await slow;
    expect(seen).toEqual(['b', 'a']);
    expect(on(storage)).toBe(false);
    expect(storage.run('c', () => storage.getStore())).toBe('c');
    expect(on(storage)).toBe(true);
    storage.disable();
  });
});
