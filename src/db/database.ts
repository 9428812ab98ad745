import path from 'node:path';
import pg from 'pg';
import type { AppConfig } from '../config.js';
import { startEmbeddedPostgres, withDatabase } from './embedded.js';

export interface OpenDatabase {
  url: string;
  /** For what needs a session of its own (migrations, seeders): DATABASE_DIRECT_URL, else `url`. */
  directUrl: string;
  embedded: boolean;
  stop: () => Promise<void>;
}

export const EMBEDDED_PORT = 54329;
const EMBEDDED_DB = 'ordergraph';

/** DATABASE_URL when set; otherwise an embedded PostgreSQL kept under DATA_DIR (default .data/). */
export async function openDatabase(config: AppConfig, log: (line: string) => void = () => undefined): Promise<OpenDatabase> {
  if (config.databaseUrl) {
    return {
      url: config.databaseUrl,
      directUrl: config.databaseDirectUrl ?? config.databaseUrl,
      embedded: false,
      stop: async () => undefined,
    };
  }
  const port = Number(process.env.EMBEDDED_PG_PORT ?? EMBEDDED_PORT);
  const server = await startEmbeddedPostgres({ dir: path.join(config.dataDir, 'pg'), port, log });
  await ensureDatabase(server.url, EMBEDDED_DB);
  const url = withDatabase(server.url, EMBEDDED_DB);
  return { url, directUrl: url, embedded: true, stop: server.stop };
}

/** Creates a database when it does not exist yet. */
export async function ensureDatabase(serverUrl: string, name: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
      await client.query(`create database ${ident(name)}${template ? ` template ${ident(template)}` : ''}`);
    }
  } finally {
    await client.end();
  }
}
