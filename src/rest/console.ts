import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { packageFile } from './graphiql.js';

/**
 * `/console` (CONTRACT §9.5): the operator's page, plain HTML/CSS/JS from `src/console/` and
 * uPlot from its installed package, all served here (no CDN: the page works offline). The
 * static files are read from `src/console/` both in development (this file in src/rest) and
 * from the build (dist/src/rest → the repository's src/console), so no build step copies them.
 */
const OWN: Record<string, { file: string; type: string }> = {
  'dom.js': { file: 'dom.js', type: 'text/javascript; charset=utf-8' },
  'i18n.js': { file: 'i18n.js', type: 'text/javascript; charset=utf-8' },
  'console.js': { file: 'console.js', type: 'text/javascript; charset=utf-8' },
  'message-view.js': { file: 'message-view.js', type: 'text/javascript; charset=utf-8' },
  'inbox.js': { file: 'inbox.js', type: 'text/javascript; charset=utf-8' },
  'counter-words.js': { file: 'counter-words.js', type: 'text/javascript; charset=utf-8' },
  'counter.js': { file: 'counter.js', type: 'text/javascript; charset=utf-8' },
  'orders-words.js': { file: 'orders-words.js', type: 'text/javascript; charset=utf-8' },
  'orders.js': { file: 'orders.js', type: 'text/javascript; charset=utf-8' },
  'trust-words.js': { file: 'trust-words.js', type: 'text/javascript; charset=utf-8' },
  'console.css': { file: 'console.css', type: 'text/css; charset=utf-8' },
  'agents.js': { file: 'agents.js', type: 'text/javascript; charset=utf-8' },
};
const PACKAGED: Record<string, { pkg: string; file: string; type: string }> = {
  'uplot.js': { pkg: 'uplot', file: 'dist/uPlot.iife.min.js', type: 'text/javascript; charset=utf-8' },
  'uplot.css': { pkg: 'uplot', file: 'dist/uPlot.min.css', type: 'text/css; charset=utf-8' },
};

export function consoleDir(): string {
  const candidates = [path.resolve(__dirname, '..', 'console'), path.resolve(__dirname, '..', '..', '..', 'src', 'console')];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'index.html')));
  if (!found) throw new Error(`console files not found in ${candidates.join(' or ')}`);
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
  const files = new Map<string, { body: Buffer; type: string }>([
    ...Object.entries(OWN).map(([name, f]) => [name, { body: fs.readFileSync(path.join(dir, f.file)), type: f.type }] as const),
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
