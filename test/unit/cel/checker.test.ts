// The checker against cel-spec's checking data (cel-go's checker tests, as @bufbuild/cel-spec
// ships them with cel-go's checked debug output, types and errors) and the checked cases of
// its parsing data, then the constructs real CRD rules use, checked as kube checks them.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { TWO_VAR_COMPREHENSION_FUNCTIONS } from '../../../cel/comprehensions.js';
import {
  type CheckerEnv,
  type CheckerOptions,
  check,
  KUBE_CHECKER_OPTIONS,
  outputType,
  standardEnv,
  toCheckedDebugString,
} from '../../../cel/checker.js';
import {
  type FunctionDecl,
  func,
  memberOverload,
  type OverloadDecl,
  overload,
  type VariableDecl,
  variable,
} from '../../../cel/decls.js';
import { KUBE_PARSER_OPTIONS, type ParserOptions, parse } from '../../../cel/parser.js';
import { Source } from '../../../cel/source.js';
import {
  AnyType,
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  DynType,
  formatType,
  IntType,
  listType,
  mapType,
  NullType,
  nullableType,
  objectType,
  opaqueType,
  optionalType,
  StringType,
  TimestampType,
  type Type,
  typeOf,
  typeParam,
  UintType,
} from '../../../cel/types.js';

/** cel.expr.Type in protojson form, as the data's typeEnv writes it. */
interface JsonType {
  primitive?: string;
  wrapper?: string;
  wellKnown?: string;
  listType?: { elemType: JsonType };
  mapType?: { keyType: JsonType; valueType: JsonType };
  messageType?: string;
  typeParam?: string;
  abstractType?: { name: string; parameterTypes?: JsonType[] };
  dyn?: object;
  null?: string;
  type?: JsonType;
}
interface JsonOverload {
  overloadId: string;
  params?: JsonType[];
  resultType: JsonType;
  isInstanceFunction?: boolean;
}
interface JsonDecl {
  name: string;
  ident?: { type: JsonType };
  function?: { overloads: JsonOverload[] };
}
interface SpecTest {
  original: { expr: string; container?: string; typeEnv?: JsonDecl[] };
  checkedAst?: string;
  type?: string;
  error?: string;
}

const PRIMITIVES: Record<string, Type> = {
  BOOL: BoolType,
  INT64: IntType,
  UINT64: UintType,
  DOUBLE: DoubleType,
  STRING: StringType,
  BYTES: BytesType,
};
const WELL_KNOWN: Record<string, Type> = { ANY: AnyType, TIMESTAMP: TimestampType, DURATION: DurationType };

/** cel.expr.Type to our Type, as cel-go's types.ProtoAsType converts it. */
function fromJson(t: JsonType): Type {
  if (t.primitive !== undefined) return PRIMITIVES[t.primitive]!;
  if (t.wrapper !== undefined) return nullableType(PRIMITIVES[t.wrapper]!);
  if (t.wellKnown !== undefined) return WELL_KNOWN[t.wellKnown]!;
  if (t.listType !== undefined) return listType(fromJson(t.listType.elemType));
  if (t.mapType !== undefined) return mapType(fromJson(t.mapType.keyType), fromJson(t.mapType.valueType));
  if (t.messageType !== undefined) return objectType(t.messageType);
  if (t.typeParam !== undefined) return typeParam(t.typeParam);
  if (t.abstractType !== undefined)
    return opaqueType(t.abstractType.name, ...(t.abstractType.parameterTypes ?? []).map(fromJson));
  if (t.null !== undefined) return NullType;
  if (t.type !== undefined) return typeOf(fromJson(t.type));
  return DynType;
}

const fromJsonOverload = (o: JsonOverload): OverloadDecl =>
  (o.isInstanceFunction === true ? memberOverload : overload)(
    o.overloadId,
    (o.params ?? []).map(fromJson),
    fromJson(o.resultType),
  );

/** What cel-spec's generator declares besides the standard and optional libraries (cel-go's checker test env). */
const SPEC_IDENTS: readonly VariableDecl[] = [
  variable('is', StringType),
  variable('ii', IntType),
  variable('iu', UintType),
  variable('iz', BoolType),
  variable('ib', BytesType),
  variable('id', DoubleType),
  variable('ix', NullType),
];
const SPEC_FUNCTIONS: readonly FunctionDecl[] = [
  func('fg_s', overload('fg_s_0', [], StringType)),
  func('fi_s_s', memberOverload('fi_s_s_0', [StringType], StringType)),
];

/** cel-spec's parser settings: the parse errors in its data name the source ''. */
const SPEC_PARSER: ParserOptions = {
  maxRecursionDepth: 32,
  errorRecoveryLimit: 4,
  errorRecoveryLookaheadTokenLimit: 4,
  populateMacroCalls: true,
  enableIdentEscapeSyntax: false,
  description: '',
};

function specEnv(t: SpecTest): CheckerEnv {
  const options: CheckerOptions = t.original.container === undefined ? {} : { container: t.original.container };
  const env = standardEnv(options)
    .addIdents(...SPEC_IDENTS)
    .addFunctions(...SPEC_FUNCTIONS);
  for (const d of t.original.typeEnv ?? []) {
    if (d.ident !== undefined) env.addIdents(variable(d.name, fromJson(d.ident.type)));
    if (d.function !== undefined) env.addFunctions(func(d.name, ...d.function.overloads.map(fromJsonOverload)));
  }
  return env;
}

/** The data's three outcomes in one string: the checked AST and type, or the errors. */
function expected(t: SpecTest): string {
  return t.checkedAst !== undefined ? `${t.checkedAst}\n: ${t.type ?? ''}` : (t.error ?? '');
}

function actual(t: SpecTest): string {
  const parsed = parse(t.original.expr, SPEC_PARSER);
  if (parsed.issues.length > 0) return parsed.issues.toDisplayString();
  const r = check(parsed.ast, new Source(t.original.expr), specEnv(t));
  if (r.issues.length > 0) return r.issues.toDisplayString();
  return `${toCheckedDebugString(r.ast)}\n: ${formatType(outputType(r.ast))}`;
}

const require = createRequire(import.meta.url);
const checking = (require('@bufbuild/cel-spec/testdata/checking.js') as { tests: { tests: SpecTest[] } }).tests.tests;
const parsing = (
  require('@bufbuild/cel-spec/testdata/parsing.js') as { tests: { tests: SpecTest[] } }
).tests.tests.filter((t) => t.checkedAst !== undefined || t.type !== undefined);

const FIELDS =
  "reads fields of cel-go's test protos (google.expr.proto2/proto3.test.TestAllTypes); registry.js has cel.expr.conformance's, under other names";
const LITERAL =
  "builds a message of cel-go's test protos or a protobuf well-known message by literal, which needs their descriptors";
const TYPE_NAME = "names a type or enum of cel-go's test protos, which registry.js does not provide";
/** Tests left out, by cel-spec's name for them (the expression, spaces collapsed), each with why. Kube has no proto messages. */
const SET_ASIDE: Record<string, string> = {
  'TestAllTypes{single_int32: 1, single_int64: 2}': LITERAL,
  'TestAllTypes{single_int32: 1u}': LITERAL,
  'TestAllTypes{single_int32: 1, undefined: 2}': LITERAL,
  'x.single_value + 1 / x.single_struct.y == 23': FIELDS,
  "x.single_value[23] + x.single_struct['y']": FIELDS,
  'TestAllTypes.NestedEnum.BAR != 99': TYPE_NAME,
  '(x + x)[1].single_int32 == size(x)': FIELDS,
  'x.repeated_int64[x.single_int32] == 23': FIELDS,
  'size(x.map_int64_nested_type) == 0': FIELDS,
  'x.repeated_int64.map(x, double(x))': FIELDS,
  'x.repeated_int64.map(x, x > 0, double(x))': FIELDS,
  'x["a"].single_int32 == 23': FIELDS,
  'x.single_nested_message.bb == 43 && has(x.single_nested_message)': FIELDS,
  'x.single_nested_message.undefined == x.undefined && has(x.single_int32) && has(x.repeated_int32)': FIELDS,
  'x.single_nested_message != null': FIELDS,
  'x.single_int64 != null': FIELDS,
  'x.single_int64_wrapper == null': FIELDS,
  "x.single_bool_wrapper && x.single_bytes_wrapper == b'hi' && x.single_double_wrapper != 2.0 && x.single_float_wrapper == 1.0 && x.single_int32_wrapper != 2 && x.single_int64_wrapper == 1 && x.single_string_wrapper == 'hi' && x.single_uint32_wrapper == 1u && x.single_uint64_wrapper != 42u":
    FIELDS,
  'x.single_timestamp == google.protobuf.Timestamp{seconds: 20} && x.single_duration < google.protobuf.Duration{seconds: 10}':
    LITERAL,
  "x.single_bool_wrapper == google.protobuf.BoolValue{value: true} && x.single_bytes_wrapper == google.protobuf.BytesValue{value: b'hi'} && x.single_double_wrapper != google.protobuf.DoubleValue{value: 2.0} && x.single_float_wrapper == google.protobuf.FloatValue{value: 1.0} && x.single_int32_wrapper != google.protobuf.Int32Value{value: -2} && x.single_int64_wrapper == google.protobuf.Int64Value{value: 1} && x.single_string_wrapper == google.protobuf.StringValue{value: 'hi'} && x.single_string_wrapper == google.protobuf.Value{string_value: 'hi'} && x.single_uint32_wrapper == google.protobuf.UInt32Value{value: 1u} && x.single_uint64_wrapper != google.protobuf.UInt64Value{value: 42u}":
    LITERAL,
  'x.repeated_int64.exists(y, y > 10) && y < 5': FIELDS,
  'x.repeated_int64.all(e, e > 0) && x.repeated_int64.exists(e, e < 0) && x.repeated_int64.exists_one(e, e == 0)':
    FIELDS,
  '.google.expr.proto3.test.TestAllTypes': TYPE_NAME,
  'test.TestAllTypes': TYPE_NAME,
  "x == google.protobuf.Any{ type_url:'types.googleapis.com/google.expr.proto3.test.TestAllTypes' } && x.single_nested_message.bb == 43 || x == google.expr.proto3.test.TestAllTypes{} || y < x || x >= x":
    LITERAL,
  'x.single_int64_wrapper + 1 != 23': FIELDS,
  'x.single_int64_wrapper + y != 23': FIELDS,
  '!has(pb2.single_int64) && !has(pb2.repeated_int32) && !has(pb2.map_string_string) && !has(pb3.single_int64) && !has(pb3.repeated_int32) && !has(pb3.map_string_string)':
    FIELDS,
  'TestAllTypes{}.repeated_nested_message': LITERAL,
  'type(testAllTypes.nestedgroup.nested_id) == int': FIELDS,
};

/** cel-spec's name of a test: its expression with runs of whitespace as one space. */
const specName = (t: SpecTest): string => t.original.expr.replace(/\s+/g, ' ').trim();

function runSuite(name: string, tests: readonly SpecTest[], setAside: Record<string, string>): void {
  describe(name, () => {
    const cases = tests.map((t, i) => ({
      name: `#${i} ${JSON.stringify(t.original.expr).slice(0, 70)}`,
      t,
      aside: setAside[specName(t)] !== undefined,
    }));
    it('reports its raw pass figure', () => {
      const passed = cases.filter(({ t }) => actual(t) === expected(t)).length;
      const aside = cases.filter((c) => c.aside).length;
      console.log(`${name}: ${passed} of ${cases.length} pass (${aside} set aside)`);
      expect(passed).toBe(cases.length - aside);
    });
    it.each(cases.filter((c) => !c.aside))('$name', ({ t }) => {
      expect(actual(t)).toBe(expected(t));
    });
  });
}

runSuite('cel-spec checking.js', checking, SET_ASIDE);
runSuite('cel-spec parsing.js (checked cases)', parsing, {});

// ---- Kube's constructs: `self` typed from a schema, checked with kube's settings ----

/** A few schema-derived object types, as kube declares a CRD's objects (by name, with their fields). */
const OBJECTS: Record<string, Record<string, Type>> = {
  Widget: {
    a: listType(StringType),
    replicas: IntType,
    name: StringType,
    matches: listType(objectType('Match')),
    ref: objectType('Ref'),
    labels: mapType(StringType, StringType),
  },
  Match: { path: StringType },
  Ref: { name: StringType },
};
const provider = {
  findStructType: (name: string): Type | undefined => (OBJECTS[name] === undefined ? undefined : objectType(name)),
  findFieldType: (structName: string, field: string): Type | undefined => OBJECTS[structName]?.[field],
};

/** A stand-in for kube's format library: just enough to give `validate` its type. */
const NAMED_FORMAT = opaqueType('kubernetes.NamedFormat');
const FORMAT_STUB: readonly FunctionDecl[] = [
  func('format.dns1123Label', overload('format-dns1123label', [], NAMED_FORMAT)),
  func('validate', memberOverload('format-validate', [NAMED_FORMAT, StringType], optionalType(listType(StringType)))),
];

const WIDGET = objectType('Widget');

/** The output type, or cel-go's errors, of a rule on `self` of the given type as kube checks it. */
function kube(expr: string, self: Type = WIDGET, options: CheckerOptions = KUBE_CHECKER_OPTIONS): string {
  const parsed = parse(expr, KUBE_PARSER_OPTIONS);
  expect(parsed.issues.toDisplayString()).toBe('');
  const env = standardEnv({ ...options, provider })
    .addIdents(variable('self', self))
    .addFunctions(...TWO_VAR_COMPREHENSION_FUNCTIONS, ...FORMAT_STUB);
  const r = check(parsed.ast, new Source(expr), env);
  return r.issues.length > 0 ? r.issues.toDisplayString() : formatType(outputType(r.ast));
}

describe('CRD rules as kube checks them', () => {
  it.each([
    ['has() on an indexed element', 'has(self[0].matches)', listType(WIDGET)],
    ['has() through an index', 'has(self.matches[0].path)', WIDGET],
    ['a presence-guarded list', "(has(self.a) ? self.a : []).exists(k, k == 'x')", WIDGET],
    ['all() over a map iterates its keys', "self.all(key, key.matches('^[a-z]+$'))", mapType(StringType, StringType)],
    ['an optional compared with null', 'format.dns1123Label().validate(self) == null', StringType],
    ['null against an object', 'self.ref == null', WIDGET],
    ['null first', 'null != self.ref', WIDGET],
    ['dyn against anything (heterogeneous equality)', "self.x == 1 && self.y == 'a' && dyn(1) == 1.0", DynType],
    ['cross-type numeric comparison, on in kube', '1 < 1.5 && self.replicas >= 2u', WIDGET],
    [
      'exists_one and map() over object lists',
      "self.matches.exists_one(m, m.path == '/') && self.matches.map(m, m.path).size() > 0",
      WIDGET,
    ],
  ])('%s: %s', (_name, expr, self) => {
    expect(kube(expr, self)).toBe('bool');
  });

  it.each([
    ['self.?a', 'optional_type(list(string))'],
    ['self.?a.orValue([])', 'list(string)'],
    ['self.?ref.?name', 'optional_type(string)'],
    ['self.?ref.name', 'optional_type(string)'],
    ['self.a[?0]', 'optional_type(string)'],
    ['self.labels[?"k"].hasValue()', 'bool'],
    ['self.?a.value()', 'list(string)'],
    ['self.?a.or(optional.of(["x"]))', 'optional_type(list(string))'],
    ['optional.none()', 'optional_type(dyn)'],
    ["optional.ofNonZeroValue('')", 'optional_type(string)'],
    ['[?self.?name, "b"]', 'list(string)'],
    ['{?"k": self.?name}', 'map(string, string)'],
    ['self.?a[0]', 'optional_type(string)'],
  ])('optional library: %s is %s', (expr, type) => {
    expect(kube(expr)).toBe(type);
  });

  it.each([
    [
      "1.0 == 'a'",
      "ERROR: <input>:1:5: found no matching overload for '_==_' applied to '(double, string)'\n | 1.0 == 'a'\n | ....^",
    ],
    ['x == 1', "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x == 1\n | ^"],
    ['self.replicaz > 1', "ERROR: <input>:1:5: undefined field 'replicaz'\n | self.replicaz > 1\n | ....^"],
    [
      'self.replicas + self.name',
      "ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(int, string)'\n | self.replicas + self.name\n | ..............^",
    ],
    // cel-go lets null stand for messages, optionals, any, timestamps, durations and wrappers, not lists.
    [
      'self.a == null',
      "ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(list(string), null)'\n | self.a == null\n | .......^",
    ],
    [
      'self.name.size',
      "ERROR: <input>:1:10: type 'string' does not support field selection\n | self.name.size\n | .........^",
    ],
    [
      'self.name.startsWith(1)',
      "ERROR: <input>:1:21: found no matching overload for 'startsWith' applied to 'string.(int)'\n | self.name.startsWith(1)\n | ....................^",
    ],
    [
      'self.replicas.all(x, true)',
      "ERROR: <input>:1:5: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)\n | self.replicas.all(x, true)\n | ....^",
    ],
    [
      'self.name && true',
      "ERROR: <input>:1:5: expected type 'bool' but found 'string'\n | self.name && true\n | ....^",
    ],
    [
      'self.?name.orValue(1)',
      "ERROR: <input>:1:19: found no matching overload for 'orValue' applied to 'optional_type(string).(int)'\n | self.?name.orValue(1)\n | ..................^",
    ],
  ])('rejects %s as cel-go does', (expr, error) => {
    expect(kube(expr)).toBe(error);
  });

  it.each([
    ["self.labels.all(k, v, k != v && v.startsWith('x'))", 'bool'],
    ["self.a.exists(i, v, i > 0 && v == 'x')", 'bool'],
    ['self.a.existsOne(i, v, i == 0)', 'bool'],
    ['self.a.transformList(i, v, i)', 'list(int)'],
    ['self.labels.transformMap(k, v, v.size())', 'map(string, int)'],
    ['self.labels.transformMap(k, v, k != "", v + k)', 'map(string, string)'],
    ['self.matches.transformMapEntry(i, m, {m.path: i})', 'map(string, int)'],
  ])('two-variable comprehensions: %s is %s', (expr, type) => {
    expect(kube(expr)).toBe(type);
  });

  it('rejects cross-type numeric comparisons where they are off, as cel-go does by default', () => {
    expect(kube('1 < 1.5', WIDGET, {})).toBe(
      "ERROR: <input>:1:3: found no matching overload for '_<_' applied to '(int, double)'\n | 1 < 1.5\n | ..^",
    );
  });

  it('allows them from the first comprehension on, as cel-go does (its scoped environments drop the filter)', () => {
    expect(kube('[1].all(x, x < 1.5) && 1 < 1.5', WIDGET, {})).toBe('bool');
    expect(kube('1 < 1.5 && [1].all(x, x < 1.5)', WIDGET, {})).toContain(
      "found no matching overload for '_<_' applied to '(int, double)'",
    );
  });

  it('types mixed literals as dyn, as cel-go does (kube refuses them after the check: validators.test.ts)', () => {
    expect(kube("[1, 'a']")).toBe('list(dyn)');
    expect(kube("{'a': 1, 2: 'b'}")).toBe('map(dyn, dyn)');
  });

  it('records references and rewrites namespaced calls as cel-go does', () => {
    const expr = "format.dns1123Label().validate(self.name) == null && self.a.exists(k, k == 'x')";
    const parsed = parse(expr, KUBE_PARSER_OPTIONS);
    const env = standardEnv({ ...KUBE_CHECKER_OPTIONS, provider })
      .addIdents(variable('self', WIDGET))
      .addFunctions(...FORMAT_STUB);
    const r = check(parsed.ast, new Source(expr), env);
    expect(r.issues.toDisplayString()).toBe('');
    const out = toCheckedDebugString(r.ast);
    expect(out).toContain('format.dns1123Label()~kubernetes.NamedFormat^format-dns1123label.validate(');
    expect(out).toContain('self~Widget^self.name~string');
    expect(out).toContain(')~optional_type(list(string))^format-validate,');
    expect(out).toContain('k~string^k');
  });
});
