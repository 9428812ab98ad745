import pg from 'pg';
import { openBenchDatabase } from './database.js';
import { sampleWaits } from './waits.js';

/**
 * `node dist/bench/usage-writes.js [SECONDS] [CLIENTS]`: the statement that fires the conversation
 * metrics trigger, alone (`update ai_conversations … usage`, as `POST /ai/conversations/{id}/messages`
 * runs it), CLIENTS connections (default 10) for SECONDS (default 5), each in its own transaction
 * and on its own conversations of the one agent of `npm run bench`'s writes project
 * (bench/scenarios/conversation-writes.ts: run `npm run bench conversation-writes` once first).
 * Without the HTTP stack and the per-project event lock, what is left is what writers of different
 * conversations share inside PostgreSQL: transactions per second, p99, and pg_stat_activity's waits.
 * DATABASE_URL, else the bench database of `npm run bench`.
 */
const BASE = 51_000_000;
const CONVERSATIONS = 200;

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 5);
  const clients = Number(process.argv[3] ?? 10);
  const db = await openBenchDatabase();
  const latencies: number[] = [];
  let done = false;
  const waits = sampleWaits(db.url);
  const workers = Array.from({ length: clients }, async (_, j) => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    for (let k = 0; !done; k++) {
      const id = BASE + ((j + clients * k) % CONVERSATIONS);
      const t0 = performance.now();
      await c.query('begin');
      await c.query(
        `update ai_conversations set updated_at = now(), usage = usage || jsonb_build_object('cost', coalesce((usage->>'cost')::numeric, 0) + 0.0012)
          where id = $1`,
        [id],
      );
      await c.query('commit');
      latencies.push(performance.now() - t0);
    }
    await c.end();
  });
  await new Promise((r) => setTimeout(r, seconds * 1000));
  done = true;
  await Promise.all(workers);
  const sampled = await waits.stop();
  await db.stop();
  if (!latencies.length) throw new Error('no write completed');
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))].toFixed(1);
  console.log(`${clients} clients, ${seconds} s: ${(latencies.length / seconds).toFixed(0)} tx/s, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms`);
  console.log(sampled);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
