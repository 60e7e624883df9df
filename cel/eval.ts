// The evaluator: cel-go's interpreter (v0.23.2, kube 1.33's) over a checked AST, or a parsed one when the
// check is disabled. A program is planned once into closures: identifiers resolved lexically
// (comprehension variables by frame) or against the activation, calls bound to the overloads
// the checker's reference map names (the first whose argument types match at run time, so
// `dyn` arguments dispatch as cel-go dispatches them), or to every overload of the name when
// unchecked. Errors are values (CelError); `&&`, `||` absorb them in either order and `?:`
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
import { type ComprehensionExpr, type Constant, type Expr, Operators, type ParsedExpr } from './ast.js';
import type { CheckedAst, Reference } from './checker.js';
import { TWO_VAR_COMPREHENSION_FUNCTIONS } from './comprehensions.js';
import type { FunctionDecl, OverloadDecl } from './decls.js';
import { type CallContext, type Impl, STANDARD_IMPLS } from './functions.js';
import { OPTIONAL_FUNCTIONS } from './optional.js';
import { compileRegex, type RegexBudget, RegexError, type RegexWork } from './regex.js';
import { STANDARD_FUNCTIONS } from './stdlib.js';
import type { Type } from './types.js';
import {
  actualSize,
  CelError,
  countInt,
  Duration,
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
export type CallPrice = (args: readonly Val[], result: Val) => number | undefined;

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

/** Thrown through the closures to stop an evaluation at the limit; caught by Program.eval. */
class CostLimitExceeded extends Error {}

interface Frame {
  v1: Value;
  v2: Value;
  accu: Val;
  /**
   * The accumulator the loop owns (the empty list or map it started from), grown in place as
   * cel-go's mutable accumulators are.
   */
  readonly owned: Value | undefined;
}

/** The frames of an evaluation outside any loop (most run none): a loop gives its evaluation its own. */
const NO_FRAMES: Frame[] = Object.freeze([]) as unknown as Frame[];

/** One evaluation's state. */
class Ctx implements CallContext {
  cost = 0;
  regexRefused = false;
  frames = NO_FRAMES;
  private work: RegexWork | undefined;

  constructor(
    readonly vars: Activation,
    readonly limit: number,
    private readonly regexBudget: RegexBudget | undefined,
  ) {}

  charge(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) throw new CostLimitExceeded(COST_LIMIT_EXCEEDED);
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

type Interp = (c: Ctx) => Val;

export class Program {
  constructor(
    private readonly root: Interp,
    private readonly limit: number,
  ) {}

  eval(vars: Activation, options: EvalOptions = {}): EvalResult {
    const c = new Ctx(vars, options.costLimit ?? this.limit, options.regexBudget);
    try {
      const value = this.root(c);
      return { value, cost: c.cost, exceeded: false, regexRefused: false };
    } catch (e) {
      if (e instanceof CostLimitExceeded)
        return { value: new CelError(COST_LIMIT_EXCEEDED), cost: c.cost, exceeded: true, regexRefused: c.regexRefused };
      throw e;
    }
  }
}

/**
 * Plans a checked AST, or a parsed one (no type check: calls dispatch on every overload of their
 * name). Throws a ProgramError where cel-go's Program() fails (options.regexConstants).
 */
export function program(ast: CheckedAst | ParsedExpr, options: ProgramOptions = {}): Program {
  return new Program(new Planner(ast, options).plan(ast.expr, { freeRoot: false }), options.costLimit ?? Infinity);
}

// ---------------------------------------------------------------------------------------------
// Overload resolution

const isDynLike = (t: Type): boolean => t.kind === 'dyn' || t.kind === 'any' || t.kind === 'type_param';

/**
 * A run-time test of a value against a declared parameter type, by its kind (element types are
 * the checker's); undefined for a parameter of any kind (dyn, a type parameter). Data rather than
 * a closure, so that one `fits` tests every call's arguments.
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

/** The overloads that grow a loop's own accumulator in place (Planner.invoke). */
const GROWS_IN_PLACE = new Set(['add_list', '@mapInsert_map_key_value']);

/** A call's arguments, evaluated left to right. */
function gatherer(args: readonly Interp[]): (c: Ctx) => Val[] {
  const [a, b, d] = args;
  switch (args.length) {
    case 1:
      return (c) => [a!(c)];
    case 2:
      return (c) => [a!(c), b!(c)];
    case 3:
      return (c) => [a!(c), b!(c), d!(c)];
    default:
      return (c) => args.map((x) => x(c));
  }
}

/** The first error among a call's arguments, which the call gives instead of a result. */
function firstError(vals: readonly Val[]): CelError | undefined {
  for (const v of vals) if (v instanceof CelError) return v;
  return undefined;
}

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

const NO_VARS: Activation = { resolve: () => undefined };

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

interface Scope {
  readonly names: readonly (string | undefined)[];
  readonly parent: Scope | undefined;
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
function presence(v: Val, field: string): Val {
  if (v instanceof MapValue) return v.has(field);
  if (v instanceof CelError) return v;
  if (v instanceof OptionalValue) return v.hasValue() && v.value instanceof MapValue ? v.value.has(field) : false;
  // cel-go's refQualify, without EnableErrorOnBadPresenceTest (kube's): a list refuses a field as
  // an index, anything else has no fields.
  return Array.isArray(v) ? new CelError("unsupported index type 'string' in list") : false;
}

/**
 * A variable as planned: a comprehension variable (`up` frames out, in `slot`: the first or
 * second iteration variable, or the accumulator) or, with `up` -1, the activation's `name`.
 */
interface Variable {
  readonly up: number;
  readonly slot: number;
  readonly name: string;
  /** The name is a type's (`int`, kube's `net.IP`): the type value when the activation has no such variable. */
  readonly isType: boolean;
}

function readVariable(c: Ctx, x: Variable): Val {
  if (x.up >= 0) {
    const f = c.frames[c.frames.length - 1 - x.up]!;
    return x.slot === 0 ? f.v1 : x.slot === 1 ? f.v2 : f.accu;
  }
  const v = c.vars.resolve(x.name);
  if (v !== undefined) return v;
  return x.isType ? TypeValue.of(x.name) : new CelError(`no such attribute(s): ${x.name}`);
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

class Planner {
  private readonly refs: ReadonlyMap<number, Reference> | undefined;
  private readonly checked: boolean;
  private readonly library: Library;
  private scope: Scope | undefined;
  /** The planned nodes that always give one value (constants, and what `optimize` folds), and that value. */
  private readonly constants = new Map<Interp, Val>();

  constructor(
    ast: CheckedAst | ParsedExpr,
    private readonly options: ProgramOptions,
  ) {
    this.checked = 'referenceMap' in ast;
    this.refs = this.checked ? (ast as CheckedAst).referenceMap : undefined;
    this.library = options.library ?? Library.STANDARD;
  }

  plan(e: Expr, o: PlanOpts): Interp {
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
        return (c) => {
          c.charge(STRUCT_CREATE);
          return new CelError(`unknown type '${e.messageName}'`);
        };
      case 'comprehension':
        return this.planComprehension(e);
      case 'unspecified':
        return () => new CelError('unspecified expression');
    }
  }

  // ---- constants (cel-go's OptOptimize: interpreter/decorators.go decOptimize)

  private constant(v: Val): Interp {
    const f: Interp = () => v;
    this.constants.set(f, v);
    return f;
  }

  /** A planned node's value when it is a constant, else NOT_CONSTANT. */
  private constantOf(f: Interp): Val | typeof NOT_CONSTANT {
    return this.constants.has(f) ? this.constants.get(f)! : NOT_CONSTANT;
  }

  /** Whether a literal of these parts is computed when planned: `optimize` is on and every part is constant. */
  private foldable(parts: readonly Interp[]): boolean {
    return this.options.optimize === true && parts.every((p) => this.constants.has(p));
  }

  /** A node's value computed now (it reads no variable), unmetered. */
  private fold(f: Interp): Val {
    return f(new Ctx(NO_VARS, Infinity, undefined));
  }

  /**
   * `x in [constants]` as a set lookup, free at run time (cel-go's evalSetMembership): undefined
   * when an element is not a primitive. An empty list is false without evaluating `x`.
   */
  private setMembership(x: Interp, list: Val): Interp | undefined {
    if (!Array.isArray(list)) return undefined;
    if (list.length === 0) return this.constant(false);
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
    return (c) => {
      const v = x(c);
      if (typeof v === 'string') return strings.has(v);
      if (v instanceof CelError) return v;
      const k = setKey(v);
      return k !== undefined && k !== null && keys.has(k);
    };
  }

  // ---- identifiers

  /** Frame distance and slot of a comprehension variable in scope, innermost first. */
  private lookupLocal(name: string): { up: number; slot: number } | undefined {
    let up = 0;
    for (let s = this.scope; s !== undefined; s = s.parent, up++) {
      const slot = s.names.indexOf(name);
      if (slot >= 0) return { up, slot };
    }
    return undefined;
  }

  private planIdent(id: number, rawName: string, o: PlanOpts): Interp {
    const cost = o.freeRoot ? 0 : 1;
    const x = this.variable(id, rawName);
    return (c) => {
      c.charge(cost);
      return readVariable(c, x);
    };
  }

  /** What an identifier names: a comprehension variable in scope, or a variable of the activation. */
  private variable(id: number, rawName: string): Variable {
    const local = this.lookupLocal(rawName);
    if (local !== undefined) return { up: local.up, slot: local.slot, name: rawName, isType: false };
    const name = this.refs?.get(id)?.name || rawName;
    const isType = TYPE_IDENTIFIERS.has(name) || this.library.typeNames.has(name);
    return { up: -1, slot: 0, name, isType };
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
  private qualifierOperand(operand: Expr, o: PlanOpts): { op: Interp; extra: number } {
    const attr = isAttribute(operand);
    return { op: this.plan(operand, attr ? o : { freeRoot: false }), extra: attr || o.freeRoot ? 0 : 1 };
  }

  private planSelect(e: Extract<Expr, { kind: 'select' }>, o: PlanOpts): Interp {
    const ref = this.refs?.get(e.id);
    if (ref !== undefined && !e.testOnly) return this.planIdent(e.id, ref.name, o);
    // Unchecked, `a.b.c` may be a variable of that dotted name (cel-go tries the longest first).
    const qname = this.checked || e.testOnly ? undefined : this.qualifiedName(e);
    const field = e.field;
    // On an identifier (`self.f`, `has(self.f)`, a loop variable's field), one closure reads both.
    const operand = e.operand;
    const x = operand.kind === 'ident' && qname === undefined ? this.variable(operand.id, operand.name) : undefined;
    const identCost = o.freeRoot ? 0 : 1;
    const hasCost = (this.options.presenceTestHasCost ?? true) ? 1 : 0;
    // An identifier is an attribute: its qualifier adds nothing for wrapping it.
    if (x !== undefined && e.testOnly)
      return (c) => {
        c.charge(identCost);
        const v = readVariable(c, x);
        c.charge(hasCost);
        return presence(v, field);
      };
    if (x !== undefined)
      return (c) => {
        c.charge(identCost);
        const v = readVariable(c, x);
        c.charge(1);
        return v instanceof CelError ? v : qualify(v, field, false);
      };
    const { op, extra } = this.qualifierOperand(operand, o);
    if (e.testOnly) {
      const cost = hasCost + extra;
      return (c) => {
        const v = op(c);
        c.charge(cost);
        return presence(v, field);
      };
    }
    const cost = 1 + extra;
    const plain: Interp = (c) => {
      const v = op(c);
      c.charge(cost);
      return v instanceof CelError ? v : qualify(v, field, false);
    };
    if (qname === undefined) return plain;
    return (c) => {
      const v = c.vars.resolve(qname);
      if (v !== undefined) {
        c.charge(o.freeRoot ? 0 : 1);
        return v;
      }
      return plain(c);
    };
  }

  private planIndex(operand: Expr, index: Expr, optional: boolean, o: PlanOpts): Interp {
    const { op, extra } = this.qualifierOperand(operand, o);
    const ix = this.plan(index, { freeRoot: isAttribute(index) });
    const cost = 1 + extra;
    return (c) => {
      const v = op(c);
      if (v instanceof CelError) return v;
      const k = ix(c);
      c.charge(cost);
      if (k instanceof CelError) return k;
      return qualify(v, k, optional);
    };
  }

  // ---- calls

  private planCall(e: Extract<Expr, { kind: 'call' }>, o: PlanOpts): Interp {
    const args = e.args;
    switch (e.function) {
      case Operators.logicalAnd:
      case Operators.logicalOr:
        if (e.target === undefined)
          return this.planLogic(
            e.function === Operators.logicalAnd,
            args.map((a) => this.plan(a, { freeRoot: false })),
          );
        break;
      case Operators.conditional:
        if (e.target === undefined && args.length === 3) return this.planConditional(args[0]!, args[1]!, args[2]!);
        break;
      case Operators.index:
        if (e.target === undefined && args.length === 2) return this.planIndex(args[0]!, args[1]!, false, o);
        break;
      case Operators.optIndex:
        if (e.target === undefined && args.length === 2) return this.planIndex(args[0]!, args[1]!, true, o);
        break;
      case Operators.optSelect:
        if (e.target === undefined && args.length === 2) return this.planIndex(args[0]!, args[1]!, true, o);
        break;
      case Operators.notStrictlyFalse:
        if (e.target === undefined && args.length === 1) {
          const a = this.plan(args[0]!, { freeRoot: false });
          return (c) => {
            const v = a(c);
            c.charge(1);
            return typeof v === 'boolean' ? v : true;
          };
        }
        break;
      default:
        break;
    }
    return this.planFunction(e);
  }

  /** `&&` (and) or `||`: false (true) decides whatever the other side is, errors included; otherwise the first error. */
  private planLogic(and: boolean, terms: readonly Interp[]): Interp {
    const decisive = !and;
    // The parser balances chains into pairs.
    if (terms.length === 2) {
      const [l, r] = terms as [Interp, Interp];
      const absorb = (v: Val): CelError => (v instanceof CelError ? v : noSuchOverload());
      return (c) => {
        const a = l(c);
        if (a === decisive) return decisive;
        const b = r(c);
        if (b === decisive) return decisive;
        if (typeof a !== 'boolean') return absorb(a);
        return typeof b !== 'boolean' ? absorb(b) : !decisive;
      };
    }
    return (c) => {
      let err: Val | undefined;
      for (const t of terms) {
        const v = t(c);
        if (v === decisive) return decisive;
        if (typeof v !== 'boolean' && err === undefined) err = v instanceof CelError ? v : noSuchOverload();
      }
      return err ?? !decisive;
    };
  }

  private planConditional(cond: Expr, t: Expr, f: Expr): Interp {
    const attrs = isAttribute(t) && isAttribute(f);
    const c0 = this.plan(cond, { freeRoot: false });
    const c1 = this.plan(t, { freeRoot: attrs });
    const c2 = this.plan(f, { freeRoot: attrs });
    return (c) => {
      const v = c0(c);
      if (v === true) return c1(c);
      if (v === false) return c2(c);
      return v instanceof CelError ? v : noSuchOverload();
    };
  }

  private planFunction(e: Extract<Expr, { kind: 'call' }>): Interp {
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
    const args = argExprs.map((a) => this.plan(a, { freeRoot: false }));
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
      if (candidates.length === 0) return () => new CelError(`no such overload: ${fn}`);
    }
    if (this.options.optimize === true) {
      if (ref?.overloadIds.length === 1 && ref.overloadIds[0] === 'in_list' && this.constants.has(args[1]!)) {
        const set = this.setMembership(args[0]!, this.constants.get(args[1]!)!);
        if (set !== undefined) return set;
      }
      if (target === undefined && args.length === 1 && TYPE_CONVERSIONS.has(fn) && this.constants.has(args[0]!)) {
        const v = this.fold(this.call(fn, candidates, args));
        if (v instanceof CelError) throw new ProgramError(v.message);
        return this.constant(v);
      }
    }
    return this.call(fn, candidates, args);
  }

  /**
   * A call to the first of `candidates` its arguments fit. The arguments are evaluated left to
   * right and the first error is the result. One candidate, of one or two arguments (nearly every
   * call), has its own closure that evaluates them in place: each call between closures costs
   * (V8 cannot inline what a planned node calls), and a constant argument is read, not called.
   */
  private call(fn: string, candidates: readonly Bound[], args: readonly Interp[]): Interp {
    const n = args.length;
    const sizes = args.map((a) => {
      const k = this.constantOf(a);
      return k === NOT_CONSTANT ? -1 : actualSize(k);
    });
    const prices = candidates.map((b) => this.price(fn, b.id, n, sizes));
    if (candidates.length === 1) {
      const b = candidates[0]!;
      const price = prices[0]!;
      // A parameter of any kind (dyn, a type parameter) needs no check at run time.
      const guarded = b.guards.some((g) => g !== undefined);
      const impl: Impl = GROWS_IN_PLACE.has(b.id) ? (vals, c) => this.invoke(b, vals as Value[], c as Ctx) : b.impl;
      const apply = (vals: Value[], c: Ctx): Val => (guarded && !accepts(b, vals) ? noSuchOverload() : impl(vals, c));
      // The standard implementations read their arguments and keep none (functions.ts), nor does a
      // price: their calls pass one array, emptied after each call, rather than a new one each
      // (nothing evaluates this node again between filling it and emptying it).
      const reused: Val[] | undefined =
        STANDARD_IMPLS.get(b.id) === b.impl ? (n === 1 ? [null] : [null, null]) : undefined;
      if (n === 1) {
        const a = args[0]!;
        return (c) => {
          const x = a(c);
          let vals: Val[];
          if (reused) {
            vals = reused;
            vals[0] = x;
          } else vals = [x];
          const result =
            x instanceof CelError
              ? x
              : guarded && !accepts(b, vals as Value[])
                ? noSuchOverload()
                : impl(vals as Value[], c);
          const cost = typeof price === 'number' ? price : price(vals, result);
          if (reused) reused[0] = null;
          c.charge(cost);
          return result;
        };
      }
      if (n === 2) {
        const [a0, a1] = args as [Interp, Interp];
        const k0 = this.constantOf(a0);
        const k1 = this.constantOf(a1);
        return (c) => {
          const x = k0 === NOT_CONSTANT ? a0(c) : k0;
          const y = k1 === NOT_CONSTANT ? a1(c) : k1;
          let vals: Val[];
          if (reused) {
            vals = reused;
            vals[0] = x;
            vals[1] = y;
          } else vals = [x, y];
          const result =
            x instanceof CelError
              ? x
              : y instanceof CelError
                ? y
                : guarded && !accepts(b, vals as Value[])
                  ? noSuchOverload()
                  : impl(vals as Value[], c);
          const cost = typeof price === 'number' ? price : price(vals, result);
          if (reused) reused[0] = reused[1] = null;
          c.charge(cost);
          return result;
        };
      }
      const gather = gatherer(args);
      return (c) => {
        const vals = gather(c);
        const result = firstError(vals) ?? apply(vals as Value[], c);
        c.charge(typeof price === 'number' ? price : price(vals, result));
        return result;
      };
    }
    const gather = gatherer(args);
    return (c) => {
      const vals = gather(c);
      const err = firstError(vals);
      // An error or no overload is priced as the first candidate.
      let chosen = 0;
      let result: Val;
      if (err !== undefined) result = err;
      else {
        chosen = candidates.findIndex((b) => accepts(b, vals as Value[]));
        result = chosen < 0 ? noSuchOverload() : this.invoke(candidates[chosen]!, vals as Value[], c);
        chosen = Math.max(chosen, 0);
      }
      const price = prices[chosen]!;
      c.charge(typeof price === 'number' ? price : price(vals, result));
      return result;
    };
  }

  /** A call's price: the library's (options.callCost) where it gives one, else cel-go's default. */
  private price(fn: string, id: string, argCount: number, sizes: readonly number[]): Price {
    const dflt = defaultPrice(id, sizes);
    const lib = this.options.callCost?.(fn, id, argCount);
    if (lib === undefined) return dflt;
    if (typeof dflt === 'number') return (args, result) => lib(args, result) ?? dflt;
    return (args, result) => lib(args, result) ?? dflt(args);
  }

  /** Calls an overload; a loop's own accumulator grows in place (cel-go's mutable list and map) rather than being copied. */
  private invoke(b: Bound, args: Value[], c: Ctx): Val {
    if (GROWS_IN_PLACE.has(b.id) && c.frames.some((f) => f.owned === args[0])) {
      if (b.id === 'add_list') {
        (args[0] as Value[]).push(...(args[1] as readonly Value[]));
        return args[0]!;
      }
      if (b.id === '@mapInsert_map_key_value') {
        const m = args[0] as MapValue;
        if (!isMapKey(args[1]!) || m.has(args[1]!)) return b.impl(args, c);
        m.set(args[1], args[2]!);
        return m;
      }
    }
    return b.impl(args, c);
  }

  // ---- literals

  private planList(elements: readonly Expr[], optionalIndices: readonly number[]): Interp {
    const elems = elements.map((x) => this.plan(x, { freeRoot: false }));
    const optional = new Set(optionalIndices);
    const list: Interp = (c) => {
      const out: Value[] = [];
      let err: CelError | undefined;
      for (let i = 0; i < elems.length; i++) {
        const v = elems[i]!(c);
        if (v instanceof CelError) {
          err ??= v;
          continue;
        }
        if (!optional.has(i)) out.push(v);
        else if (!(v instanceof OptionalValue)) err ??= noSuchOverload();
        else if (v.hasValue()) out.push(v.value);
      }
      c.charge(LIST_CREATE);
      return err ?? out;
    };
    return this.foldable(elems) ? this.constant(this.fold(list)) : list;
  }

  private planMap(e: Extract<Expr, { kind: 'struct' }>): Interp {
    const entries = e.entries.map((en) => ({
      // A map literal's entries all have expression keys (field keys are a message literal's).
      key:
        en.key.kind === 'mapKey'
          ? this.plan(en.key.key, { freeRoot: false })
          : (): Val => new CelError('invalid map entry'),
      value: this.plan(en.value, { freeRoot: false }),
      optional: en.optionalEntry,
    }));
    const map: Interp = (c) => {
      const m = new MapValue();
      let err: CelError | undefined;
      for (const en of entries) {
        const k = en.key(c);
        const v = en.value(c);
        if (err !== undefined) continue;
        if (k instanceof CelError) err = k;
        else if (v instanceof CelError) err = v;
        else if (!isMapKey(k)) err = new CelError(`unsupported key type: ${typeName(k)}`);
        else if (en.optional) {
          if (!(v instanceof OptionalValue)) err = noSuchOverload();
          else if (v.hasValue() && !m.set(k, v.value)) err = new CelError('Failed with repeated key');
        } else if (!m.set(k, v)) err = new CelError('Failed with repeated key');
      }
      c.charge(MAP_CREATE);
      return err ?? m;
    };
    return this.foldable(entries.flatMap((en) => [en.key, en.value])) ? this.constant(this.fold(map)) : map;
  }

  // ---- comprehensions

  private planComprehension(e: ComprehensionExpr): Interp {
    const range = this.plan(e.iterRange, { freeRoot: false });
    const init = this.plan(e.accuInit, { freeRoot: false });
    const outer = this.scope;
    const twoVars = e.iterVar2 !== '';
    this.scope = { names: [e.iterVar, twoVars ? e.iterVar2 : undefined, e.accuVar], parent: outer };
    const cond = this.plan(e.loopCondition, { freeRoot: false });
    const step = this.plan(e.loopStep, { freeRoot: false });
    // The result sees the accumulator only; the iteration variables are out of scope there.
    this.scope = { names: [undefined, undefined, e.accuVar], parent: outer };
    const result = this.plan(e.result, { freeRoot: false });
    this.scope = outer;
    return (c) => {
      const r = range(c);
      if (r instanceof CelError) return r;
      if (!Array.isArray(r) && !(r instanceof MapValue))
        return new CelError(`expected iterable type, got '${typeName(r)}'`);
      let accu = init(c);
      // An empty list or map the loop starts from is its own: growing it in place keeps map() and filter() linear.
      const owned = (Array.isArray(accu) && accu.length === 0) || (accu instanceof MapValue && accu.size === 0);
      if (owned) accu = Array.isArray(accu) ? [] : new MapValue();
      const frame: Frame = { v1: null, v2: null, accu, owned: owned ? (accu as Value) : undefined };
      if (c.frames === NO_FRAMES) c.frames = [];
      c.frames.push(frame);
      try {
        // Lists by index, maps by key (and value), without copying the range.
        if (Array.isArray(r)) {
          const list = r as readonly Value[];
          for (let i = 0; i < list.length; i++) {
            if (twoVars) {
              frame.v1 = countInt(i);
              frame.v2 = list[i]!;
            } else frame.v1 = list[i]!;
            if (cond(c) === false) break;
            frame.accu = step(c);
          }
        } else if (twoVars) {
          for (const [k, v] of (r as MapValue).pairs()) {
            frame.v1 = k;
            frame.v2 = v;
            if (cond(c) === false) break;
            frame.accu = step(c);
          }
        } else {
          for (const k of (r as MapValue).keys()) {
            frame.v1 = k;
            if (cond(c) === false) break;
            frame.accu = step(c);
          }
        }
        return result(c);
      } finally {
        c.frames.pop();
      }
    };
  }
}
