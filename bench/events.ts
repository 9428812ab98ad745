import http from 'node:http';
import { initORM, migrate } from '../src/db/orm.js';
import { loadFixtures } from '../src/fixtures/load.js';
import { CredentialCipher } from '../src/platform/secrets.js';
import { openBenchDatabase } from './database.js';
import { startServe, type BenchServer } from './processes.js';

/**
 * `npm run bench:events`: BENCH_STREAMS (default 1,000) SSE streams open on one `serve` (A) while
 * customers open conversations at BENCH_WRITES_PER_S (default 50) — each open commits one
 * conversation.created — for BENCH_DURATION seconds (default 10), first through A itself, then
 * through a second `serve` (B) on the same database (LISTEN/NOTIFY, or Redis with REDIS_URL).
 * Commit→arrival is measured on BENCH_SAMPLED streams (default 50; the others only count bytes, so
 * the bench client does not parse 50,000 events a second on a shared machine) against the event's
 * created_at (taken at insert, before the commit: an upper bound). RSS of A: idle, and with the streams.
 */
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const SAMPLED = Math.min(STREAMS, Number(process.env.BENCH_SAMPLED ?? 50));
const RATE = Number(process.env.BENCH_WRITES_PER_S ?? 50);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const KEY = 'evbench-server-key-0123456789';
const CREDENTIALS_KEY = 'bench-credentials-key';
const userKey = (id: number) => `evbench-user-${id}-0123456789`;

async function prepare(url: string, users: number): Promise<void> {
  const orm = await initORM({ clientUrl: url, poolMax: 2 });
  try {
    await migrate(orm);
    const ids = Array.from({ length: users }, (_, i) => 100_001 + i);
    await orm.em.getConnection().execute("delete from ai_conversations where agent_id = 900001");
    await loadFixtures(orm, {
      projects: [
        { code: 'demo', name: 'Demo' },
        {
          code: 'evbench',
          name: 'Events bench',
          ai_enabled: true,
          businesses: [{ id: 900001, name: 'Bench shop' }],
          agents: [{ id: 900001, business_id: 900001, name: 'Bench bot', provider: 'whatsapp', provider_type: 'chat', provider_external_id: 'evbench-bot', enabled: true }],
          users: ids.map((id) => ({ id, name: `U${id}`, email: `u${id}@evbench.test`, level: 3 })),
          api_keys: [{ key: KEY, server: true }, ...ids.map((id) => ({ key: userKey(id), user_id: id }))],
        },
      ],
    }, new CredentialCipher(CREDENTIALS_KEY));
  } finally {
    await orm.close();
  }
}

interface Streams {
  latencies: number[];
  events: number;
  open: number;
  close(): void;
}

/** Opens `n` SSE streams on `origin`; the first `sampled` parse each event's created_at. */
async function openStreams(origin: string, n: number, sampled: number): Promise<Streams> {
  const out: Streams = { latencies: [], events: 0, open: 0, close: () => reqs.forEach((r) => r.destroy()) };
  const reqs: http.ClientRequest[] = [];
  const openOne = (i: number) => new Promise<void>((resolve, reject) => {
    const req = http.get(`${origin}/v400/en/evbench/ai/events`, { headers: { 'x-api-key': KEY }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream ${i}: ${res.statusCode}`));
      out.open++;
      res.setEncoding('utf8');
      let buf = '';
      res.on('data', (chunk: string) => {
        if (i >= sampled) return;
        const now = Date.now();
        buf += chunk;
        let cut: number;
        while ((cut = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          out.events++;
          out.latencies.push(now - Date.parse(JSON.parse(data.slice(6)).created_at));
        }
      });
      res.on('error', () => undefined);
      resolve();
    });
    req.on('error', reject);
    reqs.push(req);
  });
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => openOne(i + k)));
  return out;
}

/** RATE conversation opens a second through `origin` for DURATION seconds; each commits one event. */
async function write(origin: string, firstUser: number): Promise<{ writes: number; failed: number }> {
  let writes = 0;
  let failed = 0;
  const total = RATE * DURATION;
  const started = Date.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(fetch(`${origin}/v400/en/evbench/ai/agents/evbench-bot/conversations/current`, { headers: { 'x-api-key': userKey(firstUser + i) } })
      .then(async (res) => {
        await res.arrayBuffer();
        if (res.ok) writes++;
        else failed++;
      }, () => void failed++));
  }
  await Promise.all(pending);
  return { writes, failed };
}

function pct(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const db = await openBenchDatabase('ordergraph_bench_events');
  const servers: BenchServer[] = [];
  try {
    await prepare(db.url, RATE * DURATION * 2 + 10);
    const env = { ...process.env, DATABASE_URL: db.url, CREDENTIALS_KEY, LOG_LEVEL: 'warn' };
    const [a, b] = await Promise.all([startServe(env), startServe(env)]);
    servers.push(a, b);
    await new Promise((r) => setTimeout(r, 2000));
    const idle = a.rssMb();
    const streams = await openStreams(a.origin, STREAMS, SAMPLED);
    await new Promise((r) => setTimeout(r, 1000));
    const withStreams = a.rssMb();
    console.log(`${streams.open} SSE streams open on A (${SAMPLED} sampled); writes ${RATE}/s for ${DURATION} s; bus: ${process.env.REDIS_URL ? 'Redis' : 'PostgreSQL LISTEN/NOTIFY'}`);

    const rows: string[] = [];
    for (const [label, origin, first] of [['same process (writes through A)', a.origin, 100_001], ['across processes (writes through B)', b.origin, 100_001 + RATE * DURATION]] as const) {
      streams.latencies = [];
      streams.events = 0;
      const { writes, failed } = await write(origin, first);
      await new Promise((r) => setTimeout(r, 1500));
      const expected = writes * SAMPLED;
      rows.push(`${label.padEnd(36)} writes ${writes} (failed ${failed})  arrivals ${streams.events}/${expected}  p50 ${pct(streams.latencies, 50)} ms  p99 ${pct(streams.latencies, 99)} ms  max ${pct(streams.latencies, 100)} ms`);
    }
    const after = a.rssMb();
    console.log(rows.join('\n'));
    console.log(`RSS of A: idle ${idle.toFixed(1)} MB, with ${streams.open} streams ${withStreams.toFixed(1)} MB (+${(withStreams - idle).toFixed(1)}), after the writes ${after.toFixed(1)} MB (+${(after - idle).toFixed(1)})`);
    console.log('(short runs on a shared 2-core machine: other processes disturb the figures)');
    streams.close();
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
