import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real S3-protocol server (s3rver, files under a temporary folder) on 127.0.0.1:0, with one bucket,
 * for the S3 media store. `startS3Server` resolves null, with the reason, when it cannot start.
 * s3rver keeps multipart uploads but has neither AbortMultipartUpload nor ListMultipartUploads: this
 * server answers both as S3 does, and tells the uploads still incomplete and the objects kept.
 */
export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** The variables a `serve` process needs to use it. */
  env: Record<string, string>;
  close(): Promise<void>;
  /** The keys of the multipart uploads neither completed nor aborted. */
  incompleteUploads(): Promise<string[]>;
  /** The keys of the objects in the bucket. */
  objects(): Promise<string[]>;
}

export async function startS3Server(bucket = 'ordergraph-media'): Promise<LocalS3 | { skip: string }> {
  let S3rver: any;
  try {
    S3rver = createRequire(__filename)('s3rver');
  } catch (err) {
    return { skip: `s3rver is not installed (${(err as Error).message})` };
  }
  const directory = await mkdtemp(join(tmpdir(), 'og-s3-'));
  try {
    const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
    const uploads = join(directory, bucket, '._S3rver_uploads');
    const incomplete = async (): Promise<{ key: string; id: string }[]> => {
      const ids = await readdir(uploads).catch(() => [] as string[]);
      return Promise.all(ids.map(async (id) => ({ id, key: await readFile(join(uploads, id, 'key'), 'utf8').catch(() => `?${id}`) })));
    };
    // AbortMultipartUpload (DELETE /{bucket}/{key}?uploadId=…) and ListMultipartUploads (GET /{bucket}?uploads),
    // ahead of s3rver's router, which refuses them
    server.middleware.unshift(async (ctx: any, next: () => Promise<void>) => {
      const uploadId = ctx.query?.uploadId;
      if (ctx.method === 'DELETE' && typeof uploadId === 'string' && /^[\w-]+$/.test(uploadId)) {
        await rm(join(uploads, uploadId), { recursive: true, force: true });
        ctx.status = 204;
        return;
      }
      if (ctx.method === 'GET' && ctx.path.replace(/\/$/, '') === `/${bucket}` && ctx.query?.uploads !== undefined) {
        const prefix = String(ctx.query.prefix ?? '');
        const xml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
        const listed = (await incomplete()).filter((u) => u.key.startsWith(prefix));
        ctx.type = 'application/xml';
        ctx.body =
          `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
          `<Bucket>${xml(bucket)}</Bucket><Prefix>${xml(prefix)}</Prefix><IsTruncated>false</IsTruncated>` +
          listed.map((u) => `<Upload><Key>${xml(u.key)}</Key><UploadId>${xml(u.id)}</UploadId></Upload>`).join('') +
          `</ListMultipartUploadsResult>`;
        return;
      }
      return next();
    });
    const address = (await server.run()) as AddressInfo;
    const endpoint = `http://127.0.0.1:${address.port}`;
    // s3rver accepts any credentials it is given (S3RVER/S3RVER by default); the SDK needs some
    process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
    return {
      endpoint,
      bucket,
      env: {
        MEDIA_S3_BUCKET: bucket,
        MEDIA_S3_ENDPOINT: endpoint,
        MEDIA_S3_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
      },
      incompleteUploads: async () => (await incomplete()).map((u) => u.key),
      objects: async () => {
        const found: string[] = [];
        const walk = async (dir: string, prefix: string): Promise<void> => {
          for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
            if (e.name === '._S3rver_uploads') continue;
            if (e.isDirectory()) await walk(join(dir, e.name), `${prefix}${e.name}/`);
            else if (e.name.endsWith('._S3rver_object')) found.push(prefix + e.name.slice(0, -'._S3rver_object'.length));
          }
        };
        await walk(join(directory, bucket), '');
        return found.sort();
      },
      close: async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await rm(directory, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(directory, { recursive: true, force: true });
    return { skip: `s3rver could not start (${(err as Error).message})` };
  }
}
