import pg from 'pg';

/**
 * The serving pool sends `statement_timeout` as a connection startup parameter (db/orm.ts). A PgBouncer
 * with its default `ignore_startup_parameters` refuses any startup parameter it does not know, so the
 * pool could not open a single connection and `serve` stopped at start with "unsupported startup
 * parameter: statement_timeout". Before the pool is made, one connection is opened the way the pool
 * would; if exactly that refusal comes back, the pool connects without the parameter and the statement
 * bound is the client's alone (pg's `query_timeout`, the timeout plus a margin): a request stops waiting
 * and answers 503, but the server does not cancel the statement. A session `SET` is not an option behind a
 * transaction-mode pooler (the next transaction may run on another server connection), so nothing else
 * is set. One warning says which PgBouncer setting restores the server-side timeout.
 */
export const RESTORING_SETTING = 'ignore_startup_parameters = statement_timeout';

/** PgBouncer's answer to a startup parameter it does not ignore: "unsupported startup parameter: NAME". */
export function refusesStartupParameter(err: unknown, name: string): boolean {
  const message = err instanceof Error ? err.message : '';
  return /unsupported startup parameter/i.test(message) && message.includes(name);
}

export interface StatementTimeoutProbe {
  /** false: the server (a pooler) refused the startup parameter. */
  accepted: boolean;
  /** When refused: the `statement_timeout` the server's connections have anyway (role, database or connect_query). */
  serverValue?: string;
}

/**
 * Opens one connection with `statement_timeout` as a startup parameter. Any other failure (the database
 * is down, a wrong password) is not this function's to report: it answers `accepted` and the pool meets
 * the failure as it always did.
 */
export async function probeStatementTimeout(
  url: string,
  statementTimeoutMs: number,
  connectTimeoutMs: number,
): Promise<StatementTimeoutProbe> {
  const withParameter = new pg.Client({
    connectionString: url,
    statement_timeout: statementTimeoutMs,
    connectionTimeoutMillis: connectTimeoutMs,
  });
  withParameter.on('error', () => undefined);
  try {
    await withParameter.connect();
    return { accepted: true };
  } catch (err) {
    if (!refusesStartupParameter(err, 'statement_timeout')) return { accepted: true };
  } finally {
    await withParameter.end().catch(() => undefined);
  }
  const without = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  without.on('error', () => undefined);
  try {
    await without.connect();
    const { rows } = await without.query<{ statement_timeout: string }>('show statement_timeout');
    return { accepted: false, serverValue: rows[0]?.statement_timeout };
  } catch {
    return { accepted: false };
  } finally {
    await without.end().catch(() => undefined);
  }
}

/** Warnings found while making an ORM, logged once by the app that uses it (app.ts `build`). */
const pending = new WeakMap<object, { fields: Record<string, unknown>; message: string }[]>();

export function noteOrmWarning(orm: object, fields: Record<string, unknown>, message: string): void {
  pending.set(orm, [...(pending.get(orm) ?? []), { fields, message }]);
}

/** The ORM's pending warnings, handed out once. */
export function takeOrmWarnings(orm: object): { fields: Record<string, unknown>; message: string }[] {
  const found = pending.get(orm) ?? [];
  pending.delete(orm);
  return found;
}
