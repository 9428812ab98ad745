import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * GraphiQL served from installed packages (React 18 UMD + graphiql's bundle), so it works
 * without internet access. The API key or bearer token goes in GraphiQL's headers editor.
 */
const ASSETS: Record<string, { pkg: string; file: string; type: string }> = {
  'react.js': { pkg: 'react', file: 'umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript' },
  'graphiql.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript' },
  'graphiql.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css' },
};

/** A file inside an installed package; the UMD files are not in the packages' `exports`. */
export function packageFile(pkg: string, file: string): string {
  let dir = path.dirname(require.resolve(pkg));
  while (!fs.existsSync(path.join(dir, 'package.json')) || path.basename(dir) !== pkg) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`package ${pkg} not found`);
    dir = up;
  }
  return path.join(dir, file);
}

/** The page's own script and style, as files: its Content-Security-Policy allows no inline script (rest/security-headers.ts). */
const PAGE_JS = `const params = new URLSearchParams(location.search);
const fetcher = GraphiQL.createFetcher({ url: new URL('/graphql', location.href).toString() });
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: params.get('query') || '{ project { code name ai_enabled } }',
    defaultHeaders: params.get('headers') || '{\\n  "X-Api-Key": ""\\n}',
    shouldPersistHeaders: true,
  }),
);
`;
const PAGE_CSS = 'body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }\n';

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>OrderGraph GraphiQL</title>
  <link rel="stylesheet" href="/graphiql/assets/graphiql.css" />
  <link rel="stylesheet" href="/graphiql/assets/page.css" />
</head>
<body>
  <div id="graphiql">Loading…</div>
  <script src="/graphiql/assets/react.js"></script>
  <script src="/graphiql/assets/react-dom.js"></script>
  <script src="/graphiql/assets/graphiql.js"></script>
  <script src="/graphiql/assets/page.js"></script>
</body>
</html>`;

export function registerGraphiql(app: FastifyInstance): void {
  const files = new Map(
    Object.entries(ASSETS).map(([name, a]) => [name, { body: fs.readFileSync(packageFile(a.pkg, a.file)), type: a.type }]),
  );
  files.set('page.js', { body: Buffer.from(PAGE_JS), type: 'text/javascript' });
  files.set('page.css', { body: Buffer.from(PAGE_CSS), type: 'text/css' });
  app.get('/graphiql', { schema: { hide: true } }, async (_req, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get<{ Params: { file: string } }>('/graphiql/assets/:file', { schema: { hide: true } }, async (req, reply) => {
    const file = files.get(req.params.file);
    if (!file) return reply.code(404).send();
    return reply.type(file.type).header('cache-control', 'public, max-age=86400').send(file.body);
  });
}
