import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Freezes a PostgreSQL cluster of a test's own as an operator's fault would: SIGSTOP on the
 * postmaster (its pid is the first line of the data folder's postmaster.pid) and every process
 * it forked (backends, background workers), SIGCONT to thaw. Nothing else is touched.
 */
export class ClusterFreezer {
  private frozen: number[] = [];

  constructor(private readonly dataDir: () => string) {}

  /** The postmaster's pid (the first line of postmaster.pid). */
  postmaster(): number {
    return Number(fs.readFileSync(path.join(this.dataDir(), 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  /** The processes the postmaster forked (backends, background workers). */
  children(postmaster = this.postmaster()): number[] {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  }

  /**
   * The postmaster first, so it forks nothing more; then its children, listed again until no new
   * one shows up (a backend forked just before the postmaster stopped would otherwise keep serving).
   */
  freeze(): void {
    const postmaster = this.postmaster();
    process.kill(postmaster, 'SIGSTOP');
    this.frozen = [postmaster];
    for (let round = 0; round < 5; round++) {
      const fresh = this.children(postmaster).filter((pid) => !this.frozen.includes(pid));
      if (!fresh.length && round > 0) break;
      for (const pid of fresh) {
        process.kill(pid, 'SIGSTOP');
        this.frozen.push(pid);
      }
    }
  }

  thaw(): void {
    for (const pid of this.frozen) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        /* gone */
      }
    }
    this.frozen = [];
  }
}

/** Polls `check` every 100 ms; its time in ms, or an error with the end of the server's output after `ms`. */
export async function waitUntil(check: () => Promise<boolean>, ms: number, output: () => string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms:\n${output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
