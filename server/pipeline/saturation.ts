// Whether the event loop has been busy nearly all the time lately. kube-apiserver's API Priority
// and Fairness shares seats over many cores and refuses beyond them; here the scarce resource is
// the one event loop, and a loop that is never idle answers everyone late, health probes and
// fresh TLS handshakes included. While it is saturated, the in-flight filter refuses requests that
// would add work (kube's 429 with Retry-After), so clients back off and the loop recovers.
import { type EventLoopUtilization, performance } from 'node:perf_hooks';

/** The share of each interval the loop spent working, above which new work is refused. */
export const DEFAULT_MAX_EVENT_LOOP_UTILIZATION = 0.9;
const SAMPLE_INTERVAL_MS = 100;
/**
 * Saturated means this many intervals in a row over the threshold: soon enough to catch a burst
 * of writes before it stalls the loop for long, yet one long task (a CRD's rules compiling) does
 * not refuse anyone.
 */
const SATURATED_SAMPLES = 3;

export class LoopSaturation {
  private last: EventLoopUtilization = performance.eventLoopUtilization();
  /** Consecutive samples over the threshold. */
  private busySamples = 0;
  private readonly timer: NodeJS.Timeout;

  /** `threshold` 1 or more never reports saturation. */
  constructor(private readonly threshold = DEFAULT_MAX_EVENT_LOOP_UTILIZATION) {
    // A busy loop runs this late: the figure then covers the whole time since the last sample.
    this.timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS).unref();
  }

  private sample(): void {
    const now = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(now, this.last).utilization;
    this.busySamples = utilization >= this.threshold ? this.busySamples + 1 : 0;
    this.last = now;
  }

  saturated(): boolean {
    return this.threshold < 1 && this.busySamples >= SATURATED_SAMPLES;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
