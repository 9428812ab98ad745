import { createRequire } from 'node:module';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: {
    // One graphql realm: without this Vite loads graphql's .mjs build for our code
    // while the libraries load the .js one ("Cannot use GraphQLObjectType from another module or realm").
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/console-build.ts', 'test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A worker keeps its loaded modules from one test file to the next: importing the app anew for
    // every file cost ~1.7 s of CPU per file (138 s of a 446 s run). Files share no state through
    // modules: each builds its own app on its own database, and restores what it changes in env.
    isolate: false,
    fileParallelism: true,
    maxWorkers: 2,
    // ordering-api-sdk ships ESM with extensionless imports and no "type": "module": Vite resolves it.
    server: { deps: { inline: ['ordering-api-sdk'] } },
  },
});
