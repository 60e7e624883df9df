// A watch's events: what a watcher with selectors sees of a change (as kube's cacher filters
// it), each event document serialised once for every watcher that renders it alike, and the
// queue of those held back while the client is behind.
import type { KubeObject } from '../../../apimachinery/object.js';
import type { ObjectEvent } from '../../registry/store.js';
import { goEncoderText } from '../../../apimachinery/go-json.js';
import { stringifyJSON } from '../../../apimachinery/json.js';
import type { WatchOptions } from './options.js';

/**
 * Each event is serialised once per way of rendering it, and the text shared by every watcher
 * (the watch cache hands all of them the same object); it lives as long as the object does.
 */
const serialized = new WeakMap<KubeObject, Map<string, Serialized>>();

/**
 * An event document (JSON as kube's serializer writes it: Go's escapes) and its size in UTF-8,
 * measured once however many watchers queue it; each kind of sink writes it in bytes it makes
 * once for every watcher (sink.ts).
 */
export interface Serialized {
  text: string;
  bytes: number;
}

export function measured(json: string): Serialized {
  const text = goEncoderText(json);
  return { text, bytes: Buffer.byteLength(text) };
}

export function serializeEvent(type: WatchEventType, object: KubeObject, o: WatchOptions): Serialized {
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

/**
 * Events held back while the client is behind, oldest first. Live events are counted against the
 * watcher's limits; the initial list is serialised only when its turn comes, as kube's cacher
 * feeds a watcher its initial events at the pace the client takes them.
 */
export class PendingEvents {
  private items: (Serialized | (() => Serialized) | undefined)[] = [];
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

  pushInitial(serialize: () => Serialized): void {
    this.items.push(serialize);
  }

  shift(): Serialized {
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
    return item;
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
