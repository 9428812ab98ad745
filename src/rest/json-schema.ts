/** The JSON Schema subset the route declarations use (validated by Ajv, published as OpenAPI). */
export type JSONSchema = Record<string, unknown>;

export const integerId: JSONSchema = { type: 'string', pattern: '^[0-9]{1,9}$' };
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
