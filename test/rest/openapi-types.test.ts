import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/rest/routes/index.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';

/**
 * Clients generate code from /openapi.json: every route's 200 answer carries its real schema (derived
 * from the route's named operation over the GraphQL schema, and its `respond` shape), so the types
 * `openapi-typescript` generates let a client read a result field without a cast. The test runs the
 * real CLI on the served document and type-checks client snippets against its output with the
 * TypeScript compiler API: one that must compile, and one that must not (a field the answer lacks).
 */
const CLI = path.resolve(__dirname, '..', '..', 'node_modules', 'openapi-typescript', 'bin', 'cli.js');

const openApiPath = (p: string) => `/v400/{lang}/{project}${p}`.replace(/:(\w+)/g, '{$1}');

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

/** Type errors of `snippet` compiled beside the generated `api.d.ts`, as text. */
function typeErrors(dir: string, snippet: string): string[] {
  const file = path.join(dir, 'client.ts');
  fs.writeFileSync(file, snippet);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const ANSWER = (p: string, method: 'get' | 'post') =>
  `paths['${openApiPath(p)}']['${method}']['responses'][200]['content']['application/json']`;

describe.each(ENGINES)('OpenAPI for typed clients (%s)', (engine) => {
  let t: TestApp;
  let dir: string;
  let doc: any;
  beforeAll(async () => {
    t = await startApp(engine, db);
    doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ordergraph-openapi-'));
    fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
    execFileSync(process.execPath, [CLI, path.join(dir, 'openapi.json'), '-o', path.join(dir, 'api.d.ts')], { stdio: 'pipe' });
    // OPENAPI_TYPES_OUT=file keeps the generated types, to read them
    if (process.env.OPENAPI_TYPES_OUT) fs.copyFileSync(path.join(dir, 'api.d.ts'), process.env.OPENAPI_TYPES_OUT);
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('every route documents its real result (and pagination on lists), not a generic envelope', () => {
    for (const spec of ROUTES) {
      const where = `${spec.method} ${spec.path}`;
      if (spec.file) {
        // a file route answers the file's bytes with its own type, documented as binary, with 206, 304 and 416
        const responses = doc.paths[openApiPath(spec.path)][spec.method.toLowerCase()].responses;
        expect(responses['200'].content['*/*'].schema, where).toMatchObject({ type: 'string', format: 'binary' });
        expect(responses['206'].content['*/*'].schema, where).toMatchObject({ type: 'string', format: 'binary' });
        expect(responses['304'].content, where).toBeUndefined();
        expect(responses['416'].content, where).toBeUndefined();
        continue;
      }
      if (spec.stream) {
        expect(Object.keys(doc.paths[openApiPath(spec.path)].get.responses['200'].content), where).toEqual(['text/event-stream']);
        continue;
      }
      if (spec.plainText) {
        expect(Object.keys(doc.paths[openApiPath(spec.path)].get.responses['200'].content), where).toEqual(['text/plain']);
        continue;
      }
      const ok = doc.paths[openApiPath(spec.path)][spec.method.toLowerCase()].responses['200'].content['application/json'].schema;
      expect(ok.required, `${where}: its 200 answer is the generic envelope (give the route a resultSchema)`).toEqual(
        expect.arrayContaining(['error', 'result']),
      );
      expect(ok.properties.result, where).toBeDefined();
    }
    const list = doc.paths[openApiPath('/ai/conversations')].get.responses['200'].content['application/json'].schema;
    expect(list.required).toContain('pagination');
    expect(doc.components.schemas.Pagination.properties.total).toEqual({ type: 'integer' });
    expect(doc.components.schemas.Pagination.properties.from).toEqual({ type: ['integer', 'null'] });
    expect(list.properties.result.type).toBe('array');
    expect(list.properties.result.items.properties.messages_count).toEqual({ type: ['integer', 'null'] }); // `Int` in the schema
    expect(list.properties.result.items.properties.status).toEqual({ type: 'string', enum: ['active', 'closed'] });
    expect(list.properties.result.items.properties.closed_at).toEqual({ type: ['string', 'null'], format: 'date-time' });
    // a params selection may leave out anything but id and messages_count
    expect(list.properties.result.items.required).toEqual(['id', 'messages_count']);
    const conversation = doc.components.schemas.Conversation;
    expect(conversation.required).toEqual(expect.arrayContaining(['id', 'status', 'created_at', 'usage', 'closed_at']));
    const one = doc.paths[openApiPath('/ai/conversations/:conversation_id')].get.responses['200'].content['application/json'].schema;
    expect(one.required).not.toContain('pagination');
    expect(one.properties.result.properties.id).toEqual({ type: 'integer', format: 'int64' });
  });

  it('openapi-typescript types read result fields without a cast', () => {
    const errors = typeErrors(
      dir,
      `
      import type { paths } from './api';
      declare const list: ${ANSWER('/ai/conversations', 'get')};
      declare const one: ${ANSWER('/ai/conversations/:conversation_id', 'get')};
      declare const auth: ${ANSWER('/auth', 'post')};
      declare const configs: ${ANSWER('/configs', 'get')};
      const status: 'active' | 'closed' | undefined = list.result[0].status;
      const count: number | null | undefined = list.result[0].messages_count;
      const closed: string | null | undefined = list.result[0].closed_at;
      const total: number = list.pagination.total;
      const id: number = one.result.id;
      const token: string = auth.result.session.access_token;
      const level: number = auth.result.level;
      const ok: false = list.error;
      const keys: string[] = Array.isArray(configs.result) ? configs.result.map((c) => c.key) : Object.keys(configs.result);
      export { status, count, closed, total, id, token, level, ok, keys };
    `,
    );
    expect(errors).toEqual([]);
  });

  it('and refuse what the answer does not have (the types are not any)', () => {
    const errors = typeErrors(
      dir,
      `
      import type { paths } from './api';
      declare const one: ${ANSWER('/ai/conversations/:conversation_id', 'get')};
      const nope: string = one.result.no_such_field;
      const id: string = one.result.id;
      export { nope, id };
    `,
    );
    expect(errors).toHaveLength(2);
    expect(errors.join('\n')).toContain('no_such_field');
  });
});
