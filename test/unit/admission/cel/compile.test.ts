// Admission expressions compiled as kube's admission/plugin/cel compiles them (admission/cel/
// compile.ts): the declared variables and kube's types for request and namespaceObject, the
// return-type texts, variables composed in order and declared with kube's types, the two
// environments, and the type checker's typed object.
import { describe, expect, it } from 'vitest';
import { AdmissionCompiler, type ReturnTypes, variableType } from '../../../../admission/cel/compile.js';
import { schemaDeclType } from '../../../../cel/kube/schema-types.js';
import {
  AnyType,
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  DynType,
  IntType,
  listType,
  mapType,
  NullType,
  nullableType,
  objectType,
  optionalType,
  StringType,
  TimestampType,
  type Type,
  typeOf,
  UintType,
} from '../../../../cel/types.js';

const ALL = { params: true, authorizer: true };

/** kube's detail for `src`, or '' when it compiles to one of `types`. */
function compileError(src: string, types: ReturnTypes = 'any', decls = ALL, composition = false): string {
  return new AdmissionCompiler(composition).compile(src, decls, 'StoredExpressions', types).error ?? '';
}

describe('variableType: the type a variable is declared with (convertCelTypeToDeclType)', () => {
  it.each<[string, Type, Type]>([
    ['bool', BoolType, BoolType],
    ['int', IntType, IntType],
    ['uint', UintType, UintType],
    ['double', DoubleType, DoubleType],
    ['string', StringType, StringType],
    ['bytes', BytesType, BytesType],
    ['null', NullType, NullType],
    ['timestamp', TimestampType, TimestampType],
    ['duration', DurationType, DurationType],
    ['any', AnyType, AnyType],
    ['dyn', DynType, DynType],
    ['list(int)', listType(IntType), listType(IntType)],
    ['map(string, list(bool))', mapType(StringType, listType(BoolType)), mapType(StringType, listType(BoolType))],
    ['an object', objectType('kubernetes.UserInfo'), DynType],
    ['a list of objects', listType(objectType('kubernetes.UserInfo')), listType(DynType)],
    ['an optional', optionalType(IntType), DynType],
    ['a wrapper', nullableType(IntType), DynType],
    ['a type', typeOf(IntType), DynType],
  ])('%s', (_name, t, want) => {
    expect(variableType(t)).toEqual(want);
  });

  it('one that did not compile is dyn', () => {
    expect(variableType(undefined)).toEqual(DynType);
  });
});

describe("return types, with kube's texts (cel-go's Type.String())", () => {
  it.each<[string, ReturnTypes, string]>([
    ['true', [BoolType], ''],
    ['1', [BoolType], 'must evaluate to bool but got int'],
    // dyn is not bool: kube compares types exactly.
    ['object.spec.enabled', [BoolType], 'must evaluate to bool but got dyn'],
    ['object.spec.enabled == true', [BoolType], ''],
    ["'a'", [StringType], ''],
    ['[1]', [StringType], 'must evaluate to string but got list(int)'],
    ["{'a': [true]}", [StringType], 'must evaluate to string but got map(string, list(bool))'],
    ["timestamp('2024-01-01T00:00:00Z')", [StringType], 'must evaluate to string but got google.protobuf.Timestamp'],
    ['optional.of(1)', [StringType], 'must evaluate to string but got optional_type(int)'],
    [
      "authorizer.path('/').check('get')",
      [BoolType],
      'must evaluate to bool but got kubernetes.authorization.Decision',
    ],
    ['request.userInfo', [BoolType], 'must evaluate to bool but got kubernetes.UserInfo'],
    ["'v'", [StringType, NullType], ''],
    ['null', [StringType, NullType], ''],
    ['1', [StringType, NullType], 'must evaluate to one of [string null_type] but got int'],
    ['1', 'any', ''],
  ])('%s', (src, types, want) => {
    expect(compileError(src, types)).toBe(want);
  });
});

describe("kube's declarations", () => {
  it.each<[string, string, { params: boolean; authorizer: boolean }?]>([
    ["request.userInfo.username == 'a' && request.kind.group == '' && request.dryRun", ''],
    ["request.userInfo.extra['k'][0] == 'v' && request.requestSubResource == ''", ''],
    ['request.uid', "compilation failed: ERROR: <input>:1:8: undefined field 'uid'\n | request.uid\n | .......^"],
    ["namespaceObject.metadata.labels['a'] == 'b' && namespaceObject.status.phase == 'Active'", ''],
    // kube spells it UID, which the JSON never has.
    [
      "namespaceObject.metadata.uid == ''",
      "compilation failed: ERROR: <input>:1:25: undefined field 'uid'\n | namespaceObject.metadata.uid == ''\n | ........................^",
    ],
    ["namespaceObject.metadata.UID == ''", ''],
    ['object.anything.goes && oldObject.too', ''],
    ['params.x', ''],
    [
      'params.x',
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^",
      { params: false, authorizer: true },
    ],
    ["authorizer.requestResource.check('get').allowed()", ''],
    [
      "authorizer.requestResource.check('get').allowed()",
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.requestResource.check('get').allowed()\n | ^",
      { params: true, authorizer: false },
    ],
    [
      'variables.a',
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.a\n | ^",
    ],
  ])('%s', (src, want, decls = ALL) => {
    expect(compileError(src, 'any', decls)).toBe(want);
  });
});

describe('variables, composed', () => {
  it('each sees those before it, declared with its type; what follows sees them all', () => {
    const c = new AdmissionCompiler(true);
    const variable = (name: string, src: string): string =>
      c.compileVariable(name, src, ALL, 'StoredExpressions').error ?? '';
    expect(variable('size', 'object.spec.size')).toBe('');
    expect(variable('names', "['a', 'b']")).toBe('');
    expect(variable('later', 'variables.next')).toBe(
      "compilation failed: ERROR: <input>:1:10: undefined field 'next'\n | variables.next\n | .........^",
    );
    expect(variable('next', 'variables.names.size() + 1')).toBe('');
    expect(c.compile("variables.names[0] + 'x'", ALL, 'StoredExpressions', [StringType]).error).toBeUndefined();
    expect(c.compile('variables.next', ALL, 'StoredExpressions', [IntType]).error).toBeUndefined();
    // A variable that did not compile, or is dyn, is no bool.
    expect(c.compile('variables.later', ALL, 'StoredExpressions', [BoolType]).error).toBe(
      'must evaluate to bool but got dyn',
    );
    expect([...c.variables.keys()]).toEqual(['size', 'names', 'later', 'next']);
  });
});

describe('environments', () => {
  const semver = "isSemver('1.2.3')";
  it('new expressions are compiled without what kube 1.33 added; stored ones with it', () => {
    const c = new AdmissionCompiler(false);
    expect(c.compile(semver, ALL, 'NewExpressions', [BoolType]).error).toBe(
      "compilation failed: ERROR: <input>:1:9: undeclared reference to 'isSemver' (in container '')\n | isSemver('1.2.3')\n | ........^",
    );
    expect(c.compile(semver, ALL, 'StoredExpressions', [BoolType]).error).toBeUndefined();
  });

  it("both have kube's CRD libraries and the authorization ones", () => {
    for (const src of [
      "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
      "'a-b'.split('-').size() == 2",
      "authorizer.group('').resource('pods').fieldSelector('a=b').check('list').allowed()",
    ])
      expect(new AdmissionCompiler(false).compile(src, ALL, 'NewExpressions', [BoolType]).error, src).toBeUndefined();
  });
});

describe("kube's compile: the AST validators after the type check (cel-go's Env.Compile)", () => {
  const at = (src: string, column: number, message: string): string =>
    `ERROR: <input>:1:${column}: ${message}\n | ${src}\n | ${'.'.repeat(column - 1)}^`;
  it.each<[string, number, string]>([
    ["duration('1d') > duration('1h')", 10, 'invalid duration argument'],
    ["timestamp('2024-13-01T00:00:00Z') > timestamp('2024-01-01T00:00:00Z')", 11, 'invalid timestamp argument'],
    ["object.metadata.name.matches('x++')", 30, 'invalid matches argument'],
    ["request.name in ['a', 1]", 23, "expected type 'string' but found 'int'"],
  ])('%s', (src, column, message) => {
    for (const type of ['NewExpressions', 'StoredExpressions'] as const)
      expect(new AdmissionCompiler(false).compile(src, ALL, type, [BoolType]).error).toBe(
        `compilation failed: ${at(src, column, message)}`,
      );
  });

  it("the strings library's format() check, in the type checker too", () => {
    const src = "'%d'.format(['a']) == ''";
    const want = at(src, 14, 'error during formatting: decimal clause can only be used on integers, was given string');
    expect(compileError(src, [BoolType])).toBe(`compilation failed: ${want}`);
    expect(new AdmissionCompiler(true, { object: { type: DynType }, params: undefined }).typeCheck(src)).toBe(want);
  });
});

describe('the type checker (typed object and params)', () => {
  const object = schemaDeclType(
    {
      type: 'object',
      properties: {
        kind: { type: 'string' },
        apiVersion: { type: 'string' },
        metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
        spec: { type: 'object', properties: { size: { type: 'integer' } } },
      },
    },
    true,
    'Widget1',
  )!;

  it.each<[string, string | undefined]>([
    ['object.spec.size < 10 && oldObject.spec.size < 10', undefined],
    ['object.spec.sise < 10', "ERROR: <input>:1:12: undefined field 'sise'\n | object.spec.sise < 10\n | ...........^"],
    // The checker declares `authorizer` for its functions, not requestResource.
    [
      "authorizer.requestResource.check('get').allowed()",
      "ERROR: <input>:1:11: unexpected failed resolution of 'kubernetes.authorization.Authorizer'\n | authorizer.requestResource.check('get').allowed()\n | ..........^",
    ],
    ['params.x', "ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^"],
  ])('%s', (src, want) => {
    expect(new AdmissionCompiler(true, { object, params: undefined }).typeCheck(src)).toBe(want);
  });

  it('variables are declared with the types they check to', () => {
    const c = new AdmissionCompiler(true, { object, params: undefined });
    expect(c.typeCheck('object.spec.size', 'size')).toBeUndefined();
    expect(c.typeCheck("variables.size + 'x'")).toBe(
      "ERROR: <input>:1:16: found no matching overload for '_+_' applied to '(int, string)'\n | variables.size + 'x'\n | ...............^",
    );
  });
});

describe("a program cel-go's Program() refuses (kube's OptOptimize folds a constant conversion)", () => {
  it("is kube's compilation error, not a thrown one", () => {
    expect(compileError("int('x') == 1")).toBe(
      "program instantiation failed: type conversion error from 'string' to 'int'",
    );
  });
});
