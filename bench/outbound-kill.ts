import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { ensureDatabase } from '../src/db/database.js';
import { withDatabase } from '../src/db/embedded.js';
import { initORM, migrate } from '../src/db/orm.js';
import { openBenchDatabase } from './database.js';
import { post, seed, startProvider, type Sql } from './outbound.js';
import { startServe, type BenchServer } from './processes.js';

/**
 * `npm run bench:outbound-kill [-- BUILD ...]` (issue 46, CONTRACT §10.1: a process that dies costs
 * seconds, not a lease): two `serve` processes of BUILD (`current`, or a `bench:snapshot` name) on
 * a fresh database, BENCH_KILL_CONVERSATIONS (50) WhatsApp conversations, BENCH_KILL_REPLIES (2,000)
 * replies POSTed by 10 clients at about BENCH_KILL_RATE (220) POST/s in all (a client keeps its
 * conversations' replies in order, and moves to the other process when one is gone); once half are
 * answered, one process is SIGKILLed. The fake Cloud API answers in BENCH_PROVIDER_MS (20 ms); the
 * provider deadline is the default 10 s.
 *
 * Prints, for the conversations with replies pending at the kill, the time from the kill to their
 * next provider request (held: those that waited more than 1 s, the dead process's), the longest
 * time the provider heard nothing after the kill, and the replies lost (answered 200, never sent),
 * sent out of order, or sent twice (a send the dead process made and had not recorded).
 */
const REPLIES = Number(process.env.BENCH_KILL_REPLIES ?? 2000);
const CONVERSATIONS = Number(process.env.BENCH_KILL_CONVERSATIONS ?? 50);
const RATE = Number(process.env.BENCH_KILL_RATE ?? 220);
const CLIENTS = 10;

interface Run {
  build: string;
  held: number[];
  others: number[];
  silenceMs: number;
  drainedMs: number;
  lost: number;
  outOfOrder: number;
  duplicates: number;
}

async function main(): Promise<void> {
  const builds = process.argv.slice(2);
  const runs: Run[] = [];
  for (const build of builds.length ? builds : ['current']) runs.push(await killRun(build));
  console.log(
    `\n${REPLIES} replies, ${CONVERSATIONS} conversations, ${CLIENTS} clients at ~${RATE} POST/s, one of two processes SIGKILLed at the middle; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    '| build | held conversations | kill → held resumed (min / median / max) | others resumed (max) | provider silent (max) | kill → outbox drained | lost | out of order | sent twice |\n|---|---:|---|---:|---:|---:|---:|---:|---:|',
  );
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  for (const r of runs) {
    const h = [...r.held].sort((x, y) => x - y);
    const held = h.length ? `${s(h[0])} / ${s(h[Math.floor((h.length - 1) / 2)])} / ${s(h.at(-1)!)}` : '—';
    console.log(
      `| ${r.build} | ${h.length} | ${held} | ${s(Math.max(0, ...r.others))} | ${s(r.silenceMs)} | ${s(r.drainedMs)} | ${r.lost} | ${r.outOfOrder} | ${r.duplicates} |`,
    );
    if (r.lost || r.outOfOrder) process.exitCode = 1;
  }
}

async function killRun(build: string): Promise<Run> {
  const server = await openBenchDatabase();
  const name = `og_bench_kill_${randomBytes(3).toString('hex')}`;
  await ensureDatabase(server.url, name);
  const url = withDatabase(server.url, name);
  const orm = await initORM({ clientUrl: url, poolMax: 4 });
  const sql: Sql = (text, params = []) => orm.em.getConnection().execute(text, params, 'all');
  const provider = await startProvider();
  let servers: BenchServer[] = [];
  try {
    await migrate(orm);
    const { conversations, contacts } = await seed(sql, CONVERSATIONS);
    const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', WHATSAPP_API_URL: provider.url };
    servers = await Promise.all([startServe(env, undefined, build), startServe(env, undefined, build)]);
    const victim = servers[0];
    const alive = () => servers.filter((x) => x.child.exitCode === null && x.child.signalCode === null);

    let answered = 0;
    let killedAt = 0;
    let pendingAtKill: number[] = [];
    const posted = new Map<number, number>(); // conversation → replies answered 200
    const kill = async () => {
      killedAt = performance.now();
      victim.child.kill('SIGKILL');
      await new Promise((r) => victim.child.once('exit', r));
      const rows = await sql<{ c: number }>("select distinct conversation_id as c from ai_message_sends where status = 'pending'");
      pendingAtKill = rows.map((r) => Number(r.c));
    };
    let killing: Promise<void> | undefined;
    const t0 = performance.now();
    const intervalMs = (1000 * CLIENTS) / RATE;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, k) => {
        const mine = conversations.filter((_, i) => i % CLIENTS === k);
        for (let i = 0; i < REPLIES / CLIENTS; i++) {
          const wait = t0 + i * intervalMs - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const c = mine[i % mine.length];
          const seq = posted.get(c) ?? 0;
          for (let tries = 0; ; tries++) {
            const live = alive();
            try {
              const res = await post(live[(i + k + tries) % live.length].origin, c, `kill c${c} m${seq}`);
              await res.arrayBuffer();
              if (res.status === 200) break;
            } catch {
              // the process died under this request: the reply is posted again to the other
            }
            if (tries > 20) throw new Error('a reply could not be posted');
          }
          posted.set(c, seq + 1);
          if (++answered === REPLIES / 2) killing = kill();
        }
      }),
    );
    await killing;
    for (;;) {
      const [{ n }] = await sql<{ n: number }>("select count(*)::int as n from ai_message_sends where status = 'pending'");
      if (n === 0) break;
      if (performance.now() - killedAt > 180_000) throw new Error(`${n} sends still pending 180 s after the kill`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const drainedMs = performance.now() - killedAt;

    const requests = provider.requests;
    const contactOf = new Map(conversations.map((c, i) => [c, contacts[i]]));
    const resumed = pendingAtKill.map((c) => {
      const next = requests.find((r) => r.at > killedAt && r.to === contactOf.get(c));
      return next ? next.at - killedAt : Infinity;
    });
    const after = requests.filter((r) => r.at > killedAt).map((r) => r.at);
    let silenceMs = after.length ? after[0] - killedAt : 0;
    for (let i = 1; i < after.length; i++) silenceMs = Math.max(silenceMs, after[i] - after[i - 1]);
    const bodies = new Set(requests.map((r) => r.body));
    let lost = 0;
    for (const [c, n] of posted) for (let m = 0; m < n; m++) if (!bodies.has(`kill c${c} m${m}`)) lost++;
    const outOfOrder = conversations.filter((c) => {
      const seqs = requests.filter((r) => r.to === contactOf.get(c)).map((r) => Number(r.body.split(' m')[1]));
      // a send of m after any send of a later reply
      return seqs.some((m, i) => seqs.slice(0, i).some((earlier) => earlier > m));
    }).length;
    const run: Run = {
      build,
      held: resumed.filter((ms) => ms > 1000),
      others: resumed.filter((ms) => ms <= 1000),
      silenceMs,
      drainedMs,
      lost,
      outOfOrder,
      duplicates: requests.length - bodies.size,
    };
    console.log(
      `${build}: ${answered} replies answered, ${requests.length} provider requests; ${pendingAtKill.length} conversations pending at the kill, ${run.held.length} held (resumed after ${run.held.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s)`,
    );
    return run;
  } finally {
    // the killed one has exited already (its `stop` would wait for an exit that came)
    await Promise.all(servers.filter((x) => x.child.exitCode === null && x.child.signalCode === null).map((x) => x.stop()));
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

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
