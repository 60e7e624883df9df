import { describe, expect, it } from 'vitest';
import { ApiError, type Status } from '../../../../../apimachinery/errors.js';
import {
  JsonPatchError,
  type JsonPatchOperation,
  MAX_JSON_PATCH_OPERATIONS,
  applyJsonPatch,
  applyJsonPatchOperations,
  decodeJsonPatch,
} from '../../../../../server/endpoints/patch/json-patch.js';
import type { JsonValue } from '../../../../../apimachinery/object.js';

const parse = (s: string): JsonValue => JSON.parse(s) as JsonValue;
const ops = (s: string): JsonPatchOperation[] => JSON.parse(s) as JsonPatchOperation[];

/** The error a call throws, or undefined. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

function statusOf(fn: () => unknown): Status {
  const err = thrown(fn);
  expect(err).toBeInstanceOf(ApiError);
  return (err as ApiError).status;
}

describe('RFC 6902 appendix A', () => {
  it.each([
    [
      'A.1 adding an object member',
      '{"foo":"bar"}',
      '[{"op":"add","path":"/baz","value":"qux"}]',
      '{"baz":"qux","foo":"bar"}',
    ],
    [
      'A.2 adding an array element',
      '{"foo":["bar","baz"]}',
      '[{"op":"add","path":"/foo/1","value":"qux"}]',
      '{"foo":["bar","qux","baz"]}',
    ],
    ['A.3 removing an object member', '{"baz":"qux","foo":"bar"}', '[{"op":"remove","path":"/baz"}]', '{"foo":"bar"}'],
    [
      'A.4 removing an array element',
      '{"foo":["bar","qux","baz"]}',
      '[{"op":"remove","path":"/foo/1"}]',
      '{"foo":["bar","baz"]}',
    ],
    [
      'A.5 replacing a value',
      '{"baz":"qux","foo":"bar"}',
      '[{"op":"replace","path":"/baz","value":"boo"}]',
      '{"baz":"boo","foo":"bar"}',
    ],
    [
      'A.6 moving a value',
      '{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}',
      '[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]',
      '{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}',
    ],
    [
      'A.7 moving an array element',
      '{"foo":["all","grass","cows","eat"]}',
      '[{"op":"move","from":"/foo/1","path":"/foo/3"}]',
      '{"foo":["all","cows","eat","grass"]}',
    ],
    [
      'A.8 testing a value: success',
      '{"baz":"qux","foo":["a",2,"c"]}',
      '[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]',
      '{"baz":"qux","foo":["a",2,"c"]}',
    ],
    [
      'A.10 adding a nested member object',
      '{"foo":"bar"}',
      '[{"op":"add","path":"/child","value":{"grandchild":{}}}]',
      '{"foo":"bar","child":{"grandchild":{}}}',
    ],
    [
      'A.11 ignoring unrecognized elements',
      '{"foo":"bar"}',
      '[{"op":"add","path":"/baz","value":"qux","xyz":123}]',
      '{"foo":"bar","baz":"qux"}',
    ],
    ['A.14 ~ escape ordering', '{"/":9,"~1":10}', '[{"op":"test","path":"/~01","value":10}]', '{"/":9,"~1":10}'],
    [
      'A.16 adding an array value',
      '{"foo":["bar"]}',
      '[{"op":"add","path":"/foo/-","value":["abc","def"]}]',
      '{"foo":["bar",["abc","def"]]}',
    ],
  ])('%s', (_name, doc, patch, want) => {
    expect(applyJsonPatchOperations(parse(doc), ops(patch))).toEqual(parse(want));
  });

  it.each([
    [
      'A.9 testing a value: error',
      '{"baz":"qux"}',
      '[{"op":"test","path":"/baz","value":"bar"}]',
      'testing value /baz failed: test failed',
    ],
    [
      'A.12 adding to a nonexistent target',
      '{"foo":"bar"}',
      '[{"op":"add","path":"/baz/bat","value":"qux"}]',
      'add operation does not apply: doc is missing path: "/baz/bat": missing value',
    ],
    // JSON.parse keeps the last "op" of A.13's document, which then removes a missing member.
    [
      'A.13 invalid JSON patch document',
      '{"foo":"bar"}',
      '[{"op":"add","path":"/baz","value":"qux","op":"remove"}]',
      "error in remove for path: '/baz': Unable to remove nonexistent key: baz: missing value",
    ],
    [
      'A.15 comparing strings and numbers',
      '{"/":9,"~1":10}',
      '[{"op":"test","path":"/~01","value":"10"}]',
      'testing value /~01 failed: test failed',
    ],
  ])('%s', (_name, doc, patch, message) => {
    const err = thrown(() => applyJsonPatchOperations(parse(doc), ops(patch)));
    expect(err).toBeInstanceOf(JsonPatchError);
    expect((err as Error).message).toBe(message);
  });
});

describe('RFC 6901 section 5 pointers', () => {
  const doc = parse('{"foo":["bar","baz"],"":0,"a/b":1,"c%d":2,"e^f":3,"g|h":4,"i\\\\j":5,"k\\"l":6," ":7,"m~n":8}');
  it.each([
    ['', doc],
    ['/foo', ['bar', 'baz']],
    ['/foo/0', 'bar'],
    ['/', 0],
    ['/a~1b', 1],
    ['/c%d', 2],
    ['/e^f', 3],
    ['/g|h', 4],
    ['/i\\j', 5],
    ['/k"l', 6],
    ['/ ', 7],
    ['/m~0n', 8],
  ])('%j', (path, value) => {
    expect(applyJsonPatchOperations(doc, [{ op: 'test', path, value }])).toEqual(doc);
    expect(thrown(() => applyJsonPatchOperations(doc, [{ op: 'test', path, value: 'other' }]))).toBeInstanceOf(
      JsonPatchError,
    );
  });
});

describe('json-patch v4 behaviour kube inherits', () => {
  it.each([
    ['replace adds a missing member', '{"a":1}', '[{"op":"replace","path":"/b","value":2}]', '{"a":1,"b":2}'],
    [
      'replace of an element',
      '{"a":[1,2]}',
      '[{"op":"replace","path":"/a/1","value":{"x":null}}]',
      '{"a":[1,{"x":null}]}',
    ],
    ['replace of the whole document', '{"a":1}', '[{"op":"replace","path":"","value":{"b":2}}]', '{"b":2}'],
    [
      'copy from a missing member copies null',
      '{"a":{}}',
      '[{"op":"copy","from":"/a/x","path":"/b"}]',
      '{"a":{},"b":null}',
    ],
    [
      'copy of an object is independent',
      '{"a":{"x":1}}',
      '[{"op":"copy","from":"/a","path":"/b"},{"op":"replace","path":"/b/x","value":2}]',
      '{"a":{"x":1},"b":{"x":2}}',
    ],
    ['test of a missing member against null', '{"a":1}', '[{"op":"test","path":"/b","value":null}]', '{"a":1}'],
    ['test of a missing member without value', '{"a":1}', '[{"op":"test","path":"/b"}]', '{"a":1}'],
    ['test of a null member against null', '{"a":null}', '[{"op":"test","path":"/a","value":null}]', '{"a":null}'],
    [
      'test of objects ignores member order',
      '{"a":{"x":1,"y":[1,{"z":2}]}}',
      '[{"op":"test","path":"/a","value":{"y":[1,{"z":2}],"x":1}}]',
      '{"a":{"x":1,"y":[1,{"z":2}]}}',
    ],
    ['add without value adds null', '{}', '[{"op":"add","path":"/a"}]', '{"a":null}'],
    ['add replaces an existing member', '{"a":1}', '[{"op":"add","path":"/a","value":2}]', '{"a":2}'],
    ['add at the end index', '{"a":[1]}', '[{"op":"add","path":"/a/1","value":2}]', '{"a":[1,2]}'],
    ['add at -1 appends', '{"a":[1,2]}', '[{"op":"add","path":"/a/-1","value":3}]', '{"a":[1,2,3]}'],
    ['add at -3 inserts first', '{"a":[1,2]}', '[{"op":"add","path":"/a/-3","value":0}]', '{"a":[0,1,2]}'],
    ['remove at -1', '{"a":[1,2]}', '[{"op":"remove","path":"/a/-1"}]', '{"a":[1]}'],
    ['replace at -1', '{"a":[1,2]}', '[{"op":"replace","path":"/a/-1","value":9}]', '{"a":[1,9]}'],
    ['test at -2', '{"a":[1,2]}', '[{"op":"test","path":"/a/-2","value":1}]', '{"a":[1,2]}'],
    [
      'Atoi accepts a sign and leading zeros',
      '{"a":[1,2]}',
      '[{"op":"add","path":"/a/+1","value":"x"},{"op":"remove","path":"/a/00"}]',
      '{"a":["x",2]}',
    ],
    ['the first segment is not looked at', '{"x":1}', '[{"op":"add","path":"a/b","value":2}]', '{"x":1,"b":2}'],
    ['other ~ escapes stay as they are', '{}', '[{"op":"add","path":"/a~2b","value":1}]', '{"a~2b":1}'],
    [
      'through arrays and objects',
      '{"a":[{"b":[0]}]}',
      '[{"op":"add","path":"/a/0/b/-","value":1}]',
      '{"a":[{"b":[0,1]}]}',
    ],
    ['move within an array', '{"a":[1,2,3]}', '[{"op":"move","from":"/a/0","path":"/a/-"}]', '{"a":[2,3,1]}'],
    ['move to the same place', '{"a":1}', '[{"op":"move","from":"/a","path":"/a"}]', '{"a":1}'],
    [
      'operations apply in order',
      '{}',
      '[{"op":"add","path":"/a","value":[]},{"op":"add","path":"/a/-","value":1},{"op":"copy","from":"/a","path":"/b"}]',
      '{"a":[1],"b":[1]}',
    ],
    ['an empty patch', '{"a":1}', '[]', '{"a":1}'],
  ])('%s', (_name, doc, patch, want) => {
    expect(applyJsonPatchOperations(parse(doc), ops(patch))).toEqual(parse(want));
  });

  it.each([
    [
      'replace of a missing element',
      '{"a":[1]}',
      '[{"op":"replace","path":"/a/1","value":2}]',
      'replace operation does not apply: doc is missing key: /a/1: missing value',
    ],
    [
      'replace of the document with a scalar',
      '{}',
      '[{"op":"replace","path":"","value":1}]',
      'replace operation value must be object or array: %!w(<nil>)',
    ],
    [
      'add to the empty path',
      '{}',
      '[{"op":"add","path":"","value":{}}]',
      'add operation does not apply: doc is missing path: "": missing value',
    ],
    [
      'add past the end',
      '{"a":[1]}',
      '[{"op":"add","path":"/a/2","value":2}]',
      "error in add for path: '/a/2': Unable to access invalid index: 2: invalid index referenced",
    ],
    [
      'add before the start',
      '{"a":[1]}',
      '[{"op":"add","path":"/a/-3","value":2}]',
      "error in add for path: '/a/-3': Unable to access invalid index: -3: invalid index referenced",
    ],
    [
      'add at a word index',
      '{"a":[1]}',
      '[{"op":"add","path":"/a/x","value":2}]',
      "error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: parsing \"x\": invalid syntax",
    ],
    [
      'remove of a missing member',
      '{"a":1}',
      '[{"op":"remove","path":"/x"}]',
      "error in remove for path: '/x': Unable to remove nonexistent key: x: missing value",
    ],
    [
      'remove past the end',
      '{"a":[1]}',
      '[{"op":"remove","path":"/a/1"}]',
      "error in remove for path: '/a/1': Unable to access invalid index: 1: invalid index referenced",
    ],
    [
      'remove of "-"',
      '{"a":[1]}',
      '[{"op":"remove","path":"/a/-"}]',
      'error in remove for path: \'/a/-\': strconv.Atoi: parsing "-": invalid syntax',
    ],
    [
      'a path through null',
      '{"a":null}',
      '[{"op":"add","path":"/a/b","value":1}]',
      'add operation does not apply: doc is missing path: "/a/b": missing value',
    ],
    [
      'a path through a scalar',
      '{"a":1}',
      '[{"op":"add","path":"/a/b","value":1}]',
      'add operation does not apply: doc is missing path: "/a/b": missing value',
    ],
    [
      'a path without a slash',
      '{}',
      '[{"op":"add","path":"abc","value":1}]',
      'add operation does not apply: doc is missing path: "abc": missing value',
    ],
    [
      'test of a missing member against a value',
      '{}',
      '[{"op":"test","path":"/a","value":1}]',
      'testing value /a failed: test failed',
    ],
    [
      'test of a member without value',
      '{"a":1}',
      '[{"op":"test","path":"/a"}]',
      'testing value /a failed: test failed',
    ],
    [
      'test of an object with an extra member',
      '{"a":{"x":1}}',
      '[{"op":"test","path":"/a","value":{"x":1,"y":2}}]',
      'testing value /a failed: test failed',
    ],
    [
      'test of an array prefix',
      '{"a":[1,2]}',
      '[{"op":"test","path":"/a","value":[1]}]',
      'testing value /a failed: test failed',
    ],
    [
      'test of the whole document',
      '{"a":1}',
      '[{"op":"test","path":"","value":{"a":2}}]',
      'testing value  failed: test failed',
    ],
    [
      'move from a missing member',
      '{}',
      '[{"op":"move","from":"/a","path":"/b"}]',
      "error in move for path: 'a': Unable to remove nonexistent key: a: missing value",
    ],
    [
      'move into its own child',
      '{"a":{}}',
      '[{"op":"move","from":"/a","path":"/a/b"}]',
      'move operation does not apply: doc is missing destination path: /a/b: missing value',
    ],
    [
      'move without from',
      '{}',
      '[{"op":"move","path":"/b"}]',
      'move operation failed to decode from: operation, missing from field: missing value',
    ],
    [
      'copy without path',
      '{"a":1}',
      '[{"op":"copy","from":"/a"}]',
      'copy operation failed to decode path: missing value',
    ],
    [
      'replace without path',
      '{"a":1}',
      '[{"op":"replace","value":1}]',
      'replace operation failed to decode path: operation missing path field: missing value',
    ],
    ['an unknown op', '{}', '[{"op":"ADD","path":"/a","value":1}]', 'Unexpected kind: ADD'],
    ['no op', '{}', '[{"path":"/a","value":1}]', 'Unexpected kind: unknown'],
    [
      'a later operation fails',
      '{}',
      '[{"op":"add","path":"/a","value":1},{"op":"test","path":"/a","value":2}]',
      'testing value /a failed: test failed',
    ],
  ])('%s', (_name, doc, patch, message) => {
    const err = thrown(() => applyJsonPatchOperations(parse(doc), ops(patch)));
    expect(err).toBeInstanceOf(JsonPatchError);
    expect((err as Error).message).toBe(message);
  });

  it('caps the bytes that copies add', () => {
    const doc = parse('{"a":"xxxx"}');
    const copy = ops('[{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"}]');
    expect(applyJsonPatchOperations(doc, copy, 12)).toEqual(parse('{"a":"xxxx","b":"xxxx","c":"xxxx"}'));
    const err = thrown(() => applyJsonPatchOperations(doc, copy, 11));
    expect((err as Error).message).toBe(
      'Unable to complete the copy, the accumulated size increase of copy is 12, exceeding the limit 11',
    );
    // json-patch counts nothing for a null (its nil node), present or missing.
    expect(
      applyJsonPatchOperations(
        parse('{"n":null}'),
        ops('[{"op":"copy","from":"/n","path":"/m"},{"op":"copy","from":"/x","path":"/y"}]'),
        1,
      ),
    ).toEqual(parse('{"n":null,"m":null,"y":null}'));
  });

  it('never modifies the document, even when an operation fails', () => {
    const doc = parse('{"a":{"b":[1,2]}}');
    const before = structuredClone(doc);
    applyJsonPatchOperations(doc, ops('[{"op":"remove","path":"/a/b/0"},{"op":"add","path":"/a/c","value":1}]'));
    thrown(() =>
      applyJsonPatchOperations(doc, ops('[{"op":"remove","path":"/a/b/0"},{"op":"test","path":"/x","value":1}]')),
    );
    expect(doc).toEqual(before);
  });

  it('keeps __proto__ a plain member', () => {
    const out = applyJsonPatchOperations(
      parse('{}'),
      ops('[{"op":"add","path":"/__proto__","value":{"polluted":true}},{"op":"copy","from":"/__proto__","path":"/x"}]'),
    );
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"x":{"polluted":true}}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('applyJsonPatch: kube status codes', () => {
  const cr = parse(
    '{"apiVersion":"cache.example.com/v1","kind":"Cache","metadata":{"name":"web","resourceVersion":"7"},"spec":{"size":1}}',
  );

  it('applies kubectl patch --type=json', () => {
    const out = applyJsonPatch(
      cr,
      JSON.parse(
        '[{"op":"replace","path":"/spec/size","value":3},{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]',
      ),
    );
    expect(out).toEqual(
      parse(
        '{"apiVersion":"cache.example.com/v1","kind":"Cache","metadata":{"name":"web","resourceVersion":"7","labels":{"a":"b"}},"spec":{"size":3}}',
      ),
    );
  });

  it('treats a null body as no operations', () => {
    expect(applyJsonPatch(cr, null)).toEqual(cr);
  });

  it.each([
    { name: 'an object', body: { op: 'add' }, detail: 'object into Go value of type []handlers.jsonPatchOp' },
    { name: 'a string', body: 'x', detail: 'string into Go value of type []handlers.jsonPatchOp' },
    { name: 'a number element', body: [1], detail: 'number into Go value of type handlers.jsonPatchOp' },
    { name: 'a list element', body: [[]], detail: 'array into Go value of type handlers.jsonPatchOp' },
    {
      name: 'a numeric op',
      body: [{ op: 1, path: '/a' }],
      detail: 'number into Go struct field jsonPatchOp.op of type string',
    },
    {
      name: 'a boolean path',
      body: [{ op: 'add', path: true }],
      detail: 'bool into Go struct field jsonPatchOp.path of type string',
    },
    {
      name: 'an object from',
      body: [
        { op: 'add', path: '/a', value: 1 },
        { from: {}, op: 1 },
      ],
      detail: 'object into Go struct field jsonPatchOp.from of type string',
    },
  ])('400 for $name', ({ body, detail }) => {
    expect(statusOf(() => applyJsonPatch(cr, body))).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `error decoding patch: json: cannot unmarshal ${detail}`,
      reason: 'BadRequest',
      code: 400,
    });
  });

  it(`413 beyond ${MAX_JSON_PATCH_OPERATIONS} operations`, () => {
    const test = { op: 'test', path: '/spec/size', value: 1 };
    expect(
      applyJsonPatch(
        cr,
        Array.from({ length: MAX_JSON_PATCH_OPERATIONS }, () => test),
      ),
    ).toEqual(cr);
    expect(
      statusOf(() =>
        applyJsonPatch(
          cr,
          Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => test),
        ),
      ),
    ).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
      reason: 'RequestEntityTooLarge',
      code: 413,
    });
  });

  it('decodes before it counts', () => {
    const body = [...Array.from({ length: MAX_JSON_PATCH_OPERATIONS }, () => ({ op: 'test', path: '/a' })), 5];
    expect(statusOf(() => applyJsonPatch(cr, body)).code).toBe(400);
  });

  it.each([
    { name: 'a failed test', body: [{ op: 'test', path: '/spec/size', value: 2 }] },
    { name: 'a missing path', body: [{ op: 'add', path: '/spec/a/b', value: 2 }] },
    { name: 'a null operation', body: [null] },
    {
      name: 'a resourceVersion test that fails',
      body: [{ op: 'test', path: '/metadata/resourceVersion', value: '6' }],
    },
  ])("422 with kube's fixed message for $name", ({ body }) => {
    const status = statusOf(() => applyJsonPatch(cr, body));
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
    // Field order as kube-apiserver writes it.
    expect(Object.keys(status)).toEqual([
      'kind',
      'apiVersion',
      'metadata',
      'status',
      'message',
      'reason',
      'details',
      'code',
    ]);
  });
});

describe('decodeJsonPatch', () => {
  it.each([
    { body: null, want: [] },
    { body: [], want: [] },
    {
      body: [null, { op: null, path: null, from: null, value: null, extra: 1 }],
      want: [{}, { op: null, path: null, from: null, value: null, extra: 1 }],
    },
  ])('$body', ({ body, want }) => {
    expect(decodeJsonPatch(body)).toEqual(want);
  });
});
