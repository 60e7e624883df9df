// The Metrics of one server: kube-apiserver's families with their help texts, labels and buckets,
// what each request adds, the gauges read at scrape time, and one registry per server.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../apimachinery/errors.js';
import { WatchStats, watchKindOf } from '../../../server/endpoints/watch/budget.js';
import { METRICS_CONTENT_TYPE, Metrics, REQUEST_DURATION_BUCKETS, type RequestStart } from '../../../server/metrics.js';
import { requestLabels } from '../../../server/metrics/request-labels.js';
import { requestKind } from '../../../server/pipeline/max-inflight.js';
import { parseRequestInfo } from '../../../server/request/request-info.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of the Prometheus text format (label values here have no escapes). */
function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)) labels[k!] = v!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample named `name` whose labels include `labels`; undefined if none. */
function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

function request(method: string, url: string, opts: { user?: string; contentType?: string } = {}): RequestStart {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  let info;
  try {
    info = parseRequestInfo(method, path, query);
  } catch (err) {
    info = err as ApiError;
  }
  const verb = info instanceof ApiError ? method.toLowerCase() : info.verb;
  const longRunning = !(info instanceof ApiError) && (verb === 'watch' || verb === 'proxy');
  const user = 'user' in opts ? opts.user : 'admin';
  const labels = requestLabels({ method, query, contentType: opts.contentType, info });
  return { labels, info, kind: requestKind(verb), longRunning, user: () => user };
}

/** One request served start to end with `code`. */
function serve(
  m: Metrics,
  method: string,
  url: string,
  code: number,
  opts: { user?: string; contentType?: string } = {},
): void {
  m.finished(m.started(request(method, url, opts)), code);
}

const ALL = { component: 'apiserver', dry_run: '', group: '', version: '', resource: '', subresource: '', scope: '' };

describe('the families, as kube 1.33 declares them', () => {
  it.each<[string, string, string]>([
    [
      'apiserver_request_total',
      'counter',
      '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    ],
    [
      'apiserver_request_duration_seconds',
      'histogram',
      '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    ],
    [
      'apiserver_longrunning_requests',
      'gauge',
      '[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
    ],
    [
      'apiserver_current_inflight_requests',
      'gauge',
      '[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
    ],
    [
      'apiserver_dropped_requests_total',
      'counter',
      "[ALPHA] (Deprecated since 1.24.0) Number of requests dropped with 'Try again later' response. Use apiserver_request_total and/or apiserver_request_terminations_total metrics instead.",
    ],
    [
      'apiserver_registered_watchers',
      'gauge',
      '[ALPHA] (Deprecated since 1.23.0) Number of currently registered watchers for a given resources',
    ],
    ['apiserver_watch_events_total', 'counter', '[ALPHA] Number of events sent in watch clients'],
    [
      'apiserver_terminated_watchers_total',
      'counter',
      '[ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.',
    ],
    [
      'apiserver_storage_objects',
      'gauge',
      '[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
    ],
    [
      'etcd_request_duration_seconds',
      'histogram',
      '[ALPHA] Etcd request latency in seconds for each operation and object type.',
    ],
    ['etcd_requests_total', 'counter', '[ALPHA] Etcd request counts for each operation and object type.'],
    ['etcd_request_errors_total', 'counter', '[ALPHA] Etcd failed request counts for each operation and object type.'],
  ])('%s (%s)', async (name, type, help) => {
    const text = await new Metrics().render();
    expect(text).toContain(`# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`);
  });

  it("has prom-client's process and Node.js metrics in every server's registry", async () => {
    const [a, b] = [new Metrics(), new Metrics()];
    for (const text of [await a.render(), await b.render()]) {
      for (const name of [
        'process_cpu_seconds_total',
        'process_start_time_seconds',
        'process_resident_memory_bytes',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_seconds',
      ]) {
        expect(text).toContain(`# TYPE ${name} `);
      }
      expect(value(text, 'process_start_time_seconds')).toBeGreaterThan(1.6e9);
    }
    expect(Registry.PROMETHEUS_CONTENT_TYPE).toBe(METRICS_CONTENT_TYPE);
  });

  it("times requests and storage calls in kube's buckets, 5 ms to 60 s", async () => {
    const m = new Metrics();
    serve(m, 'GET', '/api/v1/namespaces/ns/pods/p', 200);
    m.storage.observe('get', 'pods', 0.3, false);
    const text = await m.render();
    const les = (name: string): number[] =>
      samples(text)
        .filter((s) => s.name === name && s.labels['le'] !== '+Inf')
        .map((s) => Number(s.labels['le']));
    expect(les('apiserver_request_duration_seconds_bucket')).toEqual(REQUEST_DURATION_BUCKETS);
    expect(les('etcd_request_duration_seconds_bucket')).toEqual(REQUEST_DURATION_BUCKETS);
    expect(REQUEST_DURATION_BUCKETS).toEqual([
      0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
    ]);
    expect(value(text, 'etcd_request_duration_seconds_bucket', { le: '0.2' })).toBe(0);
    expect(value(text, 'etcd_request_duration_seconds_bucket', { le: '0.4' })).toBe(1);
  });
});

describe('requests', () => {
  it("counts each request under kube's labels, and times it", async () => {
    const m = new Metrics();
    serve(m, 'GET', '/api/v1/namespaces/ns/pods/p', 200);
    serve(m, 'GET', '/api/v1/namespaces/ns/pods/p', 200);
    serve(m, 'GET', '/api/v1/namespaces/ns/pods/q', 404);
    serve(m, 'GET', '/api/v1/namespaces/ns/pods', 200);
    serve(m, 'POST', '/apis/apps/v1/namespaces/ns/deployments?dryRun=All', 201);
    serve(m, 'PATCH', '/apis/apps/v1/namespaces/ns/deployments/d', 200, {
      contentType: 'application/apply-patch+yaml',
    });
    serve(m, 'PUT', '/apis/apps/v1/namespaces/ns/deployments/d/scale', 409);
    serve(m, 'DELETE', '/api/v1/namespaces/ns/configmaps', 200);
    serve(m, 'GET', '/readyz', 200, { user: 'system:anonymous' });
    const text = await m.render();
    const pods = { ...ALL, version: 'v1', resource: 'pods' };
    const deployments = { ...ALL, group: 'apps', version: 'v1', resource: 'deployments', scope: 'resource' };
    expect(value(text, 'apiserver_request_total', { ...pods, verb: 'GET', scope: 'resource', code: '200' })).toBe(2);
    expect(value(text, 'apiserver_request_total', { ...pods, verb: 'GET', scope: 'resource', code: '404' })).toBe(1);
    expect(value(text, 'apiserver_request_total', { ...pods, verb: 'LIST', scope: 'namespace', code: '200' })).toBe(1);
    expect(value(text, 'apiserver_request_total', { ...deployments, verb: 'POST', dry_run: 'All', code: '201' })).toBe(
      1,
    );
    expect(value(text, 'apiserver_request_total', { ...deployments, verb: 'APPLY', code: '200' })).toBe(1);
    expect(
      value(text, 'apiserver_request_total', { ...deployments, verb: 'PUT', subresource: 'scale', code: '409' }),
    ).toBe(1);
    expect(
      value(text, 'apiserver_request_total', {
        ...ALL,
        version: 'v1',
        resource: 'configmaps',
        verb: 'DELETE',
        scope: 'namespace',
        code: '200',
      }),
    ).toBe(1);
    expect(value(text, 'apiserver_request_total', { ...ALL, subresource: '/readyz', verb: 'GET', code: '200' })).toBe(
      1,
    );
    expect(value(text, 'apiserver_request_duration_seconds_count', { ...pods, verb: 'GET', scope: 'resource' })).toBe(
      3,
    );
    expect(
      value(text, 'apiserver_request_duration_seconds_bucket', { ...pods, verb: 'GET', scope: 'resource', le: '+Inf' }),
    ).toBe(3);
    expect(
      value(text, 'apiserver_request_duration_seconds_count', { ...deployments, verb: 'POST', dry_run: 'All' }),
    ).toBe(1);
    // every label of kube's, no other
    for (const s of samples(text).filter((x) => x.name === 'apiserver_request_total')) {
      expect(Object.keys(s.labels).sort()).toEqual([
        'code',
        'component',
        'dry_run',
        'group',
        'resource',
        'scope',
        'subresource',
        'verb',
        'version',
      ]);
    }
  });

  it("writes labels in Go's order (sorted), so the lines read as kube's", async () => {
    const m = new Metrics();
    serve(m, 'GET', '/api/v1/namespaces/ns/pods/p/log', 200);
    expect(await m.render()).toContain(
      'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="log",verb="CONNECT",version="v1"} 1\n',
    );
  });

  it.each<[string, string, string, number, string | undefined, Record<string, string>]>([
    // what the client named stays out of the labels where nothing was served there
    [
      'unauthenticated',
      'GET',
      '/api/v1/namespaces/ns/made-up-1',
      401,
      undefined,
      { ...ALL, verb: 'LIST', scope: 'namespace', code: '401' },
    ],
    [
      'anonymous, refused',
      'GET',
      '/apis/made.up/v1/things',
      403,
      'system:anonymous',
      { ...ALL, verb: 'LIST', scope: 'cluster', code: '403' },
    ],
    ['a non-resource path refused', 'GET', '/made/up/path', 403, 'alice', { ...ALL, verb: 'GET', code: '403' }],
    ['a non-resource path not found', 'GET', '/made/up/path', 404, 'alice', { ...ALL, verb: 'GET', code: '404' }],
    ['a path that does not parse', 'GET', '/api/v1/watch', 500, 'alice', { ...ALL, verb: 'GET', code: '500' }],
    // and stays in them where something was
    [
      'anonymous, served',
      'GET',
      '/healthz',
      200,
      'system:anonymous',
      { ...ALL, verb: 'GET', subresource: '/healthz', code: '200' },
    ],
    [
      'authenticated, refused',
      'GET',
      '/api/v1/secrets',
      403,
      'alice',
      { ...ALL, version: 'v1', resource: 'secrets', verb: 'LIST', scope: 'cluster', code: '403' },
    ],
    [
      'authenticated, conflict',
      'PUT',
      '/api/v1/namespaces/ns/pods/p',
      409,
      'alice',
      { ...ALL, version: 'v1', resource: 'pods', verb: 'PUT', scope: 'resource', code: '409' },
    ],
  ])('%s: %s %s %d', async (_what, method, url, code, user, labels) => {
    const m = new Metrics();
    serve(m, method, url, code, { user });
    const text = await m.render();
    expect(value(text, 'apiserver_request_total', labels)).toBe(1);
    expect(samples(text).filter((s) => s.name === 'apiserver_request_total')).toHaveLength(1);
  });

  it('counts a request whose client left before an answer without what its path named, unless authenticated', async () => {
    const m = new Metrics();
    m.finished(m.started(request('GET', '/api/v1/made-up', { user: undefined })), 200, false);
    m.finished(m.started(request('GET', '/api/v1/pods', { user: 'alice' })), 200, false);
    const text = await m.render();
    expect(value(text, 'apiserver_request_total', { ...ALL, verb: 'LIST', scope: 'cluster', code: '200' })).toBe(1);
    expect(
      value(text, 'apiserver_request_total', {
        ...ALL,
        version: 'v1',
        resource: 'pods',
        verb: 'LIST',
        scope: 'cluster',
        code: '200',
      }),
    ).toBe(1);
  });

  it('keeps a watermark of in-flight requests per kind between scrapes, watches apart', async () => {
    const m = new Metrics();
    const gets = [m.started(request('GET', '/api/v1/pods')), m.started(request('GET', '/api/v1/pods'))];
    const post = m.started(request('POST', '/api/v1/namespaces'));
    const watch = m.started(request('GET', '/api/v1/pods?watch=true'));
    for (const g of gets) m.finished(g, 200);
    let text = await m.render();
    expect(value(text, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' })).toBe(2);
    expect(value(text, 'apiserver_current_inflight_requests', { request_kind: 'mutating' })).toBe(1);
    text = await m.render();
    expect(value(text, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' })).toBe(0);
    expect(value(text, 'apiserver_current_inflight_requests', { request_kind: 'mutating' })).toBe(1);
    m.finished(post, 201);
    m.finished(watch, 200);
    await m.render();
    text = await m.render();
    expect(value(text, 'apiserver_current_inflight_requests', { request_kind: 'mutating' })).toBe(0);
  });

  it('shows long-running requests while they last, under their labels', async () => {
    const m = new Metrics();
    const watches = [
      m.started(request('GET', '/api/v1/namespaces/ns/pods?watch=1')),
      m.started(request('GET', '/api/v1/watch/namespaces/ns/pods')),
    ];
    const labels = {
      component: 'apiserver',
      group: '',
      version: 'v1',
      resource: 'pods',
      subresource: '',
      scope: 'namespace',
      verb: 'WATCH',
    };
    let text = await m.render();
    expect(value(text, 'apiserver_longrunning_requests', labels)).toBe(2);
    for (const s of samples(text).filter((x) => x.name === 'apiserver_longrunning_requests')) {
      expect(Object.keys(s.labels).sort()).toEqual([
        'component',
        'group',
        'resource',
        'scope',
        'subresource',
        'verb',
        'version',
      ]);
    }
    for (const w of watches) m.finished(w, 200);
    text = await m.render();
    expect(value(text, 'apiserver_longrunning_requests', labels)).toBe(0);
    expect(
      value(text, 'apiserver_request_total', {
        ...ALL,
        version: 'v1',
        resource: 'pods',
        scope: 'namespace',
        verb: 'WATCH',
        code: '200',
      }),
    ).toBe(2);
  });

  it('decides what a long-running request is labelled with as it goes: its user is known once authenticated', async () => {
    const m = new Metrics();
    let user: string | undefined;
    const w = m.started({ ...request('GET', '/api/v1/pods?watch=1'), user: () => user });
    expect(value(await m.render(), 'apiserver_longrunning_requests', { resource: '' })).toBe(1);
    user = 'alice';
    const text = await m.render();
    expect(value(text, 'apiserver_longrunning_requests', { resource: 'pods' })).toBe(1);
    expect(value(text, 'apiserver_longrunning_requests', { resource: '' })).toBe(0);
    m.finished(w, 200);
  });

  it('counts each server apart', async () => {
    const [a, b] = [new Metrics(), new Metrics()];
    serve(a, 'GET', '/api/v1/pods', 200);
    serve(a, 'GET', '/api/v1/pods', 200);
    serve(b, 'GET', '/api/v1/pods', 200);
    const labels = { resource: 'pods', verb: 'LIST', code: '200' };
    expect(value(await a.render(), 'apiserver_request_total', labels)).toBe(2);
    expect(value(await b.render(), 'apiserver_request_total', labels)).toBe(1);
  });
});

describe('figures read when scraped', () => {
  it('shows the requests the in-flight limits dropped, per kind', async () => {
    const m = new Metrics();
    let text = await m.render();
    expect(value(text, 'apiserver_dropped_requests_total', { request_kind: 'readOnly' })).toBe(0);
    text = await m.render({ readOnly: 3, mutating: 1 });
    expect(value(text, 'apiserver_dropped_requests_total', { request_kind: 'readOnly' })).toBe(3);
    expect(value(text, 'apiserver_dropped_requests_total', { request_kind: 'mutating' })).toBe(1);
  });

  it('shows watchers and the events sent them by group, version and kind', async () => {
    const stats = new WatchStats();
    const m = new Metrics({ watches: stats });
    const deployments = watchKindOf({ apiVersion: 'apps/v1', kind: 'Deployment' });
    expect(deployments).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(watchKindOf({ apiVersion: 'v1', kind: 'Pod' })).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    const ends = [
      stats.watcherRegistered(deployments),
      stats.watcherRegistered(deployments),
      stats.watcherRegistered(watchKindOf({ apiVersion: 'v1', kind: 'Pod' })),
    ];
    const sent = stats.watchEventCounter(deployments);
    sent();
    sent();
    sent();
    let text = await m.render();
    expect(value(text, 'apiserver_registered_watchers', { group: 'apps', version: 'v1', kind: 'Deployment' })).toBe(2);
    expect(value(text, 'apiserver_registered_watchers', { group: '', version: 'v1', kind: 'Pod' })).toBe(1);
    expect(value(text, 'apiserver_watch_events_total', { group: 'apps', version: 'v1', kind: 'Deployment' })).toBe(3);
    ends[0]!();
    ends[0]!(); // once only
    ends[2]!();
    text = await m.render();
    expect(value(text, 'apiserver_registered_watchers', { group: 'apps', version: 'v1', kind: 'Deployment' })).toBe(1);
    expect(value(text, 'apiserver_registered_watchers', { group: '', version: 'v1', kind: 'Pod' })).toBe(0);
    expect(value(text, 'apiserver_watch_events_total', { group: 'apps', version: 'v1', kind: 'Deployment' })).toBe(3);
  });

  it('shows the stored objects per resource, from the source given', async () => {
    const counts = new Map([
      ['pods', 3],
      ['deployments.apps', 1],
    ]);
    const m = new Metrics({ storageObjects: () => [...counts].map(([resource, count]) => ({ resource, count })) });
    let text = await m.render();
    expect(value(text, 'apiserver_storage_objects', { resource: 'pods' })).toBe(3);
    expect(value(text, 'apiserver_storage_objects', { resource: 'deployments.apps' })).toBe(1);
    counts.delete('pods');
    counts.set('leases.coordination.k8s.io', 0);
    text = await m.render();
    expect(value(text, 'apiserver_storage_objects', { resource: 'pods' })).toBeUndefined();
    expect(value(text, 'apiserver_storage_objects', { resource: 'leases.coordination.k8s.io' })).toBe(0);

    const late = new Metrics();
    expect(samples(await late.render()).some((s) => s.name === 'apiserver_storage_objects')).toBe(false);
    late.countStorageObjects(() => [{ resource: 'secrets', count: 7 }]);
    expect(value(await late.render(), 'apiserver_storage_objects', { resource: 'secrets' })).toBe(7);
  });

  it('counts storage calls by operation and type, and the failed ones apart', async () => {
    const m = new Metrics();
    m.storage.observe('get', 'pods', 0.001, false);
    m.storage.observe('get', 'pods', 0.002, true);
    m.storage.observe('list', 'deployments.apps', 0.05, false);
    const text = await m.render();
    expect(value(text, 'etcd_requests_total', { operation: 'get', type: 'pods' })).toBe(2);
    expect(value(text, 'etcd_request_errors_total', { operation: 'get', type: 'pods' })).toBe(1);
    expect(value(text, 'etcd_request_errors_total', { operation: 'list', type: 'deployments.apps' })).toBeUndefined();
    expect(value(text, 'etcd_request_duration_seconds_count', { operation: 'list', type: 'deployments.apps' })).toBe(1);
    expect(value(text, 'etcd_request_duration_seconds_sum', { operation: 'get', type: 'pods' })).toBeCloseTo(0.003, 6);
  });
});
