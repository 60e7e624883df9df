// format(), strings.quote() and trim() as kube's strings library runs them
// (cel/kube/strings-format.ts, cel/kube/strings-text.ts), over cel/'s values.
import { describe, expect, it } from 'vitest';
import { activation, program } from '../../../cel/eval.js';
import { kubeEnvironment } from '../../../cel/kube/environment.js';
import { FormatError, formatString, MAX_PRECISION } from '../../../cel/kube/strings-format.js';
import { quote, trim } from '../../../cel/kube/strings-text.js';
import { parseTimestamp } from '../../../cel/time.js';
import {
  CelError,
  Duration,
  MapValue,
  type MapKey,
  OptionalValue,
  type Timestamp,
  TypeValue,
  Uint,
  type Value,
} from '../../../cel/values.js';

const u = (n: bigint): Uint => new Uint(n);
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const ts = (iso: string): Timestamp => {
  const t = parseTimestamp(iso);
  if (t instanceof CelError) throw new Error(t.message);
  return t;
};
/** A duration of whole seconds and nanoseconds, as protobuf's (the nanos of the seconds' sign, or a positive part of a negative whole). */
const dur = (seconds: bigint, nanos: number): Duration => new Duration(seconds * 1_000_000_000n + BigInt(nanos));
const mapOf = (entries: readonly (readonly [MapKey, Value])[]): MapValue => {
  const m = new MapValue();
  for (const [k, v] of entries) m.set(k, v);
  return m;
};

/** Evaluates through kube's environment. */
function run(src: string): Value {
  const kube = kubeEnvironment('StoredExpressions');
  const c = kube.compile(src, kube.checkerEnv());
  if (c.issues !== undefined) throw new Error(c.issues.toDisplayString());
  const v = program(c.ast, kube.programOptions).eval(activation({})).value;
  if (v instanceof CelError) throw new Error(v.message);
  return v;
}

// kube-apiserver's format(): cel-go's original formatter (ext/formatting.go), which kube runs through
// ext.Strings(ext.StringsVersion(2)) with the default locale en_US. Expected texts are what Go, cel-go's
// code and golang.org/x/text/message print for the same values.
describe('formatString (kube: cel-go ext/formatting.go)', () => {
  const N = '\u202f×\u202f10'; // en's exponent sign in %e: narrow no-break spaces around ×
  const cases: [string, Value[], string][] = [
    // plain text and %%
    ['no substitution', [], 'no substitution'],
    ['%% and %%', [], '% and %'],
    ['%%%s%%', ['x'], '%x%'],
    ['ünïcödé %s ✓', ['😀'], 'ünïcödé 😀 ✓'],
    // %s of scalars: CEL's string() of the value; a double is Go's %g
    ['%s', ['str'], 'str'],
    ['%s %s', [true, false], 'true false'],
    ['%s', [999999999999n], '999999999999'],
    ['%s', [u(18446744073709551615n)], '18446744073709551615'],
    ['%s', [3.14], '3.14'],
    ['%s %s', [64.2, 123456], '64.2 123456'],
    ['%s %s %s', [1234567, 1e6, 1e21], '1.234567e+06 1e+06 1e+21'],
    ['%s %s %s', [0.0001, 1e-5, 1e-7], '0.0001 1e-05 1e-07'],
    ['%s', [-0], '-0'],
    ['%s %s %s', [NaN, Infinity, -Infinity], 'NaN +Inf -Inf'],
    ['%s', [null], 'null'],
    ['%s', [bytes('xyz')], 'xyz'],
    ['%s', [TypeValue.of('string')], 'string'],
    ['%s', [TypeValue.of('null_type')], 'null_type'],
    ['%s', [TypeValue.of('google.protobuf.Duration')], 'google.protobuf.Duration'],
    ['%s', [ts('2023-02-03T23:31:20+00:00')], '2023-02-03T23:31:20Z'],
    ['%s', [ts('2023-02-03T23:31:20.120Z')], '2023-02-03T23:31:20.12Z'],
    ['%s', [dur(6347n, 0)], '6347s'],
    ['%s', [dur(1n, 500_000_000)], '1.5s'],
    ['%s', [dur(-2n, 500_000_000)], '-1.5s'],
    ['%s', [dur(0n, 1)], '0.000000001s'],
    // %s of lists: members as CEL literals (strings quoted, doubles %.6f, timestamp("…"), duration("…"))
    [
      '%s',
      [['abc', 3.14, null, [9n, 8n], ts('2023-02-03T23:31:20Z')]],
      '["abc", 3.140000, null, [9, 8], timestamp("2023-02-03T23:31:20Z")]',
    ],
    ['%s', [[6n, 4.2, 'a string']], '[6, 4.200000, "a string"]'],
    ['%s', [[]], '[]'],
    ['%s', [[u(2n), true, bytes('xyz'), dur(7200n, 0)]], '[2, true, b"xyz", duration("7200s")]'],
    ['%s', [[TypeValue.of('int'), TypeValue.of('null_type')]], '[int, null_type]'],
    ['%s', [[-0, 1e21, 1e-7]], '[-0.000000, 1000000000000000000000.000000, 0.000000]'],
    ['%s', [[NaN, Infinity, -Infinity]], '["NaN", "+Inf", "-Inf"]'],
    // members are quoted as Go's %q does
    ['%s', [['a"b\\c\n\t\x00\x7f\u00a0é😀']], '["a\\"b\\\\c\\n\\t\\x00\\x7f\\u00a0é😀"]'],
    [
      '%s',
      [['\u2028\u200b\ufeff\u{E0001}\x07\b\f\r\v\x1b']],
      '["\\u2028\\u200b\\ufeff\\U000e0001\\a\\b\\f\\r\\v\\x1b"]',
    ],
    ['%s', [['завтра ✓', '\ud800']], '["завтра ✓", "\ufffd"]'],
    // %s of maps: `key:value` entries sorted by the printed key, string keys quoted
    [
      '%s',
      [
        mapOf([
          ['key1', bytes('xyz')],
          ['key5', null],
          ['key2', dur(7200n, 0)],
          ['key4', true],
          ['key3', 2.71828],
        ]),
      ],
      '{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}',
    ],
    [
      '%s',
      [
        mapOf([
          [1n, 'value1'],
          [u(2n), 'value2'],
          [true, NaN],
        ]),
      ],
      '{1:"value1", 2:"value2", true:"NaN"}',
    ],
    [
      '%s',
      [
        mapOf([
          ['strKey', 'x'],
          [true, 42n],
          [6n, dur(422n, 0)],
        ]),
      ],
      '{"strKey":"x", 6:duration("422s"), true:42}',
    ],
    [
      '%s',
      [
        mapOf([
          ['b', 1n],
          ['a', [2.5]],
          ['c', mapOf([['d', ts('2009-11-10T23:00:00Z')]])],
        ]),
      ],
      '{"a":[2.500000], "b":1, "c":{"d":timestamp("2009-11-10T23:00:00Z")}}',
    ],
    ['%s', [[mapOf([]), mapOf([])]], '[{}, {}]'],
    // keys sort as Go compares strings (UTF-8 bytes = code points), not UTF-16 units
    [
      '%s',
      [
        mapOf([
          ['\u{1F600}', 1n],
          ['\uFF01', 2n],
        ]),
      ],
      '{"\uFF01":2, "\u{1F600}":1}',
    ],
    // %d: integers only
    ['%d', [-42n], '-42'],
    ['%d', [u(64n)], '64'],
    // %f: x/text's en-US printer: Go's exact digits (ties to even), commas between thousands, ∞, no -0
    ['%f', [2.71828], '2.718280'],
    ['%.3f', [1.2345], '1.234'],
    ['%.0f', [2.5], '2'],
    ['%.0f', [1.5], '2'],
    ['%.0f', [0.5], '0'],
    ['%.0f', [3.5001], '4'],
    ['%.3f', [-123.4999], '-123.500'],
    ['%.5f', [-1.2], '-1.20000'],
    ['%.2f', [0.125], '0.12'],
    ['%.2f', [0.375], '0.38'],
    ['%.2f', [-0.001], '-0.00'],
    ['%f', [-0], '0.000000'],
    ['%f', [1234567.891], '1,234,567.891000'],
    ['%.1f', [-1234.5], '-1,234.5'],
    ['%.0f', [999.5], '1,000'],
    ['%.1f', [1e21], '1,000,000,000,000,000,000,000.0'],
    ['%.20f', [0.1], '0.10000000000000000555'],
    ['%f %f %f', [NaN, Infinity, -Infinity], 'NaN ∞ -∞'],
    // ... and the strings double() reads as the non-finite doubles
    ['%f %f %f', ['NaN', 'Infinity', '-Infinity'], 'NaN ∞ -∞'],
    [`%.${MAX_PRECISION}f`, [1], `1.${'0'.repeat(MAX_PRECISION)}`],
    // %e: six digits after the point always; cel-go's "%<precision>e" makes the precision a width
    ['%e', [2.71828], `2.718280${N}⁰⁰`],
    ['%.6e', [1052.032911275], `1.052033${N}⁰³`],
    ['%.2e', [1052.032911275], `1.052033${N}⁰³`],
    ['%e', [1.5e-300], `1.500000${N}⁻³⁰⁰`],
    ['%e', [1e100], `1.000000${N}¹⁰⁰`],
    ['%e', [0.000123456789], `1.234568${N}⁻⁰⁴`],
    ['%e %e', [0, -0], `0.000000${N}⁰⁰ 0.000000${N}⁰⁰`],
    ['%e', [-1234.5], `-1.234500${N}⁰³`],
    ['%e', [999999.9999999], `1.000000${N}⁰⁶`],
    ['%.20e', [2.71828], `     2.718280${N}⁰⁰`],
    ['%.20e', [-2.71828], `    -2.718280${N}⁰⁰`],
    ['%e|%e|%e', [NaN, Infinity, -Infinity], '   NaN|     ∞|    -∞'],
    ['%e', ['Infinity'], '     ∞'],
    ['%.0e|%.1e', [NaN, Infinity], 'NaN|∞'],
    // %x %X
    ['%x %X', [30n, 30n], '1e 1E'],
    ['%x', [-30n], '-1e'],
    ['%X', [u(6000n)], '1770'],
    ['%x', ['Hello world!'], '48656c6c6f20776f726c6421'],
    ['%X', ['é'], 'C3A9'],
    ['%x', [bytes('byte string')], '6279746520737472696e67'],
    ['%X', [new Uint8Array([0, 255])], '00FF'],
    // %o %b
    ['%o', [11n], '13'],
    ['%o', [u(65535n)], '177777'],
    ['%o', [-8n], '-10'],
    ['%b', [5n], '101'],
    ['%b', [u(64n)], '1000000'],
    ['%b %b', [true, false], '1 0'],
    // the other verbs parse a precision and ignore it (so our cap does not apply to them)
    ['%.2s|%.2d|%.101s', ['abc', 7n, 'x'], 'abc|7|x'],
  ];
  // Titles show the format and the result (bigint arguments do not serialize).
  it.each(cases.map(([f, args, want]) => [f, want, args] as const))('%j gives %j', (f, want, args) => {
    expect(formatString(f, args)).toBe(want);
  });

  const invalidUtf8 = 'could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string';
  const errors: [string, Value[], string][] = [
    ['%a', [1n], 'could not parse formatting clause: unrecognized formatting clause "a"'],
    ['%E', [0.5], 'could not parse formatting clause: unrecognized formatting clause "E"'],
    ['%5d', [1n], 'could not parse formatting clause: unrecognized formatting clause "5"'],
    ['%é', [1n], 'could not parse formatting clause: unrecognized formatting clause "Ã"'],
    ['%d %d %d', [0n, 1n], 'index 2 out of range'],
    ['%', [], 'index 0 out of range'],
    ['x %', [1n], 'unexpected end of string'],
    [
      '%.3',
      [1.0],
      'could not parse formatting clause: error while parsing precision: could not find end of precision specifier',
    ],
    [
      '%.f',
      [1.0],
      'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
    ],
    [
      '%.99999999999999999999f',
      [1.0],
      'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "99999999999999999999": value out of range',
    ],
    // our cap (kube has none)
    [
      '%.101f',
      [1.0],
      'could not parse formatting clause: error while parsing precision: precision 101 exceeds maximum allowed precision 100',
    ],
    [
      '%.0999e',
      [1.0],
      'could not parse formatting clause: error while parsing precision: precision 999 exceeds maximum allowed precision 100',
    ],
    ['%b', ['abc'], 'error during formatting: only integers and bools can be formatted as binary, was given string'],
    ['%b', [1.5], 'error during formatting: only integers and bools can be formatted as binary, was given double'],
    ['%o', ['a string'], 'error during formatting: octal clause can only be used on integers, was given string'],
    ['%o', [true], 'error during formatting: octal clause can only be used on integers, was given bool'],
    ['%o', [2.0], 'error during formatting: octal clause can only be used on integers, was given double'],
    [
      '%x',
      [0.5],
      'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double',
    ],
    [
      '%x',
      [true],
      'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given bool',
    ],
    [
      '%d',
      [dur(1802n, 0)],
      'error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration',
    ],
    ['%d', [2.5], 'error during formatting: decimal clause can only be used on integers, was given double'],
    ['%d', [NaN], 'error during formatting: decimal clause can only be used on integers, was given double'],
    ['%d', [-Infinity], 'error during formatting: decimal clause can only be used on integers, was given double'],
    ['%d', [true], 'error during formatting: decimal clause can only be used on integers, was given bool'],
    ['%d', ['1'], 'error during formatting: decimal clause can only be used on integers, was given string'],
    ['%f', [5n], 'error during formatting: fixed-point clause can only be used on doubles, was given int'],
    ['%.1f', [u(7n)], 'error during formatting: fixed-point clause can only be used on doubles, was given uint'],
    ['%f', ['1.5'], 'error during formatting: fixed-point clause can only be used on doubles, was given string'],
    ['%f', ['nan'], 'error during formatting: fixed-point clause can only be used on doubles, was given string'],
    [
      '%f',
      [ts('2023-02-03T23:31:20Z')],
      'error during formatting: fixed-point clause can only be used on doubles, was given google.protobuf.Timestamp',
    ],
    ['%f', [mapOf([])], 'error during formatting: fixed-point clause can only be used on doubles, was given map'],
    ['%e', [100n], 'error during formatting: scientific clause can only be used on doubles, was given int'],
    ['%e', [[1.0]], 'error during formatting: scientific clause can only be used on doubles, was given list'],
    [
      '%s',
      [OptionalValue.of(1n)],
      'error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type',
    ],
    // inside a list or map an unprintable member has its own text
    ['%s', [[1n, OptionalValue.NONE]], 'error during formatting: no formatting function for optional_type'],
    ['%s', [mapOf([['k', OptionalValue.NONE]])], 'error during formatting: no formatting function for optional_type'],
    // bytes that are not UTF-8 cannot become a string, as %s or inside a list
    ['%s', [new Uint8Array([0xff])], `error during formatting: ${invalidUtf8}`],
    ['%s', [[new Uint8Array([0xc3])]], `error during formatting: ${invalidUtf8}`],
  ];
  it.each(errors.map(([f, args, message]) => [f, message, args] as const))('%j fails: %s', (f, message, args) => {
    expect(() => formatString(f, args)).toThrow(new FormatError(message));
  });

  it.each(['%d', '%e', '%f', '%x', '%X', '%b', '%o'])('%s of null fails', (f) => {
    expect(() => formatString(f, [null])).toThrow(/was given null_type$/);
  });

  it('prints the values a rule computes', () => {
    expect(run('"%s|%s|%s".format([type("s"), type(null), dyn(256u)])')).toBe('string|null_type|256');
    expect(run('"%s".format([{"b": duration("2h"), "a": timestamp("2009-11-10T23:00:00Z")}])')).toBe(
      '{"a":timestamp("2009-11-10T23:00:00Z"), "b":duration("7200s")}',
    );
    expect(run('"%s".format([[1, 2.0, "x", b"y", [null]]])')).toBe('[1, 2.000000, "x", b"y", [null]]');
    expect(run('"%.2f|%s".format([1234.5, 1234.5])')).toBe('1,234.50|1234.5');
  });
});

describe('quote', () => {
  const cases: [string, string][] = [
    ['verbatim', '"verbatim"'],
    ['', '""'],
    ['bell\x07', '"bell\\a"'],
    ['\bbackspace', '"\\bbackspace"'],
    ['\fform feed', '"\\fform feed"'],
    ['first\nsecond', '"first\\nsecond"'],
    ['carriage \r return', '"carriage \\r return"'],
    ['tab\t', '"tab\\t"'],
    ['vertical \v tab', '"vertical \\v tab"'],
    ['ends with \\', '"ends with \\\\"'],
    ['mid " quote', '"mid \\" quote"'],
    ["single ' quote", '"single \' quote"'],
    // other control characters and all printable Unicode pass through
    ['nul\x00 esc\x1b', '"nul\x00 esc\x1b"'],
    ['завтра 😀', '"завтра 😀"'],
    // a lone surrogate is JS's invalid UTF-8: cel-go writes U+FFFD for it
    ['a\ud800b\udc00', '"a\ufffdb\ufffd"'],
  ];
  it.each(cases)('%j', (s, want) => {
    expect(quote(s)).toBe(want);
  });
});

describe('trim', () => {
  const cases: [string, string][] = [
    [' \f\n\r\t\vtext  ', 'text'],
    ['\u0085\u00a0\u1680text', 'text'],
    ['text\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a', 'text'],
    ['\u2028\u2029\u202f\u205f\u3000text', 'text'],
    // not White_Space: zero-width characters, the Mongolian vowel separator, the BOM
    ['\u180etext\u200b\u200c\u200d\u2060\ufeff', '\u180etext\u200b\u200c\u200d\u2060\ufeff'],
    ['  inner  space  ', 'inner  space'],
    ['   ', ''],
    ['', ''],
  ];
  it.each(cases)('%j', (s, want) => {
    expect(trim(s)).toBe(want);
  });

  it('is what trim() does in a rule', () => {
    expect(run("'\\u0085 x\\ufeff'.trim()")).toBe('x\ufeff');
  });
});
