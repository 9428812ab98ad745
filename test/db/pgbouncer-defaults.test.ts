import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_READ_MARGIN_MS, initORM } from '../../src/db/orm.js';
import { RESTORING_SETTING, takeOrmWarnings } from '../../src/db/startup-params.js';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { ensureBuilt } from '../support/dist.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { pgbouncerBinary, startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';

/**
 * A PgBouncer with its default `ignore_startup_parameters` (none) refuses the serving pool's
 * `statement_timeout` startup parameter. `serve` used to stop at start; now it connects without the
 * parameter, keeps the client-side bound and logs one warning naming the setting that restores it.
 * The PgBouncer is real (Debian's; 1.18 here), in transaction mode, in front of this file's database.
 */
const installed = pgbouncerBinary();
if (!installed) console.warn('[pgbouncer-defaults] skipped: pgbouncer is not installed (Debian: apt-get install pgbouncer)');

const WARNING = 'refused the startup parameter statement_timeout';

describe.skipIf(!installed)('behind a PgBouncer with its default ignore_startup_parameters', () => {
  let db: TestDatabase;
  let bouncer: PgBouncer;

  beforeAll(async () => {
    await ensureBuilt();
    db = await createTestDatabase();
    await db.load(baseFixture());
    await db.load({ projects: [{ code: 'demo', name: 'Demo' }] });
    bouncer = await startPgBouncer(db.directUrl, { poolSize: 4, ignoreStartupParameters: null });
  });

  afterAll(async () => {
    await bouncer?.stop();
    await db?.orm.close();
  });

  it('the pooler refuses the parameter (the condition under test)', async () => {
    const client = new pg.Client({ connectionString: bouncer.url, statement_timeout: 1000 });
    client.on('error', () => undefined);
    await expect(client.connect()).rejects.toThrow('unsupported startup parameter: statement_timeout');
    await client.end().catch(() => undefined);
  });

  it('a bounded ORM connects without it, warns once, and the client still bounds a statement', async () => {
    const orm = await initORM({ clientUrl: bouncer.url, bounds: { statementTimeoutMs: 500, acquireTimeoutMs: 3000 } });
    try {
      const warnings = takeOrmWarnings(orm);
      expect(warnings).toHaveLength(1);
      expect(warnings[0].message).toContain(WARNING);
      expect(warnings[0].message).toContain(RESTORING_SETTING);
      expect(takeOrmWarnings(orm)).toEqual([]); // handed out once
      const conn = orm.em.getConnection();
      expect(await conn.execute('select 1 as one')).toEqual([{ one: 1 }]);
      // nothing on the server cancels it, so the client stops waiting after the timeout plus its margin
      const started = Date.now();
      await expect(conn.execute('select pg_sleep(4)')).rejects.toThrow(/timeout/i);
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(500 + CLIENT_READ_MARGIN_MS - 50);
      expect(waited).toBeLessThan(3500);
    } finally {
      await orm.close();
    }
  });

  it('without a pooler the parameter is still sent, and nothing is logged', async () => {
    const orm = await initORM({ clientUrl: db.directUrl, bounds: { statementTimeoutMs: 1500, acquireTimeoutMs: 3000 } });
    try {
      expect(takeOrmWarnings(orm)).toEqual([]);
      expect(await orm.em.getConnection().execute('show statement_timeout')).toEqual([{ statement_timeout: '1500ms' }]);
    } finally {
      await orm.close();
    }
  });

  it('`serve` starts, answers and logs one warning naming the PgBouncer setting', async () => {
    let server: ServeProcess | undefined;
    try {
      server = await startServe(bouncer.url, {
        DATABASE_DIRECT_URL: db.directUrl,
        DATABASE_PREPARED_STATEMENTS: 'false',
        CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
        LOG_LEVEL: 'warn',
      });
      expect((await fetch(`${server.base}/health/ready`)).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${server.base}/v400/en/acme/configs`, { headers: { 'x-api-key': KEYS.server } });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { error: boolean }).error).toBe(false);
      }
      const out = server.output();
      expect(out.split(WARNING).length - 1, out).toBe(1);
      expect(out).toContain(RESTORING_SETTING);
      expect(out).not.toContain('unsupported startup parameter');
    } finally {
      if (server) await stopServe([server]);
    }
  });
});
