import { createHash } from 'node:crypto';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';

/**
 * Every answer a test receives through `app.inject` is checked against the /openapi.json of the app
 * that gave it (test/support/app.ts wraps `inject`): its status must be documented for its route, its
 * content type among the documented ones (none for a body-less answer), and a JSON body valid against
 * the documented schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it). An answer the document does
 * not describe throws, failing the test that received it.
 *
 * Outside the document, on purpose: /graphql (GraphQL over HTTP, described by schema/schema.graphql),
 * /graphiql, /docs, /openapi.json itself, /console (and its /favicon.ico), /metrics, and CORS preflights
 * (OPTIONS, answered before routing). A path no route serves may only answer 404 (empty for another version, else
 * ERROR_NOT_FOUND): the document's introduction says so.
 */

type Doc = { paths: Record<string, Record<string, { responses: Record<string, Response> }>> };
type Response = { content?: Record<string, unknown> };

interface Compiled {
  doc: Doc;
  ajv: Ajv2020;
  routes: { method: string; template: string; pattern: RegExp; literals: number }[];
  validators: Map<string, ValidateFunction>;
}

const OUTSIDE = /^\/(graphql|graphiql|docs|openapi\.json|console|favicon\.ico|metrics)(\/|$|\?)/;

export const checked = { answers: 0, skipped: 0 };
const compiledByHash = new Map<string, Compiled>();

/** The checker of one document (compiled once per distinct document in the worker). */
export function compileDocument(doc: unknown): Compiled {
  const text = JSON.stringify(doc);
  const hash = createHash('sha1').update(text).digest('hex');
  const known = compiledByHash.get(hash);
  if (known) return known;
  const typed = JSON.parse(text) as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema(typed, 'openapi');
  const routes = Object.entries(typed.paths).flatMap(([template, item]) =>
    Object.keys(item).map((method) => ({
      method: method.toUpperCase(),
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`),
      literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
    })),
  );
  routes.sort((a, b) => b.literals - a.literals);
  const compiled = { doc: typed, ajv, routes, validators: new Map() };
  compiledByHash.set(hash, compiled);
  return compiled;
}

const pointer = (...parts: string[]) => parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

function validatorAt(c: Compiled, ...parts: string[]): ValidateFunction {
  const at = pointer(...parts);
  let v = c.validators.get(at);
  if (!v) c.validators.set(at, (v = c.ajv.compile({ $ref: `openapi#/${at}` })));
  return v;
}

function mediaTypeOf(header: unknown): string | undefined {
  return typeof header === 'string' ? header.split(';')[0].trim().toLowerCase() : undefined;
}

function matchContent(content: Record<string, unknown>, type: string): string | undefined {
  if (type in content) return type;
  const [main] = type.split('/');
  if (`${main}/*` in content) return `${main}/*`;
  return '*/*' in content ? '*/*' : undefined;
}

/** What is wrong with `res` as an answer to `req` under `doc`, or null when the document describes it. */
export function problemOf(c: Compiled, req: { method: string; url: string }, res: LightMyRequestResponse): string | null {
  const path = req.url.split('?')[0];
  const where = `${req.method} ${path} → ${res.statusCode}`;
  if (req.method === 'OPTIONS' || OUTSIDE.test(path)) {
    checked.skipped++;
    return null;
  }
  checked.answers++;
  if (unrouted(res)) return null;
  // HEAD is a GET without its body (HTTP; Fastify answers it for every GET route): its status and headers are the GET's
  const head = req.method === 'HEAD';
  const method = head ? 'GET' : req.method;
  const route = c.routes.find((r) => r.method === method && r.pattern.test(path));
  if (!route) return `${where}: no documented route answers this path and method`;
  const responses = c.doc.paths[route.template][route.method.toLowerCase()].responses;
  const status = String(res.statusCode);
  const key =
    status in responses ? status : `${status[0]}XX` in responses ? `${status[0]}XX` : 'default' in responses ? 'default' : undefined;
  if (!key) return `${where}: status ${status} is not documented for ${route.method} ${route.template}${codeOf(res)}`;
  const content = responses[key].content;
  if (!content) return res.rawPayload.length === 0 ? null : `${where}: documented without a body, answered ${res.rawPayload.length} bytes`;
  const type = mediaTypeOf(res.headers['content-type']);
  if (!type) return `${where}: answered without a Content-Type; documented: ${Object.keys(content).join(', ')}`;
  const media = matchContent(content, type);
  if (!media) return `${where}: Content-Type ${type} is not documented (${Object.keys(content).join(', ')})`;
  if (head || (media !== 'application/json' && !media.endsWith('+json'))) return null;
  const body = safeJson(res.body);
  if (body === undefined) return `${where}: not JSON`;
  const validate = validatorAt(c, 'paths', route.template, route.method.toLowerCase(), 'responses', key, 'content', media, 'schema');
  if (validate(body)) return null;
  const errors = (validate.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  return `${where}: the body does not match the document:\n  ${errors.join('\n  ')}\n  body: ${res.body.slice(0, 600)}`;
}

/**
 * What the document's introduction says of a URL no route serves: 404 with nothing outside /v400, 404
 * ERROR_NOT_FOUND under it (a path that does not decode included), 400 ERROR_VALIDATION for a URL holding NUL.
 */
function unrouted(res: LightMyRequestResponse): boolean {
  if (res.statusCode === 404 && res.rawPayload.length === 0) return true;
  const code = safeJson(res.body)?.code;
  return (
    (res.statusCode === 404 && code === 'ERROR_NOT_FOUND') ||
    (res.statusCode === 400 && code === 'ERROR_VALIDATION' && res.raw.req.url?.includes('%00') === true)
  );
}

/** What is wrong with an event (a webhook delivery's body, a stream's data) under the document's `webhooks`, or null. */
export function eventProblem(c: Compiled, event: { type: string }): string | null {
  const { type } = event;
  const webhooks = (c.doc as unknown as { webhooks: Record<string, unknown> }).webhooks;
  if (!(type in webhooks)) return `event type ${type} is not in the document's webhooks`;
  const validate = validatorAt(c, 'webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema');
  if (validate(event)) return null;
  const errors = (validate.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  return `${type}: the event does not match the document:\n  ${errors.join('\n  ')}`;
}

function codeOf(res: LightMyRequestResponse): string {
  const code = safeJson(res.body)?.code;
  return typeof code === 'string' ? ` (${code})` : '';
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `inject` that checks every answer against `doc`: an undescribed answer rejects with what is wrong. */
export function checkedInject<T extends (opts: InjectOptions) => Promise<LightMyRequestResponse>>(inject: T, doc: unknown): T {
  const c = compileDocument(doc);
  return (async (opts: InjectOptions) => {
    const res = await inject(opts);
    // the request as the server saw it
    const problem = problemOf(c, { method: res.raw.req.method ?? 'GET', url: res.raw.req.url ?? '/' }, res);
    if (problem) throw new Error(`An answer /openapi.json does not describe: ${problem}`);
    return res;
  }) as T;
}
