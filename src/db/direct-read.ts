import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { readOnReplica } from './replicas.js';

export type ConnectionType = 'read' | 'write';

interface PgClient {
  query(config: {
    name?: string;
    text: string;
    values: unknown[];
    rowMode: 'array';
  }): Promise<{ rows: unknown[][]; fields: { name: string }[] }>;
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

/**
 * Per statement (knex's `?` form), process-wide: its `$n` text and its prepared-statement name,
 * worked out once. Past the bound, a new statement is converted on each call and runs unnamed
 * (a name must stay tied to one text; a connection keeps what it prepared).
 */
const statements = new Map<string, { text: string; name?: string }>();
const MAX_STATEMENTS = 1000;

function statementOf(client: KnexClient, sql: string): { text: string; name?: string } {
  const known = statements.get(sql);
  if (known) return known;
  if (statements.size >= MAX_STATEMENTS) return { text: client.positionBindings(sql) };
  const statement = { text: client.positionBindings(sql), name: `og_${statements.size + 1}` };
  statements.set(sql, statement);
  return statement;
}

/**
 * A read statement (knex's `?` placeholders) run on a pooled connection of the request's ORM with
 * its values as bind parameters (runStatement); inside the EntityManager's transaction, on the
 * transaction's connection.
 */
export function selectRows<T = Record<string, unknown>>(
  em: EntityManager,
  sql: string,
  values: readonly unknown[],
  type?: ConnectionType,
): Promise<T[]> {
  return runStatement<T>(em.getConnection(type), sql, values, em.getTransactionContext());
}

type SqlConnection = ReturnType<EntityManager['getConnection']>;

/**
 * A statement (knex's `?` placeholders) with its values as bind parameters, as a named prepared
 * statement when the ORM prepares them: on the transaction's connection when `trx` (the ORM's
 * transaction context) is given, otherwise on a connection of `conn`'s pool taken for it alone
 * (autocommit). MikroORM's `execute` would format every value into the SQL text (so PostgreSQL
 * parses and plans each call anew) and pass it through knex's raw builder and result transformer,
 * which costs more CPU than the round trip for a request's short statements. A parameter whose type
 * PostgreSQL cannot infer from its place (a select list, `||`) needs a cast in the text. The pool,
 * its acquire timeout and the connection's statement and read timeouts are the ORM's own; the
 * statement reaches the ORM's query log as MikroORM's own statements do.
 */
export function runStatement<T = Record<string, unknown>>(
  conn: SqlConnection,
  sql: string,
  values: readonly unknown[],
  trx?: unknown,
): Promise<T[]> {
  return runMapped(conn, sql, values, trx, rowBuilder as unknown as RowsAs<T>);
}

/** What makes a statement's rows (arrays, pg's `rowMode: 'array'`) into the caller's values, made from the result's columns. */
export type RowsAs<T> = (fields: readonly { name: string }[]) => (values: unknown[]) => T;

/**
 * selectRows whose rows become values through `as` (e.g. entity-shaped objects, db/tenant-read.ts)
 * straight from pg's arrays, without the column-named object in between.
 */
export function selectMapped<T>(
  em: EntityManager,
  sql: string,
  values: readonly unknown[],
  as: RowsAs<T>,
  type?: ConnectionType,
): Promise<T[]> {
  return runMapped(em.getConnection(type), sql, values, em.getTransactionContext(), as);
}

async function runMapped<T>(conn: SqlConnection, sql: string, values: readonly unknown[], trx: unknown, as: RowsAs<T>): Promise<T[]> {
  // the ORM's Configuration (the connection's, protected there): its logger, and whether it prepares statements
  const { config } = conn as unknown as { config: EntityManager['config'] };
  const client = conn.getKnex().client as unknown as KnexClient;
  // knex's transaction client hands out the transaction's own connection and never releases it
  const source = trx ? (trx as { client: KnexClient }).client : client;
  const logging = config.getLogger().isEnabled('query');
  const started = logging ? Date.now() : 0;
  const statement = statementOf(client, sql);
  const { text } = statement;
  let pg: PgClient | undefined;
  try {
    pg = await source.acquireConnection();
    const name = preparing.has(config) ? statement.name : undefined;
    const params = values.map(parameter);
    const { rows, fields } = await pg.query({ name, text, values: params, rowMode: 'array' }).catch((err: unknown) => {
      const reason = name ? namedFailure(err) : undefined;
      if (!reason) throw err;
      // PostgreSQL keeps refusing the name on this connection: it leaves the pool when released, and
      // this statement runs unnamed (not in a transaction: the failure aborted it, the caller's retry runs anew).
      (pg as unknown as { __knex__disposed?: unknown }).__knex__disposed = reason;
      if (reason === NOT_KEPT && preparing.delete(config)) {
        process.emitWarning(
          'named prepared statements are not kept by the database server (a transaction pooler?): statements run unnamed from now on; set DATABASE_PREPARED_STATEMENTS=false',
          { code: 'ORDERGRAPH_PREPARED_STATEMENTS' },
        );
      }
      if (trx) throw err;
      return pg!.query({ text, values: params, rowMode: 'array' });
    });
    if (logging) (conn as unknown as Logged).logQuery(text, { params: values, took: Date.now() - started, results: rows.length });
    const build = as(fields);
    return rows.map(build);
  } catch (err) {
    if (logging) (conn as unknown as Logged).logQuery(text, { params: values, took: Date.now() - started, level: 'error' });
    throw err;
  } finally {
    if (pg && !trx) void client.releaseConnection(pg);
  }
}

/**
 * `work` in a transaction on one pooled connection of `em`'s ORM, with BEGIN and COMMIT (or
 * ROLLBACK) sent on it directly: for work made only of runStatement/selectRows statements, which
 * find the connection through `em`'s transaction context while `work` runs. It spares the write
 * MikroORM's transactional (a fork of the EntityManager, its unit of work's flush) and knex's
 * transactor, which cost more CPU than the statements; `em` itself (the request's own) carries the
 * context, so nothing in `work` may use the ORM's entity methods or its `execute`. Nested (`em`
 * already in a transaction), `work` joins the transaction.
 */
export async function directTransaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  if (em.isInTransaction()) return work(em);
  const client = em.getConnection().getKnex().client as unknown as KnexClient;
  const pg = await client.acquireConnection();
  const connection = pg as unknown as { __knex__disposed?: unknown; query(text: string): Promise<unknown> };
  // what runStatement reads of a knex transaction: its client, which hands out this connection
  em.setTransactionContext({ client: { acquireConnection: async () => pg, releaseConnection: async () => undefined } });
  try {
    await connection.query('BEGIN');
    const value = await work(em);
    await connection.query('COMMIT');
    return value;
  } catch (err) {
    // a connection whose transaction could not be ended leaves the pool
    await connection.query('ROLLBACK').catch(() => (connection.__knex__disposed ??= 'rollback failed'));
    throw err;
  } finally {
    em.resetTransactionContext();
    void client.releaseConnection(pg);
  }
}

/** selectRows on a healthy, caught-up replica when there is one (db/replicas.ts), otherwise on the primary. */
export function selectOnReplica<T = Record<string, unknown>>(em: EntityManager, sql: string, values: readonly unknown[]): Promise<T[]> {
  return readOnReplica(em, (type) => selectRows<T>(em, sql, values, type));
}

/**
 * Rows arrive as arrays (pg's `rowMode: 'array'`) and become objects through a function made once
 * per column list, whose object literal gives every row of that list one hidden class. pg fills its
 * own objects by column name from a spread template: in serve's CPU profile that cost 3–4× what the
 * same rows cost the baseline, and alone in a bare process a 30-row read costs ~20 % more CPU
 * than with arrays. Names are quoted with JSON.stringify, so the made code holds no database text;
 * a repeated name keeps its last value, as in pg's objects.
 */
export type RowBuilder = (values: unknown[]) => Record<string, unknown>;
const builders = new Map<string, RowBuilder>();
const MAX_BUILDERS = 1000;

export function rowBuilder(fields: readonly { name: string }[]): RowBuilder {
  const key = fields.map((f) => f.name).join('\u0000');
  let build = builders.get(key);
  if (!build) {
    if (builders.size >= MAX_BUILDERS) builders.clear();
    // In a literal, `__proto__:` would set the prototype: such a list is filled by a loop instead.
    if (fields.some((f) => f.name === '__proto__')) {
      build = (v) => {
        const row: Record<string, unknown> = {};
        fields.forEach((f, i) => Object.defineProperty(row, f.name, { value: v[i], enumerable: true, writable: true, configurable: true }));
        return row;
      };
    } else {
      const props = fields.map((f, i) => `${JSON.stringify(f.name)}: v[${i}]`).join(', ');
      build = new Function('v', `return { ${props} };`) as RowBuilder;
    }
    builders.set(key, build);
  }
  return build;
}

const NOT_KEPT = 'named statements are not kept by this server';

/**
 * Why a named statement failed where the same statement unnamed would run, or undefined:
 * 0A000 "cached plan must not change result type" (a migration changed a table under a prepared
 * `select *`); 26000 "prepared statement … does not exist" or 42P05 "… already exists" (the
 * statement met another server session than the one it was prepared on: a transaction pooler,
 * after which named statements are given up for the ORM).
 */
function namedFailure(err: unknown): string | undefined {
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (code === '0A000' && typeof message === 'string' && /cached plan must not change result type/.test(message)) {
    return 'a prepared statement outlived a schema change';
  }
  return code === '26000' || code === '42P05' ? NOT_KEPT : undefined;
}

/** Instants go as UTC ISO text (the ORM runs with forceUtcTimezone); pg would send the process's local offset. */
function parameter(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}
