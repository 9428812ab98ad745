import type { GraphQLSchema } from 'graphql';
import { ERROR_STATUS, type ErrorCode } from '../../errors/codes.js';
import type { NamedOperation } from '../../graph/operations.js';
import { AI_EVENT_TYPES } from '../../services/events/event-log.js';
import type { Attributes } from '../../services/shared/list-query.js';
import { OPERATORS } from '../../services/shared/list-query.js';
import { paginationSchema, type JSONSchema } from '../json-schema.js';
import { operationDataSchema, rootFieldSchema } from '../openapi-result.js';
import type { RouteSpec } from '../route-spec.js';
import { HEALTH_PATHS } from './health.js';
import { recordPayloadComponents } from './payloads.js';
import { byType, selectable } from './records.js';

export const API_PATH_PREFIX = '/v400/{lang}/{project}';
const SECURED = [{ bearerAuth: [] }, { apiKeyAuth: [] }];
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export interface DocumentInput {
  routes: RouteSpec[];
  operations: Map<string, NamedOperation>;
  schema: GraphQLSchema;
}

const DESCRIPTION = [
  'The REST API of OrderGraph: authentication, configuration and the AI module (agents, conversations, messages, templates, metrics, events, webhooks, files).',
  '',
  'Every operation lives under `/v400/{lang}/{project}`: `lang` is `en`, `es`, `fr` or `ar` (a region suffix counts as its language; anything else answers in English), `project` the tenant code. Another version answers 404 with an empty body; an unknown path or method under `/v400`, or a path that does not decode, answers 404 `ERROR_NOT_FOUND`; a URL holding NUL (`%00`) answers 400 `ERROR_VALIDATION`.',
  '',
  'A success is `{"error": false, "result": …}` (lists add `pagination`); an error is `{"error": true, "code": "ERROR_…", "result": [messages]}` with messages in the request\'s language, one per problem (validation names each invalid field). Checks run in this order: maintenance (503), project (401), usage limits (429), credential and level (401), AI module (403), input (400), then the operation.',
  '',
  'Authenticate with `Authorization: Bearer <access_token>` (from `POST /auth`) or `X-Api-Key`. Every answer carries `X-Request-Id` (the one sent when it is 1–64 letters, digits, `.`, `_` or `-`). A POST of the AI module accepts an `Idempotency-Key`: the same key with the same body within 24 hours answers the first answer again (`Idempotent-Replayed: true`).',
].join('\n');

/** The OpenAPI 3.1 document of the REST API, from the route declarations and their operations over the schema. */
export function buildOpenApi({ routes, operations, schema }: DocumentInput): Record<string, unknown> {
  const components: Record<string, JSONSchema> = {
    ...recordPayloadComponents(),
    Pagination: { ...paginationSchema, required: Object.keys(paginationSchema.properties as object) },
  };
  const paths: Record<string, Record<string, unknown>> = { ...HEALTH_PATHS };
  const records: Record<string, JSONSchema> = {};
  for (const spec of routes) {
    const op = operations.get(spec.operation);
    if (!op) throw new Error(`route ${spec.method} ${spec.path}: unknown operation ${spec.operation}`);
    const data = operationDataSchema(schema, op.document);
    const path = API_PATH_PREFIX + spec.path.replace(/:(\w+)/g, '{$1}');
    const operation = operationOf(spec, data, components);
    (paths[path] ??= {})[spec.method.toLowerCase()] = operation;
    const recordName = spec.record;
    if (recordName && !records[recordName]) records[recordName] = recordOf(spec, data);
  }
  const events = eventRecords(records);
  const webhooks = webhooksOf({ ...records, ...events });
  // a record is published as the data of the events about it (and referenced where an answer is one)
  const used = new Set(AI_EVENT_TYPES.map((t) => EVENT_RECORDS[t.split('.')[0]]));
  for (const [name, record] of Object.entries(records)) if (used.has(name)) components[name] = record;
  for (const [name, record] of Object.entries(events)) if (used.has(name.replace(/Event$/, ''))) components[name] = record;
  referRecords(paths, records, used);
  return {
    openapi: '3.1.0',
    info: { title: 'OrderGraph API', version: '400', description: DESCRIPTION },
    // paths are absolute (/v400/{lang}/{project}/…): the API is served from the root of whichever host serves this document
    servers: [{ url: '/', description: 'This server' }],
    paths,
    webhooks,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer' },
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      },
    },
  };
}

function operationOf(spec: RouteSpec, data: JSONSchema, components: Record<string, JSONSchema>): Record<string, unknown> {
  const body = requestBodyOf(spec, components);
  return {
    operationId: spec.operation,
    summary: spec.summary,
    ...(spec.description && { description: spec.description }),
    tags: spec.tags,
    security: spec.access.anonymous ? [] : SECURED,
    parameters: parametersOf(spec, data),
    ...(body && { requestBody: body }),
    responses: responsesOf(spec, data),
  };
}

/* ---------- parameters ---------- */

const DIGITS = /^\^\[0-9\](\+|\{1,\d+\})\$$/;

function parametersOf(spec: RouteSpec, data: JSONSchema): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [
    {
      name: 'lang',
      in: 'path',
      required: true,
      schema: { type: 'string', examples: ['en'] },
      description: 'en, es, fr or ar (others answer in English)',
    },
    {
      name: 'project',
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,63}$' },
      description: 'The project (tenant) code',
    },
  ];
  const params = (spec.schema?.params?.properties ?? {}) as Record<string, JSONSchema>;
  for (const [name, s] of Object.entries(params)) {
    // ids are 1–18 digits in the path (CONTRACT §16): documented as the 64-bit integers every answer gives
    const id = typeof s.pattern === 'string' && DIGITS.test(s.pattern);
    out.push({
      name,
      in: 'path',
      required: true,
      schema: id ? { type: 'integer', format: 'int64', minimum: 0 } : s,
    });
  }
  const query = (spec.schema?.querystring?.properties ?? {}) as Record<string, JSONSchema>;
  const required = (spec.schema?.querystring?.required as string[] | undefined) ?? [];
  for (const [name, s] of Object.entries(query)) {
    const description = queryDescription(spec, name, data);
    out.push({ name, in: 'query', required: required.includes(name), schema: s, ...(description && { description }) });
  }
  for (const header of headersRead(spec)) out.push(header);
  return out;
}

function headersRead(spec: RouteSpec): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [
    {
      name: 'X-Request-Id',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[\\w.-]{1,64}$' },
      description: "Echoed in the answer's X-Request-Id (else a new id is given)",
    },
  ];
  if (spec.method === 'POST' && spec.ai)
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
      description:
        'Makes the write safe to retry: within 24 hours the same key with the same body answers the kept answer (with Idempotent-Replayed: true); with another body 400 ERROR_IDEMPOTENCY_KEY_REUSED; while the first still runs 409 ERROR_IDEMPOTENCY_IN_PROGRESS with Retry-After. A 5xx is not kept.',
    });
  if (spec.stream)
    out.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[0-9]{1,16}$' },
      description: 'Resume after this event id (EventSource sends it when it reconnects); wins over ?last_event_id',
    });
  if (spec.file) {
    out.push({
      name: 'Range',
      in: 'header',
      required: false,
      schema: { type: 'string' },
      description: 'One byte range (bytes=a-b, a-, -n): 206; unsatisfiable: 416',
    });
    out.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      schema: { type: 'string' },
      description: 'The ETag of a copy held: 304 when unchanged',
    });
  }
  if (spec.rawBody)
    out.push({
      name: 'X-Hub-Signature-256',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
      description:
        "sha256= and the hex HMAC-SHA256 of the raw body under the agent's app secret; anything else is 401 ERROR_WEBHOOK_SIGNATURE",
    });
  return out;
}

const typeNames: Record<string, string> = {
  int: 'integer',
  id: 'id, a 64-bit integer',
  string: 'text',
  boolean: 'boolean',
  timestamp: 'timestamp (ISO 8601 or YYYY-MM-DD HH:mm:ss, UTC without a zone)',
};
const listAttributes = (a: Attributes) =>
  Object.entries(a)
    .map(([name, type]) => `\`${name}\` (${typeNames[type] ?? type})`)
    .join(', ');

function queryDescription(spec: RouteSpec, name: string, data: JSONSchema): string | undefined {
  const list = spec.list;
  if (name === 'where' && list?.where) {
    const relations = Object.entries(list.relations ?? {})
      .map(
        ([r, attrs]) =>
          ` A group naming the relation \`${r}\` ({"attribute": "${r}", "conditions": […]}) filters on its ${listAttributes(attrs)}.`,
      )
      .join('');
    return (
      'JSON: an object of exact matches, AND-ed (an array value means any of), or an array of conditions ' +
      `{"attribute", "value"} where value is a literal or {"condition", "value"} with condition one of ${OPERATORS.map((o) => `\`${o}\``).join(', ')} ` +
      '(`in` takes an array; `null` and `not_null` take no value); a group is {"conditions": […], "conector": "AND"|"OR"}. ' +
      `Attributes: ${listAttributes(list.where)}.${relations}${list.note ? ` ${list.note}` : ''} Any other attribute, or malformed JSON: 400 naming the attributes allowed.`
    );
  }
  if (name === 'orderBy' && list?.orderBy)
    return `Comma-separated attributes, \`-\` for descending (default and last key: \`id\` ascending). Attributes: ${Object.keys(
      list.orderBy,
    )
      .map((a) => `\`${a}\``)
      .join(', ')}. Any other: 400 naming the attributes allowed.`;
  if ((name === 'params' || name === 'fields') && spec.document) {
    const fields = Object.keys((itemsOf(resultOf(spec, data)).properties as object | undefined) ?? {});
    const relations =
      name === 'params' && spec.list?.selectRelations
        ? ` Relations (a dotted path selects inside: \`agent.name\`; a bare name its default fields): ${spec.list.selectRelations.map((r) => `\`${r}\``).join(', ')}.`
        : '';
    const also =
      spec.path.endsWith('/messages') && name === 'params'
        ? ' Here `params` means what `fields` means; when both are sent, `fields` wins.'
        : '';
    return `Comma-separated fields to answer (\`id\` always included): ${fields.map((f) => `\`${f}\``).join(', ')}.${relations}${also} Unknown: 400.`;
  }
  if (name === 'q') return "Only conversations whose contact, contact name or a message's content contains this text (case-insensitive)";
  if (name === 'page') return 'Page number, from 1';
  if (name === 'page_size') return 'Rows per page, 1 to 100';
  return undefined;
}

/* ---------- bodies ---------- */

function requestBodyOf(spec: RouteSpec, components: Record<string, JSONSchema>): Record<string, unknown> | undefined {
  if (spec.upload)
    return {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: {
              file: {
                type: 'string',
                format: 'binary',
                contentMediaType: 'application/octet-stream',
                description: 'The file, with its own Content-Type',
              },
            },
            required: ['file'],
          },
          encoding: { file: { contentType: '*/*' } },
        },
      },
    };
  if (spec.rawBody)
    return {
      required: true,
      description: "WhatsApp's notification as Meta sends it, signed over its raw bytes",
      content: {
        'application/json': {
          schema: { type: 'object', properties: { object: { type: 'string' }, entry: { type: 'array', items: { type: 'object' } } } },
        },
      },
    };
  const documented = spec.documentedBody?.();
  if (documented) Object.assign(components, documented.components ?? {});
  const body = documented?.body ?? spec.schema?.body;
  if (!body) return undefined;
  return { required: !!(spec.schema?.body?.required as string[] | undefined)?.length, content: { 'application/json': { schema: body } } };
}

/* ---------- answers ---------- */

const JSON_TYPE = 'application/json';
const HEADERS = {
  requestId: { 'X-Request-Id': { description: "The request's id (the one sent, else a new one)", schema: { type: 'string' } } },
  retryAfter: { 'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } } },
};

/** The 200 envelope with the route's real result (and pagination), from its operation's data schema. */
function resultOf(spec: RouteSpec, data: JSONSchema): { result: JSONSchema; pagination?: JSONSchema } {
  const out = spec.resultSchema ? spec.resultSchema(data) : { result: rootFieldSchema(data) };
  const result = spec.document ? selectable(out.result, spec.selectionAlways) : out.result;
  return { ...out, result: byType(result) as JSONSchema };
}

const itemsOf = (s: { result: JSONSchema }): JSONSchema => ((s.result.type === 'array' ? s.result.items : s.result) ?? {}) as JSONSchema;

function successOf(spec: RouteSpec, data: JSONSchema): Record<string, unknown> {
  if (spec.file) {
    const bytes = { '*/*': { schema: { type: 'string', format: 'binary' } } };
    const fileHeaders = {
      ETag: { schema: { type: 'string' } },
      'Accept-Ranges': { schema: { type: 'string', const: 'bytes' } },
      'Content-Disposition': {
        schema: { type: 'string' },
        description: 'inline for pictures, audio, video and PDF; else attachment with the file name',
      },
    };
    return {
      200: {
        description: "The file's bytes, with its own Content-Type",
        headers: { ...HEADERS.requestId, ...fileHeaders },
        content: bytes,
      },
      206: {
        description: 'The requested byte range',
        headers: { ...HEADERS.requestId, ...fileHeaders, 'Content-Range': { schema: { type: 'string' }, description: 'bytes a-b/size' } },
        content: bytes,
      },
      304: {
        description: 'If-None-Match names the current ETag: no body',
        headers: { ...HEADERS.requestId, ETag: { schema: { type: 'string' } } },
      },
      416: {
        description: 'The Range cannot be satisfied: no body',
        headers: { ...HEADERS.requestId, 'Content-Range': { schema: { type: 'string' }, description: 'bytes */size' } },
      },
    };
  }
  if (spec.stream)
    return {
      200: {
        description:
          'Server-Sent Events: each event is `id: N`, `event: TYPE` and `data: {"id", "type", "created_at", "data"}` (the `webhooks` of this document describe each type\'s data), resumable with Last-Event-ID; `stream.reset` when the resume point is gone; comment lines keep the connection alive.',
        headers: HEADERS.requestId,
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
    };
  if (spec.plainText)
    return {
      200: {
        description: 'hub.challenge as sent, as text',
        headers: HEADERS.requestId,
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    };
  const out = resultOf(spec, data);
  const selectable = spec.document ? ' With `params` (or `fields`), only the fields selected (and `id`).' : '';
  return {
    200: {
      description: `Success.${selectable}`,
      headers: HEADERS.requestId,
      content: {
        [JSON_TYPE]: {
          schema: {
            type: 'object',
            properties: {
              error: { type: 'boolean', const: false },
              result: out.result,
              ...(out.pagination && { pagination: ref('Pagination') }),
            },
            required: ['error', 'result', ...(out.pagination ? ['pagination'] : [])],
            additionalProperties: false,
          },
        },
      },
    },
  };
}

/** Codes every route of its kind can answer (the checks before the operation, the body's transport, idempotency). */
export function errorCodesOf(spec: RouteSpec): [ErrorCode, number][] {
  const codes: ErrorCode[] = [
    'ERROR_VALIDATION',
    'ERROR_PROJECT_NOT_FOUND',
    'ERROR_PROJECT_SUBSCRIPTION_INACTIVE',
    'ERROR_UNAUTHORIZED',
    'ERROR_RATE_LIMIT',
    'ERROR_INTERNAL',
    'ERROR_PROJECT_LOOKUP_FAILED',
    'ERROR_MAINTENANCE',
    'ERROR_RATE_LIMIT_UNAVAILABLE',
    'ERROR_SERVICE_UNAVAILABLE',
  ];
  if (spec.ai) codes.push('ERROR_AI_MODULE_DISABLED');
  if (spec.access.levels !== 'any' && !spec.access.anonymous) codes.push('ERROR_FORBIDDEN');
  if (spec.method !== 'GET' && spec.method !== 'DELETE') codes.push('ERROR_PAYLOAD_TOO_LARGE', 'ERROR_UNSUPPORTED_MEDIA_TYPE');
  if (spec.method === 'POST' && spec.ai) codes.push('ERROR_IDEMPOTENCY_KEY_REUSED', 'ERROR_IDEMPOTENCY_IN_PROGRESS');
  const out: [ErrorCode, number][] = codes.map((c) => [c, ERROR_STATUS[c]]);
  for (const e of spec.errors ?? []) {
    const [code, status] = typeof e === 'string' ? [e, ERROR_STATUS[e]] : e;
    if (!out.some(([c, s]) => c === code && s === status)) out.push([code, status]);
  }
  return out;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input, or a business rule refused it (told apart by `code`)',
  401: 'Unknown project, inactive subscription, missing or invalid credential, or a level the operation does not allow',
  403: "The project's AI module is off, or the operation is not the caller's",
  404: 'Not found',
  409: 'A conflict with the current state',
  413: 'The body is larger than allowed',
  415: 'A content type the operation does not take',
  429: 'Usage limits reached: Retry-After says when to try again',
  500: 'Unexpected failure (logged; nothing is leaked)',
  502: 'The provider did not answer as expected',
  503: 'Maintenance, or a dependency unavailable: Retry-After says when to try again',
};

/** Error codes whose envelope's `result` is an object instead of messages. */
const OBJECT_RESULTS: Partial<Record<ErrorCode, JSONSchema>> = {
  ERROR_AI_CONVERSATION_CONFLICT: { type: 'object', description: 'ERROR_AI_CONVERSATION_CONFLICT: the conflict details' },
  ERROR_AI_CART_CHANGED: { ...ref('Cart'), description: 'ERROR_AI_CART_CHANGED: the current cart' },
};

function errorsOf(spec: RouteSpec): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [code, status] of errorCodesOf(spec)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const objects = codes.flatMap((c) => (OBJECT_RESULTS[c] ? [OBJECT_RESULTS[c]] : []));
    const messages = { type: 'array', items: { type: 'string' }, description: "One message per problem, in the request's language" };
    out[status] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error',
      headers: { ...HEADERS.requestId, ...(status === 429 || status === 503 || status === 409 ? HEADERS.retryAfter : {}) },
      content: {
        [JSON_TYPE]: {
          schema: {
            type: 'object',
            properties: {
              error: { type: 'boolean', const: true },
              code: { type: 'string', enum: codes },
              result: objects.length ? { oneOf: [messages, ...objects] } : messages,
            },
            required: ['error', 'code', 'result'],
            additionalProperties: false,
          },
        },
      },
    };
  }
  return out;
}

function responsesOf(spec: RouteSpec, data: JSONSchema): Record<string, unknown> {
  return { ...successOf(spec, data), ...errorsOf(spec) };
}

/* ---------- records and webhooks ---------- */

function recordOf(spec: RouteSpec, data: JSONSchema): JSONSchema {
  // the record as its route answers it without a selection
  const out = spec.resultSchema ? spec.resultSchema(data) : { result: rootFieldSchema(data) };
  return byType(out.result.type === 'array' ? out.result.items : out.result) as JSONSchema;
}

/** Every schema in `paths` equal to a published record becomes a reference to it (one definition, one generated type). */
function referRecords(paths: Record<string, unknown>, records: Record<string, JSONSchema>, used: Set<string>): void {
  const byText = new Map(
    Object.entries(records)
      .filter(([name]) => used.has(name))
      .map(([name, r]) => [JSON.stringify(r), name]),
  );
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const name = byText.get(JSON.stringify(node));
    if (name) return ref(name);
    for (const [k, v] of Object.entries(node)) (node as Record<string, unknown>)[k] = walk(v);
    return node;
  };
  for (const item of Object.values(paths)) walk(item);
}

const EVENT_RECORDS: Record<string, string> = {
  conversation: 'Conversation',
  message: 'Message',
  template: 'TemplateSend',
  agent: 'Agent',
  cart: 'Cart',
  order: 'Order',
};

/** Members of a record an event's data never has: the caller's own counts (an event has no caller). */
const NOT_IN_EVENTS: Record<string, string[]> = { Conversation: ['unread_count'] };

/** The record an event's data is: the record itself, or `{Name}Event` without the caller's members. */
function eventRecords(records: Record<string, JSONSchema>): Record<string, JSONSchema> {
  const out: Record<string, JSONSchema> = {};
  for (const [name, record] of Object.entries(records)) {
    const omit = NOT_IN_EVENTS[name];
    if (!omit) continue;
    const properties = Object.fromEntries(
      Object.entries(record.properties as Record<string, JSONSchema>).filter(([k]) => !omit.includes(k)),
    );
    const required = ((record.required as string[] | undefined) ?? []).filter((k) => !omit.includes(k));
    out[`${name}Event`] = { ...record, properties, required };
  }
  return out;
}

function webhooksOf(records: Record<string, JSONSchema>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const type of AI_EVENT_TYPES) {
    const record = EVENT_RECORDS[type.split('.')[0]];
    const name = records[`${record}Event`] ? `${record}Event` : record;
    const data = records[name] ? ref(name) : { type: 'object' };
    out[type] = {
      post: {
        operationId: `webhook:${type}`,
        summary: `The event ${type}, delivered to a registered webhook (and on the event streams)`,
        // the receiver checks the signature headers below; the API sends no credential of its own
        security: [],
        description:
          "POSTed as JSON to the URL of each webhook subscribed to the type. Verify it: `X-OrderGraph-Signature` is `sha256=` and the hex HMAC-SHA256, keyed with the webhook's secret, of `X-OrderGraph-Timestamp`, a period and the raw body. A 2xx within 10 s delivers it; anything else is retried with backoff (at least once: drop duplicates by `X-OrderGraph-Delivery`).",
        parameters: [
          { name: 'X-OrderGraph-Signature', in: 'header', required: true, schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' } },
          {
            name: 'X-OrderGraph-Timestamp',
            in: 'header',
            required: true,
            schema: { type: 'string', pattern: '^[0-9]+$' },
            description: 'Unix seconds of this attempt',
          },
          {
            name: 'X-OrderGraph-Delivery',
            in: 'header',
            required: true,
            schema: { type: 'string', format: 'uuid' },
            description: 'The same on every attempt of one event to one webhook',
          },
          { name: 'X-OrderGraph-Event', in: 'header', required: true, schema: { type: 'string', const: type } },
        ],
        requestBody: {
          required: true,
          content: {
            [JSON_TYPE]: {
              schema: {
                type: 'object',
                properties: {
                  id: { type: 'integer', format: 'int64', description: 'Increasing in commit order within the project' },
                  type: { type: 'string', const: type },
                  created_at: { type: 'string', format: 'date-time' },
                  data,
                },
                required: ['id', 'type', 'created_at', 'data'],
              },
            },
          },
        },
        responses: { '2XX': { description: 'Received' } },
      },
    };
  }
  return out;
}
