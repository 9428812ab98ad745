import { timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import client from '@platformatic/prom-client';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyMetrics from 'fastify-metrics';
import { replicaHealth } from '../db/replicas.js';
import type { LimiterStore } from '../limits/store.js';

export interface MetricsOptions {
  orm: MikroORM;
  limiter: LimiterStore;
  /** METRICS_TOKEN: a bearer token that may read /metrics from anywhere. */
  token?: string;
  clientIp: (socketIp: string, forwardedFor: string | undefined) => string;
}

/** Loopback and private networks (RFC 1918, unique-local and link-local IPv6). */
const LOCAL = new net.BlockList();
LOCAL.addSubnet('127.0.0.0', 8, 'ipv4');
LOCAL.addSubnet('10.0.0.0', 8, 'ipv4');
LOCAL.addSubnet('172.16.0.0', 12, 'ipv4');
LOCAL.addSubnet('192.168.0.0', 16, 'ipv4');
LOCAL.addAddress('::1', 'ipv6');
LOCAL.addSubnet('fc00::', 7, 'ipv6');
LOCAL.addSubnet('fe80::', 10, 'ipv6');

/**
 * `GET /metrics` (Prometheus text) for this process: request counts and latency histograms per
 * route template and status (fastify-metrics), the database pools (in use, waiting, idle), which
 * replicas reads may use, and limiter store failures. Outside the tenant tree, so never limited; readable from loopback and
 * private networks (the client address as the limits see it: behind a trusted proxy, the
 * forwarded one), or from anywhere with `Authorization: Bearer METRICS_TOKEN`.
 * Each app has a registry of its own (tests build several apps in one process).
 */
export async function registerMetrics(app: FastifyInstance, opts: MetricsOptions): Promise<void> {
  const registry = new client.Registry();
  await app.register(fastifyMetrics, {
    promClient: client as never,
    endpoint: null,
    defaultMetrics: { enabled: true, register: registry as never },
    routeMetrics: { enabled: false },
  });
  recordRoutes(app, registry);

  new client.Gauge({
    name: 'ordergraph_db_pool_connections',
    help: 'database connections of this process by pool (primary, replica-N) and state (in_use, idle, waiting = acquires queued)',
    labelNames: ['pool', 'state'],
    registers: [registry],
    collect() {
      for (const [name, pool] of pools(opts.orm)) {
        this.set({ pool: name, state: 'in_use' }, pool.numUsed());
        this.set({ pool: name, state: 'idle' }, pool.numFree());
        this.set({ pool: name, state: 'waiting' }, pool.numPendingAcquires());
      }
    },
  });
  new client.Gauge({
    name: 'ordergraph_db_replica_healthy',
    help: '1 while reads may use the replica (it answers and has caught up), else 0',
    labelNames: ['replica'],
    registers: [registry],
    collect() {
      for (const r of replicaHealth(opts.orm)) this.set({ replica: r.name }, r.healthy ? 1 : 0);
    },
  });
  let counted = 0;
  new client.Counter({
    name: 'ordergraph_limiter_store_failures_total',
    help: 'usage-limit and lockout store calls that failed (timeout or error)',
    labelNames: ['store'],
    registers: [registry],
    collect() {
      const now = opts.limiter.failures.count;
      this.inc({ store: opts.limiter.kind }, now - counted);
      counted = now;
    },
  });

  const token = opts.token ? Buffer.from(`Bearer ${opts.token}`) : undefined;
  const allowed = (req: FastifyRequest): boolean => {
    const given = req.headers.authorization;
    if (token && given && Buffer.byteLength(given) === token.length && timingSafeEqual(Buffer.from(given), token)) return true;
    const forwarded = req.headers['x-forwarded-for'];
    const ip = opts.clientIp(req.socket.remoteAddress ?? '', Array.isArray(forwarded) ? forwarded.join(',') : forwarded);
    return net.isIP(ip) !== 0 && LOCAL.check(ip, net.isIPv6(ip) ? 'ipv6' : 'ipv4');
  };
  app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (req, reply) => {
    if (!allowed(req)) return reply.code(403).send({ status: 'forbidden' });
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() when a measured request began; 0 for one not measured. */
    metricsStart: number;
  }
}

const UNMEASURED_METHODS = new Set(['HEAD', 'OPTIONS', 'TRACE', 'CONNECT']);
type RouteLabels = { method: string; route: string; status_code: number };

/**
 * The per-route histogram fastify-metrics 14 kept (same names, help, labels, buckets; its summary stays
 * registered and empty, as it was with `summary: false`), recorded without its per-request timer closure
 * and label object: the start is a number on the request and each (route, method, status) keeps its labels.
 */
function recordRoutes(app: FastifyInstance, registry: client.Registry): void {
  const labelNames = ['method', 'route', 'status_code'];
  const histogram = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'request duration in seconds',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new client.Summary({
    name: 'http_request_summary_seconds',
    help: 'request duration in seconds summary',
    labelNames,
    registers: [registry],
  });
  const known = new Map<string, Map<string, Map<number, RouteLabels>>>();
  const labelsOf = (method: string, route: string, status: number): RouteLabels => {
    let byMethod = known.get(route);
    if (!byMethod) known.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let labels = byStatus.get(status);
    if (!labels) byStatus.set(status, (labels = { method, route, status_code: status }));
    return labels;
  };
  app.decorateRequest('metricsStart', 0);
  app.addHook('onRequest', (req, _reply, done) => {
    const { config, url } = req.routeOptions;
    if (
      (config as { disableMetrics?: boolean }).disableMetrics !== true &&
      req.raw.url &&
      !UNMEASURED_METHODS.has(req.method) &&
      (url ?? req.url) !== '/metrics'
    )
      req.metricsStart = performance.now();
    done();
  });
  app.addHook('onResponse', (req, reply, done) => {
    if (req.metricsStart !== 0) {
      const { config, url } = req.routeOptions;
      const route = (config as { statsId?: string }).statsId ?? url ?? '__unmatched__';
      histogram.observe(labelsOf(req.method, route, reply.statusCode) as never, (performance.now() - req.metricsStart) / 1000);
    }
    done();
  });
}

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

function pools(orm: MikroORM): [string, TarnPool][] {
  const driver = orm.em.getDriver() as unknown as { replicas?: { getKnex(): unknown }[] };
  const poolOf = (conn: { getKnex(): unknown }) => (conn.getKnex() as { client: { pool?: TarnPool } }).client.pool;
  const all: [string, TarnPool | undefined][] = [['primary', poolOf(orm.em.getConnection('write'))]];
  (driver.replicas ?? []).forEach((r, i) => all.push([`replica-${i + 1}`, poolOf(r)]));
  return all.filter((e): e is [string, TarnPool] => !!e[1]);
}
