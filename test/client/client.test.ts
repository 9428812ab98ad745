import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTypes } from '../../src/rest/openapi/write.js';
import { startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';

/**
 * The typed client in clients/typescript: api.d.ts is what openapi-typescript generates from the
 * /openapi.json the server serves (CLIENT_WRITE=1 rewrites it, as `npm run client:write` does), and the
 * example runtime beside it compiles with tsc --strict against it and openapi-fetch.
 */
const DIR = path.resolve(__dirname, '..', '..', 'clients', 'typescript');
const hasOpenapiFetch = (() => {
  try {
    createRequire(__filename).resolve('openapi-fetch');
    return true;
  } catch {
    return false;
  }
})();
if (!hasOpenapiFetch) console.warn('openapi-fetch is not installed: the example runtime is not compiled (clients/typescript/README.md)');

let db: TestDatabase;
let t: TestApp;
let doc: Record<string, unknown>;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
  t = await startApp('mercurius', db);
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
});
afterAll(async () => {
  await t.close();
  await db.orm.close();
});

describe('the generated TypeScript client', () => {
  it('api.d.ts is what openapi-typescript generates from the served /openapi.json', async () => {
    const generated = await clientTypes(doc);
    if (process.env.CLIENT_WRITE === '1') fs.writeFileSync(path.join(DIR, 'api.d.ts'), generated);
    expect(fs.readFileSync(path.join(DIR, 'api.d.ts'), 'utf8'), 'clients/typescript/api.d.ts is stale: npm run client:write').toBe(
      generated,
    );
  });

  it('types payload by type: a reply with buttons compiles, a wrong member does not (no cast anywhere)', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ordergraph-client-')), 'check.ts');
    fs.writeFileSync(
      file,
      `import type { paths } from ${JSON.stringify(path.join(DIR, 'api'))};
      type Write = paths['/v400/{lang}/{project}/ai/conversations/{conversation_id}/messages']['post'];
      type Body = Write['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;
      type Message = Write['responses'][200]['content']['application/json']['result'];
      export const ok: Body = { role: 'assistant', type: 'interactive', payload: { type: 'button', body: { text: 'Hi' }, action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] } } };
      export const text: Body = { role: 'assistant', type: 'text', content: 'Hi' };
      export const plain: Body = { role: 'assistant', content: 'Hi' };
      export const bad: Body = { role: 'assistant', type: 'location', payload: { latitude: 1 } };
      export function read(m: Message): number | null {
        if (m.type === 'location' && m.payload) return m.payload.latitude;
        return m.usage?.input_tokens ?? null;
      }`,
    );
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      module: ts.ModuleKind.ESNext,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => `${d.start ?? ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('longitude');
  });

  it.skipIf(!hasOpenapiFetch).each(['example-runtime.ts', 'example-order.ts'])(
    'the example runtime (%s) compiles with tsc --strict',
    (file) => {
      const program = ts.createProgram([path.join(DIR, file)], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        types: ['node'],
      });
      expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
      expect(fs.readFileSync(path.join(DIR, file), 'utf8')).not.toMatch(/ as (?!const)\w|<\w+>\s*\(/);
    },
  );
});
