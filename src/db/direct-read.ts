import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

export type ConnectionType = 'read' | 'write';

interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: Record<string, unknown>[] }>;
}

interface KnexClient {
  positionBindings(sql: string): string;
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<unknown>;
}

/** MikroORM's own statement log line (`Connection.logQuery`, protected there): tests read it to prove what ran. */
type Logged = { logQuery(sql: string, context: Record<string, unknown>): void };

/** ORMs (their shared Configuration) whose statements are prepared by name: DATABASE_PREPARED_STATEMENTS. */
const preparing = new WeakSet<object>();

/**
 * Statements of this ORM run as named prepared statements: PostgreSQL parses and plans each text
 * once per connection instead of on every call (a metrics overview spends ~1 ms of its ~4 ms in
 * planning). Off behind a transaction-mode pooler that does not track them (PgBouncer before 1.21);
 * should such a pooler be met anyway, the first statement it refuses turns them off (selectRows).
 */
export function usePreparedStatements(orm: MikroORM): void {
  preparing.add(orm.config);
}

/** One name per statement text, process-wide; past the bound, new texts run unnamed (a connection keeps what it prepared). */
const names = new Map<string, string>();
const MAX_NAMES = 1000;

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMES) names.set(text, (name = `og_${names.size + 1}`));
  return name;
}

/**
 * A read statement (knex's `?` placeholders) run on a pooled connection of the request's ORM with
 * its values as bind parameters. MikroORM's `execute` would format every value into the SQL text
 * and pass it through knex's raw builder and result transformer, which costs more CPU than the
 * round trip for the short reads of a request. Inside a transaction the statement goes through
 * MikroORM on the transaction's connection, as before. The pool, its acquire timeout and the
 * connection's statement and read timeouts are the ORM's own; the statement reaches the ORM's
 * query log as MikroORM's own statements do.
 */
export async function selectRows<T = Record<string, unknown>>(
  em: EntityManager,
  sql: string,
  values: readonly unknown[],
  type?: ConnectionType,
): Promise<T[]> {
  const conn = em.getConnection(type);
  const trx = em.getTransactionContext();
  if (trx) return conn.execute(sql, values as unknown[], 'all', trx);
  const client = conn.getKnex().client as unknown as KnexClient;
  const logging = em.config.getLogger().isEnabled('query');
  const started = logging ? Date.now() : 0;
  const text = client.positionBindings(sql);
  let pg: PgClient | undefined;
  try {
    pg = await client.acquireConnection();
    const name = preparing.has(em.config) ? nameOf(text) : undefined;
    const params = values.map(parameter);
    const { rows } = await pg.query({ name, text, values: params }).catch((err: unknown) => {
      if (!name) throw err;
      if (planOutdated(err)) {
        // A migration changed a table under a statement this connection prepared: PostgreSQL keeps
        // refusing it there, so the connection leaves the pool when released; this read runs unnamed.
        (pg as unknown as { __knex__disposed?: unknown }).__knex__disposed = 'a prepared statement outlived a schema change';
      } else if (notKept(err)) {
        // The server behind this connection changes between statements (a transaction pooler):
        // named statements are given up for this ORM, and the read runs unnamed.
        (pg as unknown as { __knex__disposed?: unknown }).__knex__disposed = 'named statements are not kept by this server';
        if (preparing.delete(em.config)) {
          process.emitWarning('named prepared statements are not kept by the database server (a transaction pooler?): reads run unnamed from now on; set DATABASE_PREPARED_STATEMENTS=false', { code: 'ORDERGRAPH_PREPARED_STATEMENTS' });
        }
      } else {
        throw err;
      }
      return pg!.query({ text, values: params });
    });
    if (logging) (conn as unknown as Logged).logQuery(text, { params: values, took: Date.now() - started, results: rows.length });
    return rows as T[];
  } catch (err) {
    if (logging) (conn as unknown as Logged).logQuery(text, { params: values, took: Date.now() - started, level: 'error' });
    throw err;
  } finally {
    if (pg) void client.releaseConnection(pg);
  }
}

/** SQLSTATE 0A000 "cached plan must not change result type": a prepared `select *` after its table gained or lost a column. */
function planOutdated(err: unknown): boolean {
  const { code, message } = err as { code?: unknown; message?: unknown };
  return code === '0A000' && typeof message === 'string' && /cached plan must not change result type/.test(message);
}

/** 26000 "prepared statement … does not exist", 42P05 "… already exists": the statement met another server session than the one it was prepared on. */
function notKept(err: unknown): boolean {
  const { code } = err as { code?: unknown };
  return code === '26000' || code === '42P05';
}

/** Instants go as UTC ISO text (the ORM runs with forceUtcTimezone); pg would send the process's local offset. */
function parameter(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}
