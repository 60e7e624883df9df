import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../../apimachinery/errors.js';
import { applyMergePatch, mergePatch } from '../../../../../server/endpoints/patch/merge-patch.js';
import type { JsonValue } from '../../../../../apimachinery/object.js';

const parse = (s: string): JsonValue => JSON.parse(s) as JsonValue;

describe('mergePatch: RFC 7386 appendix A', () => {
  it.each([
    ['{"a":"b"}', '{"a":"c"}', '{"a":"c"}'],
    ['{"a":"b"}', '{"b":"c"}', '{"a":"b","b":"c"}'],
    ['{"a":"b"}', '{"a":null}', '{}'],
    ['{"a":"b","b":"c"}', '{"a":null}', '{"b":"c"}'],
    ['{"a":["b"]}', '{"a":"c"}', '{"a":"c"}'],
    ['{"a":"c"}', '{"a":["b"]}', '{"a":["b"]}'],
    ['{"a":{"b":"c"}}', '{"a":{"b":"d","c":null}}', '{"a":{"b":"d"}}'],
    ['{"a":[{"b":"c"}]}', '{"a":[1]}', '{"a":[1]}'],
    ['["a","b"]', '["c","d"]', '["c","d"]'],
    ['{"a":"b"}', '["c"]', '["c"]'],
    ['{"a":"foo"}', 'null', 'null'],
    ['{"a":"foo"}', '"bar"', '"bar"'],
    ['{"e":null}', '{"a":1}', '{"e":null,"a":1}'],
    ['[1,2]', '{"a":"b","c":null}', '{"a":"b"}'],
    ['{}', '{"a":{"bb":{"ccc":null}}}', '{"a":{"bb":{}}}'],
  ])('%s + %s = %s', (target, patch, want) => {
    expect(mergePatch(parse(target), parse(patch))).toEqual(parse(want));
  });

  it('RFC 7386 section 3 example', () => {
    const target = parse(
      '{"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},"tags":["example","sample"],"content":"This will be unchanged"}',
    );
    const patch = parse(
      '{"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},"tags":["example"]}',
    );
    expect(mergePatch(target, patch)).toEqual(
      parse(
        '{"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"content":"This will be unchanged","phoneNumber":"+01-123-456-7890"}',
      ),
    );
  });
});

describe('mergePatch: json-patch v4 details kube inherits', () => {
  it.each([
    {
      name: 'nulls inside a new member are dropped',
      target: '{}',
      patch: '{"a":{"b":null,"c":1}}',
      want: '{"a":{"c":1}}',
    },
    { name: 'null array elements are kept', target: '{}', patch: '{"a":[1,null]}', want: '{"a":[1,null]}' },
    {
      name: 'null members of objects in a new array are dropped',
      target: '{}',
      patch: '{"a":[{"b":null,"c":2}]}',
      want: '{"a":[{"c":2}]}',
    },
    {
      name: 'an array replacing an object keeps its nulls',
      target: '{"a":{"x":1}}',
      patch: '{"a":[{"b":null}]}',
      want: '{"a":[{"b":null}]}',
    },
    {
      name: 'an object replacing a scalar is pruned',
      target: '{"a":1}',
      patch: '{"a":{"b":null,"c":2}}',
      want: '{"a":{"c":2}}',
    },
    { name: 'an object replacing null is pruned', target: '{"a":null}', patch: '{"a":{"b":null}}', want: '{"a":{}}' },
    { name: 'deleting a missing member is a no-op', target: '{"a":1}', patch: '{"b":null}', want: '{"a":1}' },
    { name: 'an empty patch changes nothing', target: '{"a":{"b":[1]}}', patch: '{}', want: '{"a":{"b":[1]}}' },
    {
      name: 'deep merge',
      target: '{"spec":{"a":1,"b":{"c":2,"d":3}}}',
      patch: '{"spec":{"b":{"c":null,"e":4}}}',
      want: '{"spec":{"a":1,"b":{"d":3,"e":4}}}',
    },
    {
      name: 'a top-level array patch is pruned like a new value',
      target: '{"a":1}',
      patch: '[{"x":null},null]',
      want: '[{},null]',
    },
  ])('$name', ({ target, patch, want }) => {
    expect(mergePatch(parse(target), parse(patch))).toEqual(parse(want));
  });

  it('leaves both inputs untouched and shares nothing with them', () => {
    const target = parse('{"a":{"b":1},"c":[1]}');
    const patch = parse('{"a":{"d":{"e":1}},"f":[{"g":1}]}');
    const targetCopy = structuredClone(target);
    const patchCopy = structuredClone(patch);
    const out = mergePatch(target, patch) as { a: { d: { e: number } }; f: Array<{ g: number }> };
    expect(target).toEqual(targetCopy);
    expect(patch).toEqual(patchCopy);
    out.a.d.e = 2;
    out.f[0]!.g = 2;
    expect(patch).toEqual(patchCopy);
  });

  it('keeps __proto__ a plain member', () => {
    const out = mergePatch(parse('{"a":1}'), parse('{"__proto__":{"polluted":true},"b":{"__proto__":null}}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).toBe('{"a":1,"__proto__":{"polluted":true},"b":{}}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('applyMergePatch', () => {
  const cr = parse(
    '{"apiVersion":"cache.example.com/v1","kind":"Cache","metadata":{"name":"web","labels":{"x":"y"}},"spec":{"size":1}}',
  );

  it.each([
    {
      name: 'kubectl label',
      patch: '{"metadata":{"labels":{"a":"b"}}}',
      want: '{"apiVersion":"cache.example.com/v1","kind":"Cache","metadata":{"name":"web","labels":{"x":"y","a":"b"}},"spec":{"size":1}}',
    },
    {
      name: 'kubectl label a-',
      patch: '{"metadata":{"labels":{"x":null}}}',
      want: '{"apiVersion":"cache.example.com/v1","kind":"Cache","metadata":{"name":"web","labels":{}},"spec":{"size":1}}',
    },
    {
      name: 'kubectl scale',
      patch: '{"spec":{"replicas":5}}',
      want: '{"apiVersion":"cache.example.com/v1","kind":"Cache","metadata":{"name":"web","labels":{"x":"y"}},"spec":{"size":1,"replicas":5}}',
    },
  ])('$name', ({ patch, want }) => {
    expect(applyMergePatch(cr, JSON.parse(patch))).toEqual(parse(want));
  });

  it.each([
    { body: null, message: 'Invalid JSON Patch' },
    {
      body: [{ op: 'add', path: '/a', value: 1 }],
      message: 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
    {
      body: 'x',
      message: 'error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}',
    },
    {
      body: 5,
      message: 'error decoding patch: json: cannot unmarshal number into Go value of type map[string]interface {}',
    },
    {
      body: false,
      message: 'error decoding patch: json: cannot unmarshal bool into Go value of type map[string]interface {}',
    },
  ])('400 for a $body body', ({ body, message }) => {
    let caught: unknown;
    try {
      applyMergePatch(cr, body);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'BadRequest',
      code: 400,
    });
  });
});
