import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { PATIENT_CONNECT_MS } from '../db/breaker.js';
import { closeAtOnce } from '../db/connection-guard.js';
import { causeOf, LineLimiter } from '../db/unavailable.js';
import type { OutboxLog } from './outbox-worker.js';

/** How often a process refreshes its heartbeat row. */
export const BEAT_MS = 500;
/** A process whose heartbeat is this old (database clock) is dead: its claims are released. */
export const DEAD_AFTER_MS = 2000;

export interface LivenessOptions {
  /** The serving pool's database (a transaction-mode PgBouncer is fine: every statement stands alone). */
  url: string;
  /** NODE_NAME, else host:port: what a restarted process shares with its predecessor. */
  node: string;
  log: OutboxLog;
  beatMs?: number;
  deadAfterMs?: number;
}

/**
 * Whether the processes that claimed outbox attempts are still running (CONTRACT §10.1: a process
 * that dies costs seconds, not a lease; docs/scaling.md, "Outbox liveness").
 *
 * Each `serve` process has an identity (a random UUID per start, or per re-registration) and a row
 * in `process_heartbeats` whose `beat_at` it refreshes every `beatMs` on a connection of its own (a
 * request burst queued on the pool never delays it): one UPDATE, which also lists the rows older
 * than `deadAfterMs`. The outboxes (workers/outbox-worker.ts) write this identity into `claimed_by`
 * with each claim. When a process sees a dead row, one statement deletes it and makes due again
 * every attempt it had claimed (the delete re-checks the age under the row's lock, so one process
 * does it, and never for a row that beat meanwhile). So a dead process's claims are free within
 * `deadAfterMs` + `beatMs` of its last beat, whatever the provider deadline; the lease stays as the
 * bound for a process that beats but hangs.
 *
 * At start a process frees at once the rows of its own node that it can prove dead: written from its
 * own pid namespace (same host, same kernel boot, same namespace: `pid_namespace`) by a pid that no
 * longer runs, or that is its own (its predecessor, after SIGKILL or a crash); and a clean stop frees
 * its own. A row it cannot prove dead (another container of the same hostname, both at pid 1; another
 * machine; a row without `pid_namespace`) is freed only once its heartbeat is old, whatever its node
 * name (CONTRACT §11, third review): a live process's claims are never taken. A process is
 * `fresh` only while its last successful beat is recent enough that nobody can have declared it
 * dead; the outboxes neither claim nor start an attempt otherwise. A process that finds its row
 * gone (it was declared dead while it could not beat) takes a new identity and frees the claims it
 * made under the old one (none of which it started).
 */
export class ProcessLiveness {
  private current = randomUUID();
  private registered = false;
  /** performance.now() when the last beat that found our row was sent. */
  private lastBeat = -Infinity;
  private client: pg.Client | undefined;
  /** A connection attempt under way, shared by the beats that wait for it (see connection()). */
  private attempt: { client: pg.Client; ready: Promise<pg.Client> } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();
  private readonly outboxes = new Map<string, () => void>();
  private readonly lines = new LineLimiter();
  private readonly beatMs: number;
  private readonly deadAfterMs: number;

  constructor(private readonly opts: LivenessOptions) {
    this.beatMs = opts.beatMs ?? BEAT_MS;
    this.deadAfterMs = opts.deadAfterMs ?? DEAD_AFTER_MS;
  }

  /** The identity claims are made under now. */
  get id(): string {
    return this.current;
  }

  /** Whether nobody can have declared this process dead yet (its last beat is at most deadAfterMs - beatMs old). */
  fresh(): boolean {
    return this.registered && performance.now() - this.lastBeat < this.deadAfterMs - this.beatMs;
  }

  /** An outbox table (with `claimed_by` and `next_attempt_at`) whose dead claims are released; `wake` runs after a release. */
  register(table: string, wake: () => void): void {
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`);
    this.outboxes.set(table, wake);
  }

  /** Registers this process (freeing its dead predecessor's claims), then beats. */
  async start(): Promise<void> {
    await this.tick();
  }

  /** Stops beating, frees this process's remaining claims and deletes its row. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    if (this.registered) await this.free([this.current]).catch((err) => this.failure(err));
    this.registered = false;
    const c = this.client;
    this.client = undefined;
    if (this.attempt) this.drop(this.attempt.client);
    await c?.end().catch(() => undefined);
  }

  private schedule(sentAt: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), Math.max(0, sentAt + this.beatMs - performance.now()));
    this.timer.unref();
  }

  private tick(): Promise<void> {
    const sentAt = performance.now();
    this.running = (this.registered ? this.beat(sentAt) : this.enrol())
      .catch((err) => this.failure(err))
      .finally(() => this.schedule(sentAt));
    return this.running;
  }

  /** One statement: our row's beat, and the rows of processes that stopped beating. */
  private async beat(sentAt: number): Promise<void> {
    const wasFresh = this.fresh();
    const [row] = await this.query<{ alive: boolean; stale: string[] }>(
      `with me as (update process_heartbeats set beat_at = now() where id = $1 returning id)
       select exists (select 1 from me) as alive,
              array(select id::text from process_heartbeats where id <> $1 and beat_at < now() - make_interval(secs => $2)) as stale`,
      [this.current, this.deadAfterMs / 1000],
    );
    if (!row.alive) {
      this.opts.log.warn({ process: this.current }, 'process heartbeat: this process was declared dead (it could not beat); new identity');
      this.registered = false;
      await this.enrol(this.current);
      return;
    }
    this.lastBeat = sentAt;
    let freed = 0;
    if (row.stale.length) freed = await this.reap(row.stale);
    if (freed || !wasFresh) this.wake();
  }

  /**
   * A new identity and its row; first frees `previous` (our own former identity) and the rows of
   * this node whose process is provably gone: same pid namespace, and the pid no longer runs or is
   * ours (a predecessor killed or crashed).
   */
  private async enrol(previous?: string): Promise<void> {
    const host = os.hostname();
    const rows = await this.query<{ id: string; host: string; pid: number; pid_namespace: string | null }>(
      'select id::text, host, pid, pid_namespace from process_heartbeats where node = $1',
      [this.opts.node],
    );
    const predecessors = rows
      .filter((r) => PID_NAMESPACE !== null && r.pid_namespace === PID_NAMESPACE && r.host === host)
      .filter((r) => r.pid === process.pid || !running(r.pid))
      .map((r) => r.id);
    const others = rows.filter((r) => !predecessors.includes(r.id));
    if (others.length)
      this.opts.log.warn({ node: this.opts.node, others: others.length }, 'process heartbeat: another running process has this node name');
    if (previous) predecessors.push(previous);
    const freed = predecessors.length ? await this.free(predecessors) : 0;
    this.current = randomUUID();
    const sentAt = performance.now();
    await this.query('insert into process_heartbeats (id, node, host, pid, pid_namespace) values ($1, $2, $3, $4, $5)', [
      this.current,
      this.opts.node,
      host,
      process.pid,
      PID_NAMESPACE,
    ]);
    this.registered = true;
    this.lastBeat = sentAt;
    if (freed)
      this.opts.log.info({ node: this.opts.node, freed }, 'process heartbeat: took over the claims of this node’s previous process');
    this.wake();
  }

  /** Deletes the rows still dead under their lock and makes their claims due; how many claims were freed. */
  private async reap(ids: string[]): Promise<number> {
    const freed = await this.release(
      `delete from process_heartbeats where id = any($1::uuid[]) and beat_at < now() - make_interval(secs => $2) returning id`,
      'in (select id from gone)',
      [`{${ids.join(',')}}`, this.deadAfterMs / 1000],
    );
    if (freed)
      this.opts.log.info({ processes: ids.length, freed }, 'process heartbeat: released the claims of processes that stopped beating');
    return freed;
  }

  /** Deletes these rows, whatever their age, and makes every claim they name due. */
  private free(ids: string[]): Promise<number> {
    return this.release('delete from process_heartbeats where id = any($1::uuid[]) returning id', '= any($1::uuid[])', [
      `{${ids.join(',')}}`,
    ]);
  }

  /** One statement: `gone` (a delete of heartbeat rows), then every registered outbox's claims whose `claimed_by <owners>`. */
  private async release(gone: string, owners: string, params: unknown[]): Promise<number> {
    const tables = [...this.outboxes.keys()];
    const releases = tables.map(
      (t, i) => `, r${i} as (update ${t} set claimed_by = null, next_attempt_at = now() where claimed_by ${owners} returning 1)`,
    );
    const counts = tables.map((_, i) => `(select count(*) from r${i})`).join(' + ') || '0';
    const [row] = await this.query<{ freed: number }>(
      `with gone as (${gone})${releases.join('')} select (${counts})::int as freed`,
      params,
    );
    return row.freed;
  }

  private wake(): void {
    for (const wake of this.outboxes.values()) wake();
  }

  private async query<T>(text: string, params: unknown[]): Promise<T[]> {
    const client = this.client ?? (await this.connection());
    try {
      return (await client.query(text, params)).rows as T[];
    } catch (err) {
      this.drop(client);
      throw err;
    }
  }

  /**
   * A connection of its own, so the beat never waits behind the pool; a beat waits at most deadAfterMs for it. The
   * attempt itself may go on for PATIENT_CONNECT_MS, and the next beats wait for the same one: a frozen server keeps
   * every attempt given up in its listen queue, to fork a backend for each at the thaw before the ones that count.
   */
  private connection(): Promise<pg.Client> {
    this.attempt ??= this.connect();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout exceeded when trying to connect')), this.deadAfterMs);
    });
    return Promise.race([this.attempt.ready, late]).finally(() => clearTimeout(timer));
  }

  private connect(): { client: pg.Client; ready: Promise<pg.Client> } {
    const client = new pg.Client({
      connectionString: this.opts.url,
      connectionTimeoutMillis: Math.max(PATIENT_CONNECT_MS, this.deadAfterMs),
      query_timeout: this.deadAfterMs,
      application_name: 'ordergraph-heartbeat',
      keepAlive: true,
    });
    client.on('error', () => this.drop(client));
    const ready = client
      .connect()
      .then(() => {
        if (this.stopped) throw new Error('stopped');
        this.client = client;
        return client;
      })
      .catch((err: unknown) => {
        this.drop(client);
        throw err;
      })
      .finally(() => (this.attempt = undefined));
    ready.catch(() => undefined); // a beat that stopped waiting has reported the failure already
    return { client, ready };
  }

  private drop(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    closeAtOnce(client);
  }

  private failure(err: unknown): void {
    if (this.lines.admit(causeOf(err)) !== false) this.opts.log.warn({ cause: causeOf(err) }, 'process heartbeat: database unavailable');
  }
}

/**
 * Where this process's pid means something: the kernel's boot id and the pid namespace's inode
 * (Linux; a container has a namespace of its own, and may share its hostname and pid 1 with another).
 * Null elsewhere: no row is then provably a dead predecessor, and only old heartbeats are freed.
 */
export const PID_NAMESPACE = ((): string | null => {
  try {
    return `${fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()} ${fs.readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return null;
  }
})();

/** Whether a process with this pid runs in this pid namespace. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
