// CEL's abstract syntax tree, shaped as cel-spec's cel.expr.Expr and cel.expr.SourceInfo
// (google/cel-spec proto/cel/expr/syntax.proto) so that a checked or evaluated tree can be
// compared with cel-go's field by field. Plain data: every later stage (checker, cost
// estimator, evaluator) reads these objects and never mutates one it did not build.

/** A literal. int64 and uint64 are bigints: CEL's integers are 64-bit and JSON numbers are not. */
export type Constant =
  | { readonly kind: 'null' }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'uint'; readonly value: bigint }
  | { readonly kind: 'double'; readonly value: number }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'bytes'; readonly value: Uint8Array };

/** An expression with no kind: cel-go's placeholder for a node a syntax error left empty. */
interface UnspecifiedExpr {
  readonly id: number;
  readonly kind: 'unspecified';
}
interface ConstantExpr {
  readonly id: number;
  readonly kind: 'constant';
  readonly value: Constant;
}
interface IdentExpr {
  readonly id: number;
  readonly kind: 'ident';
  readonly name: string;
}
/** `operand.field`; with testOnly, the presence test `has(operand.field)` expands to. */
export interface SelectExpr {
  readonly id: number;
  readonly kind: 'select';
  readonly operand: Expr;
  readonly field: string;
  readonly testOnly: boolean;
}
/** A function call; a receiver call (`target.f(args)`) when target is set. Operators are calls too (`_+_`). */
export interface CallExpr {
  readonly id: number;
  readonly kind: 'call';
  readonly target?: Expr;
  readonly function: string;
  readonly args: readonly Expr[];
}
/** A list literal; optionalIndices are the elements written `?e`. */
interface ListExpr {
  readonly id: number;
  readonly kind: 'list';
  readonly elements: readonly Expr[];
  readonly optionalIndices: readonly number[];
}
/** A map literal (messageName '') or a message literal (`pkg.Msg{field: v}`), as the proto has both. */
export interface StructExpr {
  readonly id: number;
  readonly kind: 'struct';
  readonly messageName: string;
  readonly entries: readonly StructEntry[];
}
type EntryKey = { readonly kind: 'field'; readonly name: string } | { readonly kind: 'mapKey'; readonly key: Expr };
export interface StructEntry {
  readonly id: number;
  readonly key: EntryKey;
  readonly value: Expr;
  readonly optionalEntry: boolean;
}
/** The loop every macro expands to; iterVar2 is '' for one-variable comprehensions. */
export interface ComprehensionExpr {
  readonly id: number;
  readonly kind: 'comprehension';
  readonly iterVar: string;
  readonly iterVar2: string;
  readonly iterRange: Expr;
  readonly accuVar: string;
  readonly accuInit: Expr;
  readonly loopCondition: Expr;
  readonly loopStep: Expr;
  readonly result: Expr;
}

export type Expr =
  | UnspecifiedExpr
  | ConstantExpr
  | IdentExpr
  | SelectExpr
  | CallExpr
  | ListExpr
  | StructExpr
  | ComprehensionExpr;

/** Where each node came from: offsets are code points into the source, as cel-go counts them. */
export interface OffsetRange {
  readonly start: number;
  readonly stop: number;
}

/** cel.expr.SourceInfo: line starts, each id's position, and each macro's call as written. */
export interface SourceInfo {
  readonly description: string;
  /** Code-point offset of the first character of lines 2, 3, ... (cel-go's line_offsets). */
  readonly lineOffsets: readonly number[];
  readonly positions: ReadonlyMap<number, OffsetRange>;
  /** The call each macro replaced, keyed by the id of its expansion; nested macros appear as unspecified exprs with their expansion's id. */
  readonly macroCalls: ReadonlyMap<number, Expr>;
}

/** A parsed expression and its source information. */
export interface ParsedExpr {
  readonly expr: Expr;
  readonly sourceInfo: SourceInfo;
}

// Constructors. Ids are the caller's to assign: the parser numbers nodes in cel-go's order.
export const unspecified = (id: number): UnspecifiedExpr => ({ id, kind: 'unspecified' });
export const constant = (id: number, value: Constant): ConstantExpr => ({ id, kind: 'constant', value });
export const ident = (id: number, name: string): IdentExpr => ({ id, kind: 'ident', name });
export const select = (id: number, operand: Expr, field: string, testOnly = false): SelectExpr => ({
  id,
  kind: 'select',
  operand,
  field,
  testOnly,
});
export const call = (id: number, fn: string, args: readonly Expr[], target?: Expr): CallExpr =>
  target === undefined ? { id, kind: 'call', function: fn, args } : { id, kind: 'call', target, function: fn, args };
export const list = (id: number, elements: readonly Expr[], optionalIndices: readonly number[] = []): ListExpr => ({
  id,
  kind: 'list',
  elements,
  optionalIndices,
});
export const struct = (id: number, messageName: string, entries: readonly StructEntry[]): StructExpr => ({
  id,
  kind: 'struct',
  messageName,
  entries,
});
export const fieldEntry = (id: number, name: string, value: Expr, optionalEntry: boolean): StructEntry => ({
  id,
  key: { kind: 'field', name },
  value,
  optionalEntry,
});
export const mapEntry = (id: number, key: Expr, value: Expr, optionalEntry: boolean): StructEntry => ({
  id,
  key: { kind: 'mapKey', key },
  value,
  optionalEntry,
});

export interface ComprehensionParts {
  readonly iterVar: string;
  readonly iterVar2?: string;
  readonly iterRange: Expr;
  readonly accuVar: string;
  readonly accuInit: Expr;
  readonly loopCondition: Expr;
  readonly loopStep: Expr;
  readonly result: Expr;
}
export const comprehension = (id: number, p: ComprehensionParts): ComprehensionExpr => ({
  id,
  kind: 'comprehension',
  iterVar: p.iterVar,
  iterVar2: p.iterVar2 ?? '',
  iterRange: p.iterRange,
  accuVar: p.accuVar,
  accuInit: p.accuInit,
  loopCondition: p.loopCondition,
  loopStep: p.loopStep,
  result: p.result,
});

/** An expression's direct sub-expressions, in cel-go's visiting order (a call's target first, an entry's key before its value). */
export function subExpressions(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case 'select':
      return [e.operand];
    case 'call':
      return e.target === undefined ? e.args : [e.target, ...e.args];
    case 'list':
      return e.elements;
    case 'struct':
      return e.entries.flatMap((en) => (en.key.kind === 'mapKey' ? [en.key.key, en.value] : [en.value]));
    case 'comprehension':
      return [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result];
    default:
      return [];
  }
}

/** Operator function names, as cel-go's common/operators spells them. */
export const Operators = {
  conditional: '_?_:_',
  logicalAnd: '_&&_',
  logicalOr: '_||_',
  logicalNot: '!_',
  equals: '_==_',
  notEquals: '_!=_',
  less: '_<_',
  lessEquals: '_<=_',
  greater: '_>_',
  greaterEquals: '_>=_',
  add: '_+_',
  subtract: '_-_',
  multiply: '_*_',
  divide: '_/_',
  modulo: '_%_',
  negate: '-_',
  index: '_[_]',
  optIndex: '_[?_]',
  optSelect: '_?._',
  in: '@in',
  notStrictlyFalse: '@not_strictly_false',
  has: 'has',
} as const;
