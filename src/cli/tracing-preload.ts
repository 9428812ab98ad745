/**
 * Imported first by cli/main.ts: when `serve` runs with an OTLP endpoint configured
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, and OTEL_SDK_DISABLED is not
 * true), the OpenTelemetry SDK starts before fastify, pg and graphql are loaded. Otherwise nothing
 * of it is loaded.
 */
export function tracingRequested(env: NodeJS.ProcessEnv, command: string | undefined): boolean {
  if (command !== 'serve' || env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

if (tracingRequested(process.env, process.argv[2])) {
  (require('../platform/telemetry.js') as typeof import('../platform/telemetry.js')).startTracing();
}
