// kube's schema-to-CEL mapping: schema → type (as cel-go formats types), rule → checker
// verdict (cel-go's error texts), rule → value against JSON documents typed by the schema.
import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../../apimachinery/json-parse.js';
import { check, KUBE_CHECKER_OPTIONS, outputType, standardEnv } from '../../../cel/checker.js';
import { activation, KUBE_PROGRAM_OPTIONS, program } from '../../../cel/eval.js';
import {
  type CelSchema,
  ruleVariables,
  SchemaTypeProvider,
  schemaDeclType,
  usesOldSelf,
} from '../../../cel/kube/schema-types.js';
import { schemaValue, unescapeFieldName } from '../../../cel/kube/schema-values.js';
import { KUBE_PARSER_OPTIONS, parse } from '../../../cel/parser.js';
import { Source } from '../../../cel/source.js';
import { formatType } from '../../../cel/types.js';
import type { CelError, JsonValue, Value } from '../../../cel/values.js';
import { OPTIONAL_FUNCTIONS } from '../../../cel/optional.js';

const str: CelSchema = { type: 'string' };
const int: CelSchema = { type: 'integer' };
const num: CelSchema = { type: 'number' };
const obj = (properties: Record<string, CelSchema>, extra: Partial<CelSchema> = {}): CelSchema => ({
  type: 'object',
  properties,
  ...extra,
});
const arr = (items: CelSchema, extra: Partial<CelSchema> = {}): CelSchema => ({ type: 'array', items, ...extra });

const NAME = 'selfType0';

function compile(rule: string, schema: CelSchema, opts: { root?: boolean; optionalOldSelf?: boolean } = {}) {
  const decl = schemaDeclType(schema, opts.root ?? false, NAME);
  if (decl === undefined) throw new Error('schema not visible to CEL');
  const env = standardEnv({ ...KUBE_CHECKER_OPTIONS, provider: new SchemaTypeProvider(decl) })
    .addFunctions(...OPTIONAL_FUNCTIONS)
    .addIdents(...ruleVariables(decl.type, opts.optionalOldSelf));
  const parsed = parse(rule, KUBE_PARSER_OPTIONS);
  expect(parsed.issues.errors, rule).toEqual([]);
  return check(parsed.ast, new Source(rule), env);
}

const json = (text: string): JsonValue => parseJsonExact(text, { int64: true }).value as JsonValue;

function evaluate(rule: string, schema: CelSchema, self: string, oldSelf?: string, root = false): Value | CelError {
  const checked = compile(rule, schema, { root });
  expect(checked.issues.toDisplayString(), rule).toBe('');
  const vars: Record<string, Value> = { self: schemaValue(json(self), schema, root) };
  if (oldSelf !== undefined) vars.oldSelf = schemaValue(json(oldSelf), schema, root);
  return program(checked.ast, KUBE_PROGRAM_OPTIONS).eval(activation(vars)).value;
}

describe('schema → CEL type', () => {
  it.each<[string, CelSchema, string]>([
    ['integer', int, 'int'],
    ['number', num, 'double'],
    ['boolean', { type: 'boolean' }, 'bool'],
    ['string', str, 'string'],
    ['date-time', { type: 'string', format: 'date-time' }, 'timestamp'],
    ['date', { type: 'string', format: 'date' }, 'timestamp'],
    ['duration', { type: 'string', format: 'duration' }, 'duration'],
    ['byte', { type: 'string', format: 'byte' }, 'bytes'],
    ['other formats stay strings', { type: 'string', format: 'uri' }, 'string'],
    ['int-or-string', { 'x-kubernetes-int-or-string': true }, 'dyn'],
    ['list', arr(int), 'list(int)'],
    ['set list', arr(str, { 'x-kubernetes-list-type': 'set' }), 'list(string)'],
    ['map', { type: 'object', additionalProperties: num }, 'map(string, double)'],
    ['object', obj({ a: int }), NAME],
    ['list of objects', arr(obj({ a: int })), `list(${NAME}.@idx)`],
    ['map of objects', { type: 'object', additionalProperties: obj({ a: int }) }, `map(string, ${NAME}.@elem)`],
    ['list of lists of objects', arr(arr(obj({}))), `list(list(${NAME}.@idx.@idx))`],
    ['preserve-unknown object', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, NAME],
  ])('%s', (_, schema, want) => {
    expect(formatType(schemaDeclType(schema, false, NAME)!.type)).toBe(want);
  });

  it('leaves out what CEL cannot see: no type, lists and maps of it', () => {
    const untyped: CelSchema = { 'x-kubernetes-preserve-unknown-fields': true };
    expect(schemaDeclType(untyped, false, NAME)).toBeUndefined();
    expect(schemaDeclType(arr(untyped), false, NAME)).toBeUndefined();
    expect(schemaDeclType({ type: 'object', additionalProperties: untyped }, false, NAME)).toBeUndefined();
    expect(schemaDeclType({ type: 'array', items: [int] }, false, NAME)).toBeUndefined();
    const decl = schemaDeclType(obj({ a: untyped, '1x': int, 'b-c': int }), false, NAME)!;
    expect([...decl.fields!.keys()]).toEqual(['b__dash__c']);
  });

  it('names nested objects by escaped path, and adds kind, apiVersion, metadata at a resource root', () => {
    const decl = schemaDeclType(
      obj({
        spec: obj({ 'x.y': obj({}), items: arr(obj({})) }),
        em: obj({}, { 'x-kubernetes-embedded-resource': true }),
      }),
      true,
      NAME,
    )!;
    const spec = decl.fields!.get('spec')!;
    expect(formatType(spec.type)).toBe(`${NAME}.spec`);
    expect(formatType(spec.fields!.get('x__dot__y')!.type)).toBe(`${NAME}.spec.x__dot__y`);
    expect(formatType(spec.fields!.get('items')!.type)).toBe(`list(${NAME}.spec.items.@idx)`);
    expect([...decl.fields!.keys()].sort()).toEqual(['apiVersion', 'em', 'kind', 'metadata', 'spec']);
    expect([...decl.fields!.get('metadata')!.fields!.keys()]).toEqual(['name', 'generateName']);
    expect([...decl.fields!.get('em')!.fields!.keys()].sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(formatType(decl.fields!.get('em')!.fields!.get('metadata')!.type)).toBe(`${NAME}.em.metadata`);
  });

  it('unescapes as kube does', () => {
    expect(unescapeFieldName('a__dash__b__dot__c__slash__d__underscores__e')).toBe('a-b.c/d__e');
    expect(unescapeFieldName('__namespace__')).toBe('namespace');
    expect(unescapeFieldName('x__namespace__')).toBeUndefined();
    expect(unescapeFieldName('__bogus__')).toBeUndefined();
  });
});

const spec = obj({
  replicas: int,
  ratio: num,
  name: str,
  'x-y': str,
  namespace: str,
  opt: str,
  when: { type: 'string', format: 'date-time' },
  tags: arr(str, { 'x-kubernetes-list-type': 'set' }),
  ports: arr(obj({ name: str, port: int }), {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
  }),
  rules: arr(obj({ matches: arr(obj({ path: str })) })),
  labels: { type: 'object', additionalProperties: { type: 'string', nullable: true } },
  size: { 'x-kubernetes-int-or-string': true },
});

describe('rule → checker verdict', () => {
  it.each<[string, string]>([
    ['self.replicaz > 1', `ERROR: <input>:1:5: undefined field 'replicaz'\n | self.replicaz > 1\n | ....^`],
    [
      "self.replicas + 'a' == 1",
      `ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(int, string)'\n | self.replicas + 'a' == 1\n | ..............^`,
    ],
    [
      'self.name == 1',
      `ERROR: <input>:1:11: found no matching overload for '_==_' applied to '(string, int)'\n | self.name == 1\n | ..........^`,
    ],
    [
      'self.rules[0].matchez.size() > 0',
      `ERROR: <input>:1:14: undefined field 'matchez'\n | self.rules[0].matchez.size() > 0\n | .............^`,
    ],
  ])('%s', (rule, want) => {
    expect(compile(rule, spec).issues.toDisplayString()).toBe(want);
  });

  it.each<[string, string]>([
    ['self.replicas', 'int'],
    ['self.ratio', 'double'],
    ['self.when', 'timestamp'],
    ['self.rules', `list(${NAME}.rules.@idx)`],
    ['self.rules[0].matches[0]', `${NAME}.rules.@idx.matches.@idx`],
    ['self.labels', 'map(string, string)'],
    ['self.size', 'dyn'],
    ['self.x__dash__y', 'string'],
    ['self.__namespace__', 'string'],
    ['self.namespace', 'string'],
    ['has(self.opt)', 'bool'],
    ['self.?opt', 'optional_type(string)'],
  ])('%s: %s', (rule, want) => {
    const c = compile(rule, spec);
    expect(c.issues.toDisplayString()).toBe('');
    expect(formatType(outputType(c.ast))).toBe(want);
  });

  it('declares oldSelf, optional with optionalOldSelf, and tells transition rules', () => {
    expect(formatType(outputType(compile('oldSelf', spec).ast))).toBe(NAME);
    expect(formatType(outputType(compile('oldSelf', spec, { optionalOldSelf: true }).ast))).toBe(
      `optional_type(${NAME})`,
    );
    expect(usesOldSelf(compile('self.replicas >= oldSelf.replicas', spec).ast)).toBe(true);
    expect(usesOldSelf(compile('self.replicas >= 0', spec).ast)).toBe(false);
  });
});

describe('rule → value', () => {
  const doc = JSON.stringify({
    replicas: 3,
    ratio: 1,
    name: 'n',
    'x-y': 'dash',
    namespace: 'ns',
    when: '2024-05-01T10:00:00Z',
    tags: ['a', 'b', 'c'],
    ports: [
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
    ],
    rules: [{ matches: [{ path: '/' }] }, {}],
    labels: { a: 'x', b: null },
    size: '50%',
  });
  const reordered = JSON.stringify({
    ...JSON.parse(doc),
    tags: ['c', 'a', 'b'],
    ports: [
      { name: 'https', port: 443 },
      { name: 'http', port: 80 },
    ],
  });

  it.each<[string, Value]>([
    ["self.when == timestamp('2024-05-01T10:00:00Z')", true],
    ["self.when < timestamp('2024-05-01T09:00:00Z')", false],
    ['self.ratio == 1.0', true],
    ['type(self.ratio) == double && type(self.replicas) == int', true],
    ['has(self.opt)', false],
    ['has(self.name)', true],
    ["self.x__dash__y == 'dash'", true],
    ["self.namespace == 'ns' && self.__namespace__ == 'ns'", true],
    ['has(self.rules[0].matches) && !has(self.rules[1].matches)', true],
    [
      '(self.rules.size() > 0 ? (has(self.rules[0].matches) ? self.rules[0].matches.size() : 0) : 0) + (self.rules.size() > 1 ? (has(self.rules[1].matches) ? self.rules[1].matches.size() : 0) : 0)',
      1n,
    ],
    ["type(self.labels.b) == null_type && 'b' in self.labels", true],
    ["type(self.size) == string && self.size.endsWith('%')", true],
    ["self.tags.all(t, t in ['a', 'b', 'c'])", true],
    ['self.ports.exists(p, p.port == 443)', true],
    ["self.?opt.orValue('none') == 'none'", true],
    ['self.replicas == 3', true],
  ])('%s', (rule, want) => {
    expect(evaluate(rule, spec, doc)).toEqual(want);
  });

  it('compares set and map lists ignoring order, atomic lists in order', () => {
    expect(evaluate('self.tags == oldSelf.tags', spec, reordered, doc)).toBe(true);
    expect(evaluate('self.ports == oldSelf.ports', spec, reordered, doc)).toBe(true);
    expect(evaluate('self == oldSelf', spec, reordered, doc)).toBe(true);
    expect(evaluate("self.tags == ['b', 'c', 'a']", spec, doc)).toBe(true);
    expect(evaluate("self.tags == ['b', 'c', 'd']", spec, doc)).toBe(false);
    const changed = JSON.stringify({
      ...JSON.parse(doc),
      ports: [
        { name: 'https', port: 8443 },
        { name: 'http', port: 80 },
      ],
    });
    expect(evaluate('self.ports == oldSelf.ports', spec, changed, doc)).toBe(false);
    const atomic = obj({ l: arr(str) });
    expect(evaluate('self.l == oldSelf.l', atomic, '{"l": ["a", "b"]}', '{"l": ["b", "a"]}')).toBe(false);
  });

  it("refuses, as kube's unstructured values' Equal does, a value that is no map or list", () => {
    for (const rule of ["dyn(self) == 'x'", 'dyn(self.tags) == 1', "dyn(self.ports) == 'x'"])
      expect((evaluate(rule, spec, doc) as CelError).message, rule).toBe('no such overload');
    expect(evaluate("dyn(self) != 'x'", spec, doc)).toBe(true);
  });

  it('reads absent and null fields of objects as absent, but null map values as values', () => {
    const s = obj({
      a: { type: 'string', nullable: true },
      m: { type: 'object', additionalProperties: { type: 'string', nullable: true } },
    });
    expect(evaluate('has(self.a)', s, '{"a": null}')).toBe(false);
    expect(evaluate('has(self.m.k) && type(self.m.k) == null_type', s, '{"m": {"k": null}}')).toBe(true);
    expect((evaluate('self.a == "x"', s, '{}') as CelError).message).toBe('no such key: a');
    // kube's unstructuredMap.Equal finds a null field on neither side: unequal.
    expect(evaluate('self == oldSelf', s, '{"a": null}', '{"a": null}')).toBe(false);
  });

  it('shows an embedded resource its metadata name, the root too', () => {
    const s = obj({ spec: obj({ template: obj({ kind: str }, { 'x-kubernetes-embedded-resource': true }) }) });
    const cr =
      '{"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "cr", "namespace": "ns"}, "spec": {"template": {"kind": "Pod", "metadata": {"name": "inner"}}}}';
    expect(
      evaluate(
        "self.metadata.name == 'cr' && self.spec.template.metadata.name == 'inner' && self.kind == 'K'",
        s,
        cr,
        undefined,
        true,
      ),
    ).toBe(true);
    expect(evaluate('has(self.spec.template.metadata.generateName)', s, cr, undefined, true)).toBe(false);
    expect(compile('self.metadata.namespace', s, { root: true }).issues.toDisplayString()).toContain(
      "undefined field 'namespace'",
    );
  });

  it('keeps int64 exact and number schemas double', () => {
    const s = obj({ big: int, n: num });
    expect(evaluate('self.big == 9223372036854775807', s, '{"big": 9223372036854775807}')).toBe(true);
    expect(evaluate('self.n == 9007199254740993.0', s, '{"n": 9007199254740993}')).toBe(true);
    expect(evaluate('self.n / 2.0 == 0.5', s, '{"n": 1}')).toBe(true);
  });

  it('reads date, duration and byte formats', () => {
    const s = obj({
      d: { type: 'string', format: 'date' },
      t: { type: 'string', format: 'duration' },
      b: { type: 'string', format: 'byte' },
    });
    const d = '{"d": "2024-02-29", "t": "1h30m", "b": "aGk="}';
    expect(
      evaluate("self.d == timestamp('2024-02-29T00:00:00Z') && self.t == duration('90m') && self.b == b'hi'", s, d),
    ).toBe(true);
  });

  it('ranges over a map by its keys; an object is no range for a comprehension', () => {
    const s = obj({ m: { type: 'object', additionalProperties: { type: 'string', nullable: true } } });
    expect(
      evaluate("self.m.size() == 2 && self.m.all(k, k in ['a-b', 'c'])", s, '{"m": {"a-b": "x", "c": null}}'),
    ).toBe(true);
    expect(compile('self.all(k, true)', s).issues.toDisplayString()).toContain(
      `expression of type '${NAME}' cannot be range of a comprehension`,
    );
  });
});
