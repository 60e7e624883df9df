// /metrics: kube-apiserver's metrics (names, help texts with their stability prefix, labels and
// buckets as kube 1.33 has them, so its dashboards and alerts work) on prom-client, in one
// Registry per server, plus prom-client's process_* and nodejs_* metrics.
//
// Per request: the labels are worked out once when it starts (server/metrics/request-labels.ts),
// a counter and a histogram are bumped when it ends. Gauges of what is going on (long-running
// requests, in-flight watermarks, watches, stored objects) are read when /metrics is scraped.
import type * as PromClient from 'prom-client';
import type { Metric, Registry } from 'prom-client';
import { lazyRequire } from '../apimachinery/lazy-require.js';
import { ApiError } from '../apimachinery/errors.js';
import { consistentReads } from '../storage/cacher.js';
import type { StorageObserver } from '../storage/instrumented.js';
import { type WatchStats, watchStats } from './endpoints/watch/budget.js';
import { KeyedCounter, KeyedHistogram } from './metrics/keyed-series.js';
import { APISERVER_COMPONENT, type RequestLabels, withoutPath } from './metrics/request-labels.js';
import type { RequestKind } from './pipeline/max-inflight.js';
import type { RequestInfo } from './request/request-info.js';

const promClient = lazyRequire<typeof PromClient>('prom-client');

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** kube's requestLatencies buckets (also etcd_request_duration_seconds'): 5 ms to 60 s. */
export const REQUEST_DURATION_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

/**
 * prom-client's default metrics, made once per process: they describe the process, and each
 * collection of them starts its own GC observer and event-loop monitor that are never stopped.
 * Every server's registry registers these same metric objects.
 */
let processMetrics: Metric[] | undefined;
function defaultMetrics(): Metric[] {
  if (!processMetrics) {
    const { Registry, collectDefaultMetrics } = promClient();
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    // The metric objects themselves (the typings say MetricObject, what they describe).
    processMetrics = registry.getMetricsAsArray() as unknown as Metric[];
  }
  return processMetrics;
}

/** What the front door knows of a request as it starts. */
export interface RequestStart {
  /** server/metrics/request-labels.ts's, made once for every request of the same line when they follow from it alone. */
  labels: RequestLabels;
  info: RequestInfo | ApiError;
  kind: RequestKind;
  longRunning: boolean;
  /**
   * The user's name once authenticated, asked when the request ends (and, while a long-running
   * one lasts, at each scrape): see trustedLabels.
   */
  user: () => string | undefined;
}

/** A request being served, as /metrics follows it. */
export interface TrackedRequest {
  readonly kind: RequestKind;
  readonly longRunning: boolean;
  readonly labels: RequestLabels;
  readonly resourceRequest: boolean;
  readonly user: () => string | undefined;
  /** performance.now() at the start. */
  readonly start: number;
}

/** The count of stored objects of a resource ("pods", "deployments.apps"), for apiserver_storage_objects. */
interface StoredObjectCount {
  resource: string;
  count: number;
}

interface MetricsOptions {
  /** The watch figures to show; the process's by default (as kube's legacyregistry). */
  watches?: WatchStats;
  /** How many objects each resource has now (counted in storage at each scrape); none shown without it. */
  storageObjects?: () => Promise<Iterable<StoredObjectCount>> | Iterable<StoredObjectCount>;
}

type Dropped = Readonly<Record<RequestKind, number>>;

const KINDS: readonly RequestKind[] = ['mutating', 'readOnly'];

export class Metrics {
  /** This server's registry (several servers in one process count apart), made at the first scrape. */
  private made: Registry | undefined;
  /** Times storage calls (etcd_request_duration_seconds): hand it to storage/instrumented.ts. */
  readonly storage: StorageObserver;

  private readonly requestTotal: KeyedCounter;
  private readonly requestDuration: KeyedHistogram;
  private readonly etcdDuration: KeyedHistogram;
  private readonly etcdTotal: KeyedCounter;
  private readonly etcdErrors: KeyedCounter;
  private readonly watches: WatchStats;
  private storageObjects: MetricsOptions['storageObjects'];
  private readonly longRunning = new Set<TrackedRequest>();
  /** Series of apiserver_longrunning_requests seen, kept at 0 once their requests are gone, as kube's gauge. */
  private readonly longRunningSeries = new Map<string, Record<string, string>>();
  /** Requests in flight per kind, and the most since the last scrape (kube reports a watermark). */
  private readonly inflight: Record<RequestKind, { current: number; max: number }> = {
    readOnly: { current: 0, max: 0 },
    mutating: { current: 0, max: 0 },
  };
  private dropped: Dropped = { readOnly: 0, mutating: 0 };
  /** Each label set's series key (its values in one order), made once per label set: the front door shares a GET's labels. */
  private readonly seriesKeys = new WeakMap<RequestLabels, string>();

  constructor(opts: MetricsOptions = {}) {
    this.watches = opts.watches ?? watchStats;
    this.storageObjects = opts.storageObjects;
    this.requestTotal = new KeyedCounter(
      'apiserver_request_total',
      '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    );
    this.requestDuration = new KeyedHistogram(
      'apiserver_request_duration_seconds',
      '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      REQUEST_DURATION_BUCKETS,
    );
    this.etcdDuration = new KeyedHistogram(
      'etcd_request_duration_seconds',
      '[ALPHA] Etcd request latency in seconds for each operation and object type.',
      REQUEST_DURATION_BUCKETS,
    );
    this.etcdTotal = new KeyedCounter(
      'etcd_requests_total',
      '[ALPHA] Etcd request counts for each operation and object type.',
    );
    this.etcdErrors = new KeyedCounter(
      'etcd_request_errors_total',
      '[ALPHA] Etcd failed request counts for each operation and object type.',
    );
    this.storage = {
      observe: (operation, type, seconds, failed) => {
        const key = `${operation}\0${type}`;
        const labels = () => ({ operation, type });
        this.etcdDuration.observe(key, labels, seconds);
        this.etcdTotal.inc(key, labels);
        if (failed) this.etcdErrors.inc(key, labels);
      },
    };
  }

  /**
   * The registry /metrics renders, made at the first scrape: prom-client (and what it loads) costs
   * a start tens of milliseconds, and a run may never be scraped. The counters and histograms above
   * count from the start; the gauges are read at each scrape; prom-client's process and Node.js
   * metrics start with the registry, so the GC and event-loop histories begin at the first scrape.
   * The testing API makes it at start, to register its fault counters in it.
   */
  registry(): Registry {
    if (this.made) return this.made;
    const { Counter, Gauge, Registry } = promClient();
    const registry = (this.made = new Registry());
    const registers = [registry];
    // Labels are declared in alphabetical order: prom-client writes them in declared order, Go's
    // client sorts them, and so the text matches kube's line for line.
    registry.registerMetric(this.requestTotal.metric);
    registry.registerMetric(this.requestDuration.metric);
    const longRunning = this.longRunning;
    const longRunningSeries = this.longRunningSeries;
    new Gauge({
      name: 'apiserver_longrunning_requests',
      help: '[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: ['component', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'],
      registers,
      collect() {
        const counts = new Map<string, number>();
        for (const r of longRunning) {
          const l = trustedLabels(r, undefined);
          const labels = {
            component: APISERVER_COMPONENT,
            group: l.group,
            resource: l.resource,
            scope: l.scope,
            subresource: l.subresource,
            verb: l.verb,
            version: l.version,
          };
          const key = JSON.stringify(labels);
          if (!longRunningSeries.has(key)) longRunningSeries.set(key, labels);
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        for (const [key, labels] of longRunningSeries) this.set(labels, counts.get(key) ?? 0);
      },
    });
    const inflight = this.inflight;
    new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: '[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers,
      collect() {
        for (const kind of KINDS) {
          this.set({ request_kind: kind }, inflight[kind].max);
          inflight[kind].max = inflight[kind].current;
        }
      },
    });
    const dropped = (): Dropped => this.dropped;
    new Counter({
      name: 'apiserver_dropped_requests_total',
      help: "[ALPHA] (Deprecated since 1.24.0) Number of requests dropped with 'Try again later' response. Use apiserver_request_total and/or apiserver_request_terminations_total metrics instead.",
      labelNames: ['request_kind'],
      registers,
      collect() {
        this.reset();
        for (const kind of KINDS) this.inc({ request_kind: kind }, dropped()[kind]);
      },
    });
    const watches = this.watches;
    new Gauge({
      name: 'apiserver_registered_watchers',
      help: '[ALPHA] (Deprecated since 1.23.0) Number of currently registered watchers for a given resources',
      labelNames: ['group', 'kind', 'version'],
      registers,
      collect() {
        for (const w of watches.registeredWatchers())
          this.set({ group: w.group, kind: w.kind, version: w.version }, w.count);
      },
    });
    new Counter({
      name: 'apiserver_watch_events_total',
      help: '[ALPHA] Number of events sent in watch clients',
      labelNames: ['group', 'kind', 'version'],
      registers,
      collect() {
        this.reset();
        for (const w of watches.watchEvents()) this.inc({ group: w.group, kind: w.kind, version: w.version }, w.count);
      },
    });
    new Counter({
      name: 'apiserver_terminated_watchers_total',
      help: '[ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.',
      labelNames: ['group', 'resource'],
      registers,
      collect() {
        this.reset();
        for (const t of watches.terminatedWatchers()) this.inc({ group: t.group, resource: t.resource }, t.count);
      },
    });
    new Gauge({
      name: 'apiserver_watch_pending_bytes',
      help: '[ALPHA] Bytes of watch events accepted for clients but not yet taken by them (queued and buffered).',
      registers,
      collect() {
        this.set(watches.pendingBytes);
      },
    });
    new Counter({
      name: 'apiserver_watch_cache_consistent_read_total',
      help: '[ALPHA] Counter for consistent reads from cache.',
      labelNames: ['fallback', 'resource', 'success'],
      registers,
      collect() {
        this.reset();
        for (const r of consistentReads.values())
          this.inc({ fallback: String(r.fallback), resource: r.resource, success: String(r.success) }, r.count);
      },
    });
    const objects = async (): Promise<Iterable<StoredObjectCount>> => (await this.storageObjects?.()) ?? [];
    new Gauge({
      name: 'apiserver_storage_objects',
      help: '[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['resource'],
      registers,
      // Every served resource, custom resources included; a resource no longer served drops out (kube's DeleteStoreStats).
      async collect() {
        const counts = await objects();
        this.reset();
        for (const o of counts) this.set({ resource: o.resource }, o.count);
      },
    });
    registry.registerMetric(this.etcdDuration.metric);
    registry.registerMetric(this.etcdTotal.metric);
    registry.registerMetric(this.etcdErrors.metric);
    for (const m of defaultMetrics()) registry.registerMetric(m);
    return registry;
  }

  /** Where apiserver_storage_objects' counts come from, if not given at construction. */
  countStorageObjects(source: NonNullable<MetricsOptions['storageObjects']>): void {
    this.storageObjects = source;
  }

  /** A request has arrived; `finished` is to be called with it once its response has closed. */
  started(r: RequestStart): TrackedRequest {
    const t: TrackedRequest = {
      kind: r.kind,
      longRunning: r.longRunning,
      labels: r.labels,
      resourceRequest: !(r.info instanceof ApiError) && r.info.isResourceRequest,
      user: r.user,
      start: performance.now(),
    };
    if (r.longRunning) {
      this.longRunning.add(t);
    } else {
      const f = this.inflight[r.kind];
      if (++f.current > f.max) f.max = f.current;
    }
    return t;
  }

  /**
   * The request's response has closed with `code`; `answered` false when it closed before its
   * headers went out (the client left): the code is then node's default, which says nothing of
   * what the path names.
   */
  finished(t: TrackedRequest, code: number, answered = true): void {
    if (t.longRunning) this.longRunning.delete(t);
    else this.inflight[t.kind].current--;
    const l = trustedLabels(t, answered ? code : undefined);
    let key = this.seriesKeys.get(l);
    if (key === undefined) {
      key = `${l.verb}\0${l.dryRun}\0${l.group}\0${l.version}\0${l.resource}\0${l.subresource}\0${l.scope}`;
      this.seriesKeys.set(l, key);
    }
    // Label order is output order: sorted, as Go writes them.
    const labels = () => ({
      component: APISERVER_COMPONENT,
      dry_run: l.dryRun,
      group: l.group,
      resource: l.resource,
      scope: l.scope,
      subresource: l.subresource,
      verb: l.verb,
      version: l.version,
    });
    this.requestTotal.inc(`${code}\0${key}`, () => ({ code: String(code), ...labels() }));
    this.requestDuration.observe(key, labels, (performance.now() - t.start) / 1000);
  }

  /**
   * The Prometheus text. `dropped`: requests the in-flight limits refused, per kind (kube's
   * apiserver_dropped_requests_total), which the limiter counts.
   */
  async render(dropped?: Dropped): Promise<string> {
    if (dropped) this.dropped = dropped;
    return this.registry().metrics();
  }
}

const ANONYMOUS = 'system:anonymous';

/**
 * The labels a request is counted under. A path's group, version, resource and subresource are
 * the client's words until something was served there: kept for an answer below 400 (only what
 * is served answers so); past that, kept for a resource request of an authenticated user, dropped
 * for the anonymous (whose made-up paths would each add series) and for non-resource paths. kube
 * counts none of these refusals (they are answered by filters before its instrumented handlers).
 * `code` is undefined for a long-running request still going, or one whose client left unanswered.
 */
function trustedLabels(t: TrackedRequest, code: number | undefined): RequestLabels {
  if (code !== undefined && code < 400) return t.labels;
  const user = t.user();
  if (t.resourceRequest && user !== undefined && user !== ANONYMOUS) return t.labels;
  return withoutPath(t.labels);
}
