import type { MikroORM } from '@mikro-orm/postgresql';
import { runStatement } from '../db/direct-read.js';
import type { MediaConfig } from '../config.js';
import { MEDIA_MESSAGE_TYPES, type MediaMessageType } from '../entities/ai-message.js';
import type { CredentialCipher } from '../platform/secrets.js';
import { ProviderError } from '../providers/messaging.js';
import { MediaFetchError, WhatsAppMediaClient } from '../providers/whatsapp/media.js';
import { messageRecord } from '../services/conversations/records.js';
import { appendEvents } from '../services/events/event-log.js';
import {
  MediaHashMismatch,
  MediaStoreUnavailable,
  MediaTooLarge,
  MediaWriteStalled,
  MediaWriteSuperseded,
  mediaLimit,
  mediaRecordSql,
  normalizeSha256,
  type MediaStores,
} from '../services/media/index.js';
import { afterFailure, ATTEMPT_RULES } from './attempts.js';
import { OutboxWorker, type ClaimOwner, type OutboxJob, type OutboxLog, type OutboxQueue, type OutboxResult } from './outbox-worker.js';

/** CONTRACT §12.3: retries at most 10 minutes apart, for at most 24 hours (the shared rule of attempts.ts). */
const RULE = ATTEMPT_RULES.mediaDownload;
/**
 * A claimed download's lease beyond the provider deadline. A process that dies loses its claims by
 * its heartbeat within seconds (process-liveness.ts); the lease, renewed only while the download's
 * bytes move (a download has no deadline of its own, only MEDIA_STALL_MS for no progress), is the
 * bound for a process that beats but can no longer write: its renewals stop and another process
 * takes the file after the lease.
 */
const LEASE_MARGIN_MS = 2000;

export interface MediaDownloaderOptions {
  orm: MikroORM;
  cipher: CredentialCipher;
  stores: MediaStores;
  config: MediaConfig;
  /** The Cloud API's base URL (WHATSAPP_API_URL) and how long a call may stay silent (PROVIDER_TIMEOUT_MS). */
  apiUrl: string;
  timeoutMs: number;
  log: OutboxLog;
  /** This process's identity and heartbeat (process-liveness.ts): a dead process's downloads are resumed within seconds. */
  liveness?: ClaimOwner;
  /** Told after a commit that appended events (the sequencer pass); `stop` waits for it. */
  onEvents?: (projectId: number) => Promise<void>;
}

interface ClaimedDownload extends OutboxJob {
  media_id: string;
  project_id: number;
  message_id: number;
  attempts: number;
  provider_media_id: string;
  kind: MediaMessageType;
  created_at: Date;
  agent_id: number | null;
  business_id: number | null;
  credentials: string | null;
  /** The identity the claim was made under (null without liveness): renewals keep only this claim. */
  owner: string | null;
}

type Outcome =
  | { ok: true; size: number; sha256: string; mime_type: string | null; storage: 'pg' | 's3' }
  | { ok: false; retry: boolean; error: string }
  | { ok: false; superseded: true };

/** A download in flight here: its claim, what abandons it, when its bytes last moved and its lease was last renewed. */
interface Running {
  job: ClaimedDownload;
  abort: AbortController;
  movedAt: number;
  renewedAt: number;
}

/**
 * Downloads inbound files (CONTRACT §12.3): `ai_media` rows of origin `inbound` and status
 * `pending` are the outbox, written in the webhook's own statement. Every `serve` process runs one,
 * on the shared OutboxWorker loop:
 *
 * - A claim counts the attempt, leases the row and names this process (`claimed_by`; FOR UPDATE
 *   SKIP LOCKED, one statement), so exactly one process downloads a file. A process that dies
 *   (SIGKILL) stops beating, and within seconds another releases its claims and resumes them
 *   (process-liveness.ts). The lease (`PROVIDER_TIMEOUT_MS` + 2 s) is renewed every third of
 *   itself while the download's bytes move, only while the row is still this claim's: it bounds a
 *   process that beats but cannot write (another takes the file once the renewals stop). An
 *   attempt without progress for MEDIA_STALL_MS (no byte from Meta or into the store) is abandoned
 *   and retried like a timeout; one whose file another process took over is abandoned too.
 * - Each attempt asks Meta for the file's URL anew (it expires after 5 minutes), then streams the
 *   bytes into the store, hashed and counted (store.write), as the bytes of this attempt
 *   (`{id, generation: attempts}`, CONTRACT §12.7): every outcome is recorded by an update
 *   conditional on the attempt, and an attempt deletes only its own bytes, so a stale one (its file
 *   taken over) changes nothing, in either store. A stored outcome deletes what other attempts left.
 * - Results: stored, or failed (too large for its kind or MEDIA_MAX_BYTES, a final provider error,
 *   24 hours of retries) with the message's payload and `message.updated` in one transaction; or
 *   retried with backoff (MEDIA_RETRY_BASE_MS doubling, at most 10 minutes apart): timeouts,
 *   connection errors, 5xx, 429, throttling codes, an expired URL, bytes that fail the hash check.
 */
export class MediaDownloader implements OutboxQueue<ClaimedDownload, Outcome> {
  readonly name = 'media downloader';
  readonly table = 'ai_media';
  private readonly worker: OutboxWorker<ClaimedDownload, Outcome>;
  private readonly client: WhatsAppMediaClient;
  private readonly running = new Set<Running>();
  private readonly leaseMs: number;
  private readonly sequencing = new Set<Promise<void>>();
  private renew: NodeJS.Timeout | undefined;
  private watching = false;

  constructor(private readonly opts: MediaDownloaderOptions) {
    this.leaseMs = opts.timeoutMs + LEASE_MARGIN_MS;
    this.client = new WhatsAppMediaClient({ baseUrl: opts.apiUrl, timeoutMs: opts.timeoutMs, maxSockets: opts.config.concurrency });
    this.worker = new OutboxWorker(this, {
      concurrency: opts.config.concurrency,
      pollMs: opts.config.pollMs,
      drainMs: opts.timeoutMs + 1000,
      log: opts.log,
      liveness: opts.liveness,
    });
  }

  start(): this {
    this.worker.start();
    const every = Math.max(100, Math.floor(Math.min(this.leaseMs / 3, this.opts.config.stallMs / 4)));
    this.renew = setInterval(() => {
      if (this.watching) return;
      this.watching = true;
      void this.watch().finally(() => (this.watching = false));
    }, every);
    this.renew.unref();
    return this;
  }

  async stop(): Promise<void> {
    await this.worker.stop();
    clearInterval(this.renew);
    await Promise.allSettled([...this.sequencing]);
    this.client.close();
  }

  kick(): void {
    this.worker.kick();
  }

  wake(): void {
    this.worker.wake();
  }

  async claim(limit: number, _busy: unknown, owner: string | null): Promise<ClaimedDownload[]> {
    // bind parameters, prepared (db/direct-read.ts): every commit wakes this claim, most find nothing
    const rows = await runStatement<Record<string, any>>(
      this.opts.orm.em.getConnection(),
      `with due as (
         select id from ai_media
          where status = 'pending' and origin = 'inbound' and next_attempt_at <= now()
          order by next_attempt_at, id
          limit ?
          for update skip locked)
       update ai_media a
          set attempts = a.attempts + 1, next_attempt_at = clock_timestamp() + make_interval(secs => ?), claimed_by = ?::uuid
         from due
        where a.id = due.id
       returning a.id, a.project_id, a.message_id, a.attempts, a.provider_media_id, a.created_at, a.agent_id,
                 (select m.type from ai_messages m where m.id = a.message_id) as kind,
                 (select g.business_id from ai_agents g where g.id = a.agent_id) as business_id,
                 (select g.credentials from ai_agents g where g.id = a.agent_id) as credentials`,
      [limit, this.leaseMs / 1000, owner],
    );
    return rows.map((r) => ({
      id: r.id,
      group: r.id,
      media_id: r.id,
      project_id: Number(r.project_id),
      message_id: Number(r.message_id),
      attempts: Number(r.attempts),
      provider_media_id: r.provider_media_id ?? '',
      kind: (MEDIA_MESSAGE_TYPES as readonly string[]).includes(r.kind) ? r.kind : 'document',
      created_at: new Date(r.created_at),
      agent_id: r.agent_id ?? null,
      business_id: r.business_id ?? null,
      credentials: r.credentials ?? null,
      owner,
    }));
  }

  async attempt(job: ClaimedDownload): Promise<Outcome> {
    const now = Date.now();
    const run: Running = { job, abort: new AbortController(), movedAt: now, renewedAt: now };
    this.running.add(run);
    try {
      return await this.download(job, run);
    } finally {
      this.running.delete(run);
    }
  }

  private async download(job: ClaimedDownload, run: Running): Promise<Outcome> {
    const token = this.token(job.credentials);
    if (!token) return { ok: false, retry: false, error: 'agent credentials missing (access_token)' };
    const limit = mediaLimit(job.kind, this.opts.config.maxBytes);
    try {
      const info = await this.client.info(job.provider_media_id, token);
      if (info.file_size !== null && info.file_size > limit.bytes)
        return { ok: false, retry: false, error: `the file is larger than the ${limit.name}` };
      const body = await this.client.download(info.url, token);
      const store = this.opts.stores.forWrite;
      const mime = info.mime_type ?? body.headers['content-type'] ?? null;
      const stored = await store.write({ id: job.media_id, generation: job.attempts }, body, {
        maxBytes: limit.bytes,
        limitName: limit.name,
        expectedSha256: normalizeSha256(info.sha256),
        mimeType: mime,
        signal: run.abort.signal,
        onBytes: () => (run.movedAt = Date.now()),
      });
      return { ok: true, ...stored, mime_type: mime, storage: store.kind };
    } catch (err) {
      const reason: unknown = run.abort.signal.aborted ? run.abort.signal.reason : err;
      if (reason instanceof MediaWriteSuperseded) return { ok: false, superseded: true };
      if (reason instanceof MediaWriteStalled) return { ok: false, retry: true, error: reason.message };
      if (err instanceof MediaStoreUnavailable) return { ok: false, retry: true, error: err.message };
      if (err instanceof MediaTooLarge) return { ok: false, retry: false, error: err.message };
      if (err instanceof MediaHashMismatch) return { ok: false, retry: true, error: err.message };
      if (err instanceof MediaFetchError) return { ok: false, retry: err.retry, error: err.message };
      // a media id that cannot be a URL segment (idSegment) is not worth 24 hours of retries
      if (err instanceof ProviderError) return { ok: false, retry: err.kind === 'unavailable', error: `Meta's media id: ${err.reason}` };
      const e = err as NodeJS.ErrnoException;
      return { ok: false, retry: true, error: e.code ? `connection error (${e.code})` : 'storage error' };
    }
  }

  /** Each result in its own transaction (a download is long; results are few): the row, the message's payload, message.updated. */
  async record(results: OutboxResult<ClaimedDownload, Outcome>[]): Promise<null> {
    for (const r of results) await this.recordOne(r.job, r.result);
    return null;
  }

  private async recordOne(job: ClaimedDownload, result: Outcome): Promise<void> {
    // a superseded write kept nothing of its own, and the file is another attempt's
    if ('superseded' in result) return;
    const conn = this.opts.orm.em.getConnection();
    const next = result.ok
      ? null
      : afterFailure(RULE, this.opts.config.retryBaseMs, job.attempts, result.error, {
          retryable: result.retry,
          createdAt: job.created_at,
        });
    if (next?.retry) {
      await conn.execute(
        `update ai_media set next_attempt_at = now() + make_interval(secs => ?), last_error = ?, claimed_by = null, updated_at = now()
          where id = ? and attempts = ? and status = 'pending'`,
        [next.delayMs / 1000, result.ok ? null : result.error.slice(0, 1000), job.media_id, job.attempts],
        'run',
      );
      return;
    }
    const file = { id: job.media_id, generation: job.attempts };
    const outcome = await this.opts.orm.em.fork().transactional(async (tx) => {
      const run = (sql: string, params: unknown[]) =>
        tx.getConnection().execute<Record<string, any>[]>(sql, params, 'all', tx.getTransactionContext());
      const final = result.ok
        ? { status: 'stored', size: result.size, sha256: result.sha256, mime: result.mime_type, storage: result.storage, error: null }
        : { status: 'failed', size: null, sha256: null, mime: null, storage: null, error: next ? next.reason : result.error };
      const [media] = await run(
        `update ai_media set status = ?, size = ?, sha256 = ?, mime_type = coalesce(?, mime_type), storage = coalesce(?, storage),
                generation = ?, error = ?, next_attempt_at = null, claimed_by = null, updated_at = now()
          where id = ? and attempts = ? and status = 'pending'
          returning *`,
        [
          final.status,
          final.size,
          final.sha256,
          final.mime,
          final.storage,
          result.ok ? job.attempts : 0,
          final.error?.slice(0, 1000) ?? null,
          job.media_id,
          job.attempts,
        ],
      );
      if (!media) return { owned: false, appended: false }; // a later attempt owns the row
      const [message] = await run(
        `update ai_messages m set payload = jsonb_set(coalesce(m.payload, '{}'::jsonb), '{media}', ${mediaRecordSql('a')})
           from ai_media a
          where a.id = ? and m.id = a.message_id and m.project_id = ?
          returning m.*`,
        [job.media_id, job.project_id],
      );
      // CONTRACT §13.3: a file of the phone's history emits no event
      if (!message || message.source === 'history') return { owned: true, appended: false };
      const appended = await appendEvents(tx, job.project_id, [
        {
          type: 'message.updated',
          data: messageRecord(message),
          agent_id: job.agent_id,
          business_id: job.business_id,
          conversation_id: message.conversation_id,
          public: message.public,
        },
      ]);
      return { owned: true, appended };
    });
    await this.tidy(file, result, outcome.owned);
    if (outcome.appended) this.sequence(job.project_id);
  }

  /**
   * The bytes an outcome leaves behind (CONTRACT §12.7: an object is deleted only with the row that
   * owns it). Stored and recorded: what other attempts of the file left (a process that died
   * mid-write). Stored but the row is another attempt's: this attempt's own bytes, nobody's now.
   * Failed and recorded: every attempt's. A failure the row did not take (another attempt owns
   * it) deletes nothing: this attempt's write kept nothing, and the rest is the owner's.
   */
  private async tidy(file: { id: string; generation: number }, result: Outcome, owned: boolean): Promise<void> {
    const store = result.ok ? this.opts.stores.of(result.storage) : this.opts.stores.forWrite;
    if (!store || (!owned && !result.ok)) return;
    try {
      if (!owned) await store.remove(file);
      else if (result.ok) await store.removeOthers(file);
      else await Promise.all([store.remove(file), store.removeOthers(file)]);
    } catch (err) {
      this.opts.log.warn({ media: file.id, cause: (err as Error).message }, 'media downloader: leftover bytes not deleted');
    }
  }

  /**
   * Every few seconds: abandons the downloads without progress for MEDIA_STALL_MS (retried like a
   * timeout), pushes forward the leases of those whose bytes moved since their last renewal, and
   * abandons those whose file another attempt took over. A lease is renewed only while the row is
   * still this attempt's claim: not once the liveness released it (this process was declared dead
   * while it could not beat), which would delay the process that resumes it by a lease.
   */
  private async watch(): Promise<void> {
    const now = Date.now();
    const stallMs = this.opts.config.stallMs;
    for (const r of this.running) if (now - r.movedAt >= stallMs) r.abort.abort(new MediaWriteStalled(stallMs));
    const live = [...this.running].filter((r) => !r.abort.signal.aborted);
    if (!live.length) return;
    const rows = live.map((r) => ({
      id: r.job.media_id,
      attempts: r.job.attempts,
      owner: r.job.owner,
      renew: r.movedAt > r.renewedAt && now - r.renewedAt >= this.leaseMs / 3,
    }));
    let owned: { id: string; attempts: number }[];
    try {
      owned = await this.opts.orm.em.getConnection().execute(
        `with r as (select * from jsonb_to_recordset(?::jsonb) as r(id text, attempts int, owner uuid, renew boolean)),
              renewed as (
                update ai_media a set next_attempt_at = clock_timestamp() + make_interval(secs => ?)
                  from r
                 where r.renew and a.id = r.id and a.attempts = r.attempts and a.status = 'pending'
                   and a.claimed_by is not distinct from r.owner
                returning a.id)
         select r.id, r.attempts from r join ai_media a on a.id = r.id and a.attempts = r.attempts and a.status = 'pending'`,
        [JSON.stringify(rows), this.leaseMs / 1000],
        'all',
      );
    } catch (err) {
      this.opts.log.warn({ code: (err as { code?: string }).code }, 'media downloader: lease renewal failed');
      return;
    }
    const mine = new Set(owned.map((o) => `${o.id}\n${o.attempts}`));
    for (const [i, r] of live.entries()) {
      if (!mine.has(`${r.job.media_id}\n${r.job.attempts}`)) r.abort.abort(new MediaWriteSuperseded());
      else if (rows[i].renew) r.renewedAt = now;
    }
  }

  private sequence(projectId: number): void {
    const pass = this.opts.onEvents?.(projectId);
    if (!pass) return;
    this.sequencing.add(pass);
    void pass.finally(() => this.sequencing.delete(pass));
  }

  private token(stored: string | null): string | null {
    if (!stored) return null;
    try {
      const value = this.opts.cipher.decrypt<Record<string, unknown>>(stored);
      return typeof value?.access_token === 'string' && value.access_token ? value.access_token : null;
    } catch {
      return null;
    }
  }
}
