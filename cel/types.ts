// CEL's types as cel-go's common/types.Type has them, and the checker's unification of them
// (cel-go checker/types.go, checker/mapping.go). Types are plain immutable data; a type
// parameter's binding lives in a Mapping, which a failed trial (an overload that does not apply)
// leaves as it found it. cel-go copies the mapping for every trial; we undo the trial's bindings
// instead, as a copy per call node makes checking a long chain of calls quadratic.

export type Kind =
  | 'any'
  | 'bool'
  | 'bytes'
  | 'double'
  | 'duration'
  | 'dyn'
  | 'error'
  | 'int'
  | 'list'
  | 'map'
  | 'null_type'
  | 'opaque'
  | 'string'
  | 'struct'
  | 'timestamp'
  | 'type'
  | 'type_param'
  | 'uint';

export interface Type {
  readonly kind: Kind;
  /** cel-go's runtime type name: `int`, `list`, `google.protobuf.Timestamp`, a message's full name, a type parameter's name. */
  readonly name: string;
  readonly params: readonly Type[];
  /** A wrapper type (`wrapper(int)`): the primitive, also assignable from null. Exactness ignores it, as cel-go's does. */
  readonly nullable: boolean;
}

const mk = (kind: Kind, name: string, params: readonly Type[] = [], nullable = false): Type => ({
  kind,
  name,
  params,
  nullable,
});

export const AnyType = mk('any', 'google.protobuf.Any');
export const BoolType = mk('bool', 'bool');
export const BytesType = mk('bytes', 'bytes');
export const DoubleType = mk('double', 'double');
export const DurationType = mk('duration', 'google.protobuf.Duration');
export const DynType = mk('dyn', 'dyn');
export const ErrorType = mk('error', 'error');
export const IntType = mk('int', 'int');
export const NullType = mk('null_type', 'null_type');
export const StringType = mk('string', 'string');
export const TimestampType = mk('timestamp', 'google.protobuf.Timestamp');
export const TypeType = mk('type', 'type');
export const UintType = mk('uint', 'uint');

export const listType = (elem: Type): Type => mk('list', 'list', [elem]);
export const mapType = (key: Type, value: Type): Type => mk('map', 'map', [key, value]);
export const typeParam = (name: string): Type => mk('type_param', name);
export const opaqueType = (name: string, ...params: Type[]): Type => mk('opaque', name, params);
export const optionalType = (param: Type): Type => opaqueType('optional_type', param);
export const typeOf = (param: Type): Type => mk('type', 'type', [param]);
/** A wrapper type: google.protobuf.Int64Value and the like, nullable primitives. */
export const nullableType = (wrapped: Type): Type => mk(wrapped.kind, wrapped.name, wrapped.params, true);

/** The CEL type a protobuf well-known type name stands for (common/types checkedWellKnowns). */
const WELL_KNOWN: ReadonlyMap<string, Type> = new Map([
  ['google.protobuf.BoolValue', nullableType(BoolType)],
  ['google.protobuf.BytesValue', nullableType(BytesType)],
  ['google.protobuf.DoubleValue', nullableType(DoubleType)],
  ['google.protobuf.FloatValue', nullableType(DoubleType)],
  ['google.protobuf.Int64Value', nullableType(IntType)],
  ['google.protobuf.Int32Value', nullableType(IntType)],
  ['google.protobuf.UInt64Value', nullableType(UintType)],
  ['google.protobuf.UInt32Value', nullableType(UintType)],
  ['google.protobuf.StringValue', nullableType(StringType)],
  ['google.protobuf.Any', AnyType],
  ['google.protobuf.Duration', DurationType],
  ['google.protobuf.Timestamp', TimestampType],
  ['google.protobuf.ListValue', listType(DynType)],
  ['google.protobuf.NullValue', NullType],
  ['google.protobuf.Struct', mapType(StringType, DynType)],
  ['google.protobuf.Value', DynType],
]);

/** A message type by name; well-known names become the CEL types they denote. */
export const objectType = (name: string): Type => WELL_KNOWN.get(name) ?? mk('struct', name);

const isDynLike = (t: Type): boolean => t.kind === 'dyn' || t.kind === 'any' || t.kind === 'type_param';

/** Type.IsExactType: same kind, name and parameters (a wrapper is exactly its primitive). */
export function isExactType(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.params.length !== b.params.length || a.name !== b.name) return false;
  return a.params.every((p, i) => isExactType(p, b.params[i]!));
}

/** Type.IsEquivalentType: as IsExactType, but type parameters match whatever their names. */
export function isEquivalentType(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.params.length !== b.params.length) return false;
  if (a.kind !== 'type_param' && a.name !== b.name) return false;
  return a.params.every((p, i) => isEquivalentType(p, b.params[i]!));
}

/** Type.IsAssignableType: whether a value of type `from` may stand where `t` is expected. */
export function isAssignableType(t: Type, from: Type): boolean {
  if (t.nullable) return isAssignableType(NullType, from) || isAssignableType({ ...t, nullable: false }, from);
  if (t === from || isDynLike(t)) return true;
  if (t.kind !== from.kind || t.name !== from.name || t.params.length !== from.params.length) return false;
  return t.params.every((p, i) => isAssignableType(p, from.params[i]!));
}

/** Type.DeclaredTypeName: `wrapper(int)` for wrappers, else the type name. */
export function declaredTypeName(t: Type): string {
  if (t.kind !== 'null_type' && !isDynLike(t) && isAssignableType(t, NullType)) return `wrapper(${t.name})`;
  return t.name;
}

/** cel-go's FormatCELType: `list(int)`, `map(string, dyn)`, `wrapper(int)`, `!error!`, `timestamp`. */
export function formatType(t: Type): string {
  switch (t.kind) {
    case 'any':
      return 'any';
    case 'duration':
      return 'duration';
    case 'error':
      return '!error!';
    case 'null_type':
      return 'null';
    case 'timestamp':
      return 'timestamp';
    case 'type_param':
      return t.name;
    case 'opaque':
      if (t.name === 'function') return formatFunctionType(t.params[0], t.params.slice(1), false);
      break;
    default:
      break;
  }
  if (t.params.length === 0) return declaredTypeName(t);
  return `${t.name}(${t.params.map(formatType).join(', ')})`;
}

/** cel-go's Type.String(): declared names (`google.protobuf.Timestamp`, `null_type`), parameters in parentheses. */
export function typeString(t: Type): string {
  const name = declaredTypeName(t);
  return t.params.length === 0 ? name : `${name}(${t.params.map(typeString).join(', ')})`;
}

/** `target.(args) -> result`, as cel-go formats a signature; no result part when result is undefined. */
export function formatFunctionType(result: Type | undefined, args: readonly Type[], isInstance: boolean): string {
  let out = '';
  let rest = args;
  if (isInstance && args.length > 0) {
    out += `${formatType(args[0]!)}.`;
    rest = args.slice(1);
  }
  out += `(${rest.map(formatType).join(', ')})`;
  return result === undefined ? out : `${out} -> ${formatType(result)}`;
}

// ---- The checker's view of types (checker/types.go) ----

export const isDyn = (t: Type): boolean => t.kind === 'dyn' || t.kind === 'any';
export const isError = (t: Type): boolean => t.kind === 'error';
export const isDynOrError = (t: Type): boolean => isDyn(t) || isError(t);
const isOptional = (t: Type): boolean => t.kind === 'opaque' && t.name === 'optional_type';

/** The optional's parameter and true, or the type itself and false. */
export function maybeUnwrapOptional(t: Type): [Type, boolean] {
  return isOptional(t) ? [t.params[0]!, true] : [t, false];
}

/**
 * Type parameter bindings. cel-go keys them by the formatted type, but only type parameters are
 * ever bound (the checker's trials and an overload's instantiation), so the key is the
 * parameter's name and any other type finds nothing.
 */
export class Mapping {
  private readonly m = new Map<string, Type>();
  /** The bindings a trial replaced, to restore if it fails. */
  private readonly undo: { readonly key: string; readonly was: Type | undefined }[] = [];
  /** Binds a type parameter. */
  add(param: Type, to: Type): void {
    this.undo.push({ key: param.name, was: this.m.get(param.name) });
    this.m.set(param.name, to);
  }
  find(from: Type): Type | undefined {
    return from.kind === 'type_param' ? this.m.get(from.name) : undefined;
  }
  /** Runs a trial: its bindings are kept when it returns true, undone when it returns false. */
  trial(f: () => boolean): boolean {
    const mark = this.undo.length;
    if (f()) {
      // Kept: an enclosing trial may still need to undo them.
      if (mark === 0) this.undo.length = 0;
      return true;
    }
    while (this.undo.length > mark) {
      const u = this.undo.pop()!;
      if (u.was === undefined) this.m.delete(u.key);
      else this.m.set(u.key, u.was);
    }
    return false;
  }
}

/** Whether t1 is as general as t2 or more (dyn and type parameters are the most general). */
function isEqualOrLessSpecific(t1: Type, t2: Type): boolean {
  if (isDyn(t1) || t1.kind === 'type_param') return true;
  if (isDyn(t2) || t2.kind === 'type_param') return false;
  if (t1.kind !== t2.kind) return false;
  switch (t1.kind) {
    case 'opaque':
      return (
        t1.name === t2.name &&
        t1.params.length === t2.params.length &&
        t1.params.every((p, i) => isEqualOrLessSpecific(p, t2.params[i]!))
      );
    case 'list':
      return isEqualOrLessSpecific(t1.params[0]!, t2.params[0]!);
    case 'map':
      return isEqualOrLessSpecific(t1.params[0]!, t2.params[0]!) && isEqualOrLessSpecific(t1.params[1]!, t2.params[1]!);
    case 'type':
      return true;
    default:
      return isExactType(t1, t2);
  }
}

/** The more general of two types known to unify. */
export const mostGeneral = (t1: Type, t2: Type): Type => (isEqualOrLessSpecific(t1, t2) ? t1 : t2);

/** The legacy checker let null stand for messages, opaque values, any, timestamps and durations. */
const isLegacyNullable = (t: Type): boolean => ['opaque', 'struct', 'any', 'duration', 'timestamp'].includes(t.kind);
const isAssignableNull = (t: Type): boolean => isLegacyNullable(t) || isAssignableType(t, NullType);

const SPECIFIC_KINDS: ReadonlySet<Kind> = new Set([
  'bool',
  'bytes',
  'double',
  'int',
  'string',
  'uint',
  'any',
  'duration',
  'timestamp',
  'struct',
]);

/** internalIsAssignable: whether t1 is assignable to t2, binding type parameters in m as it goes. */
function assignable(m: Mapping, t1: Type, t2: Type): boolean {
  if (t2.kind === 'type_param') {
    const [valid, t2HasSub] = isValidTypeSubstitution(m, t1, t2);
    if (valid) return true;
    if (t2HasSub) return false;
  }
  if (t1.kind === 'type_param') return isValidTypeSubstitution(m, t2, t1)[0];
  if (isDynOrError(t1) || isDynOrError(t2)) return true;
  if (t1.kind === 'null_type') return isAssignableNull(t2);
  if (t2.kind === 'null_type') return isAssignableNull(t1);
  if (SPECIFIC_KINDS.has(t1.kind)) return isAssignableType(t2, t1);
  switch (t1.kind) {
    case 'type':
      return t2.kind === 'type';
    case 'opaque':
    case 'list':
    case 'map':
      return t1.kind === t2.kind && t1.name === t2.name && assignableList(m, t1.params, t2.params);
    default:
      return false;
  }
}

/** Whether t2 (or its binding) may stand for t1, binding t2 when it is free; and whether t2 was bound. */
function isValidTypeSubstitution(m: Mapping, t1: Type, t2: Type): [boolean, boolean] {
  if (t1.kind === t2.kind && isExactType(t1, t2)) return [true, true];
  const t2Sub = m.find(t2);
  if (t2Sub !== undefined) {
    if (t1.kind === t2Sub.kind && isExactType(t1, t2Sub)) return [true, true];
    if (assignable(m, t1, t2Sub)) {
      const t2New = mostGeneral(t1, t2Sub);
      if (notReferencedIn(m, t2, t2New)) m.add(t2, t2New);
      return [true, true];
    }
    return [false, true];
  }
  if (notReferencedIn(m, t2, t1)) {
    m.add(t2, t1);
    return [true, false];
  }
  return [false, false];
}

function assignableList(m: Mapping, l1: readonly Type[], l2: readonly Type[]): boolean {
  return l1.length === l2.length && l1.every((t, i) => assignable(m, t, l2[i]!));
}

/** The occurs check: t appears neither in withinType nor in the bindings it leads to. */
function notReferencedIn(m: Mapping, t: Type, withinType: Type): boolean {
  if (isExactType(t, withinType)) return false;
  switch (withinType.kind) {
    case 'type_param': {
      const sub = m.find(withinType);
      return sub === undefined || notReferencedIn(m, t, sub);
    }
    case 'opaque':
    case 'list':
    case 'map':
    case 'type':
      return withinType.params.every((p) => notReferencedIn(m, t, p));
    default:
      return true;
  }
}

/** Whether t1 is assignable to t2: if so, m keeps the bindings that make it so; if not, m is left as it was. */
export const isAssignable = (m: Mapping, t1: Type, t2: Type): boolean => m.trial(() => assignable(m, t1, t2));

export const isAssignableList = (m: Mapping, l1: readonly Type[], l2: readonly Type[]): boolean =>
  m.trial(() => assignableList(m, l1, l2));

/** t with bound type parameters replaced by their bindings; free ones become dyn when typeParamToDyn. */
export function substitute(m: Mapping, t: Type, typeParamToDyn: boolean): Type {
  const sub = m.find(t);
  if (sub !== undefined) return substitute(m, sub, typeParamToDyn);
  if (typeParamToDyn && t.kind === 'type_param') return DynType;
  switch (t.kind) {
    case 'opaque':
    case 'list':
    case 'map':
    case 'type':
      return t.params.length === 0 ? t : { ...t, params: t.params.map((p) => substitute(m, p, typeParamToDyn)) };
    default:
      return t;
  }
}

/** The names of the type parameters t mentions. */
export function typeParamNames(t: Type, into: Set<string> = new Set()): Set<string> {
  if (t.kind === 'type_param') into.add(t.name);
  for (const p of t.params) typeParamNames(p, into);
  return into;
}
