import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureDatabase } from '../../src/db/database.js';
import { startEmbeddedPostgres, withDatabase, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { initORM, migrate } from '../../src/db/orm.js';
import { freePort } from './net.js';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The server for creating and dropping databases (a session of its own): never a pooler. */
    dbServerUrl: string;
    /** The server the application's connections use: DATABASE_URL, or a PgBouncer when TEST_PGBOUNCER=1. */
    dbPooledUrl: string;
    templateDb: string;
  }
}

/**
 * One PostgreSQL for the run: DATABASE_URL's server when set, otherwise an embedded one in a
 * temporary folder. A migrated template database is made once; each test file clones it.
 * Databases are created, migrated and dropped through DATABASE_DIRECT_URL when set (DATABASE_URL
 * may be a transaction pooler); TEST_PGBOUNCER=1 puts a PgBouncer (pool_mode = transaction) in
 * front of the server and every application connection goes through it.
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedDatabase | undefined;
  let tmp: string | undefined;
  let bouncer: PgBouncer | undefined;
  let serverUrl = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL;
  let pooledUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ordergraph-test-'));
    fs.chmodSync(tmp, 0o755);
    embedded = await startEmbeddedPostgres({ dir: path.join(tmp, 'pg'), port: await freePort(), fast: true });
    serverUrl = embedded.url;
  }
  if (process.env.TEST_PGBOUNCER === '1') {
    bouncer = await startPgBouncer(serverUrl);
    pooledUrl = bouncer.url;
    // PgBouncer 1.18 (Debian 12) does not track named prepared statements across server connections
    process.env.DATABASE_PREPARED_STATEMENTS = 'false';
    console.log(
      `TEST_PGBOUNCER=1: application connections go through PgBouncer (pool_mode = transaction) at ${bouncer.url.replace(/:[^:@/]*@/, ':***@')}`,
    );
  }
  const templateDb = `og_template_${process.pid}`;
  await ensureDatabase(serverUrl, templateDb);
  const orm = await initORM({ clientUrl: withDatabase(serverUrl, templateDb) });
  await migrate(orm);
  await orm.close();
  project.provide('dbServerUrl', serverUrl);
  project.provide('dbPooledUrl', pooledUrl || serverUrl);
  project.provide('templateDb', templateDb);

  return async () => {
    await bouncer?.stop();
    await dropDatabases(serverUrl, `og_%_${process.pid}%`);
    await embedded?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  };
}

async function dropDatabases(serverUrl: string, pattern: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query('select datname from pg_database where datname like $1', [pattern]);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
  } finally {
    await client.end();
  }
}
