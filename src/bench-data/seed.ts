import type { MikroORM } from '@mikro-orm/postgresql';
import { COMPACT_LOCK_CLASS } from '../db/migrations/Migration20261125000400_metrics_deltas.js';
import { loadFixtures } from '../fixtures/load.js';
import type { FixtureFile } from '../fixtures/types.js';
import { loadConfig } from '../config.js';
import { credentialCipher } from '../platform/dev-key.js';

/**
 * `ordergraph seed-bench [N]`: the `bench-metrics` project with N AI orders (2–4 lines each)
 * and N conversations over the 13 months before the project's creation hour.
 *
 * - Deterministic: every value of row i comes from `hashint8extended(i, salt)` (seeded by
 *   SEED), and the time anchor is the project's creation hour, so a resumed or repeated run
 *   produces the same rows.
 * - Batched: one `insert … select from generate_series` statement per batch of 10,000 rows
 *   (conversations → orders → lines chained through data-modifying CTEs), one transaction each.
 * - Resumable / idempotent: row i carries its sequence number (`summary.seq`, `usage.seq`);
 *   a run continues after the highest committed one and does nothing when N already exist.
 * - The metrics triggers are switched off for the seeder's own transactions
 *   (`session_replication_role = replica`, when the role may) and the project's rollups are then
 *   rebuilt in one set-based pass, equal to what the triggers produce (the property test checks
 *   that the rebuild and the triggers agree).
 */
export const BENCH_PROJECT = 'bench-metrics';
export const BENCH_SERVER_KEY = 'bench-metrics-server-key-0123456789';
export const DEFAULT_BENCH_ORDERS = 1_000_000;
const SEED = 20261121;
const BATCH = 10_000;
const ID_BASE = 900_000;
const BUSINESSES = 10;
const PRODUCTS_PER_BUSINESS = 50;
const AGENTS = [
  ['whatsapp', 'chat'],
  ['whatsapp', 'voice'],
  ['instagram', 'chat'],
  ['messenger', 'chat'],
  ['web', 'chat'],
  ['phone', 'voice'],
] as const;

export function benchFixture(): FixtureFile {
  return {
    projects: [
      {
        code: BENCH_PROJECT,
        name: 'Bench metrics',
        ai_enabled: true,
        businesses: Array.from({ length: BUSINESSES }, (_, b) => ({
          id: ID_BASE + b + 1,
          name: `Bench business ${b + 1}`,
          // Franchise 1: businesses 1–5; 6–10 have none.
          ...(b < 5 ? { franchise_id: ID_BASE + 1 } : {}),
        })),
        users: [
          {
            id: ID_BASE + 1,
            name: 'Bench owner',
            email: 'owner@bench-metrics.test',
            password: 'bench-metrics-password',
            level: 2,
            business_ids: [ID_BASE + 1],
          },
        ],
        api_keys: [
          { key: BENCH_SERVER_KEY, server: true },
          { key: `${BENCH_SERVER_KEY}-owner`, user_id: ID_BASE + 1 },
        ],
        agents: AGENTS.map(([provider, provider_type], a) => ({
          id: ID_BASE + a + 1,
          name: `${provider} ${provider_type}`,
          provider,
          provider_type,
          provider_external_id: `bench-${provider}-${provider_type}`,
          enabled: true,
        })),
      },
    ],
  };
}

function progressBar(label: string, done: number, total: number, startedAt: number): void {
  const width = 30;
  const ratio = total === 0 ? 1 : done / total;
  const filled = Math.round(ratio * width);
  const secs = (Date.now() - startedAt) / 1000;
  const eta = ratio > 0 ? (secs / ratio) * (1 - ratio) : 0;
  process.stderr.write(
    `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(1).padStart(5)}% ${done}/${total} ${secs.toFixed(1)}s eta ${eta.toFixed(0)}s  `,
  );
}

/** One batch: rows [from, to] of conversations, orders and their lines. */
const BATCH_SQL = `
with s as (
  select i,
    anchor - make_interval(secs => abs(hashint8extended(i, :seed + 1)) % (395 * 86400)) t,
    (abs(hashint8extended(i, :seed + 2)) % ${BUSINESSES})::int bix,
    (abs(hashint8extended(i, :seed + 3)) % ${AGENTS.length})::int aix,
    abs(hashint8extended(i, :seed + 4)) % 100 r,
    abs(hashint8extended(i, :seed + 5)) % 500 cost_cents,
    abs(hashint8extended(i, :seed + 6)) % 100 rt_present,
    200 + abs(hashint8extended(i, :seed + 7)) % 5000 rt,
    abs(hashint8extended(i, :seed + 8)) % 1800 delay,
    (array[0, 1, 1, 1, 2, 3, 5, 11, 15, 16])[1 + abs(hashint8extended(i, :seed + 9)) % 10] ostatus,
    500 + abs(hashint8extended(i, :seed + 10)) % 20000 total_cents,
    2 + abs(hashint8extended(i, :seed + 11)) % 3 nlines
  from generate_series(:from::int, :to::int) i,
       (select date_trunc('hour', created_at) anchor from projects where id = :project) p
),
c as (
  insert into ai_conversations (project_id, agent_id, business_id, status, status_reason, usage, created_at, closed_at, updated_at, last_message_at)
  select :project, ${ID_BASE} + 1 + aix, ${ID_BASE} + 1 + bix, 'closed',
    case when r < 60 then 'completed' when r < 85 then 'abandoned' else 'failed' end,
    case when rt_present < 90
      then jsonb_build_object('cost', cost_cents / 100.0, 'response_time_ms', rt, 'input_tokens', rt * 3, 'output_tokens', rt, 'seq', i)
      else jsonb_build_object('cost', cost_cents / 100.0, 'seq', i) end,
    t, t, t, t
  from s
  returning id, (usage ->> 'seq')::int seq
),
o as (
  insert into orders (project_id, business_id, conversation_id, status, summary, created_at, updated_at)
  select :project, ${ID_BASE} + 1 + s.bix, c.id, s.ostatus, jsonb_build_object('total', s.total_cents / 100.0, 'seq', s.i),
    least(s.t + make_interval(secs => s.delay), (select date_trunc('hour', created_at) from projects where id = :project)),
    s.t
  from s join c on c.seq = s.i
  returning id, (summary ->> 'seq')::int seq
)
insert into order_products (project_id, order_id, product_id, name, quantity, price)
select :project, o.id, ${ID_BASE} + s.bix * ${PRODUCTS_PER_BUSINESS} + l.pix + 1, 'Product ' || (s.bix * ${PRODUCTS_PER_BUSINESS} + l.pix + 1),
  1 + abs(hashint8extended(s.i * 8 + l.k, :seed + 13)) % 4, (100 + (l.pix * 37) % 2000) / 100.0
from o join s on s.i = o.seq
cross join lateral (
  select k, (abs(hashint8extended(s.i * 8 + k, :seed + 12)) % ${PRODUCTS_PER_BUSINESS})::int pix from generate_series(1, s.nlines) k
) l`;

/**
 * The project's rollups from scratch, set-based: the same rows the triggers maintain (see
 * Migration20261121000400_metrics). Used after a bulk load with the triggers off.
 */
export const REBUILD_SQL = [
  'delete from metrics_order_rollup where project_id = :project',
  'delete from metrics_product_rollup where project_id = :project',
  'delete from metrics_conversation_rollup where project_id = :project',
  'delete from metrics_conversation_delta where project_id = :project',
  'delete from metrics_order_delta where project_id = :project',
  'delete from metrics_product_delta where project_id = :project',
  'delete from metrics_order_state where project_id = :project',
  `insert into metrics_order_state (order_id, project_id, business_id, created_at, agent_id, status_group, total)
   select o.id, o.project_id, coalesce(o.business_id, 0), o.created_at, c.agent_id, metrics_status_group(o.status),
          coalesce(metrics_num(o.summary -> 'total'), 0)
   from orders o join ai_conversations c on c.id = o.conversation_id where o.project_id = :project`,
  `insert into metrics_order_rollup (project_id, grain, bucket, business_id, agent_id, status_group, orders, revenue)
   select s.project_id, g.grain, g.bucket, s.business_id, s.agent_id, s.status_group, count(*), sum(s.total)
   from metrics_order_state s
   cross join lateral metrics_buckets(s.created_at) g
   where s.project_id = :project
   group by 1, 2, 3, 4, 5, 6`,
  `insert into metrics_product_rollup (project_id, grain, bucket, business_id, product_id, name, times_sold, orders, revenue)
   select s.project_id, g.grain, g.bucket, s.business_id, x.pid, x.name, sum(x.q), count(*), sum(x.rev)
   from (
     select op.order_id, coalesce(op.product_id, 0) pid, op.name, sum(op.quantity) q, sum(op.quantity * op.price) rev
     from order_products op join metrics_order_state s0 on s0.order_id = op.order_id
     where s0.project_id = :project
     group by 1, 2, 3
   ) x
   join metrics_order_state s on s.order_id = x.order_id
   cross join lateral metrics_buckets(s.created_at) g
   group by 1, 2, 3, 4, 5, 6`,
  `insert into metrics_conversation_rollup (project_id, grain, bucket, business_id, agent_id, state, conversations, cost, rt_sum, rt_count)
   select c.project_id, g.grain, g.bucket, c.business_id, c.agent_id, c.state, count(*), sum(c.cost), sum(coalesce(c.rt, 0)), count(c.rt)
   from (
     select project_id, coalesce(business_id, 0) business_id, created_at, agent_id, metrics_conv_state(status, status_reason) state,
            coalesce(metrics_num(usage -> 'cost'), 0) cost, metrics_num(usage -> 'response_time_ms') rt
     from ai_conversations where project_id = :project
   ) c
   cross join lateral metrics_buckets(c.created_at) g
   group by 1, 2, 3, 4, 5, 6`,
];

/** Rebuilds one project's rollups in one transaction (triggers off for it, when allowed). */
export async function rebuildMetricsRollups(orm: MikroORM, projectId: number): Promise<void> {
  const knex = orm.em.getConnection().getKnex();
  await knex.transaction(async (trx) => {
    // a set-based rebuild of a large project outlasts any request's statement timeout: lift it for this transaction only
    await trx.raw('set local statement_timeout = 0');
    await trx.raw('lock table orders, order_products, ai_conversations in share mode');
    // no compactor folds this project's deltas into the rollups while they are rebuilt
    await trx.raw('select pg_advisory_xact_lock(?, 0)', [COMPACT_LOCK_CLASS]);
    for (const sql of REBUILD_SQL) await trx.raw(...named(sql, { project: projectId }));
  });
}

/** `:name` placeholders (not `::casts`) to knex's positional `?` bindings. */
function named(sql: string, values: Record<string, unknown>): [string, any[]] {
  const params: any[] = [];
  const text = sql.replace(/(?<!:):([a-z_]+)\b/g, (_m, name: string) => {
    if (!(name in values)) throw new Error(`no value for :${name}`);
    params.push(values[name]);
    return '?';
  });
  return [text, params];
}

export interface BenchSeedResult {
  projectId: number;
  orders: number;
  inserted: number;
  seconds: number;
  rebuilt: boolean;
}

/** Creates or completes the bench project up to `n` orders; the bench script calls this too. */
export async function ensureBenchData(orm: MikroORM, n: number, log: (line: string) => void = () => undefined): Promise<BenchSeedResult> {
  const started = Date.now();
  const config = loadConfig();
  await loadFixtures(orm, benchFixture(), credentialCipher(config.credentialsKey));
  const knex = orm.em.getConnection().getKnex();
  const [{ id: projectId }] = (await knex.raw('select id from projects where code = ?', [BENCH_PROJECT])).rows;
  const { rows: seqRows } = await knex.raw("select coalesce(max((summary ->> 'seq')::int), 0) seq from orders where project_id = ?", [
    projectId,
  ]);
  const from = Number(seqRows[0].seq) + 1;
  let triggersOff = true;
  let inserted = 0;
  if (from <= n) {
    log(`seeding ${BENCH_PROJECT}: orders ${from}..${n} (batches of ${BATCH})`);
    const t0 = Date.now();
    for (let start = from; start <= n; start += BATCH) {
      const end = Math.min(n, start + BATCH - 1);
      await knex.transaction(async (trx) => {
        if (triggersOff) {
          try {
            await trx.raw('savepoint srr');
            await trx.raw("set local session_replication_role = 'replica'");
          } catch {
            await trx.raw('rollback to savepoint srr');
            triggersOff = false;
            log('\n(no permission to switch triggers off: the triggers maintain the rollups while seeding)');
          }
        }
        await trx.raw(...named(BATCH_SQL, { seed: SEED, from: start, to: end, project: projectId }));
      });
      inserted += end - start + 1;
      progressBar('seed-bench', end - from + 1, n - from + 1, t0);
    }
    process.stderr.write('\n');
  }
  // Rollups: rebuilt unless they already account for every AI order and conversation.
  const { rows: check } = await knex.raw(
    `select (select count(*) from metrics_order_state where project_id = ?) state_rows,
            (select count(*) from orders where project_id = ? and conversation_id is not null) ai_orders,
            (select coalesce(sum(conversations), 0) from metrics_conversation_rollup where project_id = ? and grain = 1)
              + (select coalesce(sum(conversations), 0) from metrics_conversation_delta where project_id = ?) conv_rolled,
            (select count(*) from ai_conversations where project_id = ?) conversations`,
    [projectId, projectId, projectId, projectId, projectId],
  );
  const c = check[0];
  const rebuilt =
    inserted > 0 && triggersOff ? true : Number(c.state_rows) !== Number(c.ai_orders) || Number(c.conv_rolled) !== Number(c.conversations);
  if (rebuilt) {
    log('rebuilding the metrics rollups of the project (set-based)...');
    const t1 = Date.now();
    await rebuildMetricsRollups(orm, projectId);
    log(`rollups rebuilt in ${((Date.now() - t1) / 1000).toFixed(1)}s`);
    await knex.raw('analyze metrics_order_state, orders, order_products, ai_conversations');
  }
  // Index-only reads of the rollups need a current visibility map (autovacuum keeps it so later).
  await knex.raw(
    'vacuum (analyze) metrics_order_rollup, metrics_product_rollup, metrics_conversation_rollup, metrics_order_series, metrics_conversation_series',
  );
  const { rows: total } = await knex.raw('select count(*) n from orders where project_id = ?', [projectId]);
  return { projectId, orders: Number(total[0].n), inserted, seconds: (Date.now() - started) / 1000, rebuilt };
}

export async function seedBench(orm: MikroORM, args: string[]): Promise<void> {
  const n = args[0] === undefined ? DEFAULT_BENCH_ORDERS : Number(args[0]);
  if (!Number.isInteger(n) || n < 0) throw new Error('usage: ordergraph seed-bench [N] (N: a non-negative integer)');
  const r = await ensureBenchData(orm, n, (line) => process.stderr.write(`${line}\n`));
  console.log(
    `${BENCH_PROJECT}: ${r.orders} orders (${r.inserted} inserted now${r.rebuilt ? ', rollups rebuilt' : ''}) in ${r.seconds.toFixed(1)}s; server key ${BENCH_SERVER_KEY}`,
  );
}
