import 'reflect-metadata';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { initORM, migrate } from '../src/db/orm.js';
import { loadFixtures } from '../src/fixtures/load.js';
import { credentialCipher } from '../src/platform/dev-key.js';
import { openBenchDatabase } from './database.js';
import { CONNECTIONS, fire, machine, median } from './harness.js';
import { databaseCpu, type Sql } from './outbound.js';
import { startServe, startServer, type BenchServer } from './processes.js';

/**
 * `npm run bench:orders` (also run by `npm run bench` and `npm run bench orders`): CONTRACT §15.8. Each of
 * BENCH_CONNECTIONS (10) connections replaces a conversation's cart (`PUT …/cart`, 3 lines) and places it
 * (`POST …/orders` with the version the PUT answered), over 100 conversations, while 2 more connections read
 * `GET /ai/metrics/overview`. BENCH_PAIRS (3) pairs of BENCH_DURATION (10) s, each beside a run of the commit floor
 * (bench/baseline.ts `POST /floor/:id`, one durable statement) at the same connections: orders/s, its ratio to the
 * floor's req/s, p99 of the PUT+POST requests and of the overview, and CPU per order of `serve` and of PostgreSQL
 * (the bench database's backends). Targets: ≥ 400 orders/s (≥ 0.2 of the floor), both p99 ≤ 50 ms.
 */
const PROJECT = 'bench-orders';
const KEY = 'bench-orders-server-key-0123456789';
const CONVERSATIONS = 100;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const WARMUP = 20;
const ENGINES = (process.env.BENCH_ENGINES ?? 'mercurius').split(',');

interface OrdersRun {
  orders: number;
  ordersPerSecond: number;
  p99: number;
  overviewP99: number;
  serveMsPerOrder: number;
  pgMsPerOrder: number;
  bad: number;
}

async function seed(url: string): Promise<void> {
  const orm = await initORM({ clientUrl: url, poolMax: 2 });
  try {
    await migrate(orm);
    await orm.em.getConnection().execute(`delete from projects where code = ?`, [PROJECT]);
    await loadFixtures(
      orm,
      {
        projects: [
          {
            code: PROJECT,
            name: 'Bench orders',
            ai_enabled: true,
            businesses: [{ id: 960_001, name: 'Pizzeria', currency: 'EUR', delivery_price: 2.5, tax_rate: 10 }],
            products: Array.from({ length: 20 }, (_, i) => ({
              id: 960_001 + i,
              business_id: 960_001,
              name: `Pizza ${i}`,
              price: 8 + i / 4,
              retailer_id: `pizza-${i}`,
            })),
            agents: [
              {
                id: 960_001,
                business_id: 960_001,
                name: 'Bot',
                provider: 'whatsapp',
                provider_type: 'chat',
                provider_external_id: 'orders-bot',
                enabled: true,
              },
            ],
            conversations: Array.from({ length: CONVERSATIONS }, (_, i) => ({
              id: 960_001 + i,
              agent_id: 960_001,
              business_id: 960_001,
              status: 'active',
              contact: `3460${String(i).padStart(7, '0')}`,
              created_at: new Date().toISOString(),
            })),
            api_keys: [{ key: KEY, server: true }],
          },
        ],
      },
      credentialCipher(loadConfig().credentialsKey),
    );
  } finally {
    await orm.close();
  }
}

/** One measured run: the PUT+POST loop at CONNECTIONS and the overview at 2, at once. */
async function ordersRun(serve: BenchServer, sql: Sql, seconds: number): Promise<OrdersRun> {
  let next = 0;
  let turn = 0;
  const headers = { 'content-type': 'application/json', 'x-api-key': KEY };
  const base = `/v400/en/${PROJECT}/ai/conversations`;
  const pg = await databaseCpu(sql);
  const pg0 = await pg.cpu();
  const cpu0 = serve.cpuMs();
  const loop = autocannon({
    url: serve.origin,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: 'PUT',
        headers,
        setupRequest: (req: any, context: any) => {
          context.conversation = 960_001 + (next++ % CONVERSATIONS);
          const n = turn++;
          const lines = [0, 1, 2].map((k) => ({ product_id: 960_001 + ((n + k * 7) % 20), quantity: 1 + ((n + k) % 3) }));
          return {
            ...req,
            path: `${base}/${context.conversation}/cart`,
            body: JSON.stringify({ business_id: 960_001, delivery_type: 2, lines }),
          };
        },
        onResponse: (status: number, body: string, context: any) => {
          context.version = status === 200 ? (JSON.parse(body) as { result: { version: number } }).result.version : 0;
        },
      },
      {
        method: 'POST',
        headers,
        setupRequest: (req: any, context: any) => ({
          ...req,
          path: `${base}/${context.conversation}/orders`,
          body: JSON.stringify({ cart_version: context.version, paymethod: 'cash' }),
        }),
      },
    ],
  });
  // BENCH_OVERVIEW=0: the placing alone, to tell its own CPU per order from what the overview's readers add
  const overview =
    process.env.BENCH_OVERVIEW === '0'
      ? null
      : autocannon({
          url: `${serve.origin}/v400/en/${PROJECT}/ai/metrics/overview`,
          headers: { 'x-api-key': KEY },
          connections: 2,
          duration: seconds,
          timeout: 10,
        });
  const [r, o] = await Promise.all([loop, overview ?? Promise.resolve(null)]);
  const serveMs = serve.cpuMs() - cpu0;
  const pgMs = await pg.since(pg0);
  const orders = Math.floor((r['2xx'] ?? 0) / 2);
  return {
    orders,
    ordersPerSecond: orders / seconds,
    p99: r.latency.p99,
    overviewP99: o?.latency.p99 ?? NaN,
    serveMsPerOrder: serveMs / Math.max(1, orders),
    pgMsPerOrder: pgMs / Math.max(1, orders),
    bad: r.non2xx + r.errors + r.timeouts + (o ? o.non2xx + o.errors + o.timeouts : 0),
  };
}

async function main(): Promise<void> {
  const db = await openBenchDatabase();
  const orm = await initORM({ clientUrl: db.url, poolMax: 2 });
  const sql: Sql = (text, params = []) => orm.em.getConnection().execute(text, params, 'all');
  const baseline = await startServer(path.join(__dirname, 'baseline.js'), [], { ...process.env, DATABASE_URL: db.url }, '/health');
  const floor = {
    name: 'commit floor',
    method: 'POST' as const,
    path: '/floor/1',
    body: JSON.stringify({ role: 'assistant', content: 'An order placed: 3 pizzas, pickup.' }),
    rotate: Array.from({ length: 200 }, (_, i) => ({ path: `/floor/${i + 1}` })),
  };
  try {
    await seed(db.url);
    // PostgreSQL's time per function (the metrics triggers among them), printed after the runs
    await sql(`select set_config('track_functions', 'all', false)`);
    await sql(`do $$ begin execute format('alter database %I set track_functions = ''all''', current_database()); end $$`);
    await sql('select pg_stat_reset()');
    for (const engine of ENGINES) {
      const serve = await startServe({ ...process.env, DATABASE_URL: db.url, GRAPHQL_ENGINE: engine, LOG_LEVEL: 'warn' });
      try {
        await ordersRun(serve, sql, WARMUP);
        await fire(baseline, floor, 5);
        const runs: OrdersRun[] = [];
        const floors: { rps: number; p99: number }[] = [];
        for (let i = 0; i < PAIRS; i++) {
          const a = await ordersRun(serve, sql, DURATION);
          const f = await fire(baseline, floor, DURATION);
          runs.push(a);
          floors.push(f);
          console.log(
            `${engine} orders: ${a.ordersPerSecond.toFixed(0)}/s, p99 ${a.p99} ms, overview p99 ${a.overviewP99} ms, serve ${a.serveMsPerOrder.toFixed(2)} ms/order, PostgreSQL ${a.pgMsPerOrder.toFixed(2)} ms/order, bad ${a.bad} | floor ${f.rps.toFixed(0)} req/s, p99 ${f.p99} ms | ratio ${(a.ordersPerSecond / f.rps).toFixed(2)}`,
          );
        }
        const m = (f: (r: OrdersRun) => number) => median(runs.map(f));
        console.log(
          `\n| engine | orders/s | ratio to floor | p99 ms | overview p99 ms | serve CPU ms/order | PostgreSQL CPU ms/order | floor req/s | floor p99 ms | non-2xx |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n| ${engine} | ${m((r) => r.ordersPerSecond).toFixed(0)} | ${median(runs.map((r, i) => r.ordersPerSecond / floors[i].rps)).toFixed(2)} | ${m((r) => r.p99)} | ${m((r) => r.overviewP99)} | ${m((r) => r.serveMsPerOrder).toFixed(2)} | ${m((r) => r.pgMsPerOrder).toFixed(2)} | ${median(floors.map((f) => f.rps)).toFixed(0)} | ${median(floors.map((f) => f.p99))} | ${runs.reduce((n, r) => n + r.bad, 0)} |`,
        );
        if (runs.some((r) => r.bad > 0)) process.exitCode = 1;
      } finally {
        await serve.stop();
      }
    }
    const functions = await sql<{ funcname: string; calls: string; self_ms: number; total_ms: number }>(
      `select funcname, calls, round(self_time::numeric, 1)::float8 as self_ms, round(total_time::numeric, 1)::float8 as total_ms
         from pg_stat_user_functions order by total_time desc limit 12`,
    );
    console.log('\nPostgreSQL functions (whole run, warm-ups included; total ms includes what they call):');
    for (const f of functions) console.log(`  ${f.funcname}: ${f.calls} calls, total ${f.total_ms} ms, self ${f.self_ms} ms`);
    console.log(
      `\nMachine: ${machine()}; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(
          ' ',
        )}; ${DURATION} s per run after ${WARMUP} s of warm-up; ${CONNECTIONS} connections placing, 2 reading the overview; medians of ${PAIRS} pairs.`,
    );
  } finally {
    await baseline.stop();
    await orm.close();
    await db.stop();
  }
}

if (require.main === module)
  main().catch((err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  });
