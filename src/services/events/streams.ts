import { ID_KEY } from '../../db/advisory.js';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { StreamsConfig } from '../../config.js';
import { credentialOf, type RequestContext } from '../../context/index.js';
import { causeOf, LineLimiter, serviceUnavailable } from '../../db/unavailable.js';
import { appError } from '../../errors/codes.js';
import { LEVEL } from '../../entities/user.js';
import { rateLimitHeaders } from '../../limits/store.js';
import type { BusLog } from './event-bus.js';

/** Key of the transaction-scoped advisory lock that serializes admissions per project: ("OGSt", project id). */
const ADMIT_LOCK = 0x4f475374;
/** Each process writes `seen_at` of its rows this often; rows not refreshed for ROW_TTL_S are a dead process's. */
const HEARTBEAT_MS = 5_000;
const ROW_TTL_S = 20;
/** Closed streams leave the shared count within this (CONTRACT §11: within 1 s). */
const RELEASE_FLUSH_MS = 200;
/** A refused stream is told to retry after this many seconds (a slot frees when another stream closes). */
const REFUSED_RETRY_S = 5;

/** One open stream as the registry counts it, re-checks it and ends it. */
export class StreamTicket {
  /** Ends the stream (set by whoever opened it); the stream then calls release(). */
  stop: (() => void) | null = null;
  private released = false;

  constructor(
    private readonly registry: StreamRegistry,
    readonly projectId: number,
    /** `k<api key id>`, `s<session id>`, or `u<user id>` for a caller without a credential row. */
    readonly credential: string,
    /** The user's level when it opened; -1 for a server key. A change ends the stream. */
    readonly level: number,
    /** The user, for a level-2 user (whose businesses the re-checks read again); else null. */
    readonly userId: number | null,
  ) {}

  /**
   * The businesses a level-2 user's stream shows (the very set its filter reads), set by whoever
   * opened it; null: not scoped by business. Re-validation adds the businesses the user gained and
   * ends the stream when one was lost (its queue may hold that business's events).
   */
  scope: Set<number> | null = null;

  /** The process sheds load (its streams then hold less). */
  pressed(): boolean {
    return this.registry.shedding();
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.registry.release(this);
  }
}

/**
 * The open streams of this process (SSE and subscriptions alike: both open theirs through
 * EventsService), for CONTRACT §11:
 * - caps: STREAMS_PER_CREDENTIAL per credential and STREAMS_PER_PROJECT per project, counted across
 *   processes in the UNLOGGED table `open_streams` (one row per project, credential and process), a
 *   new stream admitted by one conditional upsert under a transaction-scoped advisory lock on the
 *   project (so it works through PgBouncer's transaction mode); closed streams are subtracted within
 *   RELEASE_FLUSH_MS, rows of a dead process stop counting ROW_TTL_S after its last heartbeat;
 * - re-validation: one timer per process re-checks the distinct credentials and projects of the open
 *   streams in one query and ends the streams whose access ended;
 * - the per-process bound (STREAMS_MAX_OPEN): past it a new stream is a 503.
 */
export class StreamRegistry {
  readonly processId = randomUUID();
  private readonly open = new Set<StreamTicket>();
  /** This process's open streams per `project:credential`, and per project. */
  private readonly perCredential = new Map<string, number>();
  private readonly perProject = new Map<number, number>();
  /** Releases not yet subtracted from the shared count, per `project:credential`. */
  private pending = new Map<string, { project_id: number; credential: string; k: number }>();
  private flushing: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private timers: NodeJS.Timeout[] = [];
  private readonly lines = new LineLimiter();
  private log: BusLog = { warn: () => undefined, info: () => undefined };
  /** True while the process sheds load (set by the app from its pressure monitor): new streams are a 503. */
  shedding: () => boolean = () => false;

  constructor(
    private readonly orm: MikroORM,
    private readonly config: StreamsConfig,
    private readonly maxOpen: number,
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Starts the heartbeat and the re-validation timer. Idempotent. */
  start(log: BusLog): void {
    if (this.timers.length) return;
    this.log = log;
    const every = (ms: number, fn: () => Promise<unknown>, what: string) => {
      const t = setInterval(() => void fn().catch((err) => this.warn(err, what)), ms);
      t.unref();
      this.timers.push(t);
    };
    every(HEARTBEAT_MS, () => this.heartbeat(), 'stream heartbeat failed');
    every(this.config.revalidateMs, () => this.revalidate(), 'stream re-validation failed');
  }

  /** Stops the timers and takes this process's rows out of the shared count (its streams were ended first). */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.pending.clear();
    await this.sql('delete from open_streams where process_id = ?', [this.processId]).catch((err) =>
      this.warn(err, 'stream count cleanup failed'),
    );
  }

  /**
   * Admits one more stream of the caller, or throws: 503 past this process's bound, 429
   * ERROR_RATE_LIMIT (with Retry-After) past the credential's or the project's cap.
   */
  async admit(ctx: RequestContext): Promise<StreamTicket> {
    if (this.open.size >= this.maxOpen || this.shedding()) throw serviceUnavailable();
    const projectId = ctx.project.id;
    const credential = credentialKey(ctx);
    const key = `${projectId}:${credential}`;
    const { perCredential, perProject } = this.config;
    if ((this.perCredential.get(key) ?? 0) >= perCredential) throw refused(perCredential, 'stream-credential', ctx);
    if ((this.perProject.get(projectId) ?? 0) >= perProject) throw refused(perProject, 'stream-project', ctx);
    // Streams this process closed count as closed for its own next admission, whatever the timer.
    if (this.pending.size) await this.flush();
    const verdict = await this.claim(projectId, credential, limitedCaller(ctx));
    if (verdict === 'credential') throw refused(perCredential, 'stream-credential', ctx);
    if (verdict === 'project') throw refused(perProject, 'stream-project', ctx);
    if (verdict === 'share') throw refused(sharedCap(perProject), 'stream-project-share', ctx);
    const level = ctx.caller.kind === 'user' ? ctx.caller.user.level : -1;
    const owner = ctx.caller.kind === 'user' && level === LEVEL.BUSINESS_OWNER ? ctx.caller.user.id : null;
    const ticket = new StreamTicket(this, projectId, credential, level, owner);
    this.open.add(ticket);
    this.perCredential.set(key, (this.perCredential.get(key) ?? 0) + 1);
    this.perProject.set(projectId, (this.perProject.get(projectId) ?? 0) + 1);
    return ticket;
  }

  /** Called once per ticket (StreamTicket.release). */
  release(ticket: StreamTicket): void {
    if (!this.open.delete(ticket)) return;
    const key = `${ticket.projectId}:${ticket.credential}`;
    decrement(this.perCredential, key);
    decrement(this.perProject, ticket.projectId);
    const p = this.pending.get(key);
    if (p) p.k++;
    else this.pending.set(key, { project_id: ticket.projectId, credential: ticket.credential, k: 1 });
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      void this.flush();
    }, RELEASE_FLUSH_MS);
  }

  /**
   * The one statement of an admission, after the project's lock: 'ok', or the cap that was full.
   * `limited`: the caller's streams also count against the share of the project's budget (sharedCap).
   */
  private async claim(projectId: number, credential: string, limited: boolean): Promise<'ok' | 'credential' | 'project' | 'share'> {
    const { perCredential, perProject } = this.config;
    const share = sharedCap(perProject);
    const em = this.orm.em.fork();
    return em.transactional(async (tx) => {
      const conn = tx.getConnection();
      const trx = tx.getTransactionContext();
      await conn.execute(`select pg_advisory_xact_lock(?, ${ID_KEY})`, [ADMIT_LOCK, projectId], 'all', trx);
      const [row] = await conn.execute<{ total: number; mine: number; shared: number; admitted: number }[]>(
        `with c as (
           select coalesce(sum(n), 0)::int as total, coalesce(sum(n) filter (where credential = ?), 0)::int as mine,
                  coalesce(sum(n) filter (where limited), 0)::int as shared
             from open_streams where project_id = ? and seen_at > now() - make_interval(secs => ?)),
         ins as (
           insert into open_streams (project_id, credential, process_id, n, seen_at, limited)
           select ?, ?, ?, 1, now(), ? from c where c.total < ? and c.mine < ? and (not ? or c.shared < ?)
           on conflict (project_id, credential, process_id) do update set n = open_streams.n + 1, seen_at = now(), limited = excluded.limited
           returning 1)
         select c.total, c.mine, c.shared, (select count(*) from ins)::int as admitted from c`,
        [credential, projectId, ROW_TTL_S, projectId, credential, this.processId, limited, perProject, perCredential, limited, share],
        'all',
        trx,
      );
      if (row.admitted) return 'ok';
      if (row.mine >= perCredential) return 'credential';
      return row.total >= perProject ? 'project' : 'share';
    });
  }

  /** Subtracts the releases so far from the shared count (one statement for all of them). */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.pending.size ? this.flush() : undefined));
    const batch = [...this.pending.values()];
    this.pending = new Map();
    if (!batch.length) return Promise.resolve();
    this.flushing = this.sql(
      `update open_streams o set n = o.n - d.k
         from jsonb_to_recordset(?::jsonb) as d(project_id bigint, credential text, k int)
        where o.project_id = d.project_id and o.credential = d.credential and o.process_id = ?`,
      [JSON.stringify(batch), this.processId],
    )
      .then(() => undefined)
      .catch((err) => {
        // kept for the next try, so the shared count never stays above the truth
        for (const b of batch) {
          const key = `${b.project_id}:${b.credential}`;
          const p = this.pending.get(key);
          if (p) p.k += b.k;
          else this.pending.set(key, b);
        }
        this.warn(err, 'stream release failed');
      })
      .finally(() => (this.flushing = null));
    return this.flushing;
  }

  /** Keeps this process's rows counting, drops emptied ones, and those of processes that stopped beating. */
  private async heartbeat(): Promise<void> {
    if (this.pending.size) await this.flush();
    await this.sql(
      `with beat as (update open_streams set seen_at = now() where process_id = ? and n > 0)
       delete from open_streams
        where (process_id = ? and n <= 0) or (process_id <> ? and seen_at < now() - make_interval(secs => ?))`,
      [this.processId, this.processId, this.processId, ROW_TTL_S * 3],
    );
  }

  /**
   * Ends the open streams whose access ended: key deleted, session expired or deleted, user
   * disabled or of another level now, project inactive or its AI module off, or (a level-2 user)
   * a business of its scope no longer the user's. One query for all the distinct credentials,
   * projects and scoped users of this process's streams, however many streams share them.
   */
  async revalidate(): Promise<number> {
    if (!this.open.size) return 0;
    const keys = new Set<number>();
    const sessions = new Set<number>();
    const projects = new Set<number>();
    const owners = new Set<number>();
    // only these are judged: a stream admitted while the query runs is not in its answer
    const judged = [...this.open];
    for (const t of judged) {
      projects.add(t.projectId);
      const id = Number(t.credential.slice(1));
      if (t.credential[0] === 'k') keys.add(id);
      else if (t.credential[0] === 's') sessions.add(id);
      if (t.scope && t.userId !== null) owners.add(t.userId);
    }
    const rows = await this.sql<{ kind: string; id: number; level: number; business_id: number | null }[]>(
      `select 'k' as kind, k.id, coalesce(u.level, -1)::int as level, null::int as business_id
         from api_keys k left join users u on u.id = k.user_id
        where k.id = any(?::bigint[]) and (k.server or u.enabled)
       union all
       select 's', s.id, u.level::int, null from sessions s join users u on u.id = s.user_id
        where s.id = any(?::bigint[]) and s.expires_at > now() and u.enabled
       union all
       select 'p', p.id, 0, null from projects p where p.id = any(?::bigint[]) and p.subscription_active and p.ai_enabled
       union all
       select 'b', ub.user_id, 2, ub.business_id from user_businesses ub where ub.user_id = any(?::bigint[]) and ub.project_id = any(?::bigint[])`,
      [pgArray(keys), pgArray(sessions), pgArray(projects), pgArray(owners), pgArray(projects)],
    );
    const levels = new Map<string, number>();
    const live = new Set<number>();
    const owned = new Map<number, Set<number>>();
    for (const r of rows) {
      if (r.kind === 'p') live.add(r.id);
      else if (r.kind === 'b') (owned.get(r.id) ?? owned.set(r.id, new Set()).get(r.id)!).add(r.business_id!);
      else levels.set(`${r.kind}${r.id}`, r.level);
    }
    let ended = 0;
    for (const t of judged) {
      const level = t.credential[0] === 'u' ? t.level : levels.get(t.credential);
      if (live.has(t.projectId) && level === t.level && rescoped(t, owned)) continue;
      ended++;
      t.stop?.();
      t.release();
    }
    if (ended) this.log.info({ ended }, 'streams ended: their access ended');
    return ended;
  }

  private sql<T = unknown>(text: string, params: unknown[]): Promise<T> {
    return this.orm.em.getConnection().execute(text, params, 'all') as Promise<T>;
  }

  private warn(err: unknown, message: string): void {
    const cause = causeOf(err);
    if (this.lines.admit(`${message} ${cause}`) !== false) this.log.warn({ cause }, message);
  }
}

/**
 * The credential a stream counts against (CONTRACT §11: one API key or token): `k<api key id>`,
 * `s<session id>`, or `u<user id>` for a caller without a credential row.
 */
export function credentialKey(ctx: RequestContext): string {
  const c = credentialOf(ctx.caller);
  if (c) return `${c.kind === 'api_key' ? 'k' : 's'}${c.id}`;
  return `u${ctx.caller.kind === 'user' ? ctx.caller.user.id : 0}`;
}

/**
 * CONTRACT §11, room kept for the people who run the project: streams of every caller but server
 * keys and levels 0 and 2 (customers and guests above all, since anyone can open a guest session)
 * count against at most three quarters of the project's budget, so those always find room.
 */
export function limitedCaller(ctx: RequestContext): boolean {
  const { caller } = ctx;
  if (caller.kind === 'server') return false;
  return !(caller.kind === 'user' && (caller.user.level === LEVEL.ADMIN || caller.user.level === LEVEL.BUSINESS_OWNER));
}

/** The share of a project's stream budget that the callers of limitedCaller may hold together. */
export function sharedCap(perProject: number): number {
  return Math.floor((perProject * 3) / 4);
}

function refused(limit: number, scope: string, ctx: RequestContext) {
  const headers = rateLimitHeaders({ limit, msBeforeNext: REFUSED_RETRY_S * 1000, scope, key: ctx.project.code });
  return appError('ERROR_RATE_LIMIT', [{ key: 'ERROR_RATE_LIMIT', params: { retry_after: headers['retry-after'] } }], { headers });
}

/**
 * A level-2 user's stream after its businesses were read again: the ones gained are shown from now
 * on (the filter reads the same set); false when one was lost, so the stream ends (what it queued
 * may be of that business) and its client resumes, seeing only what it may still see.
 */
function rescoped(t: StreamTicket, owned: Map<number, Set<number>>): boolean {
  if (!t.scope || t.userId === null) return true;
  const now = owned.get(t.userId) ?? new Set<number>();
  for (const id of t.scope) if (!now.has(id)) return false;
  for (const id of now) t.scope.add(id);
  return true;
}

/** Counts one less for `key`, dropping it at zero. */
export function decrement<K>(map: Map<K, number>, key: K): void {
  const n = (map.get(key) ?? 0) - 1;
  if (n > 0) map.set(key, n);
  else map.delete(key);
}

/** A PostgreSQL array literal of integers (knex would expand a JS array into a list of parameters). */
function pgArray(ids: Set<number>): string {
  return `{${[...ids].join(',')}}`;
}
