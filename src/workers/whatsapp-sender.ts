import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { WhatsAppSendConfig } from '../config.js';
import { runStatement } from '../db/direct-read.js';
import { causeOf, LineLimiter } from '../db/unavailable.js';
import type { CredentialCipher } from '../platform/secrets.js';
import { addressOf, createWhatsAppTextSender, type TextSendOutcome, type WhatsAppTextSender } from '../providers/whatsapp/client.js';
import { cloudMessage, createMediaUploader, type MediaUploader } from '../providers/whatsapp/outbound.js';
import { MediaStores } from '../services/media/index.js';
import { loadConfig } from '../config.js';
import { MediaUploads, type FileToSend } from './media-uploads.js';
import { pruneEarlyChanges } from '../services/whatsapp/message-changes.js';
import { appendEvents, type NewAiEvent } from '../services/events/event-log.js';
import { templateSendEvent } from '../services/whatsapp/template-send.service.js';
import {
  applyEarlyStatuses,
  lockExternalIds,
  messageStatusEvent,
  pruneEarlyStatuses,
  settleMessages,
} from '../services/whatsapp/delivery.js';
import { afterFailure, ATTEMPT_RULES, backoffMs } from './attempts.js';
import { OutboxWorker, type ClaimOwner, type OutboxJob, type OutboxLog, type OutboxQueue, type OutboxResult } from './outbox-worker.js';

/** CONTRACT §10.1: at most 8 attempts per reply (the shared rule of attempts.ts). */
export const MAX_SEND_ATTEMPTS = ATTEMPT_RULES.whatsappSend.maxAttempts;
/** A claimed send's lease lasts the provider deadline plus this: after it, another process may retry it. */
const LEASE_MARGIN_MS = 2000;
const PRUNE_EVERY_MS = 60_000;

export interface WhatsAppSenderOptions {
  orm: MikroORM;
  cipher: CredentialCipher;
  config: WhatsAppSendConfig;
  /** The Cloud API's base URL (WHATSAPP_API_URL) and one request's deadline (PROVIDER_TIMEOUT_MS). */
  apiUrl: string;
  timeoutMs: number;
  log: OutboxLog;
  /** This process's identity and heartbeat (process-liveness.ts): a dead process's sends are resumed within seconds. */
  liveness?: ClaimOwner;
  /** Told after a commit that appended events: the sequencer pass that gives them ids (services/events); `stop` waits for it. */
  onEvents?: (projectId: number) => Promise<void>;
  /** Where files of ours are read from to upload them (CONTRACT §12.4); default the stores the environment configures. */
  media?: MediaStores;
}

type SendResult = OutboxResult<ClaimedSend, TextSendOutcome>;

/** One claimed attempt of a reply: the message, its contact and its agent. */
interface ClaimedSend extends OutboxJob {
  message_id: number;
  project_id: number;
  attempts: number;
  content: string;
  contact: string | null;
  agent_id: number;
  business_id: number | null;
  enabled: boolean;
  credentials: string | null;
  /** CONTRACT §12.4: the message's type and payload, the external id `reply_to_id` names, and a file of ours it sends. */
  type: string;
  payload: Record<string, any> | null;
  context_id: string | null;
  file: (FileToSend & { status: string }) | null;
}

/**
 * Sends replies on WhatsApp (CONTRACT §10.1) from the outbox `ai_message_sends`, which the message's
 * own transaction fills. Every `serve` process runs one, on the shared OutboxWorker loop:
 *
 * - Only the oldest pending send of a conversation is due, so a conversation's messages reach the
 *   provider in the order they were written (a leased or backing-off send holds back the rest).
 * - A claim counts the attempt, leases the row past the provider deadline and names this process
 *   in one statement (FOR UPDATE SKIP LOCKED): two processes never send the same message at once; a
 *   process that dies mid-send stops beating, and within seconds another releases its claims and
 *   retries them (process-liveness.ts); the lease bounds a process that beats but hangs.
 * - An accepted send is recorded even if its lease ran out meanwhile (the message leaves `pending`
 *   once, so it is never sent again); other results only while the row is at the claimed attempt.
 *   The results that arrive together are recorded together (the worker batches them): one statement
 *   for the retries, one transaction per project for the final words and their events; the last
 *   of these transactions also claims the sends now due (the settled conversations' next replies
 *   among them), which leave at its commit. The sequencer pass for the events follows the commit
 *   without holding up the next batch.
 * - Timeouts, connection errors, 5xx, 429 and Meta's throttling codes are retried with backoff
 *   (`retryBaseMs`, doubling) up to MAX_SEND_ATTEMPTS; other answers are final.
 */
export class WhatsAppSender implements OutboxQueue<ClaimedSend, TextSendOutcome> {
  readonly name = 'whatsapp sender';
  readonly table = 'ai_message_sends';
  private readonly worker: OutboxWorker<ClaimedSend, TextSendOutcome>;
  private readonly client: WhatsAppTextSender;
  private readonly secrets = new Map<string, Record<string, unknown> | null>();
  private readonly lines = new LineLimiter();
  private prune: NodeJS.Timeout | undefined;
  private readonly sequencing = new Set<Promise<void>>();
  private readonly uploader: MediaUploader;
  private readonly uploads: MediaUploads;
  private readonly ownStores: MediaStores | null;

  constructor(private readonly opts: WhatsAppSenderOptions) {
    this.client = createWhatsAppTextSender({ baseUrl: opts.apiUrl, timeoutMs: opts.timeoutMs, maxSockets: opts.config.concurrency });
    this.uploader = createMediaUploader({ baseUrl: opts.apiUrl, timeoutMs: opts.timeoutMs });
    this.ownStores = opts.media ? null : new MediaStores(opts.orm, loadConfig().media);
    this.uploads = new MediaUploads({
      orm: opts.orm,
      stores: opts.media ?? this.ownStores!,
      uploader: this.uploader,
      leaseMs: opts.timeoutMs + LEASE_MARGIN_MS,
      waitMs: opts.timeoutMs,
    });
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
    this.prune = setInterval(() => {
      Promise.all([pruneEarlyStatuses(this.opts.orm.em.fork()), pruneEarlyChanges(this.opts.orm.em.fork())]).catch((err) => {
        if (this.lines.admit(causeOf(err)) !== false)
          this.opts.log.warn({ cause: causeOf(err) }, 'whatsapp sender: pruning early statuses and changes failed');
      });
    }, PRUNE_EVERY_MS);
    this.prune.unref();
    return this;
  }

  async stop(): Promise<void> {
    clearInterval(this.prune);
    await this.worker.stop();
    await Promise.allSettled([...this.sequencing]);
    this.client.close();
    this.uploader.close();
    this.ownStores?.close();
  }

  /** Looks for due sends now (after a commit here, or a notification from another process). */
  kick(): void {
    this.worker.kick();
  }

  /** A commit anywhere may have queued work: claims soon (throttled, see OutboxWorker.wake). */
  wake(): void {
    this.worker.wake();
  }

  claim(limit: number, _busy: unknown, owner: string | null): Promise<ClaimedSend[]> {
    return this.claimIn(this.opts.orm.em, limit, owner);
  }

  /** The claim, in `em`'s transaction when it has one (a settling transaction claims what it made due). */
  private async claimIn(em: EntityManager, limit: number, owner: string | null): Promise<ClaimedSend[]> {
    if (limit <= 0) return [];
    const leaseSeconds = (this.opts.timeoutMs + LEASE_MARGIN_MS) / 1000;
    // a reply with a file of ours may upload it first: two provider deadlines
    const uploadLeaseSeconds = (2 * this.opts.timeoutMs + LEASE_MARGIN_MS) / 1000;
    // bind parameters, prepared (db/direct-read.ts): every commit wakes this claim, most find nothing
    const rows = await runStatement<Record<string, any>>(
      em.getConnection(),
      // Each conversation's oldest pending send, found by a skip scan of the pending index: one probe
      // per conversation with pending sends (the first row after the previous conversation is the next
      // one's head), not a pass over every pending row. Due when its time has come; the lock re-checks
      // the row, so a head another process just leased is skipped. The lease runs from the statement's
      // own clock, not the transaction's start: a settling transaction that waited on locks before its
      // claim must not hand out a lease already partly spent.
      `with recursive heads as (
         (select conversation_id, message_id, next_attempt_at from ai_message_sends
           where status = 'pending' order by conversation_id, message_id limit 1)
         union all
         select n.conversation_id, n.message_id, n.next_attempt_at from heads h
          cross join lateral (
            select s.conversation_id, s.message_id, s.next_attempt_at from ai_message_sends s
             where s.status = 'pending' and s.conversation_id > h.conversation_id
             order by s.conversation_id, s.message_id limit 1) n),
       due as (
         select s.message_id from heads h join ai_message_sends s on s.message_id = h.message_id
          where h.next_attempt_at <= now() and s.status = 'pending' and s.next_attempt_at <= now()
          order by h.next_attempt_at, h.message_id
          limit ?
          for update of s skip locked)
       update ai_message_sends s
          set attempts = s.attempts + 1,
              next_attempt_at = clock_timestamp() + make_interval(secs => case when m.payload->>'media_id' is null then ?::float8 else ?::float8 end),
              claimed_by = ?::uuid
         from due, ai_messages m, ai_conversations c, ai_agents a
        where s.message_id = due.message_id and m.id = s.message_id and c.id = m.conversation_id and a.id = c.agent_id
       returning s.message_id, s.project_id, s.conversation_id, s.attempts, m.content, c.contact, c.agent_id,
                 a.business_id, a.enabled, a.credentials, m.type, m.payload,
                 (select r.external_id from ai_messages r where r.id = m.reply_to_id and r.conversation_id = m.conversation_id) as context_id,
                 (select jsonb_build_object('id', f.id, 'project_id', f.project_id, 'status', f.status, 'mime_type', f.mime_type,
                         'size', f.size, 'filename', f.filename, 'storage', f.storage, 'generation', f.generation)
                    from ai_media f where f.id = m.payload->>'media_id' and f.project_id = m.project_id) as file`,
      [limit, leaseSeconds, uploadLeaseSeconds, owner],
      em.getTransactionContext(),
    );
    return rows.map((r) => ({
      id: String(r.message_id),
      group: String(r.conversation_id),
      message_id: Number(r.message_id),
      project_id: Number(r.project_id),
      attempts: Number(r.attempts),
      content: r.content,
      contact: r.contact ?? null,
      agent_id: Number(r.agent_id),
      business_id: r.business_id ?? null,
      enabled: r.enabled === true,
      credentials: r.credentials ?? null,
      type: r.type ?? 'text',
      payload: r.payload ?? null,
      context_id: r.context_id ?? null,
      file: r.file ? { ...r.file, size: Number(r.file.size) } : null,
    }));
  }

  async attempt(job: ClaimedSend): Promise<TextSendOutcome> {
    if (!job.enabled) return { accepted: false, retry: false, error: 'agent disabled' };
    const c = this.credentials(job.credentials);
    const phone = c?.phone_number_id;
    const token = c?.access_token;
    if (typeof phone !== 'string' || !phone || typeof token !== 'string' || !token || !job.contact) {
      return { accepted: false, retry: false, error: 'agent credentials missing (phone_number_id, access_token)' };
    }
    if (job.type === 'text' && !job.context_id)
      return this.client.send({ phone_number_id: phone, access_token: token, to: job.contact, body: job.content });
    let uploadedId: string | null = null;
    if (job.payload?.media_id) {
      const file = job.file;
      if (!file || file.status !== 'stored')
        return { accepted: false, retry: false, error: 'the file of payload.media_id is no longer stored' };
      const upload = await this.uploads.idFor(file, phone, token);
      if (!upload.ok) return { accepted: false, retry: upload.retry, error: `media upload: ${upload.error}` };
      uploadedId = upload.id;
    }
    const message = cloudMessage(addressOf(job.contact), {
      type: job.type,
      content: job.content,
      payload: job.payload,
      contextId: job.context_id,
      reactionTo: job.payload?.external_id ?? null,
      uploadedId,
    });
    return this.client.send({ phone_number_id: phone, access_token: token, to: job.contact, body: job.content, message });
  }

  /**
   * Retries in one statement; the final words in one transaction per project, the last of which
   * also claims up to `free` sends (the next replies of the conversations it settled among them),
   * so a conversation's next reply leaves as soon as the previous one is settled. Null (the worker
   * claims) when no transaction ran.
   */
  async record(results: SendResult[], free: number, owner: string | null): Promise<ClaimedSend[] | null> {
    const final = (r: SendResult) =>
      r.result.accepted ||
      !afterFailure(ATTEMPT_RULES.whatsappSend, this.opts.config.retryBaseMs, r.job.attempts, r.result.error, { retryable: r.result.retry })
        .retry;
    const retries = results.filter((r) => !final(r));
    if (retries.length) await this.retryLater(retries);
    const byProject = new Map<number, SendResult[]>();
    for (const r of results.filter(final)) byProject.set(r.job.project_id, [...(byProject.get(r.job.project_id) ?? []), r]);
    const projects = [...byProject.keys()].sort((a, b) => a - b);
    let claimed: ClaimedSend[] | null = null;
    for (const projectId of projects)
      claimed = await this.settle(projectId, byProject.get(projectId)!, projectId === projects.at(-1) ? free : 0, owner);
    return claimed;
  }

  /** Attempts to be made again: due after their backoff, if still at the claimed attempt. */
  private async retryLater(retries: SendResult[]): Promise<void> {
    const rows = retries.map(({ job, result }) => ({
      message_id: job.message_id,
      attempts: job.attempts,
      delay_s: backoffMs(this.opts.config.retryBaseMs, job.attempts) / 1000,
      error: result.accepted ? null : result.error.slice(0, 500),
    }));
    await this.opts.orm.em.getConnection().execute(
      `update ai_message_sends s set next_attempt_at = now() + make_interval(secs => r.delay_s), last_error = r.error, claimed_by = null
         from jsonb_to_recordset(?::jsonb) as r(message_id bigint, attempts int, delay_s float8, error text)
        where s.message_id = any(?::bigint[]) and s.message_id = r.message_id and s.attempts = r.attempts and s.status = 'pending'`,
      [JSON.stringify(rows), `{${rows.map((r) => r.message_id).join(',')}}`],
      'run',
    );
  }

  /** The final words on a project's sends, their messages and their events, and a claim of up to `claim` sends, in one transaction. */
  private async settle(projectId: number, results: SendResult[], claim: number, owner: string | null): Promise<ClaimedSend[]> {
    const { appended, claimed } = await this.opts.orm.em.fork().transactional(async (tx) => {
      const owned = await this.closeSends(tx, results);
      const accepted = owned.flatMap(({ job, result }) => (result.accepted ? [{ agentId: job.agent_id, externalId: result.id }] : []));
      await lockExternalIds(tx, accepted);
      const settled = await settleMessages(
        tx,
        projectId,
        owned.map(({ job, result }) =>
          result.accepted
            ? { messageId: job.message_id, status: 'accepted', externalId: result.id }
            : { messageId: job.message_id, status: 'failed', error: result.error.slice(0, 1000) },
        ),
      );
      const early = await applyEarlyStatuses(tx, projectId, accepted);
      const jobs = new Map(owned.map((r) => [r.job.message_id, r.job]));
      const events: NewAiEvent[] = [];
      // CONTRACT §15.5: an order notice sent as a template is in the send log too (§9.3), as §6.1's sends are
      for (const { job, result } of owned) {
        if (!result.accepted || job.type !== 'template' || !job.contact) continue;
        const [row] = await run(
          tx,
          `insert into ai_template_sends (project_id, agent_id, template_id, message_id, "to", status)
           select ?, ?, t.id, ?, ?, 'accepted' from ai_templates t where t.id = ? and t.agent_id = ?
           on conflict (agent_id, message_id) do nothing
           returning *`,
          [projectId, job.agent_id, result.id, job.contact, Number(job.payload?.template_id) || 0, job.agent_id],
        );
        if (row) events.push(templateSendEvent('template.sent', row, { id: job.agent_id, business_id: job.business_id }));
      }
      for (const row of settled) {
        const job = jobs.get(Number(row.id))!;
        const agent = { id: job.agent_id, business_id: job.business_id };
        events.push(messageStatusEvent(row, agent));
        for (const moved of row.external_id ? (early.get(`${job.agent_id}:${row.external_id}`) ?? []) : [])
          events.push(messageStatusEvent(moved, agent));
      }
      return { appended: await appendEvents(tx, projectId, events), claimed: await this.claimIn(tx, claim, owner) };
    });
    if (appended) this.sequence(projectId);
    return claimed;
  }

  /** The sequencer pass that gives the events their ids runs after the commit, without holding up the next batch. */
  private sequence(projectId: number): void {
    const pass = this.opts.onEvents?.(projectId);
    if (!pass) return;
    this.sequencing.add(pass);
    void pass.finally(() => this.sequencing.delete(pass));
  }

  /**
   * Marks the sends done and returns those this batch decided: an acceptance counts whatever the
   * lease (the provider has the message, it must not go again); a failure only while the row is at
   * the claimed attempt (else a later attempt owns it). Rows are locked in id order, so two batches
   * that share rows (a lease ran out and another process took the send) never wait on each other in a circle.
   */
  private async closeSends(tx: EntityManager, results: SendResult[]): Promise<SendResult[]> {
    const rows = results.map(({ job, result }) => ({
      message_id: job.message_id,
      attempts: job.attempts,
      accepted: result.accepted,
      error: result.accepted ? null : result.error.slice(0, 500),
    }));
    const done = await run(
      tx,
      `with r as (select * from jsonb_to_recordset(?::jsonb) as r(message_id bigint, attempts int, accepted boolean, error text)),
       locked as (
         select s.message_id from ai_message_sends s join r on r.message_id = s.message_id
          where s.message_id = any(?::bigint[]) and s.status = 'pending' and (r.accepted or s.attempts = r.attempts)
          order by s.message_id
          for update of s)
       update ai_message_sends s set status = 'done', next_attempt_at = null, last_error = r.error, claimed_by = null
         from locked, r
        where s.message_id = locked.message_id and r.message_id = s.message_id and s.status = 'pending' and (r.accepted or s.attempts = r.attempts)
       returning s.message_id`,
      [JSON.stringify(rows), `{${rows.map((r) => r.message_id).join(',')}}`],
    );
    const ids = new Set(done.map((d) => Number(d.message_id)));
    return results.filter((r) => ids.has(r.job.message_id));
  }

  /** The agent's decrypted credentials (null when they cannot be read), cached per stored value. */
  private credentials(stored: string | null): Record<string, unknown> | null {
    if (!stored) return null;
    let plain = this.secrets.get(stored);
    if (plain === undefined) {
      try {
        const value = this.opts.cipher.decrypt<unknown>(stored);
        plain = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
      } catch {
        plain = null;
      }
      if (this.secrets.size >= 1000) this.secrets.clear();
      this.secrets.set(stored, plain);
    }
    return plain;
  }
}

function run(tx: EntityManager, sql: string, params: unknown[]): Promise<Record<string, any>[]> {
  return tx.getConnection().execute<Record<string, any>[]>(sql, params, 'all', tx.getTransactionContext());
}
