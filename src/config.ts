/** Process configuration, read once from the environment. Every variable is documented in the README. */
import os from 'node:os';
import v8 from 'node:v8';

export type GraphEngineName = 'mercurius' | 'apollo';

export interface AppConfig {
  port: number;
  host: string;
  /** This process's node (NODE_NAME, default host name:PORT): a restarted process takes over the outbox claims of its node's previous one. */
  nodeName: string;
  databaseUrl?: string;
  /** A session of its own (migrations, seeders, LISTEN): DATABASE_DIRECT_URL, else DATABASE_URL. */
  databaseDirectUrl?: string;
  /** Read replicas (DATABASE_REPLICA_URLS, comma list): list and metrics reads. */
  replicaUrls: string[];
  redisUrl?: string;
  graphqlEngine: GraphEngineName;
  logLevel: string;
  maintenance: boolean;
  trustProxy: string[];
  sessionTtlSeconds: number;
  credentialsKey: string;
  recaptchaVerifyUrl: string;
  recaptchaSecret: string;
  whatsappApiUrl: string;
  /** Timeout of one provider HTTP call (WhatsApp Cloud API), in milliseconds. */
  providerTimeoutMs: number;
  dataDir: string;
  /** Origins browsers may call from (CORS_ORIGINS, comma list); `*` allows any. */
  corsOrigins: string[];
  /** Server-side bound of one SQL statement of the serving pool, in milliseconds (0: none). */
  dbStatementTimeoutMs: number;
  /** How long a request may wait for a pooled connection (and a new connection to open), in milliseconds. */
  dbAcquireTimeoutMs: number;
  /** After SIGTERM/SIGINT, how long in-flight requests may take before they are cut and the process exits. */
  shutdownTimeoutMs: number;
  /** Bearer token that may read /metrics from anywhere (without it: loopback and private networks only). */
  metricsToken?: string;
  /** OPERATOR_TOKEN: `Authorization: Bearer` of the deployment's operator on /graphql (CONTRACT §11); unset: no operator through the API. */
  operatorToken?: string;
  /** Connections of `serve`'s database pool. */
  databasePoolMax: number;
  /** Reads run as named prepared statements (off behind a transaction-mode pooler that does not track them). */
  databasePreparedStatements: boolean;
  /** How often `serve` closes idle conversations and deletes expired idempotency keys (AI_IDLE_SWEEP_MS; 0: never). */
  idleSweepMs: number;
  /** How often `serve` folds the conversation metrics' deltas into the rollups (METRICS_COMPACT_MS; 0: never). */
  metricsCompactMs: number;
  /** Message writes of one project coalesced into one transaction at most (WRITE_BATCH_MAX; 1: each alone; docs/write-batches.md). */
  writeBatchMax: number;
  /** Events (CONTRACT §9.4): kept this many days (EVENTS_RETENTION_DAYS, at least 7 by the contract). */
  eventsRetentionDays: number;
  /** A `: keep-alive` comment on every SSE stream at least this often (EVENTS_KEEPALIVE_MS). */
  eventsKeepAliveMs: number;
  /** The safety net under notifications: every open stream's project log is re-read this often (EVENTS_POLL_MS). */
  eventsPollMs: number;
  /** An SSE stream that sent events less than this ago sends the next ones together at the window's end (EVENTS_FLUSH_MS; 0, the default: at once; 20–100 ms measured no gain, docs/events.md). */
  eventsFlushMs: number;
  /** What one stream may hold unsent (its queue, then the socket's buffer) before it is closed (EVENTS_STREAM_BUFFER_BYTES). */
  eventsStreamBufferBytes: number;
  /** How often a process tries to prune old events (EVENTS_PRUNE_INTERVAL_MS; 0: never). */
  eventsPruneIntervalMs: number;
  /** Outbound webhooks (CONTRACT §9.4, docs/webhooks.md). */
  webhooks: WebhookConfig;
  /** Open streams (SSE and subscriptions): caps and re-validation (CONTRACT §11, docs/events.md). */
  streams: StreamsConfig;
  /** Load shedding (CONTRACT §11's last rule, docs/events.md). */
  pressure: PressureConfig;
  /** WebSockets that have not completed `connection_init`, bounded apart (CONTRACT §11, docs/events.md). */
  wsPending: WsPendingConfig;
  /** Replies sent on WhatsApp (CONTRACT §10.1, docs/whatsapp.md); one attempt's deadline is providerTimeoutMs. */
  whatsappSends: WhatsAppSendConfig;
  /** Media kept by the service (CONTRACT §12.3, docs/media.md). */
  media: MediaConfig;
  /** The import of the phone's history (CONTRACT §13.3, docs/whatsapp.md). */
  historyImport: HistoryImportConfig;
}

export interface HistoryImportConfig {
  /** The safety poll of the import's outbox (HISTORY_IMPORT_POLL_MS, default 500). */
  pollMs: number;
  /** Chunks imported at once by one process (HISTORY_IMPORT_CONCURRENCY, default 2; one agent's chunks go one at a time). */
  concurrency: number;
  /** First retry of a chunk whose import failed (HISTORY_IMPORT_RETRY_BASE_MS, default 1,000), doubling, at most 10 minutes. */
  retryBaseMs: number;
  /**
   * Messages imported per second by one process, at most (HISTORY_IMPORT_RATE, default 6,000; 0: unpaced). The pause
   * after each chunk leaves live traffic its share of the cores while months of history arrive.
   */
  messagesPerSecond: number;
}

export interface MediaConfig {
  /** The largest file kept, whatever its kind (MEDIA_MAX_BYTES, default 100 MB, at most 2 GiB - 1). */
  maxBytes: number;
  /** First retry of a download (MEDIA_RETRY_BASE_MS, default 1,000), doubling, capped at 10 minutes. */
  retryBaseMs: number;
  /** How often an idle downloader looks for due downloads (MEDIA_DOWNLOAD_POLL_MS, default 500). */
  pollMs: number;
  /** Downloads in flight per process (MEDIA_DOWNLOAD_CONCURRENCY, default 20). */
  concurrency: number;
  /**
   * A download attempt that makes no progress this long (no byte received from Meta or accepted by the
   * store) is abandoned and retried like a timeout; also an S3 request's idle bound (MEDIA_STALL_MS, default 60,000).
   */
  stallMs: number;
  /** An S3-compatible bucket (MEDIA_S3_BUCKET, MEDIA_S3_ENDPOINT, MEDIA_S3_REGION); absent: files in PostgreSQL. */
  s3?: { bucket: string; endpoint?: string; region: string };
}

export interface StreamsConfig {
  /** Open streams per credential, all processes together (STREAMS_PER_CREDENTIAL, default 20). */
  perCredential: number;
  /** Open streams per project, all processes together (STREAMS_PER_PROJECT, default 2,000). */
  perProject: number;
  /** How often a process re-checks the credentials of its open streams (STREAMS_REVALIDATE_MS, default 30 s). */
  revalidateMs: number;
}

export interface WsPendingConfig {
  /** Per client address (WS_PENDING_PER_ADDRESS, default 10). */
  perAddress: number;
  /** Per process (WS_PENDING_MAX, default 1,000). */
  max: number;
}

export interface PressureConfig {
  /** Open streams one process holds; past it new streams are refused, never requests (STREAMS_MAX_OPEN, defaultMaxOpenStreams). */
  maxOpenStreams: number;
  /** Live heap (after the last full collection), as a fraction of the heap limit, past which it sheds load (PRESSURE_MAX_HEAP_RATIO; 0: never). */
  maxHeapRatio: number;
  /** Mean event-loop delay over a sample past which it sheds load (PRESSURE_MAX_EVENT_LOOP_DELAY_MS; 0: never). */
  maxEventLoopDelayMs: number;
  /** How often heap and event-loop delay are sampled (PRESSURE_SAMPLE_MS). */
  sampleMs: number;
}

export interface WhatsAppSendConfig {
  /** First retry delay (WHATSAPP_RETRY_BASE_MS, default 1,000), doubling per attempt. */
  retryBaseMs: number;
  /** How often an idle sender looks for due sends without being woken (WHATSAPP_SEND_POLL_MS). */
  pollMs: number;
  /** Sends in flight per process (WHATSAPP_SEND_CONCURRENCY). */
  concurrency: number;
}

export interface WebhookConfig {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS=1: URLs may point at loopback, private and link-local addresses. */
  allowPrivateNetworks: boolean;
  /** First retry delay (WEBHOOK_RETRY_BASE_MS), doubling per attempt. */
  retryBaseMs: number;
  /** One attempt's deadline, connection to answer (WEBHOOK_TIMEOUT_MS, default 10 s). */
  timeoutMs: number;
  /** How often an idle dispatcher looks for due deliveries (WEBHOOK_POLL_MS). */
  pollMs: number;
  /** Attempts in flight per process (WEBHOOK_CONCURRENCY), and per webhook (WEBHOOK_CONCURRENCY_PER_WEBHOOK). */
  concurrency: number;
  concurrencyPerWebhook: number;
}

/**
 * The heap one open stream may take, for sizing STREAMS_MAX_OPEN (docs/events.md): measured 13 KB
 * per SSE stream and 21 KB per graphql-ws subscription (its socket and protocol state), with room.
 */
export const STREAM_HEAP_BYTES = 24 * 1024;
/** The share of the heap limit open streams may take together; the rest is the process's own and its requests'. */
export const STREAMS_HEAP_SHARE = 0.5;

/**
 * The default STREAMS_MAX_OPEN: what STREAMS_HEAP_SHARE of this process's heap limit holds at
 * STREAM_HEAP_BYTES each, at most 10,000 (file descriptors and the CPU of one fan-out bound it too).
 */
export function defaultMaxOpenStreams(heapLimit = v8.getHeapStatistics().heap_size_limit): number {
  return Math.max(1, Math.min(10_000, Math.floor((heapLimit * STREAMS_HEAP_SHARE) / STREAM_HEAP_BYTES)));
}

function num(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`expected a number, got "${value}"`);
  return n;
}

function int(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`expected an integer, got "${value}"`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const engine = env.GRAPHQL_ENGINE ?? 'mercurius';
  if (engine !== 'mercurius' && engine !== 'apollo') {
    throw new Error(`GRAPHQL_ENGINE must be "mercurius" or "apollo", got "${engine}"`);
  }
  return {
    port: int(env.PORT, 3000),
    host: env.HOST ?? '127.0.0.1',
    nodeName: env.NODE_NAME || `${os.hostname()}:${int(env.PORT, 3000)}`,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseDirectUrl: env.DATABASE_DIRECT_URL || undefined,
    replicaUrls: (env.DATABASE_REPLICA_URLS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    redisUrl: env.REDIS_URL || undefined,
    graphqlEngine: engine,
    logLevel: env.LOG_LEVEL ?? 'info',
    maintenance: env.MAINTENANCE_MODE === '1' || env.MAINTENANCE_MODE === 'true',
    trustProxy: (env.TRUST_PROXY ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    sessionTtlSeconds: int(env.SESSION_TTL_SECONDS, 30 * 24 * 3600),
    credentialsKey: env.CREDENTIALS_KEY ?? '',
    recaptchaVerifyUrl: env.RECAPTCHA_VERIFY_URL ?? 'https://www.google.com/recaptcha/api/siteverify',
    recaptchaSecret: env.RECAPTCHA_SECRET ?? '',
    whatsappApiUrl: (env.WHATSAPP_API_URL ?? 'https://graph.facebook.com/v21.0').replace(/\/+$/, ''),
    providerTimeoutMs: int(env.PROVIDER_TIMEOUT_MS, 10_000),
    dataDir: env.DATA_DIR ?? '.data',
    corsOrigins: (env.CORS_ORIGINS ?? '*')
      .split(',')
      .map((s) => s.trim().replace(/\/+$/, ''))
      .filter(Boolean),
    dbStatementTimeoutMs: int(env.DB_STATEMENT_TIMEOUT_MS, 10_000),
    dbAcquireTimeoutMs: int(env.DB_ACQUIRE_TIMEOUT_MS, 5_000),
    shutdownTimeoutMs: int(env.SHUTDOWN_TIMEOUT_MS, 15_000),
    metricsToken: env.METRICS_TOKEN || undefined,
    operatorToken: env.OPERATOR_TOKEN || undefined,
    databasePoolMax: int(env.DATABASE_POOL_MAX, 10),
    databasePreparedStatements: !['0', 'false'].includes(env.DATABASE_PREPARED_STATEMENTS ?? ''),
    idleSweepMs: int(env.AI_IDLE_SWEEP_MS, 15_000),
    metricsCompactMs: int(env.METRICS_COMPACT_MS, 1_000),
    writeBatchMax: Math.max(1, int(env.WRITE_BATCH_MAX, 64)),
    webhooks: {
      allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === '1' || env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
      retryBaseMs: Math.max(1, int(env.WEBHOOK_RETRY_BASE_MS, 1000)),
      timeoutMs: Math.max(1, int(env.WEBHOOK_TIMEOUT_MS, 10_000)),
      pollMs: Math.max(10, int(env.WEBHOOK_POLL_MS, 250)),
      concurrency: Math.max(1, int(env.WEBHOOK_CONCURRENCY, 32)),
      concurrencyPerWebhook: Math.max(1, int(env.WEBHOOK_CONCURRENCY_PER_WEBHOOK, 8)),
    },
    whatsappSends: {
      retryBaseMs: Math.max(1, int(env.WHATSAPP_RETRY_BASE_MS, 1000)),
      pollMs: Math.max(10, int(env.WHATSAPP_SEND_POLL_MS, 500)),
      concurrency: Math.max(1, int(env.WHATSAPP_SEND_CONCURRENCY, 64)),
    },
    media: {
      maxBytes: Math.min(2 ** 31 - 1, Math.max(1, int(env.MEDIA_MAX_BYTES, 100 * 1024 * 1024))),
      retryBaseMs: Math.max(1, int(env.MEDIA_RETRY_BASE_MS, 1000)),
      pollMs: Math.max(10, int(env.MEDIA_DOWNLOAD_POLL_MS, 500)),
      concurrency: Math.max(1, int(env.MEDIA_DOWNLOAD_CONCURRENCY, 20)),
      stallMs: Math.max(100, int(env.MEDIA_STALL_MS, 60_000)),
      s3: env.MEDIA_S3_BUCKET
        ? { bucket: env.MEDIA_S3_BUCKET, endpoint: env.MEDIA_S3_ENDPOINT || undefined, region: env.MEDIA_S3_REGION || 'us-east-1' }
        : undefined,
    },
    historyImport: {
      pollMs: Math.max(10, int(env.HISTORY_IMPORT_POLL_MS, 500)),
      concurrency: Math.max(1, int(env.HISTORY_IMPORT_CONCURRENCY, 2)),
      retryBaseMs: Math.max(1, int(env.HISTORY_IMPORT_RETRY_BASE_MS, 1000)),
      messagesPerSecond: Math.max(0, int(env.HISTORY_IMPORT_RATE, 6000)),
    },
    eventsRetentionDays: int(env.EVENTS_RETENTION_DAYS, 7),
    eventsKeepAliveMs: int(env.EVENTS_KEEPALIVE_MS, 15_000),
    eventsPollMs: int(env.EVENTS_POLL_MS, 2_000),
    eventsFlushMs: Math.max(0, int(env.EVENTS_FLUSH_MS, 0)),
    eventsStreamBufferBytes: int(env.EVENTS_STREAM_BUFFER_BYTES, 1024 * 1024),
    eventsPruneIntervalMs: int(env.EVENTS_PRUNE_INTERVAL_MS, 60_000),
    streams: {
      perCredential: Math.max(1, int(env.STREAMS_PER_CREDENTIAL, 20)),
      perProject: Math.max(1, int(env.STREAMS_PER_PROJECT, 2000)),
      revalidateMs: Math.max(50, int(env.STREAMS_REVALIDATE_MS, 30_000)),
    },
    wsPending: {
      perAddress: Math.max(1, int(env.WS_PENDING_PER_ADDRESS, 10)),
      max: Math.max(1, int(env.WS_PENDING_MAX, 1000)),
    },
    pressure: {
      maxOpenStreams: Math.max(1, int(env.STREAMS_MAX_OPEN, defaultMaxOpenStreams())),
      maxHeapRatio: num(env.PRESSURE_MAX_HEAP_RATIO, 0.75),
      maxEventLoopDelayMs: Math.max(0, int(env.PRESSURE_MAX_EVENT_LOOP_DELAY_MS, 1000)),
      sampleMs: Math.max(10, int(env.PRESSURE_SAMPLE_MS, 500)),
    },
  };
}
