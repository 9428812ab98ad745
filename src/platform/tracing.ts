import type { Span, Tracer } from '@opentelemetry/api';

/**
 * The project's own spans (the GraphQL operation). Nothing of OpenTelemetry is loaded here: when
 * tracing is off (platform/telemetry.ts never ran), `traceOperation` only calls its function.
 */
let tracer: Tracer | undefined;
let api: typeof import('@opentelemetry/api') | undefined;

/** Called by platform/telemetry.ts once the SDK runs. */
export function enableTracing(otel: typeof import('@opentelemetry/api')): void {
  api = otel;
  tracer = otel.trace.getTracer('ordergraph');
}

export interface TracedOperation {
  name: string | undefined;
  type: string | undefined;
  /** The project's code, set on the operation span and on the request's HTTP span. */
  project?: string;
  /** The request (its HTTP span, when @fastify/otel made one: `req.opentelemetry()`). */
  req?: object;
}

/**
 * Runs one GraphQL operation inside a span named "<type> <name>" (OpenTelemetry's GraphQL
 * conventions), a child of the active span (the HTTP route's), so the statements it runs are its
 * children. `describe` is called only when tracing is on. Errors the operation reports in its
 * result are not exceptions here.
 */
export function traceOperation<T>(describe: () => TracedOperation, run: () => T): T {
  if (!tracer || !api) return run();
  const { SpanStatusCode } = api;
  const op = describe();
  const attributes: Record<string, string> = {};
  if (op.name) attributes['graphql.operation.name'] = op.name;
  if (op.type) attributes['graphql.operation.type'] = op.type;
  if (op.project) {
    attributes['ordergraph.project.code'] = op.project;
    (op.req as { opentelemetry?: () => { span?: Span | null } } | undefined)
      ?.opentelemetry?.()
      .span?.setAttribute('ordergraph.project.code', op.project);
  }
  return tracer.startActiveSpan([op.type, op.name].filter(Boolean).join(' ') || 'graphql operation', { attributes }, (span) => {
    const failed = (err: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as { name?: string })?.name ?? 'Error' });
      span.end();
      throw err;
    };
    try {
      const result = run();
      if (result && typeof (result as { then?: unknown }).then === 'function') {
        return (result as unknown as Promise<unknown>).then((value) => {
          span.end();
          return value;
        }, failed) as T;
      }
      span.end();
      return result;
    } catch (err) {
      return failed(err);
    }
  });
}

let shutdown: (() => Promise<void>) | undefined;

/** platform/telemetry.ts: how to flush and stop the SDK. */
export function onTracingShutdown(fn: () => Promise<void>): void {
  shutdown = fn;
}

/** Sends the spans still buffered (serve calls it last when it stops); nothing when tracing is off. */
export async function flushTracing(): Promise<void> {
  await shutdown?.().catch(() => undefined);
}
