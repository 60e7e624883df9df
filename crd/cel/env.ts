// The Kubernetes CEL environment on top of @marcbachmann/cel-js: kube's function libraries
// (k8s.io/apiserver/pkg/cel/library and cel-go's strings extension), RE2 regular expressions
// through re2js, and a runtime cost meter.
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
// duration and the time getters, see format.ts, conversions.ts, time.ts) are renamed in the
// parsed AST before type checking to our overloads; error messages map the names back.
// Overloads the engine lacks are added beside them (core.ts, optionals.ts).
import { Environment } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { RE2JS } from 're2js';
import { conversionRenames, registerConversions } from './conversions.js';
import { checkRange, registerCoreOverloads } from './core.js';
import { formatString, quote, trim } from './format.js';
import { registerKubernetesLibraries } from './library.js';
import { registerOptionals } from './optionals.js';
import { registerTimeLibrary, timeRenames } from './time.js';

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
}

export const meter: Meter = { active: false, cost: 0, limit: Infinity, exceeded: false };

/** Adds `n` to the running evaluation's cost (library functions call it for their size cost). */
export function charge(n: number): void {
  if (!meter.active) return;
  meter.cost += n;
  if (meter.exceeded || meter.cost > meter.limit) {
    meter.exceeded = true;
    throw new CostLimitExceeded();
  }
}

/** Runs `fn` with the meter armed at `limit`; returns its result or error and the cost spent. */
export function metered<T>(limit: number, fn: () => T): { value?: T; error?: unknown; cost: number; exceeded: boolean } {
  meter.active = true;
  meter.cost = 0;
  meter.limit = limit;
  meter.exceeded = false;
  try {
    const value = fn();
    return meter.exceeded ? { error: new CostLimitExceeded(), cost: meter.cost, exceeded: true } : { value, cost: meter.cost, exceeded: false };
  } catch (error) {
    return { error: meter.exceeded ? new CostLimitExceeded() : error, cost: meter.cost, exceeded: meter.exceeded };
  } finally {
    meter.active = false;
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

export function isNode(x: unknown): x is EngineNode {
  return typeof x === 'object' && x !== null && typeof (x as EngineNode).op === 'string' && 'pos' in (x as object);
}

/** Visits a node and its children, the expanded form of a macro included. */
export function walk(n: EngineNode, f: (n: EngineNode) => void, seen = new Set<EngineNode>()): void {
  if (seen.has(n)) return;
  seen.add(n);
  f(n);
  const visit = (x: unknown): void => {
    if (isNode(x)) walk(x, f, seen);
    else if (Array.isArray(x)) x.forEach(visit);
  };
  const a = n.args;
  if (Array.isArray(a)) a.forEach(visit);
  else if (isNode(a)) walk(a, f, seen);
  else if (n.op === 'comprehension' && a && typeof a === 'object') {
    const c = a as Record<string, unknown>;
    for (const k of ['iterable', 'init', 'step']) visit(c[k]);
  }
  if (n.meta.alternate) walk(n.meta.alternate, f, seen);
  if (n.meta.macro?.args) visit(n.meta.macro.args);
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

/** Prepares a parsed AST: kube's overloads for renamed built-ins, comprehension step costs, range checks. */
export function prepareAst(root: EngineNode): void {
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

const regexCache = new Map<string, RE2JS>();
export function re2(pattern: string): RE2JS {
  let r = regexCache.get(pattern);
  if (!r) {
    r = RE2JS.compile(pattern);
    if (regexCache.size > 500) regexCache.clear();
    regexCache.set(pattern, r);
  }
  return r;
}

function regexCost(s: string, p: string): void {
  charge(Math.ceil((s.length + 1) * 0.1) * Math.ceil(p.length * 0.25));
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
  if (a instanceof Duration && b instanceof Duration) return a.seconds * 1_000_000_000n + BigInt(a.nanos) === b.seconds * 1_000_000_000n + BigInt(b.nanos);
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
  const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true });
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
    return re2(p).matcher(s).find();
  });
  fn('k8s_matches(string, string): bool', (s: string, p: string) => {
    regexCost(s, p);
    return re2(p).matcher(s).find();
  });
  fn('string.find(string): string', (s: string, p: string) => {
    regexCost(s, p);
    const m = re2(p).matcher(s);
    return m.find() ? (m.group(0) ?? '') : '';
  });
  const findAll = (s: string, p: string, limit: bigint): string[] => {
    regexCost(s, p);
    const out: string[] = [];
    if (limit === 0n) return out;
    const m = re2(p).matcher(s);
    while (m.find()) {
      out.push(m.group(0) ?? '');
      if (limit > 0n && BigInt(out.length) >= limit) break;
    }
    return out;
  };
  fn('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n));
  fn('string.findAll(string, int): list<string>', findAll);

  // --- strings extension (cel-go ext.Strings, version 2 as kube uses): what the engine lacks or does differently
  const ascii = (s: string, up: boolean): string => s.replace(up ? /[a-z]+/g : /[A-Z]+/g, (m) => (up ? m.toUpperCase() : m.toLowerCase()));
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
    return formatString(f, args);
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
  fn('list<A>.indexOf(A): int', (l: unknown[], x: unknown) => (charge(l.length), BigInt(l.findIndex((y) => celEquals(y, x)))));
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
  fn('SetsNamespace.contains(list<A>, list<A>): bool', (_n: unknown, a: unknown[], b: unknown[]) => (charge(a.length * b.length), b.every((x) => has(a, x))));
  fn('SetsNamespace.equivalent(list<A>, list<A>): bool', (_n: unknown, a: unknown[], b: unknown[]) => (charge(a.length * b.length), b.every((x) => has(a, x)) && a.every((x) => has(b, x))));
  fn('SetsNamespace.intersects(list<A>, list<A>): bool', (_n: unknown, a: unknown[], b: unknown[]) => (charge(a.length * b.length), b.some((x) => has(a, x))));

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
    const v = (ast as unknown as { evaluate: (ev: unknown, a: EngineNode, c: unknown) => unknown }).evaluate(this, ast, ctx);
    if (ast.rangeChecked) checkRange(v);
    return v;
  };
  return env;
}

let base: Environment | undefined;
/** The shared Kubernetes base environment (clone it to add `self`'s types). */
export function baseEnv(): Environment {
  return (base ??= buildBase());
}

// ---------------------------------------------------------------------------------------------
// One expression, as a rule is compiled and run (for tools: the cel-spec conformance runner, bench/cel)

export interface CompiledExpression {
  /** The checked result type ('dyn' when compiled without the type check). */
  type: string;
  /** Evaluates with `bindings` under the cost meter (`limit`: unbounded by default); throws what evaluation throws. */
  evaluate(bindings?: Record<string, unknown>, limit?: number): unknown;
}

const exprEnvs = new Map<string, Environment>();

export interface CompileOptions {
  /** Type-check before evaluating (default true; kube checks every rule). */
  check?: boolean;
  /**
   * Require list and map literals to be of one type (default true): kube's environment sets
   * cel-go's HomogeneousAggregateLiterals; the CEL spec (and its conformance tests) does not.
   */
  homogeneousLiterals?: boolean;
}

/**
 * Compiles `src` in the Kubernetes base environment with `variables` (name → CEL type, e.g.
 * `int`, `list<string>`, `dyn`) declared, as compile.ts compiles a rule: parsed, kube's overloads
 * swapped in, type-checked (unless `check: false`). Throws the parse or check error.
 */
export function compileExpression(src: string, variables: Record<string, string> = {}, opts: CompileOptions = {}): CompiledExpression {
  const homogeneous = opts.homogeneousLiterals !== false;
  const key = JSON.stringify([homogeneous, Object.entries(variables).sort(([a], [b]) => (a < b ? -1 : 1))]);
  let env = exprEnvs.get(key);
  if (!env) {
    env = homogeneous ? baseEnv().clone() : baseEnv().clone({ homogeneousAggregateLiterals: false });
    for (const [name, type] of Object.entries(variables)) env.registerVariable(name, type);
    if (exprEnvs.size > 64) exprEnvs.clear();
    exprEnvs.set(key, env);
  }
  const program = env.parse(src) as unknown as ((ctx?: Record<string, unknown>) => unknown) & { ast: unknown; check(): { valid: boolean; type?: string; error?: unknown } };
  prepareAst(program.ast as EngineNode);
  let type = 'dyn';
  if (opts.check !== false) {
    const c = program.check();
    if (!c.valid) throw c.error;
    type = c.type ?? 'dyn';
  }
  return {
    type,
    evaluate(bindings = {}, limit = Infinity) {
      // The root node is evaluated outside the engine's run(), so its range is checked here.
      const r = metered(limit, () => {
        const v = program(bindings);
        checkRange(v);
        return v;
      });
      if (r.error !== undefined) throw r.error;
      return r.value;
    },
  };
}
