// The JSON shapes the registry works on. Objects arrive as untrusted JSON; once decoded and
// validated they are handled as KubeObject, whose metadata the server owns.
import type { Clock } from './clock.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: JsonValue[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** obj[k] = v, also for `__proto__`: an own key JSON.parse makes stays a data member, never the prototype. */
export function setOwn(obj: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(obj, k, { value: v, writable: true, enumerable: true, configurable: true });
  else obj[k] = v;
}

/**
 * A deep copy of plain JSON data (objects from storage or clients hold nothing else; bigints are
 * copied as the primitives they are). An explicit stack, not recursion: a document may nest 10,000
 * deep, past what the call stack (or structuredClone, which recurses) takes; and several times
 * faster than structuredClone on the usual object. With `keep`, object members it refuses are left
 * out of the copy, at any depth.
 */
export function cloneJson<T>(v: T, keep?: (key: string, value: unknown) => boolean): T {
  if (typeof v !== 'object' || v === null) return v;
  const root: unknown = Array.isArray(v) ? new Array<unknown>(v.length) : {};
  // Each container's copy is made empty when it is met and filled when popped; the loops inline
  // that step (no closure per container): the write path clones whole objects several times.
  const from: object[] = [v];
  const to: unknown[] = [root];
  while (from.length > 0) {
    const src = from.pop()!;
    const dst = to.pop();
    if (Array.isArray(src)) {
      const d = dst as unknown[];
      for (let i = 0; i < src.length; i++) {
        const x: unknown = src[i];
        if (typeof x !== 'object' || x === null) d[i] = x;
        else {
          const c: unknown = Array.isArray(x) ? new Array<unknown>(x.length) : {};
          from.push(x);
          to.push(c);
          d[i] = c;
        }
      }
    } else {
      const s = src as Record<string, unknown>;
      const d = dst as Record<string, unknown>;
      const keys = Object.keys(s);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        let x = s[k];
        if (keep && !keep(k, x)) continue;
        if (typeof x === 'object' && x !== null) {
          const c: unknown = Array.isArray(x) ? new Array<unknown>(x.length) : {};
          from.push(x);
          to.push(c);
          x = c;
        }
        if (k === '__proto__') setOwn(d, k, x);
        else d[k] = x;
      }
    }
  }
  return root as T;
}

let lastSecond = NaN;
let lastText = '';

/** kube's timestamps: RFC 3339 in UTC with whole seconds, of `ms` since the epoch. */
export function formatTimestamp(ms: number): string {
  // Every write stamps one or two of these: the text is made once per second, not per call.
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastText = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastText;
}

/** metav1.Time now, on the server's clock. */
export const nowTimestamp = (clock: Clock): string => formatTimestamp(clock.now());
