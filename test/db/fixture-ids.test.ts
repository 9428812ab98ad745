import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/** CONTRACT §8: ids given in a fixture are kept, configs included. */
const CONFIG = { id: 9008, key: 'fixture_kept', value: 'v', public: true };

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ configs: [CONFIG] as never }));
});
afterAll(() => db.orm.close());

describe('config fixture ids', () => {
  it('keeps the given id, idempotently, and lets a new id replace the entry of the same key', async () => {
    const ids = async () => db.sql<{ id: number }>("select id from configs where key = 'fixture_kept' order by id");
    expect(await ids()).toEqual([{ id: 9008 }]);
    await db.load(baseFixture({ configs: [CONFIG] as never }));
    expect(await ids()).toEqual([{ id: 9008 }]);
    await db.load(baseFixture({ configs: [{ ...CONFIG, id: 9010 }] as never }));
    expect(await ids()).toEqual([{ id: 9010 }]);
    await db.load(baseFixture({ configs: [CONFIG] as never }));
    expect(await ids()).toEqual([{ id: 9008 }]);
  });

  it("refuses an id that belongs to another project's config", async () => {
    const fixture = baseFixture();
    fixture.projects[1].configs = [{ ...CONFIG, key: 'other_key' }] as never;
    await expect(db.load(fixture)).rejects.toThrow(/belongs to another project/);
  });

  describe.each(ENGINES)('served with its id (%s)', (engine) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp(engine, db);
    });
    afterAll(() => t.close());

    it('GET /configs shows the fixture id', async () => {
      const res = await t.api({ path: '/configs', key: KEYS.server });
      expect(res.statusCode).toBe(200);
      expect(res.json().result.find((c: { key: string }) => c.key === 'fixture_kept')).toMatchObject({ id: 9008, value: 'v' });
    });
  });
});
