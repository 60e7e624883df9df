// The evaluator: cel-go's interpreter (v0.23.2, kube 1.33's) over a checked AST, or a parsed one when the
// check is disabled. A program is planned once into the source of one JavaScript function (Planner):
// identifiers resolved lexically (comprehension variables are locals of its loops) or against
// the activation, calls bound to the overloads the checker's reference map names (the first
// whose argument types match at run time, so `dyn` arguments dispatch as cel-go dispatches
// them), or to every overload of the name when unchecked. Errors are values (CelError); `&&`, `||` absorb them in either order and `?:`
// evaluates one branch.
//
// The runtime cost is cel-go's (interpreter/runtimecost.go): 1 an identifier, a field
// selection or an index (an attribute and its qualifiers; a qualifier on a value that is not an
// attribute adds the relative attribute's 1), 10, 30, 40 a list, map or message literal, calls
// by cel-go's per-overload table (string and list sizes), constants, `&&`, `||`, `?:` and the
// loop itself free. With `optimize` (cel-go's OptOptimize, which kube turns on) what is constant
// is computed when the program is planned, so free: literals of constants, conversions of a
// constant, and `in` a constant list of primitives (a set lookup). Past the limit the
// evaluation stops with cel-go's "operation cancelled: actual cost limit exceeded". Kube's
// libraries price their own calls through `callCost` (chosen when a call is planned), or charge
// as they work through CallContext.charge.
import { INT64_MAX } from '../apimachinery/int64.js';
import { type ComprehensionExpr, type Constant, type Expr, Operators, type ParsedExpr, subExpressions } from './ast.js';
import type { CheckedAst, Reference } from './checker.js';
import { TWO_VAR_COMPREHENSION_FUNCTIONS } from './comprehensions.js';
import type { FunctionDecl, OverloadDecl } from './decls.js';
import { type CallContext, type Impl, STANDARD_IMPLS, UNMETERED } from './functions.js';
import { OPTIONAL_FUNCTIONS } from './optional.js';
import { compileRegex, type RegexBudget, RegexError, type RegexWork } from './regex.js';
import { STANDARD_FUNCTIONS } from './stdlib.js';
import type { Type } from './types.js';
import {
  actualSize,
  CelError,
  countInt,
  Duration,
  FieldSite,
  isMapKey,
  MapValue,
  noSuchOverload,
  ObjectValue,
  OptionalValue,
  Timestamp,
  TYPE_IDENTIFIERS,
  TypeValue,
  typeName,
  Uint,
  type Val,
  type Value,
} from './values.js';

/** The variables an evaluation sees. */
export interface Activation {
  resolve(name: string): Value | undefined;
}

/** An activation over a record or map of values. */
export function activation(vars: Readonly<Record<string, Value>> | ReadonlyMap<string, Value>): Activation {
  if (vars instanceof Map) return { resolve: (n) => vars.get(n) };
  const rec = vars as Readonly<Record<string, Value>>;
  return { resolve: (n) => (Object.hasOwn(rec, n) ? rec[n] : undefined) };
}

/**
 * cel-go's ActualCostEstimator.CallCost, resolved once per call when a program is planned: how a
 * library prices a call to this function and overload with this many arguments, or undefined
 * for cel-go's default.
 */
export type CallCost = (fn: string, overloadId: string, argCount: number) => CallPrice | undefined;

/** A call's cost from its arguments and result; undefined leaves this call to cel-go's default. */
export type CallPrice = ((args: readonly Val[], result: Val) => number | undefined) & {
  /**
   * Set when only a first argument that is a library's own value (an ObjectValue) has this
   * price: a call on any other takes cel-go's default without asking it.
   */
  readonly ownValuesOnly?: true;
};

export interface ProgramOptions {
  /** The functions calls may bind to (default: the standard, optional and two-variable-comprehension libraries). */
  readonly library?: Library;
  /** The runtime cost the evaluation may reach; past it, it is cancelled (default: no limit). */
  readonly costLimit?: number;
  /** Whether `has()` costs 1 like a selection (cel-go's default, true); kube turns it off. */
  readonly presenceTestHasCost?: boolean;
  readonly callCost?: CallCost;
  /**
   * Functions whose constant pattern (the second argument, the receiver counted first) is
   * compiled when the program is planned, as cel-go's regex optimizations do: a pattern that does
   * not compile makes program() throw a ProgramError with Go's text.
   */
  readonly regexConstants?: readonly string[];
  /**
   * cel-go's OptOptimize: list and map literals of constants, and type conversions of a
   * constant, are computed when the program is planned (free at run time; a conversion that
   * fails makes program() throw a ProgramError), and `in` a constant list of primitives is a set
   * lookup, free too.
   */
  readonly optimize?: boolean;
}

/**
 * Kube's runtime settings (k8s.io/apiserver/pkg/cel/environment/base.go): presence tests are
 * free; cel.OptOptimize folds constants and compiles matches() patterns when the program is
 * built (the regex library adds find and findAll: kube/environment.ts).
 */
export const KUBE_PROGRAM_OPTIONS: ProgramOptions = {
  presenceTestHasCost: false,
  regexConstants: ['matches'],
  optimize: true,
};

/** A program that cannot be built (cel-go's Program() error), e.g. a constant regex that does not compile. */
export class ProgramError extends Error {}

/** One evaluation's limits. */
interface EvalOptions {
  /** The cost this evaluation may reach (default: the program's costLimit). */
  readonly costLimit?: number;
  /** Regex work this evaluation may do (cel/regex.ts REGEX_WORK_BUDGET), spent from the budget as it runs; default none. */
  readonly regexBudget?: RegexBudget;
}

export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

export interface EvalResult {
  /** The value, or the error the expression evaluated to (the cancellation included). */
  readonly value: Val;
  readonly cost: number;
  /** Set when the cost limit or the regex budget stopped the evaluation. */
  readonly exceeded: boolean;
  /** Set when it was the regex budget: the refused work was not done. */
  readonly regexRefused: boolean;
}

/** Thrown through the generated code to stop an evaluation at the limit; caught by Program.eval. */
class CostLimitExceeded extends Error {}

/** One evaluation's state, and then its result: one object per evaluation (a write runs hundreds). */
class Ctx implements CallContext, EvalResult {
  value: Val = null;
  cost = 0;
  exceeded = false;
  regexRefused = false;
  private work: RegexWork | undefined;

  constructor(
    readonly vars: Activation,
    readonly limit: number,
    private readonly regexBudget: RegexBudget | undefined,
  ) {}

  charge(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) this.cancel();
  }

  /** Stops the evaluation: the cost went past the limit. */
  cancel(): never {
    throw new CostLimitExceeded(COST_LIMIT_EXCEEDED);
  }

  /** Made on first use: most evaluations call no regex function. */
  get regexWork(): RegexWork {
    this.work ??= (units: number): void => {
      const b = this.regexBudget;
      if (b === undefined) return;
      if (units > b.remaining) {
        this.regexRefused = true;
        throw new CostLimitExceeded(COST_LIMIT_EXCEEDED);
      }
      b.remaining -= units;
    };
    return this.work;
  }
}

type Compiled = (c: Ctx) => Val;

/** A planned program: the generated function's body and what its `k<i>` names. */
interface Planned {
  readonly source: string;
  readonly constants: readonly unknown[];
}

export class Program {
  private compiled: Compiled | undefined;
  /** Planned, or the planning put off until first needed (see program()). */
  private planned: Planned | (() => Planned);

  constructor(
    planned: Planned | (() => Planned),
    private readonly limit: number,
  ) {
    this.planned = planned;
  }

  /** The generated function's body (tests and debugging); no text of the expression is in it. */
  get source(): string {
    return this.body().source;
  }

  /**
   * Plans it now if it was not (else its first evaluation does): whether it did. A caller about to
   * run many programs in one step plans them first, each a step of its own.
   */
  plan(): boolean {
    const now = typeof this.planned === 'function';
    this.body();
    return now;
  }

  private body(): Planned {
    if (typeof this.planned === 'function') this.planned = this.planned();
    return this.planned;
  }

  eval(vars: Activation, options: EvalOptions = {}): EvalResult {
    // Made on the first evaluation: many programs (a CRD's rules for kinds never written) run never.
    if (this.compiled === undefined) {
      const { source, constants } = this.body();
      this.compiled = new Function('K', source)(constants) as Compiled;
    }
    const c = new Ctx(vars, options.costLimit ?? this.limit, options.regexBudget);
    try {
      c.value = this.compiled(c);
    } catch (e) {
      if (!(e instanceof CostLimitExceeded)) throw e;
      c.value = new CelError(COST_LIMIT_EXCEEDED);
      c.exceeded = true;
    }
    return c;
  }
}

/**
 * Plans a checked AST, or a parsed one (no type check: calls dispatch on every overload of their
 * name). Throws a ProgramError where cel-go's Program() fails (options.regexConstants,
 * options.optimize). The planning itself waits for the first evaluation unless it may fail: a
 * CRD write compiles every rule of every version and runs none of them.
 */
export function program(ast: CheckedAst | ParsedExpr, options: ProgramOptions = {}): Program {
  const plan = (): Planned => new Planner(ast, options).generate(ast.expr);
  return new Program(planningMayFail(ast.expr, options) ? plan() : plan, options.costLimit ?? Infinity);
}

/**
 * Whether planning `root` may throw a ProgramError: a constant pattern of a regexConstants
 * function that does not compile (each one compiled here, into the regex cache the planning
 * reads), or under `optimize` a type conversion of what may be a constant (the planner folds only
 * literals, list and map literals, `in` and conversions: anything else is no constant). Such a
 * program is planned at once, so its error is the planner's own, first in the planner's order.
 */
function planningMayFail(root: Expr, options: ProgramOptions): boolean {
  const mayBeConstant = (e: Expr): boolean =>
    e.kind === 'constant' ||
    e.kind === 'list' ||
    e.kind === 'struct' ||
    (e.kind === 'call' && (e.function === Operators.in || TYPE_CONVERSIONS.has(e.function)));
  const stack = [root];
  for (let e = stack.pop(); e !== undefined; e = stack.pop()) {
    if (e.kind === 'call') {
      if (options.regexConstants?.includes(e.function)) {
        try {
          compileConstantPattern(e.target === undefined ? e.args[1] : e.args[0]);
        } catch (err) {
          if (err instanceof ProgramError) return true;
          throw err;
        }
      }
      if (options.optimize === true && TYPE_CONVERSIONS.has(e.function) && e.args.some(mayBeConstant)) return true;
    }
    // One by one: a list literal may have more elements than a call takes arguments.
    for (const sub of subExpressions(e)) stack.push(sub);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Overload resolution

const isDynLike = (t: Type): boolean => t.kind === 'dyn' || t.kind === 'any' || t.kind === 'type_param';

/**
 * A run-time test of a value against a declared parameter type, by its kind (element types are
 * the checker's); undefined for a parameter of any kind (dyn, a type parameter). The generated
 * code tests the primitive kinds inline and calls `fits` for the others.
 */
interface Guard {
  readonly kind: Type['kind'];
  /** The type name an opaque or struct parameter requires. */
  readonly name: string | undefined;
  readonly nullable: boolean;
}

function guardOf(t: Type): Guard | undefined {
  if (isDynLike(t)) return undefined;
  const name = t.kind === 'opaque' || t.kind === 'struct' ? t.name : undefined;
  return { kind: t.kind, name, nullable: t.nullable === true };
}

function fits(g: Guard, v: Value): boolean {
  switch (g.kind) {
    case 'bool':
      return typeof v === 'boolean' || (v === null && g.nullable);
    case 'int':
      return typeof v === 'bigint' || (v === null && g.nullable);
    case 'double':
      return typeof v === 'number' || (v === null && g.nullable);
    case 'string':
      return typeof v === 'string' || (v === null && g.nullable);
    case 'null_type':
      return v === null;
  }
  if (v === null) return g.nullable;
  switch (g.kind) {
    case 'uint':
      return v instanceof Uint;
    case 'bytes':
      return v instanceof Uint8Array;
    case 'list':
      return Array.isArray(v);
    case 'map':
      return v instanceof MapValue;
    case 'timestamp':
      return v instanceof Timestamp;
    case 'duration':
      return v instanceof Duration;
    case 'type':
      return v instanceof TypeValue;
    case 'opaque':
      return g.name === 'optional_type'
        ? v instanceof OptionalValue
        : v instanceof ObjectValue && v.typeName === g.name;
    case 'struct':
      return v instanceof ObjectValue && v.typeName === g.name;
    default:
      return false;
  }
}

interface Bound {
  readonly id: string;
  readonly guards: readonly (Guard | undefined)[];
  readonly impl: Impl;
}

/** Whether the arguments have the overload's parameter kinds. */
function accepts(b: Bound, args: readonly Value[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const g = b.guards[i];
    if (g !== undefined && !fits(g, args[i]!)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Cost of calls (runtimecost.go costCall)

const TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;
const STRUCT_CREATE = 40;

const LINEAR_IN_FIRST = new Set([
  'starts_with_string',
  'ends_with_string',
  'string_to_bytes',
  'bytes_to_string',
  'strings_quote',
  'string_format',
]);
const MIN_OF_BOTH = new Set([
  'less_string',
  'greater_string',
  'less_equals_string',
  'greater_equals_string',
  'less_bytes',
  'greater_bytes',
  'less_equals_bytes',
  'greater_equals_bytes',
  'equals',
  'not_equals',
]);

/** The traversal cost of the shorter of two values (comparing strings or bytes). */
function traversalOfShorter(x: Val, y: Val): number {
  if (typeof x === 'string' && typeof y === 'string') {
    // Code points are at most UTF-16 units, and ceil(size × 0.1) is 1 for every size from 1 to 10.
    const m = Math.min(x.length, y.length);
    if (m <= 10) return m === 0 ? 0 : 1;
  }
  return Math.ceil(Math.min(actualSize(x), actualSize(y)) * TRAVERSAL);
}

/** traversalOfShorter against a constant of size `ySize`. */
function traversalOfShorterThan(x: Val, ySize: number): number {
  if (typeof x === 'string') {
    // As above: exact whenever the smaller bound is at most 10.
    const m = Math.min(x.length, ySize);
    if (m <= 10) return m === 0 ? 0 : 1;
  }
  return Math.ceil(Math.min(actualSize(x), ySize) * TRAVERSAL);
}

/** A call's cost, chosen when it is planned: a fixed figure, or one from its arguments and result. */
type Price = number | ((args: readonly Val[], result: Val) => number);

/**
 * cel-go's default cost of a call to an overload, chosen when the call is planned; `sizes` has
 * the size of each argument that is a constant (-1 for the others), which is then not counted
 * again at every call (a string's size is its code points: a scan).
 */
function defaultPrice(id: string, sizes: readonly number[]): number | ((args: readonly Val[]) => number) {
  const size = (a: readonly Val[], i: number): number => {
    const known = sizes[i] ?? -1;
    return known >= 0 ? known : actualSize(a[i]!);
  };
  if (LINEAR_IN_FIRST.has(id)) return (a) => Math.ceil(size(a, 0) * TRAVERSAL);
  if (MIN_OF_BOTH.has(id)) {
    const y = sizes[1] ?? -1;
    return y >= 0 ? (a) => traversalOfShorterThan(a[0]!, y) : (a) => traversalOfShorter(a[0]!, a[1]!);
  }
  switch (id) {
    case 'in_list':
      return (a) => size(a, 1);
    case 'add_string':
    case 'add_bytes':
      return (a) => Math.ceil((size(a, 0) + size(a, 1)) * TRAVERSAL);
    case 'matches':
    case 'matches_string':
      return (a) => Math.ceil((1 + size(a, 0)) * TRAVERSAL) * Math.ceil(size(a, 1) * REGEX_LENGTH);
    case 'contains_string':
      return (a) => Math.ceil(size(a, 0) * TRAVERSAL) * Math.ceil(size(a, 1) * TRAVERSAL);
    default:
      return 1;
  }
}

/**
 * The overloads a program may call: declarations (for run-time dispatch and unchecked calls)
 * and implementations by overload id. Built once and shared by every program planned with it.
 */
export class Library {
  /** The standard, optional and two-variable-comprehension libraries. */
  static readonly STANDARD = new Library([], new Map());

  readonly byId = new Map<string, Bound>();
  /** Every implemented overload of a function name, member and global, in declaration order. */
  readonly byName = new Map<string, readonly { readonly decl: OverloadDecl; readonly bound: Bound }[]>();

  /** Type names beyond the standard ones that identifiers may denote (kube's `net.IP`). */
  readonly typeNames: ReadonlySet<string>;

  /** The standard libraries plus `functions` (kube's, say), implemented by `impls` (overload id to implementation), and their type names. */
  constructor(functions: readonly FunctionDecl[], impls: ReadonlyMap<string, Impl>, typeNames: readonly string[] = []) {
    this.typeNames = new Set(typeNames);
    const all = new Map([...STANDARD_IMPLS, ...impls]);
    for (const f of [...STANDARD_FUNCTIONS, ...OPTIONAL_FUNCTIONS, ...TWO_VAR_COMPREHENSION_FUNCTIONS, ...functions]) {
      const list = [...(this.byName.get(f.name) ?? [])];
      for (const decl of f.overloads) {
        const impl = all.get(decl.id);
        if (impl === undefined) continue;
        const bound: Bound = { id: decl.id, guards: decl.argTypes.map(guardOf), impl };
        this.byId.set(decl.id, bound);
        list.push({ decl, bound });
      }
      this.byName.set(f.name, list);
    }
  }
}

/** The overloads that grow a loop's own accumulator in place (grown). */
const GROWS_IN_PLACE = new Set(['add_list', '@mapInsert_map_key_value']);

/** An overload of GROWS_IN_PLACE called on a loop's own accumulator: it grows in place (cel-go's mutable list and map) rather than being copied. */
function grown(b: Bound, args: readonly Value[], c: CallContext): Val {
  if (b.id === 'add_list') {
    (args[0] as Value[]).push(...(args[1] as readonly Value[]));
    return args[0]!;
  }
  const m = args[0] as MapValue;
  if (!isMapKey(args[1]!) || m.has(args[1]!)) return b.impl(args, c);
  m.set(args[1], args[2]!);
  return m;
}

/** The first error among a call's arguments, which the call gives instead of a result. */
function firstError(vals: readonly Val[]): CelError | undefined {
  for (const v of vals) if (v instanceof CelError) return v;
  return undefined;
}

/** A call of several candidate overloads; `owned` says its first argument is a loop's own accumulator. */
type Dispatch = (vals: readonly Val[], c: CallContext, owned: boolean) => Val;

/** The first candidate the arguments fit is called and its price charged (an error or no overload is priced as the first). */
function dispatcher(candidates: readonly Bound[], prices: readonly Price[]): Dispatch {
  return (vals, c, owned) => {
    const err = firstError(vals);
    let chosen = 0;
    let result: Val;
    if (err !== undefined) result = err;
    else {
      const args = vals as readonly Value[];
      chosen = candidates.findIndex((b) => accepts(b, args));
      const b = candidates[chosen];
      if (b === undefined) result = noSuchOverload();
      else result = owned && GROWS_IN_PLACE.has(b.id) ? grown(b, args, c) : b.impl(args, c);
      chosen = Math.max(chosen, 0);
    }
    const price = prices[chosen]!;
    c.charge(typeof price === 'number' ? price : price(vals, result));
    return result;
  };
}

/** A list literal of these element values (`optional`: the indexes of `?e` elements): the first error, or the list. */
function makeList(vals: readonly Val[], optional: ReadonlySet<number>): Val {
  const out: Value[] = [];
  let err: CelError | undefined;
  for (let i = 0; i < vals.length; i++) {
    const v = vals[i]!;
    if (v instanceof CelError) {
      err ??= v;
      continue;
    }
    if (!optional.has(i)) out.push(v);
    else if (!(v instanceof OptionalValue)) err ??= noSuchOverload();
    else if (v.hasValue()) out.push(v.value);
  }
  return err ?? out;
}

/** A map literal of keys and values, alternating (`optional`: which entries are `?k: v`): the first error, or the map. */
function makeMap(kvs: readonly Val[], optional: readonly boolean[]): Val {
  const m = new MapValue();
  for (let i = 0; i < optional.length; i++) {
    const k = kvs[2 * i]!;
    const v = kvs[2 * i + 1]!;
    if (k instanceof CelError) return k;
    if (v instanceof CelError) return v;
    if (!isMapKey(k)) return new CelError(`unsupported key type: ${typeName(k)}`);
    if (optional[i]) {
      if (!(v instanceof OptionalValue)) return noSuchOverload();
      if (v.hasValue() && !m.set(k, v.value)) return new CelError('Failed with repeated key');
    } else if (!m.set(k, v)) return new CelError('Failed with repeated key');
  }
  return m;
}

/** A comprehension's range as a list (a map's keys, or with two variables its pairs), so one loop body iterates both. */
const mapKeys = (m: MapValue): readonly Value[] => [...m.keys()];
const mapPairs = (m: MapValue): readonly (readonly [Value, Value])[] => [...m.pairs()];
const notIterable = (v: Value): CelError => new CelError(`expected iterable type, got '${typeName(v)}'`);

/** cel-go's type conversion functions (overloads.IsTypeConversionFunction), which OptOptimize folds on a constant. */
const TYPE_CONVERSIONS = new Set([
  'bool',
  'bytes',
  'double',
  'duration',
  'dyn',
  'int',
  'string',
  'timestamp',
  'type',
  'uint',
]);

/**
 * A primitive's identity in a constant set (cel-go's evalSetMembership keys its map by type and
 * value); undefined for NaN, which no lookup finds; null for a value that is not a primitive.
 */
function setKey(v: Value): string | undefined | null {
  switch (typeof v) {
    case 'boolean':
      return v ? 'b1' : 'b0';
    case 'string':
      return `s${v}`;
    case 'bigint':
      return `i${v}`;
    case 'number':
      // -0 and 0 are one key, as in a Go map.
      return Number.isNaN(v) ? undefined : `d${v === 0 ? 0 : v}`;
    default:
      return v instanceof Uint ? `u${v.value}` : null;
  }
}

/** What Planner.constantOf gives for a node that is not a constant (a constant's value may be null). */
const NOT_CONSTANT: unique symbol = Symbol('not constant');

/** cel-go's CompileRegexConstants: a constant string pattern is compiled when the program is planned. */
function compileConstantPattern(arg: Expr | undefined): void {
  if (arg?.kind !== 'constant' || arg.value.kind !== 'string') return;
  try {
    compileRegex(arg.value.value);
  } catch (e) {
    if (e instanceof RegexError) throw new ProgramError(e.message);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Planning

interface PlanOpts {
  /**
   * Leave out the attribute's own cost of 1: cel-go resolves an attribute used as a qualifier
   * (`a[k]`) or as a branch of `?:` between attributes without observing it as a step.
   */
  readonly freeRoot: boolean;
}

const constantValue = (k: Constant): Value =>
  k.kind === 'null' ? null : k.kind === 'uint' ? new Uint(k.value) : k.value;

/** Is the expression an attribute in cel-go's planner (an identifier, or qualifiers on something)? */
function isAttribute(e: Expr): boolean {
  switch (e.kind) {
    case 'ident':
      return true;
    case 'select':
      return !e.testOnly;
    case 'call':
      if (e.function === Operators.index || e.function === Operators.optIndex || e.function === Operators.optSelect)
        return true;
      return e.function === Operators.conditional && isAttribute(e.args[1]!) && isAttribute(e.args[2]!);
    default:
      return false;
  }
}

const noSuchKey = (k: Value): CelError => new CelError(`no such key: ${k instanceof Uint ? k.value : String(k)}`);

/** `has(v.field)`. */
function presence(v: Val, site: FieldSite): Val {
  if (v instanceof MapValue) return v.hasField(site);
  if (v instanceof CelError) return v;
  if (v instanceof OptionalValue) return v.hasValue() && v.value instanceof MapValue ? v.value.hasField(site) : false;
  // cel-go's refQualify, without EnableErrorOnBadPresenceTest (kube's): a list refuses a field as
  // an index, anything else has no fields.
  return Array.isArray(v) ? new CelError("unsupported index type 'string' in list") : false;
}

/** `v.field`, `v[key]`; on an optional, the optional of the result (none when absent), as cel-go's optional qualifiers. */
function qualify(v: Value, key: Value, optional: boolean): Val {
  if (v instanceof MapValue) {
    const found = v.lookup(key);
    if (found instanceof CelError) return found;
    if (found !== undefined) return optional ? OptionalValue.of(found) : found;
    if (optional) return OptionalValue.NONE;
    return isMapKey(key) || typeof key === 'number' ? noSuchKey(key) : noSuchOverload();
  }
  if (Array.isArray(v)) {
    // cel-go's IndexOrError: an int, or a uint or double that is one exactly.
    let i: number;
    if (typeof key === 'bigint') i = Number(key);
    else if (key instanceof Uint && key.value <= INT64_MAX) i = Number(key.value);
    else if (typeof key === 'number' && Number.isInteger(key) && key >= -(2 ** 63) && key < 2 ** 63) i = key;
    else if (key instanceof Uint || typeof key === 'number')
      return new CelError(`unsupported index value ${key instanceof Uint ? key.value : key} in list`);
    else return new CelError(`unsupported index type '${typeName(key)}' in list`);
    if (i >= 0 && i < v.length) return optional ? OptionalValue.of(v[i]!) : v[i]!;
    return optional
      ? OptionalValue.NONE
      : new CelError(`index out of bounds: ${key instanceof Uint ? key.value : key}`);
  }
  if (v instanceof OptionalValue) {
    if (!v.hasValue()) return v;
    return qualify(v.value, key, true);
  }
  // cel-go's refQualify: a value with no fields or elements has no such key.
  return isMapKey(key) || typeof key === 'number' ? noSuchKey(key) : noSuchOverload();
}

/** A comprehension's variables as the generated code names them (the JS locals of its loop). */
interface Scope {
  /** The CEL names in scope: the iteration variable(s) and the accumulator. */
  readonly names: readonly (string | undefined)[];
  /** The locals holding them, slot by slot. */
  readonly locals: readonly string[];
  /** The local holding the accumulator the loop owns (undefined when it owns none): see grown(). */
  readonly owned: string | undefined;
  readonly parent: Scope | undefined;
}

const NO_SUCH_OVERLOAD = noSuchOverload();

/** JS tests of a value against a guard, inline for the primitive kinds. */
const TYPEOF: Partial<Record<Type['kind'], string>> = {
  bool: 'boolean',
  int: 'bigint',
  double: 'number',
  string: 'string',
};

/**
 * Generates one JavaScript function per program (as ajv does for schemas), so that V8 optimizes
 * an expression as a whole rather than as closures calling closures it cannot inline. Each node
 * is a few statements over `const` temporaries, in cel-go's evaluation order, with cel-go's
 * charges at the same points; comprehension variables are locals. No text of the expression is
 * ever in the source: literals, names, implementations and prices are read from the constants
 * array (`k<i>`), and every identifier in it is one made here. What is not inlined is called
 * through a constant: the implementations and prices, selection and indexing (`selectField`,
 * `qualify`, `presence`), kinds other than the primitives (`fits`), list literals with optional
 * elements and map literals (`makeList`, `makeMap`, which also fold constant literals), and calls
 * of more than one candidate overload (`dispatcher`: checked calls name one overload unless an
 * argument is dyn).
 */
class Planner {
  private readonly refs: ReadonlyMap<number, Reference> | undefined;
  private readonly checked: boolean;
  private readonly library: Library;
  private scope: Scope | undefined;
  /** The statements generated so far in the current block. */
  private lines: string[] = [];
  private temps = 0;
  private readonly constants: unknown[] = [];
  private readonly constantIndex = new Map<unknown, number>();
  /** The expressions that always give one value (constants, and what `optimize` folds), and that value. */
  private readonly constantValues = new Map<string, Val>();

  constructor(
    ast: CheckedAst | ParsedExpr,
    private readonly options: ProgramOptions,
  ) {
    this.checked = 'referenceMap' in ast;
    this.refs = this.checked ? (ast as CheckedAst).referenceMap : undefined;
    this.library = options.library ?? Library.STANDARD;
  }

  generate(e: Expr): { source: string; constants: readonly unknown[] } {
    const result = this.plan(e, { freeRoot: false });
    const names = this.constants.map((_, i) => `k${i} = K[${i}]`);
    const source = [
      "'use strict';",
      ...(names.length > 0 ? [`const ${names.join(', ')};`] : []),
      'return function celProgram(c) {',
      ...this.lines,
      `return ${result};`,
      '};',
    ].join('\n');
    return { source, constants: this.constants };
  }

  // ---- source

  /** The name under which the generated code reads `v` (one per distinct value). */
  private k(v: unknown): string {
    let i = this.constantIndex.get(v);
    if (i === undefined) {
      i = this.constants.push(v) - 1;
      this.constantIndex.set(v, i);
    }
    return `k${i}`;
  }

  private temp(): string {
    return `t${this.temps++}`;
  }

  private emit(line: string): void {
    this.lines.push(line);
  }

  /** `expr` in a new temporary. */
  private bind(expr: string): string {
    const t = this.temp();
    this.emit(`const ${t} = ${expr};`);
    return t;
  }

  private charge(n: number | string): void {
    // Inline: a program charges at nearly every node.
    if (n !== 0) this.emit(`if ((c.cost += ${n}) > c.limit) c.cancel();`);
  }

  /** The statements `f` generates, kept apart, and its result. */
  private capture<T>(f: () => T): { lines: string[]; result: T } {
    const outer = this.lines;
    const lines: string[] = [];
    this.lines = lines;
    try {
      return { lines, result: f() };
    } finally {
      this.lines = outer;
    }
  }

  // ---- constants (cel-go's OptOptimize: interpreter/decorators.go decOptimize)

  private constant(v: Val): string {
    const src = v === true ? 'true' : v === false ? 'false' : v === null ? 'null' : this.k(v);
    this.constantValues.set(src, v);
    return src;
  }

  /** A generated expression's value when it is a constant, else NOT_CONSTANT. */
  private constantOf(src: string): Val | typeof NOT_CONSTANT {
    return this.constantValues.has(src) ? this.constantValues.get(src)! : NOT_CONSTANT;
  }

  /** Whether a literal of these parts is computed when planned: `optimize` is on and every part is constant. */
  private foldable(parts: readonly string[]): boolean {
    return this.options.optimize === true && parts.every((p) => this.constantValues.has(p));
  }

  /**
   * `x in [constants]` as a set lookup, free at run time (cel-go's evalSetMembership): undefined
   * when an element is not a primitive.
   */
  private setMembership(x: string, list: Val): string | undefined {
    if (!Array.isArray(list)) return undefined;
    const keys = new Set<string>();
    for (const v of list as readonly Value[]) {
      const own = setKey(v);
      if (own === null) return undefined;
      if (own !== undefined) keys.add(own);
      // Each number is found by the others of its value it converts to exactly, as cel-go adds them.
      if (typeof v === 'number' && Number.isInteger(v)) {
        if (v > -(2 ** 63) && v < 2 ** 63) keys.add(`i${BigInt(v)}`);
        if (v >= 0 && v < 2 ** 64) keys.add(`u${BigInt(v)}`);
      } else if (typeof v === 'bigint') {
        keys.add(`d${Number(v)}`);
        if (v >= 0n) keys.add(`u${v}`);
      } else if (v instanceof Uint) {
        keys.add(`d${Number(v.value)}`);
        if (v.value <= INT64_MAX) keys.add(`i${v.value}`);
      }
    }
    // Strings, the usual members, are looked up as they are: no key to build.
    const strings = new Set((list as readonly Value[]).filter((v) => typeof v === 'string'));
    const lookup = (v: Value): boolean => {
      const k = setKey(v);
      return k !== undefined && k !== null && keys.has(k);
    };
    return this.bind(
      `typeof ${x} === 'string' ? ${this.k(strings)}.has(${x}) : ${x} instanceof ${this.k(CelError)} ? ${x} : ${this.k(lookup)}(${x})`,
    );
  }

  // ---- nodes

  /** Generates the statements of `e` and gives the expression (a temporary, local or constant) holding its value. */
  private plan(e: Expr, o: PlanOpts): string {
    switch (e.kind) {
      case 'constant':
        return this.constant(constantValue(e.value));
      case 'ident':
        return this.planIdent(e.id, e.name, o);
      case 'select':
        return this.planSelect(e, o);
      case 'call':
        return this.planCall(e, o);
      case 'list':
        return this.planList(e.elements, e.optionalIndices);
      case 'struct':
        if (e.messageName === '') return this.planMap(e);
        // No message types are registered (kube's values are JSON): the checker refuses these first.
        this.charge(STRUCT_CREATE);
        return this.bind(this.k(new CelError(`unknown type '${e.messageName}'`)));
      case 'comprehension':
        return this.planComprehension(e);
      case 'unspecified':
        return this.bind(this.k(new CelError('unspecified expression')));
    }
  }

  // ---- identifiers

  /** The local and scope of a comprehension variable in scope, innermost first. */
  private lookupLocal(name: string): string | undefined {
    for (let s = this.scope; s !== undefined; s = s.parent) {
      const slot = s.names.indexOf(name);
      if (slot >= 0) return s.locals[slot];
    }
    return undefined;
  }

  private planIdent(id: number, rawName: string, o: PlanOpts): string {
    this.charge(o.freeRoot ? 0 : 1);
    const local = this.lookupLocal(rawName);
    if (local !== undefined) return local;
    const name = this.refs?.get(id)?.name || rawName;
    const isType = TYPE_IDENTIFIERS.has(name) || this.library.typeNames.has(name);
    const absent = isType ? TypeValue.of(name) : new CelError(`no such attribute(s): ${name}`);
    const t = this.temp();
    this.emit(`let ${t} = c.vars.resolve(${this.k(name)});`);
    this.emit(`if (${t} === undefined) ${t} = ${this.k(absent)};`);
    return t;
  }

  /** `a.b.c` as a name when it is only identifiers and selections (not comprehension variables). */
  private qualifiedName(e: Expr): string | undefined {
    if (e.kind === 'ident') return this.lookupLocal(e.name) === undefined ? e.name : undefined;
    if (e.kind !== 'select' || e.testOnly) return undefined;
    const q = this.qualifiedName(e.operand);
    return q === undefined ? undefined : `${q}.${e.field}`;
  }

  // ---- selections and indexes

  /** The operand of a qualifier, and the 1 cel-go adds for wrapping a non-attribute in a relative attribute. */
  private qualifierOperand(operand: Expr, o: PlanOpts): { op: string; extra: number } {
    const attr = isAttribute(operand);
    return { op: this.plan(operand, attr ? o : { freeRoot: false }), extra: attr || o.freeRoot ? 0 : 1 };
  }

  private planSelect(e: Extract<Expr, { kind: 'select' }>, o: PlanOpts): string {
    const ref = this.refs?.get(e.id);
    if (ref !== undefined && !e.testOnly) return this.planIdent(e.id, ref.name, o);
    // Unchecked, `a.b.c` may be a variable of that dotted name (cel-go tries the longest first).
    const qname = this.checked || e.testOnly ? undefined : this.qualifiedName(e);
    const plain = (): string => {
      const { op, extra } = this.qualifierOperand(e.operand, o);
      // Each selection its own site, where a schema's objects remember where the field is.
      const field = this.k(new FieldSite(e.field));
      if (e.testOnly) {
        this.charge(((this.options.presenceTestHasCost ?? true) ? 1 : 0) + extra);
        return this.bind(`${this.k(presence)}(${op}, ${field})`);
      }
      this.charge(1 + extra);
      return this.bind(`${op} instanceof ${this.k(CelError)} ? ${op} : ${this.k(selectField)}(${op}, ${field})`);
    };
    if (qname === undefined) return plain();
    const t = this.temp();
    this.emit(`let ${t} = c.vars.resolve(${this.k(qname)});`);
    this.emit(`if (${t} !== undefined) {`);
    this.charge(o.freeRoot ? 0 : 1);
    this.emit('} else {');
    this.emit(`${t} = ${plain()};`);
    this.emit('}');
    return t;
  }

  private planIndex(operand: Expr, index: Expr, optional: boolean, o: PlanOpts): string {
    const { op, extra } = this.qualifierOperand(operand, o);
    const t = this.temp();
    const error = this.k(CelError);
    this.emit(`let ${t};`);
    this.emit(`if (${op} instanceof ${error}) ${t} = ${op};`);
    this.emit('else {');
    const ix = this.plan(index, { freeRoot: isAttribute(index) });
    this.charge(1 + extra);
    let qualified = `${ix} instanceof ${error} ? ${ix} : ${this.k(qualify)}(${op}, ${ix}, ${optional})`;
    // A list's element at a constant index within it (`self[0]`) is read directly.
    const at = this.constantOf(ix);
    if (!optional && typeof at === 'bigint' && at >= 0n && at < 2n ** 32n) {
      const i = this.k(Number(at));
      qualified = `Array.isArray(${op}) && ${op}.length > ${i} ? ${op}[${i}] : ${qualified}`;
    }
    this.emit(`${t} = ${qualified};`);
    this.emit('}');
    return t;
  }

  // ---- calls

  private planCall(e: Extract<Expr, { kind: 'call' }>, o: PlanOpts): string {
    const args = e.args;
    if (e.target === undefined)
      switch (e.function) {
        case Operators.logicalAnd:
        case Operators.logicalOr:
          return this.planLogic(e.function === Operators.logicalAnd, args);
        case Operators.conditional:
          if (args.length === 3) return this.planConditional(args[0]!, args[1]!, args[2]!);
          break;
        case Operators.index:
          if (args.length === 2) return this.planIndex(args[0]!, args[1]!, false, o);
          break;
        case Operators.optIndex:
        case Operators.optSelect:
          if (args.length === 2) return this.planIndex(args[0]!, args[1]!, true, o);
          break;
        case Operators.notStrictlyFalse:
          if (args.length === 1) {
            const v = this.plan(args[0]!, { freeRoot: false });
            this.charge(1);
            return this.bind(`typeof ${v} === 'boolean' ? ${v} : true`);
          }
          break;
        default:
          break;
      }
    return this.planFunction(e);
  }

  /**
   * `&&` (and) or `||`: false (true) decides whatever the other terms are, errors included, and
   * ends the evaluation; otherwise the first error (a non-boolean is no such overload).
   */
  private planLogic(and: boolean, terms: readonly Expr[]): string {
    const decisive = String(!and);
    const t = this.temp();
    const err = this.temp();
    const error = this.k(CelError);
    this.emit(`let ${t} = ${decisive}, ${err};`);
    for (const term of terms) {
      const v = this.plan(term, { freeRoot: false });
      this.emit(`if (${v} !== ${decisive}) {`);
      this.emit(
        `if (${err} === undefined && typeof ${v} !== 'boolean') ${err} = ${v} instanceof ${error} ? ${v} : ${this.k(NO_SUCH_OVERLOAD)};`,
      );
    }
    this.emit(`${t} = ${err} ?? ${String(and)};`);
    this.emit('}'.repeat(terms.length));
    return t;
  }

  private planConditional(cond: Expr, yes: Expr, no: Expr): string {
    const attrs = isAttribute(yes) && isAttribute(no);
    const v = this.plan(cond, { freeRoot: false });
    const t = this.temp();
    this.emit(`let ${t};`);
    this.emit(`if (${v} === true) {`);
    this.emit(`${t} = ${this.plan(yes, { freeRoot: attrs })};`);
    this.emit(`} else if (${v} === false) {`);
    this.emit(`${t} = ${this.plan(no, { freeRoot: attrs })};`);
    this.emit(`} else ${t} = ${v} instanceof ${this.k(CelError)} ? ${v} : ${this.k(NO_SUCH_OVERLOAD)};`);
    return t;
  }

  private planFunction(e: Extract<Expr, { kind: 'call' }>): string {
    let fn = e.function;
    let target = e.target;
    // Unchecked, `ns.f(x)` may name the global function `ns.f` (the checker rewrites these itself).
    if (!this.checked && target !== undefined) {
      const q = this.qualifiedName(target);
      if (q !== undefined && this.library.byName.has(`${q}.${fn}`)) {
        fn = `${q}.${fn}`;
        target = undefined;
      }
    }
    const argExprs = target === undefined ? e.args : [target, ...e.args];
    // The arguments' statements are kept apart until it is known that the call evaluates them.
    const { lines, result: args } = this.capture(() => argExprs.map((a) => this.plan(a, { freeRoot: false })));
    if (this.options.regexConstants?.includes(fn)) compileConstantPattern(argExprs[1]);
    const ref = this.refs?.get(e.id);
    let candidates: readonly Bound[];
    if (ref !== undefined && ref.overloadIds.length > 0) {
      candidates = ref.overloadIds.map((id) => {
        const b = this.library.byId.get(id);
        if (b === undefined) throw new Error(`no implementation for overload '${id}' of '${fn}'`);
        return b;
      });
    } else {
      const isMember = target !== undefined;
      candidates = (this.library.byName.get(fn) ?? [])
        .filter(({ decl }) => decl.isMember === isMember && decl.argTypes.length === argExprs.length)
        .map((c) => c.bound);
      if (candidates.length === 0) return this.bind(this.k(new CelError(`no such overload: ${fn}`)));
    }
    if (this.options.optimize === true) {
      const list = args[1] === undefined ? NOT_CONSTANT : this.constantOf(args[1]);
      if (ref?.overloadIds.length === 1 && ref.overloadIds[0] === 'in_list' && list !== NOT_CONSTANT) {
        // An empty list is false without evaluating `x`.
        if (Array.isArray(list) && list.length === 0) return this.constant(false);
        const { lines: lookupLines, result: set } = this.capture(() => this.setMembership(args[0]!, list));
        if (set !== undefined) {
          this.lines.push(...lines, ...lookupLines);
          return set;
        }
      }
      if (target === undefined && args.length === 1 && TYPE_CONVERSIONS.has(fn) && this.constantValues.has(args[0]!)) {
        const call = dispatcher(candidates, this.prices(fn, candidates, args));
        const v = call([this.constantValues.get(args[0]!)!], UNMETERED, false);
        if (v instanceof CelError) throw new ProgramError(v.message);
        return this.constant(v);
      }
    }
    this.lines.push(...lines);
    return this.call(fn, candidates, args);
  }

  /** Each candidate's price, with the sizes of the constant arguments taken now. */
  private prices(fn: string, candidates: readonly Bound[], args: readonly string[]): Price[] {
    const sizes = this.constantSizes(args);
    return candidates.map((b) => this.price(fn, b.id, args.length, sizes));
  }

  /** The size of each argument that is a constant, -1 for the others. */
  private constantSizes(args: readonly string[]): number[] {
    return args.map((a) => {
      const k = this.constantOf(a);
      return k === NOT_CONSTANT ? -1 : actualSize(k);
    });
  }

  /** The accumulators of the loops around the code being generated that own theirs. */
  private ownedAccumulators(): string[] {
    const owned: string[] = [];
    for (let s = this.scope; s !== undefined; s = s.parent) if (s.owned !== undefined) owned.push(s.owned);
    return owned;
  }

  /**
   * A call to the first of `candidates` its (evaluated) arguments fit; the first error among them
   * is the result. One candidate (nearly every call) is inline: its argument kinds tested, its
   * implementation called, its price charged.
   */
  private call(fn: string, candidates: readonly Bound[], args: readonly string[]): string {
    const n = args.length;
    // Whether the first argument is a loop's own accumulator, which grows in place.
    const owned = this.ownedAccumulators().map((o) => `${args[0]} === ${o}`);
    const mayGrow = n > 0 && owned.length > 0 && candidates.some((b) => GROWS_IN_PLACE.has(b.id));
    const ownedTest = mayGrow ? `(${owned.join(' || ')})` : 'false';
    if (candidates.length > 1)
      return this.bind(
        `${this.k(dispatcher(candidates, this.prices(fn, candidates, args)))}([${args.join(', ')}], c, ${ownedTest})`,
      );
    const b = candidates[0]!;
    // The standard implementations read their arguments and keep none (functions.ts), nor does a
    // price: their calls of one or two arguments fill one array per call site, emptied after each
    // call, rather than a new one each (nothing evaluates this call again between the two).
    const standard = STANDARD_IMPLS.get(b.id) === b.impl;
    const operator = standard ? this.operator(b.id, args) : undefined;
    // An operator's arguments are put in an array only on its general path.
    const reused = standard && operator === undefined && (n === 1 || n === 2);
    const vals =
      operator !== undefined ? `[${args.join(', ')}]` : reused ? this.k(new Array<Val>(n).fill(null)) : this.temp();
    if (reused) for (let i = 0; i < n; i++) this.emit(`${vals}[${i}] = ${args[i]};`);
    else if (operator === undefined) this.emit(`const ${vals} = [${args.join(', ')}];`);
    // A constant argument's kind is known now: it needs no test at run time when it fits.
    const tests = b.guards.flatMap((g, i) => {
      const k = this.constantOf(args[i]!);
      if (g === undefined || (k !== NOT_CONSTANT && !(k instanceof CelError) && fits(g, k))) return [];
      return [this.guardTest(g, args[i]!)];
    });
    const impl = this.k(b.impl);
    const invoke = mayGrow
      ? `${ownedTest} ? ${this.k(grown)}(${this.k(b)}, ${vals}, c) : ${impl}(${vals}, c)`
      : `${impl}(${vals}, c)`;
    const checked = tests.length > 0 ? `${tests.join(' && ')} ? ${invoke} : ${this.k(NO_SUCH_OVERLOAD)}` : invoke;
    const general = this.firstErrorOr(args, checked);
    const result = this.bind(operator === undefined ? general : `${operator.test} ? ${operator.value} : ${general}`);
    const price = this.priceOf(fn, b.id, args, vals, result);
    const cost = typeof price === 'number' ? price : this.bind(price);
    if (reused) this.emit(`${Array.from({ length: n }, (_, i) => `${vals}[${i}]`).join(' = ')} = null;`);
    this.charge(cost);
    return result;
  }

  /** The first of `vals` that is an error, else `otherwise` (a constant that is no error is not tested). */
  private firstErrorOr(vals: readonly string[], otherwise: string): string {
    return vals.reduceRight((rest, v) => {
      const k = this.constantOf(v);
      if (k !== NOT_CONSTANT && !(k instanceof CelError)) return rest;
      return `${v} instanceof ${this.k(CelError)} ? ${v} : ${rest}`;
    }, otherwise);
  }

  /** A JS test of `v` against a parameter's kind. */
  private guardTest(g: Guard, v: string): string {
    const nullable = g.nullable ? ` || ${v} === null` : '';
    const primitive = TYPEOF[g.kind];
    if (primitive !== undefined) return `(typeof ${v} === '${primitive}'${nullable})`;
    if (g.kind === 'null_type') return `${v} === null`;
    if (g.kind === 'list') return `(Array.isArray(${v})${nullable})`;
    if (g.kind === 'map') return `(${v} instanceof ${this.k(MapValue)}${nullable})`;
    return `${this.k(fits)}(${this.k(g)}, ${v})`;
  }

  /**
   * A standard overload that is one JS operator when its arguments are primitives of a kind (the
   * implementation's answer for them exactly): a test of the kinds, and the value when it holds.
   */
  private operator(id: string, args: readonly string[]): { test: string; value: string } | undefined {
    switch (id) {
      case 'logical_not':
        return { test: `typeof ${args[0]} === 'boolean'`, value: `!${args[0]}` };
      case 'less_int64':
      case 'less_equals_int64':
      case 'greater_int64':
      case 'greater_equals_int64': {
        const js = { less: '<', less_equals: '<=', greater: '>', greater_equals: '>=' }[id.slice(0, -'_int64'.length)];
        return { test: this.typeofTest(args, 'bigint'), value: `${args[0]} ${js} ${args[1]}` };
      }
      case 'size_list':
      case 'list_size':
        return { test: `Array.isArray(${args[0]})`, value: `${this.k(countInt)}(${args[0]}.length)` };
      case 'equals':
      case 'not_equals': {
        // Two strings are equal exactly when they are the same JS string.
        return {
          test: this.typeofTest(args, 'string'),
          value: `${args[0]} ${id === 'equals' ? '===' : '!=='} ${args[1]}`,
        };
      }
      default:
        return undefined;
    }
  }

  /** A JS test that each of `args` is of `type`, the constants' known now. */
  private typeofTest(args: readonly string[], type: 'bigint' | 'string'): string {
    const tests = args.filter((a) => typeof this.constantOf(a) !== type).map((a) => `typeof ${a} === '${type}'`);
    return tests.length > 0 ? tests.join(' && ') : 'true';
  }

  /**
   * The cost of a call of one overload: a number when fixed, else the JS expression of it (over
   * the call's arguments `vals` and `result`), with cel-go's default inline for a string compared
   * to a constant (a comparison's traversal of the shorter). The library's price is asked first
   * where it gives one, and only of its own values where it prices only those.
   */
  private priceOf(fn: string, id: string, args: readonly string[], vals: string, result: string): number | string {
    const sizes = this.constantSizes(args);
    const dflt = defaultPrice(id, sizes);
    let d: number | string = typeof dflt === 'number' ? dflt : `${this.k(dflt)}(${vals})`;
    // A comparison's price is the shorter's, whichever side the constant is on.
    const c = (sizes[1] ?? -1) >= 0 ? 1 : 0;
    const y = sizes[c] ?? -1;
    // The traversal of a string of at most 10 code units is 1 (0 when empty): exact, as code points are at most as many.
    const one = (x: string): string => `(${x}.length === 0 ? 0 : 1)`;
    if (typeof dflt !== 'number' && MIN_OF_BOTH.has(id) && y >= 0 && args.length === 2) {
      // traversalOfShorterThan for a string: exact whenever the smaller bound is at most 10.
      const x = args[1 - c]!;
      const short = y <= 10 ? `typeof ${x} === 'string'` : `typeof ${x} === 'string' && ${x}.length <= 10`;
      d = `(${short} ? ${y === 0 ? '0' : one(x)} : ${this.k(traversalOfShorterThan)}(${x}, ${y}))`;
    } else if (typeof dflt !== 'number' && MIN_OF_BOTH.has(id) && args.length === 2) {
      const [a, b] = args as [string, string];
      d = `(typeof ${a} === 'string' && typeof ${b} === 'string' && (${a}.length <= 10 || ${b}.length <= 10) ? (${a}.length === 0 || ${b}.length === 0 ? 0 : 1) : ${this.k(traversalOfShorter)}(${a}, ${b}))`;
    } else if (id === 'contains_string' && (sizes[1] ?? -1) >= 0) {
      // The receiver's traversal times the constant's.
      const x = args[0]!;
      const times = Math.ceil(sizes[1]! * TRAVERSAL);
      d = `(typeof ${x} === 'string' && ${x}.length <= 10 ? ${one(x)} * ${times} : ${d})`;
    }
    const lib = this.options.callCost?.(fn, id, args.length);
    if (lib === undefined) return d;
    const asked = `(${this.k(lib)}(${vals}, ${result}) ?? ${d})`;
    return lib.ownValuesOnly === true ? `(${args[0]} instanceof ${this.k(ObjectValue)} ? ${asked} : ${d})` : asked;
  }

  /** A call's price: the library's (options.callCost) where it gives one, else cel-go's default. */
  private price(fn: string, id: string, argCount: number, sizes: readonly number[]): Price {
    const dflt = defaultPrice(id, sizes);
    const lib = this.options.callCost?.(fn, id, argCount);
    if (lib === undefined) return dflt;
    if (typeof dflt === 'number') return (args, result) => lib(args, result) ?? dflt;
    return (args, result) => lib(args, result) ?? dflt(args);
  }

  // ---- literals

  private planList(elements: readonly Expr[], optionalIndices: readonly number[]): string {
    const elems = elements.map((x) => this.plan(x, { freeRoot: false }));
    const optional = new Set(optionalIndices);
    if (this.foldable(elems))
      return this.constant(
        makeList(
          elems.map((x) => this.constantValues.get(x)!),
          optional,
        ),
      );
    const list =
      optional.size === 0
        ? this.firstErrorOr(elems, `[${elems.join(', ')}]`)
        : `${this.k(makeList)}([${elems.join(', ')}], ${this.k(optional)})`;
    const t = this.bind(list);
    this.charge(LIST_CREATE);
    return t;
  }

  private planMap(e: Extract<Expr, { kind: 'struct' }>): string {
    const kvs = e.entries.flatMap((en) => [
      // A map literal's entries all have expression keys (field keys are a message literal's).
      en.key.kind === 'mapKey' ? this.plan(en.key.key, { freeRoot: false }) : this.k(new CelError('invalid map entry')),
      this.plan(en.value, { freeRoot: false }),
    ]);
    const optional = e.entries.map((en) => en.optionalEntry);
    if (this.foldable(kvs))
      return this.constant(
        makeMap(
          kvs.map((x) => this.constantValues.get(x)!),
          optional,
        ),
      );
    const t = this.bind(`${this.k(makeMap)}([${kvs.join(', ')}], ${this.k(optional)})`);
    this.charge(MAP_CREATE);
    return t;
  }

  // ---- comprehensions

  /**
   * A loop over a list's elements (or indexes and elements) or a map's keys (or keys and values),
   * which grows an accumulator it starts empty in place: map() and filter() stay linear.
   */
  private planComprehension(e: ComprehensionExpr): string {
    const range = this.plan(e.iterRange, { freeRoot: false });
    const error = this.k(CelError);
    const t = this.temp();
    const n = this.temp();
    const [x, y, accu, owned, items, i] = ['x', 'y', 'a', 'o', 'r', 'i'].map((p) => `${p}${n}`) as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const twoVars = e.iterVar2 !== '';
    this.emit(`let ${t};`);
    this.emit(`if (${range} instanceof ${error}) ${t} = ${range};`);
    this.emit(
      `else if (!Array.isArray(${range}) && !(${range} instanceof ${this.k(MapValue)})) ${t} = ${this.k(notIterable)}(${range});`,
    );
    this.emit('else {');
    const init = this.plan(e.accuInit, { freeRoot: false });
    // An empty list or map the loop starts from is its own.
    const k = this.constantOf(init);
    let owns = true;
    if (Array.isArray(k) && k.length === 0) this.emit(`let ${accu} = []; const ${owned} = ${accu};`);
    else if (k instanceof MapValue && k.size === 0)
      this.emit(`let ${accu} = new ${this.k(MapValue)}(); const ${owned} = ${accu};`);
    else if (k !== NOT_CONSTANT) {
      owns = false;
      this.emit(`let ${accu} = ${init};`);
    } else {
      this.emit(`let ${accu} = ${init}, ${owned};`);
      this.emit(
        `if (Array.isArray(${accu}) ? ${accu}.length === 0 : ${accu} instanceof ${this.k(MapValue)} && ${accu}.size === 0) ${owned} = ${accu} = Array.isArray(${accu}) ? [] : new ${this.k(MapValue)}();`,
      );
    }
    // Lists by index; a map as the list of its keys (or pairs), so that one body serves both.
    const list = `Array.isArray(${range})`;
    this.emit(`const ${items} = ${list} ? ${range} : ${this.k(twoVars ? mapPairs : mapKeys)}(${range});`);
    this.emit(`for (let ${i} = 0; ${i} < ${items}.length; ${i}++) {`);
    if (twoVars) {
      this.emit(`let ${x}, ${y};`);
      this.emit(`if (${list}) { ${x} = ${this.k(countInt)}(${i}); ${y} = ${items}[${i}]; }`);
      this.emit(`else { ${x} = ${items}[${i}][0]; ${y} = ${items}[${i}][1]; }`);
    } else this.emit(`const ${x} = ${items}[${i}];`);
    const outer = this.scope;
    const ownedLocal = owns ? owned : undefined;
    this.scope = {
      names: [e.iterVar, twoVars ? e.iterVar2 : undefined, e.accuVar],
      locals: [x, y, accu],
      owned: ownedLocal,
      parent: outer,
    };
    const cond = this.plan(e.loopCondition, { freeRoot: false });
    this.emit(`if (${cond} === false) break;`);
    this.emit(`${accu} = ${this.plan(e.loopStep, { freeRoot: false })};`);
    this.emit('}');
    // The result sees the accumulator only; the iteration variables are out of scope there.
    this.scope = { names: [undefined, undefined, e.accuVar], locals: [x, y, accu], owned: ownedLocal, parent: outer };
    this.emit(`${t} = ${this.plan(e.result, { freeRoot: false })};`);
    this.scope = outer;
    this.emit('}');
    return t;
  }
}

/** `v.field` on a value that is no error (the common case, a map's field, first). */
function selectField(v: Value, site: FieldSite): Val {
  if (v instanceof MapValue) {
    const found = v.select(site);
    return found === undefined ? noSuchKey(site.name) : found;
  }
  return qualify(v, site.name, false);
}
