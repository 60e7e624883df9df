// ?watch=true on a list endpoint: a chunked stream of {"type", "object"} JSON documents, one per
// line, flushed per event, as kube-apiserver's watch handler writes them (or, for a client that
// prefers protobuf, of a kind with an encoding, kube's length-prefixed protobuf WatchEvent frames).
// Served from the store's watch cache (storage/cacher.ts), or from storage for a resourceVersion
// older than the cache's window.
//
// resourceVersion: unset or "0" → ADDED for every current object, then changes; N → exactly the
// changes after N; N compacted away → one ERROR event with 410 Expired, as client-go expects
// before it relists. sendInitialEvents=true → the initial ADDED events, then a BOOKMARK annotated
// k8s.io/initial-events-end.
//
// Events go to the client only as fast as it takes them; the rest wait in a bounded queue per
// watcher, and a watcher too far behind (on its own, or the furthest behind when all of them
// together exceed the budget) is ended, as kube's cacher ends an unresponsive watcher.
import { isStorageError } from '../../../storage/errors.js';
import { ApiError, internalError, resourceExpired } from '../../../apimachinery/errors.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import { stringifyJSON } from '../../../apimachinery/json.js';
import { TERMINATION_GRACE_MS, watchKindOf } from './budget.js';
import { type WatchOptions, watchStart } from './options.js';
import type { TrackedWatcher, WatchRegistry } from './registry.js';
import {
  type Serialized,
  measured,
  serializeEvent,
  type WatchEventType,
  filterEvent,
  PendingEvents,
} from './events.js';
import type { WatchSink } from './sink.js';

const BOOKMARK_INTERVAL_MS = 60_000;
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

export async function serveWatch(sink: WatchSink, o: WatchOptions, registry: WatchRegistry): Promise<void> {
  const start = watchStart(o);
  let afterRevision: number;
  let initial: KubeObject[] = [];
  if (start.afterRevision === undefined) {
    const listed = await o.store.list(o.namespace, o.predicate ? { predicate: o.predicate } : {});
    afterRevision = listed.revision;
    if (start.initial) initial = listed.items;
  } else {
    afterRevision = start.afterRevision;
  }

  sink.open(o.typeMeta);
  const watched = watchKindOf(o.typeMeta);
  const unregisterWatcher = registry.watcherStarted(watched);
  const countEvent = registry.eventCounter(watched);
  /** The revision of the last event sent: what a bookmark may promise, never more. */
  let sentRevision = afterRevision;
  /** open: events flow; ending: no new ones, the queue still goes out; done: nothing more to send. */
  let state: 'open' | 'ending' | 'done' = 'open';
  const pending = new PendingEvents();
  let timeout: NodeJS.Timeout | undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let grace: NodeJS.Timeout | undefined;
  let handle: { close(): void } | undefined;

  const watcher: TrackedWatcher = {
    group: o.store.kind.group,
    resource: o.store.kind.resource,
    backlog: () => ({ events: pending.events, bytes: pending.bytes + sink.buffered() }),
    terminate: () => cutOff(),
  };
  const unregister = registry.add(() => end(true), o.store);
  function stopEvents(): void {
    unregister();
    unregisterWatcher();
    handle?.close();
    clearTimeout(timeout);
    clearTimeout(bookmarkTimer);
  }
  /**
   * Ends the stream without what is still queued, as kube's watch handler returns leaving its
   * channel: cleanly if the client takes the end within the grace, else the connection is dropped.
   */
  function cutOff(): void {
    if (state === 'done') return;
    state = 'done';
    stopEvents();
    pending.clear();
    clearTimeout(grace);
    registry.release(watcher);
    sink.end(TERMINATION_GRACE_MS);
  }

  /** Sends what the client can take now; the rest waits for the next drain. */
  function flush(): void {
    while (pending.size > 0 && sink.ready()) {
      sink.send(pending.shift());
      countEvent();
    }
    if (state === 'ending' && pending.size === 0) {
      state = 'done';
      clearTimeout(grace);
      registry.release(watcher);
      sink.end();
      return;
    }
    if (state !== 'done') registry.charge(watcher);
  }
  sink.onDrain(flush);

  const send = (event: Serialized): void => {
    if (state !== 'open') return;
    pending.push(event);
    flush();
  };
  const write = (type: WatchEventType, object: unknown): void => send(measured(stringifyJSON({ type, object })));
  const bookmark = (annotations?: Record<string, string>): void =>
    write('BOOKMARK', {
      ...o.typeMeta,
      metadata: { resourceVersion: String(sentRevision), ...(annotations ? { annotations } : {}) },
    });

  /** The server ends the watch: what is queued still goes out, within the grace. */
  function end(finalBookmark = false): void {
    if (state !== 'open') return;
    if (finalBookmark && o.allowWatchBookmarks) bookmark();
    if (state !== 'open') return;
    state = 'ending';
    stopEvents();
    // What is still queued gets the grace to go out, no more.
    grace = setTimeout(cutOff, TERMINATION_GRACE_MS);
    grace.unref();
    flush();
  }
  sink.onClose(() => {
    state = 'done';
    stopEvents();
    pending.clear();
    clearTimeout(grace);
    registry.release(watcher);
  });

  const fail = (err: Error): void => {
    const status = isStorageError(err, 'Compacted')
      ? resourceExpired(`too old resource version: ${afterRevision} (${err.compactRevision ?? 0})`)
      : err instanceof ApiError
        ? err
        : internalError(err);
    write('ERROR', status.status);
    end();
  };
  // Without conversion an event goes out as it arrives; with it, events wait their turn in a chain
  // so that a slow webhook cannot reorder them.
  let queue = Promise.resolve();
  const inTurn = (step: () => void | Promise<void>): void => {
    if (o.convert) queue = queue.then(step);
    else void step();
  };
  const deliver = (
    shown: { type: WatchEventType; object: KubeObject }[],
    revision: number,
    isInitial: boolean,
  ): void => {
    const convert = o.convert;
    if (!convert) {
      if (isInitial) {
        for (const ev of shown) pending.pushInitial(() => serializeEvent(ev.type, ev.object, o));
        flush();
      } else {
        for (const ev of shown) send(serializeEvent(ev.type, ev.object, o));
      }
      sentRevision = revision;
      return;
    }
    inTurn(async () => {
      if (state !== 'open') return;
      try {
        const converted = shown.length ? await convert(shown.map((ev) => ev.object)) : [];
        if (state !== 'open') return;
        if (isInitial) {
          shown.forEach((ev, i) =>
            pending.pushInitial(() => measured(stringifyJSON({ type: ev.type, object: o.render(converted[i]!) }))),
          );
          flush();
        } else {
          shown.forEach((ev, i) => write(ev.type, o.render(converted[i]!)));
        }
        sentRevision = revision;
      } catch (err) {
        fail(err instanceof Error ? err : new Error(String(err)));
      }
    });
  };

  deliver(
    initial.map((object) => ({ type: 'ADDED' as const, object })),
    afterRevision,
    true,
  );
  if (start.initial && o.sendInitialEvents) inTurn(() => bookmark({ [INITIAL_EVENTS_END]: 'true' }));
  if (state !== 'open') return;

  handle = o.store.watch(o.namespace, afterRevision, {
    onEvents(events) {
      const shown: { type: WatchEventType; object: KubeObject }[] = [];
      for (const ev of events) {
        const one = filterEvent(ev, o.predicate);
        if (one) shown.push(one);
      }
      deliver(shown, events[events.length - 1]!.revision, false);
    },
    onError: (err) => inTurn(() => fail(err)),
  });

  // kube ends a watch without timeoutSeconds after a random 30 to 60 minutes, so clients rebalance.
  const timeoutMs =
    o.timeoutSeconds !== undefined
      ? o.timeoutSeconds * 1000
      : registry.minRequestTimeoutSeconds * 1000 * (1 + Math.random());
  timeout = setTimeout(() => end(true), timeoutMs);
  if (o.allowWatchBookmarks) {
    const tick = (): void => {
      bookmark();
      bookmarkTimer = setTimeout(tick, BOOKMARK_INTERVAL_MS);
    };
    bookmarkTimer = setTimeout(tick, BOOKMARK_INTERVAL_MS);
  }
}
