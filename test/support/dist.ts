import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
export const CLI = path.join(ROOT, 'dist', 'src', 'cli', 'main.js');
const LOCK = path.join(ROOT, 'dist', '.build-lock');

/**
 * Compiles dist/ when it is missing or older than the sources, once across parallel test files
 * (a lock folder), so tests can start the real `ordergraph` process.
 */
export async function ensureBuilt(): Promise<void> {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  for (let i = 0; i < 600; i++) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    if (!fs.existsSync(CLI) || newest(path.join(ROOT, 'src')) > fs.statSync(CLI).mtimeMs) {
      execFileSync(
        process.execPath,
        [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')],
        { stdio: 'inherit' },
      );
      fs.utimesSync(CLI, new Date(), new Date());
    }
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * ensureBuilt for tests that only need the emitted dist/: tsc still emits on type errors elsewhere
 * in the tree, so a failed build with a CLI on disk is a warning (`label` names the test), not a failure.
 */
export async function ensureEmitted(label: string): Promise<void> {
  try {
    await ensureBuilt();
  } catch (err) {
    if (!fs.existsSync(CLI)) throw err;
    console.warn(`[${label}] build reported errors; using the emitted dist`, err instanceof Error ? err.message : err);
  }
}

function newest(dir: string): number {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
  }
  return latest;
}
