import {
  createSourceEventStream,
  execute,
  getOperationAST,
  GraphQLError,
  OperationTypeNode,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { documentRules, parseBounded } from './limits.js';
import { nulField } from '../errors/nul.js';
import { ruleKey, translate } from '../i18n/messages.js';

export interface SubscriptionRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/** A subscription document that passed the bounds and rules. */
export interface CheckedSubscription {
  document: DocumentNode;
  operationName?: string;
  variables?: Record<string, unknown>;
  /** The request as text (document, operation, variables): subscribers that sent the same one share each event's result. */
  key: string;
}

/** graphql's rules plus the bounds of ./limits.ts: what POST /graphql applies, whichever engine runs it. */
const RULES = [...specifiedRules, ...documentRules()];

/**
 * The document parsed with the token bound and validated with the rules of POST /graphql; only
 * subscriptions pass (queries and mutations go through POST /graphql and its gates). Nothing runs.
 */
export function checkSubscription(schema: GraphQLSchema, request: SubscriptionRequest): CheckedSubscription | readonly GraphQLError[] {
  let document: DocumentNode;
  try {
    document = parseBounded(request.query);
  } catch (err) {
    if (err instanceof GraphQLError) return [err];
    throw err;
  }
  const invalid = validate(schema, document, RULES);
  if (invalid.length) return invalid;
  const operationName = request.operationName ?? undefined;
  const operation = getOperationAST(document, operationName);
  if (!operation) return [new GraphQLError('Unable to identify the operation.')];
  if (operation.operation !== OperationTypeNode.SUBSCRIPTION) {
    return [new GraphQLError('Only subscriptions run over the WebSocket; queries and mutations use POST /graphql.')];
  }
  const nul = nulField(request.variables, 'variables');
  if (nul !== null) return [new GraphQLError(translate('en', { key: ruleKey('no_nul'), params: { field: nul } }))];
  const key = JSON.stringify([request.query, operationName ?? null, request.variables ?? null]);
  return { document, operationName, variables: request.variables ?? undefined, key };
}

/**
 * Opens a checked subscription of the one schema, the same way for both engines: the subscribe
 * resolver runs (access checks, 404s, stream caps: its errors come back here with their
 * `extensions.code`), then each event of its source stream is executed against the document.
 */
export async function openSubscription(
  schema: GraphQLSchema,
  checked: CheckedSubscription,
  contextValue: unknown,
): Promise<AsyncIterableIterator<ExecutionResult> | readonly GraphQLError[]> {
  const args = {
    schema,
    document: checked.document,
    operationName: checked.operationName,
    variableValues: checked.variables,
    contextValue,
  };
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source.errors ?? [];
  return mapEvents(source as AsyncIterableIterator<unknown>, (event) =>
    sharedResult(event, checked.key, () => execute({ ...args, rootValue: event })),
  );
}

/**
 * Each event's result per subscription request (document, operation, variables), per process. The
 * subscribe resolver checks access once per subscription; what an event's execution reads is the
 * event alone (the subscription fields hand it through, AiEvent's fields are its own properties, no
 * middleware), so subscribers that sent the same request get the same result, and the event object is
 * shared by every stream that shows it (services/events/feed.ts): one execution per event and request,
 * not per subscriber. A field that read the caller's context would have to leave this cache.
 */
const RESULTS = new WeakMap<object, Map<string, ExecutionResult | Promise<ExecutionResult>>>();

function sharedResult(
  event: unknown,
  key: string,
  run: () => ExecutionResult | Promise<ExecutionResult>,
): ExecutionResult | Promise<ExecutionResult> {
  if (typeof event !== 'object' || event === null) return run();
  let results = RESULTS.get(event);
  if (!results) RESULTS.set(event, (results = new Map()));
  let result = results.get(key);
  if (result === undefined) results.set(key, (result = run()));
  return result;
}

/**
 * Each event through `map`. `return` reaches the source at once, even while a `next` waits for an
 * event (an async generator would queue it behind that `next`, keeping the stream open).
 */
function mapEvents<T, R>(source: AsyncIterator<T>, map: (value: T) => R | Promise<R>): AsyncIterableIterator<R> {
  return {
    async next() {
      const step = await source.next();
      return step.done ? { value: undefined, done: true } : { value: await map(step.value), done: false };
    },
    async return() {
      await source.return?.();
      return { value: undefined, done: true };
    },
    async throw(err?: unknown) {
      await source.return?.();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
