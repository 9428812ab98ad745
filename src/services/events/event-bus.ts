import { Redis } from 'ioredis';
import pg from 'pg';
import { causeOf, LineLimiter } from '../../db/unavailable.js';
import { EVENTS_CHANNEL, parseWork, WORK_CHANNEL, type OutboxKind } from './event-log.js';

/** "Events up to id `lastId` in project `projectId` are committed"; `null` means "anything may have changed". */
export type BusListener = (projectId: number | null, lastId: number) => void;
/** "Rows were committed for these outbox workers" by the process `origin` (event-log.ts WORK_CHANNEL). */
export type WorkListener = (origin: string, kinds: readonly OutboxKind[]) => void;

export interface BusLog {
  warn(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
}

/**
 * How the processes of a deployment tell each other that events were committed (CONTRACT §9.4).
 * A notification only says "events up to N in project P": streams then read the log, so a lost
 * or late notification delays an event, never loses it.
 */
export interface EventBus {
  readonly kind: 'postgres' | 'redis';
  /** Called after a commit that appended events (the PostgreSQL NOTIFY is already sent by the transaction). */
  publish(projectId: number, lastId: number): void;
  /** Called after a commit that queued rows for these outbox workers (the PostgreSQL NOTIFY is already sent by the pass). */
  publishWork(origin: string, kinds: readonly OutboxKind[]): void;
  close(): Promise<void>;
}

/** Parses a `P:N` payload; null when malformed. */
export function parsePayload(payload: string | undefined): { projectId: number; lastId: number } | null {
  const m = /^(\d{1,10}):(\d{1,19})$/.exec(payload ?? '');
  return m ? { projectId: Number(m[1]), lastId: Number(m[2]) } : null;
}

const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 5_000;

/**
 * PostgreSQL LISTEN on ONE dedicated session connection per process (`url`: DATABASE_DIRECT_URL
 * when set, since a transaction-mode PgBouncer cannot hold a LISTEN), reconnecting with backoff.
 * After every (re)connection the listener hears `null`: notifications sent while it was away are
 * lost, so every stream re-reads the log.
 */
export function postgresBus(url: string, listener: BusListener, onWork: WorkListener, log: BusLog): EventBus {
  let client: pg.Client | null = null;
  let closed = false;
  let delay = BACKOFF_MIN_MS;
  let timer: NodeJS.Timeout | null = null;
  let connectedOnce = false;

  const schedule = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, delay);
    timer.unref();
    delay = Math.min(delay * 2, BACKOFF_MAX_MS);
  };

  const lines = new LineLimiter();
  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
    let failed = false;
    const fail = (err?: unknown) => {
      if (failed) return;
      failed = true;
      if (client === c) client = null;
      c.removeAllListeners('notification');
      c.end().catch(() => undefined);
      if (!closed) {
        // While the database is away every reconnect fails: one line per cause per 5 s.
        const cause = err === undefined ? 'ended' : causeOf(err);
        if (lines.admit(cause) !== false) log.warn({ cause }, 'events LISTEN connection lost; reconnecting');
        schedule();
      }
    };
    c.on('error', fail);
    c.on('end', () => fail());
    c.on('notification', (msg) => {
      if (msg.channel === WORK_CHANNEL) {
        const w = parseWork(msg.payload);
        if (w) onWork(w.origin, w.kinds);
        return;
      }
      if (msg.channel !== EVENTS_CHANNEL) return;
      const p = parsePayload(msg.payload);
      if (p) listener(p.projectId, p.lastId);
    });
    try {
      await c.connect();
      await c.query(`listen ${EVENTS_CHANNEL}; listen ${WORK_CHANNEL}`);
    } catch (err) {
      fail(err);
      return;
    }
    if (closed) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    delay = BACKOFF_MIN_MS;
    if (connectedOnce) log.info({}, 'events LISTEN connection restored');
    connectedOnce = true;
    listener(null, 0);
  }

  void connect();
  return {
    kind: 'postgres',
    publish: () => undefined,
    publishWork: () => undefined,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}

/**
 * Redis pub/sub (REDIS_URL): `publish` sends `P:N` after the commit, every process subscribes.
 * The channel is named after the database, so deployments sharing a Redis never hear each other.
 * ioredis reconnects by itself; after a reconnection the listener hears `null`.
 */
export function redisBus(redisUrl: string, namespace: string, listener: BusListener, onWork: WorkListener, log: BusLog): EventBus {
  const channel = `ordergraph:${namespace}:${EVENTS_CHANNEL}`;
  const workChannel = `ordergraph:${namespace}:${WORK_CHANNEL}`;
  const options = {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (n: number) => Math.min(BACKOFF_MIN_MS * 2 ** n, BACKOFF_MAX_MS),
  };
  const pub = new Redis(redisUrl, options);
  const sub = new Redis(redisUrl, { ...options, enableOfflineQueue: true });
  let warned = false;
  for (const r of [pub, sub]) {
    r.on('error', (err) => {
      if (!warned) log.warn({ err: err.message }, 'events Redis connection failed; retrying');
      warned = true;
    });
  }
  sub.on('ready', () => {
    warned = false;
    sub.subscribe(channel, workChannel).then(
      () => listener(null, 0),
      () => undefined,
    );
  });
  sub.on('message', (ch: string, payload: string) => {
    if (ch === workChannel) {
      const w = parseWork(payload);
      if (w) onWork(w.origin, w.kinds);
      return;
    }
    if (ch !== channel) return;
    const p = parsePayload(payload);
    if (p) listener(p.projectId, p.lastId);
  });
  return {
    kind: 'redis',
    publish(projectId, lastId) {
      pub.publish(channel, `${projectId}:${lastId}`).catch(() => undefined);
    },
    publishWork(origin, kinds) {
      pub.publish(workChannel, `${origin}:${kinds.join(',')}`).catch(() => undefined);
    },
    async close() {
      pub.disconnect();
      sub.disconnect();
    },
  };
}
