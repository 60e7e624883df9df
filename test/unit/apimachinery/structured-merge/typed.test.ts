// Translated from SMD's typed/toset_test.go, merge_test.go, symdiff_test.go, remove_test.go and
// validate_test.go: the cases (inputs, expected sets and outputs), not the code.
import { describe, expect, it } from 'vitest';
import type { FieldSet, TypeNode } from '../../../../apimachinery/structured-merge/index.js';
import {
  ValidationErrors,
  compare,
  extractItems,
  merge,
  removeItems,
  toFieldSet,
  validate,
  validationErrors,
} from '../../../../apimachinery/structured-merge/typed.js';
import { validateCreatedTask } from '../../../../apimachinery/structured-merge/validate.js';
import { runTask } from '../../../../apimachinery/structured-merge/trampoline.js';
import { KBF, NS, P, V, smdSchema, yamlObject } from './helpers.js';

const UNTYPED_ATOMIC = `- name: __untyped_atomic_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
  map:
    elementType:
      namedType: __untyped_atomic_
    elementRelationship: atomic
`;

const stringPair = smdSchema(
  `types:
- name: stringPair
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: value
      type:
        namedType: __untyped_atomic_
${UNTYPED_ATOMIC}`,
  'stringPair',
);

const grabBag = smdSchema(
  `types:
- name: myStruct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    - name: bool
      type:
        scalar: boolean
    - name: setStr
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: setBool
      type:
        list:
          elementType:
            scalar: boolean
          elementRelationship: associative
    - name: setNumeric
      type:
        list:
          elementType:
            scalar: numeric
          elementRelationship: associative
    - name: color
      type:
        map:
          fields:
          - name: R
            type:
              scalar: numeric
          - name: G
            type:
              scalar: numeric
          - name: B
            type:
              scalar: numeric
          elementRelationship: atomic
    - name: arbitraryWavelengthColor
      type:
        map:
          elementType:
            scalar: numeric
          elementRelationship: atomic
    - name: args
      type:
        list:
          elementType:
            map:
              fields:
              - name: key
                type:
                  scalar: string
              - name: value
                type:
                  scalar: string
          elementRelationship: atomic
`,
  'myStruct',
);

const associativeList = smdSchema(
  `types:
- name: myRoot
  map:
    fields:
    - name: list
      type:
        namedType: myList
    - name: atomicList
      type:
        namedType: mySequence
    - name: atomicMap
      type:
        namedType: myAtomicMap
- name: myList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - key
    - id
- name: mySequence
  list:
    elementType:
      scalar: string
    elementRelationship: atomic
- name: myAtomicMap
  map:
    fields:
    - name: id
      type:
        scalar: string
    elementType:
      scalar: string
    elementRelationship: atomic
- name: myElement
  map:
    fields:
    - name: key
      type:
        scalar: string
    - name: id
      type:
        scalar: numeric
    - name: value
      type:
        namedType: myValue
    - name: bv
      type:
        scalar: boolean
    - name: nv
      type:
        scalar: numeric
- name: myValue
  map:
    elementType:
      scalar: string
`,
  'myRoot',
);

const nestedTypes = smdSchema(
  `types:
- name: type
  map:
    fields:
      - name: listOfLists
        type:
          namedType: listOfLists
      - name: listOfMaps
        type:
          namedType: listOfMaps
      - name: mapOfLists
        type:
          namedType: mapOfLists
      - name: mapOfMaps
        type:
          namedType: mapOfMaps
      - name: mapOfMapsRecursive
        type:
          namedType: mapOfMapsRecursive
- name: listOfLists
  list:
    elementType:
      map:
        fields:
        - name: name
          type:
            scalar: string
        - name: value
          type:
            namedType: list
    elementRelationship: associative
    keys:
    - name
- name: list
  list:
    elementType:
      scalar: string
    elementRelationship: associative
- name: listOfMaps
  list:
    elementType:
      map:
        fields:
        - name: name
          type:
            scalar: string
        - name: value
          type:
            namedType: map
    elementRelationship: associative
    keys:
    - name
- name: map
  map:
    elementType:
      scalar: string
    elementRelationship: associative
- name: mapOfLists
  map:
    elementType:
      namedType: list
    elementRelationship: associative
- name: mapOfMaps
  map:
    elementType:
      namedType: map
    elementRelationship: associative
- name: mapOfMapsRecursive
  map:
    elementType:
      namedType: mapOfMapsRecursive
    elementRelationship: associative
`,
  'type',
);

const deduced = smdSchema(`types: []`, '__untyped_deduced_');

const untypedSeparable = smdSchema(
  `types:
- name: __untyped_separable_
  scalar: untyped
  list:
    elementType:
      namedType: __untyped_separable_
    elementRelationship: associative
  map:
    elementType:
      namedType: __untyped_separable_
    elementRelationship: separable
`,
  '__untyped_separable_',
);

const nestedMap = (inner: string): TypeNode =>
  smdSchema(
    `types:
- name: nested
  map:
    fields:
    - name: inner
      type:
${inner}
${UNTYPED_ATOMIC}`,
    'nested',
  );
const nullEmptyMap = nestedMap(`        map:
          elementType:
            namedType: __untyped_atomic_`);
const nullEmptyStruct = nestedMap(`        map:
          fields:
          - name: value
            type:
              namedType: __untyped_atomic_`);
const nullEmptyList = nestedMap(`        list:
          elementType:
            namedType: __untyped_atomic_
          elementRelationship: atomic`);
const recursiveMap = smdSchema(
  `types:
- name: nestedMap
  map:
    elementType:
      namedType: nestedMap
`,
  'nestedMap',
);

const y = (text: string): unknown => yamlObject(text);

describe('toFieldSet (toset_test.go)', () => {
  it.each<{ name: string; type: TypeNode; object: string; set: FieldSet }>([
    {
      name: 'simple pair: scalar value',
      type: stringPair,
      object: '{"key":"foo","value":1}',
      set: NS(P('key'), P('value')),
    },
    {
      name: 'simple pair: atomic map value',
      type: stringPair,
      object: '{"key":"foo","value":{"a": "b"}}',
      set: NS(P('key'), P('value')),
    },
    {
      name: 'simple pair: null value',
      type: stringPair,
      object: '{"key":"foo","value":null}',
      set: NS(P('key'), P('value')),
    },
    { name: 'simple pair: missing value', type: stringPair, object: '{"key":"foo"}', set: NS(P('key')) },
    {
      name: 'simple pair: boolean value',
      type: stringPair,
      object: '{"key":"foo","value":true}',
      set: NS(P('key'), P('value')),
    },
    { name: 'numeric', type: grabBag, object: '{"numeric":1}', set: NS(P('numeric')) },
    { name: 'float', type: grabBag, object: '{"numeric":3.14159}', set: NS(P('numeric')) },
    { name: 'string', type: grabBag, object: '{"string":"aoeu"}', set: NS(P('string')) },
    { name: 'bool', type: grabBag, object: '{"bool":false}', set: NS(P('bool')) },
    {
      name: 'set of strings',
      type: grabBag,
      object: '{"setStr":["a","b","c"]}',
      set: NS(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c'))),
    },
    {
      name: 'set with repeats',
      type: grabBag,
      object: '{"setStr":["a","b","c","a","b","c","c"]}',
      set: NS(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c'))),
    },
    {
      name: 'set of bools',
      type: grabBag,
      object: '{"setBool":[true,false,true]}',
      set: NS(P('setBool', V(true)), P('setBool', V(false))),
    },
    {
      name: 'set of numbers',
      type: grabBag,
      object: '{"setNumeric":[1,2,3,3.14159]}',
      set: NS(P('setNumeric', V(1)), P('setNumeric', V(2)), P('setNumeric', V(3)), P('setNumeric', V(3.14159))),
    },
    { name: 'empty atomic struct', type: grabBag, object: '{"color":{}}', set: NS(P('color')) },
    { name: 'null atomic struct', type: grabBag, object: '{"color":null}', set: NS(P('color')) },
    { name: 'atomic struct', type: grabBag, object: '{"color":{"R":255,"G":0,"B":0}}', set: NS(P('color')) },
    {
      name: 'atomic map',
      type: grabBag,
      object: '{"arbitraryWavelengthColor":{"IR":255}}',
      set: NS(P('arbitraryWavelengthColor')),
    },
    { name: 'empty atomic list', type: grabBag, object: '{"args":[]}', set: NS(P('args')) },
    { name: 'null atomic list', type: grabBag, object: '{"args":null}', set: NS(P('args')) },
    { name: 'atomic list with null', type: grabBag, object: '{"args":[null]}', set: NS(P('args')) },
    {
      name: 'atomic list of maps',
      type: grabBag,
      object: '{"args":[{"key":"a","value":"b"},{"key":"c","value":"d"}]}',
      set: NS(P('args')),
    },
    { name: 'empty list-map', type: associativeList, object: '{"list":[]}', set: NS() },
    {
      name: 'list-map item with a map',
      type: associativeList,
      object: '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      set: NS(
        P('list', KBF('key', 'a', 'id', 1)),
        P('list', KBF('key', 'a', 'id', 1), 'key'),
        P('list', KBF('key', 'a', 'id', 1), 'id'),
        P('list', KBF('key', 'a', 'id', 1), 'value', 'a'),
      ),
    },
    {
      name: 'list-map items with two keys',
      type: associativeList,
      object: '{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}',
      set: NS(
        P('list', KBF('key', 'a', 'id', 1)),
        P('list', KBF('key', 'a', 'id', 2)),
        P('list', KBF('key', 'b', 'id', 1)),
        P('list', KBF('key', 'a', 'id', 1), 'key'),
        P('list', KBF('key', 'a', 'id', 1), 'id'),
        P('list', KBF('key', 'a', 'id', 2), 'key'),
        P('list', KBF('key', 'a', 'id', 2), 'id'),
        P('list', KBF('key', 'b', 'id', 1), 'key'),
        P('list', KBF('key', 'b', 'id', 1), 'id'),
      ),
    },
    {
      name: 'repeated list-map item is owned whole',
      type: associativeList,
      object:
        '{"list":[{"key":"a","id":1,"nv":2},{"key":"a","id":2,"nv":3},{"key":"b","id":1},{"key":"a","id":2,"bv":true}]}',
      set: NS(
        P('list', KBF('key', 'a', 'id', 1)),
        P('list', KBF('key', 'a', 'id', 1), 'key'),
        P('list', KBF('key', 'a', 'id', 1), 'id'),
        P('list', KBF('key', 'a', 'id', 1), 'nv'),
        P('list', KBF('key', 'a', 'id', 2)),
        P('list', KBF('key', 'b', 'id', 1)),
        P('list', KBF('key', 'b', 'id', 1), 'key'),
        P('list', KBF('key', 'b', 'id', 1), 'id'),
      ),
    },
    {
      name: 'atomic list with repeats',
      type: associativeList,
      object: '{"atomicList":["a","a","a"]}',
      set: NS(P('atomicList')),
    },
    {
      name: 'deduced maps own every level',
      type: deduced,
      object: '{"a":{"b":1},"c":[1,2]}',
      set: NS(P('a'), P('a', 'b'), P('c')),
    },
    {
      name: 'map entries are leaves, struct fields are not',
      type: nestedTypes,
      object: '{"mapOfMaps":{"a":{"b":"x"}}}',
      set: NS(P('mapOfMaps', 'a'), P('mapOfMaps', 'a', 'b')),
    },
  ])('$name', ({ type, object, set }) => {
    const got = toFieldSet(type, y(object));
    expect(got.toString()).toBe(set.toString());
    expect(got.equals(set)).toBe(true);
  });

  it('fails on a list-map item without any key field', () => {
    expect(() => toFieldSet(associativeList, { list: [{ nv: 1 }] })).toThrow(
      '.list: element 0: associative list with keys has an element that omits all key fields ["key" "id"] (and doesn\'t have default values for any key fields)',
    );
  });

  it('leaves out a key field that is missing but keeps the others', () => {
    expect(
      toFieldSet(associativeList, { list: [{ key: 'a' }] }).equals(
        NS(P('list', KBF('key', 'a')), P('list', KBF('key', 'a'), 'key')),
      ),
    ).toBe(true);
  });

  it('uses the schema default of a missing key field', () => {
    const t = smdSchema(
      `types:
- name: root
  map:
    fields:
    - name: ports
      type:
        list:
          elementRelationship: associative
          keys: [port, protocol]
          elementType:
            map:
              fields:
              - name: port
                type:
                  scalar: numeric
              - name: protocol
                type:
                  scalar: string
                default: TCP
`,
      'root',
    );
    expect(
      toFieldSet(t, { ports: [{ port: 80 }] }).equals(
        NS(P('ports', KBF('port', 80, 'protocol', 'TCP')), P('ports', KBF('port', 80, 'protocol', 'TCP'), 'port')),
      ),
    ).toBe(true);
  });
});

describe('validation (validate_test.go)', () => {
  it.each<{ name: string; type: TypeNode; object: unknown; allowDuplicates?: boolean; message: string }>([
    {
      name: 'duplicate set item',
      type: grabBag,
      object: { setStr: ['a', 'a'] },
      message: '.setStr: duplicate entries for key [="a"]',
    },
    {
      name: 'duplicate list-map item',
      type: associativeList,
      object: {
        list: [
          { key: 'a', id: 1 },
          { key: 'a', id: 1 },
        ],
      },
      message: '.list: duplicate entries for key [id=1,key="a"]',
    },
    { name: 'undeclared field', type: grabBag, object: { nope: 1 }, message: '.nope: field not declared in schema' },
    {
      name: 'string for numeric',
      type: grabBag,
      object: { numeric: 'x' },
      message: '.numeric: expected numeric (int or float), got string',
    },
    { name: 'number for string', type: grabBag, object: { string: 1 }, message: '.string: expected string, got 1' },
    {
      name: 'map in a set',
      type: grabBag,
      object: { setStr: [{}] },
      message: ".setStr: element 0: associative list without keys has an element that's a map type",
    },
    {
      name: 'null in a set',
      type: grabBag,
      object: { setStr: [null] },
      message: ".setStr: element 0: associative list without keys has an element that's an explicit null",
    },
    {
      name: 'null in a list-map',
      type: associativeList,
      object: { list: [null] },
      message: '.list: element 0: associative list with keys may not have a null element',
    },
    {
      name: 'scalar in a list-map',
      type: associativeList,
      object: { list: ['a'] },
      message: '.list: element 0: associative list with keys may not have non-map elements',
    },
    {
      name: 'nested in a list-map item',
      type: associativeList,
      object: { list: [{ key: 'a', id: 1, bv: 'x' }] },
      message: '.list[id=1,key="a"].bv: expected boolean, got "x"',
    },
  ])('$name', ({ type, object, allowDuplicates, message }) => {
    expect(() => validate(type, object, { allowDuplicates })).toThrow(ValidationErrors);
    expect(() => validate(type, object, { allowDuplicates })).toThrow(message);
  });

  it('accepts duplicates when told to, and lists several errors', () => {
    expect(validationErrors(grabBag, { setStr: ['a', 'a'] }, { allowDuplicates: true })).toEqual([]);
    const err = new ValidationErrors(validationErrors(grabBag, { numeric: 'x', string: 1 }));
    expect(err.message).toBe(
      'errors:\n  .numeric: expected numeric (int or float), got string\n  .string: expected string, got 1',
    );
  });
});

describe('validateCreatedTask: validation, and what a create adds, in one walk', () => {
  // [name, type, the object created, what it adds: compare's added against {}]
  const cases: Array<[string, TypeNode, unknown, FieldSet]> = [
    ['scalars', grabBag, { numeric: 1, string: 'a', bool: null }, NS(P('numeric'), P('string'), P('bool'))],
    ['an empty map is a leaf', nullEmptyMap, { inner: {} }, NS(P('inner'))],
    ['a null map is a leaf', nullEmptyMap, { inner: null }, NS(P('inner'))],
    [
      'nested maps and their containers',
      recursiveMap,
      { a: { b: { c: {} } } },
      NS(P('a'), P('a', 'b'), P('a', 'b', 'c')),
    ],
    ['an atomic map, not below it', stringPair, { key: 'k', value: { x: { y: 1 } } }, NS(P('key'), P('value'))],
    ['a deduced list is atomic', deduced, { a: ['b', 'c'], d: { e: 1 } }, NS(P('a'), P('d'), P('d', 'e'))],
    ['a set', grabBag, { setStr: ['a', 'b'] }, NS(P('setStr'), P('setStr', V('a')), P('setStr', V('b')))],
    [
      'a repeated set item is added once',
      grabBag,
      { setStr: ['b', 'a', 'b'] },
      NS(P('setStr'), P('setStr', V('a')), P('setStr', V('b'))),
    ],
    [
      'a list-map and its items',
      associativeList,
      { list: [{ key: 'a', id: 1, value: { a: 'a' } }] },
      NS(
        P('list'),
        P('list', KBF('key', 'a', 'id', 1)),
        P('list', KBF('key', 'a', 'id', 1), 'key'),
        P('list', KBF('key', 'a', 'id', 1), 'id'),
        P('list', KBF('key', 'a', 'id', 1), 'value'),
        P('list', KBF('key', 'a', 'id', 1), 'value', 'a'),
      ),
    ],
    [
      'a repeated list-map item is added whole, before and after its first walk',
      associativeList,
      {
        list: [
          { key: 'a', id: 1, bv: true },
          { key: 'b', id: 1 },
          { key: 'a', id: 1, nv: 2 },
        ],
      },
      NS(
        P('list'),
        P('list', KBF('key', 'a', 'id', 1)),
        P('list', KBF('key', 'b', 'id', 1)),
        P('list', KBF('key', 'b', 'id', 1), 'key'),
        P('list', KBF('key', 'b', 'id', 1), 'id'),
      ),
    ],
    ['an atomic list, not below it', associativeList, { atomicList: ['a', 'a'] }, NS(P('atomicList'))],
    ['an empty list is a leaf', nullEmptyList, { inner: [] }, NS(P('inner'))],
    ['nothing', grabBag, {}, NS()],
  ];
  it.each(cases)('%s', (_name, type, object, want) => {
    const got = runTask(validateCreatedTask(type, object as Record<string, unknown>, { allowDuplicates: true }));
    expect(got.errors).toEqual([]);
    expect(got.added.toString()).toBe(want.toString());
    expect(got.added.equals(want)).toBe(true);
    expect(compare(type, {}, object).added.equals(want)).toBe(true);
  });

  // The same answers as the two walks it replaces, for every object of the tables above.
  const objects: Array<[TypeNode, unknown]> = [
    ...cases.map(([, type, object]): [TypeNode, unknown] => [type, object]),
    [grabBag, { setStr: ['a', 'a'] }],
    [grabBag, { nope: 1, numeric: 1 }],
    [grabBag, { numeric: 'x', string: 1 }],
    [grabBag, { setStr: [{}], numeric: 'x' }],
    [associativeList, { list: [{ key: 'a', id: 1, bv: 'x' }, null, { key: 'a', id: 1 }] }],
    [associativeList, { list: ['a'] }],
    [nullEmptyStruct, { inner: [] }],
    [deduced, { a: { b: [1, { c: 2 }] } }],
  ];
  for (const allowDuplicates of [false, true]) {
    it.each(objects)(
      `holds validationErrors and compare(type, {}, object) (allowDuplicates: ${allowDuplicates}) %#`,
      (type, object) => {
        const got = runTask(validateCreatedTask(type, object as Record<string, unknown>, { allowDuplicates }));
        expect(got.errors).toEqual(validationErrors(type, object, { allowDuplicates }));
        if (got.errors.length === 0) expect(got.added.equals(compare(type, {}, object).added)).toBe(true);
      },
    );
  }

  it('refuses a container deeper than maxDepth, the object itself level 1', () => {
    const nested = (levels: number): unknown => (levels === 0 ? 1 : { a: nested(levels - 1) });
    const at = (levels: number, maxDepth: number) =>
      runTask(validateCreatedTask(deduced, nested(levels) as Record<string, unknown>, { maxDepth })).errors;
    expect(at(3, 3)).toEqual([]);
    expect(at(4, 3)).toEqual([{ path: '.a.a.a', message: 'nests deeper than 3 levels' }]);
    expect(validationErrors(deduced, nested(4), { maxDepth: 3 })).toEqual(at(4, 3));
    // A scalar below the deepest container is no level of its own.
    expect(validationErrors(deduced, { a: { b: 1 } }, { maxDepth: 2 })).toEqual([]);
  });
});

describe('merge (merge_test.go)', () => {
  const cases: Array<[string, TypeNode, string, string, string]> = [
    ['simple pair 1', stringPair, '{"key":"foo","value":{}}', '{"key":"foo","value":1}', '{"key":"foo","value":1}'],
    ['simple pair 2', stringPair, '{"key":"foo","value":1}', '{"key":"foo","value":{}}', '{"key":"foo","value":{}}'],
    ['simple pair 3', stringPair, '{"key":"foo","value":null}', '{"key":"foo","value":{}}', '{"key":"foo","value":{}}'],
    ['simple pair 4', stringPair, '{"key":"foo"}', '{"value":true}', '{"key":"foo","value":true}'],
    ['null/empty map 1', nullEmptyMap, '{}', '{"inner":{}}', '{"inner":{}}'],
    ['null/empty map 2', nullEmptyMap, '{}', '{"inner":null}', '{"inner":null}'],
    ['null/empty map 3', nullEmptyMap, '{"inner":null}', '{"inner":{}}', '{"inner":{}}'],
    ['null/empty map 4', nullEmptyMap, '{"inner":{}}', '{"inner":null}', '{"inner":null}'],
    ['null/empty map 5', nullEmptyMap, '{"inner":{}}', '{"inner":{}}', '{"inner":{}}'],
    ['null/empty struct 1', nullEmptyStruct, '{}', '{"inner":{}}', '{"inner":{}}'],
    ['null/empty struct 2', nullEmptyStruct, '{"inner":null}', '{"inner":{}}', '{"inner":{}}'],
    ['null/empty struct 3', nullEmptyStruct, '{"inner":{}}', '{"inner":null}', '{"inner":null}'],
    ['null/empty list 1', nullEmptyList, '{}', '{"inner":[]}', '{"inner":[]}'],
    ['null/empty list 2', nullEmptyList, '{"inner":null}', '{"inner":[]}', '{"inner":[]}'],
    ['null/empty list 3', nullEmptyList, '{"inner":[]}', '{"inner":null}', '{"inner":null}'],
    ['grab bag 1', grabBag, '{"numeric":1}', '{"numeric":3.14159}', '{"numeric":3.14159}'],
    ['grab bag 2', grabBag, '{"string":"aoeu"}', '{"bool":true}', '{"string":"aoeu","bool":true}'],
    ['grab bag 3', grabBag, '{"setStr":["a","b","c"]}', '{"setStr":["a","b"]}', '{"setStr":["a","b","c"]}'],
    ['grab bag 4', grabBag, '{"setStr":["a","b"]}', '{"setStr":["a","b","c"]}', '{"setStr":["a","b","c"]}'],
    ['grab bag 5', grabBag, '{"setStr":["a","b","c"]}', '{"setStr":[]}', '{"setStr":["a","b","c"]}'],
    ['grab bag 6', grabBag, '{"setStr":[]}', '{"setStr":["a","b","c"]}', '{"setStr":["a","b","c"]}'],
    ['grab bag 7', grabBag, '{"setStr":["a","b"]}', '{"setStr":["b","a"]}', '{"setStr":["b","a"]}'],
    [
      'grab bag 8',
      grabBag,
      '{"setStr":["a","b","c"]}',
      '{"setStr":["d","e","f"]}',
      '{"setStr":["a","b","c","d","e","f"]}',
    ],
    [
      'grab bag 9',
      grabBag,
      '{"setStr":["a","b","c"]}',
      '{"setStr":["c","d","e","f"]}',
      '{"setStr":["a","b","c","d","e","f"]}',
    ],
    [
      'grab bag 10',
      grabBag,
      '{"setStr":["a","b","c","g","f"]}',
      '{"setStr":["c","d","e","f"]}',
      '{"setStr":["a","b","c","g","d","e","f"]}',
    ],
    [
      'grab bag 11',
      grabBag,
      '{"setStr":["a","b","c"]}',
      '{"setStr":["d","e","f","x","y","z"]}',
      '{"setStr":["a","b","c","d","e","f","x","y","z"]}',
    ],
    [
      'grab bag 12',
      grabBag,
      '{"setStr":["c","d","e","f"]}',
      '{"setStr":["a","c","e"]}',
      '{"setStr":["a","c","d","e","f"]}',
    ],
    [
      'grab bag 13',
      grabBag,
      '{"setStr":["a","b","c","x","y","z"]}',
      '{"setStr":["d","e","f"]}',
      '{"setStr":["a","b","c","x","y","z","d","e","f"]}',
    ],
    [
      'grab bag 14',
      grabBag,
      '{"setStr":["a","b","c","x","y","z"]}',
      '{"setStr":["d","e","f","x","y","z"]}',
      '{"setStr":["a","b","c","d","e","f","x","y","z"]}',
    ],
    [
      'grab bag 15',
      grabBag,
      '{"setStr":["c","a","g","f"]}',
      '{"setStr":["c","f","a","g"]}',
      '{"setStr":["c","f","a","g"]}',
    ],
    [
      'grab bag 16',
      grabBag,
      '{"setStr":["a","b","c","d"]}',
      '{"setStr":["d","e","f","a"]}',
      '{"setStr":["b","c","d","e","f","a"]}',
    ],
    [
      'grab bag 17',
      grabBag,
      '{"setStr":["c","d","e","f","g","h","i","j"]}',
      '{"setStr":["2","h","3","e","4","k","l"]}',
      '{"setStr":["c","d","f","g","2","h","i","j","3","e","4","k","l"]}',
    ],
    [
      'grab bag 18',
      grabBag,
      '{"setStr":["a","b","c","d","e","f","g","h","i","j"]}',
      '{"setStr":["1","b","2","h","3","e","4","k","l"]}',
      '{"setStr":["a","1","b","c","d","f","g","2","h","i","j","3","e","4","k","l"]}',
    ],
    ['duplicate in live 1', grabBag, '{"setStr":["a","b","b"]}', '{"setStr":["c"]}', '{"setStr":["a","b","b","c"]}'],
    ['duplicate in live 2', grabBag, '{"setStr":["a","b","b"]}', '{"setStr":["b"]}', '{"setStr":["a","b"]}'],
    ['duplicate in live 3', grabBag, '{"setStr":["a","b","b"]}', '{"setStr":["a"]}', '{"setStr":["a","b","b"]}'],
    [
      'duplicate in live 4',
      grabBag,
      '{"setStr":["a","b","c","d","e","c"]}',
      '{"setStr":["1","b","2","e","d"]}',
      '{"setStr":["a","1","b","c","2","e","c","d"]}',
    ],
    [
      'duplicate in live 5',
      grabBag,
      '{"setStr":["a","b","c","d","e","c"]}',
      '{"setStr":["1","b","2","c","e","d"]}',
      '{"setStr":["a","1","b","2","c","e","d"]}',
    ],
    [
      'duplicate in live 6',
      grabBag,
      '{"setStr":["a","a","b","b"]}',
      '{"setStr":["b","c","d"]}',
      '{"setStr":["a","a","b","c","d"]}',
    ],
    ['duplicate in live 7', grabBag, '{"setStr":["a","a","b","b"]}', '{"setStr":[]}', '{"setStr":["a","a","b","b"]}'],
    ['set of bools', grabBag, '{"setBool":[true]}', '{"setBool":[false]}', '{"setBool":[true, false]}'],
    [
      'set of numbers',
      grabBag,
      '{"setNumeric":[1,2,3.14159]}',
      '{"setNumeric":[1,2,3]}',
      '{"setNumeric":[1,2,3.14159,3]}',
    ],
    [
      'duplicates replaced by config order',
      grabBag,
      '{"setStr":["c","a","g","f","c","a"]}',
      '{"setStr":["c","f","a","g"]}',
      '{"setStr":["c","f","a","g"]}',
    ],
    [
      'duplicate numbers',
      grabBag,
      '{"setNumeric":[1,2,3.14159,1,2]}',
      '{"setNumeric":[1,2,3]}',
      '{"setNumeric":[1,2,3.14159,3]}',
    ],
    [
      'duplicate bools kept',
      grabBag,
      '{"setBool":[true,false,true]}',
      '{"setBool":[false]}',
      '{"setBool":[true,false,true]}',
    ],
    [
      'duplicate bools merged',
      grabBag,
      '{"setBool":[true,false,true]}',
      '{"setBool":[true]}',
      '{"setBool":[true, false]}',
    ],
    [
      'list-map same item',
      associativeList,
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
    ],
    [
      'list-map new item appended',
      associativeList,
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}},{"key":"a","id":2,"value":{"a":"a"}}]}',
    ],
    [
      'list-map by two keys',
      associativeList,
      '{"list":[{"key":"a","id":1},{"key":"b","id":1}]}',
      '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
      '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":2}]}',
    ],
    [
      'list-map surrounded',
      associativeList,
      '{"list":[{"key":"b","id":2}]}',
      '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
      '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
    ],
    [
      'list-map reordered',
      associativeList,
      '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
      '{"list":[{"key":"c","id":3},{"key":"b","id":2}]}',
      '{"list":[{"key":"a","id":1},{"key":"c","id":3},{"key":"b","id":2}]}',
    ],
    [
      'list-map reordered around',
      associativeList,
      '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}',
      '{"list":[{"key":"c","id":3},{"key":"a","id":1}]}',
      '{"list":[{"key":"b","id":2},{"key":"c","id":3},{"key":"a","id":1}]}',
    ],
    [
      'atomic list to null',
      associativeList,
      '{"atomicList":["a","a","a"]}',
      '{"atomicList":null}',
      '{"atomicList":null}',
    ],
    ['atomic list to empty', associativeList, '{"atomicList":["a","b","c"]}', '{"atomicList":[]}', '{"atomicList":[]}'],
    [
      'atomic list replaced',
      associativeList,
      '{"atomicList":["a","a","a"]}',
      '{"atomicList":["a","a"]}',
      '{"atomicList":["a","a"]}',
    ],
    [
      'atomic map replaced whole',
      associativeList,
      '{"atomicMap":{"id":"a","x":"1"}}',
      '{"atomicMap":{"id":"b"}}',
      '{"atomicMap":{"id":"b"}}',
    ],
    [
      'duplicate list-map items in live',
      associativeList,
      '{"list":[{"key":"a","id":1,"bv":true},{"key":"b","id":2},{"key":"a","id":1,"bv":false,"nv":2}]}',
      '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}',
      '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}',
    ],
    [
      'duplicates kept with empty config list',
      associativeList,
      '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}',
      '{"list":[]}',
      '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}',
    ],
    [
      'duplicates kept without config list',
      associativeList,
      '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}',
      '{}',
      '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}',
    ],
    [
      'list-map item fields merged',
      associativeList,
      '{"list":[{"key":"a","id":1,"bv":true,"value":{"x":"1"}}]}',
      '{"list":[{"key":"a","id":1,"nv":5,"value":{"y":"2"}}]}',
      '{"list":[{"key":"a","id":1,"bv":true,"value":{"x":"1","y":"2"},"nv":5}]}',
    ],
  ];
  it.each(cases)('%s', (_name, type, lhs, rhs, out) => {
    expect(merge(type, y(lhs), y(rhs))).toEqual(y(out));
  });

  it('refuses duplicates in the configuration', () => {
    expect(() => merge(grabBag, { setStr: ['a'] }, { setStr: ['b', 'b'] })).toThrow(
      '.setStr: duplicate entries for key [="b"]',
    );
  });

  it("keeps live key order and appends the configuration's new keys", () => {
    expect(Object.keys(merge(recursiveMap, { b: {}, a: { x: {} } }, { c: {}, a: { y: {} } }) as object)).toEqual([
      'b',
      'a',
      'c',
    ]);
  });
});

describe('compare (symdiff_test.go)', () => {
  const cases: Array<[string, TypeNode, string, string, FieldSet, FieldSet, FieldSet]> = [
    // [name, type, lhs, rhs, removed, modified, added]
    ['same', stringPair, '{"key":"foo","value":1}', '{"key":"foo","value":1}', NS(), NS(), NS()],
    [
      'atomic map to scalar',
      stringPair,
      '{"key":"foo","value":{}}',
      '{"key":"foo","value":1}',
      NS(),
      NS(P('value')),
      NS(),
    ],
    [
      'scalar to nested atomic map',
      stringPair,
      '{"key":"foo","value":1}',
      '{"key":"foo","value":{"doesn\'t matter":"what\'s here","or":{"how":"nested"}}}',
      NS(),
      NS(P('value')),
      NS(),
    ],
    ['null to empty', stringPair, '{"key":"foo","value":null}', '{"key":"foo","value":{}}', NS(), NS(P('value')), NS()],
    ['swap fields', stringPair, '{"key":"foo"}', '{"value":true}', NS(P('key')), NS(), NS(P('value'))],
    ['change and add', stringPair, '{"key":"foot"}', '{"key":"foo","value":true}', NS(), NS(P('key')), NS(P('value'))],
    ['empty map added', nullEmptyMap, '{}', '{"inner":{}}', NS(), NS(), NS(P('inner'))],
    ['null map added', nullEmptyMap, '{}', '{"inner":null}', NS(), NS(), NS(P('inner'))],
    ['null map to empty', nullEmptyMap, '{"inner":null}', '{"inner":{}}', NS(), NS(P('inner')), NS()],
    ['empty struct to null', nullEmptyStruct, '{"inner":{}}', '{"inner":null}', NS(), NS(P('inner')), NS()],
    ['empty lists equal', nullEmptyList, '{"inner":[]}', '{"inner":[]}', NS(), NS(), NS()],
    ['map keys swapped', recursiveMap, '{"a":{}}', '{"b":{}}', NS(P('a')), NS(), NS(P('b'))],
    ['nested map removed', recursiveMap, '{"a":{"b":{"c":{}}}}', '{"a":{"b":{}}}', NS(P('a', 'b', 'c')), NS(), NS()],
    ['nested map added', recursiveMap, '{"a":{}}', '{"a":{"b":{}}}', NS(), NS(), NS(P('a', 'b'))],
    ['deduced: map grows', deduced, '{"a":{}}', '{"a":{"b":{}}}', NS(), NS(), NS(P('a', 'b'))],
    ['deduced: null to map', deduced, '{"a":null}', '{"a":{"b":{}}}', NS(), NS(), NS(P('a', 'b'))],
    ['deduced: map to null', deduced, '{"a":{"b":{}}}', '{"a":null}', NS(P('a', 'b')), NS(), NS()],
    ['deduced: atomic list changes', deduced, '{"a":[]}', '{"a":["b"]}', NS(), NS(P('a')), NS()],
    ['deduced: list to null', deduced, '{"a":["b"]}', '{"a":null}', NS(), NS(P('a')), NS()],
    ['deduced: map to list', deduced, '{"a":{"b":{}}}', '{"a":["b"]}', NS(P('a', 'b')), NS(P('a')), NS()],
    ['deduced: list to map', deduced, '{"a":["b"]}', '{"a":{"b":{}}}', NS(), NS(P('a')), NS(P('a', 'b'))],
    ['deduced: map to scalar', deduced, '{"a":{"b":{}}}', '{"a":"b"}', NS(P('a', 'b')), NS(P('a')), NS()],
    ['deduced: list to scalar', deduced, '{"a":["b"]}', '{"a":"b"}', NS(), NS(P('a')), NS()],
    ['separable: empty to set', untypedSeparable, '{"a":[]}', '{"a":["b"]}', NS(), NS(), NS(P('a', V('b')))],
    ['separable: null to set', untypedSeparable, '{"a":null}', '{"a":["b"]}', NS(), NS(P('a')), NS(P('a', V('b')))],
    ['separable: set to null', untypedSeparable, '{"a":["b"]}', '{"a":null}', NS(P('a', V('b'))), NS(P('a')), NS()],
    [
      'separable: map to set',
      untypedSeparable,
      '{"a":{"b":{}}}',
      '{"a":["b"]}',
      NS(P('a', 'b')),
      NS(),
      NS(P('a', V('b'))),
    ],
    ['separable: set to scalar', untypedSeparable, '{"a":["b"]}', '{"a":"b"}', NS(P('a', V('b'))), NS(P('a')), NS()],
    ['float changed', grabBag, '{"numeric":1}', '{"numeric":3.14159}', NS(), NS(P('numeric')), NS()],
    ['set grows', grabBag, '{"setStr":["a","b"]}', '{"setStr":["a","b","c"]}', NS(), NS(), NS(P('setStr', V('c')))],
    [
      'set grows a duplicate',
      grabBag,
      '{"setStr":["a"]}',
      '{"setStr":["a","b","b"]}',
      NS(),
      NS(),
      NS(P('setStr', V('b'))),
    ],
    [
      'item becomes duplicate',
      grabBag,
      '{"setStr":["a","b"]}',
      '{"setStr":["a","b","b"]}',
      NS(P('setStr', V('b'))),
      NS(),
      NS(P('setStr', V('b'))),
    ],
    [
      'duplicates kept',
      grabBag,
      '{"setStr":["b","b"]}',
      '{"setStr":["a","b","b"]}',
      NS(),
      NS(),
      NS(P('setStr', V('a'))),
    ],
    [
      'set emptied',
      grabBag,
      '{"setStr":["a","b","c"]}',
      '{"setStr":[]}',
      NS(P('setStr', V('a')), P('setStr', V('b')), P('setStr', V('c'))),
      NS(),
      NS(),
    ],
    [
      'bool swapped',
      grabBag,
      '{"setBool":[true]}',
      '{"setBool":[false]}',
      NS(P('setBool', V(true))),
      NS(),
      NS(P('setBool', V(false))),
    ],
    [
      'number swapped',
      grabBag,
      '{"setNumeric":[1,2,3.14159]}',
      '{"setNumeric":[1,2,3]}',
      NS(P('setNumeric', V(3.14159))),
      NS(),
      NS(P('setNumeric', V(3))),
    ],
    [
      'duplicates resolved',
      grabBag,
      '{"setNumeric":[1,2,2,3.14159,1]}',
      '{"setNumeric":[1,2,3]}',
      NS(P('setNumeric', V(1)), P('setNumeric', V(2)), P('setNumeric', V(3.14159))),
      NS(),
      NS(P('setNumeric', V(1)), P('setNumeric', V(2)), P('setNumeric', V(3))),
    ],
    [
      'list-map added from nothing',
      associativeList,
      '{}',
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      NS(),
      NS(),
      NS(
        P('list'),
        P('list', KBF('key', 'a', 'id', 1)),
        P('list', KBF('key', 'a', 'id', 1), 'key'),
        P('list', KBF('key', 'a', 'id', 1), 'id'),
        P('list', KBF('key', 'a', 'id', 1), 'value'),
        P('list', KBF('key', 'a', 'id', 1), 'value', 'a'),
      ),
    ],
    [
      'list-map item value modified',
      associativeList,
      '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
      '{"list":[{"key":"a","id":1,"value":{"a":"b"}}]}',
      NS(),
      NS(P('list', KBF('key', 'a', 'id', 1), 'value', 'a')),
      NS(),
    ],
    [
      'list-map item replaced',
      associativeList,
      '{"list":[{"key":"a","id":1},{"key":"b","id":1}]}',
      '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
      NS(
        P('list', KBF('key', 'b', 'id', 1)),
        P('list', KBF('key', 'b', 'id', 1), 'key'),
        P('list', KBF('key', 'b', 'id', 1), 'id'),
      ),
      NS(),
      NS(
        P('list', KBF('key', 'a', 'id', 2)),
        P('list', KBF('key', 'a', 'id', 2), 'key'),
        P('list', KBF('key', 'a', 'id', 2), 'id'),
      ),
    ],
    [
      'atomic list to null',
      associativeList,
      '{"atomicList":["a","a","a"]}',
      '{"atomicList":null}',
      NS(),
      NS(P('atomicList')),
      NS(),
    ],
    [
      'atomic list shortened',
      associativeList,
      '{"atomicList":["a","a","a"]}',
      '{"atomicList":["a","a"]}',
      NS(),
      NS(P('atomicList')),
      NS(),
    ],
    [
      'list-map duplicate resolved',
      associativeList,
      '{"list":[{"key":"a","id":1,"nv":2},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
      '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}',
      NS(
        P('list', KBF('key', 'b', 'id', 1)),
        P('list', KBF('key', 'b', 'id', 1), 'key'),
        P('list', KBF('key', 'b', 'id', 1), 'id'),
        P('list', KBF('key', 'a', 'id', 1)),
      ),
      NS(),
      NS(
        P('list', KBF('key', 'a', 'id', 1)),
        P('list', KBF('key', 'a', 'id', 1), 'key'),
        P('list', KBF('key', 'a', 'id', 1), 'id'),
        P('list', KBF('key', 'a', 'id', 2)),
        P('list', KBF('key', 'a', 'id', 2), 'key'),
        P('list', KBF('key', 'a', 'id', 2), 'id'),
      ),
    ],
    [
      'duplicated group modified',
      associativeList,
      '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
      '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true,"nv":1}]}',
      NS(),
      NS(P('list', KBF('key', 'a', 'id', 1))),
      NS(),
    ],
    [
      'field added beside duplicates',
      associativeList,
      '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":1,"bv":true}]}',
      '{"list":[{"key":"a","id":1},{"key":"b","id":1,"bv":true},{"key":"a","id":1,"bv":true}]}',
      NS(),
      NS(),
      NS(P('list', KBF('key', 'b', 'id', 1), 'bv')),
    ],
  ];
  it.each(cases)('%s', (_name, type, lhs, rhs, removed, modified, added) => {
    const got = compare(type, y(lhs), y(rhs));
    expect(got.removed.toString()).toBe(removed.toString());
    expect(got.modified.toString()).toBe(modified.toString());
    expect(got.added.toString()).toBe(added.toString());
    expect(got.removed.equals(removed) && got.modified.equals(modified) && got.added.equals(added)).toBe(true);
    // The reverse comparison swaps added and removed and keeps modified.
    const back = compare(type, y(rhs), y(lhs));
    expect(back.modified.equals(got.modified)).toBe(true);
    expect(back.removed.equals(got.added)).toBe(true);
    expect(back.added.equals(got.removed)).toBe(true);
  });
});

describe('removeItems and extractItems (remove_test.go)', () => {
  const SKIP = 'unparseable';
  const cases: Array<[string, TypeNode, string, FieldSet, string, string]> = [
    // [name, type, object, set, after removal, extracted] ('' is null, 'unparseable' not checked)
    ['pair: remove key', stringPair, '{"key":"foo"}', NS(P('key')), '', '{"key":"foo"}'],
    ['pair: empty set', stringPair, '{"key":"foo"}', NS(), '{"key":"foo"}', ''],
    ['pair: one of two', stringPair, '{"key":"foo","value":true}', NS(P('key')), '{"value":true}', '{"key":"foo"}'],
    [
      'pair: atomic value',
      stringPair,
      '{"key":"foo","value":{"a": "b"}}',
      NS(P('value')),
      '{"key":"foo"}',
      '{"value":{"a": "b"}}',
    ],
    [
      'set: only item',
      grabBag,
      '{"setBool":[false]}',
      NS(P('setBool', V(false))),
      '{"setBool":null}',
      '{"setBool":[false]}',
    ],
    [
      'set: absent item',
      grabBag,
      '{"setBool":[false]}',
      NS(P('setBool', V(true))),
      '{"setBool":[false]}',
      '{"setBool":null}',
    ],
    [
      'set: one of two',
      grabBag,
      '{"setBool":[true,false]}',
      NS(P('setBool', V(true))),
      '{"setBool":[false]}',
      '{"setBool":[true]}',
    ],
    ['set: whole field', grabBag, '{"setBool":[true,false]}', NS(P('setBool')), '', '{"setBool":null}'],
    [
      'set: numbers',
      grabBag,
      '{"setNumeric":[1,2,3,4.5]}',
      NS(P('setNumeric', V(1)), P('setNumeric', V(4.5))),
      '{"setNumeric":[2,3]}',
      '{"setNumeric":[1,4.5]}',
    ],
    [
      'list-map: extract fields',
      associativeList,
      '{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}',
      NS(P('list', KBF('key', 'a', 'id', 1), 'key'), P('list', KBF('key', 'a', 'id', 1), 'id')),
      SKIP,
      '{"list":[{"key":"a","id":1}]}',
    ],
    [
      'list-map: remove item',
      associativeList,
      '{"list":[{"key":"a","id":1},{"key":"a","id":2},{"key":"b","id":1}]}',
      NS(P('list', KBF('key', 'a', 'id', 1))),
      '{"list":[{"key":"a","id":2},{"key":"b","id":1}]}',
      SKIP,
    ],
    [
      'atomic list',
      associativeList,
      '{"atomicList":["a", "a", "a"]}',
      NS(P('atomicList')),
      '',
      '{"atomicList":["a", "a", "a"]}',
    ],
    [
      'atomic map',
      associativeList,
      '{"atomicMap":{"a": "c", "b": "d"}}',
      NS(P('atomicMap')),
      '',
      '{"atomicMap":{"a": "c", "b": "d"}}',
    ],
    [
      'listOfLists: root',
      nestedTypes,
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      NS(P('listOfLists')),
      '',
      '{"listOfLists": null}',
    ],
    [
      'listOfLists: remove item',
      nestedTypes,
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      NS(P('listOfLists', KBF('name', 'd'))),
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}]}',
      SKIP,
    ],
    [
      'listOfLists: extract item name',
      nestedTypes,
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      NS(P('listOfLists', KBF('name', 'a'), 'name')),
      SKIP,
      '{"listOfLists": [{"name": "a"}]}',
    ],
    [
      'listOfLists: nested set item',
      nestedTypes,
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      NS(P('listOfLists', KBF('name', 'a'), 'value', V('b'))),
      '{"listOfLists": [{"name":"a", "value": ["c"]}, {"name": "d"}]}',
      SKIP,
    ],
    [
      'listOfLists: absent item',
      nestedTypes,
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      NS(P('listOfLists', KBF('name', 'x'))),
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      '{"listOfLists":null}',
    ],
    [
      'listOfLists: path that is not a field',
      nestedTypes,
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      NS(P(V('b'))),
      '{"listOfLists": [{"name": "a", "value": ["b", "c"]}, {"name": "d"}]}',
      '',
    ],
    [
      'listOfMaps: extract name and one value',
      nestedTypes,
      '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
      NS(P('listOfMaps', KBF('name', 'a'), 'name'), P('listOfMaps', KBF('name', 'a'), 'value', 'b')),
      SKIP,
      '{"listOfMaps": [{"name": "a", "value": {"b":"x"}}]}',
    ],
    [
      'listOfMaps: remove one value',
      nestedTypes,
      '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
      NS(P('listOfMaps', KBF('name', 'a'), 'value', 'b')),
      '{"listOfMaps": [{"name": "a", "value": {"c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
      SKIP,
    ],
    [
      'listOfMaps: name and absent value',
      nestedTypes,
      '{"listOfMaps": [{"name": "a", "value": {"b":"x", "c":"y"}}, {"name": "d", "value": {"e":"z"}}]}',
      NS(P('listOfMaps', KBF('name', 'a'), 'name'), P('listOfMaps', KBF('name', 'a'), 'value', 'q')),
      SKIP,
      '{"listOfMaps": [{"name":"a", "value": null}]}',
    ],
    [
      'mapOfLists: top-level entry',
      nestedTypes,
      '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
      NS(P('mapOfLists', 'b')),
      '{"mapOfLists": {"d":["e", "f"]}}',
      '{"mapOfLists": {"b":null}}',
    ],
    [
      'mapOfLists: one set item',
      nestedTypes,
      '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
      NS(P('mapOfLists', 'b', V('a'))),
      '{"mapOfLists":{"b":["c"],"d":["e", "f"]}}',
      '{"mapOfLists":{"b":["a"]}}',
    ],
    [
      'mapOfLists: absent set item',
      nestedTypes,
      '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
      NS(P('mapOfLists', 'b', V('q'))),
      '{"mapOfLists": {"b":["a","c"], "d":["e", "f"]}}',
      '{"mapOfLists":{"b":null}}',
    ],
    [
      'mapOfMaps: one entry',
      nestedTypes,
      '{"mapOfMaps": {"b":{"a":"x","c":"z"}, "d":{"e":"y", "f":"w"}}}',
      NS(P('mapOfMaps', 'b', 'a')),
      '{"mapOfMaps": {"b":{"c":"z"},"d":{"e":"y", "f":"w"}}}',
      '{"mapOfMaps": {"b":{"a":"x"}}}',
    ],
    [
      'mapOfMaps: null entry',
      nestedTypes,
      '{"mapOfMaps": {"b":null, "d":{"e":"y", "f":"w"}}}',
      NS(P('mapOfMaps', 'b')),
      '{"mapOfMaps": {"d":{"e":"y", "f":"w"}}}',
      '{"mapOfMaps": {"b":null}}',
    ],
    [
      'recursive: second level',
      nestedTypes,
      '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}',
      NS(P('mapOfMapsRecursive', 'a', 'b')),
      '{"mapOfMapsRecursive":{"a":null}}',
      '{"mapOfMapsRecursive": {"a":{"b":null}}}',
    ],
    [
      'recursive: third level',
      nestedTypes,
      '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}',
      NS(P('mapOfMapsRecursive', 'a', 'b', 'c')),
      '{"mapOfMapsRecursive":{"a":{"b":null}}}',
      '{"mapOfMapsRecursive": {"a":{"b":{"c":null}}}}',
    ],
    ['empty list', nestedTypes, '{"listOfLists": []}', NS(P('listOfLists')), '', '{"listOfLists": []}'],
  ];
  it.each(cases)('%s', (_name, type, object, set, removed, extracted) => {
    const value = y(object);
    if (removed !== SKIP) expect(removeItems(type, value, set)).toEqual(removed === '' ? null : y(removed));
    if (extracted !== SKIP) expect(extractItems(type, value, set)).toEqual(extracted === '' ? null : y(extracted));
  });

  it('extracts list-map key fields on request (WithAppendKeyFields)', () => {
    const value = y('{"list":[{"key":"a","id":1,"nv":1,"bv":true},{"key":"b","id":2,"nv":2}]}');
    const set = NS(P('list', KBF('key', 'a', 'id', 1), 'nv'));
    expect(extractItems(associativeList, value, set)).toEqual({ list: [{ nv: 1 }] });
    expect(extractItems(associativeList, value, set, { appendKeyFields: true })).toEqual({
      list: [{ key: 'a', id: 1, nv: 1 }],
    });
  });
});
