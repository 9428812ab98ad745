import type { Problem } from '../errors/codes.js';
import type { Rule } from '../i18n/messages.js';
import { NAMED_PATTERNS } from './json-schema.js';

/** An Ajv error of a route's schema (Ajv runs with `verbose`, so `parentSchema` is there). */
export interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
}

const TYPE_RULES: Record<string, Rule> = {
  integer: 'integer',
  number: 'number',
  string: 'string',
  boolean: 'boolean',
  object: 'object',
  array: 'array',
};

/**
 * One problem per invalid field, naming it, with the rule it breaks when that rule has a message
 * (i18n/messages.ts), else the generic "is invalid". `context` names the part (body, querystring…)
 * for errors about the part as a whole.
 */
export function problemsOfAjv(errors: AjvError[], context: string | undefined): Problem[] {
  const problems = new Map<string, Problem>();
  for (const e of errors) {
    const p = problemOf(e, context);
    if (!problems.has(p.field)) problems.set(p.field, p);
  }
  return [...problems.values()];
}

function problemOf(e: AjvError, context: string | undefined): Problem {
  const path = e.instancePath.split('/').filter(Boolean);
  const name = (segments: string[]) => segments.join('.') || context || 'body';
  const bounds = e.parentSchema ?? {};
  switch (e.keyword) {
    case 'required': {
      return { field: name([...path, String(e.params.missingProperty)]), rule: 'required' };
    }
    case 'enum': {
      const values = e.params.allowedValues as string[];
      // an item of a list: the message names the list and what its items may be
      if (/^\d+$/.test(path.at(-1) ?? '') && e.schemaPath.endsWith('/items/enum'))
        return { field: name(path.slice(0, -1)), rule: 'items_enum', params: { values } };
      return { field: name(path), rule: 'enum', params: { values } };
    }
    case 'type': {
      const wanted =
        String(e.params.type)
          .split(',')
          .find((t) => t !== 'null') ?? '';
      return withRule(name(path), TYPE_RULES[wanted]);
    }
    case 'minLength':
      if (e.params.limit === 1) return { field: name(path), rule: 'not_empty' };
      return typeof bounds.maxLength === 'number'
        ? { field: name(path), rule: 'length', params: { min: e.params.limit as number, max: bounds.maxLength } }
        : { field: name(path) };
    case 'maxLength':
      return { field: name(path), rule: 'max_length', params: { max: e.params.limit as number } };
    case 'minimum':
    case 'maximum':
      return typeof bounds.minimum === 'number' && typeof bounds.maximum === 'number'
        ? { field: name(path), rule: 'range', params: { min: bounds.minimum, max: bounds.maximum } }
        : { field: name(path) };
    case 'minItems':
      return e.params.limit === 1 ? { field: name(path), rule: 'not_empty' } : { field: name(path) };
    case 'maxProperties':
      return { field: name(path), rule: 'max_keys', params: { max: e.params.limit as number } };
    case 'maxItems':
      return { field: name(path), rule: 'max_items', params: { max: e.params.limit as number } };
    case 'pattern': {
      const pattern = String(e.params.pattern);
      const named = NAMED_PATTERNS[pattern];
      return named ? { field: name(path), rule: named } : { field: name(path), rule: 'pattern', params: { pattern } };
    }
    case 'not': {
      // optionalObject(): an object or nothing, refusing every other type
      const refused = (bounds.not as { type?: unknown } | undefined)?.type;
      return withRule(name(path), Array.isArray(refused) && !refused.includes('object') ? 'object' : undefined);
    }
    default:
      return { field: name(path) };
  }
}

function withRule(field: string, rule: Rule | undefined): Problem {
  return rule ? { field, rule } : { field };
}
