import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, parseJsonExact, parseJsonExactTask } from '../../../apimachinery/json-parse.js';
import { runTaskSliced } from '../../../apimachinery/structured-merge/trampoline.js';

describe('parseJsonExact: values as JSON.parse', () => {
  const docs = [
    'null',
    'true',
    'false',
    '0',
    '-0',
    '-0.0',
    '12',
    '-12.5e-3',
    '1E+2',
    '9007199254740993',
    '123456789012345678901234567890',
    '1.7976931348623157e308',
    '5e-324',
    '0.1',
    '0.30000000000000004',
    '"plain"',
    '""',
    String.raw`"esc \" \\ \/ \b \f \n \r \t"`,
    String.raw`"\u00e9\u4e2d\ud83d\ude00"`,
    String.raw`"lone \ud800 surrogate \udc00"`,
    '"é中😀"',
    '[]',
    '{}',
    ' \t\r\n[ 1 , "a" , [ ] , { } , null ] \n',
    '{"a":{"b":[1,{"c":[true,false,null]}]},"d":"e"}',
    '{"2":"b","1":"a","x":"c"}',
    '{"constructor":1,"toString":2,"hasOwnProperty":3}',
  ];
  it.each(docs)('%s', (doc) => {
    expect(parseJsonExact(doc).value).toStrictEqual(JSON.parse(doc));
  });

  it('keeps -0 as JSON.parse does', () => {
    expect(Object.is(parseJsonExact('-0').value, -0)).toBe(true);
    expect(Object.is(parseJsonExact('-0.0e5').value, -0)).toBe(true);
  });

  it('keeps __proto__ as an own property, as JSON.parse does', () => {
    const v = parseJsonExact('{"__proto__":{"polluted":true},"a":1}').value as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.hasOwn(v, '__proto__')).toBe(true);
    expect(Object.keys(v)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(JSON.stringify(v)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });
});

describe('parseJsonExact: duplicate fields', () => {
  const cases: { doc: string; want: string[]; value?: unknown }[] = [
    { doc: '{"a":1,"b":2}', want: [] },
    { doc: '{"a":1,"a":2}', want: ['a'], value: { a: 2 } },
    { doc: '{"a":1,"a":2,"a":3}', want: ['a'], value: { a: 3 } },
    { doc: '{"spec":{"size":1,"size":2}}', want: ['spec.size'], value: { spec: { size: 2 } } },
    { doc: '{"spec":{"items":[{"name":"a"},{"name":"b","name":"c"}]}}', want: ['spec.items[1].name'] },
    { doc: '[{"a":1,"a":2}]', want: ['[0].a'] },
    { doc: '[[{"a":1}],[{"a":1,"a":2}]]', want: ['[1][0].a'] },
    {
      doc: '{"metadata":{"name":"c","name":"d"},"spec":{},"spec":{"x":1,"x":2}}',
      want: ['metadata.name', 'spec', 'spec.x'],
    },
    // Map keys are joined with "." too: the decoder has no schema.
    {
      doc: '{"metadata":{"labels":{"app.kubernetes.io/name":"a","app.kubernetes.io/name":"b"}}}',
      want: ['metadata.labels.app.kubernetes.io/name'],
    },
    { doc: '{"__proto__":1,"__proto__":2}', want: ['__proto__'] },
    { doc: '{"toString":1,"constructor":2}', want: [] },
    // The same path twice in different objects of one list is one path per item.
    { doc: '{"l":[{"a":1,"a":1},{"a":1,"a":1}]}', want: ['l[0].a', 'l[1].a'] },
  ];
  it.each(cases)('$doc', ({ doc, want, value }) => {
    const r = parseJsonExact(doc);
    expect(r.duplicateFields).toEqual(want);
    expect(r.value).toStrictEqual(value ?? JSON.parse(doc));
  });

  // kube's decoder dedupes strict errors by their text: keys that print the same path are one.
  it('reports a path text once however its keys split it', () => {
    const doc = '{"a.b":{"c":1,"c":2},"a":{"b":{"c":1,"c":2},"b.c":1,"b.c":2}}';
    expect(parseJsonExact(doc).duplicateFields).toEqual(['a.b.c']);
    expect(parseJsonExact('{"a[0]":{"b":1,"b":1},"a":[{"b":1,"b":1}]}').duplicateFields).toEqual(['a[0].b']);
  });

  it("keeps the first 100 paths, as kube's decoder keeps 100 strict errors", () => {
    const keys = Array.from({ length: 150 }, (_, i) => `"k${i}":1,"k${i}":2`).join(',');
    const r = parseJsonExact(`{"spec":{${keys}}}`);
    expect(r.duplicateFields).toEqual(Array.from({ length: 100 }, (_, i) => `spec.k${i}`));
    expect(Object.keys((r.value as { spec: object }).spec)).toHaveLength(150);
  });

  it('keeps the first position and the last value, as JSON.parse', () => {
    const v = parseJsonExact('{"a":1,"b":2,"a":3}').value as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['a', 'b']);
    expect(v['a']).toBe(3);
  });
});

describe('parseJsonExact: float literals', () => {
  const cases: { doc: string; want: string[] }[] = [
    { doc: '{"spec":{"size":1}}', want: [] },
    { doc: '{"spec":{"size":1.0}}', want: ['spec.size'] },
    { doc: '{"spec":{"size":1e3}}', want: ['spec.size'] },
    { doc: '{"spec":{"size":-1E-3}}', want: ['spec.size'] },
    { doc: '1.5', want: [''] },
    { doc: '15', want: [] },
    { doc: '[1, 2.5, 3E2, -0, -0.0]', want: ['[1]', '[2]', '[4]'] },
    { doc: '{"spec":{"items":[{"w":0.5},{"w":1}]}}', want: ['spec.items[0].w'] },
    // kube decodes integers outside int64 as float64.
    {
      doc: '{"a":9223372036854775807,"b":9223372036854775808,"c":-9223372036854775808,"d":-9223372036854775809}',
      want: ['b', 'd'],
    },
    { doc: '{"a":123456789012345678901234567890}', want: ['a'] },
  ];
  it.each(cases)('$doc', ({ doc, want }) => {
    expect([...parseJsonExact(doc).floatLiterals].sort()).toEqual([...want].sort());
  });
});

describe('parseJsonExact: errors as Go encoding/json', () => {
  const cases: { doc: string; message: string; offset: number; line?: number; column?: number }[] = [
    { doc: '', message: 'unexpected end of JSON input', offset: 0 },
    { doc: '   ', message: 'unexpected end of JSON input', offset: 3 },
    { doc: 'x', message: "invalid character 'x' looking for beginning of value", offset: 1 },
    { doc: "'a'", message: "invalid character '\\'' looking for beginning of value", offset: 1 },
    { doc: 'NaN', message: "invalid character 'N' looking for beginning of value", offset: 1 },
    { doc: '[1,]', message: "invalid character ']' looking for beginning of value", offset: 4 },
    { doc: '[', message: 'unexpected end of JSON input', offset: 1 },
    { doc: '[}', message: "invalid character '}' looking for beginning of value", offset: 2 },
    { doc: '{"a":1,}', message: "invalid character '}' looking for beginning of object key string", offset: 8 },
    { doc: '{,}', message: "invalid character ',' looking for beginning of object key string", offset: 2 },
    { doc: '{a:1}', message: "invalid character 'a' looking for beginning of object key string", offset: 2 },
    { doc: '{"a" 1}', message: "invalid character '1' after object key", offset: 6 },
    { doc: '{"a":1 "b":2}', message: `invalid character '"' after object key:value pair`, offset: 8 },
    { doc: '{"a":1', message: 'unexpected end of JSON input', offset: 6 },
    { doc: '[1 2]', message: "invalid character '2' after array element", offset: 4 },
    { doc: '1 2', message: "invalid character '2' after top-level value", offset: 3 },
    { doc: '{"a":1}}', message: "invalid character '}' after top-level value", offset: 8 },
    { doc: '01', message: "invalid character '1' after top-level value", offset: 2 },
    { doc: '[01]', message: "invalid character '1' after array element", offset: 3 },
    { doc: '-', message: 'unexpected end of JSON input', offset: 1 },
    { doc: '-a', message: "invalid character 'a' in numeric literal", offset: 2 },
    { doc: '+1', message: "invalid character '+' looking for beginning of value", offset: 1 },
    { doc: '.5', message: "invalid character '.' looking for beginning of value", offset: 1 },
    { doc: '1.', message: 'unexpected end of JSON input', offset: 2 },
    { doc: '1.e5', message: "invalid character 'e' after decimal point in numeric literal", offset: 3 },
    { doc: '1e', message: 'unexpected end of JSON input', offset: 2 },
    { doc: '1ex', message: "invalid character 'x' in exponent of numeric literal", offset: 3 },
    { doc: '1e+x', message: "invalid character 'x' in exponent of numeric literal", offset: 4 },
    { doc: 'tru', message: 'unexpected end of JSON input', offset: 3 },
    { doc: 'trux', message: "invalid character 'x' in literal true (expecting 'e')", offset: 4 },
    { doc: 'fals3', message: "invalid character '3' in literal false (expecting 'e')", offset: 5 },
    { doc: 'nUll', message: "invalid character 'U' in literal null (expecting 'u')", offset: 2 },
    { doc: '"abc', message: 'unexpected end of JSON input', offset: 4 },
    { doc: '"a\u0001"', message: "invalid character '\\x01' in string literal", offset: 3 },
    { doc: '"a\nb"', message: "invalid character '\\n' in string literal", offset: 3 },
    { doc: '"\tb"', message: "invalid character '\\t' in string literal", offset: 2 },
    // Past the characters looked at one by one, where a regular expression finds the string's end.
    { doc: `"${'x'.repeat(40)}`, message: 'unexpected end of JSON input', offset: 41 },
    { doc: `{"${'k'.repeat(40)}`, message: 'unexpected end of JSON input', offset: 42 },
    { doc: `"${'x'.repeat(40)}\u0001"`, message: "invalid character '\\x01' in string literal", offset: 42 },
    {
      doc: `"${'x'.repeat(40)}\\n${'y'.repeat(40)}\ny"`,
      message: "invalid character '\\n' in string literal",
      offset: 84,
    },
    { doc: `"${'x'.repeat(40)}\\n${'y'.repeat(40)}`, message: 'unexpected end of JSON input', offset: 83 },
    { doc: String.raw`"\q"`, message: "invalid character 'q' in string escape code", offset: 3 },
    { doc: String.raw`"\'"`, message: "invalid character '\\'' in string escape code", offset: 3 },
    { doc: String.raw`"\u12g4"`, message: "invalid character 'g' in \\u hexadecimal character escape", offset: 6 },
    { doc: String.raw`"\u12`, message: 'unexpected end of JSON input', offset: 5 },
    // Go reports the first byte of a non-ASCII character, as a Latin-1 rune.
    { doc: '\ufeff{}', message: "invalid character 'ï' looking for beginning of value", offset: 1 },
    { doc: 'é', message: "invalid character 'Ã' looking for beginning of value", offset: 1 },
    // Offsets count UTF-8 bytes; line and column count lines and characters.
    { doc: '{"é":x}', message: "invalid character 'x' looking for beginning of value", offset: 7, line: 1, column: 6 },
    {
      doc: '{\n  "a": 1,\n  "b": x\n}',
      message: "invalid character 'x' looking for beginning of value",
      offset: 20,
      line: 3,
      column: 8,
    },
    { doc: '[1e400]', message: 'json: cannot unmarshal number 1e400 into Go value of type float64', offset: 2 },
    { doc: '-1e999', message: 'json: cannot unmarshal number -1e999 into Go value of type float64', offset: 1 },
  ];
  it.each(cases)('$doc', ({ doc, message, offset, line, column }) => {
    let err: unknown;
    try {
      parseJsonExact(doc);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JsonSyntaxError);
    expect(err).toBeInstanceOf(SyntaxError);
    const e = err as JsonSyntaxError;
    expect(e.message).toBe(message);
    expect(e.offset).toBe(offset);
    if (line !== undefined) expect([e.line, e.column]).toEqual([line, column]);
  });
});

describe('parseJsonExact: depth', () => {
  const nestedArrays = (d: number) => '['.repeat(d) + ']'.repeat(d);
  const nestedObjects = (d: number) => '{"a":'.repeat(d - 1) + '{}' + '}'.repeat(d - 1);

  /** Depth of the first-child chain, walked without recursion. */
  const depthOf = (v: unknown): number => {
    let d = 0;
    while (typeof v === 'object' && v !== null) {
      d++;
      v = Array.isArray(v) ? v[0] : (v as Record<string, unknown>)['a'];
    }
    return d;
  };

  it('parses 1000 and 10000 levels without growing the call stack', () => {
    expect(JSON.stringify(parseJsonExact(nestedArrays(1000)).value)).toBe(nestedArrays(1000));
    expect(JSON.stringify(parseJsonExact(nestedObjects(1000)).value)).toBe(nestedObjects(1000));
    expect(depthOf(parseJsonExact(nestedArrays(10000)).value)).toBe(10000);
    expect(depthOf(parseJsonExact(nestedObjects(10000)).value)).toBe(10000);
  });

  it("stops past Go's 10000 levels, or past maxDepth", () => {
    expect(() => parseJsonExact(nestedArrays(10001))).toThrow("invalid character '[' exceeded max depth");
    expect(() => parseJsonExact(nestedObjects(1001), { maxDepth: 1000 })).toThrow(
      "invalid character '{' exceeded max depth",
    );
    expect(parseJsonExact(nestedObjects(1000), { maxDepth: 1000 }).value).toBeTypeOf('object');
  });

  it('reports paths deep down', () => {
    const doc = '{"a":'.repeat(3) + '{"x":1.5,"x":2}' + '}'.repeat(3);
    const r = parseJsonExact(doc);
    expect(r.duplicateFields).toEqual(['a.a.a.x']);
    expect([...r.floatLiterals]).toEqual(['a.a.a.x']);
  });

  // Each duplicate once cost its path's text (the depth): these took seconds, or minutes.
  const deep = (inner: string): string => '{"a":'.repeat(9000) + inner + '}'.repeat(9000);
  const prefix = Array<string>(9000).fill('a').join('.');

  it('reports one key given 20,000 times 9,000 deep once', () => {
    const r = parseJsonExact(deep(`{${Array<string>(20_000).fill('"x":1').join(',')}}`));
    expect(r.duplicateFields).toEqual([`${prefix}.x`]);
  });

  it('reports the first 100 of 10,000 distinct duplicated keys 9,000 deep, in order', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `"k${i}":1,"k${i}":2`).join(',');
    const r = parseJsonExact(deep(`{${keys}}`));
    expect(r.duplicateFields).toEqual(Array.from({ length: 100 }, (_, i) => `${prefix}.k${i}`));
  });

  it('reports the duplicates of repeated containers 9,000 deep once each', () => {
    const r = parseJsonExact(deep(`{${Array<string>(5000).fill('"d":{"x":1,"x":2,"l":[{"y":1,"y":1}]}').join(',')}}`));
    expect(r.duplicateFields).toEqual([`${prefix}.d.x`, `${prefix}.d.l[0].y`, `${prefix}.d`]);
  });
});

describe('parseJsonExactTask: the same parse, in steps', () => {
  /** Runs the task giving way after every step; how many times it gave way. */
  const sliced = async (text: string, int64 = false) => {
    let pauses = 0;
    const result = await runTaskSliced(
      parseJsonExactTask(text, { int64 }),
      async () => {
        pauses++;
      },
      0,
    );
    return { result, pauses };
  };
  const wide = JSON.stringify({
    spec: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, [i, i + 0.5, { d: 1 }]])),
  }).replace('"k4999":', '"k0":1,"k4999":');

  it('gives way between values, and finds what parseJsonExact finds', async () => {
    const { result, pauses } = await sliced(wide);
    expect(pauses).toBeGreaterThan(10);
    expect(result).toStrictEqual(parseJsonExact(wide));
    expect(result.duplicateFields).toEqual(['spec.k0']);
    expect(result.floatLiterals.has('spec.k4998[1]')).toBe(true);
  });

  it('throws the error parseJsonExact throws, however far in', async () => {
    const broken = `${wide.slice(0, -2)},]}`;
    const want = (() => {
      try {
        parseJsonExact(broken);
      } catch (err) {
        return err;
      }
    })();
    expect(want).toBeInstanceOf(JsonSyntaxError);
    await expect(sliced(broken)).rejects.toStrictEqual(want);
  });

  it('keeps two parses apart when their steps interleave (int64 or not)', async () => {
    const big = `[${Array(3000).fill('9007199254740993').join(',')}]`;
    const [a, b] = await Promise.all([sliced(big, true), sliced(big)]);
    expect(a.result.value).toStrictEqual(parseJsonExact(big, { int64: true }).value);
    expect(b.result.value).toStrictEqual(parseJsonExact(big).value);
  });
});

describe('parseJsonExact: asciiBytes', () => {
  it('finds what the text alone gives, strings copied from the bytes', async () => {
    const long = 'a string longer than V8 copies';
    const text = JSON.stringify({
      [`${long} as a key`]: [long, `${long}\n"escaped"\u0001 ${long}`, 'short', '', 1.5, 42],
      nested: { a: long, b: { c: `\\${long}\\` } },
    })
      .replace('42', '9007199254740993')
      .replace('"nested":', `"nested":{"a":"${long}"},"nested":`);
    const bytes = Buffer.from(text);
    for (const int64 of [false, true]) {
      const plain = parseJsonExact(text, { int64 });
      expect(parseJsonExact(text, { int64, asciiBytes: bytes })).toStrictEqual(plain);
      const stepped = await runTaskSliced(parseJsonExactTask(text, { int64, asciiBytes: bytes }), async () => {}, 0);
      expect(stepped).toStrictEqual(plain);
    }
    expect(parseJsonExact(text).duplicateFields).toEqual(['nested']);
  });

  it('throws what the text alone throws', () => {
    const text = `{"k":"${'x'.repeat(20)}\\q"}`;
    expect(() => parseJsonExact(text, { asciiBytes: Buffer.from(text) })).toThrow(
      "invalid character 'q' in string escape code",
    );
  });

  it('gives what JSON.parse gives, on any ASCII JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: fc.constantFrom(...'abc"\\/\n\u0001 ') }), (v) => {
        const text = JSON.stringify(v);
        expect(parseJsonExact(text, { asciiBytes: Buffer.from(text) }).value).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseJsonExact: properties', () => {
  it('parses what JSON.stringify writes, as JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), fc.constantFrom(undefined, 2, '\t'), (v, indent) => {
        const text = JSON.stringify(v, null, indent);
        const r = parseJsonExact(text);
        expect(r.value).toStrictEqual(JSON.parse(text));
        expect(r.duplicateFields).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('reads numeric literals as JSON.parse does, and flags fractions and exponents', () => {
    const digits = (min: number, max: number) =>
      fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
    const literal = fc
      .tuple(
        fc.boolean(),
        fc.oneof(
          fc.constant('0'),
          fc.tuple(fc.constantFrom(...'123456789'), digits(0, 20)).map(([a, b]) => a + b),
        ),
        fc.option(digits(1, 20)),
        fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 330 }))),
      )
      .map(
        ([neg, int, frac, exp]) =>
          `${neg ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : `${exp[0]}${exp[1]}${exp[2]}`}`,
      );
    fc.assert(
      fc.property(literal, (lit) => {
        const want = JSON.parse(lit) as number;
        if (!Number.isFinite(want)) {
          expect(() => parseJsonExact(lit)).toThrow(JsonSyntaxError);
          return;
        }
        const r = parseJsonExact(`{"x":${lit}}`);
        expect(Object.is((r.value as { x: number }).x, want)).toBe(true);
        const big = /[.eE]/.test(lit) ? 0n : BigInt(lit);
        const isFloat = /[.eE]/.test(lit) || big > 9223372036854775807n || big < -9223372036854775808n;
        expect(r.floatLiterals.has('x')).toBe(isFloat);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        const text = JSON.stringify([d]);
        expect(parseJsonExact(text).value).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts exactly what JSON.parse accepts (but numbers beyond float64)', () => {
    const alphabet = [...'{}[],:"\\ \n\t0123456789-+.eEtruefalsnl/ubx'];
    const containsInfinity = (v: unknown): boolean =>
      typeof v === 'number'
        ? !Number.isFinite(v)
        : typeof v === 'object' && v !== null && Object.values(v).some(containsInfinity);
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 24 }), (text) => {
        let want: unknown;
        let ok = true;
        try {
          want = JSON.parse(text);
        } catch {
          ok = false;
        }
        if (ok && !containsInfinity(want)) expect(parseJsonExact(text).value).toStrictEqual(want);
        else expect(() => parseJsonExact(text)).toThrow(JsonSyntaxError);
      }),
      { numRuns: 5000 },
    );
  });
});
