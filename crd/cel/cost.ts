// Static cost estimate of a compiled rule, as cel-go's checker.Cost with kube's size estimator
// (apiextensions-apiserver schema/cel/compilation.go sizeEstimator, apiserver/pkg/cel/library
// cost.go): the worst case in CEL cost units, where sizes of strings, lists and maps come from
// maxLength/maxItems/maxProperties or, when unset, from kube's estimate based on the 3 MiB request
// limit. Beyond kube, the estimate remembers which unbounded schema nodes it relied on, so an
// error can say which maxItems/maxLength/maxProperties to add.
import type { EngineNode } from './env.js';
import { isNode, unrenamed } from './env.js';
import { codePointCount } from './limits.js';
import { MAX_REQUEST_SIZE_BYTES, type Decl } from './types.js';

const STRING_TRAVERSAL = 0.1;
const REGEX_STRING_LENGTH = 0.25;
const LIST_CREATE_BASE = 10;
const MAP_CREATE_BASE = 30;
const UNKNOWN_SIZE = Number.MAX_SAFE_INTEGER;

interface Est {
  cost: number;
  /** Max size (string length, list/map elements) when known. */
  size?: number;
  decl?: Decl;
}

export interface CostResult {
  cost: number;
  /** Unbounded schema nodes whose estimated size the cost depends on. */
  unbounded: Decl[];
}

const ceilMul = (n: number, f: number): number => Math.ceil(n * f);

class Estimator {
  readonly unbounded = new Set<Decl>();
  private scopes: Map<string, Decl | undefined>[] = [];

  constructor(private readonly self: Decl | undefined) {}

  private sizeOf(e: Est, node: EngineNode): number {
    if (e.size !== undefined) return e.size;
    if (
      e.decl &&
      (e.decl.kind === 'string' ||
        e.decl.kind === 'bytes' ||
        e.decl.kind === 'list' ||
        e.decl.kind === 'map' ||
        e.decl.kind === 'dyn')
    ) {
      if (e.decl.unbounded) this.unbounded.add(e.decl);
      return e.decl.maxElements;
    }
    if (e.decl) return e.decl.maxElements || 1;
    const t = node.checkedType?.name ?? 'dyn';
    if (/^(string|bytes|list|map|dyn)/.test(t)) return UNKNOWN_SIZE;
    return 1;
  }

  private lookup(name: string): Decl | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) if (this.scopes[i]!.has(name)) return this.scopes[i]!.get(name);
    if (name === 'self' || name === 'oldSelf') return this.self;
    return undefined;
  }

  private field(d: Decl | undefined, name: string): Decl | undefined {
    if (!d) return undefined;
    if (d.kind === 'object') return d.fields?.get(name)?.decl;
    if (d.kind === 'map') return d.elem;
    return undefined;
  }

  est(n: EngineNode): Est {
    const a = n.args as unknown[];
    switch (n.op) {
      case 'value':
        // A string literal's size is its code points, as cel-go's (a regex literal's cost goes by it).
        return {
          cost: 0,
          size: typeof n.args === 'string' ? codePointCount(n.args) : n.args instanceof Uint8Array ? n.args.length : 1,
        };
      case 'id':
        return { cost: 1, decl: this.lookup(n.args as string) };
      case '.':
      case '.?': {
        const o = this.est(a[0] as EngineNode);
        return { cost: o.cost + 1, decl: this.field(o.decl, a[1] as string) };
      }
      case '[]':
      case '[?]': {
        const o = this.est(a[0] as EngineNode);
        const i = this.est(a[1] as EngineNode);
        const d = o.decl?.kind === 'list' || o.decl?.kind === 'map' ? o.decl.elem : undefined;
        return { cost: o.cost + i.cost + 1, decl: d };
      }
      case 'list': {
        let cost = LIST_CREATE_BASE;
        for (const x of a) cost += this.est(x as EngineNode).cost;
        return { cost, size: a.length };
      }
      case 'map': {
        let cost = MAP_CREATE_BASE;
        for (const kv of a as EngineNode[][]) cost += this.est(kv[0]!).cost + this.est(kv[1]!).cost;
        return { cost, size: a.length };
      }
      case '?:': {
        const c = this.est(a[0] as EngineNode);
        const l = this.est(a[1] as EngineNode);
        const r = this.est(a[2] as EngineNode);
        const ls = this.sizeOf(l, a[1] as EngineNode);
        const rs = this.sizeOf(r, a[2] as EngineNode);
        return { cost: c.cost + Math.max(l.cost, r.cost), size: Math.max(ls, rs) };
      }
      case '||':
      case '&&':
        return { cost: this.est(a[0] as EngineNode).cost + this.est(a[1] as EngineNode).cost };
      case '!_':
      case '-_':
        return { cost: 1 + this.est(n.args as EngineNode).cost };
      case 'call':
        return this.call(n, a[0] as string, undefined, a[1] as EngineNode[]);
      case 'rcall':
        return this.call(n, a[0] as string, a[1] as EngineNode, a[2] as EngineNode[]);
      default:
        if (Array.isArray(a) && a.length === 2 && isNode(a[0]) && isNode(a[1])) return this.binary(n.op, a[0], a[1]);
        return { cost: 1 };
    }
  }

  private binary(op: string, ln: EngineNode, rn: EngineNode): Est {
    const l = this.est(ln);
    const r = this.est(rn);
    const args = l.cost + r.cost;
    const lt = ln.checkedType?.name ?? '';
    const isSized = (t: string): boolean =>
      t === 'string' || t === 'bytes' || t.startsWith('list') || t.startsWith('map');
    switch (op) {
      case '==':
      case '!=': {
        const s = Math.min(this.sizeOf(l, ln), this.sizeOf(r, rn));
        return { cost: ceilMul(s, STRING_TRAVERSAL) + args };
      }
      case '<':
      case '<=':
      case '>':
      case '>=':
        if (lt === 'string' || lt === 'bytes')
          return { cost: ceilMul(Math.min(this.sizeOf(l, ln), this.sizeOf(r, rn)), STRING_TRAVERSAL) + args };
        return { cost: 1 + args };
      case '+':
        if (isSized(lt)) {
          const size = this.sizeOf(l, ln) + this.sizeOf(r, rn);
          return {
            cost: ceilMul(size, STRING_TRAVERSAL) + args,
            size,
            decl: lt.startsWith('list') ? l.decl : undefined,
          };
        }
        return { cost: 1 + args };
      case 'in': {
        const rt = rn.checkedType?.name ?? '';
        if (rt.startsWith('list')) return { cost: this.sizeOf(r, rn) + args };
        return { cost: 1 + args };
      }
      default:
        return { cost: 1 + args };
    }
  }

  private comprehension(name: string, recv: EngineNode, args: EngineNode[]): Est {
    const r = this.est(recv);
    const n = this.sizeOf(r, recv);
    const elem = r.decl?.kind === 'list' ? r.decl.elem : r.decl?.kind === 'map' ? keyDecl(r.decl) : undefined;
    const v = args[0]!.op === 'id' ? (args[0]!.args as string) : '';
    this.scopes.push(new Map([[v, elem]]));
    const parts = args.slice(1).map((x) => this.est(x).cost);
    this.scopes.pop();
    const body = parts.reduce((x, y) => x + y, 0);
    let perIter: number;
    let fixed: number;
    switch (name) {
      case 'all':
      case 'exists':
        perIter = body + 3; // __result__ && pred (ident 1) + @not_strictly_false(__result__) (2)
        fixed = 1;
        break;
      case 'exists_one':
        perIter = body + 2;
        fixed = 2;
        break;
      default: // map, filter: __result__ + [x] (list creation 10, concat 1, ident 1)
        perIter = body + LIST_CREATE_BASE + 2;
        fixed = 1;
    }
    const out: Est = { cost: r.cost + fixed + n * perIter };
    if (name === 'map' || name === 'filter') out.size = n;
    if (name === 'filter') out.decl = r.decl;
    return out;
  }

  private call(_node: EngineNode, rawName: string, recv: EngineNode | undefined, args: EngineNode[]): Est {
    const name = unrenamed[rawName] ?? rawName;
    if (
      recv &&
      ['all', 'exists', 'exists_one', 'map', 'filter'].includes(name) &&
      args.length >= 2 &&
      args[0]!.op === 'id'
    ) {
      return this.comprehension(name, recv, args);
    }
    if (recv?.op === 'id' && recv.args === 'cel' && name === 'bind' && args.length === 3) {
      const init = this.est(args[1]!);
      this.scopes.push(new Map([[args[0]!.args as string, init.decl]]));
      const body = this.est(args[2]!);
      this.scopes.pop();
      return { cost: init.cost + body.cost + 1, size: body.size, decl: body.decl };
    }
    if (!recv && name === 'has' && args.length === 1) {
      const inner = args[0]!;
      const o =
        isNode(inner) && Array.isArray(inner.args) && isNode(inner.args[0]) ? this.est(inner.args[0]) : { cost: 0 };
      return { cost: o.cost + 1 };
    }
    if (recv?.op === 'id' && (recv.args === 'sets' || recv.args === 'strings')) {
      const as = args.map((x) => this.est(x));
      const argSum = as.reduce((x, y) => x + y.cost, 0);
      const sz = as.map((x, i) => this.sizeOf(x, args[i]!));
      if (recv.args === 'sets') return { cost: Math.max(1, (sz[0] ?? 1) * (sz[1] ?? 1)) + argSum };
      return { cost: Math.max(1, ceilMul(sz[0] ?? 0, STRING_TRAVERSAL)) + argSum, size: (sz[0] ?? 0) * 2 + 2 };
    }
    const r = recv ? this.est(recv) : undefined;
    const as = args.map((x) => this.est(x));
    const argSum = (r?.cost ?? 0) + as.reduce((x, y) => x + y.cost, 0);
    const rs = (): number => (r && recv ? this.sizeOf(r, recv) : 0);
    const asz = (i: number): number => this.sizeOf(as[i]!, args[i]!);
    switch (name) {
      case 'startsWith':
      case 'endsWith':
        return { cost: ceilMul(asz(0), STRING_TRAVERSAL) + argSum };
      case 'contains':
        return { cost: ceilMul(rs(), STRING_TRAVERSAL) * ceilMul(asz(0), STRING_TRAVERSAL) + argSum };
      case 'matches':
      case 'find':
      case 'findAll': {
        const s = recv ? rs() : asz(0);
        const p = recv ? asz(0) : asz(1);
        const c = ceilMul(s + 1, STRING_TRAVERSAL) * ceilMul(p, REGEX_STRING_LENGTH);
        return name === 'findAll' ? { cost: c + argSum, size: s } : { cost: c + argSum, size: s };
      }
      case 'lowerAscii':
      case 'upperAscii':
      case 'trim':
      case 'substring':
      case 'replace':
      case 'charAt':
      case 'indexOf':
      case 'lastIndexOf':
      case 'split':
      case 'join':
      case 'format':
      case 'quote':
      case 'isSorted':
      case 'sum':
      case 'min':
      case 'max': {
        const size = recv ? rs() : as.length ? asz(0) : 0;
        const listFn =
          ['isSorted', 'sum', 'min', 'max'].includes(name) ||
          ((name === 'indexOf' || name === 'lastIndexOf') && recv?.checkedType?.name.startsWith('list'));
        const c = listFn ? size : ceilMul(size, STRING_TRAVERSAL);
        if (name === 'replace') return { cost: c + argSum, size: size * Math.max(1, as.length > 1 ? asz(1) : 1) };
        return {
          cost: Math.max(1, c) + argSum,
          size: ['charAt', 'indexOf', 'lastIndexOf', 'sum', 'min', 'max', 'isSorted'].includes(name) ? undefined : size,
        };
      }
      case 'size':
        return { cost: 1 + argSum };
      case 'string':
        // string(int|uint|double|bool) is short; string(string|bytes) is its argument.
        if (!recv && as.length === 1) {
          const t = args[0]!.checkedType?.name ?? 'dyn';
          return { cost: 1 + argSum, size: t === 'string' || t === 'bytes' ? asz(0) : 24 };
        }
        return { cost: 1 + argSum };
      default:
        return { cost: 1 + argSum };
    }
  }
}

function keyDecl(map: Decl): Decl {
  return {
    kind: 'string',
    celType: 'string',
    maxElements: MAX_REQUEST_SIZE_BYTES - 2,
    unbounded: false,
    minSerializedSize: 2,
    path: `${map.path} keys`,
    schema: { type: 'string' },
  };
}

/** The worst-case cost of one expression (kube's CompilationResult.MaxCost). */
export function estimateCost(ast: EngineNode, self: Decl | undefined): CostResult {
  const e = new Estimator(self);
  const cost = Math.min(e.est(ast).cost, Number.MAX_SAFE_INTEGER);
  return { cost, unbounded: [...e.unbounded] };
}

/** kube's maxCardinality(minSize): how often a value could repeat in one request. */
export function maxCardinality(minSize: number): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (minSize + 1));
}

/** kube's getCostErrorMessage. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const f = cost / limit;
  let factor: string;
  if (f > 100) factor = 'more than 100x';
  else if (f < 1.5) factor = `${f.toFixed(6)}x`;
  else factor = `${f.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** Beyond kube: which bounds to add. */
export function boundsHint(unbounded: Iterable<Decl>): string {
  const items: string[] = [];
  const seen = new Set<string>();
  for (const d of unbounded) {
    const kw =
      d.kind === 'list'
        ? 'maxItems'
        : d.kind === 'map'
          ? 'maxProperties'
          : d.kind === 'string' || d.kind === 'bytes'
            ? 'maxLength'
            : undefined;
    if (!kw) continue;
    const what = d.kind === 'list' ? 'list' : d.kind === 'map' ? 'map' : d.kind;
    const s = `${what} ${d.path || '<root>'} has no ${kw}`;
    if (!seen.has(s)) seen.add(s), items.push(s);
  }
  return items.length ? `; unbounded: ${items.join(', ')}` : '';
}
