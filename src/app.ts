import { drainRefusedBodies } from './rest/body-drain.js';
import './rest/request.js';
import { randomUUID } from 'node:crypto';
import v8 from 'node:v8';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { MikroORM } from '@mikro-orm/postgresql';
import Ajv from 'ajv';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, STREAM_HEAP_BYTES, STREAMS_HEAP_SHARE, type AppConfig } from './config.js';
import { DatabaseBreaker } from './db/breaker.js';
import { boundsOf, initORM, statementClockOf } from './db/orm.js';
import { takeOrmWarnings } from './db/startup-params.js';
import { usePreparedStatements } from './db/direct-read.js';
import { ReplicaRouter } from './db/replicas.js';
import { createEngine, databaseFailure, type GraphEngine } from './graph/engines.js';
import { loadOperations, namedSources } from './graph/operations.js';
import { createRoutePlans } from './graph/plans.js';
import { SELECTION_CACHE_LIMIT } from './graph/selection.js';
import { getSchema } from './graph/schema.js';
import { createLimiterStore, type LimiterStore } from './limits/store.js';
import { makeClientIp } from './platform/client-ip.js';
import { credentialCipher } from './platform/dev-key.js';
import { createRecaptchaVerifier, type RecaptchaVerifier } from './providers/recaptcha.js';
import {
  clientErrors,
  failFastWhileDown,
  frameworkErrors,
  limitBodyDepth,
  refuseNul,
  refuseWhileClosing,
  registerErrorHandling,
} from './rest/errors.js';
import { registerGateway } from './rest/gateway.js';
import { buildOpenApi } from './rest/openapi/document.js';
import { registerCors } from './rest/cors.js';
import { acceptEmptyJsonBodies, decodingJsonText } from './rest/json-bodies.js';
import { registerConsole } from './rest/console.js';
import { registerGraphiql } from './rest/graphiql.js';
import { registerGraphqlRoute } from './rest/graphql-route.js';
import { registerHealth } from './rest/health.js';
import { registerLoadShedding } from './rest/load-shedding.js';
import { PressureMonitor } from './platform/pressure.js';
import { requestSerializer, scrubLogMethod } from './rest/log-redaction.js';
import { registerMetrics } from './rest/metrics.js';
import { registerSecurityHeaders } from './rest/security-headers.js';
import { ROUTES } from './rest/routes/index.js';
import { SseHub } from './rest/sse.js';
import { createServices, type Services } from './services/index.js';

export interface BuildOptions {
  /** Overrides of the environment's configuration. */
  config?: Partial<AppConfig>;
  /** An ORM made by the caller (tests, the server); otherwise one is made from databaseUrl and closed with the app. */
  orm?: MikroORM;
  logger?: boolean;
  /** Where log lines go instead of stdout (tests capture them); takes precedence over `logger: false`. */
  logStream?: { write(line: string): void };
  recaptcha?: RecaptchaVerifier;
}

export interface Built {
  app: FastifyInstance;
  services: Services;
  engine: GraphEngine;
  orm: MikroORM;
  config: AppConfig;
}

/** Builds the whole service without listening: the server and the tests share this. */
export async function build(opts: BuildOptions = {}): Promise<Built> {
  const config = { ...loadConfig(), ...opts.config };
  if (!config.credentialsKey && process.env.NODE_ENV === 'production') throw new Error('CREDENTIALS_KEY is required in production');
  if (config.operatorToken !== undefined && config.operatorToken.length < 16)
    throw new Error('OPERATOR_TOKEN must have at least 16 characters');
  if (!opts.orm && !config.databaseUrl) throw new Error('DATABASE_URL (or an ORM) is required');
  const orm = opts.orm ?? (await initORM({ clientUrl: config.databaseUrl!, bounds: boundsOf(config), replicaUrls: config.replicaUrls }));
  if (config.databasePreparedStatements) usePreparedStatements(orm);
  const replicas = orm.config.get('replicas')?.length ? new ReplicaRouter(orm).start() : undefined;
  const limiter: LimiterStore = createLimiterStore({
    databaseUrl: config.databaseUrl ?? orm.config.getClientUrl(),
    redisUrl: config.redisUrl,
  });
  const services = createServices({
    config,
    orm,
    limiter,
    recaptcha: opts.recaptcha ?? createRecaptchaVerifier({ url: config.recaptchaVerifyUrl, secret: config.recaptchaSecret }),
    cipher: credentialCipher(config.credentialsKey),
  });

  const app = Fastify({
    logger:
      opts.logger === false && !opts.logStream
        ? false
        : {
            level: config.logLevel,
            redact: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'],
            serializers: { req: requestSerializer },
            hooks: { logMethod: scrubLogMethod },
            ...(opts.logStream ? { stream: opts.logStream } : {}),
          },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // Path segments of any length reach the pipeline (a long lang falls back to en, a long project is unknown);
    // URLs the router cannot decode get our answers, not Fastify's own body.
    routerOptions: { maxParamLength: 16 * 1024 },
    frameworkErrors,
    clientErrorHandler: clientErrors,
    forceCloseConnections: 'idle',
    // requests arriving while closing get the envelope (rest/errors.ts), not Fastify's own 503 body
    return503OnClosing: false,
  });
  for (const { fields, message } of takeOrmWarnings(orm)) app.log.warn(fields, message);
  registerSecurityHeaders(app); // first: every answer, refusals of the hooks below included
  app.decorateRequest('ctx', null);
  app.decorateRequest('lang', null);
  app.addHook('onSend', (req, reply, payload, done) => {
    reply.header('x-request-id', req.id);
    done(null, payload);
  });
  useStrictBodies(app);
  drainRefusedBodies(app); // CONTRACT §16: a refused body is read and dropped for a while, so the client reads the answer
  const breaker = new DatabaseBreaker({
    url: config.databaseUrl ?? orm.config.getClientUrl(),
    bounds: boundsOf(config),
    clock: statementClockOf(orm),
    onChange: (down, cause) =>
      down
        ? app.log.warn({ cause }, 'database down: answering 503 at once while one probe checks for recovery')
        : app.log.info('database answers again'),
  })
    .gatePool(orm.em.getConnection().getKnex().client as never)
    .start();
  registerErrorHandling(app, breaker);
  registerCors(app, config.corsOrigins);
  refuseWhileClosing(app);
  failFastWhileDown(app, breaker);
  const pressure = new PressureMonitor(config.pressure);
  warnOnStreamBound(app, config.pressure.maxOpenStreams);
  // sampled from when the app is ready: building the schema blocks the event loop longer than any threshold
  app.addHook('onReady', async () => void pressure.start());
  registerLoadShedding(app, pressure);
  services.events.streams.shedding = () => app.isUnderPressure();
  limitBodyDepth(app);
  refuseNul(app);

  const schema = await getSchema();
  const operations = loadOperations(schema);
  const engine = await createEngine(config.graphqlEngine, app, schema, namedSources(operations));
  const clientIp = makeClientIp(config.trustProxy);
  await registerMetrics(app, { orm, limiter, token: config.metricsToken, clientIp });

  // /openapi.json: built from the route declarations and their operations (rest/openapi/document.ts), served as it is
  await app.register(swagger, {
    mode: 'static',
    specification: { document: buildOpenApi({ routes: ROUTES, operations, schema }) as never },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerHealth(
    app,
    orm,
    breaker,
    () => ({ open: services.events.openStreams, max: config.pressure.maxOpenStreams }),
    () => pressure.reason,
  );
  await registerGraphqlRoute(app, services, engine, clientIp, schema);
  registerGraphiql(app);
  registerConsole(app);
  const plans = createRoutePlans(schema, SELECTION_CACHE_LIMIT, (err) => databaseFailure(app, err, err));
  await registerGateway(app, {
    services,
    plans,
    operations,
    routes: ROUTES,
    clientIp,
    schema,
    sse: new SseHub(config.eventsKeepAliveMs, config.eventsFlushMs),
  });
  services.events.start(app.log);
  // Open streams end before the server waits for its connections to close (they are never idle).
  app.addHook('preClose', async () => services.events.close());

  app.addHook('onClose', async () => {
    pressure.stop();
    breaker.stop();
    await services.events.close();
    await engine.close();
    await limiter.close();
    replicas?.stop();
    services.media.close();
    if (!opts.orm) await orm.close();
  });
  await app.ready();
  return { app, services, engine, orm, config };
}

/** STREAMS_MAX_OPEN set above what STREAMS_HEAP_SHARE of the heap holds: streams alone could then make the process shed requests. */
function warnOnStreamBound(app: FastifyInstance, maxOpen: number): void {
  const heapLimit = v8.getHeapStatistics().heap_size_limit;
  if (maxOpen * STREAM_HEAP_BYTES <= heapLimit * STREAMS_HEAP_SHARE) return;
  app.log.warn(
    { maxOpen, heapLimitMb: Math.round(heapLimit / 2 ** 20), fits: Math.floor((heapLimit * STREAMS_HEAP_SHARE) / STREAM_HEAP_BYTES) },
    'STREAMS_MAX_OPEN is more than half the heap holds (docs/events.md): raise --max-old-space-size or lower it',
  );
}

/**
 * JSON bodies are validated strictly, without type coercion; query strings and path
 * parameters are coerced to their documented types (CONTRACT §3). Unknown body fields are dropped.
 * Nested JSON text and empty JSON bodies: rest/json-bodies.ts.
 */
function useStrictBodies(app: FastifyInstance): void {
  // verbose: errors carry their schema, whose bounds the messages name (rest/ajv-rules.ts)
  const common = { allErrors: true, removeAdditional: true, useDefaults: true, strict: false, verbose: true } as const;
  const bodies = new Ajv({ ...common, coerceTypes: false });
  const strings = new Ajv({ ...common, coerceTypes: 'array' });
  // `int64` documents a 64-bit id (CONTRACT §16, the OpenAPI's format); the schemas' bounds do the checking
  for (const ajv of [bodies, strings]) ajv.addFormat('int64', true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? decodingJsonText(schema, bodies.compile(schema)) : strings.compile(schema),
  );
  // Bodies are JSON only: text/plain gets the same 415 as every other non-JSON type.
  app.removeContentTypeParser('text/plain');
  acceptEmptyJsonBodies(app);
}
