// The watch endpoint's metric hooks: a watch served by serveWatch counts as a registered watcher
// while it lasts, and each event it sends (initial, live, bookmark) counts once, by the group,
// version and kind watched; over the real Store and embedded SQLite, with an in-memory sink.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../apimachinery/object.js';
import { WatchStats } from '../../../server/endpoints/watch/budget.js';
import type { WatchOptions } from '../../../server/endpoints/watch/options.js';
import type { WatchSink } from '../../../server/endpoints/watch/sink.js';
import { WatchRegistry } from '../../../server/endpoints/watch/registry.js';
import { serveWatch } from '../../../server/endpoints/watch/serve-watch.js';
import { Metrics } from '../../../server/metrics.js';
import { Store } from '../../../server/registry/store.js';
import { SqliteStorage } from '../../../storage/sqlite.js';
import type { Storage } from '../../../storage/interface.js';
import { plainEventStrategy } from '../../helpers/plain-events.js';

const TYPE_META = { apiVersion: 'v1', kind: 'Event' };
const EVENT_KIND = { group: '', version: 'v1', kind: 'Event' };

function memorySink(): { sink: WatchSink; sent: string[]; close(): void } {
  const sent: string[] = [];
  const closers: (() => void)[] = [];
  return {
    sent,
    sink: {
      open() {},
      send: (event) => void sent.push(event.text),
      ready: () => true,
      onDrain() {},
      buffered: () => 0,
      end() {},
      onClose: (listener) => void closers.push(listener),
    },
    close: () => closers.forEach((c) => c()),
  };
}

function options(store: Store): WatchOptions {
  return {
    store,
    namespace: 'ns',
    predicate: undefined,
    resourceVersion: '',
    resourceVersionMatch: '',
    allowWatchBookmarks: false,
    sendInitialEvents: undefined,
    timeoutSeconds: 60,
    render: (o) => ({ ...o, ...TYPE_META }),
    typeMeta: TYPE_META,
    renderKey: 'metrics-test',
  };
}

describe('serveWatch metric hooks', () => {
  let storage: Storage;
  let store: Store;
  let stats: WatchStats;
  let registry: WatchRegistry;
  let metrics: Metrics;

  beforeEach(() => {
    storage = SqliteStorage.open(':memory:');
    store = new Store(storage, plainEventStrategy);
    stats = new WatchStats();
    registry = new WatchRegistry({ stats });
    metrics = new Metrics({ watches: stats });
  });
  afterEach(async () => {
    registry.closeAll();
    store.close();
    await storage.close();
  });

  const create = (name: string): Promise<KubeObject> =>
    store.create('ns', { apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: {} }, { dryRun: false });
  const registered = (): number | undefined => stats.registeredWatchers().find((w) => w.kind === 'Event')?.count;
  const sentEvents = (): number | undefined => stats.watchEvents().find((w) => w.kind === 'Event')?.count;

  it('registers a watcher while it lasts and counts every event sent to it', async () => {
    await create('a');
    const first = memorySink();
    await serveWatch(first.sink, options(store), registry);
    const second = memorySink();
    await serveWatch(second.sink, options(store), registry);
    expect(registered()).toBe(2);
    await create('b');
    await expect.poll(() => first.sent.length + second.sent.length).toBe(4);
    expect(sentEvents()).toBe(4);
    const text = await metrics.render();
    expect(text).toContain('apiserver_registered_watchers{group="",kind="Event",version="v1"} 2\n');
    expect(text).toContain('apiserver_watch_events_total{group="",kind="Event",version="v1"} 4\n');

    first.close();
    first.close();
    expect(registered()).toBe(1);
    registry.closeAll(); // the server ends the other
    expect(registered()).toBe(0);
    second.close();
    expect(registered()).toBe(0);
    expect(stats.registeredWatchers()).toEqual([{ ...EVENT_KIND, count: 0 }]);
  });
});
