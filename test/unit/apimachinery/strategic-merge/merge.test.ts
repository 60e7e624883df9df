// strategicMergePatch as the PATCH handler applies it: directives, kube's errors and the Status
// each becomes, documents that are not objects, hostile keys, inputs left alone, deep documents.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../apimachinery/errors.js';
import type { JsonObject, JsonValue } from '../../../../apimachinery/object.js';
import { goEqual, goEqualKey, goFormat } from '../../../../apimachinery/strategic-merge/go-format.js';
import { goSliceStable } from '../../../../apimachinery/strategic-merge/go-sort.js';
import { strategicMergePatch } from '../../../../apimachinery/strategic-merge/merge.js';
import { MERGE_ITEM } from './fixtures.js';

/** The ApiError a patch fails with. */
function failure(original: JsonObject, patch: unknown): ApiError {
  try {
    strategicMergePatch(original, patch, MERGE_ITEM);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('the patch applied');
}

describe('strategicMergePatch: request bodies that are not objects', () => {
  it.each([
    [[1], 'array'],
    ['x', 'string'],
    [1, 'number'],
    [true, 'bool'],
  ])('%j is a 400 from decoding', (patch, kind) => {
    const err = failure({ name: 'a' }, patch);
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`,
      reason: 'BadRequest',
      code: 400,
    });
  });

  it('null decodes to an empty map: nothing changes', () => {
    expect(strategicMergePatch({ name: 'a', mergingList: [{ name: 1 }] }, null, MERGE_ITEM)).toEqual({
      name: 'a',
      mergingList: [{ name: 1 }],
    });
  });
});

describe('strategicMergePatch: kube errors and their Status', () => {
  const badRequests: Array<[string, JsonObject, JsonObject, string]> = [
    [
      '$retainKeys that is not a list',
      { retainKeysMap: { name: 'a' } },
      { retainKeysMap: { $retainKeys: 'name' } },
      'invalid patch format of retainKeys',
    ],
    [
      'a patched field $retainKeys does not list',
      { retainKeysMap: { name: 'a' } },
      { retainKeysMap: { $retainKeys: ['name'], value: 'b' } },
      'invalid patch format of retainKeys',
    ],
    [
      '$deleteFromPrimitiveList without /field',
      { mergingIntList: [1] },
      { $deleteFromPrimitiveList: [1] },
      'invalid patch format of primitive list',
    ],
    [
      '$deleteFromPrimitiveList with a suffix before the slash',
      { mergingIntList: [1] },
      { '$deleteFromPrimitiveListX/mergingIntList': [1] },
      'invalid patch format of primitive list',
    ],
    [
      '$setElementOrder with a suffix before the slash',
      { mergingIntList: [1] },
      { '$setElementOrderX/mergingIntList': [1] },
      'invalid patch format of setElementOrder list',
    ],
  ];
  it.each(badRequests)('%s is a 400 BadRequest', (_name, original, patch, message) => {
    const err = failure(original, patch);
    expect(err.code).toBe(400);
    expect(err.status.reason).toBe('BadRequest');
    expect(err.status.message).toBe(message);
  });

  const plain: Array<[string, JsonObject, JsonObject, string]> = [
    [
      'a list item without its merge key',
      { mergingList: [{ name: 1, value: 'a' }] },
      { mergingList: [{ value: 'b' }] },
      'map: map[value:b] does not contain declared merge key: name',
    ],
    [
      'a delete directive without the merge key',
      { mergingList: [{ name: 1 }] },
      { mergingList: [{ $patch: 'delete' }] },
      'map: map[$patch:delete] does not contain declared merge key: name',
    ],
    [
      '$patch: merge in a map',
      { simpleMap: { a: 'b' } },
      { simpleMap: { $patch: 'merge', c: 'd' } },
      'unknown patch type: merge in map: map[$patch:merge c:d]',
    ],
    [
      'an unknown $patch in a map',
      { simpleMap: { a: 'b' } },
      { simpleMap: { $patch: 'nope' } },
      'unknown patch type: nope in map: map[$patch:nope]',
    ],
    [
      'a $patch that is not a string',
      { simpleMap: { a: 'b' } },
      { simpleMap: { $patch: 5 } },
      'unknown patch type: %!s(int64=5) in map: map[$patch:5]',
    ],
    [
      '$patch: merge in a list',
      { mergingList: [{ name: 1 }] },
      { mergingList: [{ name: 1, $patch: 'merge' }] },
      'merging lists cannot yet be specified in the patch',
    ],
    [
      'an unknown $patch in a list',
      { mergingList: [{ name: 1 }] },
      { mergingList: [{ name: 1, $patch: 'nope' }] },
      'unknown patch type: nope in map: map[$patch:nope name:1]',
    ],
    [
      'a $setElementOrder that is not a list',
      { mergingIntList: [1] },
      { '$setElementOrder/mergingIntList': 'x' },
      'expected a []interface {}, but received a string',
    ],
    [
      'a $setElementOrder on a field that is not a list',
      { mergingIntList: 'x' },
      { '$setElementOrder/mergingIntList': [1] },
      'expected a []interface {}, but received a string',
    ],
    [
      'a $setElementOrder on an empty list',
      { mergingIntList: [] },
      { '$setElementOrder/mergingIntList': [] },
      'no elements in any of the given slices',
    ],
    [
      'a merging list of mixed element types',
      { mergingIntList: [1] },
      { mergingIntList: ['a'] },
      'list element types are not identical: [[1] [a]]',
    ],
    [
      'a merging list of maps without a merge key',
      { mergingIntList: [{ a: 1 }] },
      { mergingIntList: [{ a: 2 }] },
      'cannot merge lists without merge key for string',
    ],
    [
      'a $setElementOrder of scalars for a list of maps',
      { mergingList: [{ name: 1 }] },
      { '$setElementOrder/mergingList': [2] },
      'value for key 0 is not a map',
    ],
    [
      "a later patch item after a null merge key deleted the live item's",
      { mergingList: [{ name: null, value: 'v' }] },
      { mergingList: [{ name: null }, { name: null, value: 'w' }] },
      'map: map[value:v] does not contain declared merge key: name',
    ],
    [
      'a patch list out of $setElementOrder order',
      { mergingList: [{ name: 1 }, { name: 3 }, { name: 2 }] },
      {
        '$setElementOrder/mergingList': [{ name: 1 }, { name: 2 }, { name: 3 }],
        mergingList: [
          { name: 3, value: 3 },
          { name: 1, value: 1 },
        ],
      },
      "The order in patch list:\n[map[name:3 value:3] map[name:1 value:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n",
    ],
  ];
  // kube answers these as plain Go errors (500 without a reason); they are the patch's faults: 400.
  it.each(plain)("%s is a 400 with kube's text", (_name, original, patch, message) => {
    const err = failure(original, patch);
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'BadRequest',
      code: 400,
    });
  });

  it('a merging list of lists is a 422 with NewGenericServerResponse text', () => {
    const err = failure({ mergingIntList: [[1]] }, { mergingIntList: [[2]] });
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
  });

  it('a list of lists without strategy merge is just replaced', () => {
    expect(strategicMergePatch({ nonMergingIntList: [[1]] }, { nonMergingIntList: [[2]] }, MERGE_ITEM)).toEqual({
      nonMergingIntList: [[2]],
    });
  });
});

describe('strategicMergePatch: directives and strategies', () => {
  const cases: Array<[string, JsonObject, JsonObject, JsonObject]> = [
    [
      'a map field with strategy replace is replaced',
      { replacingItem: { a: 1, b: 2 } },
      { replacingItem: { c: 3 } },
      { replacingItem: { c: 3 } },
    ],
    [
      '$patch: replace in a nested map replaces it',
      { simpleMap: { a: '1', b: '2' } },
      { simpleMap: { $patch: 'replace', c: '3' } },
      { simpleMap: { c: '3' } },
    ],
    ['$patch: delete at the top empties the object', { name: 'a', value: 'b' }, { $patch: 'delete' }, {}],
    [
      '$patch: replace among list items replaces the list with the others',
      { mergingList: [{ name: 1 }, { name: 2 }] },
      { mergingList: [{ name: 3 }, { $patch: 'replace' }] },
      { mergingList: [{ name: 3 }] },
    ],
    [
      'a list without strategy is replaced',
      { nonMergingList: [{ name: 1, value: 'a' }] },
      { nonMergingList: [{ name: 1 }] },
      { nonMergingList: [{ name: 1 }] },
    ],
    [
      'new list-of-map items are appended after the live ones they do not name',
      { mergingList: [{ name: 'a' }, { name: 'b' }] },
      { mergingList: [{ name: 'c' }] },
      { mergingList: [{ name: 'c' }, { name: 'a' }, { name: 'b' }] },
    ],
    [
      'a new scalar goes first unless a live one precedes its patch neighbour',
      { mergingIntList: [1, 2, 3] },
      { mergingIntList: [4, 2] },
      { mergingIntList: [4, 1, 2, 3] },
    ],
    [
      'a delete list removes from a list without strategy too',
      { nonMergingIntList: [1, 2, 3] },
      { '$deleteFromPrimitiveList/nonMergingIntList': [1, 3] },
      { nonMergingIntList: [2] },
    ],
    [
      'a delete list for a missing field adds nothing',
      { name: 'a' },
      { '$deleteFromPrimitiveList/mergingIntList': [1] },
      { name: 'a' },
    ],
    [
      'a value that changes type replaces the old one',
      { simpleMap: 'x' },
      { simpleMap: { a: 'b' } },
      { simpleMap: { a: 'b' } },
    ],
    ['a null for an absent field is dropped', { name: 'a' }, { value: null }, { name: 'a' }],
    [
      'a new subtree loses its nulls and directive maps',
      {},
      {
        simpleMap: { a: null, b: '1', c: { $patch: 'delete' } },
        mergingList: [{ name: 1, x: null }, { $patch: 'replace' }],
      },
      { simpleMap: { b: '1' }, mergingList: [{ name: 1 }] },
    ],
    [
      'a new field holding only a directive map is not added',
      { name: 'a' },
      { simpleMap: { $patch: 'replace', a: '1' } },
      { name: 'a' },
    ],
    [
      'a value replacing another type loses its nulls',
      { simpleMap: 'x' },
      { simpleMap: { a: null, b: '1' } },
      { simpleMap: { b: '1' } },
    ],
    [
      '$retainKeys clears live fields it does not list',
      { retainKeysMap: { name: 'a', value: 'b', other: 'c' } },
      { retainKeysMap: { $retainKeys: ['name', 'other'], other: 'd' } },
      { retainKeysMap: { name: 'a', other: 'd' } },
    ],
    [
      'fields outside the schema merge as maps',
      { unknown: { a: 1, b: 2 } },
      { unknown: { b: null, c: 3 } },
      { unknown: { a: 1, c: 3 } },
    ],
    [
      'fields outside the schema replace as lists',
      { unknown: [{ name: 1 }, { name: 2 }] },
      { unknown: [{ name: 3 }] },
      { unknown: [{ name: 3 }] },
    ],
    [
      'duplicate scalars merge to one each, in patch and live order',
      { mergingIntList: [3, 1, 2, 3, 1] },
      { mergingIntList: [2, 4, 4, 1] },
      { mergingIntList: [3, 2, 4, 1] },
    ],
    [
      'an item appended after deletions takes a slot they freed, and orders by it',
      { mergingList: [{ name: 1 }, { name: 2 }, { name: 1 }, { name: 3 }] },
      {
        '$setElementOrder/mergingList': [{ name: 5 }, { name: 3 }],
        mergingList: [{ name: 1, $patch: 'delete' }, { name: 5 }],
      },
      { mergingList: [{ name: 2 }, { name: 5 }, { name: 3 }] },
    ],
    [
      'deletions of repeated values, then $setElementOrder',
      { mergingList: [{ name: 1 }, { name: 2 }, { name: 1 }, { name: 3 }, { name: 2 }, { name: 4 }] },
      {
        '$setElementOrder/mergingList': [{ name: 4 }, { name: 3 }],
        mergingList: [
          { name: 2, $patch: 'delete' },
          { name: 1, $patch: 'delete' },
        ],
      },
      { mergingList: [{ name: 4 }, { name: 3 }] },
    ],
  ];
  it.each(cases)('%s', (_name, original, patch, result) => {
    expect(strategicMergePatch(original, patch, MERGE_ITEM)).toStrictEqual(result);
  });

  it('leaves both inputs unchanged', () => {
    const original: JsonObject = { mergingList: [{ name: 1, value: 'a' }, { name: 2 }], simpleMap: { a: '1' } };
    const patch: JsonObject = {
      '$setElementOrder/mergingList': [{ name: 3 }, { name: 1 }],
      mergingList: [
        { name: 2, $patch: 'delete' },
        { name: 3, x: null },
      ],
      simpleMap: { $patch: 'replace' },
    };
    const before = JSON.stringify([original, patch]);
    strategicMergePatch(original, patch, MERGE_ITEM);
    expect(JSON.stringify([original, patch])).toBe(before);
  });

  it('keeps __proto__ as data', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "simpleMap": {"__proto__": {"x": 1}}}') as JsonObject;
    const out = strategicMergePatch(
      { simpleMap: JSON.parse('{"__proto__": {"y": 2}}') as JsonValue },
      patch,
      MERGE_ITEM,
    );
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe('{"simpleMap":{"__proto__":{"y":2,"x":1}},"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('strategicMergePatch: documents 10,000 levels deep', () => {
  const DEPTH = 10000;
  const nested = (levels: number, leaf: JsonValue): JsonValue => {
    let v = leaf;
    for (let i = 0; i < levels; i++) v = { a: v };
    return v;
  };
  const leafOf = (v: JsonValue): JsonValue => {
    let cur = v;
    for (let i = 0; i < DEPTH; i++) cur = (cur as JsonObject).a!;
    return cur;
  };

  it('merges maps nested 10,000 deep', () => {
    const out = strategicMergePatch(
      { deep: nested(DEPTH, { x: 1, y: 2 }) },
      { deep: nested(DEPTH, { y: null, z: 3 }) },
      MERGE_ITEM,
    );
    expect(leafOf(out.deep!)).toEqual({ x: 1, z: 3 });
  });

  it('cleans a new subtree nested 10,000 deep', () => {
    const out = strategicMergePatch(
      {},
      { deep: nested(DEPTH, { gone: null, kept: 1, dropped: { $patch: 'delete' } }) },
      MERGE_ITEM,
    );
    expect(leafOf(out.deep!)).toEqual({ kept: 1 });
  });

  it('merges list items nested 10,000 deep', () => {
    let original: JsonValue = { name: 'leaf', v: 1 };
    let patch: JsonValue = { name: 'leaf', w: 2 };
    for (let i = 0; i < DEPTH; i++) {
      original = { name: i, mergingList: [original] };
      patch = { name: i, mergingList: [patch] };
    }
    const out = strategicMergePatch({ mergingList: [original] }, { mergingList: [patch] }, MERGE_ITEM);
    let cur = (out.mergingList as JsonValue[])[0] as JsonObject;
    for (let i = 0; i < DEPTH; i++) cur = (cur.mergingList as JsonValue[])[0] as JsonObject;
    expect(cur).toEqual({ name: 'leaf', v: 1, w: 2 });
  });

  it('prints a 10,000-deep item in an error', () => {
    const err = failure({ mergingList: [{ name: 1 }] }, { mergingList: [{ value: nested(DEPTH, 1) }] });
    expect(err.code).toBe(400);
    expect(err.status.message.startsWith('map: map[value:map[a:map[a:')).toBe(true);
    expect(
      err.status.message.endsWith(
        `${'a:'.repeat(0)}1${']'.repeat(DEPTH + 1)} does not contain declared merge key: name`,
      ),
    ).toBe(true);
  });
});

describe("Go's formatting and sorting", () => {
  it('prints values as fmt %v does', () => {
    expect(goFormat({ b: [1, 'x', null, true, 1.5], a: {} })).toBe('map[a:map[] b:[1 x <nil> true 1.5]]');
    expect(goFormat(1234567.5)).toBe('1.2345675e+06');
    expect(goFormat(0.00001)).toBe('1e-05');
    expect(goFormat(123456.5)).toBe('123456.5');
    expect(goFormat(9007199254740993n as unknown as JsonValue)).toBe('9007199254740993');
  });

  it('prints values as fmt %s does', () => {
    expect(goFormat(5, 's')).toBe('%!s(int64=5)');
    expect(goFormat(true, 's')).toBe('%!s(bool=true)');
    expect(goFormat(null, 's')).toBe('%!s(<nil>)');
    expect(goFormat(['a', 1.5], 's')).toBe('[a %!s(float64=1.5)]');
  });

  it('keys scalars exactly as == relates them, and maps and slices not at all', () => {
    const values: Array<JsonValue | undefined> = [
      undefined,
      null,
      0,
      -0,
      1,
      1.5,
      2 ** 53 + 2,
      2 ** 62,
      4611686018427387904n as unknown as JsonValue,
      2 ** 63,
      'a',
      '1',
      'i1',
      true,
      'true',
      {},
      [],
      { a: 1 },
    ];
    for (const a of values) {
      for (const b of values) {
        const ka = goEqualKey(a);
        expect(ka !== undefined && ka === goEqualKey(b), `${String(a)} vs ${String(b)}`).toBe(goEqual(a, b));
      }
    }
  });

  it('sorts stably, as sort.SliceStable does, past its 20-item blocks', () => {
    const items = Array.from({ length: 137 }, (_, i) => ({ key: (i * 37) % 11, at: i }));
    const ours = items.slice();
    goSliceStable(ours, (i, j) => ours[i]!.key < ours[j]!.key);
    expect(ours).toEqual(items.slice().sort((x, y) => x.key - y.key));
  });
});
