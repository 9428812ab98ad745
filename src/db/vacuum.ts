import type { Connection } from '@mikro-orm/core';

/** The queue tables the service empties itself: rows are inserted, then deleted once handled. */
export type QueueTable = 'ai_event_inbox' | 'metrics_conversation_delta' | 'metrics_order_delta' | 'metrics_product_delta';

/**
 * Clears a queue table's dead rows. The events' sequencer passes delete what they move from `ai_event_inbox`, the
 * metrics compactor what it folds from `metrics_conversation_delta`; both find their rows through an index, so until
 * a vacuum they step over every row ever deleted (a pass took 5 ms after 140,000 moved rows, 0.08 ms vacuumed).
 * Autovacuum visits a table at most once per `autovacuum_naptime` (a minute), later when busy elsewhere, never when
 * it is off: the process that deletes the rows vacuums the table itself. `skip_locked`: a vacuum already running
 * (another process's) is not waited for; `truncate false`: no exclusive lock that would hold a writer's insert;
 * `index_cleanup on`: the index entries go even when few pages hold dead rows. Not the table's owner: PostgreSQL
 * skips it with a warning, nothing fails.
 */
export async function vacuumQueue(conn: Connection, table: QueueTable): Promise<void> {
  await conn.execute(`vacuum (skip_locked, truncate false, index_cleanup on) ${table}`, [], 'run');
}

/**
 * Vacuums of a queue table spaced QUEUE_VACUUM_MS apart. A vacuum rewrites the table's statistics in `pg_class`, and
 * that invalidates every cached plan naming the table in every backend: at one vacuum a second of the inbox and of
 * the three deltas (the writers' statements, the order triggers', the metrics reads'), plans were about a fifth of
 * the calls of an order's statements, and planning about 1 ms of PostgreSQL's time per order (`npm run bench:orders`,
 * pg_stat_statements `plans`). Ten seconds of deleted rows cost the index scans far less (vacuumQueue above).
 */
export const QUEUE_VACUUM_MS = 10_000;

/** Whether a queue table's vacuum is due: rows deleted since the last one, which started QUEUE_VACUUM_MS ago. */
export class VacuumPace {
  private last = -Infinity;
  private dirty = false;

  /** Rows of the table were deleted. */
  deleted(): void {
    this.dirty = true;
  }

  /** True (and the vacuum counted as started) when one is due now. */
  take(now = performance.now()): boolean {
    if (!this.dirty || now - this.last < QUEUE_VACUUM_MS) return false;
    this.dirty = false;
    this.last = now;
    return true;
  }
}
