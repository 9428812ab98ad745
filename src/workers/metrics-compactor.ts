import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { causeOf, LineLimiter } from '../db/unavailable.js';
import { vacuumQueue, VacuumPace } from '../db/vacuum.js';
import { PeriodicWorker } from './periodic-worker.js';

/** Deltas folded per statement: short transactions, whatever a pause left behind. */
const BATCH = 5_000;

/**
 * Folds the metrics' deltas (conversations, orders, order lines) into the rollups (Migration20261125000400_metrics_deltas,
 * Migration20261202000150_order_metric_deltas,
 * docs/metrics-series.md) every `intervalMs`. Reads add the deltas left, so a metric is exact
 * whenever this runs, or if it never does; it only keeps the deltas few. Any number of processes
 * may run it: `metrics_compact_conversations` takes a transaction-scoped advisory lock and
 * returns -1 at once when another process holds it. Passes never overlap within a process.
 */
export class MetricsCompactor extends PeriodicWorker {
  private readonly lines = new LineLimiter();
  private readonly vacuums = new VacuumPace();

  constructor(
    private readonly orm: MikroORM,
    intervalMs: number,
    private readonly log: FastifyBaseLogger,
  ) {
    super(intervalMs);
  }

  /** Batches until one comes back short (or another process is compacting); failures wait for the next pass. */
  async pass(): Promise<void> {
    try {
      const conn = this.orm.em.getConnection();
      let folded = 0;
      while (!this.stopped) {
        const [{ moved }] = await conn.execute<{ moved: number }[]>('select metrics_compact_conversations(?) as moved', [BATCH], 'all');
        if (Number(moved) > 0) folded += Number(moved);
        if (Number(moved) < BATCH) break;
      }
      // the folded deltas are dead rows that every read and the next pass would step over (db/vacuum.ts)
      if (folded > 0) this.vacuums.deleted();
      if (!this.stopped && this.vacuums.take())
        for (const table of ['metrics_conversation_delta', 'metrics_order_delta', 'metrics_product_delta'] as const)
          await vacuumQueue(conn, table);
    } catch (err) {
      const cause = causeOf(err);
      if (this.lines.admit(cause) !== false) this.log.warn({ cause }, 'metrics compaction failed; retrying at the next pass');
    }
  }
}
