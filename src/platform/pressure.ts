import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import v8 from 'node:v8';
import type { PressureConfig } from '../config.js';

export type PressureReason = 'heap' | 'event_loop' | 'streams';

/**
 * How near a process is to its limits (CONTRACT §11's last rule): heap used against the heap limit
 * (v8.getHeapStatistics(), so `--max-old-space-size` is taken into account), the mean event-loop
 * delay (past its threshold in two samples running, so one pause does not shed load), both sampled every PRESSURE_SAMPLE_MS on one timer, and the open streams, read exactly
 * whenever asked. `reason` is null while there is room.
 */
export class PressureMonitor {
  private readonly histogram: IntervalHistogram;
  private timer: NodeJS.Timeout | null = null;
  private sampled: PressureReason | null = null;
  /** Consecutive samples whose event-loop delay was past the threshold: one alone (a pause) does not shed load. */
  private slowSamples = 0;
  /** The last sample, for logs and /metrics-like readers. */
  last = { heapUsed: 0, heapLimit: 0, eventLoopDelayMs: 0 };

  constructor(
    private readonly config: PressureConfig,
    private readonly openStreams: () => number,
  ) {
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
  }

  start(): this {
    if (this.timer) return this;
    this.histogram.reset();
    this.histogram.enable();
    this.timer = setInterval(() => this.sample(), this.config.sampleMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.histogram.disable();
  }

  get reason(): PressureReason | null {
    if (this.openStreams() >= this.config.maxOpenStreams) return 'streams';
    return this.sampled;
  }

  private sample(): void {
    const heap = v8.getHeapStatistics();
    // The histogram's samples include its own resolution; what is above it is the delay.
    const delay = Math.max(0, this.histogram.mean / 1e6 - 10);
    this.histogram.reset();
    this.last = { heapUsed: heap.used_heap_size, heapLimit: heap.heap_size_limit, eventLoopDelayMs: Math.round(delay) };
    const { maxHeapRatio, maxEventLoopDelayMs } = this.config;
    this.slowSamples = maxEventLoopDelayMs > 0 && delay > maxEventLoopDelayMs ? this.slowSamples + 1 : 0;
    if (maxHeapRatio > 0 && heap.used_heap_size > maxHeapRatio * heap.heap_size_limit) this.sampled = 'heap';
    else if (this.slowSamples >= 2) this.sampled = 'event_loop';
    else this.sampled = null;
  }
}
