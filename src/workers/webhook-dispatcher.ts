import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { runStatement } from '../db/direct-read.js';
import type { WebhookConfig } from '../config.js';
import { hostOf, isPrivateAddress, publicOnlyLookup } from '../platform/network-guard.js';
import type { CredentialCipher } from '../platform/secrets.js';
import { afterFailure, ATTEMPT_RULES } from './attempts.js';
import { OutboxWorker, type ClaimOwner, type OutboxLog, type OutboxQueue, type OutboxResult } from './outbox-worker.js';

/** CONTRACT §9.4: at most 8 attempts per delivery (the shared rule of attempts.ts). */
export const MAX_ATTEMPTS = ATTEMPT_RULES.webhookDelivery.maxAttempts;
/** A claimed attempt's lease lasts its deadline plus this: after it, another process may retry it. */
const LEASE_MARGIN_MS = 5000;
/** How many due rows one claim looks at to share the batch fairly between webhooks. */
const CLAIM_WINDOW = 500;
const MAX_ERROR_TEXT = 500;

export type DispatcherLog = OutboxLog;

export interface DispatcherOptions {
  orm: MikroORM;
  cipher: CredentialCipher;
  config: WebhookConfig;
  log: DispatcherLog;
  /** This process's identity and heartbeat (process-liveness.ts): a dead process's attempts are made again within seconds. */
  liveness?: ClaimOwner;
}

/** One claimed attempt: the delivery, its webhook and its event (null when the event is no longer kept). */
interface Claimed {
  id: string;
  /** The webhook id: attempts in flight are bounded per webhook. */
  group: string;
  webhook_id: number;
  delivery_id: string;
  attempts: number;
  url: string;
  secret: string;
  event_id: string;
  event_type: string | null;
  event_created_at: Date | null;
  event_data: unknown;
}

interface Outcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/**
 * Sends the webhook outbox (`ai_webhook_deliveries`, filled by appendEvents in each event's own
 * transaction). Every `serve` process runs one; they share the work through the database:
 *
 * - A claim is one statement: due rows are locked with FOR UPDATE SKIP LOCKED, and their attempt
 *   is counted, leased (`next_attempt_at` moved past the attempt's deadline) and named after this
 *   process (`claimed_by`) before the lock is released at its commit, so no other process takes
 *   the same attempt. The POST happens after, outside any transaction. A process that dies
 *   mid-attempt stops beating, and within seconds another releases its claims (process-liveness.ts):
 *   the attempt is made again, delivery is at least once, never lost; the lease bounds a process
 *   that beats but hangs.
 * - The result is written only if the row is still at the claimed attempt (a stale result of an
 *   attempt whose lease ran out changes nothing); the results that arrive together are written by
 *   one statement (the worker batches them).
 * - Bounded: at most `concurrency` attempts in flight, at most `concurrencyPerWebhook` per webhook
 *   (a slow receiver holds its own slots, not everyone's), each cut at `timeoutMs`.
 * - The loop (wake-ups, the safety poll, concurrency, database outages) is the shared OutboxWorker
 *   (workers/outbox-worker.ts); `kick()` wakes it after events are committed.
 */
export class WebhookDispatcher implements OutboxQueue<Claimed, Outcome> {
  readonly name = 'webhook dispatcher';
  readonly table = 'ai_webhook_deliveries';
  private readonly secrets = new Map<string, string>();
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly worker: OutboxWorker<Claimed, Outcome>;

  constructor(private readonly opts: DispatcherOptions) {
    const agent = { keepAlive: true, maxSockets: opts.config.concurrency, timeout: opts.config.timeoutMs };
    this.httpAgent = new http.Agent(agent);
    this.httpsAgent = new https.Agent(agent);
    this.worker = new OutboxWorker(this, {
      concurrency: opts.config.concurrency,
      pollMs: opts.config.pollMs,
      drainMs: opts.config.timeoutMs + 1000,
      log: opts.log,
      liveness: opts.liveness,
    });
  }

  start(): this {
    this.worker.start();
    return this;
  }

  /** Stops claiming; waits for the attempts in flight (each bounded by its deadline), then closes the sockets. */
  async stop(): Promise<void> {
    await this.worker.stop();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** Looks for due deliveries now (coalesced: one claim at a time, another right after when asked). */
  kick(): void {
    this.worker.kick();
  }

  /** A commit anywhere may have queued work: claims soon (throttled, see OutboxWorker.wake). */
  wake(): void {
    this.worker.wake();
  }

  async claim(limit: number, busyGroups: ReadonlyMap<string, number>, owner: string | null): Promise<Claimed[]> {
    const cap = this.opts.config.concurrencyPerWebhook;
    const busy = [...busyGroups.entries()].map(([id, n]) => [Number(id), n] as const);
    const full = busy.filter(([, n]) => n >= cap).map(([id]) => id);
    const partial = busy.filter(([, n]) => n < cap);
    const leaseMs = this.opts.config.timeoutMs + LEASE_MARGIN_MS;
    // bind parameters, prepared (db/direct-read.ts): every commit wakes this claim, most find nothing
    const rows = await runStatement<Record<string, unknown>>(
      this.opts.orm.em.getConnection(),
      `with candidates as (
         select id from (
           select s.id, row_number() over (partition by s.webhook_id order by s.next_attempt_at, s.id) as rn,
                  coalesce(room.n, ?::int) as room
             from (select id, webhook_id, next_attempt_at from ai_webhook_deliveries
                    where status = 'pending' and next_attempt_at <= now() and webhook_id <> all(?::bigint[])
                    order by next_attempt_at, id limit ?) s
             left join unnest(?::bigint[], ?::bigint[]) as room(webhook_id, n) on room.webhook_id = s.webhook_id
         ) ranked where rn <= room
       ),
       due as (
         select d.id, d.webhook_id, d.event_id from ai_webhook_deliveries d
          where d.id in (select id from candidates) and d.status = 'pending' and d.next_attempt_at <= now()
          order by d.next_attempt_at, d.id
          limit ?
          for update of d skip locked
       )
       update ai_webhook_deliveries d
          set attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ?), claimed_by = ?::uuid
         from due
         join ai_webhooks w on w.id = due.webhook_id
         left join ai_events e on e.id = due.event_id
        where d.id = due.id
       returning d.id, d.webhook_id, d.delivery_id, d.attempts, d.event_id, w.url, w.secret,
                 e.type as event_type, e.created_at as event_created_at, e.data as event_data`,
      [
        cap,
        `{${full.join(',')}}`,
        CLAIM_WINDOW,
        `{${partial.map(([id]) => id).join(',')}}`,
        `{${partial.map(([, n]) => cap - n).join(',')}}`,
        limit,
        leaseMs / 1000,
        owner,
      ],
    );
    return rows.map((r) => ({
      id: String(r.id),
      group: String(r.webhook_id),
      webhook_id: Number(r.webhook_id),
      delivery_id: r.delivery_id as string,
      attempts: Number(r.attempts),
      url: r.url as string,
      secret: r.secret as string,
      event_id: String(r.event_id),
      event_type: (r.event_type as string | null) ?? null,
      event_created_at: r.event_created_at == null ? null : new Date(r.event_created_at as string | Date),
      event_data: r.event_data,
    }));
  }

  async attempt(row: Claimed): Promise<Outcome> {
    if (row.event_type === null) return { ok: false, status: null, error: 'the event is no longer kept' };
    let secret: string;
    try {
      secret = this.secret(row.secret);
    } catch {
      return { ok: false, status: null, error: 'the signing secret cannot be read (CREDENTIALS_KEY changed?)' };
    }
    const body = Buffer.from(
      JSON.stringify({
        id: Number(row.event_id),
        type: row.event_type,
        created_at: row.event_created_at!.toISOString(),
        data: row.event_data,
      }),
    );
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': 'OrderGraph-Webhooks/1',
      'x-ordergraph-event': row.event_type,
      'x-ordergraph-delivery': row.delivery_id,
      'x-ordergraph-timestamp': timestamp,
      'x-ordergraph-signature': `sha256=${sign(secret, timestamp, body)}`,
    };
    return this.post(row.url, headers, body);
  }

  /** One POST, never following redirects, cut at the deadline (connection, answer and its body). */
  private post(target: string, headers: Record<string, string>, body: Buffer): Promise<Outcome> {
    const { allowPrivateNetworks, timeoutMs } = this.opts.config;
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return Promise.resolve({ ok: false, status: null, error: 'invalid url' });
    }
    const host = hostOf(url);
    if (!allowPrivateNetworks && net.isIP(host) && isPrivateAddress(host)) {
      return Promise.resolve({ ok: false, status: null, error: 'address is not public' });
    }
    const secure = url.protocol === 'https:';
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      const done = (outcome: Outcome) => {
        if (!settled) {
          settled = true;
          resolve(outcome);
        }
      };
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        headers,
        agent: secure ? this.httpsAgent : this.httpAgent,
        ...(allowPrivateNetworks ? {} : { lookup: publicOnlyLookup }),
      });
      const deadline = setTimeout(
        () => req.destroy(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { code: 'ETIMEDOUT' })),
        timeoutMs,
      );
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        done({ ok, status, error: ok ? null : status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}` });
        res.on('error', () => undefined);
        res.on('close', () => clearTimeout(deadline));
        res.resume();
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(deadline);
        done({ ok: false, status: null, error: describe(err) });
      });
      req.on('close', () => {
        if (!settled) clearTimeout(deadline);
        done({ ok: false, status: null, error: 'connection closed without an answer' });
      });
      req.end(body);
    });
  }

  /**
   * Writes the attempts' results in one statement, each only if its row is still at that attempt
   * (`id = any(ARRAY)`: the rows looked up by key, not a scan, as the recordset counts as 100 rows).
   */
  async record(results: OutboxResult<Claimed, Outcome>[]): Promise<null> {
    const rows = results.map(({ job, result }) => {
      const next = result.ok
        ? null
        : afterFailure(ATTEMPT_RULES.webhookDelivery, this.opts.config.retryBaseMs, job.attempts, result.error ?? '', {
            retryable: job.event_type !== null,
          });
      const final = next !== null && !next.retry;
      return {
        id: job.id,
        attempts: job.attempts,
        status: result.ok ? 'delivered' : final ? 'failed' : 'pending',
        delay_s: next?.retry ? next.delayMs / 1000 : 0,
        code: result.status,
        error: result.ok ? null : (result.error?.slice(0, MAX_ERROR_TEXT) ?? null),
      };
    });
    await this.opts.orm.em.getConnection().execute(
      `update ai_webhook_deliveries d
          set status = r.status,
              delivered_at = case when r.status = 'delivered' then now() else d.delivered_at end,
              next_attempt_at = case when r.status = 'pending' then now() + make_interval(secs => r.delay_s) end,
              last_status_code = r.code, last_error = r.error, claimed_by = null
         from jsonb_to_recordset(?::jsonb) as r(id bigint, attempts int, status text, delay_s float8, code int, error text)
        where d.id = any(?::bigint[]) and d.id = r.id and d.attempts = r.attempts and d.status = 'pending'`,
      [JSON.stringify(rows), `{${rows.map((r) => r.id).join(',')}}`],
      'run',
    );
    return null;
  }

  private secret(stored: string): string {
    let plain = this.secrets.get(stored);
    if (plain === undefined) {
      plain = this.opts.cipher.decrypt<string>(stored);
      if (this.secrets.size >= 1000) this.secrets.clear();
      this.secrets.set(stored, plain);
    }
    return plain;
  }
}

/** `sha256=` + this: hex HMAC-SHA256 keyed with the secret over TIMESTAMP + "." + the raw body. */
export function sign(secret: string, timestamp: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

function describe(err: NodeJS.ErrnoException): string {
  if (err.code === 'EPRIVATEADDRESS') return 'address is not public';
  if (err.code === 'ETIMEDOUT') return err.message;
  return err.code ? `${err.code}: ${err.message}`.slice(0, MAX_ERROR_TEXT) : err.message;
}
