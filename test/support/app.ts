import type { AddressInfo } from 'node:net';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { build, type Built, type BuildOptions } from '../../src/app.js';
import { loadConfig, type GraphEngineName } from '../../src/config.js';
import { TEST_CREDENTIALS_KEY, type TestDatabase } from './db.js';
import { checkedInject } from './openapi-check.js';

/** Every REST test runs under both engines. */
export const ENGINES: GraphEngineName[] = ['mercurius', 'apollo'];

export interface TestApp extends Built {
  /** `app.inject` under /v400/{lang}/{project}. */
  api(opts: ApiRequest): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
  /** Listens on a free port of 127.0.0.1 and returns the origin (`http://127.0.0.1:PORT`). */
  listen(): Promise<string>;
}

export interface ApiRequest {
  method?: InjectOptions['method'];
  path: string;
  project?: string;
  lang?: string;
  key?: string;
  token?: string;
  body?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

export async function startApp(engine: GraphEngineName, db: TestDatabase, opts: BuildOptions = {}): Promise<TestApp> {
  const built = await build({
    ...opts,
    orm: opts.orm ?? db.orm,
    logger: false,
    config: {
      graphqlEngine: engine,
      databaseUrl: db.url,
      credentialsKey: TEST_CREDENTIALS_KEY,
      redisUrl: undefined,
      // The apps of a test file share one vitest worker: its heap and event loop are the worker's, and a loaded CI
      // host made a whole file's requests 503 (shed). Load shedding's own tests pass their `pressure`.
      pressure: { ...loadConfig().pressure, maxHeapRatio: 0, maxEventLoopDelayMs: 0 },
      ...opts.config,
    },
  });
  // every answer a test receives is checked against the app's own /openapi.json (test/support/openapi-check.ts)
  built.app.inject = checkedInject<typeof built.app.inject>(built.app.inject.bind(built.app), built.app.swagger());
  return {
    ...built,
    api: ({ method = 'GET', path, project = 'acme', lang = 'en', key, token, body, query, headers = {} }) =>
      built.app.inject({
        method,
        url: `/v400/${lang}/${project}${path}`,
        query,
        headers: {
          ...(key ? { 'x-api-key': key } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
        ...(body !== undefined ? { payload: body as string } : {}),
      }),
    close: () => built.app.close(),
    listen: async () => {
      await built.app.listen({ port: 0, host: '127.0.0.1' });
      return `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
    },
  };
}
