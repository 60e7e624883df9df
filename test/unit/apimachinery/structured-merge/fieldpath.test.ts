// Translated from SMD's fieldpath/element_test.go, path_test.go and set_test.go.
import { describe, expect, it } from 'vitest';
import {
  Emptiness,
  FieldSet,
  comparePathElements,
  fieldElement,
  indexElement,
  pathElementString,
  pathString,
  type Path,
  type PathElement,
} from '../../../../apimachinery/structured-merge/index.js';
import { KBF, NS, P, V, smdSchema, yamlObject } from './helpers.js';
import { toFieldSet } from '../../../../apimachinery/structured-merge/typed.js';

describe('PathElement order (TestPathElementLess)', () => {
  it.each<{ name: string; a: PathElement; b: PathElement; eq?: boolean }>([
    { name: 'FieldName-1', a: fieldElement('anteater'), b: fieldElement('zebra') },
    { name: 'FieldName-2', a: fieldElement('bee'), b: fieldElement('bee'), eq: true },
    { name: 'FieldName-3', a: fieldElement('capybara'), b: KBF('dog', 3) },
    { name: 'FieldName-4', a: fieldElement('elephant'), b: V(4) },
    { name: 'FieldName-5', a: fieldElement('falcon'), b: indexElement(5) },
    { name: 'Key-1', a: KBF('goat', 1), b: KBF('goat', 1), eq: true },
    { name: 'Key-2', a: KBF('horse', 1), b: KBF('horse', 2) },
    { name: 'Key-3', a: KBF('ibex', 1), b: KBF('jay', 1) },
    { name: 'Key-4', a: KBF('kite', 1), b: KBF('kite', 1, 'kite-2', 1) },
    { name: 'Key-5', a: KBF('kite', 1), b: V(1) },
    { name: 'Key-6', a: KBF('kite', 1), b: indexElement(5) },
    { name: 'Value-1', a: V(1), b: V(2) },
    { name: 'Value-2', a: V(1), b: V(1), eq: true },
    { name: 'Value-3', a: V(1), b: indexElement(1) },
    { name: 'Index-1', a: indexElement(1), b: indexElement(2) },
    { name: 'Index-2', a: indexElement(1), b: indexElement(1), eq: true },
    // Values order by kind: numbers, strings, booleans, lists, maps, null.
    { name: 'Value-kinds-1', a: V(1000), b: V('a') },
    { name: 'Value-kinds-2', a: V('z'), b: V(false) },
    { name: 'Value-kinds-3', a: V(true), b: V(null) },
    { name: 'Value-float-int', a: V(1.5), b: V(2) },
  ])('$name', ({ a, b, eq }) => {
    if (eq) {
      expect(comparePathElements(a, b)).toBe(0);
    } else {
      expect(comparePathElements(a, b)).toBe(-1);
      expect(comparePathElements(b, a)).toBe(1);
    }
  });

  it('orders field names by UTF-8 bytes, as Go does', () => {
    // U+FF01 is below U+1F600 as a code point, though its UTF-16 code unit is above the surrogate.
    expect(comparePathElements(fieldElement('\uff01'), fieldElement('\u{1f600}'))).toBe(-1);
  });
});

describe('Path strings (TestPathString)', () => {
  it.each<{ name: string; fp: Path; expect: string }>([
    { name: 'basic1', fp: P('foo', 1), expect: '.foo[1]' },
    { name: 'basic2', fp: P('foo', 'bar', 1, 'baz'), expect: '.foo.bar[1].baz' },
    {
      name: 'associative-list-ref',
      fp: P('foo', KBF('a', 'b', 'c', 1, 'd', 1.5, 'e', true)),
      expect: '.foo[a="b",c=1,d=1.5,e=true]',
    },
    { name: 'sets', fp: P('foo', V('b'), V(5), V(false), V(3.14159)), expect: '.foo[="b"][=5][=false][=3.14159]' },
    { name: 'simple field', fp: P('spec'), expect: '.spec' },
    {
      name: 'app container image',
      fp: P('spec', 'apps', KBF('name', 'app-🚀'), 'container', 'image'),
      expect: '.spec.apps[name="app-🚀"].container.image',
    },
    {
      name: 'app port',
      fp: P('spec', 'apps', KBF('name', 'app-💻'), 'container', 'ports', KBF('name', 'port-🔑'), 'containerPort'),
      expect: '.spec.apps[name="app-💻"].container.ports[name="port-🔑"].containerPort',
    },
    { name: 'field with space', fp: P('spec', 'field with space'), expect: '.spec.field with space' },
    {
      name: 'value with space',
      fp: P('spec', 'apps', V('app with space'), 'container', 'image'),
      expect: '.spec.apps[="app with space"].container.image',
    },
    {
      name: 'value with quotes',
      fp: P('spec', 'apps', V('app with "quotes"'), 'container', 'image'),
      expect: '.spec.apps[="app with \\"quotes\\""].container.image',
    },
    {
      name: 'value with unicode',
      fp: P('spec', 'apps', V('app-with-unicøde'), 'container', 'image'),
      expect: '.spec.apps[="app-with-unicøde"].container.image',
    },
    {
      name: 'key fields sorted by name',
      fp: P('list', KBF('protocol', 'TCP', 'port', 80)),
      expect: '.list[port=80,protocol="TCP"]',
    },
    { name: 'large float in Go %v form', fp: P('s', V(1234567.5)), expect: '.s[=1.2345675e+06]' },
    { name: 'control characters quoted as Go quotes them', fp: P('s', V('a\nb\u0001')), expect: '.s[="a\\nb\\x01"]' },
  ])('$name', ({ fp, expect: want }) => {
    expect(pathString(fp)).toBe(want);
  });

  it('prints an index element', () => {
    expect(pathElementString(indexElement(7))).toBe('[7]');
  });
});

const s1 = NS(
  P('foo', 0, 'bar', 'baz'),
  P('foo', 0, 'bar'),
  P('foo', 0),
  P('foo', 1, 'bar', 'baz'),
  P('foo', 1, 'bar'),
  P('qux', KBF('name', 'first')),
  P('qux', KBF('name', 'first'), 'bar'),
  P('qux', KBF('name', 'second'), 'bar'),
  P('canonicalOrder', KBF('a', 'a', 'b', 'a', 'c', 'a', 'd', 'a', 'e', 'a', 'f', 'a')),
);

describe('FieldSet', () => {
  it('unions, intersects and subtracts sets of more members than a call can take as arguments', () => {
    const n = 300_000;
    const a = new FieldSet();
    const b = new FieldSet();
    for (let i = 0; i < n; i++) {
      a.insert([indexElement(i)]);
      if (i % 2 === 0) b.insert([indexElement(i)]);
    }
    expect(a.union(b).members).toHaveLength(n);
    expect(a.intersection(b).members).toHaveLength(n / 2);
    expect(a.difference(b).members).toHaveLength(n / 2);
  });

  it.each<{ check: Path; want: boolean }>([
    { check: P('qux', KBF('name', 'second')), want: false },
    { check: P('qux', KBF('name', 'second'), 'bar'), want: true },
    { check: P('qux', KBF('name', 'first')), want: true },
    { check: P('xuq', KBF('name', 'first')), want: false },
    { check: P('foo', 0), want: true },
    { check: P('foo', 0, 'bar'), want: true },
    { check: P('foo', 0, 'bar', 'baz'), want: true },
    { check: P('foo', 1), want: false },
    { check: P('foo', 1, 'bar'), want: true },
    { check: P('foo', 1, 'bar', 'baz'), want: true },
    { check: P('canonicalOrder', KBF('f', 'a', 'e', 'a', 'd', 'a', 'c', 'a', 'b', 'a', 'a', 'a')), want: true },
  ])('has $check (TestSetInsertHas)', ({ check, want }) => {
    expect(s1.has(check)).toBe(want);
  });

  it('keeps members sorted and distinct whatever order they are added in, reads between adds included', () => {
    const s = new FieldSet();
    const added: PathElement[] = ['k1', 'k10', 'k2', 'k1', 'a'].map((n) => fieldElement(n));
    for (const pe of added) s.addMember(pe);
    expect(s.hasMember(fieldElement('k2'))).toBe(true);
    expect(s.hasMember(fieldElement('k3'))).toBe(false);
    for (const pe of [indexElement(3), fieldElement('b'), fieldElement('z'), fieldElement('a')]) s.addMember(pe);
    expect(s.members.map(pathElementString)).toEqual(['.a', '.b', '.k1', '.k10', '.k2', '.z', '[3]']);
    expect(s.size()).toBe(7);
  });

  it('never holds the empty path', () => {
    expect(NS().has([])).toBe(false);
    expect(NS([]).has([])).toBe(false);
    expect(NS([]).empty()).toBe(true);
  });

  it('prints a one-path set as the path (TestSetString)', () => {
    const p = P('foo', KBF('name', 'first'));
    expect(NS(p).toString()).toBe(pathString(p));
  });

  it('iterates members before children, and sizes as it goes (TestSetIterSize)', () => {
    const s = NS(
      P('foo', 0, 'bar', 'baz'),
      P('foo', 0, 'bar', 'zot'),
      P('foo', 0, 'bar'),
      P('foo', 0),
      P('foo', 1, 'bar', 'baz'),
      P('foo', 1, 'bar'),
      P('qux', KBF('name', 'first')),
      P('qux', KBF('name', 'first'), 'bar'),
      P('qux', KBF('name', 'second'), 'bar'),
    );
    const s2 = new FieldSet();
    let added = 0;
    s.iterate((p) => {
      expect(s2.size()).toBe(added);
      expect(s2.empty()).toBe(added === 0);
      s2.insert(p);
      added++;
    });
    expect(s2.equals(s)).toBe(true);
    expect(s.size()).toBe(9);
    expect(NS(P('a'), P('b', 'c'), P('d')).paths().map(pathString)).toEqual(['.a', '.d', '.b.c']);
  });

  it.each<{ a: FieldSet; b: FieldSet; equal: boolean }>([
    { a: NS(P('foo')), b: NS(P('bar')), equal: false },
    { a: NS(P('foo')), b: NS(P('foo')), equal: true },
    { a: NS(), b: NS(P(0, 'foo')), equal: false },
    { a: NS(P(1, 'foo')), b: NS(P(0, 'foo')), equal: false },
    { a: NS(P(1, 'foo')), b: NS(P(1, 'foo', 'bar')), equal: false },
    { a: NS(P(0), P(1)), b: NS(P(1), P(0)), equal: true },
    { a: NS(P('foo', 0), P('foo', 1)), b: NS(P('foo', 1), P('foo', 0)), equal: true },
    {
      a: NS(P('foo', 0), P('foo'), P('bar', 'baz'), P('qux', KBF('name', 'first'))),
      b: NS(P('foo', 1), P('bar', 'baz'), P('bar'), P('qux', KBF('name', 'second'))),
      equal: false,
    },
  ])('equals: $equal (TestSetEquals)', ({ a, b, equal }) => {
    expect(a.equals(b)).toBe(equal);
  });

  it('unions (TestSetUnion)', () => {
    const a = NS(
      P('foo', 0),
      P('foo'),
      P('bar', 'baz'),
      P('qux', KBF('name', 'first')),
      P('parent', 'child', 'grandchild'),
    );
    const b = NS(P('foo', 1), P('bar', 'baz'), P('bar'), P('qux', KBF('name', 'second')), P('parent', 'child'));
    const u = NS(
      P('foo', 0),
      P('foo', 1),
      P('foo'),
      P('bar', 'baz'),
      P('bar'),
      P('qux', KBF('name', 'first')),
      P('qux', KBF('name', 'second')),
      P('parent', 'child'),
      P('parent', 'child', 'grandchild'),
    );
    expect(a.union(b).equals(u)).toBe(true);
    expect(b.union(a).equals(u)).toBe(true);
  });

  describe('intersection and difference (TestSetIntersectionDifference)', () => {
    const nameFirst = KBF('name', 'first');
    const a = NS(
      P('a0'),
      P('a1'),
      P('foo', 0),
      P('foo', 1),
      P('b0', nameFirst),
      P('b1', nameFirst),
      P('bar', 'c0'),
      P('cp', nameFirst, 'child'),
    );
    const b = NS(
      P('a1'),
      P('a2'),
      P('foo', 1),
      P('foo', 2),
      P('b1', nameFirst),
      P('b2', nameFirst),
      P('bar', 'c2'),
      P('cp', nameFirst),
    );
    const both = NS(P('a1'), P('foo', 1), P('b1', nameFirst));

    it('intersection', () => {
      expect(a.intersection(b).equals(both)).toBe(true);
    });
    it('a - b', () => {
      expect(
        a
          .difference(b)
          .equals(NS(P('a0'), P('foo', 0), P('b0', nameFirst), P('bar', 'c0'), P('cp', nameFirst, 'child'))),
      ).toBe(true);
    });
    it('b - a', () => {
      expect(
        b.difference(a).equals(NS(P('a2'), P('foo', 2), P('b2', nameFirst), P('bar', 'c2'), P('cp', nameFirst))),
      ).toBe(true);
    });
    it('intersection the hard way', () => {
      const notBoth = b.difference(a).union(a.difference(b));
      expect(a.union(b).difference(notBoth).equals(both)).toBe(true);
    });
  });

  it.each<{ name: string; input: FieldSet; expected: FieldSet }>([
    { name: 'empty set', input: NS(), expected: NS() },
    {
      name: 'all leaves',
      input: NS(P('path1'), P('path2'), P('path3')),
      expected: NS(P('path1'), P('path2'), P('path3')),
    },
    {
      name: 'only one leaf',
      input: NS(P('root'), P('root', 'l1'), P('root', 'l1', 'l2'), P('root', 'l1', 'l2', 'l3')),
      expected: NS(P('root', 'l1', 'l2', 'l3')),
    },
    {
      name: 'multiple values, check for overwrite',
      input: NS(
        P('root', KBF('name', 'a')),
        P('root', KBF('name', 'a'), 'name'),
        P('root', KBF('name', 'a'), 'value', 'b'),
        P('root', KBF('name', 'a'), 'value', 'c'),
      ),
      expected: NS(
        P('root', KBF('name', 'a'), 'name'),
        P('root', KBF('name', 'a'), 'value', 'b'),
        P('root', KBF('name', 'a'), 'value', 'c'),
      ),
    },
    {
      name: 'all-in-one',
      input: NS(
        P('root'),
        P('root', KBF('name', 'a')),
        P('root', KBF('name', 'a'), 'name'),
        P('root', KBF('name', 'a'), 'value', 'b'),
        P('root', KBF('name', 'a'), 'value', 'b', 'c'),
        P('root', KBF('name', 'a'), 'value', 'd'),
        P('root', KBF('name', 'a'), 'value', 'e'),
        P('root', 'x'),
        P('root', 'x', 'y'),
        P('root', 'x', 'z'),
        P('root', KBF('name', 'p')),
        P('root', KBF('name', 'p'), 'name'),
        P('root', KBF('name', 'p'), 'value', 'q'),
      ),
      expected: NS(
        P('root', KBF('name', 'a'), 'name'),
        P('root', KBF('name', 'a'), 'value', 'b', 'c'),
        P('root', KBF('name', 'a'), 'value', 'd'),
        P('root', KBF('name', 'a'), 'value', 'e'),
        P('root', 'x', 'y'),
        P('root', 'x', 'z'),
        P('root', KBF('name', 'p'), 'name'),
        P('root', KBF('name', 'p'), 'value', 'q'),
      ),
    },
  ])('leaves: $name (TestSetLeaves)', ({ input, expected }) => {
    expect(input.leaves().equals(expected)).toBe(true);
  });

  it.each<{ name: string; a: FieldSet; b: FieldSet; diff: FieldSet; recursive: FieldSet }>([
    { name: 'removes simple path', a: NS(P('a')), b: NS(P('a')), diff: NS(), recursive: NS() },
    { name: 'removes direct path', a: NS(P('a', 'b', 'c')), b: NS(P('a', 'b', 'c')), diff: NS(), recursive: NS() },
    {
      name: 'only removes matching child',
      a: NS(P('a', 'b', 'c'), P('b', 'b', 'c')),
      b: NS(P('a', 'b', 'c')),
      diff: NS(P('b', 'b', 'c')),
      recursive: NS(P('b', 'b', 'c')),
    },
    {
      name: 'does not remove parent of specific path',
      a: NS(P('a')),
      b: NS(P('a', 'aa')),
      diff: NS(P('a')),
      recursive: NS(P('a')),
    },
    {
      name: 'RecursiveDifference removes nested path',
      a: NS(P('a', 'b', 'c')),
      b: NS(P('a')),
      diff: NS(P('a', 'b', 'c')),
      recursive: NS(),
    },
    {
      name: 'RecursiveDifference only removes nested path for matching children',
      a: NS(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      b: NS(P('a', 'aa')),
      diff: NS(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      recursive: NS(P('a', 'ab', 'aba')),
    },
    {
      name: 'RecursiveDifference removes all matching children',
      a: NS(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      b: NS(P('a')),
      diff: NS(P('a', 'aa', 'aab'), P('a', 'ab', 'aba')),
      recursive: NS(),
    },
  ])('difference: $name (TestSetDifference)', ({ a, b, diff, recursive }) => {
    expect(a.difference(b).equals(diff)).toBe(true);
    expect(a.recursiveDifference(b).equals(recursive)).toBe(true);
  });

  it('withPrefix returns the subtree, or an empty set', () => {
    expect(
      s1
        .withPrefix(fieldElement('qux'))
        .equals(NS(P(KBF('name', 'first')), P(KBF('name', 'first'), 'bar'), P(KBF('name', 'second'), 'bar'))),
    ).toBe(true);
    expect(s1.withPrefix(fieldElement('nope')).empty()).toBe(true);
  });
});

describe('Emptiness', () => {
  /** Every subtree of `set` (itself first), depth first. */
  const subtrees = (set: FieldSet): FieldSet[] => {
    const out: FieldSet[] = [];
    const todo = [set];
    while (todo.length > 0) {
      const s = todo.pop()!;
      out.push(s);
      for (const c of s.children) todo.push(c.set);
    }
    return out;
  };
  /** A set with an empty subtree under `e`: built as difference leaves it. */
  const withEmptyBranch = (): FieldSet => {
    const s = NS(P('a', 'b', 'c'), P('d'));
    s.descend(fieldElement('e')).descend(fieldElement('f'));
    return s;
  };
  const deep = (levels: number): FieldSet => NS(P(...Array.from({ length: levels }, () => 'a')));
  it.each<[string, () => FieldSet]>([
    ['an empty set', () => new FieldSet()],
    ['members at the top', () => NS(P('a'), P('b'))],
    ['a member only at the bottom of a chain', () => deep(50)],
    ['an empty branch beside full ones', withEmptyBranch],
  ])('%s: each subtree as FieldSet.empty says, asked top down, bottom up, or alone', (_name, make) => {
    const set = make();
    const all = subtrees(set);
    const want = all.map((s) => s.empty());
    const indices = all.map((_, i) => i);
    for (const order of [indices, [...indices].reverse()]) {
      const e = new Emptiness();
      const got: boolean[] = [];
      for (const i of order) got[i] = e.get(all[i]!);
      expect(got).toEqual(want);
    }
    for (let i = 0; i < all.length; i++) expect(new Emptiness().get(all[i]!)).toBe(want[i]);
  });
});

describe('ensureNamedFieldsAreMembers (TestEnsureNamedFieldsAreMembers)', () => {
  const nested = smdSchema(
    `types:
- name: type
  map:
    elementType:
      namedType: type
    fields:
      - name: keyAStr
        type:
          scalar: string
      - name: keyBInt
        type:
          scalar: numeric
      - name: named
        type:
          namedType: type
      - name: list
        type:
          list:
            elementRelationship: associative
            keys: ["keyAStr", "keyBInt"]
            elementType:
              namedType: type
      - name: a
        type:
          namedType: type
      - name: value
        type:
          scalar: numeric
`,
    'type',
  );
  const assocList = (keys: string) =>
    smdSchema(
      `types:
- name: type
  map:
    fields:
      - name: values
        type:
          list:
            elementRelationship: associative
            keys: ${keys}
            elementType:
              map:
                fields:
                  - name: keyAStr
                    type:
                      scalar: string
                  - name: keyBInt
                    type:
                      scalar: numeric
                  - name: value
                    type:
                      scalar: numeric
`,
      'type',
    );
  const oldSchema = assocList('["keyAStr"]');
  const newSchema = assocList('["keyAStr", "keyBInt"]');
  const k = KBF('keyAStr', 'a', 'keyBInt', 1);

  it.each<{
    name: string;
    schema: typeof nested;
    after?: typeof nested;
    value: string;
    before: FieldSet;
    expected: FieldSet;
  }>([
    {
      name: 'nested named fields',
      schema: nested,
      value: '{"named": {"named": {"value": 0}}}',
      before: NS(P('named', 'named', 'value')),
      expected: NS(P('named', 'named', 'value'), P('named', 'named'), P('named')),
    },
    {
      name: 'two branches',
      schema: nested,
      value: '{"named": {"a": {"named": {"value": 42}}}, "a": {"named": {"value": 1}}}',
      before: NS(P('named', 'a', 'named', 'value'), P('a', 'named', 'value')),
      expected: NS(
        P('named', 'a', 'named', 'value'),
        P('named', 'a', 'named'),
        P('named', 'a'),
        P('named'),
        P('a', 'named', 'value'),
        P('a', 'named'),
        P('a'),
      ),
    },
    {
      name: 'through a list-map item',
      schema: nested,
      value: '{"named": {"list": [{"keyAStr": "a", "keyBInt": 1, "named": {"value": 0}}]}}',
      before: NS(
        P('named', 'list', k, 'keyAStr'),
        P('named', 'list', k, 'keyBInt'),
        P('named', 'list', k, 'named', 'value'),
        P('named', 'list', k),
      ),
      expected: NS(
        P('named', 'list', k, 'keyAStr'),
        P('named', 'list', k, 'keyBInt'),
        P('named', 'list', k, 'named', 'value'),
        P('named', 'list', k, 'named'),
        P('named', 'list', k),
        P('named', 'list'),
        P('named'),
      ),
    },
    {
      name: 'item recorded under an older key set',
      schema: oldSchema,
      after: newSchema,
      value: '{"values": [{"keyAStr": "a", "value": 0}]}',
      before: NS(
        P('values', KBF('keyAStr', 'a'), 'keyAStr'),
        P('values', KBF('keyAStr', 'a'), 'value'),
        P('values', KBF('keyAStr', 'a')),
      ),
      expected: NS(
        P('values', KBF('keyAStr', 'a'), 'keyAStr'),
        P('values', KBF('keyAStr', 'a'), 'value'),
        P('values', KBF('keyAStr', 'a')),
        P('values'),
      ),
    },
    {
      name: 'missing key field is not added',
      schema: newSchema,
      value: '{"values": [{"keyAStr": "a", "value": 1}]}',
      before: NS(
        P('values', KBF('keyAStr', 'a'), 'keyAStr'),
        P('values', KBF('keyAStr', 'a'), 'value'),
        P('values', KBF('keyAStr', 'a')),
      ),
      expected: NS(
        P('values', KBF('keyAStr', 'a'), 'keyAStr'),
        P('values', KBF('keyAStr', 'a'), 'value'),
        P('values', KBF('keyAStr', 'a')),
        P('values'),
      ),
    },
  ])('$name', ({ schema, after, value, before, expected }) => {
    const set = toFieldSet(schema, yamlObject(value));
    expect(set.toString()).toBe(before.toString());
    expect(set.equals(before)).toBe(true);
    expect(set.ensureNamedFieldsAreMembers(after ?? schema).equals(expected)).toBe(true);
  });
});

describe('FieldSet children added out of order', () => {
  it('are the same set, sorted, however many and in whatever order they are descended into', () => {
    const names = Array.from({ length: 300 }, (_, i) => `f${i}`);
    const inOrder = new FieldSet();
    for (const n of [...names].sort()) inOrder.descend(fieldElement(n)).insert([fieldElement('x')]);
    const objectOrder = new FieldSet();
    for (const n of names) objectOrder.descend(fieldElement(n)).insert([fieldElement('x')]);
    // Descending again finds the subtree made before, sorted in or not yet.
    for (const n of names.slice(0, 100)) objectOrder.descend(fieldElement(n)).insert([fieldElement('y')]);
    for (const n of names.slice(0, 100)) inOrder.descend(fieldElement(n)).insert([fieldElement('y')]);
    expect(objectOrder.equals(inOrder)).toBe(true);
    expect(objectOrder.children.map((c) => pathElementString(c.element))).toEqual(names.sort().map((n) => `.${n}`));
    expect(objectOrder.child(fieldElement('f7'))?.members.map(pathElementString)).toEqual(['.x', '.y']);
  });
});
