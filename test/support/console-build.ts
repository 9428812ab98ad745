import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The console's modules, compiled once per run (docs/console.md): the tests run the server from its sources, and
 * src/rest/console.ts serves the console from dist/console, which `npm run build` writes too.
 */
export default function setup(): void {
  const root = path.resolve(__dirname, '..', '..');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'src', 'console', 'tsconfig.json')], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the console does not compile (tsc -p src/console/tsconfig.json):\n${run.stdout}${run.stderr}`);
}
