import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/rest/routes/index.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';

/**
 * /openapi.json as real tools read it: @apidevtools/swagger-parser's validation (the OpenAPI 3.0 schema
 * plus its own checks) and Redocly's `recommended` ruleset, both on the document the server serves;
 * operationIds are the GraphQL operation names, so a client generated with openapi-typescript gets
 * `operations['CloseAiConversation']`, which a small client snippet type-checks against.
 */
const CLI = path.resolve(__dirname, '..', '..', 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
const openApiPath = (p: string) => `/v400/{lang}/{project}${p}`.replace(/:(\w+)/g, '{$1}');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * Redocly warnings the document keeps on purpose (rule → where):
 * - info-license: the project is UNLICENSED (package.json); there is no license to name.
 * - operation-4xx-response on the health probes: they answer 200 or 503 and nothing else.
 */
const EXPLAINED_WARNINGS = [
  'info-license #/info',
  'operation-4xx-response #/paths/~1health~1live/get/responses',
  'operation-4xx-response #/paths/~1health~1ready/get/responses',
];

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('/openapi.json passes real validators (%s)', (engine) => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await startApp(engine, db);
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(() => t.close());

  it('swagger-parser validates it with no error', async () => {
    let errors: string[] = [];
    try {
      await SwaggerParser.validate(structuredClone(doc));
    } catch (err) {
      const details = (err as { details?: { instancePath: string; message: string }[] }).details;
      errors = details ? details.map((e) => `${e.instancePath} ${e.message}`) : [String(err)];
    }
    expect(errors).toEqual([]);
  });

  it("Redocly's recommended rules find no error, and only the explained warnings", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: 'openapi.json', config });
    const found = problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`);
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(found.sort()).toEqual([...EXPLAINED_WARNINGS].sort());
  });

  it('every route has the name of the GraphQL operation it runs as operationId; every operation has one, once', () => {
    for (const spec of ROUTES) {
      expect(doc.paths[openApiPath(spec.path)][spec.method.toLowerCase()].operationId, `${spec.method} ${spec.path}`).toBe(spec.operation);
    }
    const ids = Object.values(doc.paths as Record<string, Record<string, any>>).flatMap((item) =>
      METHODS.filter((m) => item[m]).map((m) => item[m].operationId as string | undefined),
    );
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('states its rules itself: no reference to a document the reader does not have', () => {
    expect(JSON.stringify(doc)).not.toMatch(/CONTRACT|api-spec|§/);
  });

  it('describes the headers read and set, the multipart upload, payload by type, the list syntax and the webhooks', () => {
    const op = (p: string, m: string) => doc.paths[openApiPath(p)][m];
    const headers = (p: string, m: string) =>
      op(p, m)
        .parameters.filter((x: any) => x.in === 'header')
        .map((x: any) => x.name);
    expect(headers('/ai/conversations/:conversation_id/messages', 'post')).toEqual(
      expect.arrayContaining(['Idempotency-Key', 'X-Request-Id']),
    );
    expect(headers('/ai/events', 'get')).toContain('Last-Event-ID');
    expect(headers('/ai/webhooks/whatsapp', 'post')).toContain('X-Hub-Signature-256');
    expect(headers('/ai/media/:media_id', 'get')).toEqual(expect.arrayContaining(['Range', 'If-None-Match']));
    expect(op('/ai/events', 'get').responses['503'].headers).toHaveProperty('Retry-After');
    expect(op('/configs', 'get').responses['200'].headers).toHaveProperty('X-Request-Id');
    expect(op('/ai/media', 'post').requestBody.content['multipart/form-data'].schema.required).toEqual(['file']);
    const write = op('/ai/conversations/:conversation_id/messages', 'post').requestBody.content['application/json'].schema;
    // CONTRACT §12.2: a text may be posted without `type`, so the text variant does not require it (and no discriminator, which would)
    expect(write.discriminator).toBeUndefined();
    const variants = write.oneOf.map((v: { $ref: string }) => doc.components.schemas[v.$ref.split('/').pop()!]);
    const text = variants.find((v: any) => v.properties.type.const === 'text');
    expect(text.required).toEqual(['role', 'content']);
    expect(variants.filter((v: any) => v !== text).every((v: any) => v.required.includes('type'))).toBe(true);
    expect(variants.map((v: any) => v.properties.type.const)).toContain('interactive');
    const where = op('/ai/conversations', 'get').parameters.find((x: any) => x.name === 'where');
    expect(where.description).toContain('`assignee_id` (id, a 64-bit integer)');
    expect(op('/ai/conversations/:conversation_id', 'get').parameters.find((x: any) => x.name === 'conversation_id').schema.type).toBe(
      'integer',
    );
    expect(
      op('/ai/conversations/:conversation_id/close', 'post').responses['400'].content['application/json'].schema.properties.code.enum,
    ).toEqual(expect.arrayContaining(['ERROR_VALIDATION', 'ERROR_AI_CONVERSATION_NOT_FOUND', 'ERROR_AI_CONVERSATION_CLOSED']));
    expect(Object.keys(doc.webhooks)).toEqual(expect.arrayContaining(['message.created', 'conversation.handoff', 'template.status']));
    expect(doc.webhooks['message.created'].post.requestBody.content['application/json'].schema.properties.data).toEqual({
      $ref: '#/components/schemas/Message',
    });
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/health/live', '/health/ready']));
  });

  it('security schemes are declared once and referenced per operation; public routes have none', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKeyAuth', 'bearerAuth']);
    expect(doc.servers?.length).toBeGreaterThan(0);
    for (const spec of ROUTES) {
      const op = doc.paths[openApiPath(spec.path)][spec.method.toLowerCase()];
      expect(op.security, `${spec.method} ${spec.path}`).toEqual(spec.access.anonymous ? [] : [{ bearerAuth: [] }, { apiKeyAuth: [] }]);
    }
    expect(doc.paths[openApiPath('/auth')].post.security).toEqual([]);
    expect(doc.paths[openApiPath('/ai/webhooks/whatsapp')].post.security).toEqual([]);
  });
});

describe('a client generated with openapi-typescript', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await startApp('mercurius', db);
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ordergraph-client-'));
    fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
    execFileSync(process.execPath, [CLI, path.join(dir, 'openapi.json'), '-o', path.join(dir, 'api.d.ts')], { stdio: 'pipe' });
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Diagnostics of `snippet` compiled beside the generated `api.d.ts`. */
  function typeErrors(snippet: string): string[] {
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

  const CLOSE = `
    import type { operations } from './api';
    type Close = operations['CloseAiConversation'];
    type Body = NonNullable<Close['requestBody']>['content']['application/json'];
    type Answer = Close['responses'][200]['content']['application/json'];
    declare function call(params: Close['parameters']['path'], body: Body): Promise<Answer>;
  `;

  it('types a call by its operation name: path parameters, the body and the answer', () => {
    expect(
      typeErrors(`${CLOSE}
      export async function close(): Promise<string> {
        const answer = await call({ lang: 'en', project: 'acme', conversation_id: 7 }, { status_reason: 'completed' });
        return answer.result.status;
      }
    `),
    ).toEqual([]);
  });

  it('refuses a call the API would refuse (an unknown status_reason, a missing path parameter)', () => {
    const errors = typeErrors(`${CLOSE}
      export const a = call({ lang: 'en', project: 'acme', conversation_id: 7 }, { status_reason: 'done' });
      export const b = call({ lang: 'en', project: 'acme' }, { status_reason: 'failed' });
    `);
    expect(errors).toHaveLength(2);
    expect(errors.join('\n')).toContain('"done"');
    expect(errors.join('\n')).toContain('conversation_id');
  });
});
