// The walkers a request's object goes through, at the depth kube's decoders accept (10,000) and
// beyond: no RangeError from the call stack, and the same answers as on shallow values.
import { describe, expect, it } from 'vitest';
import { parseJSON, stringifyJSON, stringifySortedJSON } from '../../../apimachinery/json.js';
import { cloneJson } from '../../../apimachinery/object.js';
import { deepEqual } from '../../../apimachinery/equality.js';
import { mergePatch } from '../../../server/endpoints/patch/merge-patch.js';
import { applyJsonPatchOperations } from '../../../server/endpoints/patch/json-patch.js';
import type { JsonValue } from '../../../apimachinery/object.js';
import { goJSON } from '../../../apimachinery/go-json.js';
import { goDeepEqual, goSharpV, plainFloat } from '../../../crd/schema/validate/go-values.js';

/** Deeper than any of JSON.stringify (~4,100), structuredClone (~1,900) or plain recursion (~12,500) take. */
const DEEP = 20000;

/** `{"a":{"a":...leaf}}` nesting `levels` objects, built without recursion. */
function chain(levels: number, leaf: unknown = 1): JsonValue {
  let v = leaf as JsonValue;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}
const chainText = (levels: number, leaf = '1'): string => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;

describe('at any depth', () => {
  it('stringifyJSON and stringifySortedJSON write what JSON.stringify would', () => {
    expect(stringifyJSON(chain(DEEP))).toBe(chainText(DEEP));
    expect(stringifyJSON(chain(DEEP, 9007199254740993n))).toBe(chainText(DEEP, '9007199254740993'));
    expect(stringifySortedJSON(chain(DEEP, { z: 1, b: [undefined, 2], a: undefined }))).toBe(
      chainText(DEEP, '{"b":[null,2],"z":1}'),
    );
  });

  it('parseJSON reads back what was stored deeper than the request decoder allows', () => {
    const text = chainText(DEEP, '9007199254740993');
    expect(stringifyJSON(parseJSON(text))).toBe(text);
  });

  it('cloneJson copies, deepEqual compares', () => {
    const v = chain(DEEP, [1, { b: null }]);
    const copy = cloneJson(v);
    expect(copy === v).toBe(false);
    expect(deepEqual(copy, v)).toBe(true);
    expect(deepEqual(copy, chain(DEEP, [1, { b: 0 }]))).toBe(false);
    expect(deepEqual(chain(DEEP), chain(DEEP - 1))).toBe(false);
  });

  it('merge patch and JSON patch apply', () => {
    const merged = mergePatch(chain(DEEP, { x: 1, y: 2 }), chain(DEEP, { y: null, z: 3 }));
    expect(stringifyJSON(merged)).toBe(chainText(DEEP, '{"x":1,"z":3}'));
    const patched = applyJsonPatchOperations(chain(DEEP), [
      { op: 'test', path: '/a', value: chain(DEEP - 1) },
      { op: 'replace', path: '/a', value: chain(DEEP - 1, 2) },
    ]);
    expect(stringifyJSON(patched)).toBe(chainText(DEEP, '2'));
  });

  it("Go's %#v, encoding/json and reflect.DeepEqual of decoded values", () => {
    expect(goSharpV(chain(DEEP, 'x'), undefined, plainFloat)).toBe(
      `${'map[string]interface {}{"a":'.repeat(DEEP)}"x"${'}'.repeat(DEEP)}`,
    );
    expect(goJSON(chain(DEEP, '<'))).toBe(chainText(DEEP, '"\\u003c"'));
    expect(goDeepEqual(chain(DEEP), undefined, plainFloat, chain(DEEP), undefined, plainFloat)).toBe(true);
    expect(goDeepEqual(chain(DEEP, 1), undefined, plainFloat, chain(DEEP, 1.5), undefined, plainFloat)).toBe(false);
  });
});

describe('on shallow values, as before', () => {
  const v = { b: [1, 'two', null, { c: true, d: undefined }], a: 1.5, e: undefined };
  it('agrees with the built-ins', () => {
    expect(stringifyJSON(v)).toBe(JSON.stringify(v));
    expect(cloneJson(v)).toEqual(structuredClone(v));
    expect(stringifySortedJSON(v)).toBe('{"a":1.5,"b":[1,"two",null,{"c":true}]}');
  });

  it("goSharpV and goJSON print as Go does (keys sorted, %#v's spacing)", () => {
    expect(goSharpV({ b: [1, 'x'], a: null }, undefined, plainFloat)).toBe(
      'map[string]interface {}{"a":interface {}(nil), "b":[]interface {}{1, "x"}}',
    );
    expect(goJSON({ b: [1, 'x&'], a: null })).toBe('{"a":null,"b":[1,"x\\u0026"]}');
  });

  it('cloneJson keeps a `__proto__` key as data', () => {
    const parsed = JSON.parse('{"__proto__":{"x":1}}') as Record<string, unknown>;
    const copy = cloneJson(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
  });
});
