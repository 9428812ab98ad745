import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { ENTITIES } from '../entities/index.js';
import { guardConnection, readInt8AsNumbers, reusable, StatementClock, type PgConnection } from './connection-guard.js';
import { LATEST_MIGRATION } from './migrations/latest.js';
import { TenantGuard } from './tenant-guard.js';
import { noteOrmWarning, probeStatementTimeout, RESTORING_SETTING } from './startup-params.js';
import { releaseOrmContextsWhenSettled } from './async-contexts.js';

export interface OrmOptions {
  clientUrl: string;
  poolMax?: number;
  /** Read replicas (DATABASE_REPLICA_URLS): used only where a read asks for one (db/replicas.ts). */
  replicaUrls?: string[];
  /** Receives every SQL statement (tests use it to prove what a request runs). */
  onQuery?: (sql: string) => void;
  /** Bounds of the serving pool; without them (migrations, the CLI, tests' own ORMs) nothing is bounded. */
  bounds?: DatabaseBounds;
  /** Times the statements of the pool's connections (the serving ORM's: db/breaker.ts reads it). */
  clock?: StatementClock;
}

export interface DatabaseBounds {
  /** PostgreSQL's statement_timeout, sent as a connection parameter (no session SET), in ms; 0: none. */
  statementTimeoutMs: number;
  /** Waiting for a pooled connection, and opening one, in ms. */
  acquireTimeoutMs: number;
  /** false: the server refused `statement_timeout` as a startup parameter (db/startup-params.ts); the client bound stays. */
  statementTimeoutAtStartup?: boolean;
}

/** The serving pool's bounds from the configuration. */
export function boundsOf(config: { dbStatementTimeoutMs: number; dbAcquireTimeoutMs: number }): DatabaseBounds {
  return { statementTimeoutMs: config.dbStatementTimeoutMs, acquireTimeoutMs: config.dbAcquireTimeoutMs };
}

/** How long past the statement timeout the client stops waiting for a server that cannot enforce it (frozen). */
export const CLIENT_READ_MARGIN_MS = 1000;

/**
 * The statement timeout travels in the connection's startup parameters, so every pooled connection
 * has it without a session-level SET (which a transaction-mode pooler would not keep). A frozen
 * server enforces nothing, so the client stops reading a little after it (pg's query_timeout).
 * A transaction that needs longer raises its own with `SET LOCAL statement_timeout`, on an ORM
 * without the client-side bound (migrations and the CLI use one).
 */
function boundOptions(bounds: DatabaseBounds | undefined): Record<string, unknown> {
  if (!bounds) return {};
  const connection: Record<string, number> = { connectionTimeoutMillis: bounds.acquireTimeoutMs };
  if (bounds.statementTimeoutMs > 0) {
    if (bounds.statementTimeoutAtStartup !== false) connection.statement_timeout = bounds.statementTimeoutMs;
    connection.query_timeout = bounds.statementTimeoutMs + CLIENT_READ_MARGIN_MS;
  }
  return { acquireConnectionTimeout: bounds.acquireTimeoutMs, connection };
}

/**
 * knex's pool (tarn), for the primary and the replicas alike (db/connection-guard.ts): every new
 * connection's queries are watched, and a connection is handed out only in a known idle state;
 * any other is destroyed on acquire. knex's own "Connection Error" warning for such a connection
 * is dropped: the request that met the failure logs its cause (rest/errors.ts), rate-limited.
 */
const guardedPool = (clock: StatementClock | undefined) => ({
  pool: {
    afterCreate: (conn: PgConnection, done: (err: Error | null, conn: PgConnection) => void) =>
      done(null, guardConnection(readInt8AsNumbers(conn), clock)),
    validate: (conn: PgConnection) => reusable(conn),
  },
  log: {
    warn: (message: string) => {
      if (!String(message).startsWith('Connection Error:')) console.warn(message);
    },
  },
});

export function ormConfig(opts: OrmOptions): Options {
  return {
    entities: ENTITIES,
    clientUrl: opts.clientUrl,
    allowGlobalContext: false,
    forceUtcTimezone: true,
    discovery: { disableDynamicFileAccess: true },
    subscribers: [new TenantGuard()],
    pool: {
      min: 0,
      max: opts.poolMax ?? 10,
      ...(opts.bounds ? { acquireTimeoutMillis: opts.bounds.acquireTimeoutMs, createTimeoutMillis: opts.bounds.acquireTimeoutMs } : {}),
    },
    ...replicaOptions(opts.replicaUrls ?? [], opts.poolMax ?? 10),
    migrations: MIGRATION_OPTIONS,
    debug: opts.onQuery ? ['query'] : false,
    logger: opts.onQuery ?? (() => undefined),
    colors: false,
    driverOptions: { ...guardedPool(opts.clock), ...boundOptions(opts.bounds) },
  };
}

/**
 * Replicas serve only reads that ask for them (`connectionType: 'read'`, through db/replicas.ts);
 * everything else stays on the primary. Their pools give up on a dead server within 2 s.
 */
function replicaOptions(urls: string[], poolMax: number): Partial<Options> {
  if (!urls.length) return {};
  return {
    preferReadReplicas: false,
    replicas: urls.map((clientUrl, i) => ({
      name: `replica-${i + 1}`,
      clientUrl,
      pool: { min: 0, max: poolMax, acquireTimeoutMillis: 2000 },
    })),
  };
}

/** The statement clock of each bounded (serving) ORM. */
const clocks = new WeakMap<MikroORM, StatementClock>();

/** The clock of an ORM made by initORM with bounds (the serving pool); undefined otherwise. */
export function statementClockOf(orm: MikroORM): StatementClock | undefined {
  return clocks.get(orm);
}

/** The one place the ORM is created; tests pass their own database URL. */
export async function initORM(opts: OrmOptions): Promise<MikroORM> {
  releaseOrmContextsWhenSettled();
  if (!opts.bounds || opts.clock) return createORM(opts);
  const clock = new StatementClock();
  const orm = await createORM({ ...opts, clock });
  clocks.set(orm, clock);
  return orm;
}

async function createORM(opts: OrmOptions): Promise<MikroORM> {
  const { bounds } = opts;
  if (!bounds || bounds.statementTimeoutMs <= 0 || bounds.statementTimeoutAtStartup === false) return MikroORM.init(ormConfig(opts));
  const probe = await probeStatementTimeout(opts.clientUrl, bounds.statementTimeoutMs, bounds.acquireTimeoutMs);
  if (probe.accepted) return MikroORM.init(ormConfig(opts));
  const orm = await MikroORM.init(ormConfig({ ...opts, bounds: { ...bounds, statementTimeoutAtStartup: false } }));
  noteOrmWarning(
    orm,
    { statementTimeoutMs: bounds.statementTimeoutMs, serverStatementTimeout: probe.serverValue ?? 'unknown' },
    `the database (a PgBouncer?) refused the startup parameter statement_timeout: connecting without it; statements are now bounded ` +
      `by the client only (a request stops waiting after ${bounds.statementTimeoutMs + CLIENT_READ_MARGIN_MS} ms, the server does not cancel the statement). ` +
      `Set \`${RESTORING_SETTING}\` in pgbouncer.ini (with the timeout in connect_query or on the role) to restore the server-side timeout.`,
  );
  return orm;
}

const MIGRATION_OPTIONS = { transactional: true, allOrNothing: true, snapshot: false };

/** Applies pending migrations; the migrator and the migrations are loaded only when the newest is not applied yet. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  if (await applied(orm, LATEST_MIGRATION)) return [];
  const [{ Migrator }, { MIGRATIONS }] = await Promise.all([import('@mikro-orm/migrations'), import('./migrations/index.js')]);
  orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList: MIGRATIONS });
  Migrator.register(orm);
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}

async function applied(orm: MikroORM, name: string): Promise<boolean> {
  const conn = orm.em.getConnection();
  const [table] = await conn.execute<{ present: boolean }[]>(`select to_regclass('mikro_orm_migrations') is not null as present`);
  return table.present && (await conn.execute<unknown[]>('select 1 from mikro_orm_migrations where name = ?', [name])).length > 0;
}

/** Keeps sequences ahead of ids inserted explicitly (fixtures), so later inserts never collide. */
export async function syncSequences(orm: MikroORM): Promise<void> {
  const conn = orm.em.getConnection();
  const rows: { table_name: string }[] = await conn.execute(
    `select table_name from information_schema.columns
      where table_schema = 'public' and column_name = 'id' and column_default like 'nextval%'`,
  );
  for (const { table_name } of rows) {
    await conn.execute(
      `select setval(pg_get_serial_sequence(?, 'id'), greatest((select coalesce(max(id), 0) from ${quoteIdent(table_name)}), 1))`,
      [table_name],
    );
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
