// The Kubernetes CEL environment on top of @marcbachmann/cel-js, which the admission policies
// (admission.ts) still run on until they move onto cel/ as the CRD rules have: kube's function
// libraries (k8s.io/apiserver/pkg/cel/library and cel-go's strings extension), RE2 regular
// expressions through re2js, and a runtime cost meter.
//
// The engine has no cost hook, so the meter wraps its single evaluation entry point
// (Evaluator.run, through which every AST node is evaluated): each non-literal node costs 1, a
// comprehension step costs its loop bookkeeping as cel-go counts it, and functions whose cost
// grows with their input (strings, regexes, lists) charge that size. Once over the limit, every
// further node throws at once (errors swallowed by `||`, `&&`, all() and exists() cannot revive
// the evaluation), so a hostile object stops within the limit. The same hook holds arithmetic and
// call results to CEL's ranges (core.ts checkRange: int64 overflow, years 1-9999).
//
// Built-ins whose engine semantics differ from kube's (`matches` uses JS RegExp, which
// backtracks; lowerAscii/upperAscii change non-ASCII letters; trim, int, uint, timestamp,
// duration and the time getters, see conversions.ts, time.ts) are renamed in the
// parsed AST before type checking to our overloads; error messages map the names back.
// Overloads the engine lacks are added beside them (core.ts, optionals.ts).
//
// Hostile input: a source is checked against cel-go's size and depth limits before the engine
// parses it (limits.ts), and regexes are compiled through regex.ts (Go's errors, a bound on what
// one pattern may cost to compile, a bounded cache), each call charged kube's cost first and then,
// step by step before it runs, the request's regex work budget (REGEX_WORK_BUDGET).
import { Environment, Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { conversionRenames, registerConversions } from './conversions.js';
import { checkRange, registerCoreOverloads } from './core.js';
import { formatString } from '../../cel/kube/strings-format.js';
import { quote, trim } from '../../cel/kube/strings-text.js';
import {
  Duration as CelDuration,
  MapValue,
  OptionalValue,
  Timestamp,
  TypeValue,
  Uint,
  type Value,
} from '../../cel/values.js';
import { codePointCount } from './limits.js';
import { registerKubernetesLibraries } from './library.js';
import { registerOptionals } from './optionals.js';
import { type RegexBudget, RegexError, type RegexWork, regexFindAll, regexMatches } from '../../cel/regex.js';
// admission/ reads the budget from here until it moves onto cel/.
export { REGEX_WORK_BUDGET, type RegexBudget } from '../../cel/regex.js';
import { durationNanos, registerTimeLibrary, timeRenames } from './time.js';

// ---------------------------------------------------------------------------------------------
// Cost meter

export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

interface Meter {
  active: boolean;
  cost: number;
  limit: number;
  exceeded: boolean;
  /** The request's regex work budget, when the evaluation is charged one. */
  regex?: RegexBudget;
  /** The evaluation stopped because regex work would have overrun `regex`. */
  regexRefused: boolean;
}

export const meter: Meter = { active: false, cost: 0, limit: Infinity, exceeded: false, regexRefused: false };

/** Charges regex work to the running evaluation's regex budget; refuses (throws) past it. */
const regexWork: RegexWork = (units) => {
  const b = meter.active ? meter.regex : undefined;
  if (b === undefined) return;
  if (units > b.remaining) {
    // As for the cost limit, every further node throws at once.
    meter.exceeded = true;
    meter.regexRefused = true;
    throw new CostLimitExceeded();
  }
  b.remaining -= units;
};

/** Adds `n` to the running evaluation's cost (library functions call it for their size cost). */
export function charge(n: number): void {
  if (!meter.active) return;
  meter.cost += n;
  if (meter.exceeded || meter.cost > meter.limit) {
    meter.exceeded = true;
    throw new CostLimitExceeded();
  }
}

export interface MeteredResult<T> {
  value?: T;
  error?: unknown;
  cost: number;
  /** Stopped: the cost limit was reached, or regex work would have overrun the regex budget. */
  exceeded: boolean;
  /** Stopped by the regex budget (REGEX_WORK_BUDGET), before the refused step ran. */
  regexRefused: boolean;
}

/**
 * Runs `fn` with the meter armed at `limit` (and regex work charged to `regex`, when given);
 * returns its result or error and the cost spent.
 */
export function metered<T>(limit: number, fn: () => T, regex?: RegexBudget): MeteredResult<T> {
  meter.active = true;
  meter.cost = 0;
  meter.limit = limit;
  meter.exceeded = false;
  meter.regex = regex;
  meter.regexRefused = false;
  try {
    const value = fn();
    return meter.exceeded
      ? { error: new CostLimitExceeded(), cost: meter.cost, exceeded: true, regexRefused: meter.regexRefused }
      : { value, cost: meter.cost, exceeded: false, regexRefused: false };
  } catch (error) {
    return {
      error: meter.exceeded ? new CostLimitExceeded() : error,
      cost: meter.cost,
      exceeded: meter.exceeded,
      regexRefused: meter.regexRefused,
    };
  } finally {
    meter.active = false;
    meter.regex = undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Engine AST access (the engine's parsed nodes; not part of its typed API)

export interface EngineNode {
  op: string;
  args: unknown;
  pos: number;
  start: number;
  end: number;
  meta: { alternate?: EngineNode; macro?: { args?: EngineNode[] } };
  checkedType?: { name: string };
  iterCost?: number;
  /** The node can compute a value outside CEL's ranges (arithmetic, calls): checked after evaluation. */
  rangeChecked?: boolean;
}

function isNode(x: unknown): x is EngineNode {
  return typeof x === 'object' && x !== null && typeof (x as EngineNode).op === 'string' && 'pos' in (x as object);
}

/** Visits a node and its children, the expanded form of a macro included. */
function walk(n: EngineNode, f: (n: EngineNode) => void, seen = new Set<EngineNode>()): void {
  if (seen.has(n)) return;
  seen.add(n);
  f(n);
  for (const c of children(n)) walk(c, f, seen);
}

/** Our overloads standing in for engine built-ins with other semantics. */
export const renamed: Record<string, string> = {
  matches: 'k8s_matches',
  lowerAscii: 'k8s_lowerAscii',
  upperAscii: 'k8s_upperAscii',
  trim: 'k8s_trim',
  // int()/uint() ranges and overloads (conversions.ts); timestamp()/duration() and the time getters (time.ts).
  ...conversionRenames,
  ...timeRenames,
};
export const unrenamed = Object.fromEntries(Object.entries(renamed).map(([k, v]) => [v, k]));

/** Operators and calls whose result may leave CEL's ranges; other nodes pass values through. */
const RANGE_CHECKED_OPS = new Set(['+', '-', '*', '/', '%', '-_', 'call', 'rcall']);

/** The children of a node, the expanded form of a macro included (as walk visits them). */
function children(n: EngineNode): EngineNode[] {
  const out: EngineNode[] = [];
  const add = (x: unknown): void => {
    if (isNode(x)) out.push(x);
    else if (Array.isArray(x)) x.forEach(add);
  };
  const a = n.args;
  if (Array.isArray(a)) a.forEach(add);
  else if (isNode(a)) out.push(a);
  else if (n.op === 'comprehension' && a && typeof a === 'object') {
    const c = a as Record<string, unknown>;
    for (const k of ['iterable', 'init', 'step']) add(c[k]);
  }
  if (n.meta.alternate) out.push(n.meta.alternate);
  if (n.meta.macro?.args) add(n.meta.macro.args);
  return out;
}

/**
 * Balances `&&` and `||` chains as cel-go's parser does (parser/helper.go balancer): the engine
 * builds them left-deep, one level per operand, and kube accepts chains far longer than the
 * recursive checker and evaluator can descend. Iterative, since the chain is what is deep.
 */
export function balanceLogic(root: EngineNode): void {
  const todo = [root];
  const seen = new Set<EngineNode>();
  while (todo.length > 0) {
    const n = todo.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    if ((n.op === '&&' || n.op === '||') && Array.isArray(n.args)) {
      // ops[0] is n; the operands, left to right, are the innermost left operand and the right ones.
      const ops: EngineNode[] = [];
      let x: EngineNode = n;
      while (x.op === n.op && Array.isArray(x.args) && isNode(x.args[0])) {
        ops.push(x);
        x = x.args[0];
      }
      const terms = [x, ...ops.map((o) => (o.args as EngineNode[])[1]!).reverse()];
      if (ops.length > 2) {
        const spare = ops.slice(1);
        // cel-go's balancedTree over operators lo..hi (operator i joins terms i and i+1).
        const build = (lo: number, hi: number, node: EngineNode): EngineNode => {
          const mid = (lo + hi + 1) >> 1;
          const left = mid === lo ? terms[mid]! : build(lo, mid - 1, spare.pop()!);
          const right = mid === hi ? terms[mid + 1]! : build(mid + 1, hi, spare.pop()!);
          node.args = [left, right];
          node.pos = node.start = left.start;
          node.end = right.end;
          return node;
        };
        build(0, ops.length - 1, n);
      }
      for (const o of ops) seen.add(o);
      todo.push(...terms);
      continue;
    }
    todo.push(...children(n));
  }
}

/**
 * Prepares a parsed AST: `&&`/`||` balanced, kube's overloads for renamed built-ins, comprehension
 * step costs, range checks.
 */
export function prepareAst(root: EngineNode): void {
  balanceLogic(root);
  walk(root, (n) => {
    if (RANGE_CHECKED_OPS.has(n.op)) n.rangeChecked = true;
    if ((n.op === 'rcall' || n.op === 'call') && Array.isArray(n.args) && typeof n.args[0] === 'string') {
      const to = renamed[n.args[0]];
      if (to) n.args[0] = to;
    }
    if (n.op === 'comprehension') {
      const step = (n.args as { step?: EngineNode }).step;
      // cel-go: loop condition (@not_strictly_false(__result__): 2) + the accumulator (1).
      if (step) step.iterCost = 3;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Base environment

type Fn = (...args: never[]) => unknown;

class CelNamespaceObject {}
class SetsNamespace extends CelNamespaceObject {}
class StringsNamespace extends CelNamespaceObject {}

const traversal = (n: number): number => Math.ceil(n * 0.1);

/** cel-go's and kube's cost of matches/find/findAll: ⌈(|s| + 1) · 0.1⌉ · ⌈|p| · 0.25⌉, charged before the pattern is compiled or run. */
function regexCallCost(s: string, p: string): number {
  return Math.ceil((codePointCount(s) + 1) * 0.1) * Math.ceil(codePointCount(p) * 0.25);
}

function regexCost(s: string, p: string): void {
  // cel-go charges a call with a cost formula that formula alone; run() already charged this call 1.
  charge(regexCallCost(s, p) - 1);
}

/** kube's find/findAll (n < 0: all matches); a pattern that does not compile is "Illegal regex: <Go's error>". */
function findAll(s: string, p: string, n: number): string[] {
  try {
    return regexFindAll(s, p, n, regexWork);
  } catch (e) {
    throw e instanceof RegexError ? new RegexError(`Illegal regex: ${e.message}`) : e;
  }
}

function codePoints(s: string): string[] {
  return Array.from(s);
}

function celError(msg: string): Error {
  return new Error(msg);
}

/** Deep equality with CEL's semantics (heterogeneous numbers compare by value). */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = typeof a === 'bigint' || typeof a === 'number';
  const nb = typeof b === 'bigint' || typeof b === 'number';
  if (na && nb) return Number(a) === Number(b) && (typeof a !== 'bigint' || typeof b !== 'bigint' || a === b);
  if (Array.isArray(a) && Array.isArray(b)) {
    charge(1);
    return a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  }
  if (a instanceof Map && b instanceof Map) {
    charge(1);
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEquals(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration)
    return a.seconds * 1_000_000_000n + BigInt(a.nanos) === b.seconds * 1_000_000_000n + BigInt(b.nanos);
  return false;
}

function compareValues(a: unknown, b: unknown): number {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw celError('no such overload');
}

function buildBase(): Environment {
  // The engine's own parser limits are lower than kube's (250 levels counted its way, 1,000 list
  // elements, 32 call arguments); kube's are checked before parsing (limits.ts), so these are
  // only a backstop.
  const env = new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: true,
    limits: {
      maxDepth: 1000,
      maxAstNodes: 1_000_000,
      maxListElements: 100_000,
      maxMapEntries: 100_000,
      maxCallArguments: 100_000,
    },
  });
  const fn = (sig: string, f: Fn): void => {
    env.registerFunction(sig, f as (...args: unknown[]) => unknown);
  };

  // The meter's hook: capture the engine's evaluator once and wrap its run().
  let evaluator: { run: (ast: EngineNode, ctx: unknown) => unknown } | undefined;
  fn('k8s_probe(): bool', function (this: typeof evaluator) {
    evaluator = this;
    return true;
  });

  // --- regex (k8s.io/apiserver/pkg/cel/library/regex.go), RE2 semantics
  fn('string.k8s_matches(string): bool', (s: string, p: string) => {
    regexCost(s, p);
    return regexMatches(s, p, regexWork);
  });
  fn('k8s_matches(string, string): bool', (s: string, p: string) => {
    regexCost(s, p);
    return regexMatches(s, p, regexWork);
  });
  fn('string.find(string): string', (s: string, p: string) => {
    regexCost(s, p);
    return findAll(s, p, 1)[0] ?? '';
  });
  fn('string.findAll(string): list<string>', (s: string, p: string) => {
    regexCost(s, p);
    return findAll(s, p, -1);
  });
  fn('string.findAll(string, int): list<string>', (s: string, p: string, limit: bigint) => {
    regexCost(s, p);
    // Go's int(n): any negative count means all; a count past the string's length is all too.
    return findAll(s, p, limit < 0n ? -1 : limit > BigInt(s.length + 1) ? s.length + 1 : Number(limit));
  });

  // --- strings extension (cel-go ext.Strings, version 2 as kube uses): what the engine lacks or does differently
  const ascii = (s: string, up: boolean): string =>
    s.replace(up ? /[a-z]+/g : /[A-Z]+/g, (m) => (up ? m.toUpperCase() : m.toLowerCase()));
  fn('string.k8s_lowerAscii(): string', (s: string) => (charge(traversal(s.length)), ascii(s, false)));
  fn('string.k8s_upperAscii(): string', (s: string) => (charge(traversal(s.length)), ascii(s, true)));
  // The engine's trim() strips JS whitespace (BOM included, U+0085 not); kube's is Go's TrimSpace.
  fn('string.k8s_trim(): string', (s: string) => (charge(traversal(s.length)), trim(s)));
  fn('string.charAt(int): string', (s: string, i: bigint) => {
    const cps = codePoints(s);
    if (i < 0n || i > BigInt(cps.length)) throw celError(`index out of range: ${i}`);
    return cps[Number(i)] ?? '';
  });
  const replace = (s: string, from: string, to: string, n: bigint): string => {
    charge(traversal(s.length));
    if (n === 0n) return s;
    if (n < 0n) return from === '' ? codePoints(s).join(to).replace(/^/, to) + to : s.split(from).join(to);
    let out = '';
    let rest = s;
    let count = 0n;
    while (count < n) {
      const i = rest.indexOf(from);
      if (i < 0) break;
      out += rest.slice(0, i) + to;
      rest = rest.slice(i + from.length);
      count++;
      if (from === '') {
        if (rest === '') break;
        out += rest[0];
        rest = rest.slice(1);
      }
    }
    return out + rest;
  };
  fn('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b, -1n));
  fn('string.replace(string, string, int): string', replace);
  fn('string.format(list<dyn>): string', (f: string, args: unknown[]) => {
    charge(traversal(f.length));
    return formatString(f, args.map(celValue));
  });
  class StringsNs extends StringsNamespace {}
  env.registerType('StringsNamespace', StringsNs);
  env.registerConstant('strings', 'StringsNamespace', new StringsNs());
  fn('StringsNamespace.quote(string): string', (_n: unknown, s: string) => quote(s));

  // --- lists (k8s.io/apiserver/pkg/cel/library/lists.go)
  fn('list<A>.isSorted(): bool', (l: unknown[]) => {
    charge(l.length);
    for (let i = 1; i < l.length; i++) if (compareValues(l[i - 1], l[i]) > 0) return false;
    return true;
  });
  fn('list<int>.sum(): int', (l: bigint[]) => (charge(l.length), l.reduce((a, b) => a + b, 0n)));
  fn('list<double>.sum(): double', (l: number[]) => (charge(l.length), l.reduce((a, b) => a + b, 0)));
  const extreme = (l: unknown[], sign: number): unknown => {
    charge(l.length);
    if (l.length === 0) throw celError(sign < 0 ? 'min called on empty list' : 'max called on empty list');
    return l.reduce((a, b) => (compareValues(b, a) * sign > 0 ? b : a));
  };
  fn('list<A>.min(): A', (l: unknown[]) => extreme(l, -1));
  fn('list<A>.max(): A', (l: unknown[]) => extreme(l, 1));
  fn(
    'list<A>.indexOf(A): int',
    (l: unknown[], x: unknown) => (charge(l.length), BigInt(l.findIndex((y) => celEquals(y, x)))),
  );
  fn('list<A>.lastIndexOf(A): int', (l: unknown[], x: unknown) => {
    charge(l.length);
    for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], x)) return BigInt(i);
    return -1n;
  });

  // --- sets (cel-go ext.Sets)
  class SetsNs extends SetsNamespace {}
  env.registerType('SetsNamespace', SetsNs);
  env.registerConstant('sets', 'SetsNamespace', new SetsNs());
  const has = (l: unknown[], x: unknown): boolean => l.some((y) => celEquals(x, y));
  fn(
    'SetsNamespace.contains(list<A>, list<A>): bool',
    (_n: unknown, a: unknown[], b: unknown[]) => (charge(a.length * b.length), b.every((x) => has(a, x))),
  );
  fn(
    'SetsNamespace.equivalent(list<A>, list<A>): bool',
    (_n: unknown, a: unknown[], b: unknown[]) => (
      charge(a.length * b.length), b.every((x) => has(a, x)) && a.every((x) => has(b, x))
    ),
  );
  fn(
    'SetsNamespace.intersects(list<A>, list<A>): bool',
    (_n: unknown, a: unknown[], b: unknown[]) => (charge(a.length * b.length), b.some((x) => has(a, x))),
  );

  registerCoreOverloads(env);
  registerOptionals(env);
  registerConversions(env);
  registerTimeLibrary(env);
  registerKubernetesLibraries(env);

  // Arm the hook.
  env.evaluate('k8s_probe()', {});
  const proto = Object.getPrototypeOf(evaluator) as { run: (ast: EngineNode, ctx: unknown) => unknown };
  proto.run = function run(this: unknown, ast: EngineNode, ctx: unknown): unknown {
    if (meter.active && ast.op !== 'value') {
      meter.cost += ast.iterCost ?? 1;
      if (meter.exceeded || meter.cost > meter.limit) {
        meter.exceeded = true;
        throw new CostLimitExceeded();
      }
    }
    const v = (ast as unknown as { evaluate: (ev: unknown, a: EngineNode, c: unknown) => unknown }).evaluate(
      this,
      ast,
      ctx,
    );
    if (ast.rangeChecked) checkRange(v);
    return v;
  };
  return env;
}

let base: Environment | undefined;
/** The engine's value as cel/'s, for the one format() both share (until admission/ moves onto cel/). */
function celValue(v: unknown): Value {
  if (v instanceof UnsignedInt) return new Uint(v.value);
  if (v instanceof Date) return new Timestamp(BigInt(v.getTime()) * 1_000_000n);
  if (v instanceof Duration) return new CelDuration(durationNanos(v));
  if (v instanceof Optional) return v.hasValue() ? OptionalValue.of(celValue(v.value())) : OptionalValue.NONE;
  if (Array.isArray(v)) return v.map(celValue);
  if (v instanceof Map) {
    const m = new MapValue();
    for (const [k, x] of v) m.set(celValue(k) as string, celValue(x));
    return m;
  }
  if (typeof v === 'object' && v !== null) {
    // The engine's type values (its unexported class Type), which names null's type 'null'.
    const name = (v as { name?: unknown }).name;
    if (v.constructor?.name === 'Type' && typeof name === 'string')
      return TypeValue.of(name === 'null' ? 'null_type' : name === 'optional' ? 'optional_type' : name);
    const m = new MapValue();
    for (const [k, x] of Object.entries(v)) m.set(k, celValue(x));
    return m;
  }
  return v as Value;
}

/** The shared Kubernetes base environment (clone it to add `self`'s types). */
export function baseEnv(): Environment {
  return (base ??= buildBase());
}

const functionNamesByEnv = new WeakMap<Environment, Set<string>>();
/** The names an expression may call in `env`: the macros and the environment's functions. */
export function functionNamesOf(env: Environment): Set<string> {
  let names = functionNamesByEnv.get(env);
  if (!names) {
    names = new Set<string>([
      'has',
      'all',
      'exists',
      'exists_one',
      'map',
      'filter',
      'bind',
      'matches',
      'lowerAscii',
      'upperAscii',
    ]);
    const defs = env.getDefinitions() as { functions: { name: string }[] };
    for (const f of defs.functions) names.add(f.name);
    functionNamesByEnv.set(env, names);
  }
  return names;
}
