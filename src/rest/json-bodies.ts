import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JSONSchema } from './json-schema.js';

/**
 * JSON bodies as the platform's clients send them (CONTRACT §3):
 * - `Content-Type: application/json` with an empty body is no body (the SDK sets the type on
 *   every request, also on bodyless action calls such as `POST …/templates/refresh`);
 * - no body at all where the route's schema requires fields is validated as `{}`, so the 400 names
 *   the missing fields;
 * - a string where the route's schema specifies an object or an array is accepted when it is the
 *   JSON text of exactly that type (the SDK's `post`/`put` send every nested value as its text);
 *   the decoded value is then validated as usual, and any other string stays a 400.
 */
export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  // Fastify's default JSON parser is its callback form (typed as either form): it answers through `done`.
  const parse = app.getDefaultJsonParser('error', 'error') as (
    req: FastifyRequest,
    body: string,
    done: (err: Error | null, body?: unknown) => void,
  ) => void;
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body.length === 0) return done(null, undefined);
    parse(req, body as string, done);
  });
}

type Validator = ((data: any, ...rest: any[]) => any) & { errors?: unknown; schemaEnv?: unknown };

/** Wraps a compiled body validator: JSON text in object/array places is decoded first. */
export function decodingJsonText<V extends Validator>(schema: object, validate: V): V {
  // No body at all where fields are required is those fields missing (CONTRACT §9.1): the 400 names them, not `body`.
  const required = Array.isArray((schema as JSONSchema).required) && ((schema as JSONSchema).required as unknown[]).length > 0;
  const wrapped: Validator = (data, ...rest) => {
    decodeJsonText(schema as JSONSchema, data);
    // Fastify hands an absent body over as null; the request (the parent) tells it from a JSON `null`.
    const absent =
      data === undefined || (data === null && (rest[0] as { parentData?: { body?: unknown } } | undefined)?.parentData?.body === undefined);
    const ok = validate(absent && required ? {} : data, ...rest);
    wrapped.errors = validate.errors;
    return ok;
  };
  wrapped.schemaEnv = validate.schemaEnv;
  return wrapped as V;
}

/** In place: every property of `value` whose schema wants an object or array and holds its JSON text. */
export function decodeJsonText(schema: JSONSchema, value: unknown): void {
  const properties = schema.properties as Record<string, JSONSchema> | undefined;
  if (!properties || !isObject(value)) return;
  for (const [name, sub] of Object.entries(properties)) {
    if (!Object.prototype.hasOwnProperty.call(value, name)) continue;
    const wanted = structured(sub);
    const current = value[name];
    if (wanted && typeof current === 'string') {
      const decoded = parseSafely(current);
      if (wanted === 'array' ? Array.isArray(decoded) : isObject(decoded)) value[name] = decoded;
    }
    decodeJsonText(sub, value[name]);
  }
}

/** 'object' or 'array' when the schema asks for that and never for a string. */
function structured(schema: JSONSchema): 'object' | 'array' | null {
  const t = schema.type;
  const types = Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : schema.properties ? ['object'] : [];
  if (types.includes('string')) return null;
  if (types.includes('object')) return 'object';
  if (types.includes('array')) return 'array';
  return null;
}

/** JSON.parse refusing the keys Fastify's own parser refuses (prototype poisoning); undefined when not JSON. */
function parseSafely(text: string): unknown {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return undefined;
  try {
    return JSON.parse(text, (key, v) => {
      if (key === '__proto__' || (key === 'constructor' && isObject(v) && 'prototype' in v)) throw new Error('poisoned');
      return v;
    });
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
