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
import type { ServerResponse } from 'node:http';
import { isStorageError } from '../../../storage/errors.js';
import { ApiError, internalError, resourceExpired } from '../../../apimachinery/errors.js';
import { type FieldError, forbidden, notSupported } from '../../../apimachinery/field-errors.js';
import { type Logger, silentLogger } from '../../../apimachinery/log.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import type { ObjectEvent, Store } from '../../registry/store.js';
import { parseJSON, stringifyJSON } from '../../../apimachinery/json.js';
import { PROTOBUF_MEDIA_TYPE, type ReplyMediaType } from '../output.js';
import { canEncodeProtobuf, encodeProtobufWatchEvent } from '../../codecs/protobuf-encode.js';
import {
  type Backlog,
  DEFAULT_WATCH_BUDGET_BYTES,
  TERMINATION_GRACE_MS,
  type TerminationReason,
  WatchBudget,
  type WatchKind,
  type WatchStats,
  overWatcherLimits,
  watchKindOf,
  watchStats,
} from './budget.js';

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
const serialized = new WeakMap<KubeObject, Map<string, Serialized>>();

/** An event document and its size in UTF-8, measured once however many watchers queue it. */
interface Serialized {
  text: string;
  bytes: number;
}

const measured = (text: string): Serialized => ({ text, bytes: Buffer.byteLength(text) });

function serializeEvent(type: WatchEventType, object: KubeObject, o: WatchOptions): Serialized {
  let forObject = serialized.get(object);
  if (!forObject) serialized.set(object, (forObject = new Map()));
  const key = `${type}|${o.renderKey}`;
  let event = forObject.get(key);
  if (event === undefined) {
    event = measured(stringifyJSON({ type, object: o.render(object) }));
    forObject.set(key, event);
  }
  return event;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One watch as the registry weighs it. */
export interface TrackedWatcher {
  readonly group: string;
  readonly resource: string;
  backlog(): Backlog;
  /** Ends the watch for falling behind. */
  terminate(): void;
}

export interface WatchRegistryOptions {
  /** Bytes pending across all watchers before the furthest behind are ended. */
  budgetBytes?: number;
  /** kube's --min-request-timeout: a watch without timeoutSeconds ends after 1 to 2 times this. */
  minRequestTimeoutSeconds?: number;
  logger?: Logger;
  stats?: WatchStats;
}

/** kube's --min-request-timeout: a watch without timeoutSeconds ends after 1 to 2 times this. */
export const DEFAULT_MIN_REQUEST_TIMEOUT_S = 1800;

/**
 * Active watches, so a shutdown, or the removal of what they watch, can end them cleanly; and
 * what they hold back for slow clients, weighed against each watcher's limits and one budget.
 */
export class WatchRegistry {
  private readonly active = new Map<() => void, Store>();
  private readonly budget: WatchBudget<TrackedWatcher>;
  private readonly logger: Logger;
  private readonly stats: WatchStats;

  readonly minRequestTimeoutSeconds: number;

  constructor(o: WatchRegistryOptions = {}) {
    this.budget = new WatchBudget(o.budgetBytes ?? DEFAULT_WATCH_BUDGET_BYTES);
    this.minRequestTimeoutSeconds = o.minRequestTimeoutSeconds ?? DEFAULT_MIN_REQUEST_TIMEOUT_S;
    this.logger = o.logger ?? silentLogger;
    this.stats = o.stats ?? watchStats;
  }

  /** Bytes pending for this registry's watchers. */
  get pendingBytes(): number {
    return this.budget.total;
  }

  /** Weighs a watcher again after its backlog changed; it, or others, may be ended. */
  charge(w: TrackedWatcher): void {
    const backlog = w.backlog();
    const over = overWatcherLimits(backlog);
    if (over) return this.terminate(w, over, backlog);
    const before = this.budget.total;
    const victims = this.budget.update(w, backlog.bytes);
    this.stats.pendingBytes += this.budget.total - before;
    for (const victim of victims) this.terminate(victim, 'budget', victim.backlog());
  }

  /** Stops weighing a watcher that ended. */
  release(w: TrackedWatcher): void {
    const before = this.budget.total;
    this.budget.remove(w);
    this.stats.pendingBytes += this.budget.total - before;
  }

  private terminate(w: TrackedWatcher, reason: TerminationReason, backlog: Backlog): void {
    this.release(w);
    this.stats.terminatedWatcher(w.group, w.resource);
    // kube's cacher logs the same words for the same event.
    this.logger.info('Forcing watcher close due to unresponsiveness', {
      group: w.group,
      resource: w.resource,
      reason,
      pendingEvents: backlog.events,
      pendingBytes: backlog.bytes,
    });
    w.terminate();
  }

  /** Metrics: a watch of `gvk` started; the returned function ends it (once, however often called). */
  watcherStarted(gvk: WatchKind): () => void {
    return this.stats.watcherRegistered(gvk);
  }

  /** Metrics: counts one event sent to a client watching `gvk` per call. */
  eventCounter(gvk: WatchKind): () => void {
    return this.stats.watchEventCounter(gvk);
  }

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
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/**
 * The event a watcher with `predicate` sees, or none: ADDED when an object starts matching,
 * DELETED (with its previous state at the new resourceVersion) when it stops, as kube's cacher.
 */
export function filterEvent(
  ev: ObjectEvent,
  predicate: WatchOptions['predicate'],
): { type: WatchEventType; object: KubeObject } | undefined {
  if (!predicate) return { type: ev.type, object: ev.object };
  const now = ev.type !== 'DELETED' && predicate(ev.object);
  const before = ev.previous !== undefined && predicate(ev.previous);
  if (ev.type === 'DELETED') return predicate(ev.object) ? { type: 'DELETED', object: ev.object } : undefined;
  if (now && !before) return { type: 'ADDED', object: ev.object };
  if (now && before) return { type: 'MODIFIED', object: ev.object };
  if (!now && before) {
    const previous = ev.previous!;
    return {
      type: 'DELETED',
      object: { ...previous, metadata: { ...previous.metadata, resourceVersion: String(ev.revision) } },
    };
  }
  return undefined;
}

/** kube's validateWatchOptions (metainternalversion validation), with WatchList enabled. */
export function validateWatchOptions(
  o: Pick<WatchOptions, 'resourceVersionMatch' | 'sendInitialEvents'> & { continue: string },
): FieldError[] {
  const errs: FieldError[] = [];
  const match = o.resourceVersionMatch;
  if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errs.push(
      forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
    );
  }
  if (match) {
    if (o.sendInitialEvents === undefined) {
      errs.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        ),
      );
    }
    if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (o.continue)
      errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}

/**
 * Where a (valid) watch starts: with the current objects as ADDED events, or after a revision.
 * With sendInitialEvents, the state "not older than" rv: we always have the newest.
 */
export function watchStart(o: Pick<WatchOptions, 'resourceVersion' | 'sendInitialEvents'>): {
  initial: boolean;
  afterRevision: number | undefined;
} {
  if (o.sendInitialEvents !== undefined)
    return {
      initial: o.sendInitialEvents,
      afterRevision: o.sendInitialEvents ? undefined : numeric(o.resourceVersion),
    };
  return { initial: o.resourceVersion === '' || o.resourceVersion === '0', afterRevision: numeric(o.resourceVersion) };
}

const numeric = (rv: string): number | undefined => (rv === '' || rv === '0' ? undefined : Number(rv));

/** Where a watch's events go: a chunked HTTP response or a WebSocket. */
export interface WatchSink {
  /** Called once the start is known to be good, before the first event; `typeMeta` is the kind watched. */
  open(typeMeta?: { apiVersion: string; kind: string }): void;
  /** One event document, serialised. */
  send(event: string): void;
  /** Whether the client keeps up: false once the connection buffers enough, until it drains. */
  ready(): boolean;
  /** Called each time the client has taken what was buffered after `ready()` said false. */
  onDrain(listener: () => void): void;
  /** Bytes accepted but not yet taken by the client. */
  buffered(): number;
  /**
   * The server ends the watch normally. With `graceMs`, for a client cut off for falling behind,
   * the connection closes after the end, and is dropped if the client has not taken it by then.
   */
  end(graceMs?: number): void;
  onClose(listener: () => void): void;
}

/** The last event transcoded: watchers of one resource are handed the same text one after another. */
let lastFrame: { text: string; frame: Buffer } | undefined;

/**
 * A JSON event document as a protobuf frame; an object without an encoding throws, except a
 * bookmark's (the kind's own, in a metadata-only watch of a custom resource), which is left out:
 * bookmarks are hints a client does without.
 */
function protobufFrame(text: string): Buffer | undefined {
  if (lastFrame?.text === text) return lastFrame.frame;
  const event = parseJSON(text) as { type: string; object: unknown };
  if (event.type === 'BOOKMARK' && !canEncodeProtobuf(event.object)) return undefined;
  const frame = encodeProtobufWatchEvent(event.type, event.object);
  lastFrame = { text, frame };
  return frame;
}

/** A watch over HTTP, in the media type the request negotiated (JSON or protobuf: those that stream). */
export function httpWatchSink(res: ServerResponse, mediaType: ReplyMediaType): WatchSink {
  // The response lets go of its socket as soon as its end is buffered, well before it is sent.
  const socket = res.socket;
  const protobuf = mediaType === PROTOBUF_MEDIA_TYPE;
  return {
    open() {
      // kube names a stream's framing in its media type, except JSON's.
      const contentType = protobuf ? `${PROTOBUF_MEDIA_TYPE};stream=watch` : 'application/json';
      res.writeHead(200, {
        'Content-Type': contentType,
        'Transfer-Encoding': 'chunked',
        'Cache-Control': 'no-cache, private',
      });
      res.flushHeaders();
    },
    send(event) {
      if (!protobuf) return void res.write(`${event}\n`);
      try {
        const frame = protobufFrame(event);
        if (frame) res.write(frame);
      } catch {
        // No encoding for what the stream carries: nothing a protobuf client could read; it re-lists.
        res.destroy();
      }
    },
    ready: () => !res.writableNeedDrain,
    onDrain: (listener) => void res.on('drain', listener),
    buffered: () => res.writableLength,
    end(graceMs) {
      if (!res.destroyed) res.end();
      if (graceMs === undefined || !socket || socket.destroyed) return;
      socket.end();
      const drop = setTimeout(() => socket.destroy(), graceMs);
      drop.unref();
      socket.once('close', () => clearTimeout(drop));
    },
    onClose: (listener) => void res.once('close', listener),
  };
}

/**
 * Events held back while the client is behind, oldest first. Live events are counted against the
 * watcher's limits; the initial list is serialised only when its turn comes, as kube's cacher
 * feeds a watcher its initial events at the pace the client takes them.
 */
class PendingEvents {
  private items: (Serialized | (() => string) | undefined)[] = [];
  private head = 0;
  events = 0;
  bytes = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(event: Serialized): void {
    this.items.push(event);
    this.events++;
    this.bytes += event.bytes;
  }

  pushInitial(serialize: () => string): void {
    this.items.push(serialize);
  }

  shift(): string {
    const item = this.items[this.head]!;
    // A taken item must not be kept alive; the slots go when the queue empties, or now and then.
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) this.clearSlots();
    else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    if (typeof item === 'function') return item();
    this.events--;
    this.bytes -= item.bytes;
    return item.text;
  }

  clear(): void {
    this.clearSlots();
    this.events = 0;
    this.bytes = 0;
  }

  private clearSlots(): void {
    this.items = [];
    this.head = 0;
  }
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
        for (const ev of shown) pending.pushInitial(() => serializeEvent(ev.type, ev.object, o).text);
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
            pending.pushInitial(() => stringifyJSON({ type: ev.type, object: o.render(converted[i]!) })),
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
