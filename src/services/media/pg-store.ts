import { Readable } from 'node:stream';
import type { MikroORM } from '@mikro-orm/postgresql';
import { runStatement } from '../../db/direct-read.js';
import { aborted, ByteMeter, type MediaObject, type MediaStore, type MediaWriteOptions } from './store.js';

/** The size of one row of ai_media_chunks (every row but the last is exactly this long, so a range finds its rows by arithmetic). */
export const CHUNK_BYTES = 256 * 1024;
/** Rows read per statement when serving. */
const ROWS_PER_READ = 4;

/**
 * Files in PostgreSQL, as fixed-size rows of `ai_media_chunks` (every node and the embedded database
 * see them), keyed by the file and the attempt that wrote them (store.ts's MediaObject). A write holds
 * at most one row's bytes beyond what the socket has given it; each row is its own statement (no
 * transaction open for a file's whole download). A read fetches a few rows at a time as the client
 * takes them; a range reads only its rows.
 */
export class PgMediaStore implements MediaStore {
  readonly kind = 'pg' as const;

  constructor(private readonly orm: MikroORM) {}

  async write(file: MediaObject, body: Readable, opts: MediaWriteOptions): Promise<{ size: number; sha256: string }> {
    const meter = new ByteMeter(opts);
    const stop = aborted(opts.signal, body);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let seq = 0;
    const flush = async (last: boolean) => {
      while (pendingBytes >= CHUNK_BYTES || (last && pendingBytes > 0)) {
        const all = pending.length === 1 ? pending[0] : Buffer.concat(pending);
        const row = all.subarray(0, CHUNK_BYTES);
        const rest = all.subarray(row.length);
        pending = rest.length ? [rest] : [];
        pendingBytes = rest.length;
        await Promise.race([this.putRow(file, seq++, row), stop.promise]);
      }
    };
    try {
      // a retried write of the same attempt (an upload's) starts from nothing
      await this.remove(file);
      for await (const chunk of body) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        meter.add(buf);
        pending.push(buf);
        pendingBytes += buf.length;
        if (pendingBytes >= CHUNK_BYTES) await flush(false);
      }
      if (opts.signal?.aborted) throw opts.signal.reason;
      // the hash is checked before the last row goes in: a file of one row whose bytes are not
      // Meta's never reaches the table, and no attempt's rows are ever a whole wrong file
      const result = meter.finish();
      await flush(true);
      return result;
    } catch (err) {
      body.destroy();
      await this.remove(file).catch(() => undefined);
      throw err;
    } finally {
      stop.off();
    }
  }

  async read(file: MediaObject, range?: { start: number; end: number }): Promise<Readable> {
    const start = range?.start ?? 0;
    const end = range?.end ?? Infinity;
    const first = Math.floor(start / CHUNK_BYTES);
    const last = Number.isFinite(end) ? Math.floor(end / CHUNK_BYTES) : Number.MAX_SAFE_INTEGER;
    const conn = this.orm.em.getConnection();
    async function* rows(): AsyncGenerator<Buffer> {
      for (let from = first; from <= last; from += ROWS_PER_READ) {
        const to = Math.min(last, from + ROWS_PER_READ - 1);
        const batch = await conn.execute<{ seq: number; data: Buffer }[]>(
          'select seq, data from ai_media_chunks where media_id = ? and attempt = ? and seq between ? and ? order by seq',
          [file.id, file.generation ?? 0, from, to],
          'all',
        );
        for (const { seq, data } of batch) {
          const offset = seq * CHUNK_BYTES;
          const a = Math.max(0, start - offset);
          const b = Math.min(data.length, end - offset + 1);
          if (b > a) yield data.subarray(a, b);
        }
        if (batch.length < to - from + 1) return;
      }
    }
    return Readable.from(rows(), { objectMode: false });
  }

  async remove(file: MediaObject): Promise<void> {
    await this.orm.em
      .getConnection()
      .execute('delete from ai_media_chunks where media_id = ? and attempt = ?', [file.id, file.generation ?? 0], 'run');
  }

  async removeOthers(file: MediaObject): Promise<void> {
    await this.orm.em
      .getConnection()
      .execute('delete from ai_media_chunks where media_id = ? and attempt <> ?', [file.id, file.generation ?? 0], 'run');
  }

  /** One row. */
  private async putRow(file: MediaObject, seq: number, data: Buffer): Promise<void> {
    // the bytes as a bind parameter (db/direct-read.ts): the ORM's execute would format them into the
    // SQL text as a hex literal, twice their size, for PostgreSQL to parse back
    await runStatement(
      this.orm.em.getConnection(),
      `insert into ai_media_chunks (media_id, attempt, seq, data) values (?, ?::int, ?::int, ?::bytea)
       on conflict (media_id, attempt, seq) do update set data = excluded.data`,
      [file.id, file.generation ?? 0, seq, data],
    );
  }
}
