import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServe, type BenchServer } from './processes.js';

/**
 * (d) of `npm run bench:media` (issue 60, CONTRACT §12.7): a second `serve` whose files go to an S3
 * bucket (s3rver on local disk) through a TCP relay; BENCH_S3_FILES documents (default 20) of
 * BENCH_S3_MB (default 20) in one delivery, and S3 stopped (the relay refuses connections and drops
 * those open) for BENCH_S3_OUTAGE_S (default 30) once part of the bytes went up. Reports when all
 * are stored (target: within 30 s of S3's return), and the bucket against the rows: objects without
 * a stored row, stored rows without their object, incomplete multipart uploads (targets: 0, 0, 0).
 */
export interface OutageInput {
  sql: <T = Record<string, any>>(text: string, params?: unknown[]) => Promise<T[]>;
  env: NodeJS.ProcessEnv;
  /** Delivers the documents through a webhook of the serve given. */
  deliver: (serve: BenchServer, count: number) => Promise<string>;
  log: (line: string) => void;
}

const MB = 1024 * 1024;
const FILES = Number(process.env.BENCH_S3_FILES ?? 20);
const OUTAGE_S = Number(process.env.BENCH_S3_OUTAGE_S ?? 30);
const BUCKET = 'bench-media';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const S3_FILE_MB = Number(process.env.BENCH_S3_MB ?? 20);

export async function s3Outage(input: OutageInput): Promise<void> {
  if (OUTAGE_S <= 0) return;
  let S3rver: any;
  try {
    S3rver = createRequire(__filename)('s3rver');
  } catch {
    return input.log('(d) S3 outage: skipped, s3rver is not installed');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'og-bench-s3-'));
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: BUCKET }] });
  // s3rver keeps multipart uploads but refuses AbortMultipartUpload and ListMultipartUploads: answered here as
  // S3 does (test/support/s3-server.ts does the same)
  const uploads = path.join(dir, BUCKET, '._S3rver_uploads');
  s3.middleware.unshift(async (ctx: any, next: () => Promise<void>) => {
    const uploadId = ctx.query?.uploadId;
    if (ctx.method === 'DELETE' && typeof uploadId === 'string' && /^[\w-]+$/.test(uploadId)) {
      fs.rmSync(path.join(uploads, uploadId), { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'GET' || ctx.path.replace(/\/$/, '') !== `/${BUCKET}` || ctx.query?.uploads === undefined) return next();
    const prefix = String(ctx.query.prefix ?? '');
    const listed = (fs.existsSync(uploads) ? fs.readdirSync(uploads) : [])
      .map((id) => ({ id, key: fs.readFileSync(path.join(uploads, id, 'key'), 'utf8') }))
      .filter((u) => u.key.startsWith(prefix));
    ctx.type = 'application/xml';
    ctx.body =
      `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
      `<Bucket>${BUCKET}</Bucket><IsTruncated>false</IsTruncated>` +
      listed.map((u) => `<Upload><Key>${u.key}</Key><UploadId>${u.id}</UploadId></Upload>`).join('') +
      `</ListMultipartUploadsResult>`;
  });
  const { port: s3Port } = (await s3.run()) as net.AddressInfo;
  const relay = new Relay(s3Port);
  await relay.up();
  let serve: BenchServer | undefined;
  try {
    serve = await startServe({
      ...input.env,
      MEDIA_S3_BUCKET: BUCKET,
      MEDIA_S3_ENDPOINT: `http://127.0.0.1:${relay.port}`,
      MEDIA_S3_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    });
    const started = performance.now();
    const prefix = await input.deliver(serve, FILES);
    const total = FILES * S3_FILE_MB * MB;
    // S3 stops once about a third of the bytes went up, or after 5 s
    while (relay.upBytes < total / 3 && performance.now() - started < 5000) await sleep(20);
    await relay.down();
    const stoppedAt = performance.now();
    const upAtStop = relay.upBytes;
    const before = await counts(input.sql, prefix);
    await sleep(OUTAGE_S * 1000);
    const during = await counts(input.sql, prefix);
    await relay.up();
    const backAt = performance.now();
    let by = await counts(input.sql, prefix);
    while (by.pending && performance.now() - backAt < 600_000) {
      await sleep(100);
      by = await counts(input.sql, prefix);
    }
    const allAt = performance.now();
    // the aborts of uploads S3's outage failed are tried again every 5 s: give them one round
    await sleep(6000);
    const audit = await bucketAudit(input.sql, prefix, dir);
    input.log(
      `(d) S3 stopped for ${OUTAGE_S} s, ${FILES} × ${S3_FILE_MB} MB documents: S3 stopped ${((stoppedAt - started) / 1000).toFixed(1)} s after the delivery (${(upAtStop / MB).toFixed(0)} MB up; ${JSON.stringify(before)}), ${JSON.stringify(during)} at its return; ${JSON.stringify(by)} ${((allAt - backAt) / 1000).toFixed(1)} s after S3 returned (target: all stored within 30 s)`,
    );
    input.log(
      `    bucket against rows: ${audit.objectsWithoutRow} objects without a stored row, ${audit.rowsWithoutObject} stored rows without their object, ${audit.incomplete} incomplete multipart uploads (targets 0, 0, 0); attempts per file ${audit.attempts}`,
    );
  } finally {
    await serve?.stop();
    await relay.down();
    await new Promise<void>((resolve) => s3.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function counts(sql: OutageInput['sql'], prefix: string): Promise<Record<string, number>> {
  const rows = await sql<{ status: string; n: number }>(
    `select a.status, count(*)::int as n from ai_media a join ai_messages m on m.id = a.message_id
      where m.external_id like ? group by a.status`,
    [`${prefix}%`],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** The bucket's objects (s3rver's files) and unfinished uploads against the stored rows. */
async function bucketAudit(
  sql: OutageInput['sql'],
  prefix: string,
  dir: string,
): Promise<{ objectsWithoutRow: number; rowsWithoutObject: number; incomplete: number; attempts: string }> {
  const rows = await sql<{ id: string; status: string; generation: number; attempts: number }>(
    `select a.id, a.status, a.generation, a.attempts from ai_media a join ai_messages m on m.id = a.message_id where m.external_id like ?`,
    [`${prefix}%`],
  );
  const expected = new Set(rows.filter((r) => r.status === 'stored').map((r) => `media/${r.id}${r.generation ? `.${r.generation}` : ''}`));
  const objects: string[] = [];
  const walk = (d: string, p: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === '._S3rver_uploads') continue;
      if (e.isDirectory()) walk(path.join(d, e.name), `${p}${e.name}/`);
      else if (e.name.endsWith('._S3rver_object')) objects.push(p + e.name.slice(0, -'._S3rver_object'.length));
    }
  };
  walk(path.join(dir, BUCKET), '');
  const uploads = path.join(dir, BUCKET, '._S3rver_uploads');
  const incomplete = fs.existsSync(uploads) ? fs.readdirSync(uploads).length : 0;
  const attempts = rows.map((r) => r.attempts).sort((a, b) => a - b);
  return {
    objectsWithoutRow: objects.filter((k) => !expected.has(k)).length,
    rowsWithoutObject: [...expected].filter((k) => !objects.includes(k)).length,
    incomplete,
    attempts: `min ${attempts[0]}, max ${attempts[attempts.length - 1]}`,
  };
}

/**
 * A TCP relay to s3rver that can stop (refuse connections, drop those open) and start again on the
 * same port (the tests' fault proxy, test/support/s3-faults.ts, does more).
 */
class Relay {
  port = 0;
  upBytes = 0;
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly target: number) {}

  async up(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => {
          this.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
        s.on('error', () => undefined);
      }
      client.on('data', (d: Buffer) => void (this.upBytes += d.length));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
