/**
 * A worker that runs `pass()` every `intervalMs` (0: never), one pass at a time: the next is
 * scheduled when the previous one ends. `stop()` cancels the next pass and waits for the one in flight.
 */
export abstract class PeriodicWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  protected stopped = false;

  constructor(private readonly intervalMs: number) {}

  /** One pass; it must not throw (failures are its own to log). */
  abstract pass(): Promise<void>;

  start(): this {
    if (this.intervalMs > 0) this.schedule();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass().finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }
}
