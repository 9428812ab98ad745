import type { FastifyBaseLogger } from 'fastify';
import { IdempotencyStore } from '../db/idempotency-store.js';
import { causeOf, LineLimiter } from '../db/unavailable.js';
import { PeriodicWorker } from './periodic-worker.js';
import { closeIdleConversations, IDLE_CLOSE_CONFIG } from '../services/conversations/idle-close.js';
import type { Services } from '../services/index.js';

/** Conversations closed per transaction: short transactions, short event-lock holds. */
const BATCH = 100;
/** A positive integer of minutes (at most a year); anything else leaves the project alone. */
const MINUTES = /^\s*([1-9][0-9]{0,5})\s*$/;

/**
 * The background work of every `serve` process (started and stopped by server.ts): every
 * `intervalMs` it closes idle conversations (CONTRACT §9.1) of the projects whose stored config
 * `ai_idle_close_minutes` is a positive integer, and deletes expired idempotency keys (§9.2).
 * Any number of processes may run it: rows are claimed with `for update skip locked`, so each
 * conversation is closed, and its event emitted, once. Passes never overlap within a process.
 */
export class IdleSweeper extends PeriodicWorker {
  private readonly keys: IdempotencyStore;
  private readonly lines = new LineLimiter();

  constructor(
    private readonly services: Services,
    intervalMs: number,
    private readonly log: FastifyBaseLogger,
  ) {
    super(intervalMs);
    this.keys = new IdempotencyStore(services.deps.orm);
  }

  /** One pass over every configured project; failures are logged and the next pass tries again. */
  async pass(): Promise<void> {
    try {
      const em = this.services.deps.orm.em.fork();
      const configs = await em
        .getConnection()
        .execute<{ project_id: number; value: string }[]>(
          'select project_id, value from configs where key = ?',
          [IDLE_CLOSE_CONFIG],
          'all',
        );
      for (const { project_id, value } of configs) {
        const minutes = MINUTES.exec(value)?.[1];
        if (!minutes) continue;
        for (;;) {
          if (this.stopped) return;
          const closed = await closeIdleConversations(em.fork(), project_id, Number(minutes), BATCH);
          if (closed > 0) await this.services.events.sequence(project_id);
          if (closed > 0) this.log.info({ project_id, closed }, 'idle conversations closed');
          if (closed < BATCH) break;
        }
      }
      await this.keys.deleteExpired();
    } catch (err) {
      const cause = causeOf(err);
      if (this.lines.admit(cause) !== false) this.log.warn({ cause }, 'idle sweep failed; retrying at the next pass');
    }
  }
}
