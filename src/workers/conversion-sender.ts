import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { WhatsAppSendConfig } from '../config.js';
import { runStatement } from '../db/direct-read.js';
import type { CredentialCipher } from '../platform/secrets.js';
import { pathSegment } from '../providers/messaging.js';
import { decryptCredentials } from '../services/agents/agent-credentials.js';
import { appendEvents, type NewAiEvent } from '../services/events/event-log.js';
import { CONVERSION_MAX_AGE_MS } from '../services/orders/conversions.js';
import { amount, orderEvent, orderRecords } from '../services/orders/order.service.js';
import { afterFailure, ATTEMPT_RULES, backoffMs } from './attempts.js';
import { OutboxWorker, type ClaimOwner, type OutboxJob, type OutboxLog, type OutboxQueue, type OutboxResult } from './outbox-worker.js';

/** CONTRACT §15.6: at most 8 attempts per event, as §10.1's replies (the shared rule of workers/attempts.ts). */
export const MAX_CONVERSION_ATTEMPTS = ATTEMPT_RULES.conversionEvent.maxAttempts;
/** A claimed event's lease lasts the provider deadline plus this: after it, another process may send it again. */
const LEASE_MARGIN_MS = 2000;
/** Meta's throttling codes (CONTRACT §10.1): retried as a 429 is. */
const THROTTLING_CODES = new Set([4, 80007, 130429, 131056]);
const MAX_ERROR_TEXT = 500;

export interface ConversionSenderOptions {
  orm: MikroORM;
  cipher: CredentialCipher;
  /** The reply outbox's settings (CONTRACT §15.6 "as §10.1's replies are"): WHATSAPP_RETRY_BASE_MS, the poll, the concurrency. */
  config: WhatsAppSendConfig;
  /** The Cloud API's base URL (WHATSAPP_API_URL) and one request's deadline (PROVIDER_TIMEOUT_MS). */
  apiUrl: string;
  timeoutMs: number;
  log: OutboxLog;
  /** This process's identity and heartbeat (process-liveness.ts): a dead process's events are sent by another within seconds. */
  liveness?: ClaimOwner;
  /** Told after a commit that appended events (order.updated): the sequencer pass (services/events); `stop` waits for it. */
  onEvents?: (projectId: number) => Promise<void>;
}

/** One claimed attempt: the order's event as §15.6 writes it, and its agent's credentials. */
interface ClaimedEvent extends OutboxJob {
  order_id: number;
  project_id: number;
  agent_id: number;
  attempts: number;
  credentials: string | null;
  ctwa_clid: string;
  uuid: string;
  created_at: Date;
  currency: string | null;
  total: number | null;
}

export type ConversionOutcome = { ok: true } | { ok: false; retry: boolean; error: string };
type EventResult = OutboxResult<ClaimedEvent, ConversionOutcome>;

/**
 * Sends the Conversions API `Purchase` events of orders placed in conversations that came from an ad (CONTRACT
 * §15.6) from the outbox `ai_conversion_sends`, which the placing transaction fills (services/orders/conversions.ts).
 * A kind of the shared outbox machinery (OUTBOX_KINDS `conversions`), not a loop of its own: the OutboxWorker
 * claims, bounds and batches; the process liveness releases a dead process's claims (table registered by the worker).
 *
 * - A claim counts the attempt (`attempts + 1`, in the claim's statement, as the reply sender counts its), leases
 *   the row past the provider deadline and names this process, FOR UPDATE SKIP LOCKED: one process sends an event
 *   at a time. Meta deduplicates by `event_id` (the order's uuid), so an attempt whose outcome was unknown (a
 *   timeout, a crash) may be repeated.
 * - An event whose `event_time` (the order's `created_at`) is more than 7 days old when it could be sent is never
 *   sent: `failed`, `"too old"` (Meta would refuse the whole request).
 * - Timeouts, connection errors, 5xx, 429 and Meta's throttling codes are retried with backoff from `retryBaseMs`
 *   (doubling) while `attempts < MAX_CONVERSION_ATTEMPTS` (`record`); any other answer is final.
 * - The final word sets the order's `conversion` (`sent` with `sent_at`, or `failed` with `error`) and emits
 *   `order.updated`, in one transaction per project; the row is then `done`.
 */
export class ConversionSender implements OutboxQueue<ClaimedEvent, ConversionOutcome> {
  readonly name = 'conversions sender';
  readonly table = 'ai_conversion_sends';
  private readonly worker: OutboxWorker<ClaimedEvent, ConversionOutcome>;
  private readonly base: string;
  private readonly sequencing = new Set<Promise<void>>();

  constructor(private readonly opts: ConversionSenderOptions) {
    this.base = opts.apiUrl.replace(/\/+$/, '');
    this.worker = new OutboxWorker(this, {
      concurrency: Math.min(opts.config.concurrency, 16),
      pollMs: opts.config.pollMs,
      drainMs: opts.timeoutMs + 1000,
      log: opts.log,
      liveness: opts.liveness,
    });
  }

  start(): this {
    this.worker.start();
    return this;
  }

  async stop(): Promise<void> {
    await this.worker.stop();
    await Promise.allSettled([...this.sequencing]);
  }

  kick(): void {
    this.worker.kick();
  }

  /** A commit anywhere may have queued an event: claims soon (throttled, see OutboxWorker.wake). */
  wake(): void {
    this.worker.wake();
  }

  async claim(limit: number, _busy: unknown, owner: string | null): Promise<ClaimedEvent[]> {
    if (limit <= 0) return [];
    const rows = await runStatement<Record<string, any>>(
      this.opts.orm.em.getConnection(),
      `with due as (
         select order_id from ai_conversion_sends
          where status = 'pending' and next_attempt_at <= now()
          order by next_attempt_at, order_id
          limit ?
          for update skip locked)
       update ai_conversion_sends s
          set attempts = s.attempts + 1, next_attempt_at = clock_timestamp() + make_interval(secs => ?), claimed_by = ?::uuid, updated_at = now()
         from due, orders o, ai_agents a
        where s.order_id = due.order_id and o.id = s.order_id and o.project_id = s.project_id and a.id = s.agent_id
       returning s.order_id, s.project_id, s.agent_id, s.attempts, s.ctwa_clid, a.credentials, o.uuid::text as uuid, o.created_at,
                 coalesce(o.currency, (select b.currency from businesses b where b.project_id = o.project_id and b.id = o.business_id)) as currency,
                 o.summary->'total' as total`,
      [limit, (this.opts.timeoutMs + LEASE_MARGIN_MS) / 1000, owner],
    );
    return rows.map((r) => ({
      id: String(r.order_id),
      group: String(r.agent_id),
      order_id: Number(r.order_id),
      project_id: Number(r.project_id),
      agent_id: Number(r.agent_id),
      attempts: Number(r.attempts),
      credentials: r.credentials ?? null,
      ctwa_clid: String(r.ctwa_clid),
      uuid: String(r.uuid),
      created_at: new Date(r.created_at as string | Date),
      currency: typeof r.currency === 'string' ? r.currency.trim() : null,
      total: amount(r.total),
    }));
  }

  async attempt(job: ClaimedEvent): Promise<ConversionOutcome> {
    if (Date.now() - job.created_at.getTime() > CONVERSION_MAX_AGE_MS) return { ok: false, retry: false, error: 'too old' };
    const c = decryptCredentials(this.opts.cipher, job.credentials);
    if (!c.dataset_id || !c.access_token || !c.waba_id)
      return { ok: false, retry: false, error: 'agent credentials missing (dataset_id, access_token, waba_id)' };
    const body = JSON.stringify(purchaseEvent(job, c.waba_id));
    let url: string;
    try {
      url = `${this.base}/${pathSegment(c.dataset_id)}/events`;
    } catch {
      return { ok: false, retry: false, error: 'the dataset_id is not an id' };
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.access_token}`, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') return { ok: false, retry: true, error: 'timeout' };
      const code = ((err as { cause?: { code?: string } }).cause?.code ?? name) || 'error';
      return { ok: false, retry: true, error: `network: ${code}` };
    }
    if (res.status >= 200 && res.status < 300) return { ok: true };
    let parsed: { error?: { code?: unknown; message?: unknown } } | undefined;
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    const code = typeof parsed?.error?.code === 'number' ? parsed.error.code : null;
    const message = typeof parsed?.error?.message === 'string' ? parsed.error.message.replaceAll(c.access_token, '[redacted]') : null;
    const error = (code !== null && message ? `${code}: ${message}` : `HTTP ${res.status}`).slice(0, MAX_ERROR_TEXT);
    const retry = res.status >= 500 || res.status === 429 || (code !== null && THROTTLING_CODES.has(code));
    return { ok: false, retry, error };
  }

  /**
   * Retries in one statement, each only while its row is at the claimed attempt; the final words in one transaction
   * per project (the order's `conversion`, `order.updated`, the row `done`). Null: the worker claims next.
   */
  async record(results: EventResult[]): Promise<null> {
    const final = (r: EventResult) =>
      r.result.ok ||
      !afterFailure(ATTEMPT_RULES.conversionEvent, this.opts.config.retryBaseMs, r.job.attempts, r.result.error, {
        retryable: r.result.retry,
      }).retry;
    const retries = results.filter((r) => !final(r));
    if (retries.length) {
      const rows = retries.map(({ job, result }) => ({
        order_id: job.order_id,
        attempts: job.attempts,
        delay_s: backoffMs(this.opts.config.retryBaseMs, job.attempts) / 1000,
        error: result.ok ? null : result.error,
      }));
      await this.opts.orm.em.getConnection().execute(
        `update ai_conversion_sends s set next_attempt_at = now() + make_interval(secs => r.delay_s), last_error = r.error, claimed_by = null,
                updated_at = now()
           from jsonb_to_recordset(?::jsonb) as r(order_id bigint, attempts int, delay_s float8, error text)
          where s.order_id = r.order_id and s.attempts = r.attempts and s.status = 'pending'`,
        [JSON.stringify(rows)],
        'run',
      );
    }
    const byProject = new Map<number, EventResult[]>();
    for (const r of results.filter(final)) byProject.set(r.job.project_id, [...(byProject.get(r.job.project_id) ?? []), r]);
    for (const [projectId, settled] of byProject) {
      const appended = await this.opts.orm.em.fork().transactional((tx) => this.settle(tx, projectId, settled));
      if (appended) this.sequence(projectId);
    }
    return null;
  }

  /** The final words of a project's events: a sent event counts whatever its lease (Meta has it); a failure only at the claimed attempt. */
  private async settle(tx: EntityManager, projectId: number, results: EventResult[]): Promise<boolean> {
    const events: NewAiEvent[] = [];
    for (const { job, result } of [...results].sort((a, b) => a.job.order_id - b.job.order_id)) {
      const conversion = result.ok
        ? { status: 'sent', error: null, sent_at: new Date().toISOString() }
        : { status: 'failed', error: result.error, sent_at: null };
      const done = await tx.getConnection().execute<{ order_id: number }[]>(
        `with done as (
           update ai_conversion_sends set status = 'done', next_attempt_at = null, claimed_by = null, last_error = ?, updated_at = now()
            where order_id = ? and status = 'pending' and (?::boolean or attempts = ?)
           returning order_id)
         update orders o set conversion = ?::jsonb, updated_at = now() from done where o.project_id = ? and o.id = done.order_id
         returning o.id as order_id`,
        [result.ok ? null : result.error, job.order_id, result.ok, job.attempts, JSON.stringify(conversion), projectId],
        'all',
        tx.getTransactionContext(),
      );
      if (!done.length) continue;
      const [order] = await orderRecords(tx, projectId, [job.order_id], null);
      if (order) events.push(orderEvent('order.updated', job.agent_id, order));
      if (!result.ok) this.opts.log.warn({ order: job.order_id, cause: result.error }, 'conversions sender: event not sent');
    }
    return appendEvents(tx, projectId, events);
  }

  private sequence(projectId: number): void {
    const pass = this.opts.onEvents?.(projectId);
    if (!pass) return;
    this.sequencing.add(pass);
    void pass.finally(() => this.sequencing.delete(pass));
  }
}

/** CONTRACT §15.6: the request's body, exactly. */
export function purchaseEvent(
  job: Pick<ClaimedEvent, 'created_at' | 'uuid' | 'ctwa_clid' | 'currency' | 'total'>,
  wabaId: string,
): Record<string, unknown> {
  return {
    data: [
      {
        event_name: 'Purchase',
        event_time: Math.floor(job.created_at.getTime() / 1000),
        event_id: job.uuid,
        action_source: 'business_messaging',
        messaging_channel: 'whatsapp',
        user_data: { whatsapp_business_account_id: wabaId, ctwa_clid: job.ctwa_clid },
        custom_data: { currency: job.currency, value: job.total },
      },
    ],
  };
}
