// Validation ratcheting's correlation of the old object with the new (k8s.io/apiserver/pkg/cel/
// common CorrelatedObject): through object keys and x-kubernetes-list-type=map keys, whether a
// value is unchanged, so that its errors can be dropped.
import { goQuote } from '../../../apimachinery/field-errors.js';
import {
  type DPath,
  type FloatInfo,
  type ValidationContext,
  dchild,
  dindex,
  goDeepEqual,
  goFixed6,
  goIntString,
  goKind,
  plainFloat,
} from './go-values.js';
import { isJsonObject } from '../../../apimachinery/object.js';
import { type Node, additionalSchema } from './schema-node.js';
import { scalarIdentity } from './list-types.js';

const UNKEYED = Symbol('unkeyed');

/** The composite key of an x-kubernetes-list-type=map element (common.MapList key strategies). */
function mapListKey(n: Node, item: unknown, dpath: DPath, isFloat: FloatInfo): string | typeof UNKEYED {
  if (!isJsonObject(item)) return UNKEYED;
  if (n.listMapKeys.length === 1) {
    const k = n.listMapKeys[0]!;
    if (!Object.hasOwn(item, k)) return UNKEYED;
    const v = item[k];
    return scalarIdentity(v, goKind(v, dchild(dpath, k), isFloat)) ?? UNKEYED;
  }
  let out = 'm:';
  for (const k of n.listMapKeys) {
    if (!Object.hasOwn(item, k)) return UNKEYED;
    const v = item[k];
    switch (goKind(v, dchild(dpath, k), isFloat)) {
      case 'bool':
        out += `\0${String(v)}`;
        break;
      case 'int':
        out += `\0${goIntString(v as number)}`;
        break;
      case 'float':
        out += `\0${goFixed6(v as number)}`;
        break;
      case 'string':
        out += `\0${goQuote(v as string)}`;
        break;
      default:
        return UNKEYED;
    }
  }
  return out;
}

/** Lazily keyed old elements of a map-type list (first element wins for a key). */
class MapList {
  private keyed = new Map<string, unknown>();
  private next = 0;
  constructor(
    private readonly node: Node,
    private readonly items: unknown[],
  ) {}
  get(item: unknown, dpath: DPath, isFloat: FloatInfo): unknown {
    const n = this.node;
    if (n.rawType !== 'array' || n.listType !== 'map' || n.listMapKeys.length === 0 || this.items.length === 0)
      return undefined;
    const k = mapListKey(n, item, dpath, isFloat);
    if (k === UNKEYED) return undefined;
    if (this.keyed.has(k)) return this.keyed.get(k);
    while (this.next < this.items.length) {
      const old = this.items[this.next++];
      const ok = mapListKey(n, old, undefined, plainFloat);
      if (ok === UNKEYED) continue;
      if (!this.keyed.has(ok)) this.keyed.set(ok, old);
      if (ok === k) return old;
    }
    return undefined;
  }
}

/** kube's CorrelatedObject: a node of the new object with its old counterpart, for ratcheting and CEL's oldSelf. */
export interface Correlation {
  readonly oldValue: unknown;
  /** A property's or map entry's, when both sides have it. */
  key(field: string): Correlation | null;
  /** A list item's: only x-kubernetes-list-type=map items correlate (by their keys). */
  index(i: number): Correlation | null;
  /** CachedDeepEqual: whether the new value equals the old one (map lists compared by key). */
  deepEqual(): boolean;
}

export class Corr implements Correlation {
  private readonly kids = new Map<string | number, Corr | null>();
  private equal: boolean | undefined;
  private mapList: MapList | undefined;
  constructor(
    readonly oldValue: unknown,
    readonly value: unknown,
    readonly node: Node,
    readonly dpath: DPath,
    readonly ctx: ValidationContext,
  ) {}

  key(field: string): Corr | null {
    const cached = this.kids.get(field);
    if (cached !== undefined) return cached;
    let res: Corr | null = null;
    const o = this.oldValue;
    const v = this.value;
    if (isJsonObject(o) && isJsonObject(v) && Object.hasOwn(o, field) && Object.hasOwn(v, field)) {
      const sub = this.node.properties.get(field) ?? additionalSchema(this.node);
      if (sub) res = new Corr(o[field], v[field], sub, dchild(this.dpath, field), this.ctx);
    }
    this.kids.set(field, res);
    return res;
  }

  index(i: number): Corr | null {
    const cached = this.kids.get(i);
    if (cached !== undefined) return cached;
    let res: Corr | null = null;
    const o = this.oldValue;
    const v = this.value;
    if (Array.isArray(v) && i < v.length && Array.isArray(o) && this.node.listType === 'map') {
      this.mapList ??= new MapList(this.node, o);
      const old = this.mapList.get(v[i], dindex(this.dpath, i), this.ctx.isFloat);
      if (old !== undefined && this.node.items)
        res = new Corr(old, v[i], this.node.items, dindex(this.dpath, i), this.ctx);
    }
    this.kids.set(i, res);
    return res;
  }

  /** CachedDeepEqual. */
  deepEqual(): boolean {
    this.equal ??= this.computeEqual();
    return this.equal;
  }

  private computeEqual(): boolean {
    const o = this.oldValue;
    const v = this.value;
    const oNil = o === null || o === undefined;
    const vNil = v === null || v === undefined;
    if (oNil || vNil) return oNil && vNil;
    if (Array.isArray(o) !== Array.isArray(v) || isJsonObject(o) !== isJsonObject(v)) return false;
    if (Array.isArray(o) && Array.isArray(v)) {
      if (o.length !== v.length) return false;
      for (let i = 0; i < v.length; i++) {
        const c = this.index(i);
        if (!c)
          return this.node.listType === 'map'
            ? false
            : goDeepEqual(o, undefined, plainFloat, v, this.dpath, this.ctx.isFloat);
        if (!c.deepEqual()) return false;
      }
      return true;
    }
    if (isJsonObject(o) && isJsonObject(v)) {
      const keys = Object.keys(v);
      if (Object.keys(o).length !== keys.length) return false;
      return keys.every((k) => this.key(k)?.deepEqual() === true);
    }
    return goDeepEqual(o, undefined, plainFloat, v, this.dpath, this.ctx.isFloat);
  }
}
