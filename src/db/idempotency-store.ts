import type { MikroORM } from '@mikro-orm/postgresql';
import { runStatement } from './direct-read.js';

/**
 * The idempotency keys of CONTRACT §9.2 in PostgreSQL (table idempotency_keys), shared by every
 * process. Plain autocommit statements: they work the same through a transaction-mode pooler.
 */
export interface IdempotencyScope {
  projectId: number;
  /** `u:USER_ID` (a session or any of the user's keys) or `k:API_KEY_ID` (a server key). */
  caller: string;
  key: string;
}

export interface IdempotencyRequest extends IdempotencyScope {
  method: string;
  path: string;
  /** The request body as JSON text, or null for none; compared structurally (jsonb). */
  body: string | null;
}

export type Claim = { kind: 'claimed' } | { kind: 'reused' } | { kind: 'running' } | { kind: 'done'; status: number; response: string };

/** How long a key stays "running" when the process that claimed it died mid-request. */
export const LEASE_SECONDS = 60;
export const RETENTION_HOURS = 24;

export class IdempotencyStore {
  constructor(private readonly orm: MikroORM) {}

  /** An autocommit statement with bind parameters (direct-read.ts runStatement), on a connection of its own. */
  private sql<T = Record<string, any>>(text: string, params: unknown[]): Promise<T[]> {
    return runStatement<T>(this.orm.em.getConnection(), text, params);
  }

  /**
   * Claims the key for `token`, or says why not. One statement decides between concurrent
   * requests: the insert wins once; an expired row, or a running row whose lease ran out (its
   * process died) for the same request, is taken over.
   */
  async claim(r: IdempotencyRequest, token: string): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const won = await this.sql(
        `insert into idempotency_keys (project_id, caller, key, method, path, body, token, lease_until, expires_at)
         values (?, ?, ?, ?, ?, ?::jsonb, ?, now() + make_interval(secs => ?), now() + make_interval(hours => ?))
         on conflict (project_id, caller, key) do update
           set method = excluded.method, path = excluded.path, body = excluded.body, token = excluded.token, status = null,
               response = null, lease_until = excluded.lease_until, created_at = now(), expires_at = excluded.expires_at
         where idempotency_keys.expires_at <= now()
            or (idempotency_keys.status is null and idempotency_keys.lease_until <= now()
                and idempotency_keys.method = excluded.method and idempotency_keys.path = excluded.path
                and idempotency_keys.body is not distinct from excluded.body)
         returning token`,
        [r.projectId, r.caller, r.key, r.method, r.path, r.body, token, LEASE_SECONDS, RETENTION_HOURS],
      );
      if (won.length) return { kind: 'claimed' };
      const [row] = await this.sql<{ same: boolean; status: number | null; response: string | null }>(
        `select method = ? and path = ? and body is not distinct from ?::jsonb as same, status, response
           from idempotency_keys where project_id = ? and caller = ? and key = ?`,
        [r.method, r.path, r.body, r.projectId, r.caller, r.key],
      );
      if (!row) continue; // released (a 5xx) between the two statements: claim again
      if (!row.same) return { kind: 'reused' };
      if (row.status === null) return { kind: 'running' };
      return { kind: 'done', status: row.status, response: row.response ?? '' };
    }
    return { kind: 'running' };
  }

  /** Keeps the answer of the claimed request. */
  async complete(s: IdempotencyScope, token: string, status: number, response: string): Promise<void> {
    await this.sql(
      `update idempotency_keys set status = ?, response = ?, lease_until = now()
        where project_id = ? and caller = ? and key = ? and token = ?`,
      [status, response, s.projectId, s.caller, s.key, token],
    );
  }

  /** Forgets the claim (a 5xx answer): the next request with the key runs. */
  async release(s: IdempotencyScope, token: string): Promise<void> {
    await this.sql('delete from idempotency_keys where project_id = ? and caller = ? and key = ? and token = ?', [
      s.projectId,
      s.caller,
      s.key,
      token,
    ]);
  }

  /**
   * Deletes expired keys in batches of `batch` rows found through the expiry index (never a scan
   * of the table), at most `maxBatches` per call; returns how many were deleted.
   */
  async deleteExpired(batch = 500, maxBatches = 20): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      const rows = await this.sql<{ n: number }>(
        `with gone as (
           delete from idempotency_keys where ctid = any(array(
             select ctid from idempotency_keys where expires_at < now() order by expires_at limit ?))
           returning 1)
         select count(*)::int as n from gone`,
        [batch],
      );
      total += rows[0].n;
      if (rows[0].n < batch) break;
    }
    return total;
  }
}
