// Events in both of kube's versions over one storage: core/v1 (involvedObject, message, count) and
// events.k8s.io/v1 (regarding, note, deprecatedCount). What is written in one reads in the other,
// list and watch included; field selectors use each version's names; events.k8s.io writes are
// validated strictly (eventTime, reportingController...) at core's field paths, as kube does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle } from '../../../server/index.js';
import { type ApiResponse, type CallOptions, apiClient } from '../../helpers/api-client.js';
import { openWatch } from '../../helpers/watch-stream.js';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

const CORE = '/api/v1/namespaces/default/events';
const V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
const AGG_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

let server: ServerHandle;
let call: (method: string, path: string, o?: CallOptions) => Promise<ApiResponse & { json: Obj }>;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server) as typeof call;
});
afterAll(async () => {
  await server?.close();
});

const regarding = { kind: 'Cache', namespace: 'default', name: 'web', uid: 'u-1', apiVersion: 'cache.example.com/v1' };

/** An event as client-go's events.k8s.io recorder writes one. */
const newStyle = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name, namespace: 'default' },
  eventTime: '2026-11-24T10:00:00.123456Z',
  reportingController: 'example.com/cache-controller',
  reportingInstance: 'cache-controller-abc',
  action: 'Reconcile',
  reason: 'Synced',
  type: 'Normal',
  regarding,
  note: 'cache synced',
  ...extra,
});

describe('events.k8s.io/v1 over the core events storage', () => {
  it('a core/v1 event reads as events.k8s.io/v1 with its fields renamed', async () => {
    const created = await call('POST', CORE, {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'old.1' },
        involvedObject: regarding,
        reason: 'Started',
        message: 'started',
        source: { component: 'kubelet' },
        firstTimestamp: '2026-11-24T10:00:00Z',
        lastTimestamp: '2026-11-24T10:00:05Z',
        count: 3,
        type: 'Normal',
      },
    });
    expect(created.status, created.text).toBe(201);
    const r = await call('GET', `${V1}/old.1`);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      regarding,
      note: 'started',
      reason: 'Started',
      deprecatedSource: { component: 'kubelet' },
      deprecatedFirstTimestamp: '2026-11-24T10:00:00Z',
      deprecatedLastTimestamp: '2026-11-24T10:00:05Z',
      deprecatedCount: 3,
      type: 'Normal',
    });
    for (const coreName of ['involvedObject', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count'])
      expect(r.json).not.toHaveProperty(coreName);
    expect(r.json.metadata['resourceVersion']).toBe(created.json.metadata['resourceVersion']);
  });

  it('an events.k8s.io/v1 event reads as core/v1, and lists in both', async () => {
    const created = await call('POST', V1, { body: newStyle('new.1') });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      regarding,
      note: 'cache synced',
      reportingController: 'example.com/cache-controller',
    });
    const core = await call('GET', `${CORE}/new.1`);
    expect(core.json).toMatchObject({
      apiVersion: 'v1',
      involvedObject: regarding,
      message: 'cache synced',
      reportingComponent: 'example.com/cache-controller',
      reportingInstance: 'cache-controller-abc',
      eventTime: '2026-11-24T10:00:00.123456Z',
      action: 'Reconcile',
    });
    const listed = await call('GET', V1);
    const items = listed.json['items'] as Obj[];
    expect(listed.json['apiVersion']).toBe('events.k8s.io/v1');
    expect(items.map((i) => i.metadata['name']).sort()).toEqual(['new.1', 'old.1']);
    expect(items.every((i) => 'regarding' in i && !('involvedObject' in i))).toBe(true);
  });

  it("field selectors take each version's names, converted to the stored fields", async () => {
    const byRegarding = await call(
      'GET',
      `${V1}?fieldSelector=${encodeURIComponent('regarding.name=web,reportingController=example.com/cache-controller')}`,
    );
    expect(byRegarding.status, byRegarding.text).toBe(200);
    expect((byRegarding.json['items'] as Obj[]).map((i) => i.metadata['name'])).toEqual(['new.1']);
    const coreNames = await call('GET', `${V1}?fieldSelector=involvedObject.name%3Dweb`);
    expect(coreNames.status).toBe(400);
    expect(coreNames.json['message']).toBe('field label not supported: involvedObject.name');
    const core = await call('GET', `${CORE}?fieldSelector=involvedObject.name%3Dweb`);
    expect((core.json['items'] as Obj[]).length).toBe(2);
  });

  it('a watch on events.k8s.io/v1 sees a core write in its own version', async () => {
    const list = await call('GET', V1);
    const rv = (list.json['metadata'] as { resourceVersion: string }).resourceVersion;
    const watch = await openWatch(server, `${V1}?watch=true&resourceVersion=${rv}`);
    try {
      const created = await call('POST', CORE, {
        body: { metadata: { name: 'old.2' }, involvedObject: regarding, message: 'again', reason: 'Again' },
      });
      expect(created.status, created.text).toBe(201);
      const [ev] = await watch.next(1);
      expect(ev!.type).toBe('ADDED');
      expect(ev!.object).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', note: 'again', regarding });
    } finally {
      watch.close();
    }
  });

  it('events.k8s.io/v1 creates are validated strictly, at the core fields kube names', async () => {
    const r = await call('POST', V1, {
      body: {
        ...newStyle('bad.1'),
        eventTime: undefined,
        type: 'Odd',
        deprecatedCount: 2,
        deprecatedSource: { component: 'x' },
        series: { count: 1 },
      },
    });
    expect(r.status, r.text).toBe(422);
    expect(r.json['message']).toBe(
      // Without an eventTime the legacy rules take it for an old-style event: no reporting* checks.
      'Event "bad.1" is invalid: [series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value, eventTime: Required value, ' +
        'type: Invalid value: "": has invalid value: Odd, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]',
    );
  });

  it('a new-style event (with an eventTime) needs its reporter, action and reason, in every version', async () => {
    const body = {
      ...newStyle('bad.2'),
      reportingController: undefined,
      reportingInstance: 'x'.repeat(129),
      action: undefined,
      note: 'n'.repeat(1025),
    };
    const r = await call('POST', V1, { body });
    expect(r.status, r.text).toBe(422);
    expect(r.json['message']).toBe(
      // kube checks the empty name's qualified-ness too, so it reports it three times.
      'Event "bad.2" is invalid: [reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, ' +
        "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), " +
        'reportingInstance: Invalid value: "": can have at most 128 characters, ' +
        'action: Required value, message: Invalid value: "": can have at most 1024 characters]',
    );
    const core = await call('POST', CORE, {
      body: {
        metadata: { name: 'bad.3' },
        involvedObject: regarding,
        eventTime: '2026-11-24T10:00:00.000000Z',
        reportingComponent: 'Not/Qualified/x',
      },
    });
    expect(core.status).toBe(422);
    expect(core.json['message']).toContain(
      'reportingController: Invalid value: "Not/Qualified/x": a valid label key must consist of',
    );
  });

  it('core/v1 creates pass with the legacy rules only, which still hold the namespace to the object', async () => {
    const loose = await call('POST', CORE, {
      body: {
        metadata: { name: 'loose.1' },
        involvedObject: { kind: 'Cache', name: 'web', namespace: 'default' },
        type: 'Odd',
        count: 7,
      },
    });
    expect(loose.status, loose.text).toBe(201);
    const elsewhere = await call('POST', CORE, {
      body: { metadata: { name: 'elsewhere.1' }, involvedObject: { kind: 'Cache', name: 'web', namespace: 'other' } },
    });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.json['message']).toBe(
      'Event "elsewhere.1" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    );
  });

  it('an events.k8s.io/v1 update may change the series but not what the event says', async () => {
    const series = await call('PATCH', `${V1}/new.1`, {
      contentType: 'application/merge-patch+json',
      body: { series: { count: 2, lastObservedTime: '2026-11-24T10:01:00.000000Z' } },
    });
    expect(series.status, series.text).toBe(200);
    expect(series.json['series']).toEqual({ count: 2, lastObservedTime: '2026-11-24T10:01:00.000000Z' });
    const note = await call('PATCH', `${V1}/new.1`, {
      contentType: 'application/merge-patch+json',
      body: { note: 'rewritten' },
    });
    expect(note.status).toBe(422);
    expect(note.json['message']).toBe(
      'Event "new.1" is invalid: message: Invalid value: "rewritten": field is immutable',
    );
    // Through core/v1 the legacy rules apply, as kube's ValidateEventUpdate.
    const core = await call('PATCH', `${CORE}/new.1`, {
      contentType: 'application/merge-patch+json',
      body: { message: 'rewritten' },
    });
    expect(core.status, core.text).toBe(200);
  });

  it('is in discovery as events.k8s.io/v1 with short name ev', async () => {
    const r = await call('GET', '/apis', { accept: AGG_V2 });
    const groups = r.json['items'] as Array<{
      metadata: { name: string };
      versions: Array<{ version: string; resources: Array<{ resource: string; shortNames?: string[] }> }>;
    }>;
    const group = groups.find((g) => g.metadata.name === 'events.k8s.io');
    expect(group?.versions.map((v) => v.version)).toEqual(['v1']);
    expect(group?.versions[0]?.resources.find((x) => x.resource === 'events')?.shortNames).toEqual(['ev']);
  });
});
