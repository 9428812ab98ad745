// ESLint (flat config). Type-aware typescript-eslint over src (the console's browser modules included), test and
// bench; plain rules over the few JavaScript files (the bin launcher, a test helper process).
// Why each rule is here, and every rule turned off or down with its reason: docs/habits.md.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * The layering, as the import-direction rule states it: the folders of src/ each folder must not import.
 * The same table as test/architecture/imports.test.ts (which also follows `import()`, `declare module`
 * and finds circles); this rule says it in the editor, at the line.
 */
const FORBIDDEN = {
  context: ['services', 'graph', 'rest', 'resolvers'],
  services: ['rest', 'graph', 'resolvers', 'workers'],
  workers: ['rest', 'graph', 'resolvers'],
  resolvers: ['rest'],
  graph: ['rest'],
  db: ['rest', 'graph', 'resolvers', 'services', 'workers'],
  entities: ['rest', 'graph', 'resolvers', 'services', 'workers'],
};

// Imports inside src/ are relative (`../../rest/envelope.js`), and no folder below src/ reuses a layer's
// name, so a relative path reaching a layer folder is an import of that layer. One block per folder: in a
// flat config a later block's options for a rule replace an earlier block's, they do not add up.
const layering = Object.entries(FORBIDDEN).map(([from, banned]) => ({
  name: `ordergraph/layering/${from}`,
  files: [`src/${from}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(\\.\\./)+(${banned.join('|')})(/|$)`,
            message: `src/${from}/ must not import ${banned.map((b) => `src/${b}/`).join(', ')}: imports point one way, rest → graph → resolvers → services → db/entities (workers → services). See README "Architecture".`,
          },
        ],
      },
    ],
  },
}));

/** The globals the plain JavaScript files use (no `globals` package in the tree; these few are all). */
const readonly = (names) => Object.fromEntries(names.map((n) => [n, 'readonly']));
const common = ['console', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'URL', 'URLSearchParams', 'Intl'];
const browserGlobals = readonly([
  ...common,
  ...['window', 'document', 'localStorage', 'sessionStorage', 'location', 'fetch', 'crypto'],
  ...['AbortController', 'TextDecoder', 'CustomEvent', 'EventSource', 'MutationObserver', 'IntersectionObserver', 'uPlot'],
  ...['navigator', 'Notification', 'Blob', 'FormData', 'Image'],
]);
const nodeGlobals = readonly([...common, 'process', 'Buffer']);
const commonJsGlobals = readonly(['require', 'module', 'exports', '__dirname', '__filename']);

export default defineConfig(
  {
    name: 'ordergraph/ignores',
    // clients/: generated types and an example compiled by its own test (test/client/client.test.ts) against openapi-fetch
    ignores: ['dist/', 'node_modules/', '.data/', '.test-data/', 'coverage/', 'schema/', 'bench/results/', 'test/artifacts/', 'clients/'],
  },
  {
    name: 'ordergraph/typescript',
    files: ['**/*.ts', '**/*.mts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The defects that cost most in a Node server: a promise nobody awaits or catches.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A union grown by one member must be handled in every switch over it: a `default` does not count
      // as handling it (it would swallow the new member silently). A switch over a plain string needs no
      // `default` (requireDefaultForNonUnion off): the code after it is the rest (rest/errors.ts's codes).
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
      ],
      // Type-only imports say so, and are erased (swc and tsc agree on what stays at run time).
      // `typeof import('…')` annotations stay allowed: platform/tracing.ts and cli/tracing-preload.ts name
      // the type of a module they load lazily, on purpose, only when tracing is on.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      // OFF, reviewed finding by finding (docs/habits.md): without `noUncheckedIndexedAccess` the types say
      // `rows[0]`, `record[key]` and `err as T` are always defined, and TypeScript keeps a narrowing of
      // `this.open` across an `await`; 100 of its 105 findings were guards that are right at run time
      // (a row that is not there, a field a client left out, a flag another callback cleared). Deleting
      // them to please the rule would add crashes. The rule comes back with `noUncheckedIndexedAccess`.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // OFF: `any` enters at the edges by design (raw SQL rows from MikroORM's `execute`, JSON.parse,
      // GraphQL results, `res.json()` in tests): 1,900 findings, none of them a promise or a layering
      // defect. Typing every raw row is its own piece of work (docs/habits.md, "next"), not a lint fix.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // OFF: an `async` function without `await` still turns a throw into a rejection, which its callers
      // rely on (Fastify hooks, MikroORM migrations' up/down, close() methods, async iterators' return).
      // Removing `async` to please the rule changes those error paths; a forgotten `await` is caught by
      // no-floating-promises and await-thenable instead.
      '@typescript-eslint/require-await': 'off',
      // `_name` marks a binding kept on purpose (a positional argument, a field dropped by a rest spread,
      // a loop that only counts).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `let [y, m, d] = from` where only some are reassigned stays one line.
      'prefer-const': ['error', { destructuring: 'all' }],
      // URL and URLSearchParams print themselves (the default list names them from lib.dom; ours come from @types/node).
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allow: [
            { from: 'lib', name: ['Error', 'URL', 'URLSearchParams'] },
            { from: 'package', package: 'url', name: ['URL', 'URLSearchParams'] },
          ],
        },
      ],
    },
  },
  ...layering,
  // Deliberate exceptions, one file each, with the reason.
  {
    name: 'ordergraph/exceptions: db/tenant-read.ts',
    files: ['src/db/tenant-read.ts'],
    // A private symbol thrown and caught inside the same shape walk, as the exit "not a kept shape":
    // it never leaves the module and allocates no Error (the walk runs on every tenant read).
    // The entity row mapper is compiled once per entity and column list with `new Function`, as
    // direct-read.ts's row builder: names go in through JSON.stringify, never raw text.
    rules: { '@typescript-eslint/only-throw-error': 'off', '@typescript-eslint/no-implied-eval': 'off' },
  },
  {
    name: 'ordergraph/exceptions: db/direct-read.ts',
    files: ['src/db/direct-read.ts'],
    // The row builder is compiled once per field list with `new Function`; the field names go in through
    // JSON.stringify, never raw text, and the builder is what makes the direct read cheaper than the ORM's.
    rules: { '@typescript-eslint/no-implied-eval': 'off' },
  },
  {
    name: 'ordergraph/exceptions: Function types at two library edges',
    files: ['src/db/connection-guard.ts', 'src/resolvers/index.ts'],
    // pg's callback API hands over callbacks of several shapes (connection-guard wraps them all);
    // TypeGraphQL's buildSchema is typed `NonEmptyArray<Function>` for its resolver classes.
    rules: { '@typescript-eslint/no-unsafe-function-type': 'off' },
  },
  {
    name: 'ordergraph/exceptions: cli/tracing-preload.ts',
    files: ['src/cli/tracing-preload.ts'],
    // Imported first by cli/main.ts: the OpenTelemetry SDK is required synchronously (an `import` would
    // be hoisted and always load it), and only when tracing is asked for, before fastify, pg and graphql load.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The console's modules are TypeScript (the block above, type-aware through src/console/tsconfig.json, the
    // nearest tsconfig the project service finds for them), with the browser's globals.
    name: 'ordergraph/console (browser modules)',
    files: ['src/console/**/*.ts'],
    languageOptions: { globals: browserGlobals },
  },
  {
    name: 'ordergraph/node scripts',
    files: ['bin/**/*.js', '**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: nodeGlobals },
  },
  {
    name: 'ordergraph/commonjs',
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: commonJsGlobals },
  },
);
