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
