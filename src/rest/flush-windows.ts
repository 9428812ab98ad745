/**
 * The timers of a leading-edge flush throttle (EVENTS_FLUSH_MS, docs/events.md): a stream or socket
 * that sent less than `ms` ago holds what comes next until its window ends, then sends it in one
 * write. One timer per moment some of them come due, shared by them: the streams of a project send
 * together, so they come due together.
 */
export class FlushWindows {
  private readonly due = new Map<number, (() => void)[]>();

  constructor(readonly ms: number) {}

  /** The end of the window that opened at `sentAt` (Date.now() ms), or null when it has ended (or the throttle is off). */
  end(sentAt: number): number | null {
    if (this.ms <= 0) return null;
    const at = sentAt + this.ms;
    return Date.now() < at ? at : null;
  }

  /** Runs `flush` at `at` (Date.now() ms). */
  at(at: number, flush: () => void): void {
    let flushes = this.due.get(at);
    if (!flushes) {
      const list: (() => void)[] = (flushes = []);
      this.due.set(at, list);
      setTimeout(
        () => {
          this.due.delete(at);
          for (const f of list) f();
        },
        Math.max(1, at - Date.now()),
      ).unref();
    }
    flushes.push(flush);
  }
}

/** What a throttled stream sends at once however recent its last write: a window merges small events, it does not hold a burst back. */
export const FLUSH_NOW_BYTES = 16 * 1024;
