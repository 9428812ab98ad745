/**
 * What keeps a pooled pg connection in a known state (docs/faults.md).
 *
 * pg's `query_timeout` ("Query read timeout") rejects the caller but leaves the query running on
 * the connection (node-postgres #3399): its `_activeQuery` stays set and anything sent next waits
 * behind it. Returned to the pool, such a connection is handed to the next request, whose
 * statements queue behind the frozen one; a ROLLBACK queued there may itself time out unsent, and
 * the connection goes back to the pool inside an open (later aborted) transaction: "current
 * transaction is aborted" for every request that gets it, until the pool's idle reaper drops it.
 *
 * So: a connection whose query timed out on the client is closed at once (its socket destroyed:
 * whatever is queued behind fails now instead of waiting, and the server ends the backend as soon
 * as it runs again); one whose statement was cancelled (57014, statement_timeout) is marked
 * disposed; and no connection is handed out unless its protocol state is idle outside a
 * transaction with nothing running (`reusable`, the pool's validate on every acquire).
 */

/** pg's Client as far as this module looks at it (its protocol state has no public accessor but the transaction status). */
export interface PgConnection {
  query: (...args: any[]) => any;
  readyForQuery: boolean;
  _activeQuery?: unknown;
  _queryable?: boolean;
  _ending?: boolean;
  _queryQueue?: unknown[];
  getTransactionStatus?: () => string | null;
  connection?: { stream?: { destroy(): void } };
  /** knex's mark: the pool destroys the connection instead of handing it out again. */
  __knex__disposed?: unknown;
  setTypeParser?: (oid: number, format: 'text', parse: (text: string) => unknown) => void;
}

const INT8_OID = 20;

/**
 * `bigint` values (every id since Migration20261202000300, counts, sums) read as JS numbers while they are exact
 * (below 2^53: CONTRACT §16 answers ids as JSON numbers), else as the text pg gives by default.
 */
export function int8Value(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** Reads `bigint` columns of this connection as int8Value does (the pool's afterCreate). */
export function readInt8AsNumbers<T extends PgConnection>(conn: T): T {
  conn.setTypeParser?.(INT8_OID, 'text', int8Value);
  return conn;
}

/** pg's message for its client-side read bound (query_timeout). */
const READ_TIMEOUT = 'Query read timeout';
const QUERY_CANCELED = '57014';

/**
 * Whether the pool may hand this connection out: open, idle ('I': no transaction left open or
 * aborted), nothing running or queued on it. A few property reads on every acquire; no round trip.
 */
export function reusable(conn: PgConnection): boolean {
  if (conn.__knex__disposed || conn._ending || conn._queryable === false) return false;
  if (conn._activeQuery || conn.readyForQuery !== true || (conn._queryQueue?.length ?? 0) > 0) return false;
  const status = conn.getTransactionStatus?.();
  return status === undefined || status === null || status === 'I';
}

/**
 * Closes a connection of its own at once (the breaker's probe, the heartbeat's): its socket first, since a frozen
 * server would never answer a polite `end`.
 */
export function closeAtOnce(client: { end(): Promise<void> }): void {
  (client as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  client.end().catch(() => undefined);
}

/** Takes a connection out of service after a failure that leaves it in an unknown state. */
export function breakOnFailure(conn: PgConnection, err: unknown): void {
  const { message, code } = (err ?? {}) as { message?: unknown; code?: unknown };
  if (message === READ_TIMEOUT) {
    conn.__knex__disposed ??= READ_TIMEOUT;
    // The query is still on the connection: close it, so what is queued behind it (a ROLLBACK)
    // fails at once and the backend ends when the server runs again.
    conn.connection?.stream?.destroy();
  } else if (code === QUERY_CANCELED) {
    conn.__knex__disposed ??= 'statement cancelled';
  }
}

/**
 * Watches every query of one pg connection (the pool's afterCreate): a failure goes through
 * breakOnFailure before the caller sees it. Covers knex's queries, the ORM's transactions and
 * db/direct-read.ts, which all run on the connection's own `query`.
 */
export function guardConnection<T extends PgConnection>(conn: T, clock?: StatementClock): T {
  const query = conn.query;
  conn.query = function guardedQuery(config: unknown, values?: unknown, callback?: unknown) {
    if (typeof callback === 'function') return query.call(conn, config, values, watched(conn, callback, clock));
    if (typeof values === 'function') return query.call(conn, config, watched(conn, values, clock));
    const id = clock?.start();
    const result = query.call(conn, config, values);
    if (result && typeof result.then === 'function') {
      result.then(
        () => id !== undefined && clock!.end(id),
        (err: unknown) => {
          if (id !== undefined) clock!.end(id);
          breakOnFailure(conn, err);
        },
      );
    } else if (id !== undefined) clock!.end(id); // a submittable (cursor): not timed
    return result;
  };
  return conn;
}

function watched(conn: PgConnection, callback: Function, clock: StatementClock | undefined) {
  const id = clock?.start();
  return (err: unknown, res: unknown) => {
    if (id !== undefined) clock!.end(id);
    if (err) breakOnFailure(conn, err);
    return callback(err, res);
  };
}

/**
 * The statements running on the serving pool's connections, oldest first (guardConnection starts
 * and ends them): how long the oldest has been waiting is the pool's own sign of a database
 * that stopped answering.
 */
export class StatementClock {
  private readonly running = new Map<number, number>();
  private next = 0;

  start(): number {
    const id = this.next++;
    this.running.set(id, performance.now());
    return id;
  }

  end(id: number): void {
    this.running.delete(id);
  }

  /** How long the oldest running statement has waited, in ms; 0 when none runs. */
  oldestMs(now = performance.now()): number {
    for (const started of this.running.values()) return now - started; // a Map keeps insertion order
    return 0;
  }
}
