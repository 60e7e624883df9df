// Macros: calls the parser rewrites into other expressions, as cel-go's parser/macro.go (the
// standard macros), ext/comprehensions.go (the two-variable comprehensions) and
// cel/library.go (optMap, optFlatMap) expand them. Every node an expansion creates gets a
// fresh id located at the macro call, taken in the order cel-go's expander takes them (Go
// evaluates arguments left to right), so ids match cel-go's.
import { type ComprehensionParts, type Constant, type Expr, type StructEntry, Operators } from './ast.js';

/** Where an expander builds nodes: each method takes the next id. */
export interface MacroHelper {
  literal(value: Constant): Expr;
  list(...elements: Expr[]): Expr;
  map(...entries: StructEntry[]): Expr;
  ident(name: string): Expr;
  accuIdent(): Expr;
  readonly accuName: string;
  call(fn: string, ...args: Expr[]): Expr;
  memberCall(fn: string, target: Expr, ...args: Expr[]): Expr;
  presenceTest(operand: Expr, field: string): Expr;
  comprehension(p: ComprehensionParts): Expr;
  /** A copy of an expression with fresh ids (at the original's positions). */
  copy(e: Expr): Expr;
}

interface MacroError {
  /** The id of the argument at fault: the error is reported at its position. */
  readonly exprId: number;
  readonly message: string;
}

/** An expansion, an error, or undefined to leave the call alone. */
type MacroResult = { readonly expr: Expr } | { readonly error: MacroError } | undefined;
type Expander = (h: MacroHelper, target: Expr | undefined, args: readonly Expr[]) => MacroResult;

export interface Macro {
  readonly name: string;
  /** The argument count, or 'vararg'. */
  readonly argCount: number | 'vararg';
  readonly receiver: boolean;
  readonly expander: Expander;
}

export const macroKey = (name: string, args: number | 'vararg', receiver: boolean): string =>
  `${name}:${args === 'vararg' ? '*' : args}:${receiver}`;

/** The accumulator name before cel-go hid it; still refused as an iteration variable. */
export const LEGACY_ACCUMULATOR = '__result__';
export const HIDDEN_ACCUMULATOR = '@result';

const TRUE: Constant = { kind: 'bool', value: true };
const FALSE: Constant = { kind: 'bool', value: false };
const int = (n: number): Constant => ({ kind: 'int', value: BigInt(n) });
const fail = (exprId: number, message: string): MacroResult => ({ error: { exprId, message } });

const identName = (e: Expr): string | undefined => (e.kind === 'ident' ? e.name : undefined);

function has(h: MacroHelper, _t: Expr | undefined, args: readonly Expr[]): MacroResult {
  const a = args[0]!;
  if (a.kind === 'select') return { expr: h.presenceTest(a.operand, a.field) };
  return fail(a.id, 'invalid argument to has() macro');
}

type Quantifier = 'all' | 'exists' | 'existsOne';

/** The loop of all/exists/exists_one after its variables are known. */
function quantifierLoop(
  h: MacroHelper,
  kind: Quantifier,
  predicate: Expr,
): Omit<ComprehensionParts, 'iterVar' | 'iterRange' | 'accuVar'> {
  if (kind === 'all') {
    const accuInit = h.literal(TRUE);
    const loopCondition = h.call(Operators.notStrictlyFalse, h.accuIdent());
    const loopStep = h.call(Operators.logicalAnd, h.accuIdent(), predicate);
    return { accuInit, loopCondition, loopStep, result: h.accuIdent() };
  }
  if (kind === 'exists') {
    const accuInit = h.literal(FALSE);
    const loopCondition = h.call(Operators.notStrictlyFalse, h.call(Operators.logicalNot, h.accuIdent()));
    const loopStep = h.call(Operators.logicalOr, h.accuIdent(), predicate);
    return { accuInit, loopCondition, loopStep, result: h.accuIdent() };
  }
  const accuInit = h.literal(int(0));
  const loopCondition = h.literal(TRUE);
  const loopStep = h.call(
    Operators.conditional,
    predicate,
    h.call(Operators.add, h.accuIdent(), h.literal(int(1))),
    h.accuIdent(),
  );
  const result = h.call(Operators.equals, h.accuIdent(), h.literal(int(1)));
  return { accuInit, loopCondition, loopStep, result };
}

const overwritesAccumulator = (h: MacroHelper, v: string): boolean => v === h.accuName || v === LEGACY_ACCUMULATOR;

function quantifier(kind: Quantifier): Expander {
  return (h, target, args) => {
    const v = identName(args[0]!);
    if (v === undefined) return fail(args[0]!.id, 'argument must be a simple name');
    if (overwritesAccumulator(h, v)) return fail(args[0]!.id, 'iteration variable overwrites accumulator variable');
    const loop = quantifierLoop(h, kind, args[1]!);
    return { expr: h.comprehension({ iterRange: target!, iterVar: v, accuVar: h.accuName, ...loop }) };
  };
}

/** map(v, f) and map(v, p, f). */
function mapMacro(h: MacroHelper, target: Expr | undefined, args: readonly Expr[]): MacroResult {
  const v = identName(args[0]!);
  if (v === undefined) return fail(args[0]!.id, 'argument is not an identifier');
  if (overwritesAccumulator(h, v)) return fail(args[0]!.id, 'iteration variable overwrites accumulator variable');
  const filter = args.length === 3 ? args[1] : undefined;
  const fn = args.length === 3 ? args[2]! : args[1]!;
  const accuInit = h.list();
  const loopCondition = h.literal(TRUE);
  let loopStep = h.call(Operators.add, h.accuIdent(), h.list(fn));
  if (filter !== undefined) loopStep = h.call(Operators.conditional, filter, loopStep, h.accuIdent());
  return {
    expr: h.comprehension({
      iterRange: target!,
      iterVar: v,
      accuVar: h.accuName,
      accuInit,
      loopCondition,
      loopStep,
      result: h.accuIdent(),
    }),
  };
}

function filterMacro(h: MacroHelper, target: Expr | undefined, args: readonly Expr[]): MacroResult {
  const v = identName(args[0]!);
  if (v === undefined) return fail(args[0]!.id, 'argument is not an identifier');
  if (overwritesAccumulator(h, v)) return fail(args[0]!.id, 'iteration variable overwrites accumulator variable');
  const accuInit = h.list();
  const loopCondition = h.literal(TRUE);
  const add = h.call(Operators.add, h.accuIdent(), h.list(args[0]!));
  const loopStep = h.call(Operators.conditional, args[1]!, add, h.accuIdent());
  return {
    expr: h.comprehension({
      iterRange: target!,
      iterVar: v,
      accuVar: h.accuName,
      accuInit,
      loopCondition,
      loopStep,
      result: h.accuIdent(),
    }),
  };
}

const global = (name: string, argCount: number, expander: Expander): Macro => ({
  name,
  argCount,
  receiver: false,
  expander,
});
const receiver = (name: string, argCount: number, expander: Expander): Macro => ({
  name,
  argCount,
  receiver: true,
  expander,
});

/** cel-go's parser.AllMacros: has, all, exists, exists_one, existsOne, map (2 and 3 arguments), filter. */
export const STANDARD_MACROS: readonly Macro[] = [
  global('has', 1, has),
  receiver('all', 2, quantifier('all')),
  receiver('exists', 2, quantifier('exists')),
  receiver('exists_one', 2, quantifier('existsOne')),
  receiver('existsOne', 2, quantifier('existsOne')),
  receiver('map', 2, mapMacro),
  receiver('map', 3, mapMacro),
  receiver('filter', 2, filterMacro),
];

// ---- ext.TwoVarComprehensions ----

function iterVars(h: MacroHelper, a0: Expr, a1: Expr): { v1: string; v2: string } | { error: MacroError } {
  const v1 = identName(a0);
  if (v1 === undefined) return { error: { exprId: a0.id, message: 'argument must be a simple name' } };
  const v2 = identName(a1);
  if (v2 === undefined) return { error: { exprId: a1.id, message: 'argument must be a simple name' } };
  if (v1 === v2) return { error: { exprId: a1.id, message: `duplicate variable name: ${v1}` } };
  if (overwritesAccumulator(h, v1))
    return { error: { exprId: a0.id, message: 'iteration variable overwrites accumulator variable' } };
  if (overwritesAccumulator(h, v2))
    return { error: { exprId: a1.id, message: 'iteration variable overwrites accumulator variable' } };
  return { v1, v2 };
}

function twoVarQuantifier(kind: Quantifier): Expander {
  return (h, target, args) => {
    const vars = iterVars(h, args[0]!, args[1]!);
    if ('error' in vars) return vars;
    const loop = quantifierLoop(h, kind, args[2]!);
    return {
      expr: h.comprehension({ iterRange: target!, iterVar: vars.v1, iterVar2: vars.v2, accuVar: h.accuName, ...loop }),
    };
  };
}

/** transformList, transformMap, transformMapEntry: (k, v, [filter,] transform). */
function transform(kind: 'list' | 'map' | 'mapEntry'): Expander {
  return (h, target, args) => {
    const vars = iterVars(h, args[0]!, args[1]!);
    if ('error' in vars) return vars;
    const filter = args.length === 4 ? args[2] : undefined;
    const fn = args.length === 4 ? args[3]! : args[2]!;
    let loopStep =
      kind === 'list'
        ? h.call(Operators.add, h.accuIdent(), h.list(fn))
        : kind === 'map'
          ? h.call(MAP_INSERT, h.accuIdent(), h.ident(vars.v1), fn)
          : h.call(MAP_INSERT, h.accuIdent(), fn);
    if (filter !== undefined) loopStep = h.call(Operators.conditional, filter, loopStep, h.accuIdent());
    // cel-go builds the step before the accumulator's initial value.
    const accuInit = kind === 'list' ? h.list() : h.map();
    const loopCondition = h.literal(TRUE);
    return {
      expr: h.comprehension({
        iterRange: target!,
        iterVar: vars.v1,
        iterVar2: vars.v2,
        accuVar: h.accuName,
        accuInit,
        loopCondition,
        loopStep,
        result: h.accuIdent(),
      }),
    };
  };
}
const MAP_INSERT = 'cel.@mapInsert';

/** ext.TwoVarComprehensions' macros (kube enables them from 1.32). */
export const TWO_VAR_COMPREHENSION_MACROS: readonly Macro[] = [
  receiver('all', 3, twoVarQuantifier('all')),
  receiver('exists', 3, twoVarQuantifier('exists')),
  receiver('existsOne', 3, twoVarQuantifier('existsOne')),
  receiver('exists_one', 3, twoVarQuantifier('existsOne')),
  receiver('transformList', 3, transform('list')),
  receiver('transformList', 4, transform('list')),
  receiver('transformMap', 3, transform('map')),
  receiver('transformMap', 4, transform('map')),
  receiver('transformMapEntry', 3, transform('mapEntry')),
  receiver('transformMapEntry', 4, transform('mapEntry')),
];

// ---- cel.OptionalTypes' optMap and optFlatMap ----

function optionalMap(name: 'optMap' | 'optFlatMap'): Expander {
  return (h, target, args) => {
    const varName = identName(args[0]!);
    if (varName === undefined) return fail(args[0]!.id, `${name}() variable name must be a simple identifier`);
    const hasValue = h.memberCall('hasValue', target!);
    const iterRange = h.list();
    const accuInit = h.memberCall('value', h.copy(target!));
    const loopCondition = h.literal(FALSE);
    const loopStep = h.ident(varName);
    const loop = h.comprehension({
      iterRange,
      iterVar: '#unused',
      accuVar: varName,
      accuInit,
      loopCondition,
      loopStep,
      result: args[1]!,
    });
    const present = name === 'optMap' ? h.call('optional.of', loop) : loop;
    return { expr: h.call(Operators.conditional, hasValue, present, h.call('optional.none')) };
  };
}

/** The macros cel.OptionalTypes adds. */
export const OPTIONAL_MACROS: readonly Macro[] = [
  receiver('optMap', 2, optionalMap('optMap')),
  receiver('optFlatMap', 2, optionalMap('optFlatMap')),
];
