// server/json.ts: integers beyond 2^53 kept exact through parse and stringify; everything else as
// JSON.parse and JSON.stringify have it.
import { describe, expect, it } from 'vitest';
import { deeperThan, parseJSON, stringifyJSON, typeMetaError } from '../../../apimachinery/json.js';
import { parseJsonExact } from '../../../apimachinery/json-parse.js';

describe('parseJSON', () => {
  it.each([
    ['9007199254740993', 9007199254740993n],
    ['-9223372036854775808', -9223372036854775808n],
    ['9223372036854775807', 9223372036854775807n],
    ['9007199254740991', 9007199254740991], // the largest safe integer stays a number
    // biome-ignore lint/correctness/noPrecisionLoss: the float64 the decoder must produce
    ['9223372036854775808', 9223372036854775808], // beyond int64: a float64, as kube decodes it
    ['1234567890123456.5', 1234567890123456.5], // not an integer literal
    ['9007199254740993e0', 9007199254740992], // an exponent makes it a float
    ['"12345678901234567890"', '12345678901234567890'], // a string, whatever its digits
  ])('%s', (text, want) => {
    expect(parseJSON(text)).toEqual(want);
  });

  it('finds them at any depth, and leaves the rest as JSON.parse does', () => {
    expect(parseJSON('{"a":[1,{"b":12345678901234567}],"c":"x","d":null}')).toEqual({
      a: [1, { b: 12345678901234567n }],
      c: 'x',
      d: null,
    });
  });

  it('is the exact parser only with int64: the request decoder rounds without it', () => {
    expect(parseJsonExact('9007199254740993').value).toBe(9007199254740992);
    expect(parseJsonExact('9007199254740993', { int64: true }).value).toBe(9007199254740993n);
    expect(parseJsonExact('[9007199254740993]', { int64: true }).floatLiterals.size).toBe(0);
  });
});

describe('stringifyJSON', () => {
  it('is JSON.stringify without bigints', () => {
    const v = { a: [1, 'two', null, { b: true }], c: undefined, d: 1.5 };
    expect(stringifyJSON(v)).toBe(JSON.stringify(v));
  });

  it('writes bigints as integers, with JSON.stringify’s rules for the rest', () => {
    const v = {
      n: -9223372036854775808n,
      list: [9007199254740993n, undefined, 2],
      skip: undefined,
      s: '9007199254740993',
      nested: { x: 1n },
    };
    expect(stringifyJSON(v)).toBe(
      '{"n":-9223372036854775808,"list":[9007199254740993,null,2],"s":"9007199254740993","nested":{"x":1}}',
    );
  });

  it('round-trips through parseJSON', () => {
    const text = '{"a":9223372036854775807,"b":[-9007199254740993,0.25],"c":"x"}';
    expect(stringifyJSON(parseJSON(text))).toBe(text);
  });
});

describe('deeperThan', () => {
  const nest = (levels: number, leaf: unknown, wrap: (x: unknown) => unknown = (x) => ({ a: x })): unknown => {
    let v = leaf;
    for (let i = 0; i < levels; i++) v = wrap(v);
    return v;
  };
  it.each<[string, unknown, number, '{' | '[' | undefined]>([
    ['a scalar', 1, 0, undefined],
    ['null', null, 0, undefined],
    ['an empty object at the limit', {}, 1, undefined],
    ['an empty object past it', {}, 0, '{'],
    ['a list past it', [], 0, '['],
    ['scalars do not count as a level', nest(3, 'x'), 3, undefined],
    ['one object too many', nest(4, {}), 4, '{'],
    ['a list inside, too deep', nest(3, [[]]), 4, '['],
    ['the first in sorted key order: b is a list, c an object', { c: {}, b: [] }, 1, '['],
    ['past scalars in sorted key order', { a: 1, c: {}, b: 'x' }, 1, '{'],
    ['list items in order', [nest(2, [], (x) => [x]), nest(2, {})], 2, '['],
    ['a wide map of strings', Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, 'v'])), 1, undefined],
  ])('%s', (_name, value, max, want) => {
    expect(deeperThan(value, max)).toBe(want);
  });
});

describe('typeMetaError', () => {
  const field = (json: string, k: string) =>
    `couldn't get version/kind; json parse error: json: cannot unmarshal ${json} into Go struct field .${k} of type string`;
  it.each([
    [{ apiVersion: 'v1', kind: 'X', extra: 1 }, undefined],
    [{ apiVersion: null, kind: null }, undefined],
    [{ apiVersion: 1, kind: 'X' }, field('number', 'apiVersion')],
    [{ apiVersion: 'v1', kind: true }, field('bool', 'kind')],
    [{ a: 1, kind: [], apiVersion: {} }, field('array', 'kind')],
    [{ a: 1, apiVersion: {}, kind: [] }, field('object', 'apiVersion')],
    [
      [],
      'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    ],
  ])('%j: the first mistyped field in document order', (v, expected) => {
    expect(typeMetaError(v)).toBe(expected);
  });
});
