import 'reflect-metadata';
import { createHmac, randomBytes } from 'node:crypto';
import os from 'node:os';
import { loadConfig } from '../src/config.js';
import { ensureDatabase } from '../src/db/database.js';
import { withDatabase } from '../src/db/embedded.js';
import { initORM, migrate } from '../src/db/orm.js';
import { credentialCipher } from '../src/platform/dev-key.js';
import { openBenchDatabase } from './database.js';
import { startServe } from './processes.js';

/**
 * `npm run bench:history` (issue 56, CONTRACT §13.3): one `serve` on a fresh database imports
 * BENCH_HISTORY_MESSAGES (100,000) history messages in BENCH_HISTORY_CHUNKS (100) chunks over
 * BENCH_HISTORY_THREADS (2,000) threads, the chunks POSTed through the signed webhook 4 at a time.
 * Prints the import's messages/s (first POST to the last chunk done), the chunk webhooks' p99, a
 * live inbound message's p99 before and during the import, and serve's RSS before and at its highest.
 */
const MESSAGES = Number(process.env.BENCH_HISTORY_MESSAGES ?? 100_000);
const CHUNKS = Number(process.env.BENCH_HISTORY_CHUNKS ?? 100);
const THREADS = Number(process.env.BENCH_HISTORY_THREADS ?? 2000);
/** Chunk POSTs in flight at once (each sends its next as soon as answered), and a pause after each answer. */
const POSTERS = Number(process.env.BENCH_HISTORY_POSTERS ?? 4);
const POST_GAP_MS = Number(process.env.BENCH_HISTORY_POST_GAP_MS ?? 0);
const SECRET = 'bench-history-secret';
const PHONE_ID = 'pn-bench-history';
const BUSINESS = '15550009999';

async function main(): Promise<void> {
  const server = await openBenchDatabase();
  const name = `og_bench_history_${randomBytes(3).toString('hex')}`;
  await ensureDatabase(server.url, name);
  const url = withDatabase(server.url, name);
  const orm = await initORM({ clientUrl: url, poolMax: 2 });
  const sql = <T = Record<string, any>>(text: string, params: unknown[] = []) => orm.em.getConnection().execute<T[]>(text, params, 'all');
  await migrate(orm);
  await sql(`insert into projects (code, name, ai_enabled) values ('bench-history', 'Bench history', true)`);
  const [{ id: projectId }] = await sql<{ id: number }>(`select id from projects where code = 'bench-history'`);
  const cipher = credentialCipher(loadConfig().credentialsKey);
  await sql(
    `insert into ai_agents (project_id, name, provider, provider_type, provider_external_id, enabled, credentials, phone_number_id)
     values (?, 'WA history', 'whatsapp', 'chat', 'wa-history', true, ?, ?)`,
    [projectId, cipher.encrypt({ waba_id: 'waba-history', phone_number_id: PHONE_ID, access_token: 'tok', app_secret: SECRET }), PHONE_ID],
  );
  const serve = await startServe({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' });
  try {
    const hook = `${serve.origin}/v400/en/bench-history/ai/webhooks/whatsapp`;
    const perThread = Math.ceil(MESSAGES / THREADS);
    const threadsPerChunk = Math.ceil(THREADS / CHUNKS);
    const t0 = Math.floor(Date.now() / 1000) - 180 * 86400;
    const body = (c: number) =>
      JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'waba-history',
            changes: [
              {
                field: 'history',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { phone_number_id: PHONE_ID, display_phone_number: BUSINESS },
                  history: [
                    {
                      metadata: {
                        phase: String(Math.floor((c * 3) / CHUNKS)),
                        chunk_order: String(c + 1),
                        progress: String(Math.round(((c + 1) * 100) / CHUNKS)),
                      },
                      threads: Array.from({ length: threadsPerChunk }, (_, k) => {
                        const t = c * threadsPerChunk + k;
                        const phone = `5215${String(t).padStart(8, '0')}`;
                        return {
                          id: phone,
                          messages: Array.from({ length: perThread }, (_, i) => ({
                            id: `wamid.bench.${t}.${i}`,
                            ...(i % 2 ? { from: BUSINESS, to: phone, history_context: { status: 'READ' } } : { from: phone }),
                            timestamp: String(t0 + t * 60 + i * 3600),
                            type: 'text',
                            text: { body: `Mensaje ${i} del hilo ${t}: una pizza margarita y dos refrescos, por favor` },
                          })),
                        };
                      }),
                    },
                  ],
                },
              },
            ],
          },
        ],
      });
    const sign = (raw: string) => `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
    let liveSeq = 0;
    /** One live inbound message (a new contact each), its answer's time in ms. */
    const live = async (): Promise<number> => {
      const n = ++liveSeq;
      const raw = JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'waba-history',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { phone_number_id: PHONE_ID, display_phone_number: BUSINESS },
                  contacts: [{ wa_id: `5216${String(n).padStart(8, '0')}`, profile: { name: `Live ${n}` } }],
                  messages: [
                    {
                      id: `wamid.live.${n}`,
                      from: `5216${String(n).padStart(8, '0')}`,
                      timestamp: String(Math.floor(Date.now() / 1000)),
                      type: 'text',
                      text: { body: 'hola' },
                    },
                  ],
                },
              },
            ],
          },
        ],
      });
      const at = performance.now();
      const res = await fetch(hook, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(raw) },
        body: raw,
      });
      await res.text();
      if (res.status !== 200) throw new Error(`live webhook answered ${res.status}`);
      return performance.now() - at;
    };
    const p99Of = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
    };
    const liveBefore: number[] = [];
    for (let i = 0; i < 200; i++) liveBefore.push(await live());
    const liveDuring: number[] = [];
    let importing = true;
    const liveLoop = (async () => {
      while (importing) {
        liveDuring.push(await live());
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const rssBefore = serve.rssMb();
    let rssMax = rssBefore;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, serve.rssMb())), 100);
    const latencies: number[] = [];
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: POSTERS }, async () => {
        for (let c = next++; c < CHUNKS; c = next++) {
          const raw = body(c);
          const at = performance.now();
          const res = await fetch(hook, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`,
            },
            body: raw,
          });
          await res.text();
          latencies.push(performance.now() - at);
          if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
          if (POST_GAP_MS) await new Promise((r) => setTimeout(r, POST_GAP_MS));
        }
      }),
    );
    const liveWhilePosting = liveDuring.length;
    const posted = (performance.now() - started) / 1000;
    for (;;) {
      const [{ n }] = await sql<{ n: number }>(`select count(*)::int as n from ai_history_chunks where status = 'pending'`);
      if (n === 0) break;
      if (performance.now() - started > 600_000) throw new Error(`${n} chunks pending after 600 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    importing = false;
    await liveLoop;
    clearInterval(sampler);
    const [{ n: stored }] = await sql<{ n: number }>(`select count(*)::int as n from ai_messages where source = 'history'`);
    latencies.sort((a, b) => a - b);
    const p99 = p99Of(latencies);
    console.log(
      `\n${MESSAGES} history messages, ${CHUNKS} chunks, ${THREADS} threads; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `live inbound messages (one at a time, 20 ms apart during the import): p99 ${p99Of(liveBefore).toFixed(0)} ms before (${liveBefore.length}), ${p99Of(liveDuring).toFixed(0)} ms during the import (${liveDuring.length})`,
    );
    const afterPosts = liveDuring.slice(liveWhilePosting);
    console.log(
      `chunks POSTed by ${POSTERS} at once${POST_GAP_MS ? `, ${POST_GAP_MS} ms apart` : ''} in ${posted.toFixed(1)} s; live p99 while they arrived ${p99Of(liveDuring.slice(0, liveWhilePosting)).toFixed(0)} ms (${liveWhilePosting}), after ${afterPosts.length ? p99Of(afterPosts).toFixed(0) : '-'} ms (${afterPosts.length})`,
    );
    console.log(
      '| stored | seconds | messages/s | webhook p50 | webhook p99 | RSS before | RSS max | RSS growth |\n|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    console.log(
      `| ${stored} | ${seconds.toFixed(1)} | ${Math.round(stored / seconds)} | ${latencies[Math.floor(latencies.length / 2)].toFixed(0)} ms | ${p99.toFixed(0)} ms | ${rssBefore.toFixed(0)} MB | ${rssMax.toFixed(0)} MB | ${(rssMax - rssBefore).toFixed(0)} MB |`,
    );
    const problems = serve
      .output()
      .split('\n')
      .filter((l) => l.includes('history'));
    if (problems.length) console.log(`serve logged ${problems.length} history chunk problems, the last:\n${problems.slice(-3).join('\n')}`);
  } finally {
    await serve.stop();
    await orm.close();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
