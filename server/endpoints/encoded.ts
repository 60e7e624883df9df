// Reply bytes of the objects a Store reads, encoded once per way of showing them, as kube's cacher
// wraps each object it holds in a cachingObject that keeps its serializations. A Store's reads are
// the watch cache's own objects, shared by every reader and never mutated (registry/store.ts), so
// the bytes one reply encoded serve every later reply and list item that shows the same object in
// the same media type, version and kind, until the object is replaced and collected. Only what
// needs no conversion is kept: a conversion (a webhook's) is made for every request, as kube makes it.
import type { KubeObject } from '../../apimachinery/object.js';
import type { Body } from './respond.js';

/** Each object's bodies, by how they show it (`encodedOnce`'s key); they go when the object does. */
const bodies = new WeakMap<KubeObject, Map<string, Body>>();

/** The body of `object` shown as `key` says (one media type, version and kind), `encode`d the first time. */
export function encodedOnce(object: KubeObject, key: string, encode: () => Body): Body {
  let byKey = bodies.get(object);
  let body = byKey?.get(key);
  if (!body) {
    if (!byKey) bodies.set(object, (byKey = new Map()));
    byKey.set(key, (body = encode()));
  }
  return body;
}
