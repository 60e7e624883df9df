// Equality of JSON data, as kube's equality.Semantic.DeepEqual compares decoded objects.

/**
 * Deep equality of JSON data, key-order-insensitive. A member whose value is `undefined` counts as
 * absent, as it would once serialized. Pairs wait on an explicit stack rather than the call stack,
 * so documents nested 10,000 deep (what kube's decoder accepts) compare too.
 */
export const deepEqual = (a: unknown, b: unknown): boolean => jsonEqual(a, b, false);

/**
 * Whether two JSON values are written as the same text: deepEqual, with every object's members in
 * the same order. For values decoded from storage, where one may stand in for the other in what is
 * served.
 */
export const sameJson = (a: unknown, b: unknown): boolean => jsonEqual(a, b, true);

function jsonEqual(a: unknown, b: unknown, inOrder: boolean): boolean {
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], y[i]);
      continue;
    }
    const rx = x as Record<string, unknown>;
    const ry = y as Record<string, unknown>;
    const kx = Object.keys(rx).filter((k) => rx[k] !== undefined);
    if (inOrder) {
      const ky = Object.keys(ry).filter((k) => ry[k] !== undefined);
      if (kx.length !== ky.length || kx.some((k, i) => k !== ky[i])) return false;
    } else {
      let ny = 0;
      for (const k of Object.keys(ry)) if (ry[k] !== undefined) ny++;
      if (kx.length !== ny || !kx.every((k) => Object.hasOwn(ry, k))) return false;
    }
    for (const k of kx) pending.push(rx[k], ry[k]);
  }
  return true;
}
