import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/**
 * Issue 39 (CONTRACT §11) on `/graphql`, over a real socket, under both engines:
 * - finding 7: an `operationName` the document lacks was ERROR_INTERNAL with an error-level log; it
 *   is GraphQL's request error (400, `extensions.code` ERROR_VALIDATION), POST and GET;
 * - the black-box suite: a document of `__typename` alone (query or mutation, POST or GET, or an
 *   `operationName` selecting such an operation) ran while the project was in maintenance; only
 *   `setProjectMaintenance`, with `__typename` beside it at most, may run then.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('/graphql requests (%s)', (engine) => {
  let t: TestApp;
  let origin: string;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await startApp(engine, db, { logStream: { write: (l) => void lines.push(l) }, config: { logLevel: 'info' } });
    origin = await t.listen();
  });
  afterAll(() => t.close());
  afterEach(async () => {
    await db.sql("update projects set maintenance = false where code = 'acme'");
    t.services.tenancy.forgetProject('acme');
  });

  const post = async (body: Record<string, unknown>, key = KEYS.server) => {
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const get = async (params: Record<string, string>, key = KEYS.server) => {
    const res = await fetch(`${origin}/graphql?${new URLSearchParams(params)}`, { headers: { 'x-api-key': key } });
    return { status: res.status, body: (await res.json()) as any };
  };
  const errorLines = () => lines.map((l) => JSON.parse(l)).filter((l) => l.level >= 50);

  it('answers an operationName the document lacks with a request error, ERROR_VALIDATION, nothing logged as an error', async () => {
    const answers = [
      await post({ query: '{ __typename }', operationName: 'Nope' }),
      await post({ query: 'query A { __typename } query B { project { code } }', operationName: 'C' }),
      await get({ query: 'query A { project { code } }', operationName: 'Nope' }),
    ];
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.data ?? null).toBeNull();
      expect(res.body.errors[0].extensions.code).toBe('ERROR_VALIDATION');
      expect(res.body.errors[0].message).toMatch(/Unknown operation named "(Nope|C)"/);
    }
    // several operations and none named
    const none = await post({ query: 'query A { __typename } query B { __typename }' });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].extensions.code).toBe('ERROR_VALIDATION');
    // the name that exists still runs; an empty name is no name
    expect((await post({ query: 'query A { __typename } query B { project { code } }', operationName: 'B' })).body).toEqual({
      data: { project: { code: 'acme' } },
    });
    expect((await post({ query: '{ project { code } }', operationName: '' })).body).toEqual({ data: { project: { code: 'acme' } } });
    expect(errorLines()).toEqual([]);
  });

  it('refuses __typename alone with 503 while the project is in maintenance; only setProjectMaintenance may run', async () => {
    await db.sql("update projects set maintenance = true where code = 'acme'");
    t.services.tenancy.forgetProject('acme');
    const refused = [
      await post({ query: '{ __typename }' }),
      await post({ query: 'mutation { __typename }' }),
      await get({ query: '{ __typename }' }),
      await post({ query: 'query T { __typename } mutation M { setProjectMaintenance(enabled: false) { code } }', operationName: 'T' }),
      await get({ query: 'query T { __typename } query P { project { code } }', operationName: 'T' }),
    ];
    for (const res of refused) {
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(res.body).toMatchObject({ error: true, code: 'ERROR_MAINTENANCE' });
    }
    expect(await db.sql("select code from projects where maintenance and code = 'acme'")).toEqual([{ code: 'acme' }]);

    // the switch with __typename beside it, selected by its name, still runs
    const off = await post(
      {
        query: 'query T { __typename } mutation M { __typename setProjectMaintenance(enabled: false) { maintenance } }',
        operationName: 'M',
      },
      KEYS.admin,
    );
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.data.setProjectMaintenance).toEqual({ maintenance: false });
    t.services.tenancy.forgetProject('acme');
    expect((await post({ query: '{ __typename }' })).status).toBe(200);
  });
});
