import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { WhatsAppSendConfig } from '../config.js';
import { causeOf, LineLimiter } from '../db/unavailable.js';
import type { CredentialCipher } from '../platform/secrets.js';
import { createWhatsAppTextSender, type TextMessage, type TextSendOutcome } from '../providers/whatsapp/client.js';
import { appendEvents, type NewAiEvent } from '../services/events/event-log.js';
import { applyEarlyStatuses, lockExternalId, messageStatusEvent, pruneEarlyStatuses, settleMessage } from '../services/whatsapp/delivery.js';
import { backoffMs, OutboxWorker, type OutboxJob, type OutboxLog, type OutboxQueue } from './outbox-worker.js';

/** CONTRACT §10.1: at most 8 attempts per reply. */
export const MAX_SEND_ATTEMPTS = 8;
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
  /** Told after a commit that appended events: the sequencer pass that gives them ids (services/events). */
  onEvents?: (projectId: number) => Promise<void>;
}

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
}

/**
 * Sends replies on WhatsApp (CONTRACT §10.1) from the outbox `ai_message_sends`, which the message's
 * own transaction fills. Every `serve` process runs one, on the shared OutboxWorker loop:
 *
 * - Only the oldest pending send of a conversation is due, so a conversation's messages reach the
 *   provider in the order they were written (a leased or backing-off send holds back the rest).
 * - A claim counts the attempt and leases the row past the provider deadline in one statement
 *   (FOR UPDATE SKIP LOCKED): two processes never send the same message at once; a process that
 *   dies mid-send leaves the lease to expire, and another retries it.
 * - An accepted send is recorded even if its lease ran out meanwhile (the message leaves `pending`
 *   once, so it is never sent again); other results only while the row is at the claimed attempt.
 * - Timeouts, connection errors, 5xx, 429 and Meta's throttling codes are retried with backoff
 *   (`retryBaseMs`, doubling) up to MAX_SEND_ATTEMPTS; other answers are final.
 */
export class WhatsAppSender implements OutboxQueue<ClaimedSend> {
  readonly name = 'whatsapp sender';
  private readonly worker: OutboxWorker<ClaimedSend>;
  private readonly send: (message: TextMessage) => Promise<TextSendOutcome>;
  private readonly secrets = new Map<string, Record<string, unknown> | null>();
  private readonly lines = new LineLimiter();
  private prune: NodeJS.Timeout | undefined;

  constructor(private readonly opts: WhatsAppSenderOptions) {
    this.send = createWhatsAppTextSender({ baseUrl: opts.apiUrl, timeoutMs: opts.timeoutMs });
    this.worker = new OutboxWorker(this, { concurrency: opts.config.concurrency, pollMs: opts.config.pollMs, drainMs: opts.timeoutMs + 1000, log: opts.log });
  }

  start(): this {
    this.worker.start();
    this.prune = setInterval(() => {
      pruneEarlyStatuses(this.opts.orm.em.fork()).catch((err) => {
        if (this.lines.admit(causeOf(err)) !== false) this.opts.log.warn({ cause: causeOf(err) }, 'whatsapp sender: pruning early statuses failed');
      });
    }, PRUNE_EVERY_MS);
    this.prune.unref();
    return this;
  }

  async stop(): Promise<void> {
    clearInterval(this.prune);
    await this.worker.stop();
  }

  /** Looks for due sends now (after a commit here, or a notification from another process). */
  kick(): void {
    this.worker.kick();
  }

  /** A commit anywhere may have queued work: claims soon (throttled, see OutboxWorker.wake). */
  wake(): void {
    this.worker.wake();
  }

  async claim(limit: number): Promise<ClaimedSend[]> {
    const leaseSeconds = (this.opts.timeoutMs + LEASE_MARGIN_MS) / 1000;
    const rows = await this.opts.orm.em.getConnection().execute<Record<string, any>[]>(
      // Each conversation's oldest pending send (one pass over the pending index), due when its time
      // has come; the lock re-checks the row, so a head another process just leased is skipped.
      `with heads as (
         select distinct on (conversation_id) message_id, next_attempt_at from ai_message_sends
          where status = 'pending'
          order by conversation_id, message_id),
       due as (
         select s.message_id from heads h join ai_message_sends s on s.message_id = h.message_id
          where h.next_attempt_at <= now() and s.status = 'pending' and s.next_attempt_at <= now()
          order by h.next_attempt_at, h.message_id
          limit ?
          for update of s skip locked)
       update ai_message_sends s
          set attempts = s.attempts + 1, next_attempt_at = now() + make_interval(secs => ?)
         from due, ai_messages m, ai_conversations c, ai_agents a
        where s.message_id = due.message_id and m.id = s.message_id and c.id = m.conversation_id and a.id = c.agent_id
       returning s.message_id, s.project_id, s.conversation_id, s.attempts, m.content, c.contact, c.agent_id,
                 a.business_id, a.enabled, a.credentials`,
      [limit, leaseSeconds],
      'all',
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
    }));
  }

  async process(job: ClaimedSend): Promise<void> {
    await this.record(job, await this.attempt(job));
  }

  private async attempt(job: ClaimedSend): Promise<TextSendOutcome> {
    if (!job.enabled) return { accepted: false, retry: false, error: 'agent disabled' };
    const c = this.credentials(job.credentials);
    const phone = c?.phone_number_id;
    const token = c?.access_token;
    if (typeof phone !== 'string' || !phone || typeof token !== 'string' || !token || !job.contact) {
      return { accepted: false, retry: false, error: 'agent credentials missing (phone_number_id, access_token)' };
    }
    return this.send({ phone_number_id: phone, access_token: token, to: job.contact, body: job.content });
  }

  private async record(job: ClaimedSend, outcome: TextSendOutcome): Promise<void> {
    const final = outcome.accepted || !outcome.retry || job.attempts >= MAX_SEND_ATTEMPTS;
    const error = outcome.accepted ? null : outcome.error.slice(0, 500);
    if (!final) {
      await this.opts.orm.em.getConnection().execute(
        `update ai_message_sends set next_attempt_at = now() + make_interval(secs => ?), last_error = ?
          where message_id = ? and attempts = ? and status = 'pending'`,
        [backoffMs(this.opts.config.retryBaseMs, job.attempts) / 1000, error, job.message_id, job.attempts],
        'run',
      );
      return;
    }
    const appended = await this.opts.orm.em.fork().transactional(async (tx) => {
      // An acceptance counts whatever the lease: the provider has the message, it must not go again.
      const [done] = await run(
        tx,
        `update ai_message_sends set status = 'done', next_attempt_at = null, last_error = ?
          where message_id = ? and status = 'pending' ${outcome.accepted ? '' : 'and attempts = ?'}
          returning message_id`,
        outcome.accepted ? [error, job.message_id] : [error, job.message_id, job.attempts],
      );
      if (!done) return false; // a later attempt owns the row
      const agent = { id: job.agent_id, business_id: job.business_id };
      if (outcome.accepted) await lockExternalId(tx, job.agent_id, outcome.id);
      const settled = await settleMessage(
        tx,
        job.project_id,
        job.message_id,
        outcome.accepted ? { status: 'accepted', externalId: outcome.id } : { status: 'failed', error: outcome.error.slice(0, 1000) },
      );
      if (!settled) return false;
      const events: NewAiEvent[] = [messageStatusEvent(settled, agent)];
      if (outcome.accepted) {
        for (const row of await applyEarlyStatuses(tx, job.project_id, job.agent_id, outcome.id)) events.push(messageStatusEvent(row, agent));
      }
      return appendEvents(tx, job.project_id, events);
    });
    if (appended) await this.opts.onEvents?.(job.project_id);
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
