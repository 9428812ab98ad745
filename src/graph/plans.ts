import { parse, specifiedRules, validate, type GraphQLError, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { isDatabaseFailure } from '../db/unavailable.js';
import type { RequestContext } from '../context/index.js';
import type { GraphErrorLike, GraphResult } from './engines.js';
import { documentRules, PARSE_OPTIONS } from './limits.js';

/**
 * The REST gateway's route plans. Each named operation the routes run (and each `params`/`fields`
 * rewrite of one, when first seen) is parsed, validated (graphql's rules and the limits of
 * ./limits.ts) and compiled once with graphql-jit on the shared schema; a request then only
 * coerces its variables and runs the compiled function with its context. None of an engine's
 * per-request work (hooks on the context, a document cache lookup, a graphql-js execution context
 * built to check the variables, error formatting through the engine) is done for these documents.
 *
 * `/graphql` keeps its engine (mercurius or Apollo) with its limits: only the gateway's own,
 * trusted documents come here, for both engines.
 */
export interface RoutePlans {
  /** Plans `source` now (start-up): throws when it does not validate, since a route's operation must. */
  prepare(source: string): void;
  /** Runs the plan of `source` (made and kept on first sight, bounded) with the request's context and variables. */
  run(source: string, variables: Record<string, unknown>, ctx: RequestContext): GraphResult | Promise<GraphResult>;
  /** Plans kept now (tests). */
  readonly size: number;
}

/** A compiled operation, or the errors its document was rejected with (kept, like mercurius's error cache). */
type Plan = CompiledQuery | { rejected: GraphErrorLike[] };

/**
 * `onDatabaseFailure` turns a resolver's database failure into the 503 (or 400) error (engines.ts, the same
 * mapping the engines use); `limit` bounds the plans made on first sight, beside the prepared ones.
 */
export function createRoutePlans(
  schema: GraphQLSchema,
  limit: number,
  onDatabaseFailure: (err: GraphQLError) => GraphErrorLike,
): RoutePlans {
  const prepared = new Map<string, CompiledQuery>();
  const seen = new Map<string, Plan>();
  const rules = [...specifiedRules, ...documentRules()];

  function plan(source: string): Plan {
    let document;
    try {
      document = parse(source, PARSE_OPTIONS);
    } catch (err) {
      return { rejected: [documentError(err as GraphQLError)] };
    }
    const errors = validate(schema, document, rules);
    if (errors.length) return { rejected: errors.map(documentError) };
    const compiled = compileQuery(schema, document);
    if (!isCompiledQuery(compiled)) return { rejected: (compiled.errors ?? []).map(documentError) };
    return compiled;
  }

  function finish(result: { data?: unknown; errors?: readonly GraphQLError[] }): GraphResult {
    if (!result.errors?.length) return result as GraphResult;
    // Variables that do not coerce: no `data` at all, as when a document is rejected.
    if (!('data' in result)) return { errors: result.errors.map(documentError) };
    return {
      data: result.data as GraphResult['data'],
      errors: result.errors.map((e) => (isDatabaseFailure(e) ? onDatabaseFailure(e) : e)),
    };
  }

  return {
    prepare(source) {
      const p = plan(source);
      if ('rejected' in p) throw new Error(`route operation does not validate: ${p.rejected.map((e) => e.message).join('; ')}`);
      prepared.set(source, p);
    },
    run(source, variables, ctx) {
      let p: Plan | undefined = prepared.get(source) ?? seen.get(source);
      if (p === undefined) {
        p = plan(source);
        if (seen.size >= limit) seen.delete(seen.keys().next().value as string);
        seen.set(source, p);
      }
      if ('rejected' in p) return { errors: p.rejected };
      const result = p.query(undefined, ctx, variables);
      return isPromise(result) ? result.then(finish) : finish(result);
    },
    get size() {
      return prepared.size + seen.size;
    },
  };
}

function documentError(e: GraphQLError): GraphErrorLike {
  return { message: e.message, locations: e.locations, documentError: true };
}

function isPromise<T>(v: T | Promise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown }).then === 'function';
}
