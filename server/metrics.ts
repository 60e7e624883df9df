// /metrics in the Prometheus text format, with kube-apiserver's metric names. Counting is a Map
// increment per request, cheap enough for the hot path.
import { type WatchStats, watchStats } from './endpoints/watch-budget.js';
import type { RequestKind } from './pipeline/max-inflight.js';

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export class Metrics {
  private readonly requests = new Map<string, { verb: string; code: number; count: number }>();
  private readonly inflight: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  private longRunning = 0;

  /** `watches`: the watch figures to show, the process's by default (as kube's legacyregistry). */
  constructor(private readonly watches: WatchStats = watchStats) {}

  /** Long-running requests (watches) are left out of the in-flight gauge, as kube leaves them out of its limits. */
  started(kind: RequestKind, longRunning: boolean): void {
    if (longRunning) this.longRunning++;
    else this.inflight[kind]++;
  }

  finished(kind: RequestKind, longRunning: boolean, verb: string, code: number): void {
    if (longRunning) this.longRunning--;
    else this.inflight[kind]--;
    const key = `${verb} ${code}`;
    const entry = this.requests.get(key);
    if (entry) entry.count++;
    else this.requests.set(key, { verb, code, count: 1 });
  }

  /** `dropped`: requests the in-flight limits refused, per kind (kube's apiserver_dropped_requests_total). */
  render(dropped: Readonly<Record<RequestKind, number>> = { readOnly: 0, mutating: 0 }): string {
    const lines = [
      '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb and HTTP response code.',
      '# TYPE apiserver_request_total counter',
      ...[...this.requests.values()]
        .sort((a, b) => a.verb.localeCompare(b.verb) || a.code - b.code)
        .map((r) => `apiserver_request_total{code="${r.code}",verb="${escapeLabel(r.verb)}"} ${r.count}`),
      '# HELP apiserver_current_inflight_requests [STABLE] Number of requests being served, per request kind (watches excluded).',
      '# TYPE apiserver_current_inflight_requests gauge',
      `apiserver_current_inflight_requests{request_kind="mutating"} ${this.inflight.mutating}`,
      `apiserver_current_inflight_requests{request_kind="readOnly"} ${this.inflight.readOnly}`,
      '# HELP apiserver_longrunning_requests [ALPHA] Number of long-running requests (watches) being served.',
      '# TYPE apiserver_longrunning_requests gauge',
      `apiserver_longrunning_requests{verb="WATCH"} ${this.longRunning}`,
      '# HELP apiserver_dropped_requests_total [ALPHA] Number of requests dropped with \'Try again later\' response',
      '# TYPE apiserver_dropped_requests_total counter',
      `apiserver_dropped_requests_total{request_kind="mutating"} ${dropped.mutating}`,
      `apiserver_dropped_requests_total{request_kind="readOnly"} ${dropped.readOnly}`,
      '# HELP apiserver_terminated_watchers_total [ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.',
      '# TYPE apiserver_terminated_watchers_total counter',
      ...this.watches
        .terminatedWatchers()
        .map((t) => `apiserver_terminated_watchers_total{group="${escapeLabel(t.group)}",resource="${escapeLabel(t.resource)}"} ${t.count}`)
        .sort(),
      '# HELP apiserver_watch_pending_bytes [ALPHA] Bytes of watch events accepted for clients but not yet taken by them (queued and buffered).',
      '# TYPE apiserver_watch_pending_bytes gauge',
      `apiserver_watch_pending_bytes ${this.watches.pendingBytes}`,
      '# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.',
      '# TYPE process_start_time_seconds gauge',
      `process_start_time_seconds ${(performance.timeOrigin / 1000).toFixed(3)}`,
      '# HELP process_resident_memory_bytes Resident memory size in bytes.',
      '# TYPE process_resident_memory_bytes gauge',
      `process_resident_memory_bytes ${process.memoryUsage.rss()}`,
    ];
    return lines.join('\n') + '\n';
  }
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
