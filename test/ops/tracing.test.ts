import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracingRequested } from '../../src/cli/tracing-preload.js';
import { withoutLiterals } from '../../src/platform/telemetry.js';
import { ENGINES } from '../support/app.js';
import { createTestDatabase, TEST_CREDENTIALS_KEY, type TestDatabase } from '../support/db.js';
import { CLI, ensureEmitted } from '../support/dist.js';
import { baseFixture, KEYS, PASSWORD } from '../support/fixtures.js';
import { startServe, stopServe, type ServeProcess } from '../support/serve-process.js';

/**
 * OpenTelemetry traces of a real `serve` (started with the standard OTEL_* variables) sent to a
 * local OTLP/HTTP receiver (JSON): one REST call, one /graphql call and a sign-in, under both
 * engines. Each request is one trace: HTTP route span → GraphQL operation span (named) → SQL
 * statement spans; the project code and status code are attributes; the API key, the password and
 * the message's content appear nowhere in what was exported.
 */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

const AGENT = 'trace-agent';
/** OTLP's SpanKind of the HTTP server span. */
const SERVER = 2;
let db: TestDatabase;
let receiver: http.Server;
let endpoint: string;
/** Every OTLP request body received, as text (the secret scan reads it whole). */
const payloads: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(
    baseFixture({
      agents: [
        { id: 1, business_id: 1, name: 'Trace', provider: 'whatsapp', provider_type: 'chat', provider_external_id: AGENT, enabled: true },
      ],
    }),
  );
  await db.load({ projects: [{ code: 'demo', name: 'Demo' }] });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url === '/v1/traces') payloads.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  await ensureEmitted('tracing.test');
}, 300_000);

afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  await db?.orm.close();
});

function spans(): OtlpSpan[] {
  return payloads.flatMap((p) =>
    (JSON.parse(p).resourceSpans ?? []).flatMap((rs: { scopeSpans?: { spans?: OtlpSpan[] }[] }) =>
      (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? []),
    ),
  );
}

const attr = (s: OtlpSpan, key: string): unknown => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v && (v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue));
};

/** Whether `ancestor` is above `span` in its trace. */
function under(span: OtlpSpan, ancestor: OtlpSpan, all: OtlpSpan[]): boolean {
  const byId = new Map(all.map((s) => [s.spanId, s]));
  for (let p = span.parentSpanId ? byId.get(span.parentSpanId) : undefined; p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) {
    if (p.spanId === ancestor.spanId) return true;
  }
  return false;
}

/** The HTTP span of `route`, its operation span (`name`) below it, and the SQL spans below that, all of one trace. */
function requestTree(route: string, operation: string) {
  const all = spans();
  const httpSpan = all.find((s) => attr(s, 'http.route') === route && s.kind === SERVER);
  expect(httpSpan, `an HTTP span for ${route} among ${[...new Set(all.map((s) => s.name))].join(', ')}`).toBeDefined();
  const trace = all.filter((s) => s.traceId === httpSpan!.traceId);
  const op = trace.find((s) => attr(s, 'graphql.operation.name') === operation && under(s, httpSpan!, trace));
  expect(op, `an operation span ${operation} under ${httpSpan!.name}`).toBeDefined();
  const sql = trace.filter((s) => typeof attr(s, 'db.query.text') === 'string' && under(s, op!, trace));
  expect(sql.length, 'SQL statement spans under the operation span').toBeGreaterThan(0);
  return { httpSpan: httpSpan!, op: op!, sql };
}

describe('tracing switch', () => {
  it('is on only for serve with an OTLP endpoint, and off when the SDK is disabled', () => {
    expect(tracingRequested({}, 'serve')).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'x' }, 'serve')).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, 'serve')).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }, 'serve')).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }, 'serve')).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, 'migrate')).toBe(false);
  });

  it('loads nothing of OpenTelemetry in `serve` when no endpoint is set', () => {
    const preload = path.join(path.dirname(CLI), 'tracing-preload.js');
    const loaded = (env: NodeJS.ProcessEnv) =>
      execFileSync(
        process.execPath,
        [
          '-e',
          `process.argv[2] = 'serve'; require(${JSON.stringify(preload)}); console.log(Object.keys(require.cache).filter((k) => k.includes('@opentelemetry') || k.includes('@fastify/otel')).length); process.exit(0)`,
        ],
        {
          env: { PATH: process.env.PATH, ...env },
          encoding: 'utf8',
        },
      ).trim();
    expect(loaded({ OTEL_SERVICE_NAME: 'x' })).toBe('0');
    expect(Number(loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }))).toBeGreaterThan(10);
  });

  it('takes literal values out of SQL text, keeping placeholders and identifiers', () => {
    expect(withoutLiterals(`insert into "ai_messages" ("content", "t1") values ('it''s +34 600 000 000', 42), ($1, $2)`)).toBe(
      `insert into "ai_messages" ("content", "t1") values (?, ?), ($1, $2)`,
    );
    expect(withoutLiterals('select $q$secret$q$, 3.5, e0.id from t limit 10')).toBe('select ?, ?, e0.id from t limit ?');
  });
});

describe.each(ENGINES)('traces of a real serve (%s)', (engine) => {
  let server: ServeProcess;
  const content = `trace-secret-content-${randomBytes(6).toString('hex')}`;
  let accessToken = '';
  let restStatus = 0;

  beforeAll(async () => {
    payloads.length = 0;
    server = await startServe(db.url, {
      DATABASE_DIRECT_URL: db.directUrl,
      CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
      GRAPHQL_ENGINE: engine,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: `ordergraph-${engine}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    const headers = { 'content-type': 'application/json' };
    const rest = await fetch(`${server.base}/v400/en/acme/ai/agents/${AGENT}/conversations/current/messages`, {
      method: 'POST',
      headers: { ...headers, 'x-api-key': KEYS.customer },
      body: JSON.stringify({ content }),
    });
    expect(rest.status, await rest.clone().text()).toBeLessThan(300);
    restStatus = rest.status;
    const gql = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'x-api-key': KEYS.server },
      body: JSON.stringify({
        query: 'query TraceConversations($n: Int) { aiConversations(page_size: $n) { items { id status } } }',
        variables: { n: 5 },
      }),
    });
    const answer = (await gql.json()) as { data?: { aiConversations?: { items: { status: string }[] } } };
    expect(
      answer.data?.aiConversations?.items.map((c) => c.status),
      JSON.stringify(answer),
    ).toContain('active');
    const auth = await fetch(`${server.base}/v400/en/acme/auth`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ email: 'admin@acme.test', password: PASSWORD }),
    });
    expect(auth.status).toBe(200);
    accessToken = ((await auth.json()) as { result: { session: { access_token: string } } }).result.session.access_token;
    expect(accessToken.length).toBeGreaterThan(10);
    await stopServe([server]); // serve flushes its spans as it stops
  }, 120_000);

  it('a REST call: HTTP route span → the named operation → its SQL statements, one trace, project and status attributes', () => {
    const { httpSpan, op, sql } = requestTree(
      '/v400/:lang/:project/ai/agents/:provider_external_id/conversations/current/messages',
      'AddAiCurrentConversationMessage',
    );
    expect(op.name).toBe('mutation AddAiCurrentConversationMessage');
    expect(attr(httpSpan, 'ordergraph.project.code')).toBe('acme');
    expect(attr(op, 'ordergraph.project.code')).toBe('acme');
    expect(attr(httpSpan, 'http.response.status_code')).toBe(restStatus);
    // the message's insert (a CTE since it also reads the conversation back: `with m as (insert into ai_messages …)`)
    expect(sql.some((s) => /\binsert\s+into\s+ai_messages\b/i.test(String(attr(s, 'db.query.text'))))).toBe(true);
  });

  it("a /graphql call: the same tree, named by the document's operation", () => {
    const { httpSpan, op } = requestTree('/graphql', 'TraceConversations');
    expect(op.name).toBe('query TraceConversations');
    expect(attr(op, 'graphql.operation.type')).toBe('query');
    expect(attr(httpSpan, 'ordergraph.project.code')).toBe('acme');
    expect(attr(httpSpan, 'http.response.status_code')).toBe(200);
  });

  it('exports no API key, password or message content, and the service name comes from OTEL_SERVICE_NAME', () => {
    const text = payloads.join('\n');
    expect(text).toContain(`ordergraph-${engine}`);
    expect(text).toContain('db.query.text'); // the statements are there, without their values
    for (const secret of [KEYS.customer, KEYS.server, PASSWORD, content, accessToken, TEST_CREDENTIALS_KEY])
      expect(text).not.toContain(secret);
  });
});
