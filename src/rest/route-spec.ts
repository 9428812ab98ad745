import type { JSONSchema } from './json-schema.js';
import type { Access } from '../services/access.js';

/** What a route receives, after validation and coercion. */
export interface RouteInput {
  params: Record<string, any>;
  query: Record<string, any>;
  body: any;
  headers?: Record<string, string | string[] | undefined>;
}

export interface Pagination {
  current_page: number;
  page_size: number;
  total_pages: number;
  total: number;
  from: number | null;
  to: number | null;
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
}

export function rootField(data: Record<string, any>): unknown {
  const keys = Object.keys(data);
  return keys.length === 1 ? data[keys[0]] : data;
}
