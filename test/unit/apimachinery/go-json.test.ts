import { describe, expect, it } from 'vitest';
import { goEncoderText, goJSON, goJSONString } from '../../../apimachinery/go-json.js';

describe('goJSON', () => {
  it.each<{ name: string; v: unknown; want: string }>([
    { name: 'null', v: null, want: 'null' },
    { name: 'int', v: 42, want: '42' },
    { name: 'int64 past 2^53', v: 9007199254740993n, want: '9007199254740993' },
    { name: 'float', v: 1.5, want: '1.5' },
    { name: 'small float in exponent form', v: 1e-7, want: '1e-7' },
    { name: 'bool', v: true, want: 'true' },
    {
      name: 'keys in byte order',
      v: { b: 1, a: [2, 'x'], '\u{10000}': 0, '\uffff': 0 },
      want: '{"a":[2,"x"],"b":1,"\uffff":0,"\u{10000}":0}',
    },
    { name: 'absent members dropped', v: { a: undefined, b: null }, want: '{"b":null}' },
    { name: 'HTML-safe', v: '<a&b>', want: '"\\u003ca\\u0026b\\u003e"' },
    { name: 'line separators', v: '\u2028\u2029', want: '"\\u2028\\u2029"' },
    { name: 'controls', v: '\n\r\t\u0001"\\', want: '"\\n\\r\\t\\u0001\\"\\\\"' },
    { name: 'backspace and form feed, encoding/json of Go 1.22+', v: '\b\f', want: '"\\b\\f"' },
    { name: 'a lone surrogate is U+FFFD', v: 'a\ud800b', want: '"a\\ufffdb"' },
    { name: 'a surrogate pair as it is', v: '\u{1f600}', want: '"\u{1f600}"' },
  ])('$name', ({ v, want }) => {
    expect(goJSON(v)).toBe(want);
  });

  it("jsoniter (structured-merge-diff's field paths) writes backspace and form feed as \\u00XX", () => {
    expect(goJSON({ k: '\b\f' }, 'jsoniter')).toBe('{"k":"\\u0008\\u000c"}');
    expect(goJSONString('\b', 'jsoniter')).toBe('"\\u0008"');
  });

  it('writes values nested 10,000 deep', () => {
    let v: unknown = 1;
    for (let i = 0; i < 10_000; i++) v = [v];
    expect(goJSON(v)).toBe(`${'['.repeat(10_000)}1${']'.repeat(10_000)}`);
  });
});

describe('goEncoderText', () => {
  it.each<{ name: string; v: unknown }>([
    { name: 'nothing to escape', v: { a: ['b', 1, null], c: { d: 'e f' } } },
    { name: 'HTML in values', v: { html: '<b>Tom & Jerry</b>' } },
    // goJSON writes keys in Go's order: these are in it.
    { name: 'HTML in keys', v: { '&amp;': ['>'], '<k>': '&' } },
    { name: 'line separators', v: { s: 'a\u2028b\u2029c' } },
    { name: 'escapes beside them', v: { s: '"<\\>"\n&\u0001' } },
  ])('writes what Go writes: $name', ({ v }) => {
    expect(goEncoderText(JSON.stringify(v))).toBe(goJSON(v));
  });

  it('returns text with nothing to escape as it is', () => {
    const text = JSON.stringify({ a: 'plain' });
    expect(goEncoderText(text)).toBe(text);
  });
});
