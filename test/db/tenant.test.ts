import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectRows, usePreparedStatements } from '../../src/db/direct-read.js';
import { initORM } from '../../src/db/orm.js';
import { countRows, readOne, readRows } from '../../src/db/tenant-read.js';
import { AppSetting } from '../../src/entities/app-setting.js';
import { Config } from '../../src/entities/config.js';
import { ENTITIES } from '../../src/entities/index.js';
import { Project } from '../../src/entities/project.js';
import { TENANT_FILTER } from '../../src/entities/tenant.js';
import { User } from '../../src/entities/user.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';
import { pgbouncerBinary, startPgBouncer } from '../support/pgbouncer.js';

let db: TestDatabase;
let acme: Project;
let other: Project;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture({ configs: [{ key: 'shared_key', value: 'acme-value', public: true }] }));
  const em = db.orm.em.fork();
  acme = await em.findOneOrFail(Project, { code: 'acme' });
  other = await em.findOneOrFail(Project, { code: 'other' });
  await db.load({ projects: [{ code: 'other', ai_enabled: true, configs: [{ key: 'shared_key', value: 'other-value', public: true }] }] });
});
afterAll(() => db.orm.close());

const scoped = (project: Project) => {
  const em = db.orm.em.fork({ clear: true });
  em.setFilterParams(TENANT_FILTER, { projectId: project.id });
  return em;
};

describe('tenant isolation by construction', () => {
  it('refuses a tenant query made without a project scope', async () => {
    await expect(db.orm.em.fork().find(Config, {})).rejects.toThrow(/tenant/);
  });

  it("scopes every find to the project, even by another project's id", async () => {
    const em = scoped(acme);
    const rows = await em.find(Config, { key: 'shared_key' });
    expect(rows.map((r) => r.value)).toEqual(['acme-value']);
    const foreign = await scoped(other).findOneOrFail(Config, { key: 'shared_key' });
    expect(await em.findOne(Config, { id: foreign.id })).toBeNull();
    expect(await em.findOne(User, { id: 101 })).toBeNull();
  });

  it('refuses to insert a row for another project', async () => {
    const em = scoped(acme);
    em.create(Config, { project: other, key: 'sneaky', value: 'x' });
    await expect(em.flush()).rejects.toThrow(/another project/);
    const count = await db.sql<{ n: string }>('select count(*) as n from configs where key = ?', ['sneaky']);
    expect(Number(count[0].n)).toBe(0);
  });

  it('refuses a tenant write with no scope at all', async () => {
    const em = db.orm.em.fork();
    em.create(Config, { project: acme, key: 'unscoped', value: 'x' });
    await expect(em.flush()).rejects.toThrow(/without a project scope/);
  });
});

/** The values of acme's `shared_key` config, read through a request-scoped EntityManager of `orm`. */
async function sharedKeyValues(orm: Awaited<ReturnType<typeof initORM>>): Promise<string[]> {
  const em = orm.em.fork();
  em.setFilterParams(TENANT_FILTER, { projectId: acme.id });
  return (await readRows(em, Config, { key: 'shared_key' })).map((r) => r.value);
}

describe('entity-free reads (db/tenant-read.ts)', () => {
  it('refuse an EntityManager without a project scope, and entities that are not tenant-owned', async () => {
    await expect(readRows(db.orm.em.fork(), Config, {})).rejects.toThrow(/without a project scope/);
    await expect(countRows(db.orm.em.fork(), Config, {})).rejects.toThrow(/without a project scope/);
    await expect(readRows(scoped(acme), AppSetting as never, {})).rejects.toThrow(/not a tenant entity/);
  });

  it("see only the scope's project, whatever the filter names", async () => {
    const foreign = await scoped(other).findOneOrFail(Config, { key: 'shared_key' });
    expect((await readRows(scoped(acme), Config, { key: 'shared_key' })).map((r) => r.value)).toEqual(['acme-value']);
    expect(await readOne(scoped(acme), Config, { id: foreign.id })).toBeNull();
    expect(await readOne(scoped(acme), Config, { $or: [{ id: foreign.id }, { project: other.id }] })).toBeNull();
    expect(await readOne(scoped(acme), User, { id: 101 })).toBeNull();
    expect(await countRows(scoped(acme), Config, { id: foreign.id })).toBe(0);
    // the same shape with another project's scope reuses the kept SQL text with that project's id
    expect((await readOne(scoped(other), Config, { id: foreign.id }))?.value).toBe('other-value');
  });

  it('run inside a transaction on its connection (its own writes visible), and bind instants as UTC', async () => {
    const em = scoped(acme);
    await em
      .transactional(async (tx) => {
        tx.create(Config, { project: acme, key: 'in_tx_only', value: 'v' });
        await tx.flush();
        expect((await readOne(tx, Config, { key: 'in_tx_only' }))?.value).toBe('v');
        expect(await countRows(tx, Config, { key: 'in_tx_only' })).toBe(1);
        // another request's EntityManager does not see the uncommitted row
        expect(await readOne(scoped(acme), Config, { key: 'in_tx_only' })).toBeNull();
        throw new Error('roll back');
      })
      .catch((err: Error) => expect(err.message).toBe('roll back'));
    expect(await countRows(scoped(acme), Config, { key: 'in_tx_only' })).toBe(0);

    const [user] = await readRows(scoped(acme), User, {}, { orderBy: { id: 'asc' }, limit: 1 });
    await db.sql(`update users set created_at = '2026-01-02 03:04:05+00' where id = ?`, [user.id]);
    const at = new Date('2026-01-02T03:04:05Z');
    expect((await readOne(scoped(acme), User, { id: user.id }))!.created_at).toEqual(at);
    expect(await countRows(scoped(acme), User, { id: user.id, created_at: { $gte: at } })).toBe(1);
    expect(await countRows(scoped(acme), User, { id: user.id, created_at: { $gt: at } })).toBe(0);
    expect(await countRows(scoped(acme), User, { id: user.id, created_at: { $lt: new Date(at.getTime() + 1) } })).toBe(1);
  });

  it("give, for every tenant entity, what MikroORM's result mapper gives for the same columns, with the entity's prototype", async () => {
    const em = scoped(acme);
    // a row with values in every kind of column the entities have: dates, booleans, JSON, a reference
    const [user] = await readRows(em, User, {}, { orderBy: { id: 'asc' }, limit: 1 });
    await db.sql(`update users set created_at = '2026-01-02 03:04:05+00' where id = ?`, [user.id]);
    let compared = 0;
    for (const entity of ENTITIES) {
      const meta = em.getMetadata().get(entity.name);
      if (!meta.properties.project) continue;
      const orderBy = Object.fromEntries(meta.primaryKeys.map((k) => [k, 'asc'])) as never;
      const rows = await readRows(em, entity as never, {}, { orderBy });
      const { sql, bindings } = em.createQueryBuilder(entity, 'e').where({ project: acme.id }).orderBy(orderBy).getKnexQuery().toSQL();
      const expected = (await selectRows(em, sql, bindings)).map((r) =>
        Object.setPrototypeOf(em.getDriver().mapResult(r as never, meta), meta.prototype),
      );
      expect(rows, meta.className).toEqual(expected);
      rows.forEach((row, i) => {
        expect(Object.getPrototypeOf(row)).toBe(meta.prototype);
        // own data properties, as the mapper's (the prototype's accessors never ran)
        expect(Object.getOwnPropertyDescriptors(row), meta.className).toEqual(Object.getOwnPropertyDescriptors(expected[i]));
        expect(Object.keys(row as object), meta.className).toEqual(Object.keys(expected[i]));
      });
      compared += rows.length;
    }
    expect(compared).toBeGreaterThan(5);
  });

  it('come back as plain objects by column name, whatever the names (selectRows)', async () => {
    const em = scoped(acme);
    const rows = await selectRows<Record<string, unknown>>(
      em,
      `select ?::int as "a", 'x' as "b", 1 as "dup", 2 as "dup", 'p' as "__proto__", ?::text as "it's ""quoted""" from generate_series(1, 2)`,
      [7, 'q'],
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
      expect(Object.keys(row)).toEqual(['a', 'b', 'dup', '__proto__', 'it\'s "quoted"']);
      expect(row).toMatchObject({ a: 7, b: 'x', dup: 2, 'it\'s "quoted"': 'q' });
      expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('p');
    }
    const [config] = await selectRows<{ key: string; public: boolean }>(
      em,
      'select "key", "public" from "configs" where "project_id" = ? and "key" = ?',
      [acme.id, 'shared_key'],
    );
    expect(config).toEqual({ key: 'shared_key', public: true });
  });

  it('are prepared by name once per connection when the ORM asks for it (DATABASE_PREPARED_STATEMENTS), and not otherwise', async () => {
    const prepared = async (named: boolean) => {
      // one connection, straight to PostgreSQL (no pooler), so the session that prepared is the one asked
      const orm = await initORM({ clientUrl: db.directUrl, poolMax: 1 });
      try {
        if (named) usePreparedStatements(orm);
        expect(await sharedKeyValues(orm)).toEqual(['acme-value']);
        expect(await sharedKeyValues(orm)).toEqual(['acme-value']);
        const [{ n }] = await orm.em
          .getConnection()
          .execute(`select count(*)::int n from pg_prepared_statements where statement like '%from "configs"%'`);
        return n;
      } finally {
        await orm.close();
      }
    };
    expect(await prepared(true)).toBe(1);
    expect(await prepared(false)).toBe(0);
  });

  it('recover when a migration changes a table under a prepared statement (the connection is replaced)', async () => {
    const orm = await initORM({ clientUrl: db.directUrl, poolMax: 1 });
    try {
      usePreparedStatements(orm);
      const read = () => sharedKeyValues(orm);
      expect(await read()).toEqual(['acme-value']);
      await db.sql('alter table configs add column prepared_probe int');
      try {
        expect(await read()).toEqual(['acme-value']);
        expect(await read()).toEqual(['acme-value']);
      } finally {
        await db.sql('alter table configs drop column prepared_probe');
      }
      expect(await read()).toEqual(['acme-value']);
    } finally {
      await orm.close();
    }
  });

  it.skipIf(!pgbouncerBinary())(
    'give up named statements, without failing a read, behind a transaction pooler that does not keep them',
    async () => {
      // PgBouncer (transaction mode, 1.18 here) hands each statement to whichever server connection is free
      const bouncer = await startPgBouncer(db.directUrl, { poolSize: 3 });
      const warnings: string[] = [];
      const onWarning = (w: Error & { code?: string }) => void (w.code === 'ORDERGRAPH_PREPARED_STATEMENTS' && warnings.push(w.message));
      process.on('warning', onWarning);
      const orm = await initORM({ clientUrl: bouncer.url, poolMax: 3 });
      try {
        usePreparedStatements(orm);
        const read = () => sharedKeyValues(orm);
        for (let round = 0; round < 5; round++) {
          const values = await Promise.all(Array.from({ length: 6 }, read));
          expect(values).toEqual(Array.from({ length: 6 }, () => ['acme-value']));
        }
        await new Promise((r) => setImmediate(r));
        expect(warnings).toHaveLength(1);
      } finally {
        process.off('warning', onWarning);
        await orm.close();
        await bouncer.stop();
      }
    },
  );
});
