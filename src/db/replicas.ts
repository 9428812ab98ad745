import type { Connection, EntityManager, MikroORM } from '@mikro-orm/core';

/** How often each replica (and the primary's WAL position) is probed. */
export const REPLICA_PROBE_MS = 500;
const PROBE_TIMEOUT_MS = 1000;

interface Replica {
  conn: Connection;
  name: string;
  healthy: boolean;
}

/**
 * Routes the reads that ask for a replica (`readOnReplica`) to a healthy, caught-up one, and
 * everything else to the primary. A replica is in use only while its last probe answered and it
 * had replayed the primary's WAL position of the probe before: a replica read misses at most the
 * writes of the last two probe intervals (about 1 s). A replica that fails a read or a probe is
 * left out until a probe succeeds again; meanwhile reads run on the primary.
 */
export class ReplicaRouter {
  private readonly replicas: Replica[];
  private next = 0;
  private primaryLsn: bigint | null = null;
  private timer?: NodeJS.Timeout;
  private probing = false;

  constructor(private readonly orm: MikroORM) {
    const driver = orm.em.getDriver() as unknown as { replicas: Connection[]; getConnection(type?: 'read' | 'write'): Connection };
    this.replicas = driver.replicas.map((conn, i) => ({ conn, name: `replica-${i + 1}`, healthy: false }));
    const primary = driver.getConnection('write');
    // MikroORM picks a random replica for every 'read'; ours picks a healthy one, or the primary.
    driver.getConnection = (type: 'read' | 'write' = 'write') => (type === 'read' ? (this.pick() ?? primary) : primary);
    ROUTERS.set(orm.em.getDriver(), this);
  }

  get size(): number {
    return this.replicas.length;
  }

  /** Each replica's name and whether reads may use it now. */
  health(): { name: string; healthy: boolean }[] {
    return this.replicas.map((r) => ({ name: r.name, healthy: r.healthy }));
  }

  healthyCount(): number {
    return this.replicas.filter((r) => r.healthy).length;
  }

  start(): this {
    if (this.replicas.length && !this.timer) {
      void this.probe();
      this.timer = setInterval(() => void this.probe(), REPLICA_PROBE_MS);
      this.timer.unref();
    }
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A healthy replica, round robin; undefined when none is. */
  private pick(): Connection | undefined {
    for (let i = 0; i < this.replicas.length; i++) {
      const r = this.replicas[(this.next++ & 0x7fffffff) % this.replicas.length];
      if (r.healthy) return r.conn;
    }
    return undefined;
  }

  /** After a failed replica read: leave every replica out until its next successful probe. */
  suspectAll(): void {
    for (const r of this.replicas) r.healthy = false;
  }

  /** One probe round: the primary's WAL position, then each replica's replayed position. */
  async probe(): Promise<void> {
    if (this.probing) return;
    this.probing = true;
    try {
      const previous = this.primaryLsn;
      this.primaryLsn = await withTimeout(
        this.orm.em.getConnection('write').execute<{ lsn: string }[]>('select pg_current_wal_lsn()::text as lsn'),
      ).then(
        (rows) => lsn(rows[0]?.lsn),
        () => null,
      );
      await Promise.all(
        this.replicas.map(async (r) => {
          try {
            const [row] = await withTimeout(r.conn.execute<{ lsn: string | null }[]>('select pg_last_wal_replay_lsn()::text as lsn'));
            const replayed = lsn(row?.lsn);
            // Not a standby (replayed null: tests point a "replica" at the primary) counts as caught up.
            r.healthy = replayed === null || previous === null || replayed >= previous;
          } catch {
            r.healthy = false;
          }
        }),
      );
    } finally {
      this.probing = false;
    }
  }
}

const ROUTERS = new WeakMap<object, ReplicaRouter>();

/** The replicas of this ORM and whether reads use them now (for /metrics); empty without replicas. */
export function replicaHealth(orm: MikroORM): { name: string; healthy: boolean }[] {
  return ROUTERS.get(orm.em.getDriver())?.health() ?? [];
}

/**
 * Runs a read on a replica when one is healthy and the request is not inside a transaction,
 * else on the primary. `run` gets the connection type to pass on (`connectionType` of
 * em.find/findAndCount, or `em.getConnection(type)`). Any error on a replica reruns the read on
 * the primary; a connection-level error also takes the replicas out until they answer a probe.
 */
export async function readOnReplica<T>(em: EntityManager, run: (type: 'read' | 'write') => Promise<T>): Promise<T> {
  const router = ROUTERS.get(em.getDriver());
  if (!router || !router.healthyCount() || em.isInTransaction()) return run('write');
  try {
    return await run('read');
  } catch (err) {
    if (isConnectionError(err)) router.suspectAll();
    return run('write');
  }
}

function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string') return true;
  return /^(08|57P|53)/.test(code) || /^E[A-Z]+$/.test(code);
}

function lsn(text: string | null | undefined): bigint | null {
  if (!text) return null;
  const [hi, lo] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

function withTimeout<T>(p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS))),
  ]).finally(() => clearTimeout(timer));
}
