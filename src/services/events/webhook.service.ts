import { ID_KEY } from '../../db/advisory.js';
import type { WebhookConfig } from '../../config.js';
import { appError, validationError } from '../../errors/codes.js';
import type { RequestContext } from '../../context/index.js';
import { checkPublicHost, hostOf } from '../../platform/network-guard.js';
import { newToken, type CredentialCipher } from '../../platform/secrets.js';
import { ACCESS, assertAccess, assertAiModule } from '../identity/access.js';
import { AI_EVENT_TYPES } from './event-log.js';
import type { Page } from '../conversations/conversation.service.js';
import { pagination, parseListQuery } from '../shared/list-query.js';
import { ID_MAX } from '../conversations/message-rules.js';

/** CONTRACT §9.4: at most 20 webhooks per project; URLs of at most 2,048 characters. */
export const MAX_WEBHOOKS_PER_PROJECT = 20;
export const MAX_WEBHOOK_URL = 2048;
/** First key of the per-project lock that makes the 20-webhook count exact under concurrency. */
const WEBHOOK_LOCK_CLASS = 0x4f475768; // "OGWh"

/** The webhook record (the secret is never part of it). */
export interface WebhookRecord {
  id: number;
  url: string;
  events: string[];
  enabled: boolean;
  created_at: Date;
}

/** The creation answer: the record and, this once, the signing secret. */
export interface CreatedWebhook extends WebhookRecord {
  secret: string;
}

export interface WebhookDeliveryRecord {
  /** The delivery UUID, sent as X-OrderGraph-Delivery on every attempt. */
  id: string;
  event_id: number;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
}

export interface NewWebhook {
  url: unknown;
  events: unknown;
  enabled?: unknown;
}

const RECORD_COLUMNS = 'id, url, events, enabled, created_at';

/**
 * Outbound webhooks (CONTRACT §9.4): levels 0 and server keys only, checked here so /graphql
 * gets the same rules. Deliveries are enqueued by `appendEvents` (event-log.ts) and sent by the
 * dispatcher (workers/webhook-dispatcher.ts). Every query names the project.
 */
export class WebhookService {
  constructor(
    private readonly config: WebhookConfig,
    private readonly cipher: CredentialCipher,
  ) {}

  async list(ctx: RequestContext): Promise<WebhookRecord[]> {
    guard(ctx);
    const rows = await ctx.em
      .getConnection()
      .execute<Record<string, unknown>[]>(
        `select ${RECORD_COLUMNS} from ai_webhooks where project_id = ? order by id`,
        [ctx.project.id],
        'all',
      );
    return rows.map(webhookRecord);
  }

  async create(ctx: RequestContext, input: NewWebhook): Promise<CreatedWebhook> {
    guard(ctx);
    const url = await this.checkUrl(input.url);
    const events = checkEvents(input.events);
    if (input.enabled !== undefined && input.enabled !== null && typeof input.enabled !== 'boolean')
      throw validationError([{ field: 'enabled', rule: 'boolean' }]);
    const enabled = input.enabled !== false;
    const secret = newToken('whsec');
    const row = await ctx.em.transactional(async (tx) => {
      const connection = tx.getConnection();
      const txCtx = tx.getTransactionContext();
      await connection.execute(`select pg_advisory_xact_lock(?, ${ID_KEY})`, [WEBHOOK_LOCK_CLASS, ctx.project.id], 'run', txCtx);
      const [{ n }] = await connection.execute<{ n: number }[]>(
        'select count(*)::int as n from ai_webhooks where project_id = ?',
        [ctx.project.id],
        'all',
        txCtx,
      );
      if (n >= MAX_WEBHOOKS_PER_PROJECT)
        throw validationError([{ field: 'url', key: 'webhooks_limit', params: { max: MAX_WEBHOOKS_PER_PROJECT } }]);
      const [inserted] = await connection.execute<Record<string, unknown>[]>(
        `insert into ai_webhooks (project_id, url, events, enabled, secret) values (?, ?, ?::jsonb, ?, ?) returning ${RECORD_COLUMNS}`,
        [ctx.project.id, url, JSON.stringify(events), enabled, this.cipher.encrypt(secret)],
        'all',
        txCtx,
      );
      return inserted;
    });
    return { ...webhookRecord(row), secret };
  }

  /** Deletes the webhook and its deliveries; answers the deleted record. */
  async delete(ctx: RequestContext, webhookId: number): Promise<WebhookRecord> {
    guard(ctx);
    const [row] = validId(webhookId)
      ? await ctx.em
          .getConnection()
          .execute<Record<string, unknown>[]>(
            `delete from ai_webhooks where project_id = ? and id = ? returning ${RECORD_COLUMNS}`,
            [ctx.project.id, webhookId],
            'all',
          )
      : [];
    if (!row) throw appError('ERROR_WEBHOOK_NOT_FOUND');
    return webhookRecord(row);
  }

  /** `GET /ai/webhooks/{id}/deliveries`: newest first, paginated (CONTRACT §3 page, page_size). */
  async deliveries(
    ctx: RequestContext,
    webhookId: number,
    input: { page?: number | null; page_size?: number | null },
  ): Promise<Page<WebhookDeliveryRecord>> {
    guard(ctx);
    const q = parseListQuery({ page: input.page, page_size: input.page_size }, {});
    const connection = ctx.em.getConnection();
    const [hook] = validId(webhookId)
      ? await connection.execute<{ id: number }[]>(
          'select id from ai_webhooks where project_id = ? and id = ?',
          [ctx.project.id, webhookId],
          'all',
        )
      : [];
    if (!hook) throw appError('ERROR_WEBHOOK_NOT_FOUND');
    const [rows, [{ total }]] = await Promise.all([
      connection.execute<Record<string, unknown>[]>(
        `select delivery_id, event_id, event_type, status, attempts, last_status_code, last_error, next_attempt_at, delivered_at
           from ai_webhook_deliveries where project_id = ? and webhook_id = ?
          order by id desc limit ? offset ?`,
        [ctx.project.id, webhookId, q.page_size, (q.page - 1) * q.page_size],
        'all',
      ),
      connection.execute<{ total: number }[]>(
        'select count(*)::int as total from ai_webhook_deliveries where project_id = ? and webhook_id = ?',
        [ctx.project.id, webhookId],
        'all',
      ),
    ]);
    return { items: rows.map(deliveryRecord), pagination: pagination(q.page, q.page_size, total, rows.length) };
  }

  /** http(s), at most 2,048 characters, and (unless allowed) a host with public addresses only. */
  private async checkUrl(value: unknown): Promise<string> {
    if (typeof value !== 'string' || value.length === 0) throw validationError([{ field: 'url', rule: 'url' }]);
    if (value.length > MAX_WEBHOOK_URL) throw validationError([{ field: 'url', rule: 'max_length', params: { max: MAX_WEBHOOK_URL } }]);
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw validationError([{ field: 'url', rule: 'url' }]);
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) throw validationError([{ field: 'url', rule: 'url' }]);
    if (!this.config.allowPrivateNetworks) {
      const check = await checkPublicHost(hostOf(url));
      if (check === 'private') throw validationError([{ field: 'url', key: 'webhook_url_private' }]);
      if (check === 'unresolvable') throw validationError([{ field: 'url', key: 'webhook_url_unresolvable' }]);
    }
    return value;
  }
}

function guard(ctx: RequestContext): void {
  assertAccess(ctx, ACCESS.INTERNAL);
  assertAiModule(ctx);
}

const validId = (id: number) => Number.isInteger(id) && id >= 1 && id <= ID_MAX;

/** A non-empty array of known event types, or exactly ["*"]; duplicates are dropped. */
function checkEvents(value: unknown): string[] {
  if (!Array.isArray(value)) throw validationError([{ field: 'events', rule: 'array' }]);
  if (value.length === 0) throw validationError([{ field: 'events', rule: 'not_empty' }]);
  const unique = [...new Set(value as unknown[])];
  if (unique.length === 1 && unique[0] === '*') return ['*'];
  // "*" stands alone: mixed with types, only the types are allowed
  const allowed: readonly string[] = unique.includes('*') ? AI_EVENT_TYPES : ['*', ...AI_EVENT_TYPES];
  if (unique.some((t) => typeof t !== 'string' || !(AI_EVENT_TYPES as readonly string[]).includes(t))) {
    throw validationError([{ field: 'events', rule: 'items_enum', params: { values: allowed } }]);
  }
  return unique as string[];
}

function webhookRecord(row: Record<string, unknown>): WebhookRecord {
  return {
    id: Number(row.id),
    url: row.url as string,
    events: row.events as string[],
    enabled: row.enabled as boolean,
    created_at: new Date(row.created_at as string | Date),
  };
}

const dateOrNull = (v: unknown) => (v == null ? null : new Date(v as string | Date));

function deliveryRecord(row: Record<string, unknown>): WebhookDeliveryRecord {
  return {
    id: row.delivery_id as string,
    event_id: Number(row.event_id),
    event_type: row.event_type as string,
    status: row.status as WebhookDeliveryRecord['status'],
    attempts: Number(row.attempts),
    last_status_code: row.last_status_code == null ? null : Number(row.last_status_code),
    last_error: (row.last_error as string | null) ?? null,
    next_attempt_at: dateOrNull(row.next_attempt_at),
    delivered_at: dateOrNull(row.delivered_at),
  };
}
