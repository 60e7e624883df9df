// Translated from SMD's merge/*_test.go tables (leaf, set, key, nested, multiple appliers,
// duplicates, deduced, preserve unknown, schema change, ignore): operations in order, then the
// expected live object and managed fields.
import { describe, expect, it } from 'vitest';
import {
  Conflicts,
  FieldSet,
  Updater,
  deducedType,
  runTask,
  type TypeNode,
  type VersionedFieldSet,
} from '../../../../apimachinery/structured-merge/index.js';
import {
  KBF,
  P,
  V,
  apply,
  changeType,
  checkCase,
  forceApply,
  runOps,
  smdSchema,
  update,
  yamlObject,
  type OpsCase,
} from './helpers.js';

const leafFields = smdSchema(
  `types:
- name: leafFields
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
        scalar: boolean`,
  'leafFields',
);

const setFields = smdSchema(
  `types:
- name: sets
  map:
    fields:
    - name: list
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative`,
  'sets',
);

const associativeList = smdSchema(
  `types:
- name: type
  map:
    fields:
      - name: list
        type:
          namedType: associativeList
- name: associativeList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - name
- name: myElement
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: value
      type:
        scalar: numeric
`,
  'type',
);

const nestedType = smdSchema(
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
      - name: struct
        type:
          namedType: struct
- name: struct
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: value
      type:
        scalar: numeric
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

const structV1 = smdSchema(
  `types:
- name: v1
  map:
    fields:
      - name: struct
        type:
          namedType: struct
      - name: version
        type:
          scalar: string
- name: struct
  map:
    fields:
      - name: name
        type:
          scalar: string
      - name: scalarField_v1
        type:
          scalar: string
      - name: complexField_v1
        type:
          namedType: complex
- name: complex
  map:
    fields:
      - name: name
        type:
          scalar: string
`,
  'v1',
);

const duplicates = smdSchema(
  `types:
- name: type
  map:
    fields:
      - name: list
        type:
          namedType: associativeList
      - name: unrelated
        type:
          scalar: numeric
      - name: set
        type:
          namedType: set
- name: associativeList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - name
- name: myElement
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: value1
      type:
        scalar: numeric
    - name: value2
      type:
        scalar: numeric
- name: set
  list:
    elementType:
      scalar: numeric
    elementRelationship: associative
`,
  'type',
);

const preserveUnknown = smdSchema(
  `types:
- name: type
  map:
    fields:
      - name: num
        type:
          scalar: numeric
    elementType:
      scalar: string
`,
  'type',
);

const structSchema = (atomic: boolean): TypeNode =>
  smdSchema(
    `types:
- name: v1
  map:
    fields:
      - name: struct
        type:
          namedType: struct
- name: struct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
${atomic ? '    elementRelationship: atomic' : ''}`,
    'v1',
  );
const granularStruct = structSchema(false);
const atomicStruct = structSchema(true);

const run = (type: TypeNode, cases: OpsCase[]): void => {
  it.each(cases)('$name', (tc) => {
    checkCase(type, tc);
  });
};

const NESTED_CONFIG = `listOfLists:
- name: a
  value:
  - b
  - c
listOfMaps:
- name: a
  value:
    x: "1"
mapOfLists:
  a:
  - b
mapOfMaps:
  a:
    b: c
struct:
  name: n
  value: 1`;

describe('leaf fields (leaf_test.go)', () => {
  run(leafFields, [
    {
      name: 'apply_twice',
      ops: [
        apply('default', 'numeric: 1\nstring: "string"'),
        apply('default', 'numeric: 2\nstring: "string"\nbool: false'),
      ],
      object: 'numeric: 2\nstring: "string"\nbool: false',
      managed: { default: { apiVersion: 'v1', paths: [P('numeric'), P('string'), P('bool')], applied: true } },
    },
    {
      name: 'apply_twice_different_versions',
      ops: [
        apply('default', 'numeric: 1\nstring: "string"'),
        apply('default', 'numeric: 2\nstring: "string"\nbool: false', 'v2'),
      ],
      object: 'numeric: 2\nstring: "string"\nbool: false',
      managed: { default: { apiVersion: 'v2', paths: [P('numeric'), P('string'), P('bool')] } },
    },
    {
      name: 'apply_update_apply_no_conflict',
      ops: [
        apply('default', 'numeric: 1\nstring: "string"'),
        update('controller', 'numeric: 1\nstring: "string"\nbool: true'),
        apply('default', 'numeric: 2\nstring: "string"'),
      ],
      object: 'numeric: 2\nstring: "string"\nbool: true',
      managed: {
        default: { apiVersion: 'v1', paths: [P('numeric'), P('string')] },
        controller: { apiVersion: 'v1', paths: [P('bool')], applied: false },
      },
    },
    {
      name: 'apply_update_apply_no_conflict_different_version',
      ops: [
        apply('default', 'numeric: 1\nstring: "string"'),
        update('controller', 'numeric: 1\nstring: "string"\nbool: true', 'v2'),
        apply('default', 'numeric: 2\nstring: "string"'),
      ],
      object: 'numeric: 2\nstring: "string"\nbool: true',
      managed: {
        default: { apiVersion: 'v1', paths: [P('numeric'), P('string')] },
        controller: { apiVersion: 'v2', paths: [P('bool')] },
      },
    },
    {
      name: 'apply_update_apply_with_conflict',
      ops: [
        apply('default', 'numeric: 1\nstring: "string"'),
        update('controller', 'numeric: 1\nstring: "controller string"\nbool: true'),
        apply('default', 'numeric: 2\nstring: "user string"', 'v1', [['controller', P('string')]]),
        forceApply('default', 'numeric: 2\nstring: "user string"'),
      ],
      object: 'numeric: 2\nstring: "user string"\nbool: true',
      managed: {
        default: { apiVersion: 'v1', paths: [P('numeric'), P('string')] },
        controller: { apiVersion: 'v1', paths: [P('bool')] },
      },
    },
    {
      name: 'apply_twice_remove',
      ops: [apply('default', 'numeric: 1\nstring: "string"\nbool: false'), apply('default', 'string: "new string"')],
      object: 'string: "new string"',
      managed: { default: { apiVersion: 'v1', paths: [P('string')] } },
    },
    {
      name: 'update_apply_omits',
      ops: [apply('default', 'numeric: 2'), update('controller', 'numeric: 1'), apply('default', '')],
      object: 'numeric: 1',
      managed: { controller: { apiVersion: 'v1', paths: [P('numeric')] } },
    },
    {
      name: 'update_remove_empty_set',
      ops: [apply('default', 'string: "string"'), update('controller', 'string: "new string"')],
      object: 'string: "new string"',
      managed: { controller: { apiVersion: 'v1', paths: [P('string')] } },
    },
    {
      name: 'apply_remove_empty_set',
      ops: [apply('default', 'string: "string"'), apply('default', '')],
      object: '',
      managed: {},
    },
  ]);
});

describe('sets (set_test.go)', () => {
  const paths = (...items: string[]) => items.map((i) => P('list', V(i)));
  run(setFields, [
    {
      name: 'apply_twice',
      ops: [apply('default', 'list:\n- a\n- c'), apply('default', 'list:\n- a\n- b\n- c\n- d')],
      object: 'list:\n- a\n- b\n- c\n- d',
      managed: { default: { apiVersion: 'v1', paths: paths('a', 'b', 'c', 'd') } },
    },
    {
      name: 'apply_update_apply_no_overlap',
      ops: [
        apply('default', 'list:\n- a\n- c'),
        update('controller', 'list:\n- a\n- b\n- c\n- d'),
        apply('default', 'list:\n- a\n- aprime\n- c\n- cprime'),
      ],
      object: 'list:\n- a\n- b\n- aprime\n- c\n- d\n- cprime',
      managed: {
        default: { apiVersion: 'v1', paths: paths('a', 'aprime', 'c', 'cprime') },
        controller: { apiVersion: 'v1', paths: paths('b', 'd') },
      },
    },
    {
      name: 'apply_update_apply_with_overlap',
      ops: [
        apply('default', 'list:\n- a\n- c'),
        update('controller', 'list:\n- a\n- b\n- c\n- d'),
        apply('default', 'list:\n- a\n- b\n- c'),
      ],
      object: 'list:\n- a\n- b\n- c\n- d',
      managed: {
        default: { apiVersion: 'v1', paths: paths('a', 'b', 'c') },
        controller: { apiVersion: 'v1', paths: paths('b', 'd') },
      },
    },
    {
      name: 'apply_twice_reorder',
      ops: [apply('default', 'list:\n- a\n- b\n- c\n- d'), apply('default', 'list:\n- a\n- d\n- c\n- b')],
      object: 'list:\n- a\n- d\n- c\n- b',
      managed: { default: { apiVersion: 'v1', paths: paths('a', 'b', 'c', 'd') } },
    },
    {
      name: 'apply_update_apply_reorder',
      ops: [
        apply('default', 'list:\n- a\n- b\n- c\n- d'),
        update('controller', 'list:\n- a\n- d\n- c\n- b'),
        apply('default', 'list:\n- a\n- b\n- c\n- d'),
      ],
      object: 'list:\n- a\n- b\n- c\n- d',
      managed: { default: { apiVersion: 'v1', paths: paths('a', 'b', 'c', 'd') } },
    },
    {
      name: 'apply_twice_remove',
      ops: [apply('default', 'list:\n- a\n- b\n- c\n- d'), apply('default', 'list:\n- a\n- c')],
      object: 'list:\n- a\n- c',
      managed: { default: { apiVersion: 'v1', paths: paths('a', 'c') } },
    },
    {
      name: 'apply_twice_remove_across_versions',
      ops: [apply('default', 'list:\n- a\n- b\n- c\n- d'), apply('default', 'list:\n- a\n- c\n- e', 'v2')],
      object: 'list:\n- a\n- c\n- e',
      managed: { default: { apiVersion: 'v2', paths: paths('a', 'c', 'e') } },
    },
  ]);
});

describe('list-maps (key_test.go, multiple_appliers_test.go)', () => {
  const item = (name: string, ...rest: string[]) => P('list', KBF('name', name), ...rest);
  run(associativeList, [
    {
      name: 'removing_obsolete_applied_structs',
      ops: [apply('default', 'list:\n- name: a\n  value: 1'), apply('default', 'list:\n- name: b\n  value: 2')],
      object: 'list:\n- name: b\n  value: 2',
      managed: { default: { apiVersion: 'v1', paths: [item('b'), item('b', 'name'), item('b', 'value')] } },
    },
    {
      name: 'remove_one',
      ops: [
        apply('apply-one', 'list:\n- name: a\n- name: b'),
        apply('apply-two', 'list:\n- name: c', 'v2'),
        apply('apply-one', 'list:\n- name: a', 'v3'),
      ],
      object: 'list:\n- name: a\n- name: c',
      managed: {
        'apply-one': { apiVersion: 'v3', paths: [item('a'), item('a', 'name')] },
        'apply-two': { apiVersion: 'v2', paths: [item('c'), item('c', 'name')] },
      },
    },
    {
      name: 'same_value_no_conflict (shared ownership)',
      ops: [
        apply('apply-one', 'list:\n- name: a\n  value: 0'),
        apply('apply-two', 'list:\n- name: a\n  value: 0', 'v2'),
      ],
      object: 'list:\n- name: a\n  value: 0',
      managed: {
        'apply-one': { apiVersion: 'v1', paths: [item('a'), item('a', 'name'), item('a', 'value')] },
        'apply-two': { apiVersion: 'v2', paths: [item('a'), item('a', 'name'), item('a', 'value')] },
      },
    },
    {
      name: 'change_value_yes_conflict',
      ops: [
        apply('apply-one', 'list:\n- name: a\n  value: 0'),
        apply('apply-two', 'list:\n- name: a\n  value: 1', 'v2', [['apply-one', item('a', 'value')]]),
      ],
      object: 'list:\n- name: a\n  value: 0',
      managed: { 'apply-one': { apiVersion: 'v1', paths: [item('a'), item('a', 'name'), item('a', 'value')] } },
    },
    {
      name: 'remove_one_keep_one',
      ops: [
        apply('apply-one', 'list:\n- name: a\n- name: b\n- name: c'),
        apply('apply-two', 'list:\n- name: c\n- name: d', 'v2'),
        apply('apply-one', 'list:\n- name: a', 'v3'),
      ],
      object: 'list:\n- name: a\n- name: c\n- name: d',
      managed: {
        'apply-one': { apiVersion: 'v3', paths: [item('a'), item('a', 'name')] },
        'apply-two': { apiVersion: 'v2', paths: [item('c'), item('d'), item('c', 'name'), item('d', 'name')] },
      },
    },
    {
      name: 'two managers own different entries; force takes only the conflicting field',
      ops: [
        apply('one', 'list:\n- name: a\n  value: 1'),
        apply('two', 'list:\n- name: b\n  value: 2'),
        apply('two', 'list:\n- name: a\n  value: 3\n- name: b\n  value: 2', 'v1', [['one', item('a', 'value')]]),
        forceApply('two', 'list:\n- name: a\n  value: 3\n- name: b\n  value: 2'),
      ],
      object: 'list:\n- name: a\n  value: 3\n- name: b\n  value: 2',
      managed: {
        one: { apiVersion: 'v1', paths: [item('a'), item('a', 'name')] },
        two: {
          apiVersion: 'v1',
          paths: [item('a'), item('a', 'name'), item('a', 'value'), item('b'), item('b', 'name'), item('b', 'value')],
        },
      },
    },
  ]);
});

describe('nested types (nested_test.go, multiple_appliers_test.go)', () => {
  const lol = (name: string, ...rest: Array<string | ReturnType<typeof V>>) =>
    P('listOfLists', KBF('name', name), ...rest);
  run(nestedType, [
    {
      name: 'listOfLists_change_value',
      ops: [
        apply('default', 'listOfLists:\n- name: a\n  value:\n  - b\n  - c'),
        apply('default', 'listOfLists:\n- name: a\n  value:\n  - a\n  - c'),
      ],
      object: 'listOfLists:\n- name: a\n  value:\n  - a\n  - c',
      managed: {
        default: {
          apiVersion: 'v1',
          paths: [lol('a'), lol('a', 'name'), lol('a', 'value', V('a')), lol('a', 'value', V('c'))],
        },
      },
    },
    {
      name: 'listOfLists_change_key_and_value',
      ops: [
        apply('default', 'listOfLists:\n- name: a\n  value:\n  - b\n  - c'),
        apply('default', 'listOfLists:\n- name: b\n  value:\n  - a\n  - c'),
      ],
      object: 'listOfLists:\n- name: b\n  value:\n  - a\n  - c',
      managed: {
        default: {
          apiVersion: 'v1',
          paths: [lol('b'), lol('b', 'name'), lol('b', 'value', V('a')), lol('b', 'value', V('c'))],
        },
      },
    },
    {
      name: 'listOfMaps_change_value',
      ops: [
        apply('default', 'listOfMaps:\n- name: a\n  value:\n    b: "x"\n    c: "y"'),
        apply('default', 'listOfMaps:\n- name: a\n  value:\n    a: "x"\n    c: "z"'),
      ],
      object: 'listOfMaps:\n- name: a\n  value:\n    a: "x"\n    c: "z"',
      managed: {
        default: {
          apiVersion: 'v1',
          paths: [
            P('listOfMaps', KBF('name', 'a')),
            P('listOfMaps', KBF('name', 'a'), 'name'),
            P('listOfMaps', KBF('name', 'a'), 'value', 'a'),
            P('listOfMaps', KBF('name', 'a'), 'value', 'c'),
          ],
        },
      },
    },
    {
      name: 'mapOfLists_change_key_and_value',
      ops: [apply('default', 'mapOfLists:\n  a:\n  - b\n  - c'), apply('default', 'mapOfLists:\n  b:\n  - a\n  - c')],
      object: 'mapOfLists:\n  b:\n  - a\n  - c',
      managed: {
        default: {
          apiVersion: 'v1',
          paths: [P('mapOfLists', 'b'), P('mapOfLists', 'b', V('a')), P('mapOfLists', 'b', V('c'))],
        },
      },
    },
    {
      name: 'mapOfMaps_change_value',
      ops: [
        apply('default', 'mapOfMaps:\n  a:\n    b: "x"\n    c: "y"'),
        apply('default', 'mapOfMaps:\n  a:\n    a: "x"\n    c: "z"'),
      ],
      object: 'mapOfMaps:\n  a:\n    a: "x"\n    c: "z"',
      managed: {
        default: { apiVersion: 'v1', paths: [P('mapOfMaps', 'a'), P('mapOfMaps', 'a', 'a'), P('mapOfMaps', 'a', 'c')] },
      },
    },
    {
      name: 'mapOfMapsRecursive_change_middle_key',
      ops: [
        apply('default', 'mapOfMapsRecursive:\n  a:\n    b:\n      c:'),
        apply('default', 'mapOfMapsRecursive:\n  a:\n    d:\n      c:'),
      ],
      object: 'mapOfMapsRecursive:\n  a:\n    d:\n      c:',
      managed: {
        default: {
          apiVersion: 'v1',
          paths: [
            P('mapOfMapsRecursive', 'a'),
            P('mapOfMapsRecursive', 'a', 'd'),
            P('mapOfMapsRecursive', 'a', 'd', 'c'),
          ],
        },
      },
    },
    {
      name: 'struct_apply_remove_all',
      ops: [apply('default', 'struct:\n  name: a\n  value: 1'), apply('default', '')],
      object: '',
      managed: {},
    },
    {
      name: 'struct_apply_remove_dangling',
      ops: [apply('default', 'struct:\n  name: a'), apply('default', 'struct:')],
      object: 'struct:',
      managed: { default: { apiVersion: 'v1', paths: [P('struct')], applied: true } },
    },
    {
      name: 'struct_apply_update_remove_all',
      ops: [
        apply('default', 'struct:\n  name: a'),
        update('controller', 'struct:\n  name: a\n  value: 1'),
        apply('default', ''),
      ],
      object: 'struct:\n  value: 1',
    },
    {
      name: 'struct_apply_update_dict_dangling',
      ops: [
        apply('default', 'struct:\n  name: a'),
        update('controller', 'struct:\n  name: a\n  value: 1'),
        apply('default', 'struct: {}'),
      ],
      object: 'struct:\n  value: 1',
    },
    {
      name: 'remove_one_keep_one_with_two_sub_items',
      ops: [
        apply('apply-one', 'listOfLists:\n- name: a\n- name: b\n  value:\n  - c'),
        apply('apply-two', 'listOfLists:\n- name: b\n  value:\n  - d', 'v2'),
        apply('apply-one', 'listOfLists:\n- name: a', 'v3'),
      ],
      object: 'listOfLists:\n- name: a\n- name: b\n  value:\n  - d',
      managed: {
        'apply-one': { apiVersion: 'v3', paths: [lol('a'), lol('a', 'name')] },
        'apply-two': { apiVersion: 'v2', paths: [lol('b'), lol('b', 'name'), lol('b', 'value', V('d'))] },
      },
    },
    {
      name: 'remove_one_keep_one_with_dangling_subitem',
      ops: [
        apply('apply-one', 'listOfLists:\n- name: a\n- name: b\n  value:\n  - c'),
        apply('apply-two', 'listOfLists:\n- name: b\n  value:\n  - d', 'v2'),
        update('controller', 'listOfLists:\n- name: a\n- name: b\n  value:\n  - c\n  - d\n  - e', 'v2'),
        apply('apply-one', 'listOfLists:\n- name: a', 'v3'),
      ],
      object: 'listOfLists:\n- name: a\n- name: b\n  value:\n  - d\n  - e',
      managed: {
        'apply-one': { apiVersion: 'v3', paths: [lol('a'), lol('a', 'name')] },
        'apply-two': { apiVersion: 'v2', paths: [lol('b'), lol('b', 'name'), lol('b', 'value', V('d'))] },
        controller: { apiVersion: 'v2', paths: [lol('b', 'value', V('e'))] },
      },
    },
    {
      name: 'remove_one_with_dangling_subitem_keep_one',
      ops: [
        apply('apply-one', 'listOfLists:\n- name: a\n- name: b\n  value:\n  - c'),
        apply('apply-two', 'listOfLists:\n- name: a\n  value:\n  - b', 'v2'),
        update('controller', 'listOfLists:\n- name: a\n  value:\n  - b\n- name: b\n  value:\n  - c\n  - d', 'v2'),
        apply('apply-one', 'listOfLists:\n- name: a', 'v3'),
      ],
      object: 'listOfLists:\n- name: a\n  value:\n  - b',
      managed: {
        'apply-one': { apiVersion: 'v3', paths: [lol('a'), lol('a', 'name')] },
        'apply-two': { apiVersion: 'v2', paths: [lol('a'), lol('a', 'name'), lol('a', 'value', V('b'))] },
      },
    },
    {
      name: 'multiple_appliers_recursive_map',
      ops: [
        apply('apply-one', 'mapOfMapsRecursive:\n  a:\n    b:\n  c:\n    d:'),
        apply('apply-two', 'mapOfMapsRecursive:\n  a:\n  c:\n    d:', 'v2'),
        update('controller-one', 'mapOfMapsRecursive:\n  a:\n    b:\n      c:\n  c:\n    d:\n      e:', 'v3'),
        update(
          'controller-two',
          'mapOfMapsRecursive:\n  a:\n    b:\n      c:\n        d:\n  c:\n    d:\n      e:\n        f:',
          'v2',
        ),
        update(
          'controller-one',
          'mapOfMapsRecursive:\n  a:\n    b:\n      c:\n        d:\n          e:\n  c:\n    d:\n      e:\n        f:\n          g:',
          'v3',
        ),
        apply('apply-one', 'mapOfMapsRecursive:', 'v4'),
      ],
      object: 'mapOfMapsRecursive:\n  a:\n  c:\n    d:\n      e:\n        f:\n          g:',
      managed: {
        'apply-one': { apiVersion: 'v4', paths: [P('mapOfMapsRecursive')] },
        'apply-two': {
          apiVersion: 'v2',
          paths: [P('mapOfMapsRecursive', 'a'), P('mapOfMapsRecursive', 'c'), P('mapOfMapsRecursive', 'c', 'd')],
        },
        'controller-one': {
          apiVersion: 'v3',
          paths: [P('mapOfMapsRecursive', 'c', 'd', 'e'), P('mapOfMapsRecursive', 'c', 'd', 'e', 'f', 'g')],
        },
        'controller-two': { apiVersion: 'v2', paths: [P('mapOfMapsRecursive', 'c', 'd', 'e', 'f')] },
      },
    },
  ]);
});

describe('unsetting fields with several appliers (TestMultipleAppliersFieldUnsetting, one version)', () => {
  run(structV1, [
    {
      name: 'unset_scalar_sole_owner',
      ops: [apply('apply-one', 'struct:\n  name: a\n  scalarField_v1: a'), apply('apply-one', 'struct:\n  name: a')],
      object: 'struct:\n  name: a',
      managed: { 'apply-one': { apiVersion: 'v1', paths: [P('struct', 'name')] } },
    },
    {
      name: 'unset_scalar_shared_with_applier',
      ops: [
        apply('apply-one', 'struct:\n  name: a\n  scalarField_v1: a'),
        apply('apply-two', 'struct:\n  scalarField_v1: a'),
        apply('apply-one', 'struct:\n  name: a'),
      ],
      object: 'struct:\n  name: a\n  scalarField_v1: a',
      managed: {
        'apply-one': { apiVersion: 'v1', paths: [P('struct', 'name')] },
        'apply-two': { apiVersion: 'v1', paths: [P('struct', 'scalarField_v1')] },
      },
    },
    {
      name: 'unset_scalar_shared_with_updater',
      ops: [
        update('updater', 'struct:\n  name: a\n  scalarField_v1: a'),
        apply('applier', 'struct:\n  name: a\n  scalarField_v1: a'),
        apply('applier', 'struct:\n  name: a'),
      ],
      object: 'struct:\n  name: a\n  scalarField_v1: a',
      managed: {
        updater: {
          apiVersion: 'v1',
          paths: [P('struct'), P('struct', 'name'), P('struct', 'scalarField_v1')],
          applied: false,
        },
        applier: { apiVersion: 'v1', paths: [P('struct', 'name')], applied: true },
      },
    },
    {
      name: 'updater_claims_field',
      ops: [
        apply('applier', 'struct:\n  name: a\n  scalarField_v1: a'),
        update('updater', 'struct:\n  name: a\n  scalarField_v1: b'),
      ],
      object: 'struct:\n  name: a\n  scalarField_v1: b',
      managed: {
        updater: { apiVersion: 'v1', paths: [P('struct', 'scalarField_v1')] },
        applier: { apiVersion: 'v1', paths: [P('struct', 'name')] },
      },
    },
    {
      name: 'unset_complex_sole_owner',
      ops: [
        apply('apply-one', 'struct:\n  name: a\n  complexField_v1:\n    name: b'),
        apply('apply-one', 'struct:\n  name: a'),
      ],
      object: 'struct:\n  name: a',
      managed: { 'apply-one': { apiVersion: 'v1', paths: [P('struct', 'name')] } },
    },
    {
      name: 'unset_complex_shared_with_applier',
      ops: [
        apply('apply-one', 'struct:\n  name: a\n  complexField_v1:\n    name: b'),
        apply('apply-two', 'struct:\n  complexField_v1:\n    name: b'),
        apply('apply-one', 'struct:\n  name: a'),
      ],
      object: 'struct:\n  name: a\n  complexField_v1:\n    name: b',
      managed: {
        'apply-one': { apiVersion: 'v1', paths: [P('struct', 'name')] },
        'apply-two': { apiVersion: 'v1', paths: [P('struct', 'complexField_v1', 'name')] },
      },
    },
  ]);
});

describe('duplicates (duplicates_test.go)', () => {
  run(duplicates, [
    {
      name: 'sets/ownership/duplicates',
      ops: [update('updater-one', 'set: [1, 1, 3, 4]')],
      managed: {
        'updater-one': { apiVersion: 'v1', paths: [P('set'), P('set', V(1)), P('set', V(3)), P('set', V(4))] },
      },
    },
    {
      name: 'sets/ownership/add_duplicate',
      ops: [update('updater-one', 'set: [1, 3, 4]'), update('updater-two', 'set: [1, 1, 3, 4]')],
      managed: {
        'updater-one': { apiVersion: 'v1', paths: [P('set'), P('set', V(3)), P('set', V(4))] },
        'updater-two': { apiVersion: 'v1', paths: [P('set', V(1))] },
      },
    },
    {
      name: 'sets/ownership/remove_duplicate',
      ops: [update('updater-one', 'set: [1, 1, 3, 4]'), update('updater-two', 'set: [1, 3, 4]')],
      managed: {
        'updater-one': { apiVersion: 'v1', paths: [P('set'), P('set', V(3)), P('set', V(4))] },
        'updater-two': { apiVersion: 'v1', paths: [P('set', V(1))] },
      },
    },
    {
      name: 'sets/merging/remove_duplicate',
      ops: [
        update('updater', 'set: [1, 1, 3, 4]'),
        apply('applier', 'set: [1]', 'v1', [['updater', P('set', V(1))]]),
        forceApply('applier', 'set: [1]'),
      ],
      object: 'set: [1, 3, 4]',
      managed: {
        updater: { apiVersion: 'v1', paths: [P('set'), P('set', V(3)), P('set', V(4))] },
        applier: { apiVersion: 'v1', paths: [P('set', V(1))], applied: true },
      },
    },
    {
      name: 'sets/merging/ignore_duplicate',
      ops: [update('updater', 'set: [1, 1, 3, 4]'), apply('applier', 'set: [5]')],
      object: 'set: [1, 1, 3, 4, 5]',
      managed: {
        updater: { apiVersion: 'v1', paths: [P('set'), P('set', V(1)), P('set', V(3)), P('set', V(4))] },
        applier: { apiVersion: 'v1', paths: [P('set', V(5))] },
      },
    },
    {
      name: 'list/ownership/duplicated_items',
      ops: [update('updater', 'list:\n- name: a\n  value1: 1\n- name: a\n  value1: 2\n- name: b\n  value1: 3')],
      managed: {
        updater: {
          apiVersion: 'v1',
          paths: [
            P('list'),
            P('list', KBF('name', 'a')),
            P('list', KBF('name', 'b')),
            P('list', KBF('name', 'b'), 'name'),
            P('list', KBF('name', 'b'), 'value1'),
          ],
        },
      },
    },
    {
      name: 'list/ownership/change_duplicated_items',
      ops: [
        update('updater-one', 'list:\n- name: a\n  value1: 1\n- name: a\n  value1: 2\n- name: b\n  value1: 3'),
        update('updater-two', 'list:\n- name: a\n  value1: 1\n- name: a\n  value1: 3\n- name: b\n  value1: 3'),
      ],
      managed: {
        'updater-one': {
          apiVersion: 'v1',
          paths: [
            P('list'),
            P('list', KBF('name', 'b')),
            P('list', KBF('name', 'b'), 'name'),
            P('list', KBF('name', 'b'), 'value1'),
          ],
        },
        'updater-two': { apiVersion: 'v1', paths: [P('list', KBF('name', 'a'))] },
      },
    },
  ]);

  it('refuses an apply configuration with duplicate items', () => {
    expect(() => runOps(duplicates, [apply('applier', 'set: [1, 1]')])).toThrow(
      'failed to create typed patch object: .set: duplicate entries for key [=1]',
    );
  });
});

describe('deduced types (deduced_test.go, multiple_appliers_test.go, preserve_unknown_test.go)', () => {
  run(deducedType, [
    {
      name: 'multiple_appliers_recursive_map_deduced',
      ops: [
        apply('apply-one', 'a:\n  b:\nc:\n  d:'),
        apply('apply-two', 'a:\nc:\n  d:', 'v2'),
        update('controller-one', 'a:\n  b:\n    c:\nc:\n  d:\n    e:', 'v3'),
        update('controller-two', 'a:\n  b:\n    c:\n      d:\nc:\n  d:\n    e:\n      f:', 'v2'),
        update(
          'controller-one',
          'a:\n  b:\n    c:\n      d:\n        e:\nc:\n  d:\n    e:\n      f:\n        g:',
          'v3',
        ),
        apply('apply-one', '', 'v4'),
      ],
      object: 'a:\nc:\n  d:\n    e:\n      f:\n        g:',
      managed: {
        'apply-two': { apiVersion: 'v2', paths: [P('a'), P('c'), P('c', 'd')] },
        'controller-one': { apiVersion: 'v3', paths: [P('c', 'd', 'e'), P('c', 'd', 'e', 'f', 'g')] },
        'controller-two': { apiVersion: 'v2', paths: [P('c', 'd', 'e', 'f')] },
      },
    },
    {
      name: 'deduced lists are atomic: a conflict on the whole list',
      ops: [
        apply('one', 'list:\n- a\n- b'),
        apply('two', 'list:\n- a\n- c', 'v1', [['one', P('list')]]),
        forceApply('two', 'list:\n- a\n- c'),
      ],
      object: 'list:\n- a\n- c',
      managed: { two: { apiVersion: 'v1', paths: [P('list')] } },
    },
    {
      name: 'a deduced field turns from map to scalar',
      ops: [apply('one', 'a:\n  b: 1'), apply('one', 'a: 2')],
      object: 'a: 2',
      managed: { one: { apiVersion: 'v1', paths: [P('a')] } },
    },
  ]);

  run(preserveUnknown, [
    {
      name: 'preserve_unknown_fields',
      ops: [apply('default', 'num: 5\nunknown: value'), apply('default', 'num: 6\nunknown: new')],
      object: 'num: 6\nunknown: new',
      managed: { default: { apiVersion: 'v1', paths: [P('num'), P('unknown')] } },
    },
  ]);
});

describe('schema changes (schema_change_test.go)', () => {
  run(granularStruct, [
    {
      name: 'to-atomic',
      ops: [
        apply('one', 'struct:\n  numeric: 1'),
        changeType(atomicStruct),
        apply('two', 'struct:\n  string: "string"', 'v1', [['one', P('struct')]]),
        forceApply('two', 'struct:\n  string: "string"'),
      ],
      object: 'struct:\n  string: "string"',
      managed: { two: { apiVersion: 'v1', paths: [P('struct')], applied: true } },
    },
    {
      name: 'to-atomic-owner-with-no-child-fields',
      ops: [
        apply('one', 'struct:\n  numeric: 1'),
        forceApply('two', 'struct:\n  numeric: 2'),
        changeType(atomicStruct),
        apply('three', 'struct:\n  string: "string"', 'v1', [['two', P('struct')]]),
        forceApply('two', 'struct:\n  string: "string"'),
      ],
      object: 'struct:\n  string: "string"',
      managed: { two: { apiVersion: 'v1', paths: [P('struct')], applied: true } },
    },
  ]);
  run(atomicStruct, [
    {
      name: 'to-granular',
      ops: [
        apply('one', 'struct:\n  numeric: 1\n  string: "a"'),
        apply('two', 'struct:\n  string: "b"', 'v1', [['one', P('struct')]]),
        changeType(granularStruct),
        apply('two', 'struct:\n  string: "b"'),
      ],
      object: 'struct:\n  numeric: 1\n  string: "b"',
      managed: {
        one: { apiVersion: 'v1', paths: [P('struct')] },
        two: { apiVersion: 'v1', paths: [P('struct', 'string')] },
      },
    },
  ]);
});

describe('ignored fields (ignore_test.go)', () => {
  const ignoring = (...paths: Parameters<typeof P>[]) =>
    new Updater(deducedType, { ignoredFields: FieldSet.of(...paths.map((p) => P(...p))) });
  it.each<{ name: string; op: 'apply' | 'update'; object: string; ignore: string; owned: ReturnType<typeof P>[] }>([
    {
      name: 'update_does_not_own_ignored',
      op: 'update',
      object: 'numeric: 1\nstring: "some string"',
      ignore: 'string',
      owned: [P('numeric')],
    },
    {
      name: 'update_does_not_own_deep_ignored',
      op: 'update',
      object: '{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}',
      ignore: 'obj',
      owned: [P('numeric')],
    },
    {
      name: 'apply_does_not_own_ignored',
      op: 'apply',
      object: 'numeric: 1\nstring: "some string"',
      ignore: 'string',
      owned: [P('numeric')],
    },
    {
      name: 'apply_does_not_own_deep_ignored',
      op: 'apply',
      object: '{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}',
      ignore: 'obj',
      owned: [P('numeric')],
    },
  ])('$name', ({ op, object, ignore, owned }) => {
    const ops = [op === 'apply' ? apply('default', object) : update('default', object)];
    checkCase(
      deducedType,
      { name: '', ops, object, managed: { default: { apiVersion: 'v1', paths: owned, applied: op === 'apply' } } },
      ignoring([ignore]),
    );
  });

  it('lets another manager keep an ignored field the applier changes', () => {
    const u = ignoring(['status']);
    let state = runOps(deducedType, [update('controller', 'status:\n  ready: true')]);
    expect(state.managers.has('controller')).toBe(true);
    const r = u.apply(state.live, yamlObject('status:\n  ready: false\nspec: 1'), 'v1', state.managers, 'user', false);
    state = { live: r.object, managers: r.managers };
    expect(state.managers.get('controller')!.set.has(P('status', 'ready'))).toBe(true);
    expect(state.managers.get('user')!.set.toString()).toBe('.spec');
  });
});

describe("createdTask: update's answer for a create nobody owns anything of", () => {
  // [type, the object created, the ignored fields]
  const cases: Array<[TypeNode, string, string[]]> = [
    [leafFields, '{"numeric": 1, "string": "a", "bool": null}', []],
    [setFields, '{"list": ["b", "a", "b"]}', []],
    [associativeList, '{"list": [{"name": "a", "value": 1}, {"name": "b"}, {"name": "a", "value": 2}]}', []],
    [deducedType, '{"numeric": 1, "obj": {"string": "foo", "numeric": 2}, "list": [1, {"a": 2}]}', ['obj']],
    [deducedType, '{"spec": {"a": 1}, "status": {"ready": true}}', ['status']],
    [deducedType, '{"status": {"ready": true}}', ['status']],
    [deducedType, '{}', []],
  ];
  it.each(cases)('%#: %s ignoring %j', (type, text, ignore) => {
    const updater = new Updater(type, { ignoredFields: FieldSet.of(...ignore.map((f) => P(f))) });
    const object = yamlObject(text) as Record<string, unknown>;
    const created = runTask(updater.createdTask(object));
    const updated = updater.update({}, object, 'v1', new Map(), 'm').managers.get('m')?.set ?? new FieldSet();
    expect(created.toString()).toBe(updated.toString());
  });

  it('throws as update does', () => {
    const updater = new Updater(leafFields);
    const object = { numeric: 'x' };
    expect(() => runTask(updater.createdTask(object))).toThrow(
      expectThrown(() => updater.update({}, object, 'v1', new Map(), 'm')),
    );
  });
});

describe('apply details', () => {
  it('returns the live object untouched when an apply changes nothing', () => {
    const u = new Updater(leafFields);
    const first = u.apply(null, { numeric: 1 }, 'v1', new Map(), 'a', false);
    expect(first.changed).toBe(true);
    const live = { string: 'x', numeric: 1 };
    const again = u.apply(live, { numeric: 1 }, 'v1', first.managers, 'a', false);
    expect(again.changed).toBe(false);
    expect(again.object).toBe(live);
  });

  it('does not modify the managers map it is given', () => {
    const u = new Updater(leafFields);
    const managers = u.apply(null, { numeric: 1 }, 'v1', new Map(), 'a', false).managers;
    const before = managers.get('a')!.set.toString();
    u.apply({ numeric: 1 }, { numeric: 2, bool: true }, 'v1', managers, 'b', true);
    expect(managers.get('a')!.set.toString()).toBe(before);
    expect([...managers.keys()]).toEqual(['a']);
  });

  it("throws Conflicts listing managers in order with SMD's message", () => {
    const u = new Updater(leafFields);
    let managers = u.update(null, { numeric: 1 }, 'v1', new Map(), 'zeta').managers;
    managers = u.update({ numeric: 1 }, { numeric: 1, string: 's', bool: true }, 'v1', managers, 'alpha').managers;
    let caught: unknown;
    try {
      u.apply(
        { numeric: 1, string: 's', bool: true },
        { numeric: 2, string: 't', bool: false },
        'v1',
        managers,
        'applier',
        false,
      );
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Conflicts);
    const c = caught as Conflicts;
    expect(c.conflicts.map((x) => x.manager)).toEqual(['alpha', 'alpha', 'zeta']);
    expect(c.message).toBe('conflicts with "alpha":\n- .bool\n- .string\nconflicts with "zeta":\n- .numeric');
    expect(c.toSet().size()).toBe(3);
  });

  // With no other manager the comparison with the live object is skipped: it only acts on others.
  // A manager owning nothing makes the apply compare, and is dropped from the result, so the two
  // runs must agree.
  it.each<{ name: string; type: TypeNode; live: unknown; previous?: string; config: string; ignore?: string }>([
    { name: 'a create of nested lists and maps', type: nestedType, live: null, config: NESTED_CONFIG },
    { name: 'a create of a list-map', type: associativeList, live: {}, config: 'list:\n- name: a\n  value: 1' },
    {
      name: 'the sole applier again, dropping and changing fields',
      type: nestedType,
      live: undefined,
      previous: NESTED_CONFIG,
      config: 'listOfMaps:\n- name: a\n  value:\n    x: "2"\nstruct:\n  name: n',
    },
    {
      name: 'a create with an ignored field',
      type: deducedType,
      live: null,
      config: 'a: 1\nstatus: 2',
      ignore: 'status',
    },
  ])(
    'agrees with the comparison when no other manager owns fields: $name',
    ({ type, live, previous, config, ignore }) => {
      const u = new Updater(type, ignore ? { ignoredFields: FieldSet.of(P(ignore)) } : {});
      let managers = new Map<string, VersionedFieldSet>();
      if (previous !== undefined) {
        const first = u.apply(null, yamlObject(previous), 'v1', managers, 'applier', false);
        live = first.object;
        managers = first.managers;
      }
      const alone = u.apply(live, yamlObject(config), 'v1', managers, 'applier', false);
      const withIdle = new Map(managers).set('idle', { set: new FieldSet(), applied: false, apiVersion: 'v1' });
      const compared = u.apply(live, yamlObject(config), 'v1', withIdle, 'applier', false);
      expect(alone.object).toEqual(compared.object);
      expect(alone.changed).toBe(compared.changed);
      expect([...alone.managers.keys()]).toEqual([...compared.managers.keys()]);
      for (const [name, entry] of compared.managers) {
        const mine = alone.managers.get(name)!;
        expect({ ...mine, set: mine.set.toString() }).toEqual({ ...entry, set: entry.set.toString() });
      }
    },
  );

  it('an update never conflicts and takes the fields it changed', () => {
    const u = new Updater(leafFields);
    const applied = u.apply(null, { numeric: 1, string: 'a' }, 'v1', new Map(), 'applier', false);
    const r = u.update(applied.object, { numeric: 2, string: 'a' }, 'v1', applied.managers, 'kubectl-edit');
    expect(r.managers.get('applier')!.set.toString()).toBe('.string');
    expect(r.managers.get('kubectl-edit')!.set.toString()).toBe('.numeric');
    expect(r.managers.get('kubectl-edit')!.applied).toBe(false);
  });
});

describe('odd field names', () => {
  it('merges and prunes keys named like Object.prototype members', () => {
    const u = new Updater(deducedType);
    const first = u.apply(null, JSON.parse('{"__proto__":{"x":1},"constructor":2}'), 'v1', new Map(), 'a', false);
    expect(Object.keys(first.object as object)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(first.object)).toBe(Object.prototype);
    const second = u.apply(first.object, { constructor: 3 }, 'v1', first.managers, 'a', false);
    expect(JSON.stringify(second.object)).toBe('{"constructor":3}');
    expect(second.managers.get('a')!.set.toString()).toBe('.constructor');
  });
});

/** The message `fn` throws. */
function expectThrown(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('did not throw');
}
