import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { Readable } from 'node:stream';
import type { MikroORM } from '@mikro-orm/postgresql';
import { newMediaId, PgMediaStore } from '../src/services/media/index.js';
import type { BenchServer } from './processes.js';

/**
 * `npm run bench:outbound`'s part for issue 42 (CONTRACT §12.4–12.5): rich replies and uploads.
 *
 * - The mix: 50 % text, 25 % interactive (buttons), 15 % location, 10 % image by our media_id (the
 *   BENCH_MIX_FILES files in turn, default 4, of 64 KB, uploaded with POST /ai/media first), round robin over
 *   BENCH_MIX_CONVERSATIONS conversations (default 200). bench/outbound.ts drains it and audits it as
 *   the text drain; the provider counts its uploads (one per file is the target, not one per send).
 * - Uploads: POST /ai/media of a BENCH_UPLOAD_MB document (default 100) while `serve`'s RSS is sampled
 *   every 50 ms (target: growth ≤ 32 MB); BENCH_UPLOADS (default 20) concurrent uploads of 5 MB against
 *   the same bytes written to the PostgreSQL store directly from this process (PgMediaStore.write,
 *   the same pool size as `serve`'s, 10), target ≥ 0.5× its MB/s.
 */
const MB = 1024 * 1024;
export const MIX_CONVERSATIONS = Number(process.env.BENCH_MIX_CONVERSATIONS ?? 200);
const MIX_FILES = Number(process.env.BENCH_MIX_FILES ?? 4);
const UPLOAD_MB = Number(process.env.BENCH_UPLOAD_MB ?? 100);
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 20);

type Sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

const BENCH_SIGNATURES: Record<string, string> = { 'application/pdf': '255044462d', 'image/jpeg': 'ffd8ffe0' };

/** POST /ai/media of `size` bytes (a 1 MB block repeated, streamed: never the whole body in memory here), as `mime`. */
export function upload(
  origin: string,
  key: string,
  size: number,
  mime = 'application/pdf',
  progress?: (sent: number) => void,
): Promise<{ status: number; body: any }> {
  const block = randomBytes(Math.min(size, MB));
  // the upload's first bytes must be of its type (CONTRACT §11, third review)
  Buffer.from(BENCH_SIGNATURES[mime] ?? '', 'hex').copy(block);
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.${mime.split('/')[1]}"\r\nContent-Type: ${mime}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* parts(): AsyncGenerator<Buffer> {
    yield head;
    for (let sent = 0; sent < size; sent += block.length) {
      progress?.(sent);
      yield block.subarray(0, Math.min(block.length, size - sent));
    }
    yield tail;
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${origin}/v400/en/bench-outbound/ai/media`,
      {
        method: 'POST',
        headers: {
          'x-api-key': key,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + size + tail.length,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // kept as text
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    Readable.from(parts()).pipe(req);
  });
}

/** MIX_FILES small images uploaded through `serve`: their media ids. */
export async function uploadMixFiles(origin: string, key: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < MIX_FILES; i++) {
    const res = await upload(origin, key, 64 * 1024, 'image/jpeg');
    if (res.status !== 200) throw new Error(`POST /ai/media answered ${res.status}: ${JSON.stringify(res.body)}`);
    ids.push(res.body.result.id);
  }
  return ids;
}

/**
 * Queues `replies` replies of the mix in one transaction (round robin over the conversations; the
 * i-th reply's tag `TAG cC mM` is its text, button body, location name or image caption, so the
 * provider's audit reads order and duplicates from it as for text).
 */
export async function queueMix(
  sql: Sql,
  projectId: number,
  conversations: number[],
  files: string[],
  tag: string,
  replies: number,
): Promise<void> {
  await sql(
    `with r as (
       select i, (?::bigint[])[1 + (i % ?)] as conversation_id, ? || ' c' || (i % ?) || ' m' || (i / ?) as tag, i % 20 as k
         from generate_series(0, ? - 1) as i),
     m as (
       insert into ai_messages (project_id, conversation_id, role, content, public, created_at, delivery_status, type, payload)
       select ?, conversation_id, 'assistant', tag, true, now(), 'pending',
              case when k < 10 then 'text' when k < 15 then 'interactive' when k < 18 then 'location' else 'image' end,
              case when k < 10 then null
                   when k < 15 then jsonb_build_object('type', 'button', 'body', jsonb_build_object('text', tag), 'action',
                     jsonb_build_object('buttons', jsonb_build_array(
                       jsonb_build_object('type', 'reply', 'reply', jsonb_build_object('id', 'yes', 'title', 'Confirm')),
                       jsonb_build_object('type', 'reply', 'reply', jsonb_build_object('id', 'no', 'title', 'Change')))))
                   when k < 18 then jsonb_build_object('latitude', 40.4168, 'longitude', -3.7038, 'name', tag, 'address', 'Calle Mayor 1')
                   else jsonb_build_object('media_id', (?::text[])[1 + ((i / 20) * 2 + k - 18) % ?], 'caption', tag) end
         from r order by i
       returning id, project_id, conversation_id)
     insert into ai_message_sends (message_id, project_id, conversation_id) select id, project_id, conversation_id from m order by id`,
    [
      `{${conversations.join(',')}}`,
      conversations.length,
      tag,
      conversations.length,
      conversations.length,
      replies,
      projectId,
      `{${files.join(',')}}`,
      files.length,
    ],
  );
}

/** The body of a POST …/messages of the mix's i-th reply. */
export function mixBody(i: number, tag: string, files: string[]): Record<string, unknown> {
  const k = i % 20;
  if (k < 10) return { role: 'assistant', content: tag };
  if (k < 15)
    return {
      role: 'assistant',
      type: 'interactive',
      payload: {
        type: 'button',
        body: { text: tag },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'yes', title: 'Confirm' } },
            { type: 'reply', reply: { id: 'no', title: 'Change' } },
          ],
        },
      },
    };
  if (k < 18)
    return { role: 'assistant', type: 'location', payload: { latitude: 40.4168, longitude: -3.7038, name: tag, address: 'Calle Mayor 1' } };
  return { role: 'assistant', type: 'image', payload: { media_id: files[(Math.floor(i / 20) * 2 + k - 18) % files.length], caption: tag } };
}

/** The upload figures: one large document with RSS sampled, then concurrent 5 MB uploads against the store written directly. */
export async function uploadFigures(serve: BenchServer, key: string, orm: MikroORM, sql: Sql, projectId: number): Promise<void> {
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  // a warm start: one upload of a tenth of the size first (the first one's code, buffers and sockets are not the file's), then a short idle
  await upload(serve.origin, key, Math.ceil(UPLOAD_MB / 10) * MB);
  await new Promise((r) => setTimeout(r, 1000));
  const before = serve.rssMb();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, serve.rssMb())), 50);
  // RSS as each quarter of the body has been sent: a file held in memory would grow it by a quarter of the size each time
  const quarters: number[] = [];
  const t0 = performance.now();
  const big = await upload(serve.origin, key, UPLOAD_MB * MB, 'application/pdf', (sent) => {
    if (sent >= ((quarters.length + 1) * UPLOAD_MB * MB) / 4) quarters.push(serve.rssMb());
  });
  const bigS = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, serve.rssMb());
  console.log(
    `uploads: POST /ai/media of a ${UPLOAD_MB} MB document: ${big.status}${big.status === 200 ? `, size ${big.body.result.size}` : ` ${JSON.stringify(big.body)}`} in ${bigS.toFixed(1)} s (${(UPLOAD_MB / bigS).toFixed(0)} MB/s); serve RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB: growth ${(peak - before).toFixed(1)} MB (target ≤ 32 MB); RSS at each quarter sent ${quarters.map((q) => q.toFixed(0)).join(', ')} MB; load average ${load()}`,
  );

  const size = 5 * MB;
  const t1 = performance.now();
  const results = await Promise.all(Array.from({ length: UPLOADS }, () => upload(serve.origin, key, size)));
  const viaServe = (performance.now() - t1) / 1000;
  const failed = results.filter((r) => r.status !== 200);

  // the same bytes written to the store directly (this process, a pool of 10 as serve's)
  const store = new PgMediaStore(orm);
  const ids = Array.from({ length: UPLOADS }, () => newMediaId());
  for (const id of ids)
    await sql(
      `insert into ai_media (id, project_id, origin, status, mime_type, storage, next_attempt_at) values (?, ?, 'upload', 'pending', 'application/pdf', 'pg', null)`,
      [id, projectId],
    );
  const block = randomBytes(MB);
  async function* bytes(): AsyncGenerator<Buffer> {
    for (let sent = 0; sent < size; sent += block.length) yield block.subarray(0, Math.min(block.length, size - sent));
  }
  const t2 = performance.now();
  await Promise.all(ids.map((id) => store.write({ id }, Readable.from(bytes()), { maxBytes: size })));
  const direct = (performance.now() - t2) / 1000;
  await sql(`delete from ai_media where id = any(?::text[])`, [`{${ids.join(',')}}`]);
  const total = (UPLOADS * size) / MB;
  console.log(
    `uploads: ${UPLOADS} concurrent POST /ai/media of 5 MB: ${UPLOADS - failed.length} stored${failed.length ? ` (${failed.length} failed: ${failed.map((f) => f.status).join(',')})` : ''} in ${viaServe.toFixed(1)} s = ${(total / viaServe).toFixed(1)} MB/s; the same bytes written to the store directly: ${direct.toFixed(1)} s = ${(total / direct).toFixed(1)} MB/s; ratio ${(direct / viaServe).toFixed(2)} (target ≥ 0.5); load average ${load()}`,
  );
}
