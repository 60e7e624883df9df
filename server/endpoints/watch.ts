// ?watch=true on a list endpoint: a chunked stream of {"type", "object"} JSON documents, one per
// line, flushed per event, as kube-apiserver's watch handler writes them. Served straight from the
// storage watch for now; the watch cache of DESIGN.md slots in behind Store.watch.
//
// resourceVersion: unset or "0" → ADDED for every current object, then changes; N → exactly the
// changes after N; N compacted away → one ERROR event with 410 Expired, as client-go expects
// before it relists. sendInitialEvents=true → the initial ADDED events, then a BOOKMARK annotated
// k8s.io/initial-events-end.
import type { ServerResponse } from 'node:http';
import { isStorageError } from '../../storage/errors.js';
import { ApiError, internalError, resourceExpired } from '../errors.js';
import { type FieldError, forbidden, notSupported } from '../field-errors.js';
import type { KubeObject } from '../registry/object.js';
import type { ObjectEvent, Store } from '../registry/store.js';
import { stringifyJSON } from '../json.js';

export interface WatchOptions {
  store: Store;
  namespace: string | undefined;
  /** Label and field selectors; an object that stops matching is DELETED for this watcher. */
  predicate: ((obj: KubeObject) => boolean) | undefined;
  resourceVersion: string;
  resourceVersionMatch: string;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  timeoutSeconds: number | undefined;
  /** The object as the client sees it: apiVersion and kind, Table or metadata-only. */
  render(obj: KubeObject): unknown;
  /** `{apiVersion, kind}` of a BOOKMARK's object. */
  typeMeta: { apiVersion: string; kind: string };
  /** Watchers with equal keys render an object identically, so they share its serialisation. */
  renderKey: string;
  /**
   * For kinds served in several versions: objects (in the storage version) to the version asked
   * for, e.g. through a conversion webhook. Events then go out in order once converted.
   */
  convert?: (objects: KubeObject[]) => Promise<KubeObject[]>;
}

/**
 * Each event is serialised once per way of rendering it, and the text shared by every watcher
 * (the watch cache hands all of them the same object); it lives as long as the object does.
 */
const serialized = new WeakMap<KubeObject, Map<string, string>>();

function serializeEvent(type: WatchEventType, object: KubeObject, o: WatchOptions): string {
  let forObject = serialized.get(object);
  if (!forObject) serialized.set(object, (forObject = new Map()));
  const key = `${type}|${o.renderKey}`;
  let text = forObject.get(key);
  if (text === undefined) {
    text = stringifyJSON({ type, object: o.render(object) });
    forObject.set(key, text);
  }
  return text;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Active watches, so a shutdown, or the removal of what they watch, can end them cleanly. */
export class WatchRegistry {
  private readonly active = new Map<() => void, Store>();

  add(end: () => void, store: Store): () => void {
    this.active.set(end, store);
    return () => this.active.delete(end);
  }

  /** Ends every watch (the response is finished; clients re-watch elsewhere). */
  closeAll(): void {
    for (const end of [...this.active.keys()]) end();
  }

  /** Ends the watches on stores no longer served (a deleted CRD), as kube destroys their storage. */
  closeUnserved(served: ReadonlySet<Store>): void {
    for (const [end, store] of [...this.active]) if (!served.has(store)) end();
  }
}

const BOOKMARK_INTERVAL_MS = 60_000;
/** kube ends a watch without timeoutSeconds after a random 30 to 60 minutes, so clients rebalance. */
const MIN_REQUEST_TIMEOUT_S = 1800;
/** A watcher this far behind is cut off rather than allowed to grow the heap. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/**
 * The event a watcher with `predicate` sees, or none: ADDED when an object starts matching,
 * DELETED (with its previous state at the new resourceVersion) when it stops, as kube's cacher.
 */
export function filterEvent(ev: ObjectEvent, predicate: WatchOptions['predicate']): { type: WatchEventType; object: KubeObject } | undefined {
  if (!predicate) return { type: ev.type, object: ev.object };
  const now = ev.type !== 'DELETED' && predicate(ev.object);
  const before = ev.previous !== undefined && predicate(ev.previous);
  if (ev.type === 'DELETED') return predicate(ev.object) ? { type: 'DELETED', object: ev.object } : undefined;
  if (now && !before) return { type: 'ADDED', object: ev.object };
  if (now && before) return { type: 'MODIFIED', object: ev.object };
  if (!now && before) {
    const previous = ev.previous!;
    return { type: 'DELETED', object: { ...previous, metadata: { ...previous.metadata, resourceVersion: String(ev.revision) } } };
  }
  return undefined;
}

/** kube's validateWatchOptions (metainternalversion validation), with WatchList enabled. */
export function validateWatchOptions(o: Pick<WatchOptions, 'resourceVersionMatch' | 'sendInitialEvents'> & { continue: string }): FieldError[] {
  const errs: FieldError[] = [];
  const match = o.resourceVersionMatch;
  if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errs.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match) {
    if (o.sendInitialEvents === undefined) {
      errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (o.continue) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}

/**
 * Where a (valid) watch starts: with the current objects as ADDED events, or after a revision.
 * With sendInitialEvents, the state "not older than" rv: we always have the newest.
 */
export function watchStart(o: Pick<WatchOptions, 'resourceVersion' | 'sendInitialEvents'>): { initial: boolean; afterRevision: number | undefined } {
  if (o.sendInitialEvents !== undefined) return { initial: o.sendInitialEvents, afterRevision: o.sendInitialEvents ? undefined : numeric(o.resourceVersion) };
  return { initial: o.resourceVersion === '' || o.resourceVersion === '0', afterRevision: numeric(o.resourceVersion) };
}

const numeric = (rv: string): number | undefined => (rv === '' || rv === '0' ? undefined : Number(rv));

/** Where a watch's events go: a chunked HTTP response or a WebSocket. */
export interface WatchSink {
  /** Called once the start is known to be good, before the first event. */
  open(): void;
  /** One event document, serialised. */
  send(event: string): void;
  /** Bytes accepted but not yet taken by the client. */
  buffered(): number;
  /** The server ends the watch normally. */
  end(): void;
  /** The server drops the connection (a client that does not read). */
  destroy(): void;
  onClose(listener: () => void): void;
}

export function httpWatchSink(res: ServerResponse): WatchSink {
  return {
    open() {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
      res.flushHeaders();
    },
    send: (event) => void res.write(`${event}\n`),
    buffered: () => res.writableLength,
    end: () => void (res.destroyed || res.end()),
    destroy: () => void res.destroy(),
    onClose: (listener) => void res.once('close', listener),
  };
}

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

  sink.open();
  /** The revision of the last event sent: what a bookmark may promise, never more. */
  let sentRevision = afterRevision;
  let ended = false;

  const send = (text: string): void => {
    if (ended) return;
    sink.send(text);
    if (sink.buffered() > MAX_BUFFERED_BYTES) {
      // Nobody is reading: drop the connection instead of buffering without bound.
      end();
      sink.destroy();
    }
  };
  const write = (type: WatchEventType, object: unknown): void => send(stringifyJSON({ type, object }));
  const bookmark = (annotations?: Record<string, string>): void =>
    write('BOOKMARK', { ...o.typeMeta, metadata: { resourceVersion: String(sentRevision), ...(annotations ? { annotations } : {}) } });

  let timeout: NodeJS.Timeout | undefined;
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let handle: { close(): void } | undefined;
  const unregister = registry.add(() => end(true), o.store);
  function end(finalBookmark = false): void {
    if (ended) return;
    if (finalBookmark && o.allowWatchBookmarks) bookmark();
    ended = true;
    unregister();
    handle?.close();
    clearTimeout(timeout);
    clearTimeout(bookmarkTimer);
    sink.end();
  }
  sink.onClose(() => end());

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
  const deliver = (shown: { type: WatchEventType; object: KubeObject }[], revision: number): void => {
    const convert = o.convert;
    if (!convert) {
      for (const ev of shown) send(serializeEvent(ev.type, ev.object, o));
      sentRevision = revision;
      return;
    }
    inTurn(async () => {
      if (ended) return;
      try {
        const converted = shown.length ? await convert(shown.map((ev) => ev.object)) : [];
        shown.forEach((ev, i) => write(ev.type, o.render(converted[i]!)));
        sentRevision = revision;
      } catch (err) {
        fail(err instanceof Error ? err : new Error(String(err)));
      }
    });
  };

  deliver(initial.map((object) => ({ type: 'ADDED' as const, object })), afterRevision);
  if (start.initial && o.sendInitialEvents) inTurn(() => bookmark({ [INITIAL_EVENTS_END]: 'true' }));
  if (ended) return;

  handle = o.store.watch(o.namespace, afterRevision, {
    onEvents(events) {
      const shown: { type: WatchEventType; object: KubeObject }[] = [];
      for (const ev of events) {
        const one = filterEvent(ev, o.predicate);
        if (one) shown.push(one);
      }
      deliver(shown, events[events.length - 1]!.revision);
    },
    onError: (err) => inTurn(() => fail(err)),
  });

  const timeoutMs = o.timeoutSeconds !== undefined ? o.timeoutSeconds * 1000 : MIN_REQUEST_TIMEOUT_S * 1000 * (1 + Math.random());
  timeout = setTimeout(() => end(true), timeoutMs);
  if (o.allowWatchBookmarks) {
    const tick = (): void => {
      bookmark();
      bookmarkTimer = setTimeout(tick, BOOKMARK_INTERVAL_MS);
    };
    bookmarkTimer = setTimeout(tick, BOOKMARK_INTERVAL_MS);
  }
}
