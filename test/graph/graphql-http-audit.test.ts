import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * GraphQL over HTTP: the `graphql-http` package's server audit (the conformance suite of the spec) against
 * /graphql over a real socket, with a server key: no error and no warning (a devDependency; a tree
 * installed without it skips, saying so).
 */
const PACKAGE = 'graphql-http';
const hasAudit = (() => {
  try {
    createRequire(__filename).resolve(PACKAGE);
    return true;
  } catch {
    return false;
  }
})();
if (!hasAudit)
  console.warn('graphql-http is not installed: the GraphQL over HTTP audit does not run (test/graph/graphql-http-audit.test.ts)');

interface AuditResult {
  status: 'ok' | 'notice' | 'warn' | 'error';
  name: string;
  reason?: string;
}
interface Audits {
  serverAudits: (opts: { url: string; fetchFn: typeof fetch }) => { name: string; fn: () => Promise<AuditResult> }[];
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

describe.skipIf(!hasAudit).each(ENGINES)('graphql-http server audit (%s)', (engine) => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startApp(engine, db);
    url = `${await t.listen()}/graphql`;
  });
  afterAll(() => t.close());

  it('passes every audit, warnings included', async () => {
    const { serverAudits } = (await import(PACKAGE)) as Audits;
    const fetchFn: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('x-api-key', KEYS.server);
      return fetch(input, { ...init, headers });
    };
    const results = await Promise.all(serverAudits({ url, fetchFn }).map((audit) => audit.fn()));
    // a notice is a MAY the server chose otherwise (a malformed operationName or extensions is 200 for a legacy client)
    const notOk = results
      .filter((r) => r.status === 'warn' || r.status === 'error')
      .map((r) => `${r.status} ${r.name}: ${String(r.reason)}`);
    expect(notOk).toEqual([]);
    expect(results.length).toBeGreaterThan(40);
  });
});
