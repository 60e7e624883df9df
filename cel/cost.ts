// The static cost estimator as cel-go's checker/cost.go (v0.23.2, kube 1.33's) has it: a [min, max] range of
// cost units for a checked expression, from the sizes of its strings, lists and maps. kube
// refuses a CRD rule whose estimated max exceeds its limits, so every quirk that moves the
// number is kept: the order nodes are visited in, sizes remembered per node id, field paths
// handed to the CostEstimator, and saturating uint64 arithmetic (bigints here).
import type { ComprehensionExpr, Expr, StructExpr } from './ast.js';
import type { CheckedAst } from './checker.js';
import { DynType, type Type } from './types.js';

export const MAX_UINT64 = (1n << 64n) - 1n;

/** A [min, max] range: a cost in cost units, or a size (code points, bytes, entries or items, as CEL's size()). */
interface Range {
  readonly min: bigint;
  readonly max: bigint;
}
export type CostEstimate = Range;
export type SizeEstimate = Range;

/** cel-go's common/cost.go constants. */
const SELECT_AND_IDENT_COST = 1n;
const CONST_COST = 0n;
export const LIST_CREATE_BASE_COST = 10n;
const MAP_CREATE_BASE_COST = 30n;
export const STRUCT_CREATE_BASE_COST = 40n;
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;

export const fixed = (n: bigint): Range => ({ min: n, max: n });
const UNKNOWN_SIZE: SizeEstimate = { min: 0n, max: MAX_UINT64 };

const addSat = (x: bigint, y: bigint): bigint => (x + y > MAX_UINT64 ? MAX_UINT64 : x + y);
const mulSat = (x: bigint, y: bigint): bigint => (x * y > MAX_UINT64 ? MAX_UINT64 : x * y);
const TWO_TO_64 = 2 ** 64;

/** x × factor rounded up, through float64 as Go computes it (so large x loses precision the same way). */
function mulFactor(x: bigint, factor: number): bigint {
  const xf = Number(x);
  if (xf > 0 && factor > 0 && xf > TWO_TO_64 / factor) return MAX_UINT64;
  const ceil = Math.ceil(xf * factor);
  return ceil >= TWO_TO_64 ? MAX_UINT64 : BigInt(ceil);
}

export const add = (a: Range, b: Range): Range => ({ min: addSat(a.min, b.min), max: addSat(a.max, b.max) });
export const multiply = (a: Range, b: Range): Range => ({ min: mulSat(a.min, b.min), max: mulSat(a.max, b.max) });
export const multiplyByCostFactor = (a: Range, factor: number): Range => ({
  min: mulFactor(a.min, factor),
  max: mulFactor(a.max, factor),
});
const union = (a: Range, b: Range): Range => ({
  min: a.min < b.min ? a.min : b.min,
  max: a.max > b.max ? a.max : b.max,
});

/** What the estimator is told about a node (cel-go's checker.AstNode). */
export interface AstNode {
  /**
   * The field path from a declared variable: the variable, then field names, `@items`, `@keys`,
   * `@values` (and `@indices` for a two-variable list loop's index). Empty when the node is not
   * reachable that way (a call's result, a literal, an accumulator).
   */
  readonly path: readonly string[];
  readonly type: Type;
  /** Absent for the element nodes kube makes up for a list's items. */
  readonly expr: Expr | undefined;
  /** The size the expression itself shows: literals, concatenations, results of sized calls. */
  readonly computedSize: SizeEstimate | undefined;
}

/** A call's cost and, for calls that make a string, bytes, list or map, its result's size. */
export interface CallEstimate extends CostEstimate {
  readonly resultSize?: SizeEstimate;
}

/** Sizes of inputs the checker cannot see and costs of library functions (cel-go's checker.CostEstimator). */
export interface CostEstimator {
  /** The size of a variable or field (size() of it), or undefined if unknown. */
  estimateSize(node: AstNode): SizeEstimate | undefined;
  /** A call's own cost, without its arguments', or undefined to leave it to CEL's defaults. */
  estimateCallCost(
    fn: string,
    overloadId: string,
    target: AstNode | undefined,
    args: readonly AstNode[],
  ): CallEstimate | undefined;
}

export type FunctionEstimator = (
  estimator: CostEstimator,
  target: AstNode | undefined,
  args: readonly AstNode[],
) => CallEstimate | undefined;

export interface CostOptions {
  /** Whether `has()` costs 1 (cel-go's default) or 0 (what kube sets, to keep pre-v0.17.7 costs). */
  readonly presenceTestHasCost?: boolean;
  /** Per-overload estimators that take precedence over the CostEstimator (checker.OverloadCostEstimate). */
  readonly overloadEstimators?: ReadonlyMap<string, FunctionEstimator>;
}

/** The size of a node from its computed size, else the estimator's, else unknown (kube's and cel-go's tests' sizeEstimate). */
export function sizeEstimate(estimator: CostEstimator, node: AstNode): SizeEstimate {
  return node.computedSize ?? estimator.estimateSize(node) ?? UNKNOWN_SIZE;
}

/** A node for a list's elements, so that an estimator can size them by path (`…@items`) or by type. */
export function listElementNode(list: AstNode): AstNode | undefined {
  const elem = list.type.params[0];
  if (elem === undefined) return undefined;
  return {
    path: list.path.length > 0 ? [...list.path, '@items'] : [],
    type: elem,
    expr: undefined,
    computedSize: undefined,
  };
}

/** Estimates a checked expression's cost (cel-go's checker.Cost). */
export function estimateCost(ast: CheckedAst, estimator: CostEstimator, options: CostOptions = {}): CostEstimate {
  return new Coster(ast, estimator, options).cost(ast.expr);
}

/** Sizes of a list's indices and items or a map's keys and values, known when both are. */
interface EntrySize {
  readonly container: 'list' | 'map';
  readonly key: SizeEstimate;
  readonly val: SizeEstimate;
}

function unionEntries(a: EntrySize | undefined, b: EntrySize | undefined): EntrySize | undefined {
  if (a === undefined || b === undefined) return undefined;
  return { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) };
}

interface LocalVar {
  readonly path: readonly string[];
  readonly size: SizeEstimate | undefined;
  readonly entrySize: EntrySize | undefined;
}

const ACCUMULATORS = new Set(['__result__', '@result']);
const LEGACY_ACCUMULATOR = '__result__';
const isMapLiteral = (e: Expr): e is StructExpr => e.kind === 'struct' && e.messageName === '';

const STRING_ORDER_AND_EQUALITY = new Set([
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

class Coster {
  private readonly paths = new Map<number, readonly string[]>();
  private readonly locals = new Map<string, LocalVar[]>();
  private readonly sizes = new Map<number, SizeEstimate>();
  private readonly entrySizes = new Map<number, EntrySize>();
  private readonly presenceTestCost: CostEstimate;

  constructor(
    private readonly ast: CheckedAst,
    private readonly estimator: CostEstimator,
    private readonly options: CostOptions,
  ) {
    this.presenceTestCost = fixed(options.presenceTestHasCost === false ? 0n : SELECT_AND_IDENT_COST);
  }

  cost(e: Expr): CostEstimate {
    switch (e.kind) {
      case 'constant':
        return fixed(CONST_COST);
      case 'ident':
        this.paths.set(e.id, this.peek(e.name)?.path ?? [e.name]);
        return fixed(SELECT_AND_IDENT_COST);
      case 'select':
        return this.costSelect(e);
      case 'call':
        return this.costCall(e);
      case 'list':
        return this.costList(e);
      case 'struct':
        return isMapLiteral(e) ? this.costMap(e) : this.costStruct(e);
      case 'comprehension':
        return this.isBind(e) ? this.costBind(e) : this.costComprehension(e);
      case 'unspecified':
        return fixed(0n);
    }
  }

  private costSelect(e: Expr & { kind: 'select' }): CostEstimate {
    // A presence test is charged like the runtime charges it: the operand, plus the test only if enabled.
    if (e.testOnly) return add(this.presenceTestCost, this.cost(e.operand));
    let sum = this.cost(e.operand);
    const k = this.typeOf(e.operand).kind;
    if (k === 'map' || k === 'struct' || k === 'type_param') sum = add(sum, fixed(SELECT_AND_IDENT_COST));
    this.paths.set(e.id, [...this.pathOf(e.operand), e.field]);
    return sum;
  }

  private costCall(e: Expr & { kind: 'call' }): CostEstimate {
    // dyn() only switches type checking off: its argument plus 1, with the argument's sizes.
    if (e.function === 'dyn' && e.args.length === 1) {
      const arg = e.args[0]!;
      const argCost = this.cost(arg);
      this.copySizes(e, arg);
      return add(fixed(1n), argCost);
    }
    const argCosts = e.args.map((a) => this.cost(a));
    const argNodes = e.args.map((a) => this.node(a));
    const overloadIds = this.ast.referenceMap.get(e.id)?.overloadIds ?? [];
    if (overloadIds.length === 0) return fixed(0n);
    let sum = fixed(0n);
    // v0.23.2 hands a global call an empty target node, not none; cel-go's own overload costs
    // read a target only where there is one, so only a library's estimator tells (cel/kube/cost.ts).
    let target: AstNode | undefined;
    if (e.target !== undefined) {
      sum = add(sum, this.cost(e.target));
      target = this.node(e.target);
    }
    // One range covering every overload the call may resolve to.
    let fnCost: CostEstimate = { min: MAX_UINT64, max: 0n };
    let resultSize: SizeEstimate | undefined;
    for (const id of overloadIds) {
      const est = this.functionCost(e, id, target, argNodes, argCosts);
      fnCost = union(fnCost, est);
      if (est.resultSize !== undefined)
        resultSize = resultSize === undefined ? est.resultSize : union(resultSize, est.resultSize);
      if ((id === 'index_list' || id === 'index_map') && e.args.length > 0) {
        const container = e.args[0]!;
        resultSize = this.entrySizeOf(container)?.val;
        this.paths.set(e.id, [...this.pathOf(container), id === 'index_list' ? '@items' : '@values']);
      }
      resultSize ??= this.sizeOf(e);
    }
    this.setSize(e, resultSize);
    return add(sum, fnCost);
  }

  private functionCost(
    e: Expr & { kind: 'call' },
    overloadId: string,
    target: AstNode | undefined,
    args: readonly AstNode[],
    argCosts: readonly CostEstimate[],
  ): CallEstimate {
    const argSum = (): CostEstimate => argCosts.reduce(add, fixed(0n));
    const withArgs = (est: CallEstimate): CallEstimate => ({ ...add(est, argSum()), resultSize: est.resultSize });
    const own = this.options.overloadEstimators?.get(overloadId)?.(this.estimator, target, args);
    if (own !== undefined) return withArgs(own);
    const lib = this.estimator.estimateCallCost(e.function, overloadId, target, args);
    if (lib !== undefined) return withArgs(lib);
    const size = (n: AstNode): SizeEstimate => n.computedSize ?? UNKNOWN_SIZE;
    const traversal = (n: AstNode): CostEstimate => multiplyByCostFactor(size(n), STRING_TRAVERSAL_COST_FACTOR);
    switch (overloadId) {
      case 'string_format':
        if (target !== undefined) return add(traversal(target), argSum());
        break;
      case 'string_to_bytes':
        if (args.length === 1) {
          const sz = size(args[0]!);
          // Each code point may take 4 bytes.
          return { ...add(traversal(args[0]!), argSum()), resultSize: { min: sz.min, max: mulSat(sz.max, 4n) } };
        }
        break;
      case 'bytes_to_string':
        if (args.length === 1) {
          const sz = size(args[0]!);
          return { ...add(traversal(args[0]!), argSum()), resultSize: { min: sz.min / 4n, max: sz.max } };
        }
        break;
      case 'strings_quote':
        if (args.length === 1) {
          const sz = size(args[0]!);
          // Every character may be escaped; the quotes are always added.
          return {
            ...add(traversal(args[0]!), argSum()),
            resultSize: { min: addSat(sz.min, 2n), max: addSat(mulSat(sz.max, 2n), 2n) },
          };
        }
        break;
      case 'starts_with_string':
      case 'ends_with_string':
        if (args.length === 1) return add(traversal(args[0]!), argSum());
        break;
      case 'in_list':
        // Containment is taken as O(n) even for a list of constants.
        if (args.length === 2) return add(multiplyByCostFactor(size(args[1]!), 1), argSum());
        break;
      case 'matches_string':
        if (target !== undefined && args.length === 1) {
          // The string's length plus one (an empty string against an expensive regex still costs),
          // times the regex's length over 4 (a guess at its number of expressions).
          const strCost = multiplyByCostFactor(add(size(target), fixed(1n)), STRING_TRAVERSAL_COST_FACTOR);
          const regexCost = multiplyByCostFactor(size(args[0]!), REGEX_STRING_LENGTH_COST_FACTOR);
          return add(multiply(strCost, regexCost), argSum());
        }
        break;
      case 'contains_string':
        if (target !== undefined && args.length === 1)
          return add(multiply(traversal(target), traversal(args[0]!)), argSum());
        break;
      case 'logical_or':
      case 'logical_and': {
        // Short-circuiting: at least the left side, at most both.
        const [lhs, rhs] = [argCosts[0]!, argCosts[1]!];
        return { min: lhs.min, max: add(lhs, rhs).max };
      }
      case 'conditional': {
        const sz = union(size(args[1]!), size(args[2]!));
        this.setEntrySize(e, unionEntries(this.entrySizeOf(e.args[1]!), this.entrySizeOf(e.args[2]!)));
        return { ...add(argCosts[0]!, union(argCosts[1]!, argCosts[2]!)), resultSize: sz };
      }
      case 'add_string':
      case 'add_bytes':
      case 'add_list':
        if (args.length === 2) {
          const resultSize = add(size(args[0]!), size(args[1]!));
          const entries = unionEntries(this.entrySizeOf(e.args[0]!), this.entrySizeOf(e.args[1]!));
          if (entries !== undefined) this.setEntrySize(e, entries);
          // Concatenating lists is O(1); it is handled here to carry the size.
          if (overloadId === 'add_list') return { ...add(fixed(1n), argSum()), resultSize };
          return { ...add(multiplyByCostFactor(resultSize, STRING_TRAVERSAL_COST_FACTOR), argSum()), resultSize };
        }
        break;
      default:
        if (STRING_ORDER_AND_EQUALITY.has(overloadId)) {
          const [l, r] = [size(args[0]!), size(args[1]!)];
          const smallestMax = l.max < r.max ? l.max : r.max;
          // Comparing two scalars costs 1; strings, bytes and aggregates up to the shorter's traversal.
          const cmp = multiplyByCostFactor(
            { min: smallestMax > 0n ? 1n : 0n, max: smallestMax },
            STRING_TRAVERSAL_COST_FACTOR,
          );
          return add(cmp, argSum());
        }
    }
    // Everything else is O(1): a base cost unit.
    return add(fixed(1n), argSum());
  }

  private costList(e: Expr & { kind: 'list' }): CostEstimate {
    let sum = fixed(0n);
    let itemSize: SizeEstimate = { min: e.elements.length === 0 ? 0n : MAX_UINT64, max: 0n };
    for (const el of e.elements) {
      sum = add(sum, this.cost(el));
      itemSize = union(itemSize, this.sizeOrUnknown(el));
    }
    this.setEntrySize(e, { container: 'list', key: fixed(1n), val: itemSize });
    return add(sum, fixed(LIST_CREATE_BASE_COST));
  }

  private costMap(e: StructExpr): CostEstimate {
    let sum = fixed(0n);
    const empty = e.entries.length === 0;
    let keySize: SizeEstimate = { min: empty ? 0n : MAX_UINT64, max: 0n };
    let valSize: SizeEstimate = { min: empty ? 0n : MAX_UINT64, max: 0n };
    for (const entry of e.entries) {
      if (entry.key.kind !== 'mapKey') continue;
      sum = add(sum, this.cost(entry.key.key));
      sum = add(sum, this.cost(entry.value));
      keySize = union(keySize, this.sizeOrUnknown(entry.key.key));
      valSize = union(valSize, this.sizeOrUnknown(entry.value));
    }
    this.setEntrySize(e, { container: 'map', key: keySize, val: valSize });
    return add(sum, fixed(MAP_CREATE_BASE_COST));
  }

  private costStruct(e: StructExpr): CostEstimate {
    let sum = fixed(0n);
    for (const entry of e.entries) sum = add(sum, this.cost(entry.value));
    return add(sum, fixed(STRUCT_CREATE_BASE_COST));
  }

  private costComprehension(e: ComprehensionExpr): CostEstimate {
    let sum = this.cost(e.iterRange);
    sum = add(sum, this.cost(e.accuInit));
    this.pushLocal(e.accuVar, e.accuInit);
    if (e.iterVar2 !== '') {
      this.pushIter(e.iterVar, e.iterRange, 'key');
      this.pushIter(e.iterVar2, e.iterRange, 'value');
    } else {
      this.pushIter(e.iterVar, e.iterRange, 'single');
    }
    const loopCost = this.cost(e.loopCondition);
    const stepCost = this.cost(e.loopStep);
    this.pop(e.iterVar);
    if (e.iterVar2 !== '') this.pop(e.iterVar2);
    sum = add(sum, this.cost(e.result));
    this.pop(e.accuVar);
    // Every iteration may run the condition and the step.
    const rangeCnt = this.sizeOrUnknown(e.iterRange);
    sum = add(sum, multiply(rangeCnt, add(stepCost, loopCost)));
    if (e.accuInit.kind === 'constant') {
      this.setSize(e, this.sizeOf(e.accuInit));
    } else if (e.accuInit.kind === 'list' || isMapLiteral(e.accuInit)) {
      // A loop building a list or map (map, filter, transformList...) has at most one entry per iteration.
      this.setSize(e, rangeCnt);
      const stepEntries = this.entrySizeOf(e.loopStep);
      if (stepEntries !== undefined) this.setEntrySize(e, stepEntries);
    }
    return sum;
  }

  /** cel.bind and the optional macros: a loop over nothing whose accumulator is the bound variable. */
  private isBind(e: ComprehensionExpr): boolean {
    const c = e.loopCondition;
    return (
      e.iterRange.kind === 'list' &&
      e.iterRange.elements.length === 0 &&
      c.kind === 'constant' &&
      c.value.kind === 'bool' &&
      !c.value.value &&
      e.accuVar !== LEGACY_ACCUMULATOR
    );
  }

  private costBind(e: ComprehensionExpr): CostEstimate {
    // The binding is lazy, so the (empty) range's cost is kept as cel-go keeps it.
    let sum = this.cost(e.iterRange);
    sum = add(sum, this.cost(e.accuInit));
    this.pushLocal(e.accuVar, e.accuInit);
    sum = add(sum, this.cost(e.result));
    this.pop(e.accuVar);
    this.copySizes(e, e.result);
    return sum;
  }

  // Local variables: comprehension variables and accumulators, shadowing by name.

  private push(name: string, v: LocalVar): void {
    const stack = this.locals.get(name);
    if (stack === undefined) this.locals.set(name, [v]);
    else stack.push(v);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private peek(name: string): LocalVar | undefined {
    const stack = this.locals.get(name);
    return stack === undefined ? undefined : stack[stack.length - 1];
  }

  private pushLocal(name: string, e: Expr): void {
    // A bound list or map keeps its entries' sizes too.
    this.push(name, { path: this.pathOf(e), size: this.sizeOf(e), entrySize: this.entrySizeOf(e) });
  }

  /**
   * An iteration variable: a list's item (one variable) or index and item (two), a map's key
   * and value, sized from the range's entries when the range is a literal or a built
   * collection, else left to the estimator through its path.
   */
  private pushIter(name: string, range: Expr, role: 'single' | 'key' | 'value'): void {
    const entries = this.entrySizeOf(range);
    const container = entries?.container ?? this.typeOf(range).kind;
    const isList = container === 'list';
    let size: SizeEstimate | undefined;
    let sub: string;
    if (role === 'value') {
      size = entries?.val;
      sub = isList ? '@items' : '@values';
    } else if (role === 'key') {
      size = entries?.key;
      sub = isList ? '@indices' : '@keys';
    } else {
      size = isList ? entries?.val : entries?.key;
      sub = isList ? '@items' : '@keys';
    }
    this.push(name, { path: [...this.pathOf(range), sub], size, entrySize: undefined });
  }

  // Paths and sizes by node.

  private typeOf(e: Expr): Type {
    return this.ast.typeMap.get(e.id) ?? DynType;
  }

  private pathOf(e: Expr): readonly string[] {
    if (e.kind === 'ident') {
      const v = this.peek(e.name);
      if (v !== undefined) return v.path;
    }
    return this.paths.get(e.id) ?? [];
  }

  /** The estimator's view of a node; accumulators get no path, only declared variables do. */
  private node(e: Expr): AstNode {
    const path = this.pathOf(e);
    return {
      path: path.length > 0 && ACCUMULATORS.has(path[0]!) ? [] : path,
      type: this.typeOf(e),
      expr: e,
      computedSize: this.sizeOf(e),
    };
  }

  private setSize(e: Expr, size: SizeEstimate | undefined): void {
    if (size !== undefined) this.sizes.set(e.id, size);
  }

  private setEntrySize(e: Expr, size: EntrySize | undefined): void {
    if (size !== undefined) this.entrySizes.set(e.id, size);
  }

  private copySizes(dst: Expr, src: Expr): void {
    this.setSize(dst, this.sizeOf(src));
    this.setEntrySize(dst, this.entrySizeOf(src));
  }

  private sizeOrUnknown(e: Expr): SizeEstimate {
    return this.sizeOf(e) ?? UNKNOWN_SIZE;
  }

  /** A node's size: remembered, else evident from a literal, else the estimator's (remembered), else a scalar's 1, else a local variable's. */
  private sizeOf(e: Expr): SizeEstimate | undefined {
    const known = this.sizes.get(e.id);
    if (known !== undefined) return known;
    const literal = literalSize(e);
    if (literal !== undefined) return literal;
    const type = this.typeOf(e);
    const estimated = this.estimator.estimateSize({ path: this.pathOf(e), type, expr: e, computedSize: undefined });
    if (estimated !== undefined) {
      this.sizes.set(e.id, estimated);
      return estimated;
    }
    if (isScalar(type)) return fixed(1n);
    if (e.kind === 'ident') return this.peek(e.name)?.size;
    return undefined;
  }

  private entrySizeOf(e: Expr): EntrySize | undefined {
    const known = this.entrySizes.get(e.id);
    if (known !== undefined) return known;
    if (e.kind === 'ident') return this.peek(e.name)?.entrySize;
    return undefined;
  }
}

/** The exact size of a literal: code points of a string, bytes, entries; 1 for other constants. */
function literalSize(e: Expr): SizeEstimate | undefined {
  switch (e.kind) {
    case 'constant': {
      const c = e.value;
      if (c.kind === 'string') {
        let n = 0;
        for (const _ of c.value) n++;
        return fixed(BigInt(n));
      }
      return fixed(c.kind === 'bytes' ? BigInt(c.value.length) : 1n);
    }
    case 'list':
      return fixed(BigInt(e.elements.length));
    case 'struct':
      return isMapLiteral(e) ? fixed(BigInt(e.entries.length)) : undefined;
    default:
      return undefined;
  }
}

/** Types whose values have size 1 whatever they hold (strings, bytes, aggregates, dyn do not). */
function isScalar(t: Type): boolean {
  switch (t.kind) {
    case 'bool':
    case 'double':
    case 'duration':
    case 'int':
    case 'timestamp':
    case 'uint':
      return true;
    case 'opaque':
      return t.name === 'optional_type' && t.params[0] !== undefined && isScalar(t.params[0]);
    default:
      return false;
  }
}
