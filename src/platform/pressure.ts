import { constants, monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram, type PerformanceEntry } from 'node:perf_hooks';
import v8 from 'node:v8';
import type { PressureConfig } from '../config.js';

export type PressureReason = 'heap' | 'event_loop';

/**
 * How near a process is to its limits (CONTRACT §11's last rule): the live heap against the heap
 * limit (v8.getHeapStatistics(), so `--max-old-space-size` is taken into account) and the mean
 * event-loop delay (past its threshold in two samples running, so one pause does not shed load),
 * both sampled every PRESSURE_SAMPLE_MS on one timer. `reason` is null while there is room.
 *
 * The heap is judged on what the last full collection kept (or the heap used now, when less): the
 * heap used between collections is mostly garbage a collection frees, and judging it made a process
 * whose live heap was half its limit refuse every request (issue 44). Open streams are not a reason:
 * past STREAMS_MAX_OPEN only new streams are refused (services/events/streams.ts), never requests.
 */
export class PressureMonitor {
  private readonly histogram: IntervalHistogram;
  private readonly collections: PerformanceObserver;
  private timer: NodeJS.Timeout | null = null;
  private sampled: PressureReason | null = null;
  /** Heap used right after the last full (mark-compact) collection: what is live. */
  private liveAfterGc = Infinity;
  /** Consecutive samples whose event-loop delay was past the threshold: one alone (a pause) does not shed load. */
  private slowSamples = 0;
  /** The last sample, for logs and /metrics-like readers. */
  last = { heapUsed: 0, heapLive: 0, heapLimit: 0, eventLoopDelayMs: 0 };

  constructor(private readonly config: PressureConfig) {
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.collections = new PerformanceObserver((list) => {
      const full = list
        .getEntries()
        .some((e) => (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
      if (full) this.liveAfterGc = v8.getHeapStatistics().used_heap_size;
    });
  }

  start(): this {
    if (this.timer) return this;
    this.histogram.reset();
    this.histogram.enable();
    this.collections.observe({ entryTypes: ['gc'] });
    this.timer = setInterval(() => this.sample(), this.config.sampleMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.histogram.disable();
    this.collections.disconnect();
  }

  get reason(): PressureReason | null {
    return this.sampled;
  }

  private sample(): void {
    const heap = v8.getHeapStatistics();
    // The histogram's samples include its own resolution; what is above it is the delay.
    const delay = Math.max(0, this.histogram.mean / 1e6 - 10);
    this.histogram.reset();
    // live is at most what is used now (memory freed since the last full collection is not live)
    const live = Math.min(this.liveAfterGc, heap.used_heap_size);
    this.last = { heapUsed: heap.used_heap_size, heapLive: live, heapLimit: heap.heap_size_limit, eventLoopDelayMs: Math.round(delay) };
    const { maxHeapRatio, maxEventLoopDelayMs } = this.config;
    this.slowSamples = maxEventLoopDelayMs > 0 && delay > maxEventLoopDelayMs ? this.slowSamples + 1 : 0;
    if (maxHeapRatio > 0 && live > maxHeapRatio * heap.heap_size_limit) this.sampled = 'heap';
    else if (this.slowSamples >= 2) this.sampled = 'event_loop';
    else this.sampled = null;
  }
}
