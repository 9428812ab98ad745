import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { ensureDatabase } from '../src/db/database.js';
import { withDatabase } from '../src/db/embedded.js';
import { initORM, migrate } from '../src/db/orm.js';
import { credentialCipher } from '../src/platform/dev-key.js';
import { appendEvents, type NewAiEvent } from '../src/services/events/event-log.js';
import { openBenchDatabase } from './database.js';
import { startServe, type BenchServer } from './processes.js';

/**
 * `npm run bench:webhooks`: BENCH_DELIVERIES (default 10,000) events are appended in one
 * transaction for a project with one webhook (so as many deliveries become due at once), and
 * BENCH_PROCESSES (default 1) real `serve` processes drain the outbox to a local receiver that
 * answers 200. Prints the drain rate (target ≥ 500/s) and checks every delivery id arrived once.
 *
 * A database of its own (created and dropped) on DATABASE_URL's server, else the embedded
 * PostgreSQL of the other benches. WEBHOOK_CONCURRENCY / WEBHOOK_CONCURRENCY_PER_WEBHOOK pass
 * through to `serve`.
 */
async function main(): Promise<void> {
  const total = Number(process.env.BENCH_DELIVERIES ?? 10_000);
  const processes = Number(process.env.BENCH_PROCESSES ?? 1);
  const server = await openBenchDatabase();
  const name = `og_bench_webhooks_${randomBytes(3).toString('hex')}`;
  await ensureDatabase(server.url, name);
  const url = withDatabase(server.url, name);
  const orm = await initORM({ clientUrl: url, poolMax: 4 });
  const servers: BenchServer[] = [];

  // the receiver: counts each delivery id, answers 200
  const seen = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['x-ordergraph-delivery']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  try {
    await migrate(orm);
    const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
      orm.em.getConnection().execute<T[]>(text, params, 'all');
    await sql(`insert into projects (code, name) values ('demo', 'Demo'), ('bench-webhooks', 'Bench webhooks')`);
    const [{ id: projectId }] = await sql<{ id: number }>(`select id from projects where code = 'bench-webhooks'`);
    const cipher = credentialCipher(loadConfig().credentialsKey);
    await sql('insert into ai_webhooks (project_id, url, events, secret) values (?, ?, ?::jsonb, ?)', [
      projectId,
      receiverUrl,
      '["*"]',
      cipher.encrypt('whsec_bench'),
    ]);

    const env = {
      ...process.env,
      DATABASE_URL: url,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
      WEBHOOK_POLL_MS: process.env.WEBHOOK_POLL_MS ?? '100',
    };
    for (let i = 0; i < processes; i++) servers.push(await startServe(env));

    const events: NewAiEvent[] = Array.from({ length: total }, (_, i) => ({
      type: 'message.created',
      data: { id: i + 1, conversation_id: 1, role: 'user', content: `message ${i + 1}`, public: true },
      agent_id: null,
      business_id: null,
    }));
    await orm.em.fork().transactional((tx) => appendEvents(tx, projectId, events));
    const started = process.hrtime.bigint();
    const [{ n: enqueued }] = await sql<{ n: number }>('select count(*)::int as n from ai_webhook_deliveries');

    let delivered = 0;
    for (;;) {
      [{ n: delivered }] = await sql<{ n: number }>(`select count(*)::int as n from ai_webhook_deliveries where status = 'delivered'`);
      if (delivered >= enqueued) break;
      if (Number(process.hrtime.bigint() - started) / 1e9 > 300) throw new Error(`only ${delivered} of ${enqueued} delivered after 300 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const [{ n: retried }] = await sql<{ n: number }>('select count(*)::int as n from ai_webhook_deliveries where attempts > 1');
    const twice = [...seen.values()].filter((n) => n > 1).length;
    console.log(
      `webhooks: ${enqueued} deliveries drained by ${processes} serve process(es) in ${seconds.toFixed(2)} s = ${Math.round(enqueued / seconds)}/s (target ≥ 500/s)`,
    );
    console.log(`  receiver saw ${seen.size} delivery ids (${twice} more than once); ${retried} needed a retry`);
    console.log('  (measured on a shared machine while other work runs: a floor, not a ceiling)');
    if (seen.size !== enqueued) process.exitCode = 1;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    receiver.closeAllConnections();
    receiver.close();
    await orm.close();
    const admin = await initORM({ clientUrl: server.url, poolMax: 1 });
    await admin.em
      .getConnection()
      .execute(`drop database if exists ${name} with (force)`)
      .catch(() => undefined);
    await admin.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
