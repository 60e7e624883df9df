// The type checker as cel-go's checker package has it at v0.23.2, the release kube 1.33 builds
// with (v0.26's differs only in refusing hand-built `_?._` calls, which no parsed text makes):
// every node gets a type, identifiers and calls a reference (the declaration's name, or the
// ids of the overloads that may apply), names are resolved against the container, and errors
// carry cel-go's texts and positions. The result is cel-go's CheckedExpr: the rewritten tree
// (qualified names as identifiers, namespaced functions without their target) with its type
// map and reference map.
import {
  type ComprehensionExpr,
  call,
  comprehension,
  type Expr,
  fieldEntry,
  ident,
  list,
  mapEntry,
  Operators,
  type ParsedExpr,
  type SelectExpr,
  type SourceInfo,
  type StructEntry,
  type StructExpr,
  select,
  struct,
} from './ast.js';
import { type Adorner, toDebugString } from './debug.js';
import { type FunctionDecl, mergeFunctions, type OverloadDecl, type VariableDecl, variable } from './decls.js';
import { OPTIONAL_FUNCTIONS, OPTIONAL_TYPES } from './optional.js';
import { Issues, type Location, NO_LOCATION, type Source } from './source.js';
import { CROSS_TYPE_NUMERIC_OVERLOADS, STANDARD_FUNCTIONS, STANDARD_TYPES } from './stdlib.js';
import {
  BoolType,
  BytesType,
  DoubleType,
  DynType,
  declaredTypeName,
  ErrorType,
  formatFunctionType,
  formatType,
  IntType,
  isAssignable,
  isAssignableList,
  isAssignableType,
  isDyn,
  isDynOrError,
  isError,
  isExactType,
  listType,
  Mapping,
  mapType,
  maybeUnwrapOptional,
  mostGeneral,
  NullType,
  opaqueType,
  optionalType,
  StringType,
  substitute,
  type Type,
  typeOf,
  typeParam,
  UintType,
} from './types.js';

/** Message types the checker may resolve by name (cel-go's types.Provider, as far as checking needs it). */
export interface TypeProvider {
  /** The message type of that fully qualified name, if there is one. */
  findStructType(name: string): Type | undefined;
  /** The type of a message's field, if the message has it. */
  findFieldType(structName: string, field: string): Type | undefined;
}

const NO_MESSAGE_TYPES: TypeProvider = { findStructType: () => undefined, findFieldType: () => undefined };

export interface CheckerOptions {
  /** The namespace names resolve in, e.g. `google.expr` (cel-go's container; default none). */
  readonly container?: string;
  readonly provider?: TypeProvider;
  /** Allow `1 < 1.5` and the other relations between int, uint and double (default false, as cel-go). */
  readonly crossTypeNumericComparisons?: boolean;
}

/** Kube's checker settings (k8s.io/apiserver/pkg/cel/environment/base.go). */
export const KUBE_CHECKER_OPTIONS: CheckerOptions = {
  crossTypeNumericComparisons: true,
};

/** The declarations and settings a check runs against (cel-go's checker.Env). */
export class CheckerEnv {
  private readonly idents = new Map<string, VariableDecl>();
  private functions = new Map<string, FunctionDecl>();
  /**
   * Whether `functions` is shared with environments extended from this one or that it extends:
   * copied by the first that adds functions. Extending is per CRD rule node, and kube's
   * environment declares hundreds of functions, which most extensions never change.
   */
  private functionsShared = false;

  constructor(readonly options: CheckerOptions = {}) {}

  /** A copy with the same declarations and these options changed (cel-go's Env.Extend, without re-merging overloads). */
  extend(options: CheckerOptions): CheckerEnv {
    const e = new CheckerEnv({ ...this.options, ...options });
    for (const [k, v] of this.idents) e.idents.set(k, v);
    e.functions = this.functions;
    e.functionsShared = this.functionsShared = true;
    return e;
  }

  /** Declares variables; a later declaration of a name replaces the earlier. */
  addIdents(...decls: readonly VariableDecl[]): this {
    for (const d of decls) this.idents.set(d.name, d);
    return this;
  }

  /** Declares functions; overloads of a name already declared are added to it. */
  addFunctions(...decls: readonly FunctionDecl[]): this {
    if (this.functionsShared) {
      this.functions = new Map(this.functions);
      this.functionsShared = false;
    }
    for (const d of decls) {
      const current = this.functions.get(d.name);
      this.functions.set(d.name, current === undefined ? d : mergeFunctions(current, d));
    }
    return this;
  }

  findIdent(name: string): VariableDecl | undefined {
    return this.idents.get(name);
  }

  findFunction(name: string): FunctionDecl | undefined {
    return this.functions.get(name);
  }

  get container(): string {
    return this.options.container ?? '';
  }

  /** The names `name` may denote, most qualified first (containers.ResolveCandidateNames). */
  candidateNames(name: string): string[] {
    if (name.startsWith('.')) return [name.slice(1)];
    const out: string[] = [];
    for (let c = this.container; c !== ''; c = c.includes('.') ? c.slice(0, c.lastIndexOf('.')) : '')
      out.push(`${c}.${name}`);
    out.push(name);
    return out;
  }
}

/** An environment with the standard and optional libraries declared; kube's environment adds its own libraries to these. */
export const standardEnv = (options: CheckerOptions = {}): CheckerEnv =>
  new CheckerEnv(options)
    .addIdents(...STANDARD_TYPES, ...OPTIONAL_TYPES)
    .addFunctions(...STANDARD_FUNCTIONS, ...OPTIONAL_FUNCTIONS);

/** What an identifier or call resolved to: a declaration's name, or the overloads that may apply. */
export interface Reference {
  readonly name: string;
  readonly overloadIds: readonly string[];
}

/** cel-go's CheckedExpr. */
export interface CheckedAst {
  readonly expr: Expr;
  readonly sourceInfo: SourceInfo;
  readonly typeMap: ReadonlyMap<number, Type>;
  readonly referenceMap: ReadonlyMap<number, Reference>;
}

interface CheckResult {
  readonly ast: CheckedAst;
  readonly issues: Issues;
}

/** Type-checks a parsed expression; source is the text it was parsed from (errors point into it). */
export function check(parsed: ParsedExpr, source: Source, env: CheckerEnv): CheckResult {
  const c = new Checker(env, parsed.sourceInfo, source);
  const expr = c.check(parsed.expr);
  return { ast: c.result(expr, parsed.sourceInfo), issues: c.issues };
}

/** The type of the whole expression: `!error!` when it did not check, dyn when the root has no type (as cel-go's AST.GetType). */
export const outputType = (ast: CheckedAst): Type => ast.typeMap.get(ast.expr.id) ?? DynType;

/** cel-go's debug form of a checked AST: each node's `~type` and `^reference`, as cel-spec's `checkedAst` prints them. */
export function toCheckedDebugString(ast: CheckedAst): string {
  const adorn: Adorner = (e, isEntry) => {
    if (isEntry) return '';
    const node = e as Expr;
    const t = ast.typeMap.get(node.id);
    let out = t === undefined ? '' : `~${formatType(t)}`;
    const ref = ast.referenceMap.get(node.id);
    if (ref !== undefined && ['ident', 'call', 'list', 'struct', 'select'].includes(node.kind)) {
      out += ref.overloadIds.length === 0 ? `^${ref.name}` : `^${[...ref.overloadIds].sort().join('|')}`;
    }
    return out;
  };
  return toDebugString(ast.expr, adorn);
}

/** `a.b.c` as a name, if the expression is only identifiers and (non-test) selects. */
function qualifiedName(e: Expr): string | undefined {
  if (e.kind === 'ident') return e.name;
  if (e.kind !== 'select' || e.testOnly) return undefined;
  const operand = qualifiedName(e.operand);
  return operand === undefined ? undefined : `${operand}.${e.field}`;
}

/** Message names the checker accepts for CEL types built from protobuf's well-known types. */
const WELL_KNOWN_NAMES: Partial<Record<Type['kind'], string>> = {
  any: 'google.protobuf.Any',
  bool: 'google.protobuf.BoolValue',
  bytes: 'google.protobuf.BytesValue',
  double: 'google.protobuf.DoubleValue',
  duration: 'google.protobuf.Duration',
  dyn: 'google.protobuf.Value',
  int: 'google.protobuf.Int64Value',
  list: 'google.protobuf.ListValue',
  null_type: 'google.protobuf.NullValue',
  map: 'google.protobuf.Struct',
  string: 'google.protobuf.StringValue',
  timestamp: 'google.protobuf.Timestamp',
  uint: 'google.protobuf.UInt64Value',
};

function isWellKnownType(t: Type): boolean {
  switch (t.kind) {
    case 'any':
    case 'timestamp':
    case 'duration':
    case 'dyn':
    case 'null_type':
      return true;
    case 'bool':
    case 'bytes':
    case 'double':
    case 'int':
    case 'string':
    case 'uint':
      return isAssignableType(t, NullType);
    case 'list':
      return t.params[0]!.kind === 'dyn';
    case 'map':
      return t.params[0]!.kind === 'string' && t.params[1]!.kind === 'dyn';
    default:
      return false;
  }
}

const CONSTANT_TYPES: Record<string, Type> = {
  null: NullType,
  bool: BoolType,
  int: IntType,
  uint: UintType,
  double: DoubleType,
  string: StringType,
  bytes: BytesType,
};

class Checker {
  readonly issues: Issues;
  private readonly types = new Map<number, Type>();
  private readonly refs = new Map<number, Reference>();
  private readonly mappings = new Mapping();
  private freeTypeVars = 0;
  /** Comprehension scopes, innermost last. */
  private readonly scopes: Map<string, VariableDecl>[] = [];
  private readonly provider: TypeProvider;
  /**
   * Whether the cross-type relations are filtered. cel-go's Env.enterScope builds the scoped
   * environment without the filter, so from the first comprehension on they are allowed.
   */
  private filterCrossType: boolean;

  constructor(
    private readonly env: CheckerEnv,
    private readonly sourceInfo: SourceInfo,
    private readonly source: Source,
  ) {
    this.issues = new Issues(source);
    this.provider = env.options.provider ?? NO_MESSAGE_TYPES;
    this.filterCrossType = env.options.crossTypeNumericComparisons !== true;
  }

  /** The checked AST, its types' free parameters bound or made dyn. */
  result(expr: Expr, sourceInfo: SourceInfo): CheckedAst {
    const typeMap = new Map<number, Type>();
    for (const [id, t] of this.types) typeMap.set(id, substitute(this.mappings, t, true));
    return { expr, sourceInfo, typeMap, referenceMap: this.refs };
  }

  check(e: Expr): Expr {
    switch (e.kind) {
      case 'constant':
        this.types.set(e.id, CONSTANT_TYPES[e.value.kind]!);
        return e;
      case 'ident':
        return this.checkIdent(e.id, e.name);
      case 'select':
        return this.checkSelect(e);
      case 'call':
        return e.function === Operators.optSelect
          ? this.checkOptSelect(e.id, e.args, e.target)
          : this.checkCall(e.id, e.function, e.args, e.target);
      case 'list':
        return this.checkList(e.id, e.elements, e.optionalIndices);
      case 'struct':
        return e.messageName === '' ? this.checkMap(e.id, e.entries) : this.checkStruct(e);
      case 'comprehension':
        return this.checkComprehension(e);
      default:
        this.report(e.id, 'unexpected unspecified type: ');
        return e;
    }
  }

  // ---- Names ----

  /** Env.LookupIdent: locals innermost first, then globals, then message types, for each candidate name. */
  private lookupIdent(name: string): VariableDecl | undefined {
    for (const candidate of this.env.candidateNames(name)) {
      for (let i = this.scopes.length - 1; i >= 0; i--) {
        const local = this.scopes[i]!.get(candidate);
        if (local !== undefined) return local;
      }
      const global = this.env.findIdent(candidate);
      if (global !== undefined) return global;
      const message = this.provider.findStructType(candidate);
      if (message !== undefined) return variable(candidate, typeOf(message));
    }
    return undefined;
  }

  private lookupFunction(name: string): FunctionDecl | undefined {
    for (const candidate of this.env.candidateNames(name)) {
      const fn = this.env.findFunction(candidate);
      if (fn !== undefined) return fn;
    }
    return undefined;
  }

  private checkIdent(id: number, name: string): Expr {
    const decl = this.lookupIdent(name);
    if (decl === undefined) {
      this.types.set(id, ErrorType);
      this.undeclared(id, name);
      return ident(id, name);
    }
    this.types.set(id, decl.type);
    this.refs.set(id, { name: decl.name, overloadIds: [] });
    return ident(id, decl.name);
  }

  private checkSelect(e: SelectExpr): Expr {
    // A qualified name (`a.b.c`) declared as such wins over field selection.
    const qname = qualifiedName(e);
    if (qname !== undefined) {
      const decl = this.lookupIdent(qname);
      if (decl !== undefined) {
        this.types.set(e.id, decl.type);
        this.refs.set(e.id, { name: decl.name, overloadIds: [] });
        return ident(e.id, decl.name);
      }
    }
    const [operand, fieldType] = this.checkSelectField(e.id, e.operand, e.field, false);
    this.types.set(e.id, substitute(this.mappings, e.testOnly ? BoolType : fieldType, false));
    return select(e.id, operand, e.field, e.testOnly);
  }

  /** The operand checked and the field's type: a map's value type, a message field's type, dyn; optional in, optional out. */
  private checkSelectField(id: number, operandIn: Expr, field: string, optional: boolean): [Expr, Type] {
    const operand = this.check(operandIn);
    const [target, isOpt] = maybeUnwrapOptional(substitute(this.mappings, this.typeOf(operand), false));
    let result: Type;
    switch (target.kind) {
      case 'map':
        result = target.params[1]!;
        break;
      case 'struct':
        result = this.lookupFieldType(id, target.name, field) ?? ErrorType;
        break;
      case 'type_param':
        // Pin the parameter to dyn so that no later use binds it to something narrower.
        this.assignable(DynType, target);
        result = DynType;
        break;
      default:
        if (!isDynOrError(target)) this.report(id, `type '${formatType(target)}' does not support field selection`);
        result = DynType;
    }
    return [operand, isOpt || optional ? optionalType(result) : result];
  }

  private lookupFieldType(id: number, structName: string, field: string): Type | undefined {
    if (this.provider.findStructType(structName) === undefined) {
      this.report(id, `unexpected failed resolution of '${structName}'`);
      return undefined;
    }
    const t = this.provider.findFieldType(structName, field);
    if (t === undefined) this.report(id, `undefined field '${field}'`);
    return t;
  }

  /** `operand.?field`, which the parser writes `_?._(operand, "field")`. */
  private checkOptSelect(id: number, args: readonly Expr[], target: Expr | undefined): Expr {
    const field = args[1];
    if (args.length !== 2 || target !== undefined || field?.kind !== 'constant' || field.value.kind !== 'string') {
      this.report(id, 'unsupported optional field selection');
      return call(id, Operators.optSelect, args, target);
    }
    const [operand, fieldType] = this.checkSelectField(id, args[0]!, field.value.value, true);
    this.types.set(id, substitute(this.mappings, fieldType, false));
    this.refs.set(id, { name: '', overloadIds: ['select_optional_field'] });
    return call(id, Operators.optSelect, [operand, field]);
  }

  // ---- Calls ----

  private checkCall(id: number, name: string, argsIn: readonly Expr[], targetIn: Expr | undefined): Expr {
    const args = argsIn.map((a) => this.check(a));
    if (targetIn === undefined) {
      const fn = this.lookupFunction(name);
      if (fn === undefined) {
        this.undeclared(id, name);
        this.types.set(id, ErrorType);
        return call(id, name, args);
      }
      this.resolve(id, fn, undefined, args);
      return call(id, fn.name, args);
    }
    // `a.b.f()` may name a namespaced function `a.b.f`; then the target is part of the name, not a receiver.
    const prefix = qualifiedName(targetIn);
    if (prefix !== undefined) {
      const fn = this.lookupFunction(`${prefix}.${name}`);
      if (fn !== undefined) {
        this.resolve(id, fn, undefined, args);
        return call(id, fn.name, args);
      }
    }
    const target = this.check(targetIn);
    const fn = this.lookupFunction(name);
    if (fn === undefined) {
      this.types.set(id, ErrorType);
      this.undeclared(id, name);
    } else this.resolve(id, fn, target, args);
    return call(id, name, args, target);
  }

  /** Records the overloads that match and the result type, or cel-go's no-matching-overload error. */
  private resolve(id: number, fn: FunctionDecl, target: Expr | undefined, args: readonly Expr[]): void {
    const argTypes = [...(target === undefined ? [] : [this.typeOf(target)]), ...args.map((a) => this.typeOf(a))];
    let result: Type | undefined;
    const ids: string[] = [];
    for (const o of fn.overloads) {
      if (this.filterCrossType && CROSS_TYPE_NUMERIC_OVERLOADS.has(o.id)) continue;
      if (o.isMember !== (target !== undefined)) continue;
      if (fn.name === Operators.logicalAnd || fn.name === Operators.logicalOr) {
        this.resolveLogical(id, o.id, args, argTypes);
        return;
      }
      const [resultType, params] = this.instantiate(o);
      if (!isAssignableList(this.mappings, argTypes, params)) continue;
      ids.push(o.id);
      const r = substitute(this.mappings, resultType, false);
      if (result === undefined) result = r;
      else if (!isDyn(result) && !isExactType(r, result)) result = DynType;
    }
    if (result === undefined) {
      const shown = argTypes.map((t) => substitute(this.mappings, t, true));
      this.report(
        id,
        `found no matching overload for '${fn.name}' applied to '${formatFunctionType(undefined, shown, target !== undefined)}'`,
      );
      this.types.set(id, ErrorType);
      return;
    }
    this.types.set(id, result);
    this.refs.set(id, { name: '', overloadIds: ids });
  }

  /** `&&` and `||` take bools, each operand reported on its own when it is not one. */
  private resolveLogical(id: number, overloadId: string, args: readonly Expr[], argTypes: readonly Type[]): void {
    let ok = true;
    argTypes.forEach((t, i) => {
      if (this.assignable(t, BoolType)) return;
      this.typeMismatch(args[i]!.id, BoolType, t);
      ok = false;
    });
    this.types.set(id, ok ? BoolType : ErrorType);
    if (ok) this.refs.set(id, { name: '', overloadIds: [overloadId] });
  }

  /** An overload's result and parameter types with its type parameters renamed to fresh variables. */
  private instantiate(o: OverloadDecl): [Type, readonly Type[]] {
    if (o.typeParams.length === 0) return [o.resultType, o.argTypes];
    const fresh = new Mapping();
    for (const p of o.typeParams) fresh.add(typeParam(p), this.newTypeVar());
    const t = substitute(fresh, opaqueType('function', o.resultType, ...o.argTypes), false);
    return [t.params[0]!, t.params.slice(1)];
  }

  // ---- Literals ----

  private checkList(id: number, elementsIn: readonly Expr[], optionalIndices: readonly number[]): Expr {
    const optional = new Set(optionalIndices);
    let elemType: Type | undefined;
    const elements = elementsIn.map((el, i) => {
      const checked = this.check(el);
      const t = optional.has(i) ? this.unwrapOptionalValue(checked) : this.typeOf(checked);
      elemType = this.joinTypes(elemType, t);
      return checked;
    });
    this.types.set(id, listType(elemType ?? this.newTypeVar()));
    return list(id, elements, optionalIndices);
  }

  private checkMap(id: number, entriesIn: readonly StructEntry[]): Expr {
    let keyType: Type | undefined;
    let valueType: Type | undefined;
    const entries = entriesIn.map((en) => {
      if (en.key.kind !== 'mapKey') return en;
      const key = this.check(en.key.key);
      keyType = this.joinTypes(keyType, this.typeOf(key));
      const value = this.check(en.value);
      const vt = en.optionalEntry ? this.unwrapOptionalValue(value) : this.typeOf(value);
      valueType = this.joinTypes(valueType, vt);
      return mapEntry(en.id, key, value, en.optionalEntry);
    });
    this.types.set(
      id,
      keyType === undefined ? mapType(this.newTypeVar(), this.newTypeVar()) : mapType(keyType, valueType!),
    );
    return struct(id, '', entries);
  }

  /** The value type of an optional entry (`?e`, `?k: v`), which must be optional or dyn. */
  private unwrapOptionalValue(e: Expr): Type {
    const [t, isOpt] = maybeUnwrapOptional(this.typeOf(e));
    if (!isOpt && !isDyn(t)) this.typeMismatch(e.id, optionalType(t), t);
    return t;
  }

  /**
   * The common type of a literal's elements so far: the more general when they unify, else dyn.
   * (Mixed literals are refused after the check, by validators.ts, as cel-go does since its
   * checker's homogeneous option went unused.)
   */
  private joinTypes(previous: Type | undefined, current: Type): Type {
    if (previous === undefined) return current;
    if (this.assignable(previous, current)) return mostGeneral(previous, current);
    return DynType;
  }

  private checkStruct(e: StructExpr): Expr {
    const decl = this.lookupIdent(e.messageName);
    if (decl === undefined) {
      this.undeclared(e.id, e.messageName);
      this.types.set(e.id, ErrorType);
      return e;
    }
    let typeName = decl.name;
    this.refs.set(e.id, { name: typeName, overloadIds: [] });
    let result: Type = ErrorType;
    if (!isError(decl.type)) {
      if (decl.type.kind !== 'type') this.report(e.id, `'${declaredTypeName(decl.type)}' is not a type`);
      else {
        const t = decl.type.params[0]!;
        if (isWellKnownType(t)) {
          typeName = WELL_KNOWN_NAMES[t.kind] ?? '';
          result = t;
        } else if (t.kind === 'struct') {
          typeName = t.name;
          result = t;
        } else this.report(e.id, `'${declaredTypeName(t)}' is not a message type`);
      }
    }
    this.types.set(e.id, result);
    const entries = e.entries.map((en) => {
      if (en.key.kind !== 'field') return en;
      const value = this.check(en.value);
      const fieldType = this.lookupFieldType(en.id, typeName, en.key.name) ?? ErrorType;
      const vt = en.optionalEntry ? this.unwrapOptionalValue(value) : this.typeOf(value);
      if (!this.assignable(fieldType, vt)) {
        this.report(
          en.id,
          `expected type of field '${en.key.name}' is '${formatType(fieldType)}' but provided type is '${formatType(vt)}'`,
        );
      }
      return fieldEntry(en.id, en.key.name, value, en.optionalEntry);
    });
    return struct(e.id, decl.name, entries);
  }

  // ---- Comprehensions ----

  private checkComprehension(e: ComprehensionExpr): Expr {
    const iterRange = this.check(e.iterRange);
    const accuInit = this.check(e.accuInit);
    const rangeType = substitute(this.mappings, this.typeOf(iterRange), false);
    const accuType = this.typeOf(accuInit);
    this.enterScope(variable(e.accuVar, accuType));
    const two = e.iterVar2 !== '';
    let varType: Type;
    let var2Type: Type = ErrorType;
    switch (rangeType.kind) {
      case 'list':
        // One variable: the element; two: the index, then the element.
        [varType, var2Type] = two ? [IntType, rangeType.params[0]!] : [rangeType.params[0]!, ErrorType];
        break;
      case 'map':
        [varType, var2Type] = [rangeType.params[0]!, rangeType.params[1]!];
        break;
      case 'dyn':
      case 'error':
      case 'type_param':
        this.assignable(DynType, rangeType);
        [varType, var2Type] = [DynType, DynType];
        break;
      default:
        this.report(
          iterRange.id,
          `expression of type '${formatType(rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
        );
        varType = ErrorType;
    }
    this.enterScope(variable(e.iterVar, varType), ...(two ? [variable(e.iterVar2, var2Type)] : []));
    const loopCondition = this.check(e.loopCondition);
    this.assertType(loopCondition, BoolType);
    const loopStep = this.check(e.loopStep);
    this.assertType(loopStep, accuType);
    this.scopes.pop();
    const result = this.check(e.result);
    this.scopes.pop();
    this.types.set(e.id, substitute(this.mappings, this.typeOf(result), false));
    return comprehension(e.id, {
      iterVar: e.iterVar,
      iterVar2: e.iterVar2,
      iterRange,
      accuVar: e.accuVar,
      accuInit,
      loopCondition,
      loopStep,
      result,
    });
  }

  private enterScope(...decls: VariableDecl[]): void {
    this.scopes.push(new Map(decls.map((d) => [d.name, d])));
    this.filterCrossType = false;
  }

  // ---- Helpers ----

  private typeOf(e: Expr): Type {
    return this.types.get(e.id) ?? DynType;
  }

  private newTypeVar(): Type {
    return typeParam(`_var${this.freeTypeVars++}`);
  }

  /** Whether t1 is assignable to t2, keeping the type parameter bindings that makes it so. */
  private assignable(t1: Type, t2: Type): boolean {
    return isAssignable(this.mappings, t1, t2);
  }

  private assertType(e: Expr, t: Type): void {
    if (!this.assignable(t, this.typeOf(e))) this.typeMismatch(e.id, t, this.typeOf(e));
  }

  private typeMismatch(id: number, expected: Type, actual: Type): void {
    this.report(id, `expected type '${formatType(expected)}' but found '${formatType(actual)}'`);
  }

  private undeclared(id: number, name: string): void {
    this.report(id, `undeclared reference to '${name}' (in container '${this.env.container}')`);
  }

  private report(id: number, message: string): void {
    this.issues.report(id, locationOfId(this.sourceInfo, this.source, id), message);
  }
}

/** Where an expression starts, as issues report it (cel-go's SourceInfo.GetStartLocation). */
export function locationOfId(info: SourceInfo, source: Source, id: number): Location {
  const pos = info.positions.get(id);
  return pos === undefined ? NO_LOCATION : source.locationOf(pos.start);
}
