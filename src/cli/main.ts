import './tracing-preload.js';
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { initORM, migrate } from '../db/orm.js';
import { loadFixtures } from '../fixtures/load.js';
import { getSchema, printSdl } from '../graph/schema.js';
import { credentialCipher } from '../platform/dev-key.js';
import { serve } from '../server.js';
import { backfillCredentialColumns } from '../services/agents/agent-credentials.js';

const USAGE = `usage: ordergraph <command>
  serve [--demo]        start the API (embedded PostgreSQL under .data/ when DATABASE_URL is unset, seeded with
                        the demo project on its first run; --demo seeds it into a DATABASE_URL database too)
  migrate               apply pending migrations
  fixtures load FILE    load a fixture file (idempotent)
  seed-bench [N]        generate a benchmark project with N AI orders and conversations
  schema:write          write schema/schema.graphql from the code
  client:write          write clients/typescript/api.d.ts (the typed client's paths) from /openapi.json`;

/** Runs fn with a migrated database (DATABASE_DIRECT_URL when set: a session of its own), then closes everything. */
async function withDatabase<T>(fn: (orm: Awaited<ReturnType<typeof initORM>>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = await openDatabase(config);
  const orm = await initORM({ clientUrl: db.directUrl });
  try {
    await migrate(orm);
    return await fn(orm);
  } finally {
    await orm.close();
    await db.stop();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      if (rest.some((a) => a !== '--demo')) throw new Error(USAGE);
      return serve({ demo: rest.includes('--demo') });
    case 'migrate':
      await withDatabase(async (orm) => {
        // agents stored before their credential key names had a column (Migration20261125000000)
        const { filled, conflicts } = await backfillCredentialColumns(orm, credentialCipher(loadConfig().credentialsKey));
        console.log(
          `migrations applied${filled || conflicts ? ` (agents: ${filled} filled, ${conflicts} sharing a phone_number_id)` : ''}`,
        );
      });
      return;
    case 'fixtures': {
      if (rest[0] !== 'load' || !rest[1]) throw new Error(USAGE);
      const file = JSON.parse(fs.readFileSync(rest[1], 'utf8'));
      const config = loadConfig();
      const cipher = credentialCipher(config.credentialsKey);
      const { projects } = await withDatabase((orm) => loadFixtures(orm, file, cipher));
      console.log(`loaded ${projects.length} project(s): ${projects.join(', ')}`);
      return;
    }
    case 'seed-bench': {
      const { seedBench } = await import('../bench-data/seed.js');
      await withDatabase((orm) => seedBench(orm, rest));
      return;
    }
    case 'schema:write': {
      const target = path.resolve('schema', 'schema.graphql');
      fs.writeFileSync(target, printSdl(await getSchema()));
      console.log(`wrote ${target}`);
      return;
    }
    case 'client:write': {
      const { clientTypes, openApiDocument } = await import('../rest/openapi/write.js');
      const target = path.resolve('clients', 'typescript', 'api.d.ts');
      fs.writeFileSync(target, await clientTypes(await openApiDocument()));
      console.log(`wrote ${target}`);
      return;
    }
    default:
      console.log(USAGE);
      if (command && command !== 'help') process.exitCode = 1;
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
