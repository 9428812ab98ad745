import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  newMediaId,
  normalizeSha256,
  MediaHashMismatch,
  MediaTooLarge,
  PgMediaStore,
  S3MediaStore,
  CHUNK_BYTES,
} from '../../src/services/media/index.js';
import type { MediaStore } from '../../src/services/media/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { startS3Server, type LocalS3 } from '../support/s3-server.js';
import { baseFixture } from '../support/fixtures.js';

/** Bytes arriving in small pieces, as from a socket. */
function trickle(bytes: Buffer, piece = 64 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let i = 0; i < bytes.length; i += piece) yield bytes.subarray(i, i + piece);
    })(),
  );
}

async function collect(r: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of r) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let db: TestDatabase;
let s3: LocalS3 | { skip: string };

beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
  s3 = await startS3Server();
  if ('skip' in s3) console.log(`S3 media store tests skipped: ${s3.skip}`);
});

afterAll(async () => {
  if (s3 && !('skip' in s3)) await s3.close();
  await db.orm.close();
});

/** A media row for the PostgreSQL store's chunks (their foreign key). */
async function mediaRow(): Promise<string> {
  const id = newMediaId();
  await db.sql(
    `insert into ai_media (id, project_id, origin, status) values (?, (select id from projects order by id limit 1), 'upload', 'pending')`,
    [id],
  );
  return id;
}

const stores: [string, () => MediaStore | null][] = [
  ['PostgreSQL', () => new PgMediaStore(db.orm)],
  ['S3', () => ('skip' in s3 ? null : new S3MediaStore({ bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1' }))],
];

describe.each(stores)('the %s media store', (_name, make) => {
  it('stores a file streamed in pieces and serves it whole and by ranges (a range across chunk rows included)', async (t) => {
    const store = make();
    if (!store) return t.skip();
    const bytes = randomBytes(3 * CHUNK_BYTES + 12345);
    const id = await mediaRow();
    const out = await store.write({ id: id }, trickle(bytes), {
      maxBytes: bytes.length,
      expectedSha256: sha(bytes),
      mimeType: 'image/jpeg',
    });
    expect(out).toEqual({ size: bytes.length, sha256: sha(bytes) });
    expect((await collect(await store.read({ id: id }))).equals(bytes)).toBe(true);
    for (const [start, end] of [
      [0, 0],
      [CHUNK_BYTES - 10, CHUNK_BYTES + 10],
      [bytes.length - 65536, bytes.length - 1],
      [5, 2 * CHUNK_BYTES + 7],
    ]) {
      const got = await collect(await store.read({ id: id }, { start, end }));
      expect([start, end, got.length, got.equals(bytes.subarray(start, end + 1))]).toEqual([start, end, end - start + 1, true]);
    }
    await store.remove({ id: id });
  });

  it('keeps nothing of a file over its limit, or whose hash differs', async (t) => {
    const store = make();
    if (!store) return t.skip();
    const bytes = randomBytes(CHUNK_BYTES * 2 + 1);
    const big = await mediaRow();
    await expect(
      store.write({ id: big }, trickle(bytes), { maxBytes: bytes.length - 1, limitName: 'image limit of 5 MB' }),
    ).rejects.toThrow(MediaTooLarge);
    const bad = await mediaRow();
    await expect(
      store.write({ id: bad }, trickle(bytes), { maxBytes: bytes.length, expectedSha256: sha(Buffer.from('other')) }),
    ).rejects.toThrow(MediaHashMismatch);
    if (store.kind === 'pg') {
      const [{ n }] = await db.sql<{ n: string }>('select count(*) as n from ai_media_chunks where media_id in (?, ?)', [big, bad]);
      expect(Number(n)).toBe(0);
    } else {
      await expect(store.read({ id: bad }).then(collect)).rejects.toThrow();
      await expect(store.read({ id: big }).then(collect)).rejects.toThrow();
    }
  });
});

describe.each(stores)('the %s media store and attempts (CONTRACT §12.7)', (_name, make) => {
  it('keeps each attempt’s bytes apart: removing or failing one attempt never touches another’s; removeOthers keeps only the one named', async (t) => {
    const store = make();
    if (!store) return t.skip();
    const id = await mediaRow();
    const first = randomBytes(CHUNK_BYTES + 5);
    const second = randomBytes(CHUNK_BYTES + 9);
    const [a, b, c] = [1, 2, 3].map((generation) => ({ id, generation }));
    await store.write(b, trickle(second), { maxBytes: second.length, expectedSha256: sha(second) });
    await store.write(a, trickle(first), { maxBytes: first.length, expectedSha256: sha(first) });
    // a stale attempt whose bytes fail (too large, wrong hash) or that is removed leaves the other attempt's bytes alone
    await expect(store.write(c, trickle(first), { maxBytes: 10 })).rejects.toThrow(MediaTooLarge);
    await expect(store.write(a, trickle(first), { maxBytes: first.length, expectedSha256: sha(second) })).rejects.toThrow(
      MediaHashMismatch,
    );
    await store.remove(a);
    expect((await collect(await store.read(b))).equals(second)).toBe(true);
    await store.write(a, trickle(first), { maxBytes: first.length });
    await store.removeOthers(b);
    expect((await collect(await store.read(b))).equals(second)).toBe(true);
    if (store.kind === 'pg') {
      const rows = await db.sql<{ attempt: number }>('select distinct attempt from ai_media_chunks where media_id = ?', [id]);
      expect(rows.map((r) => r.attempt)).toEqual([2]);
    } else {
      await expect(store.read(a).then(collect)).rejects.toThrow();
    }
    await store.remove(b);
  });
});

describe('the PostgreSQL store and a file whose hash differs', () => {
  it('never writes a row of a one-row file whose bytes are not Meta’s (the hash is checked before the last row)', async () => {
    // every row ever inserted is logged, even those a failed write deletes again
    await db.sql(`create table chunk_inserts (media_id text not null);
      create function log_chunk_insert() returns trigger language plpgsql as $$
        begin insert into chunk_inserts values (new.media_id); return new; end $$;
      create trigger chunk_inserts_log after insert on ai_media_chunks for each row execute function log_chunk_insert();`);
    try {
      const store = new PgMediaStore(db.orm);
      const small = await mediaRow();
      await expect(
        store.write({ id: small }, trickle(randomBytes(100)), { maxBytes: 1000, expectedSha256: sha(Buffer.from('other')) }),
      ).rejects.toThrow(MediaHashMismatch);
      const bytes = randomBytes(CHUNK_BYTES + 10);
      const two = await mediaRow();
      await expect(
        store.write({ id: two }, trickle(bytes), { maxBytes: bytes.length, expectedSha256: sha(Buffer.from('other')) }),
      ).rejects.toThrow(MediaHashMismatch);
      const logged = await db.sql<{ media_id: string }>('select media_id from chunk_inserts');
      // the two-row file's first row went in as it streamed (then removed); its last, and the one-row file's, never
      expect(logged.map((r) => r.media_id)).toEqual([two]);
    } finally {
      await db.sql('drop trigger chunk_inserts_log on ai_media_chunks; drop function log_chunk_insert(); drop table chunk_inserts;');
    }
  });
});

describe('media ids and hashes', () => {
  it('makes unguessable ids and reads Meta’s sha256 in hex or base64', () => {
    const ids = new Set(Array.from({ length: 1000 }, newMediaId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^med_[A-Za-z0-9_-]{24}$/);
    const digest = createHash('sha256').update('x').digest();
    expect(normalizeSha256(digest.toString('hex').toUpperCase())).toBe(digest.toString('hex'));
    expect(normalizeSha256(digest.toString('base64'))).toBe(digest.toString('hex'));
    expect(normalizeSha256('nope')).toBeNull();
  });
});
