import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture, KEYS } from '../support/fixtures.js';
import { freePort } from '../support/net.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

const TOKEN = 'scrape-token-of-the-test';

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe.each(ENGINES)('/metrics (%s)', (engine) => {
  let t: TestApp;
  let proxied: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db, { config: { metricsToken: TOKEN } });
    proxied = await startApp(engine, db, { config: { trustProxy: ['127.0.0.1'] } });
  });
  afterAll(async () => {
    await t.close();
    await proxied.close();
  });

  const scrape = (app: TestApp, opts: { remoteAddress?: string; headers?: Record<string, string> } = {}) =>
    app.app.inject({ method: 'GET', url: '/metrics', ...opts });

  it('counts requests per route template and status in a latency histogram', async () => {
    expect((await t.api({ path: '/configs', key: KEYS.server })).statusCode).toBe(200);
    expect((await t.api({ path: '/configs', project: 'acme', lang: 'es', key: KEYS.server })).statusCode).toBe(200);
    expect((await t.api({ path: '/configs', key: 'not-a-key' })).statusCode).toBe(401);
    const res = await scrape(t);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const route = '/v400/:lang/:project/configs';
    // Both languages are one series: the template, not the raw path.
    expect(sample(res.body, 'http_request_duration_seconds_count', { route, status_code: '200', method: 'GET' })).toBe(2);
    expect(sample(res.body, 'http_request_duration_seconds_count', { route, status_code: '401' })).toBe(1);
    expect(sample(res.body, 'http_request_duration_seconds_bucket', { route, status_code: '200', le: '+Inf' })).toBe(2);
    expect(res.body).not.toContain('/v400/es/acme');
    // The scrape itself is not measured.
    expect(res.body).not.toContain('route="/metrics"');
  });

  it('the request series as fastify-metrics wrote them: names, help, label order, unmatched routes, no HEAD or OPTIONS', async () => {
    await t.api({ path: '/configs', key: KEYS.server });
    await t.app.inject({ method: 'GET', url: '/nowhere-at-all' });
    await t.app.inject({ method: 'HEAD', url: '/health/live' });
    await t.app.inject({ method: 'OPTIONS', url: '/v400/en/acme/configs' });
    const lines = (await scrape(t)).body.split('\n');
    const request = lines.filter((l) => l.includes('http_request_'));
    expect(request).toEqual(
      expect.arrayContaining([
        '# HELP http_request_duration_seconds request duration in seconds',
        '# TYPE http_request_duration_seconds histogram',
        '# HELP http_request_summary_seconds request duration in seconds summary',
        '# TYPE http_request_summary_seconds summary',
      ]),
    );
    expect(request.filter((l) => l.startsWith('http_request_summary_seconds'))).toEqual([]);
    expect(request).toContainEqual(
      expect.stringMatching(/^http_request_duration_seconds_count\{method="GET",route="__unmatched__",status_code="404"\} [1-9]/),
    );
    expect(request).toContainEqual(
      expect.stringMatching(
        /^http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/v400\/:lang\/:project\/configs",status_code="200"\} \d+$/,
      ),
    );
    expect(request.filter((l) => /method="(HEAD|OPTIONS)"/.test(l))).toEqual([]);
  });

  it('reports the database pool (in use, idle, waiting) and process metrics', async () => {
    const res = await scrape(t);
    for (const state of ['in_use', 'idle', 'waiting']) {
      expect(sample(res.body, 'ordergraph_db_pool_connections', { pool: 'primary', state })).toBeGreaterThanOrEqual(0);
    }
    expect(res.body).toContain('process_cpu_seconds_total');
  });

  it('answers loopback and private addresses; others need the bearer token', async () => {
    expect((await scrape(t, { remoteAddress: '10.1.2.3' })).statusCode).toBe(200);
    expect((await scrape(t, { remoteAddress: '192.168.7.7' })).statusCode).toBe(200);
    const outside = await scrape(t, { remoteAddress: '203.0.113.9' });
    expect(outside.statusCode).toBe(403);
    expect(outside.body).not.toContain('http_request');
    expect((await scrape(t, { remoteAddress: '203.0.113.9', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(403);
    expect((await scrape(t, { remoteAddress: '203.0.113.9', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(200);
  });

  it('judges the client behind a trusted proxy by its forwarded address, and a token-less app by its network only', async () => {
    expect((await scrape(proxied, { headers: { 'x-forwarded-for': '203.0.113.9' } })).statusCode).toBe(403);
    expect((await scrape(proxied, { headers: { 'x-forwarded-for': '10.0.0.5' } })).statusCode).toBe(200);
    expect((await scrape(proxied, { remoteAddress: '203.0.113.9', headers: { authorization: 'Bearer ' } })).statusCode).toBe(403);
  });

  it('is not limited and not under the tenant tree', async () => {
    await db.sql('update projects set rate_limits = ?::jsonb where code = ?', [
      JSON.stringify([{ scope: 'ip', points: 1, duration_s: 60 }]),
      'acme',
    ]);
    try {
      t.services.tenancy.forgetProject('acme');
      for (let i = 0; i < 4; i++) expect((await scrape(t)).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: '/v400/en/acme/metrics' })).statusCode).toBe(404);
    } finally {
      await db.sql("update projects set rate_limits = '[]'::jsonb where code = ?", ['acme']);
      await db.sql('delete from rate_limits');
      t.services.tenancy.forgetProject('acme');
    }
  });

  it('counts limiter store failures', async () => {
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    const broken = await startApp(engine, db, { config: { redisUrl: deadRedis } });
    await db.sql('update projects set rate_limits = ?::jsonb where code = ?', [
      JSON.stringify([{ scope: 'project', points: 100, duration_s: 60, on_error: 'open' }]),
      'acme',
    ]);
    try {
      broken.services.tenancy.forgetProject('acme');
      expect((await broken.api({ path: '/configs', key: KEYS.server })).statusCode).toBe(200);
      expect((await broken.api({ path: '/configs', key: KEYS.server })).statusCode).toBe(200);
      const res = await scrape(broken);
      expect(sample(res.body, 'ordergraph_limiter_store_failures_total', { store: 'redis' })).toBe(2);
    } finally {
      await db.sql("update projects set rate_limits = '[]'::jsonb where code = ?", ['acme']);
      await broken.close();
    }
  });
});
