// kube's YAML encoding (sigs.k8s.io/yaml.JSONToYAML over go-yaml v2), table-first: what go-yaml v2
// writes for each kind of scalar, its key order, block layout and line folding.
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { encodeYaml, encodeYamlChunks, formatFloatG, keyLess } from '../../../../server/codecs/yaml-encode.js';

/** The YAML line for `{v: value}`. */
const line = (value: unknown): string => encodeYaml({ v: value });

describe('strings', () => {
  it.each<[string, string]>([
    ['hello', 'v: hello\n'],
    ['hello world', 'v: hello world\n'],
    ['é', 'v: é\n'],
    ["it's", "v: it's\n"],
    ['a#b', 'v: a#b\n'],
    ['a:b', 'v: a:b\n'],
    ['?x', 'v: ?x\n'],
    // What would read back as something else is double-quoted (go-yaml's resolve).
    ['', 'v: ""\n'],
    ['123', 'v: "123"\n'],
    ['-7', 'v: "-7"\n'],
    ['+1', 'v: "+1"\n'],
    ['1.5', 'v: "1.5"\n'],
    ['.5', 'v: ".5"\n'],
    ['1e3', 'v: "1e3"\n'],
    ['0x1F', 'v: "0x1F"\n'],
    ['017', 'v: "017"\n'],
    ['08', 'v: "08"\n'],
    ['1_000', 'v: "1_000"\n'],
    ['0b101', 'v: "0b101"\n'],
    ['true', 'v: "true"\n'],
    ['False', 'v: "False"\n'],
    ['yes', 'v: "yes"\n'],
    ['y', 'v: "y"\n'],
    ['N', 'v: "N"\n'],
    ['on', 'v: "on"\n'],
    ['off', 'v: "off"\n'],
    ['null', 'v: "null"\n'],
    ['~', 'v: "~"\n'],
    ['.inf', 'v: ".inf"\n'],
    ['-.Inf', 'v: "-.Inf"\n'],
    ['.NaN', 'v: ".NaN"\n'],
    ['<<', 'v: "<<"\n'],
    ['2024-01-01T00:00:00Z', 'v: "2024-01-01T00:00:00Z"\n'],
    ['2024-01-01T10:00:00.123+02:00', 'v: "2024-01-01T10:00:00.123+02:00"\n'],
    ['2024-1-2', 'v: "2024-1-2"\n'],
    ['2024-01-01 10:00:00', 'v: "2024-01-01 10:00:00"\n'],
    ['12:30', 'v: "12:30"\n'],
    ['190:20:30', 'v: "190:20:30"\n'],
    // Not numbers or timestamps after all: plain.
    ['2024-13-01', 'v: 2024-13-01\n'],
    ['1.2.3', 'v: 1.2.3\n'],
    ['12:70', 'v: 12:70\n'], // not base 60: 70 is no sexagesimal digit pair
    ['NaN', 'v: NaN\n'],
    ['Infinity', 'v: Infinity\n'],
    ['0xZZ', 'v: 0xZZ\n'],
    // Indicators: single-quoted.
    ['x: y', "v: 'x: y'\n"],
    ['- z', "v: '- z'\n"],
    ['#c', "v: '#c'\n"],
    ['a #b', "v: 'a #b'\n"],
    ['---', "v: '---'\n"],
    ['@x', "v: '@x'\n"],
    ['`x', "v: '`x'\n"],
    ["'q'", "v: '''q'''\n"],
    ['*x', "v: '*x'\n"],
    ['trailing ', "v: 'trailing '\n"],
    [' leading', "v: ' leading'\n"],
    // Characters YAML cannot hold plainly: double-quoted with escapes.
    ['tab\there', 'v: "tab\\there"\n'],
    ['😀', 'v: "\\U0001F600"\n'],
    ['a"b\u0007', 'v: "a\\"b\\a"\n'],
    ['\u00a0', 'v: \u00a0\n'], // printable to libyaml: plain
    ['x\u0085', 'v: "x\\N"\n'],
    ['cr\r', 'v: "cr\\r"\n'],
    // Multi-line: literal, with its chomping and indentation hints.
    ['a\nb\n', 'v: |\n  a\n  b\n'],
    ['a\nb', 'v: |-\n  a\n  b\n'],
    ['a\n\n', 'v: |+\n  a\n\n'],
    [' a\nb', 'v: |2-\n   a\n  b\n'],
    ['space \nbreak', 'v: "space \\nbreak"\n'],
  ])('%j', (s, want) => {
    expect(line(s)).toBe(want);
  });

  it('folds a long plain string at the first space past column 80, continued one indent deeper', () => {
    const s = `${'a'.repeat(30)} ${'b'.repeat(60)} c d`;
    expect(encodeYaml({ k: { v: s } })).toBe(`k:\n  v: ${'a'.repeat(30)} ${'b'.repeat(60)}\n    c d\n`);
    expect(parseYaml(encodeYaml({ k: { v: s } }))).toEqual({ k: { v: s } });
  });

  it('folds a long double-quoted string, escaping a space that starts the next line', () => {
    const s = `${'x'.repeat(85)}  \ty`;
    const out = line(s);
    expect(out).toBe(`v: "${'x'.repeat(85)}\n  \\ \\ty"\n`);
    expect(parseYaml(out)).toEqual({ v: s });
  });

  it('a multi-line string inside a sequence', () => {
    expect(encodeYaml({ v: ['a\nb'] })).toBe('v:\n- |-\n  a\n  b\n');
  });
});

describe('numbers, booleans, null', () => {
  it.each<[unknown, string]>([
    [0, '0'],
    [-0, '0'],
    [42, '42'],
    [-42, '-42'],
    [0.5, '0.5'],
    [-2.5, '-2.5'],
    [123456.5, '123456.5'],
    [1234567.5, '1.2345675e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1e-7, '1e-07'],
    [1e21, '1e+21'],
    [1e20, '1e+20'],
    [2 ** 63, '9223372036854776000'],
    [9223372036854775807n, '9223372036854775807'],
    [-9223372036854775808n, '-9223372036854775808'],
    [true, 'true'],
    [false, 'false'],
    [null, 'null'],
  ])('%s', (v, want) => {
    expect(line(v)).toBe(`v: ${want}\n`);
  });

  it('formatFloatG is strconv.FormatFloat(f, g, -1, 64)', () => {
    expect([1.5, 100, 1e6, 1e-4, 3.0e-5, 12345.678, 1.7976931348623157e308, 5e-324].map(formatFloatG)).toEqual([
      '1.5',
      '100',
      '1e+06',
      '0.0001',
      '3e-05',
      '12345.678',
      '1.7976931348623157e+308',
      '5e-324',
    ]);
  });
});

describe('layout', () => {
  it('keys in go-yaml natural order: non-letters first, letters by code point, digit runs by value', () => {
    const keys = ['b', 'a10', 'a9', 'A', '_x', '1', 'a09', 'a1b'];
    expect([...keys].sort((x, y) => (keyLess(x, y) ? -1 : keyLess(y, x) ? 1 : 0))).toEqual([
      '_x',
      '1',
      'A',
      'a1b',
      'a9',
      'a09',
      'a10',
      'b',
    ]);
    expect(encodeYaml({ b: 1, a10: 2, a9: 3 })).toBe('a9: 3\na10: 2\nb: 1\n');
  });

  it('block mappings, sequences not indented under their key, sequences in sequences, empty collections in flow style', () => {
    expect(encodeYaml({ m: { x: [1, [2, 3], { k: 'v', e: [] }], empty: {} }, z: [] })).toBe(
      ['m:', '  empty: {}', '  x:', '  - 1', '  - - 2', '    - 3', '  - e: []', '    k: v', 'z: []', ''].join('\n'),
    );
    expect(encodeYaml({})).toBe('{}\n');
    expect(encodeYaml([])).toBe('[]\n');
    expect(encodeYaml([{ a: 1 }, 2])).toBe('- a: 1\n- 2\n');
  });

  it('keys that need quoting are quoted as values are', () => {
    expect(encodeYaml({ '1': 'a', y: 'b', '': 'c', 'a: b': 'd' })).toBe('"": c\n"1": a\n\'a: b\': d\n"y": b\n');
  });

  it('a key longer than 128 bytes is a complex key', () => {
    const k = 'k'.repeat(129);
    expect(encodeYaml({ [k]: 'v' })).toBe(`? ${k}\n: v\n`);
    expect(parseYaml(encodeYaml({ [k]: 'v' }))).toEqual({ [k]: 'v' });
  });

  it('drops what JSON drops', () => {
    expect(encodeYaml({ a: undefined, b: 1 })).toBe('b: 1\n');
  });

  it('writes documents nested 10,000 deep without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const out = encodeYaml(deep);
    expect(out.startsWith('a:\n  a:\n    a:\n')).toBe(true);
    expect(out.endsWith(`${' '.repeat(2 * 9_999)}a: 1\n`)).toBe(true);
  });

  it('reads back as the document it came from', () => {
    const doc = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', annotations: { 'a/b': 'yes', n: '0755', t: 'x\ty' } },
      data: { script: '#!/bin/sh\necho "hi"\n' },
    };
    expect(parseYaml(encodeYaml(doc))).toEqual(doc);
  });
});

describe('encodeYamlChunks', () => {
  const list = {
    apiVersion: 'v1',
    kind: 'ConfigMapList',
    metadata: { resourceVersion: '12' },
    items: Array.from({ length: 40 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, labels: { n: String(i) } },
      data: {
        text: 'a line long enough to be folded by go-yaml once it passes the eightieth column of its line',
        script: '#!/bin/sh\necho "hi"\n',
      },
    })),
  };

  it.each([1, 7, 100, 4096])("pieces of about %i characters join into encodeYaml's text", (size) => {
    const chunks = [...encodeYamlChunks(list, size)];
    expect(chunks.join('')).toBe(encodeYaml(list));
    // Every written piece but the last is at least the size asked for (the empty ones come while
    // the items are round-tripped): the work is split, not just the text.
    const written = chunks.filter((c) => c !== '');
    expect(written.slice(0, -1).every((c) => c.length >= size)).toBe(true);
    expect(chunks.length).toBeGreaterThan(1);
  });

  it('a short document is one piece', () => {
    expect([...encodeYamlChunks({ a: 1 }, 4096)]).toEqual(['a: 1\n']);
  });
});

describe('encodeYamlChunks: a list round-tripped item by item', () => {
  it('leaves out what JSON leaves out, as a round trip of the whole list would', () => {
    const list = {
      kind: 'List',
      items: [{ a: 1, gone: undefined }, undefined, { toJSON: () => ({ b: 2 }) }],
      extra: undefined,
    };
    expect([...encodeYamlChunks(list, 1)].join('')).toBe(encodeYaml(JSON.parse(JSON.stringify(list))));
    expect(encodeYaml(list)).toBe('items:\n- a: 1\n- null\n- b: 2\nkind: List\n');
  });
});
