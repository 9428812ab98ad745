import type { Rule } from '../i18n/messages.js';
import { SEND_TO_PATTERN } from '../services/whatsapp/template.service.js';
import { storedId } from '../services/conversations/message-rules.js';

/** The JSON Schema subset the route declarations use (validated by Ajv, published as OpenAPI). */
export type JSONSchema = Record<string, unknown>;

/**
 * Patterns a validation message names by the form they ask for ("must be a date (YYYY-MM-DD)")
 * rather than by the pattern itself (rest/ajv-rules.ts); any other pattern is quoted as it is.
 */
export const NAMED_PATTERNS: Readonly<Record<string, Rule>> = {
  '^[0-9]+$': 'digits',
  '^[0-9]{1,9}$': 'digits',
  '^[0-9]{1,10}$': 'digits',
  '^[0-9]{1,18}$': 'digits',
  '^[a-zA-Z0-9_-]+$': 'external_id',
  '^[a-zA-Z0-9_-]{1,128}$': 'external_id',
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}$': 'date',
  '^[0-9]{4}-(0[1-9]|1[0-2])$': 'month',
  [SEND_TO_PATTERN]: 'phone',
};

/** CONTRACT §16: a path id is 1–18 digits, leading zeros allowed (else 400 naming it). */
export const integerId: JSONSchema = { type: 'string', pattern: '^[0-9]{1,18}$' };

/**
 * A path id as its GraphQL variable. Record ids are exact JSON numbers (below 2^53): a larger one names no record, and
 * becomes 0 (storedId), which none has, so the route answers its not-found code.
 */
export const pathId = (raw: string): number => storedId(Number(raw));
export const externalId: JSONSchema = { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,128}$' };

/** A closed object; `required` only when not empty (OpenAPI 3.0 forbids `required: []`). */
export function object(properties: Record<string, JSONSchema>, required: string[] = []): JSONSchema {
  return { type: 'object', properties, ...(required.length && { required }), additionalProperties: false };
}

const nullableInt = { type: ['integer', 'null'] };

export const paginationSchema: JSONSchema = {
  type: 'object',
  properties: {
    current_page: { type: 'integer' },
    page_size: { type: 'integer' },
    total_pages: { type: 'integer' },
    total: { type: 'integer' },
    from: nullableInt,
    to: nullableInt,
  },
};

export const envelopeResponse: JSONSchema = {
  type: 'object',
  properties: { error: { type: 'boolean' }, result: {}, pagination: paginationSchema },
};

export const errorResponse: JSONSchema = {
  type: 'object',
  properties: { error: { type: 'boolean' }, code: { type: 'string' }, result: {} },
};
