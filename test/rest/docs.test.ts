import 'reflect-metadata';
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from '../../src/app.js';
import { ormConfig } from '../../src/db/orm.js';
import { missingTranslations } from '../../src/i18n/messages.js';
import { ROUTES } from '../../src/rest/routes/index.js';
import { ENGINES, startApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { baseFixture } from '../support/fixtures.js';
import { freePort } from '../support/net.js';

/** `/ai/agents/:agent_id` (Fastify) → `/v400/{lang}/{project}/ai/agents/{agent_id}` (OpenAPI). */
function openApiPath(path: string): string {
  return `/v400/{lang}/{project}${path}`.replace(/:(\w+)/g, '{$1}');
}

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.load(baseFixture());
});
afterAll(() => db.orm.close());

describe.each(ENGINES)('API documentation and health (%s)', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(engine, db);
  });
  afterAll(() => t.close());

  it('/openapi.json is OpenAPI 3 with both security schemes', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info.title).toBeTruthy();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.apiKeyAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
  });

  it('/openapi.json documents every declared route, with security unless anonymous', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(ROUTES.length).toBeGreaterThan(0);
    for (const spec of ROUTES) {
      const where = `${spec.method} ${spec.path}`;
      const item = doc.paths[openApiPath(spec.path)];
      expect(item, `${where} is missing from /openapi.json`).toBeDefined();
      const op = item[spec.method.toLowerCase()];
      expect(op, `${where} has no ${spec.method} operation in /openapi.json`).toBeDefined();
      expect(op.summary).toBe(spec.summary);
      if (spec.access.anonymous) expect(op.security ?? []).toEqual([]);
      else expect(op.security).toEqual(expect.arrayContaining([{ bearerAuth: [] }, { apiKeyAuth: [] }]));
    }
  });

  it('/openapi.json hides the internal routes', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => /^\/(graphql|graphiql|openapi\.json)/.test(p))).toEqual([]);
  });

  it('/docs is HTML whose scripts and styles the app serves itself', async () => {
    const page = await fetchFollowing(t, '/docs');
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/text\/html/);
    const assets = [...page.body.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map((m) => m[1]);
    const scripts = assets.filter((a) => /\.js(\?|$)/.test(a));
    const styles = assets.filter((a) => /\.css(\?|$)/.test(a));
    expect(scripts.length).toBeGreaterThan(0);
    expect(styles.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const url = new URL(asset, `http://localhost${page.url}`);
      expect(url.host, `${asset} is loaded from elsewhere`).toBe('localhost');
      const res = await t.app.inject({ method: 'GET', url: url.pathname + url.search });
      expect(res.statusCode, `${url.pathname}`).toBe(200);
      expect(res.rawPayload.length, `${url.pathname} is empty`).toBeGreaterThan(0);
    }
  });

  it('/health/live answers 200', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health/live' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('/health/ready answers 200 when the database answers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', streams: { open: 0, full: false } });
  });

  it('/health/ready answers 503 while the database is unreachable, and /health/live still 200', async () => {
    const port = await freePort();
    const unreachable = `postgres://postgres:postgres@127.0.0.1:${port}/nowhere`;
    let orm: MikroORM | undefined;
    let down: Built | undefined;
    try {
      // The app's own ORM settings, pointed at a port nobody listens on (no connection attempt at init).
      orm = await MikroORM.init({ ...ormConfig({ clientUrl: unreachable }), connect: false });
      // build() directly: startApp always hands the app the test database's ORM.
      down = await build({ orm, logger: false, config: { graphqlEngine: engine, databaseUrl: unreachable, redisUrl: undefined } });
      const ready = await down.app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'unavailable' });
      expect((await down.app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    } finally {
      await down?.app.close();
      await orm?.close();
    }
  });
});

describe('messages', () => {
  it('every message has a translation in every language', () => {
    expect(missingTranslations()).toEqual([]);
  });
});

/** GET a path, following same-origin redirects (swagger-ui may redirect /docs to its index page). */
async function fetchFollowing(t: TestApp, path: string): Promise<{ status: number; type: string; body: string; url: string }> {
  let url = path;
  for (let i = 0; i < 5; i++) {
    const res = await t.app.inject({ method: 'GET', url });
    if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
      const next = new URL(String(res.headers.location), `http://localhost${url}`);
      expect(next.host).toBe('localhost');
      url = next.pathname + next.search;
      continue;
    }
    return { status: res.statusCode, type: String(res.headers['content-type']), body: res.body, url };
  }
  throw new Error(`too many redirects from ${path}`);
}
