import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { ensureDatabase } from '../src/db/database.js';
import { withDatabase } from '../src/db/embedded.js';
import { initORM, migrate } from '../src/db/orm.js';
import { credentialCipher } from '../src/platform/dev-key.js';
import { sha256 } from '../src/platform/secrets.js';
import { openBenchDatabase } from './database.js';
import { startProvider, type Sql } from './outbound.js';
import { startServe, type BenchServer } from './processes.js';

/**
 * `npm run bench:order-notices` (CONTRACT §15.5): order status moves at 10 connections (autocannon,
 * `POST /ai/orders/{id}/status`, BENCH_DURATION seconds, default 10) over BENCH_ORDERS orders (default 1,000) of as many
 * WhatsApp conversations whose window is open, each move alternating 7 (accepted) and 4 (ready), both with a notice
 * entry: every move adds a notice to the conversation in its transaction, sent by the reply outbox to a local fake
 * Cloud API that answers in BENCH_PROVIDER_MS (default 20 ms). Prints moves/s and the move's own p50/p99, then,
 * once the outbox drained, the notices' time from the move's POST being sent to the provider's request for it
 * (p50, p99), and the notices the provider saw twice or never.
 *
 * Figures measured while other work loads the machine are floors, not the product's capacity.
 */
const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 10;
const SERVER_KEY = 'bench-notices-server-key-0123456789';
const PROJECT = 'bench-notices';
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const p = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;
};

async function main(): Promise<void> {
  const server = await openBenchDatabase();
  const name = `og_bench_notices_${randomBytes(3).toString('hex')}`;
  await ensureDatabase(server.url, name);
  const url = withDatabase(server.url, name);
  const orm = await initORM({ clientUrl: url, poolMax: 4 });
  const provider = await startProvider();
  let serve: BenchServer | undefined;
  const sql: Sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.getConnection().execute<T[]>(text, params, 'all');
  try {
    await migrate(orm);
    const orders = await seed(sql);
    serve = await startServe({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', WHATSAPP_API_URL: provider.url });
    console.log(
      `bench:order-notices, load average ${loadAverage()} (1, 5, 15 min); ${orders.length} orders, ${DURATION} s at ${CONNECTIONS} connections`,
    );

    // the move's POST start, by the tag its reason carries into the notice's text
    const started = new Map<string, number>();
    let i = 0;
    const result = await autocannon({
      url: serve.origin,
      connections: CONNECTIONS,
      duration: DURATION,
      requests: [
        {
          method: 'POST',
          headers: { 'x-api-key': SERVER_KEY, 'content-type': 'application/json' },
          setupRequest: (req: any) => {
            const n = i++;
            const tag = `m${n}`;
            started.set(tag, performance.now());
            return {
              ...req,
              path: `/v400/en/${PROJECT}/ai/orders/${orders[n % orders.length]}/status`,
              body: JSON.stringify({ status: Math.floor(n / orders.length) % 2 ? 4 : 7, reason: tag }),
            };
          },
        },
      ],
    });
    const moved = result['2xx'];
    console.log(
      `moves at ${CONNECTIONS} connections: ${Math.round(result.requests.average)} moves/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
    );

    // every committed notice reaches the provider: wait for the outbox to drain
    const deadline = performance.now() + 120_000;
    for (;;) {
      const [{ n }] = await sql<{ n: number }>(`select count(*)::int as n from ai_message_sends where status = 'pending'`);
      if (n === 0 || performance.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const [{ notices }] = await sql<{ notices: number }>('select count(*)::int as notices from ai_messages where order_id is not null');
    const latencies: number[] = [];
    const seen = new Map<string, number>();
    for (const r of provider.requests) {
      const tag = /\(([^)]+)\)$/.exec(r.body)?.[1];
      if (!tag) continue;
      seen.set(tag, (seen.get(tag) ?? 0) + 1);
      const start = started.get(tag);
      if (start !== undefined && seen.get(tag) === 1) latencies.push(r.at - start);
    }
    const duplicates = [...seen.values()].filter((n) => n > 1).length;
    console.log(
      `notices: ${notices} stored for ${moved} answered moves (a move repeating its order's status stores none), ${latencies.length} reached the provider; move POST start → provider request p50 ${p(latencies, 0.5).toFixed(1)} ms, p99 ${p(latencies, 0.99).toFixed(1)} ms; seen twice ${duplicates}, never ${notices - seen.size}`,
    );
    if (duplicates || notices !== seen.size) process.exitCode = 1;
    console.log(`load average at the end ${loadAverage()}`);
    console.log("(measured on a shared machine while other work runs: floors, not the product's capacity)");
  } finally {
    await serve?.stop();
    provider.close();
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

/** A project with a WhatsApp agent whose notices cover 7 and 4, a server key, and ORDERS orders of as many open-window conversations. */
async function seed(sql: Sql): Promise<number[]> {
  await sql(`insert into projects (code, name, ai_enabled) values ('demo', 'Demo', false), (?, 'Bench notices', true)`, [PROJECT]);
  const [{ id: projectId }] = await sql<{ id: number }>('select id from projects where code = ?', [PROJECT]);
  await sql('insert into api_keys (project_id, server, key_hash, name) values (?, true, ?, ?)', [projectId, sha256(SERVER_KEY), 'bench']);
  const [{ id: businessId }] = await sql<{ id: number }>(
    `insert into businesses (project_id, name, currency) values (?, 'Bench', 'EUR') returning id`,
    [projectId],
  );
  const cipher = credentialCipher(loadConfig().credentialsKey);
  const notices = {
    '7': { text: 'Order {{order}} accepted, {{total}} ({{eta}})', template_id: null, locale: null },
    '4': { text: 'Order {{order}} ready, {{total}} ({{eta}})', template_id: null, locale: null },
  };
  const [{ id: agentId }] = await sql<{ id: number }>(
    `insert into ai_agents (project_id, business_id, name, provider, provider_type, provider_external_id, enabled, credentials, credential_keys,
                            phone_number_id, order_messages)
     values (?, ?, 'WA notices', 'whatsapp', 'chat', 'wa-notices', true, ?, '{access_token,phone_number_id,waba_id}', 'pn-bench', ?::jsonb)
     returning id`,
    [
      projectId,
      businessId,
      cipher.encrypt({ waba_id: 'waba-bench', phone_number_id: 'pn-bench', access_token: 'EAAG-bench-token' }),
      JSON.stringify(notices),
    ],
  );
  const contacts = Array.from({ length: ORDERS }, (_, i) => `3460090${String(i).padStart(5, '0')}`);
  const rows = await sql<{ id: number }>(
    `with c as (
       insert into ai_conversations (project_id, agent_id, business_id, contact, status, usage, last_inbound_at)
       select ?, ?, ?, c, 'active', '{}', now() from unnest(?::text[]) with ordinality as t(c, n) order by n
       returning id)
     insert into orders (project_id, business_id, conversation_id, status, summary, delivery_type, paymethod, currency, history)
     select ?, ?, c.id, 0, '{"subtotal": 9.5, "discount": 0, "delivery_price": 0, "tax": 0, "total": 9.5}', 2, 'cash', 'EUR', '[]' from c order by c.id
     returning id`,
    [projectId, agentId, businessId, `{${contacts.join(',')}}`, projectId, businessId],
  );
  return rows.map((r) => r.id);
}

if (require.main === module)
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
