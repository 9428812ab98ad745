import type { MikroORM } from '@mikro-orm/postgresql';
import { runStatement } from '../db/direct-read.js';
import type { HistoryImportConfig } from '../config.js';
import { importChunk } from '../services/whatsapp/history-import.js';
import { numberOf } from '../services/whatsapp/fields/history.js';
import { afterFailure, ATTEMPT_RULES } from './attempts.js';
import { OutboxWorker, type ClaimOwner, type OutboxJob, type OutboxLog, type OutboxQueue, type OutboxResult } from './outbox-worker.js';

/** A chunk's import is one transaction; its lease bounds a process that beats but hangs. */
const LEASE_MS = 120_000;
/** Retries at most 10 minutes apart, 10 attempts in all (attempts.ts): then `failed`, on the agent's `history.failed`. */
const RULE = ATTEMPT_RULES.historyChunk;
/** The tables an import grows, whose statistics it keeps current (`analyzeGrown`). */
const GROWN_TABLES = ['ai_messages', 'ai_message_search', 'ai_conversations', 'ai_inbound_message_ids'];

export interface HistoryImporterOptions {
  orm: MikroORM;
  config: HistoryImportConfig;
  log: OutboxLog;
  /** This process's identity and heartbeat (process-liveness.ts): a dead process's chunks are resumed within seconds. */
  liveness?: ClaimOwner;
}

interface ClaimedChunk extends OutboxJob {
  attempts: number;
}

type Outcome = { ok: true; messages: number } | { ok: false; error: string };

/**
 * Imports the phone's history (CONTRACT §13.3): `ai_history_chunks` rows of status `pending` are the
 * outbox, written by the webhook (fields/history.ts). Every `serve` process runs one, on the shared
 * OutboxWorker loop: a claim counts the attempt, leases the row and names this process (FOR UPDATE
 * SKIP LOCKED, one statement); the attempt is one transaction (history-import.ts) that re-reads the
 * row at that attempt, so a chunk is imported once: a process killed mid-import loses its
 * transaction with its connection, and its claim within seconds (process-liveness.ts), and another
 * process imports the chunk from the start. A failed import is retried with backoff, up to the shared
 * bound of attempts.ts: a chunk that fails for its data then is `failed`, and the agent's
 * `history.failed` names it (phase, chunk_order, error, attempts) in the same transaction.
 */
export class HistoryImporter implements OutboxQueue<ClaimedChunk, Outcome> {
  readonly name = 'history importer';
  readonly table = 'ai_history_chunks';
  private readonly worker: OutboxWorker<ClaimedChunk, Outcome>;
  /** When this process may start its next chunk (the pace, HISTORY_IMPORT_RATE), as performance.now(). */
  private paceUntil = 0;
  private analyzing: Promise<void> | null = null;
  /** Messages this process imported since it last refreshed the statistics, and the row count they must pass first. */
  private importedSinceAnalyze = 0;
  private analyzeAfter = 1000;

  constructor(private readonly opts: HistoryImporterOptions) {
    this.worker = new OutboxWorker(this, {
      concurrency: opts.config.concurrency,
      pollMs: opts.config.pollMs,
      drainMs: 30_000,
      log: opts.log,
      liveness: opts.liveness,
    });
  }

  start(): this {
    this.worker.start();
    return this;
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  wake(): void {
    this.worker.wake();
  }

  /** At most one chunk per agent: the agents importing here are skipped (a second would only wait for the agent's lock, holding a connection). */
  async claim(limit: number, busy: ReadonlyMap<string, number>, owner: string | null): Promise<ClaimedChunk[]> {
    const rows = await runStatement<Record<string, any>>(
      this.opts.orm.em.getConnection(),
      `with due as (
         select id from ai_history_chunks
          where id in (select min(id) from ai_history_chunks
                        where status = 'pending' and next_attempt_at <= now() and agent_id <> all(?::bigint[]) group by agent_id)
            and status = 'pending' and next_attempt_at <= now()
          order by next_attempt_at, id
          limit ?
          for update skip locked)
       update ai_history_chunks h
          set attempts = h.attempts + 1, next_attempt_at = clock_timestamp() + make_interval(secs => ?), claimed_by = ?::uuid
         from due
        where h.id = due.id
       returning h.id, h.agent_id, h.attempts`,
      [`{${[...busy.keys()].join(',')}}`, limit, LEASE_MS / 1000, owner],
    );
    return rows.map((r) => ({ id: String(r.id), group: String(r.agent_id), attempts: Number(r.attempts) }));
  }

  async attempt(job: ClaimedChunk): Promise<Outcome> {
    const started = await this.pace();
    try {
      const done = await this.opts.orm.em.fork().transactional((tx) => importChunk(tx, job.id, job.attempts));
      this.paced(started, done?.messages ?? 0);
      this.importedSinceAnalyze += done?.messages ?? 0;
      if (this.importedSinceAnalyze > this.analyzeAfter)
        await (this.analyzing ??= this.analyzeGrown().finally(() => (this.analyzing = null)));
      if (done?.problems.length)
        this.opts.log.warn({ chunk: job.id, problems: done.problems.slice(0, 20) }, 'history chunk: items skipped');
      return { ok: true, messages: done?.messages ?? 0 };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }

  /**
   * ANALYZE of the tables an import grows, once this process has imported more messages than their statistics
   * count. An import grows them by thousands of rows a second, faster than autovacuum looks (once a minute);
   * meanwhile every backend keeps the plans it made while they were small, the foreign-key checks' among them: a
   * check planned as a sequential scan of a few hundred messages read the whole table for each row inserted, and a
   * 100,000-message import into a new database took 70 s instead of 17, chunks timing out (docs/benchmarks.md,
   * issue 56). ANALYZE makes every backend plan again; it runs once per doubling, a handful of times per import.
   */
  private async analyzeGrown(): Promise<void> {
    try {
      const conn = this.opts.orm.em.getConnection();
      const [row] = await runStatement<{ n: string }>(
        conn,
        `select greatest(1000, reltuples)::bigint as n from pg_class where oid = to_regclass('ai_messages')`,
        [],
      );
      // the statistics' rows, as last counted (by us or autovacuum): not looked up again before this many more
      this.analyzeAfter = Number(row?.n ?? 1000);
      if (this.importedSinceAnalyze <= this.analyzeAfter) return;
      this.importedSinceAnalyze = 0;
      await conn.execute(`analyze ${GROWN_TABLES.join(', ')}`, [], 'run');
    } catch (err) {
      this.opts.log.warn({ cause: (err as Error).message }, 'history import: statistics not refreshed');
    }
  }

  /** Waits until the pace allows a chunk (its lease runs meanwhile, far longer than a pause: at most 1 s per 6,000 messages). */
  private async pace(): Promise<number> {
    const wait = this.paceUntil - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return performance.now();
  }

  /** `messages` imported from `started` on: the next chunk of this process starts no sooner than the rate allows. */
  private paced(started: number, messages: number): void {
    const rate = this.opts.config.messagesPerSecond;
    if (rate > 0) this.paceUntil = Math.max(this.paceUntil, started + (messages * 1000) / rate);
  }

  /** An imported chunk was marked in its own transaction; a failure waits for its retry, or gives up (attempts.ts). */
  async record(results: OutboxResult<ClaimedChunk, Outcome>[]): Promise<null> {
    for (const { job, result } of results) {
      if (result.ok) continue;
      const next = afterFailure(RULE, this.opts.config.retryBaseMs, job.attempts, result.error);
      const error = result.error.slice(0, 1000);
      if (next.retry) {
        this.opts.log.warn({ chunk: job.id, cause: result.error }, 'history chunk: import failed; retrying');
        await this.opts.orm.em.getConnection().execute(
          `update ai_history_chunks set next_attempt_at = now() + make_interval(secs => ?), last_error = ?, claimed_by = null, updated_at = now()
              where id = ? and attempts = ? and status = 'pending'`,
          [next.delayMs / 1000, error, job.id, job.attempts],
          'run',
        );
        continue;
      }
      this.opts.log.warn({ chunk: job.id, cause: result.error, attempts: job.attempts }, 'history chunk: import failed; given up');
      await this.giveUp(job, error);
    }
    return null;
  }

  /**
   * The chunk `failed` and the agent's `history.failed` gaining it, in one transaction (CONTRACT §11, §13.3). The
   * chunk's phase and order are read here, in JavaScript: the stored text may be what PostgreSQL's jsonb refuses.
   */
  private async giveUp(job: ClaimedChunk, error: string): Promise<void> {
    await this.opts.orm.em.fork().transactional(async (tx) => {
      const conn = tx.getConnection();
      const ctx = tx.getTransactionContext();
      const [chunk] = await conn.execute<{ agent_id: number; value: unknown }[]>(
        `update ai_history_chunks set status = 'failed', next_attempt_at = null, last_error = ?, claimed_by = null, updated_at = now()
          where id = ? and attempts = ? and status = 'pending'
          returning agent_id, value::text as value`,
        [error, job.id, job.attempts],
        'all',
        ctx,
      );
      if (!chunk) return; // a later attempt owns the row
      const meta = chunkMetadata(chunk.value);
      const failed = { phase: numberOf(meta.phase), chunk_order: numberOf(meta.chunk_order), error, attempts: job.attempts };
      await conn.execute(
        `update ai_agents set history = jsonb_set(coalesce(history, '{}'), '{failed}', coalesce(history->'failed', '[]') || jsonb_build_array(?::jsonb))
          where id = ?`,
        [JSON.stringify(failed), chunk.agent_id],
        'run',
        ctx,
      );
    });
  }
}

/** A stored chunk's `metadata` (its phase and order), whatever the text holds. */
function chunkMetadata(text: unknown): Record<string, unknown> {
  try {
    const value: unknown = typeof text === 'string' ? JSON.parse(text) : text;
    const meta = typeof value === 'object' && value !== null ? (value as { metadata?: unknown }).metadata : null;
    return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
