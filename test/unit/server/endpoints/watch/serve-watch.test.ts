// The watch endpoint at its boundary: its option checks and start rules as kube states them, the
// selector transitions of kube's cacher, and serveWatch streaming through httpWatchSink from a real
// HTTP server on 127.0.0.1, over the real Store and embedded SQLite.
import { createServer, get as httpGet, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatFieldError } from '../../../../../apimachinery/field-errors.js';
import { toApiError } from '../../../../../apimachinery/errors.js';
import type { KubeObject, ObjectMeta } from '../../../../../apimachinery/object.js';
import type { Storage } from '../../../../../storage/interface.js';
import { type ObjectEvent, Store } from '../../../../../server/registry/store.js';
import { plainEventStrategy as eventStrategy } from '../../../../helpers/plain-events.js';
import { writeStatus } from '../../../../../server/endpoints/respond.js';
import { type WatchOptions, validateWatchOptions, watchStart } from '../../../../../server/endpoints/watch/options.js';
import { WatchRegistry } from '../../../../../server/endpoints/watch/registry.js';
import { filterEvent } from '../../../../../server/endpoints/watch/events.js';
import { httpWatchSink } from '../../../../../server/endpoints/watch/sink.js';
import { serveWatch } from '../../../../../server/endpoints/watch/serve-watch.js';
import { createSqliteFixture } from '../../../../helpers/sqlite-fixture.js';
import { timerFired } from '../../../../helpers/timer-fired.js';

const obj = (name: string, labels?: Record<string, string>, resourceVersion = '1'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'ns', resourceVersion, ...(labels ? { labels } : {}) },
});

describe('validateWatchOptions: kube validateWatchOptions with WatchList on', () => {
  it.each<
    [string, { resourceVersionMatch: string; sendInitialEvents: boolean | undefined; continue: string }, string[]]
  >([
    ['a plain watch', { resourceVersionMatch: '', sendInitialEvents: undefined, continue: '' }, []],
    [
      'sendInitialEvents with NotOlderThan',
      { resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, continue: '' },
      [],
    ],
    [
      'sendInitialEvents=false with NotOlderThan',
      { resourceVersionMatch: 'NotOlderThan', sendInitialEvents: false, continue: '' },
      [],
    ],
    [
      'sendInitialEvents without resourceVersionMatch',
      { resourceVersionMatch: '', sendInitialEvents: true, continue: '' },
      ['resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
    ],
    [
      'resourceVersionMatch without sendInitialEvents',
      { resourceVersionMatch: 'NotOlderThan', sendInitialEvents: undefined, continue: '' },
      [
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      ],
    ],
    [
      'Exact: not one a watch supports, in kube order',
      { resourceVersionMatch: 'Exact', sendInitialEvents: true, continue: '' },
      [
        'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"',
      ],
    ],
    [
      'resourceVersionMatch with a continue token',
      { resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, continue: 'token' },
      ['resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided'],
    ],
  ])('%s', (_name, options, want) => {
    expect(validateWatchOptions(options).map(formatFieldError)).toEqual(want);
  });
});

describe('watchStart: where a watch starts (kube resourceVersion semantics for watch)', () => {
  it.each<
    [
      string,
      { resourceVersion: string; sendInitialEvents: boolean | undefined },
      { initial: boolean; afterRevision: number | undefined },
    ]
  >([
    [
      'unset: current state as ADDED, then changes',
      { resourceVersion: '', sendInitialEvents: undefined },
      { initial: true, afterRevision: undefined },
    ],
    [
      '"0": any state as ADDED, then changes',
      { resourceVersion: '0', sendInitialEvents: undefined },
      { initial: true, afterRevision: undefined },
    ],
    [
      'N: exactly the changes after N',
      { resourceVersion: '7', sendInitialEvents: undefined },
      { initial: false, afterRevision: 7 },
    ],
    [
      'sendInitialEvents=true: initial events whatever N',
      { resourceVersion: '7', sendInitialEvents: true },
      { initial: true, afterRevision: undefined },
    ],
    [
      'sendInitialEvents=false with N: changes after N',
      { resourceVersion: '7', sendInitialEvents: false },
      { initial: false, afterRevision: 7 },
    ],
    [
      'sendInitialEvents=false, no N: changes from now, no initial events',
      { resourceVersion: '', sendInitialEvents: false },
      { initial: false, afterRevision: undefined },
    ],
  ])('%s', (_name, options, want) => {
    expect(watchStart(options)).toEqual(want);
  });
});

describe('filterEvent: selector transitions, as kube cacher convertToWatchEvent', () => {
  const matches = (o: KubeObject): boolean => o.metadata.labels?.['app'] === 'x';
  const x = obj('a', { app: 'x' }, '5');
  const y = obj('a', { app: 'y' }, '5');
  const y9 = obj('a', { app: 'y' }, '9');
  it.each<[string, ObjectEvent, ReturnType<typeof filterEvent>]>([
    ['ADDED that matches', { type: 'ADDED', object: x, revision: 5 }, { type: 'ADDED', object: x }],
    ['ADDED that does not match', { type: 'ADDED', object: y, revision: 5 }, undefined],
    [
      'MODIFIED that starts matching is ADDED',
      { type: 'MODIFIED', object: obj('a', { app: 'x' }, '9'), previous: y, revision: 9 },
      { type: 'ADDED', object: obj('a', { app: 'x' }, '9') },
    ],
    [
      'MODIFIED that keeps matching',
      { type: 'MODIFIED', object: obj('a', { app: 'x' }, '9'), previous: x, revision: 9 },
      { type: 'MODIFIED', object: obj('a', { app: 'x' }, '9') },
    ],
    // The previous state, at the event's resourceVersion.
    [
      'MODIFIED that stops matching is DELETED with the old state',
      { type: 'MODIFIED', object: y9, previous: x, revision: 9 },
      { type: 'DELETED', object: obj('a', { app: 'x' }, '9') },
    ],
    ['MODIFIED that never matched', { type: 'MODIFIED', object: y9, previous: y, revision: 9 }, undefined],
    ['DELETED that matched', { type: 'DELETED', object: x, previous: x, revision: 9 }, { type: 'DELETED', object: x }],
    ['DELETED that did not match', { type: 'DELETED', object: y, previous: y, revision: 9 }, undefined],
  ])('%s', (_name, ev, want) => {
    expect(filterEvent(ev, matches)).toEqual(want);
  });

  it('without a predicate every event passes as it is', () => {
    expect(filterEvent({ type: 'MODIFIED', object: y9, previous: x, revision: 9 }, undefined)).toEqual({
      type: 'MODIFIED',
      object: y9,
    });
  });
});

// ---- serveWatch over HTTP ----------------------------------------------------------------------

interface WireEvent {
  type: string;
  object: { kind?: string; apiVersion?: string; metadata: ObjectMeta; [key: string]: unknown };
}

/** A watch response read as a client reads it: line by line, each line one event document. */
class WatchStream {
  readonly lines: string[] = [];
  readonly events: WireEvent[] = [];
  ended = false;
  private buffer = '';
  private wake: () => void = () => {};

  constructor(readonly res: IncomingMessage) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.lines.push(line);
        this.events.push(JSON.parse(line) as WireEvent);
      }
      this.wake();
    });
    res.on('end', () => {
      this.ended = true;
      this.wake();
    });
  }

  /** Resolves once `n` events have arrived (or fails naming what did, after a hang guard's wait). */
  async take(n: number, timeoutMs = 30_000): Promise<WireEvent[]> {
    await this.until(() => this.events.length >= n, `${n} events`, timeoutMs);
    return this.events.slice(0, n);
  }

  async end(timeoutMs = 30_000): Promise<void> {
    await this.until(() => this.ended, 'the end of the stream', timeoutMs);
  }

  private until(done: () => boolean, what: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`waited for ${what}; got ${JSON.stringify(this.events.map((e) => e.type))}`)),
        timeoutMs,
      );
      const check = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        this.wake = () => {};
        resolve();
      };
      this.wake = check;
      check();
    });
  }
}

let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
let storage: Storage;
let events: Store;
/** Stores a request may name with ?store= (a fresh one has a watch cache without history). */
const stores = new Map<string, Store>();
let registry: WatchRegistry;
let server: Server;
let base: string;
const open: WatchStream[] = [];
const TYPE_META = { apiVersion: 'v1', kind: 'Event' };

/** The options rest/read.ts derives from a request, here spelled out in the query of the test's own path. */
function optionsFrom(q: URLSearchParams): WatchOptions {
  const label = q.get('label');
  return {
    store: stores.get(q.get('store') ?? 'events')!,
    namespace: q.get('ns') ?? undefined,
    predicate: label ? (o) => o.metadata.labels?.['app'] === label : undefined,
    resourceVersion: q.get('rv') ?? '',
    resourceVersionMatch: q.get('match') ?? '',
    allowWatchBookmarks: q.has('bookmarks'),
    sendInitialEvents: q.has('initial') ? q.get('initial') === 'true' : undefined,
    timeoutSeconds: q.has('timeout') ? Number(q.get('timeout')) : undefined,
    render: (o) => ({ ...TYPE_META, ...o, ...TYPE_META }),
    typeMeta: TYPE_META,
    renderKey: 'test|Object',
  };
}

beforeAll(async () => {
  fixture = await createSqliteFixture();
  storage = await fixture.open();
  events = new Store(storage, eventStrategy);
  stores.set('events', events);
  registry = new WatchRegistry();
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    const query = new URLSearchParams(url.slice(url.indexOf('?') + 1));
    serveWatch(httpWatchSink(res, 'application/json'), optionsFrom(query), registry).catch((err: unknown) =>
      writeStatus(res, toApiError(err)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  registry.closeAll();
  for (const s of open) s.res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const s of stores.values()) s.close();
  await fixture.teardown();
});

function watch(query: Record<string, string>): Promise<WatchStream> {
  return new Promise((resolve, reject) => {
    httpGet(`${base}/watch?${new URLSearchParams(query).toString()}`, (res) => {
      const s = new WatchStream(res);
      open.push(s);
      resolve(s);
    }).on('error', reject);
  });
}

async function create(ns: string, name: string, labels?: Record<string, string>): Promise<KubeObject> {
  return events.create(
    ns,
    { apiVersion: 'v1', kind: 'Event', metadata: { name, ...(labels ? { labels } : {}) }, involvedObject: {} },
    { dryRun: false },
  );
}

const rvOf = (o: { metadata: ObjectMeta }): string => o.metadata.resourceVersion ?? '';

const summary = (evs: WireEvent[]): [string, string | undefined][] => evs.map((e) => [e.type, e.object.metadata.name]);

describe('serveWatch: the stream', () => {
  it('frames each event as one {"type","object"} JSON line on a chunked application/json response', async () => {
    const a = await create('framed', 'a');
    const s = await watch({ ns: 'framed' });
    expect(s.res.statusCode).toBe(200);
    expect(s.res.headers['content-type']).toBe('application/json');
    expect(s.res.headers['transfer-encoding']).toBe('chunked');
    const [added] = await s.take(1);
    expect(Object.keys(JSON.parse(s.lines[0]!) as object)).toEqual(['type', 'object']);
    expect(added).toEqual({ type: 'ADDED', object: { ...TYPE_META, ...a, metadata: a.metadata } });
  });

  it('without a resourceVersion: every current object as ADDED, then changes as they happen', async () => {
    await create('live', 'a');
    await create('live', 'b');
    const s = await watch({ ns: 'live' });
    await s.take(2);
    const c = await create('live', 'c');
    const modified = await events.update('live', 'a', (cur) => ({ ...cur, reason: 'Changed' }), { dryRun: false });
    const deleted = await events.delete('live', 'b', { dryRun: false });
    const evs = await s.take(5);
    expect(summary(evs)).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
      ['ADDED', 'c'],
      ['MODIFIED', 'a'],
      ['DELETED', 'b'],
    ]);
    expect(rvOf(evs[2]!.object)).toBe(rvOf(c));
    expect(evs[3]!.object).toMatchObject({ reason: 'Changed', metadata: { resourceVersion: rvOf(modified) } });
    // A DELETED event carries the object's last state at the delete's resourceVersion.
    expect(rvOf(evs[4]!.object)).toBe(rvOf(deleted.obj));
  });

  it('resourceVersion "0": the current objects as ADDED too', async () => {
    await create('zero', 'a');
    const s = await watch({ ns: 'zero', rv: '0' });
    expect(summary(await s.take(1))).toEqual([['ADDED', 'a']]);
  });

  it('resourceVersion N: exactly the changes after N, nothing before', async () => {
    const a = await create('after', 'a');
    await create('after', 'b');
    const s = await watch({ ns: 'after', rv: rvOf(a) });
    await create('after', 'c');
    expect(summary(await s.take(2))).toEqual([
      ['ADDED', 'b'],
      ['ADDED', 'c'],
    ]);
  });

  it('a label selector: an object that stops matching is DELETED for this watcher', async () => {
    await create('selected', 'a', { app: 'x' });
    await create('selected', 'b', { app: 'y' });
    const s = await watch({ ns: 'selected', label: 'x' });
    await s.take(1);
    const changed = await events.update(
      'selected',
      'a',
      (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { app: 'y' } } }),
      { dryRun: false },
    );
    await events.update('selected', 'b', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { app: 'x' } } }), {
      dryRun: false,
    });
    const evs = await s.take(3);
    expect(summary(evs)).toEqual([
      ['ADDED', 'a'],
      ['DELETED', 'a'],
      ['ADDED', 'b'],
    ]);
    // The state it last matched in, at the resourceVersion of the change that ended the match.
    expect(evs[1]!.object.metadata).toMatchObject({ labels: { app: 'x' }, resourceVersion: rvOf(changed) });
  });

  it('sendInitialEvents=true: the initial ADDED events, then a BOOKMARK annotated k8s.io/initial-events-end', async () => {
    await create('initial', 'a');
    const b = await create('initial', 'b');
    const s = await watch({ ns: 'initial', initial: 'true', match: 'NotOlderThan', bookmarks: '1' });
    const evs = await s.take(3);
    expect(summary(evs.slice(0, 2))).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
    expect(evs[2]).toMatchObject({
      type: 'BOOKMARK',
      object: { ...TYPE_META, metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } },
    });
    // The bookmark promises the state the initial events showed: no older than the last of them.
    expect(Number(rvOf(evs[2]!.object))).toBeGreaterThanOrEqual(Number(rvOf(b)));
  });

  it('a resourceVersion compacted away: 200, then one ERROR event with a 410 Expired Status, then the end', async () => {
    const first = await create('compacted', 'a');
    await create('compacted', 'b');
    const last = await create('compacted', 'c');
    await storage.compact(Number(rvOf(last)));
    // A watch cache started after the compaction has no window to replay from, as after a restart.
    stores.set('fresh', new Store(storage, eventStrategy));
    const s = await watch({ store: 'fresh', ns: 'compacted', rv: rvOf(first) });
    expect(s.res.statusCode).toBe(200);
    const [error] = await s.take(1);
    expect(error).toEqual({
      type: 'ERROR',
      object: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `too old resource version: ${rvOf(first)} (${rvOf(last)})`,
        reason: 'Expired',
        code: 410,
      },
    });
    await s.end();
    expect(s.events).toHaveLength(1);
  });
});

describe('serveWatch: ending', () => {
  it('timeoutSeconds: the server ends the stream once it has passed', async () => {
    // Ended by its own timeoutSeconds: a watch without one (kube's 30 to 60 minutes), opened
    // first, is still open; and not before: a timer of half the second, set before the watch
    // was asked for, has fired (timers on one loop fire in the order they expire).
    const untimed = await watch({ ns: 'timeout' });
    const halfway = timerFired(500);
    const s = await watch({ ns: 'timeout', timeout: '1' });
    await s.end();
    expect(halfway()).toBe(true);
    expect(untimed.ended).toBe(false);
    // No bookmarks were asked for, so none were sent.
    expect(s.events).toEqual([]);
  });

  it('with allowWatchBookmarks, a BOOKMARK at the newest resourceVersion comes before the end', async () => {
    // The object is there before the watch, so its ADDED is sent before the watch's timer starts.
    const a = await create('bookmarked', 'a');
    const s = await watch({ ns: 'bookmarked', timeout: '1', bookmarks: '1' });
    await s.end();
    const last = s.events[s.events.length - 1]!;
    expect(summary(s.events)).toEqual([
      ['ADDED', 'a'],
      ['BOOKMARK', undefined],
    ]);
    expect(last.object).toEqual({ ...TYPE_META, metadata: { resourceVersion: expect.any(String) as unknown } });
    expect(Number(rvOf(last.object))).toBeGreaterThanOrEqual(Number(rvOf(a)));
  });

  it('the registry ends open watches on shutdown (closeAll)', async () => {
    const registryOwn = new WatchRegistry();
    const res = await new Promise<IncomingMessage>((resolve) => {
      const local = createServer(
        (_req, out) =>
          void serveWatch(
            httpWatchSink(out, 'application/json'),
            optionsFrom(new URLSearchParams('ns=shutdown')),
            registryOwn,
          ),
      );
      local.listen(0, '127.0.0.1', () => {
        httpGet(`http://127.0.0.1:${(local.address() as AddressInfo).port}/`, (r) => {
          resolve(r);
          r.on('close', () => local.close());
        });
      });
    });
    const s = new WatchStream(res);
    registryOwn.closeAll();
    await s.end();
    expect(s.events).toEqual([]);
  });

  it('closeUnserved ends the watches on stores no longer served, and only those', async () => {
    const kept = await watch({ ns: 'unserved' });
    const other = new Store(storage, eventStrategy);
    stores.set('other', other);
    const dropped = await watch({ store: 'other', ns: 'unserved' });
    registry.closeUnserved(new Set([events]));
    await dropped.end();
    // The watch on a still-served store keeps delivering.
    await create('unserved', 'after');
    expect(summary(await kept.take(1))).toEqual([['ADDED', 'after']]);
    expect(kept.ended).toBe(false);
  });
});
