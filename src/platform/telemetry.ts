import FastifyOtelInstrumentation from '@fastify/otel';
import * as api from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import { enableTracing, onTracingShutdown } from './tracing.js';

/**
 * OpenTelemetry traces (README "Tracing"), loaded only when an OTLP endpoint is configured
 * (cli/tracing-preload.ts, before fastify, pg and graphql are loaded, so the instrumentations can
 * hook them). One trace per request: the HTTP route (@fastify/otel), the GraphQL operation (our own
 * span, platform/tracing.ts; graphql-jit runs the REST plans and mercurius's named operations
 * outside instrumentation-graphql, which still adds its spans where graphql-js executes) and each
 * SQL statement (instrumentation-pg). The standard OTEL_* variables configure the exporter,
 * sampler, batching and resource; metrics and logs stay off unless their own variables ask.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): void {
  env.OTEL_SERVICE_NAME ||= 'ordergraph';
  env.OTEL_METRICS_EXPORTER ||= 'none';
  env.OTEL_LOGS_EXPORTER ||= 'none';
  const sdk = new NodeSDK({
    spanProcessors: [new Scrubber(), new tracing.BatchSpanProcessor(exporterFor(env))],
    instrumentations: [
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        instrumentHooks: false,
        ignorePaths: (route: { url: string }) => route.url.startsWith('/health/') || route.url === '/metrics',
        requestHook: (span, req) => {
          span.updateName(`${req.method} ${req.routeOptions.url ?? 'unknown route'}`);
          span.setAttribute('url.path', req.url.split('?')[0]); // the query string can carry a token (SSE's access_token)
        },
      }),
      new GraphQLInstrumentation({ ignoreTrivialResolveSpans: true, ignoreResolveSpans: true }),
      new PgInstrumentation({ ignoreConnectSpans: true }),
    ],
  });
  sdk.start();
  enableTracing(api);
  onTracingShutdown(() => sdk.shutdown());
}

/** OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: http/protobuf (the default), http/json or grpc. */
function exporterFor(env: NodeJS.ProcessEnv): tracing.SpanExporter {
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol === 'http/json') return new JsonExporter();
  if (protocol === 'grpc') return new GrpcExporter();
  return new ProtobufExporter();
}

/** Attributes whose text may carry values: SQL (MikroORM inlines values into some statements) and exceptions (a driver error quotes its SQL). */
const TEXTS = ['db.query.text', 'db.statement'];
const EXCEPTION_TEXTS = ['exception.message', 'exception.stacktrace'];

/** Takes literal values out of a span before it ends: nothing a statement wrote or read leaves the process. */
class Scrubber implements tracing.SpanProcessor {
  onStart(): void {}
  onEnding(span: tracing.Span): void {
    for (const key of TEXTS) {
      const value = span.attributes[key];
      if (typeof value === 'string') span.setAttribute(key, withoutLiterals(value));
    }
    for (const event of span.events) {
      for (const key of EXCEPTION_TEXTS) {
        const value = event.attributes?.[key];
        if (typeof value === 'string') (event.attributes as Record<string, unknown>)[key] = withoutLiterals(value);
      }
    }
  }
  onEnd(): void {}
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

/** SQL text without its literals: quoted strings, dollar-quoted bodies and numbers become `?` (placeholders such as $1 stay). */
export function withoutLiterals(sql: string): string {
  return sql
    .replace(/\$(\w*)\$[\s\S]*?\$\1\$/g, '?')
    .replace(/'(?:[^']|'')*'/g, '?')
    .replace(/(?<![\w$."])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w"])/gi, '?');
}
