import { MaxTokensParserWLexer } from '@escape.tech/graphql-armor-max-tokens';
import { getIntrospectionQuery, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_LIMITS, documentRules, parseBounded } from '../../src/graph/limits.js';
import { loadOperations } from '../../src/graph/operations.js';
import { getSchema } from '../../src/graph/schema.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';

/** A named operation may use at most this share of any limit ("far inside"); half the depth. */
const SHARE = 0.25;

describe('document limits and the named operations', () => {
  it('every named operation of schema/operations/ is far inside every limit', async () => {
    const schema = await getSchema();
    const ops = loadOperations(schema);
    expect(ops.size).toBeGreaterThan(10);
    for (const op of ops.values()) {
      const measures: Record<string, number> = {};
      const errors = validate(
        schema,
        op.document,
        documentRules((name, n) => (measures[name] = n)),
      );
      expect(errors, op.name).toEqual([]);
      const parser = new MaxTokensParserWLexer(op.source, { n: DOCUMENT_LIMITS.tokens });
      parser.parseDocument();
      measures.tokens = parser.tokenCount;
      for (const name of ['tokens', 'depth', 'aliases', 'cost', 'databaseCost'] as const) {
        expect(measures[name], `${op.name} ${name}`).toBeTypeOf('number');
        expect(measures[name], `${op.name} ${name}`).toBeLessThanOrEqual(DOCUMENT_LIMITS[name] * (name === 'depth' ? 0.5 : SHARE));
      }
    }
  });

  it("GraphiQL's introspection query passes", async () => {
    const schema = await getSchema();
    const source = getIntrospectionQuery();
    expect(validate(schema, parseBounded(source), documentRules())).toEqual([]);
  });
});

/** Case 1 of issue 10: each fragment spreads the previous one twice (2^39 fields once expanded). */
function fragmentFanOut(levels: number): string {
  const parts = [`query Q { project { ...F${levels - 1} } }`, 'fragment F0 on Project { id code name }'];
  for (let i = 1; i < levels; i++) parts.push(`fragment F${i} on Project { ...F${i - 1} ...F${i - 1} }`);
  return parts.join('\n');
}

function aliases(n: number, field: string): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`a${i}:${field}`);
  return `{${out.join(' ')}}`;
}

const CONVERSATIONS = 'aiConversations(page_size: 100) { items { id messages_count agent { name } } }';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('/graphql refuses unbounded documents before running them (%s)', (engine) => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startApp(engine, db);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    // warm: the first request of a fresh app pays for cold code paths and the key lookup, which no attack case is about
    for (const query of ['{ project { code } }', fragmentFanOut(3), aliases(3, 'project{id}')]) {
      await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEYS.server },
        body: JSON.stringify({ query }),
      });
    }
    await fetch(`${base}/health/live`);
  });
  afterAll(() => t.close());

  /**
   * Sends each document (twice: mercurius compiled on the second run) over a real socket while
   * /health/live is polled; every answer must come within 3 s and no poll may wait over 2 s (bounds of
   * seconds: the stalls this guards against lasted 5–12 s; a loaded CI machine adds hundreds of ms).
   */
  async function refusedQuickly(query: string, limit: RegExp): Promise<void> {
    const answers: number[] = [];
    const payload = JSON.stringify({ query }); // built before polling starts: the client's own work is not the server's
    let polling = true;
    let slowest = 0;
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        const res = await fetch(`${base}/health/live`);
        await res.arrayBuffer();
        slowest = Math.max(slowest, performance.now() - started);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    try {
      for (let run = 0; run < 2; run++) {
        const started = performance.now();
        const res = await fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': KEYS.server },
          body: payload,
        });
        const body = (await res.json()) as { errors: { message: string }[] };
        const elapsed = performance.now() - started;
        expect(res.status).toBe(400);
        expect(body.errors[0].message).toMatch(limit);
        expect(elapsed).toBeLessThan(3000);
        answers.push(Math.round(elapsed));
      }
    } finally {
      polling = false;
      await poller;
    }
    console.log(
      `[limits.test] ${engine}: ${query.length} B refused (${limit.source}) in ${answers.join(' and ')} ms; slowest /health/live ${Math.round(slowest)} ms`,
    );
    expect(slowest).toBeLessThan(2000);
  }

  it('case 1: a fragment fan-out of 40 levels, sent twice', async () => {
    const query = fragmentFanOut(40);
    expect(query.length).toBeLessThan(2000);
    await refusedQuickly(query, /cost limit of \d+ exceeded/i);
  });

  it('case 2: 53,000 distinct aliases (about 1 MB), sent twice', async () => {
    const query = aliases(53_000, 'project{id}');
    expect(query.length).toBeGreaterThan(800_000);
    await refusedQuickly(query, /token limit of \d+ exceeded/i);
  });

  it('case 3: 10,000 aliases of a conversation page, and of configs', async () => {
    await refusedQuickly(aliases(10_000, CONVERSATIONS), /token limit of \d+ exceeded/i);
    await refusedQuickly(aliases(10_000, 'configs { id key value }'), /token limit of \d+ exceeded/i);
  });

  it('counts what the database reads: a few full pages of conversations pass the shape limits but not the database cost', async () => {
    await refusedQuickly(aliases(8, CONVERSATIONS), /database cost limit of \d+ exceeded/i);
    await refusedQuickly(aliases(12, 'configs { id key value }'), /database cost limit of \d+ exceeded/i);
    await refusedQuickly(aliases(DOCUMENT_LIMITS.aliases + 1, 'project { id }'), /aliases limit of \d+ exceeded/i);
  });

  it('still answers a small document with a few aliases', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-api-key': KEYS.server },
      payload: { query: `{ a: ${CONVERSATIONS} b: configs { key } c: project { code } }` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().errors).toBeUndefined();
    expect(res.json().data.c.code).toBe('acme');
  });
});
