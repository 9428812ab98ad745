import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { packageFile } from './graphiql.js';

/**
 * `/console` (CONTRACT §9.5): the operator's page, served here with uPlot from its installed package (no CDN:
 * the page works offline). index.html and console.css are read from `src/console/`; the scripts are the ES
 * modules tsc compiles from `src/console/*.ts` into `dist/console/` (`npm run build`, and the tests' global
 * setup: docs/console.md). Both are found from this file in src/rest (development, tests) and in
 * dist/src/rest (the build). Every file is read once, at startup.
 */
const PACKAGED: Record<string, { pkg: string; file: string; type: string }> = {
  'uplot.js': { pkg: 'uplot', file: 'dist/uPlot.iife.min.js', type: 'text/javascript; charset=utf-8' },
  'uplot.css': { pkg: 'uplot', file: 'dist/uPlot.min.css', type: 'text/css; charset=utf-8' },
};
/** The compiled modules' names: the folder's own files only, nothing with a path or a dot of its own. */
const MODULE = /^[a-z0-9-]+\.js$/;

export function consoleDir(): string {
  const candidates = [path.resolve(__dirname, '..', 'console'), path.resolve(__dirname, '..', '..', '..', 'src', 'console')];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html')));
  if (!found) throw new Error(`console files not found in ${candidates.join(' or ')}`);
  return found;
}

/** The compiled console (`tsc -p src/console/tsconfig.json`): dist/console from src/rest and from dist/src/rest. */
export function consoleBuildDir(): string {
  const candidates = [path.resolve(__dirname, '..', '..', 'dist', 'console'), path.resolve(__dirname, '..', '..', 'console')];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'main.js')));
  if (!found) throw new Error(`the compiled console is not in ${candidates.join(' or ')}: run npm run build`);
  return found;
}

/**
 * A strict policy: the page may talk to this origin only, and no markup can carry a style or a script of
 * its own (CONTRACT §11): no 'unsafe-inline' anywhere, so a `style="…"` or `onfocus="…"` that reached the
 * page would be ignored. Styles set from the console's own scripts through the CSSOM (`el.style.width`,
 * as uPlot sizes its canvas) are not inline markup and stay allowed. `blob:` for images and media only: the
 * inbox fetches a message's file with the console's credential and shows it from a blob URL (CONTRACT §12.6).
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The console's icon: a speech bubble in the console's blue, as SVG (browsers take it from /favicon.ico too). */
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path fill="#1f5fbf" d="M4 6h24v16H13l-7 6v-6H4z"/></svg>';

export function registerConsole(app: FastifyInstance): void {
  const dir = consoleDir();
  const built = consoleBuildDir();
  const script = 'text/javascript; charset=utf-8';
  const modules = fs.readdirSync(built).filter((name) => MODULE.test(name));
  const files = new Map<string, { body: Buffer; type: string }>([
    ...modules.map((name) => [name, { body: fs.readFileSync(path.join(built, name)), type: script }] as const),
    ['console.css', { body: fs.readFileSync(path.join(dir, 'console.css')), type: 'text/css; charset=utf-8' }],
    ...Object.entries(PACKAGED).map(([name, a]) => [name, { body: fs.readFileSync(packageFile(a.pkg, a.file)), type: a.type }] as const),
  ]);
  const page = fs.readFileSync(path.join(dir, 'index.html'));
  app.get('/console', { schema: { hide: true } }, async (_req, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .send(page),
  );
  // a browser asks for it on every page: a small icon, not a 404 in every log (CONTRACT §10.6)
  app.get('/favicon.ico', { schema: { hide: true } }, async (_req, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff').send(FAVICON),
  );
  app.get<{ Params: { file: string } }>('/console/assets/:file', { schema: { hide: true } }, async (req, reply) => {
    const file = files.get(req.params.file);
    if (!file) return reply.code(404).send();
    return reply.type(file.type).header('cache-control', 'public, max-age=300').header('x-content-type-options', 'nosniff').send(file.body);
  });
}
