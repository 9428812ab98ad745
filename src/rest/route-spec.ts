import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../context/index.js';
import type { JSONSchema } from './json-schema.js';
import { propertyAt } from './openapi-result.js';
import type { ErrorCode } from '../errors/codes.js';
import type { Access } from '../services/identity/access.js';
import type { Attributes, Pagination, Relations } from '../services/shared/list-query.js';

export type { Pagination };

/** What a route receives, after validation and coercion. */
export interface RouteInput {
  params: Record<string, any>;
  query: Record<string, any>;
  body: any;
  headers?: Record<string, string | string[] | undefined>;
}

/** The JSON Schemas of what a route answers inside the envelope (documented in /openapi.json). */
export interface DocumentedOutput {
  result: JSONSchema;
  pagination?: JSONSchema;
}

/** What the route answers inside the envelope. */
export interface RouteOutput {
  result: unknown;
  pagination?: Pagination;
}

/**
 * A REST endpoint declared as data: the gateway (rest/gateway.ts) registers it, runs the
 * pipeline of CONTRACT §1, builds variables, executes `operation` on the graph and shapes the
 * envelope. No endpoint has handler code of its own.
 */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under /{version}/{lang}/{project}, Fastify syntax: `/ai/agents/:agent_id/templates`. */
  path: string;
  /** A named operation of schema/operations. */
  operation: string;
  summary: string;
  tags: string[];
  access: Access;
  /** A Server-Sent Events route: `operation` is a subscription, its events are the stream (rest/sse.ts). */
  stream?: boolean;
  /** AI operations: 403 when the project's AI module is off. */
  ai?: boolean;
  schema?: { params?: JSONSchema; querystring?: JSONSchema; body?: JSONSchema };
  /** Operation variables; default: path, then query, then body, merged by name. */
  variables?: (input: RouteInput) => Record<string, unknown>;
  /** A document other than the operation's own, e.g. with a selection built from `params`. */
  document?: (input: RouteInput, base: string) => string | Promise<string>;
  /** Turns the operation's data into the envelope content; default: the single root field. */
  respond?: (data: Record<string, any>, input: RouteInput) => RouteOutput;
  /**
   * Webhooks signed over their raw bytes: the body is kept exactly as received (any content type)
   * and `authenticate` checks it after the pipeline and before the operation; what it returns is
   * the route's `body` from then on. Its errors answer as any other.
   */
  rawBody?: (ctx: RequestContext, raw: Buffer, headers: IncomingHttpHeaders) => Promise<unknown>;
  /**
   * The answer is a stored file, not an envelope: the operation's data names it (checked by the
   * operation: the caller may see it), and rest/media-response.ts serves it (ETag, Range, 304, 409
   * while pending). `document`: a document's file, always an attachment.
   */
  file?: (data: Record<string, any>) => { media_id: string; document?: boolean };
  /**
   * A multipart/form-data upload (CONTRACT §12.5): the route's context parses multipart only
   * (@fastify/multipart, streaming), and `upload` consumes the request's parts after the pipeline and
   * before the operation (the file streamed into its store); what it returns is the route's `body`.
   */
  upload?: (ctx: RequestContext, req: FastifyRequest) => Promise<unknown>;
  /** The single root field is answered as `text/plain`, without the envelope (a webhook challenge). */
  plainText?: boolean;
  /**
   * What `respond` answers, as JSON Schema, given the schema of the operation's data (derived from its
   * selection set: rest/openapi-result.ts). Needed only with a `respond` of the route's own: without
   * `respond` the root field's schema is the result's, and `paged` brings both.
   */
  resultSchema?: (data: JSONSchema) => DocumentedOutput;
  /**
   * Error codes the operation answers besides those every route of its kind does (input, project,
   * credential, limits, AI module, transport, idempotency: rest/openapi/document.ts), with the status
   * when it is not the code's usual one. /openapi.json lists them per status; the test suite refuses an
   * answer whose code is not listed.
   */
  errors?: (ErrorCode | [ErrorCode, number])[];
  /** A list's query syntax, described in /openapi.json: the attributes `where` and `orderBy` accept, the relations `params` selects. */
  list?: { where?: Attributes; orderBy?: Attributes; relations?: Relations; selectRelations?: string[]; note?: string };
  /** Fields a `params`/`fields` selection always answers besides `id`. */
  selectionAlways?: readonly string[];
  /** The record the route answers, named in /openapi.json's components (and the `data` of the events about it). */
  record?: string;
  /** The body as /openapi.json shows it when the validating schema says less (a `oneOf` by `type`), with the components it names. */
  documentedBody?: () => { body: JSONSchema; components?: Record<string, JSONSchema> };
  /** A longer description for /openapi.json. */
  description?: string;
}

/** A list route: the root field `{ items, pagination }` answers `result` = items and the envelope's `pagination`. */
export function paged(field: string): Pick<RouteSpec, 'respond' | 'resultSchema'> {
  return {
    respond: (data) => ({ result: data[field].items, pagination: data[field].pagination }),
    resultSchema: (data) => {
      const result = propertyAt(data, field, 'items');
      const pagination = propertyAt(data, field, 'pagination');
      if (!result || !pagination) throw new Error(`paged(${field}): the operation must select ${field} { items pagination }`);
      return { result, pagination };
    },
  };
}

export function rootField(data: Record<string, any>): unknown {
  const keys = Object.keys(data);
  return keys.length === 1 ? data[keys[0]] : data;
}
