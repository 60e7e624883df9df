// The hostile inputs themselves, as data: texts and bytes that the fuzz files send as whole bodies
// or splice into an otherwise well-formed object. Built once, lazily where they are big.

/** kube-apiserver's request body limit. */
export const MIB = 1024 * 1024;
export const BODY_LIMIT = 3 * MIB;

/** A hostile input: a whole body, or (inject) a JSON value's text spliced into a valid object. */
export interface Hostile {
  name: string;
  data: string | Buffer;
  /** Content-Type; JSON when absent. */
  type?: string;
}

export const DEPTHS = [1000, 10_000, 100_000] as const;

/** `[[[…]]]`, optionally unclosed. */
export const deepArray = (n: number, closed = true): string => '['.repeat(n) + (closed ? ']'.repeat(n) : '');
/** `{"a":{"a":…1…}}`, optionally unclosed. */
export const deepObject = (n: number, closed = true): string => '{"a":'.repeat(n) + (closed ? `1${'}'.repeat(n)}` : '');
/** `[{"a":[{"a":…`: both kinds alternating, closed. */
export const deepMixed = (n: number): string => '[{"a":'.repeat(n) + '1' + '}]'.repeat(n);

/** A JSON string literal of `bytes` bytes of text (quotes included). */
export const bigString = (bytes: number): string => `"${'a'.repeat(Math.max(0, bytes - 2))}"`;

/** Numbers a JSON decoder must not choke on: past float64, past int64, -0, absurd precision. */
export const NUMBERS: readonly string[] = [
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '-0.0',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '99999999999999999999',
  '123456789012345678901234567890.5',
  '1.7976931348623157e309',
  '4.9e-325',
  `1${'0'.repeat(100_000)}`,
  `0.${'0'.repeat(10_000)}1`,
  '1E+2',
  '0e0',
];

/** Syntax that is not JSON, or JSON that is not an object. */
export const MALFORMED: readonly string[] = [
  '',
  ' \n\t ',
  'null',
  '[]',
  '"a string"',
  '0',
  'true',
  '{',
  '}',
  '{"a":',
  '{"a" 1}',
  "{'a':1}",
  '{"a":1,}',
  '[1,]',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":undefined}',
  '{"a":01}',
  '{"a":1.}',
  '{"a":.1}',
  '{"a":+1}',
  '{"a":1e}',
  '{"a":"\\ud800"}',
  '{"a":"\\udc00\\ud800"}',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":"tab\there"}',
  '{"a":"\u0000"}',
  '\u0000',
  '\ufeff{}',
  '{}{}',
  '{} []',
  '{"a":1}garbage',
  'tru',
  '/* comment */ {}',
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
];

/** Bytes that are not UTF-8 in strings, keys, and at the very end. */
export function invalidUtf8(): Hostile[] {
  const inString = (bytes: number[]): Buffer =>
    Buffer.concat([Buffer.from('{"a":"x'), Buffer.from(bytes), Buffer.from('y"}')]);
  return [
    { name: 'a 0xff byte in a string', data: inString([0xff]) },
    { name: 'an overlong encoding of /', data: inString([0xc0, 0xaf]) },
    { name: 'a UTF-8 encoded surrogate', data: inString([0xed, 0xa0, 0x80]) },
    { name: 'a 5-byte sequence', data: inString([0xf8, 0x88, 0x80, 0x80, 0x80]) },
    { name: 'a lone continuation byte', data: inString([0x80]) },
    { name: 'a code point past U+10FFFF', data: inString([0xf4, 0x90, 0x80, 0x80]) },
    {
      name: 'invalid bytes in a key',
      data: Buffer.concat([Buffer.from('{"'), Buffer.from([0xfe, 0xff]), Buffer.from('":1}')]),
    },
    {
      name: 'a truncated sequence at the end',
      data: Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xe2, 0x82])]),
    },
    { name: 'UTF-16 (a BOM and NULs)', data: Buffer.from('\ufeff{"a":1}', 'utf16le') },
  ];
}

/** Billion laughs: 10 levels, each alias list expanding the previous ten times. */
export function billionLaughs(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  const names = 'abcdefghij';
  for (let i = 1; i < names.length; i++) {
    const p = names[i - 1]!;
    lines.push(`${names[i]}: &${names[i]} [${Array(10).fill(`*${p}`).join(',')}]`);
  }
  return `${lines.join('\n')}\n`;
}

/** YAML that is legal but hostile, and YAML that is not legal at all. */
export function yamlCases(valid: string): Hostile[] {
  const Y = 'application/yaml';
  const bigScalar = 'x'.repeat(100 * 1024);
  return [
    { name: 'billion laughs', data: billionLaughs(), type: Y },
    {
      name: 'billion laughs inside an object',
      data: `${billionLaughs()}apiVersion: v1\nkind: Namespace\nmetadata: {name: lol}\nspec: {x: *j}\n`,
      type: Y,
    },
    {
      name: 'quadratic blow-up: a 100 KiB anchor aliased 10,000 times',
      data: `s: &s ${bigScalar}\nl: [${Array(10_000).fill('*s').join(',')}]\n`,
      type: Y,
    },
    { name: 'a self-referencing alias', data: 'a: &a [*a]\n', type: Y },
    { name: 'an undefined alias', data: 'a: *nowhere\n', type: Y },
    {
      name: 'tags: !!binary, !!set, !!omap, !!timestamp',
      data: `${valid}x1: !!binary aGVsbG8=\nx2: !!set {a, b}\nx3: !!omap [a: 1]\nx4: !!timestamp 2001-12-14t21:59:43.10-05:00\n`,
      type: Y,
    },
    {
      name: 'a language tag (!!python/object/apply)',
      data: `${valid}x: !!python/object/apply:os.system ["true"]\n`,
      type: Y,
    },
    {
      name: 'an unknown local tag and a verbatim tag',
      data: `${valid}x: !foo bar\ny: !<tag:yaml.org,2002:str> z\n`,
      type: Y,
    },
    {
      name: '!!int past int64 and !!float .inf/.nan',
      data: `${valid}spec: {n: !!int 0x7fffffffffffffffffff, f: .nan, g: .inf, h: -.inf}\n`,
      type: Y,
    },
    {
      name: 'merge keys, single and list',
      data: `base: &b {a: 1, b: [1, 2]}\n${valid}spec:\n  <<: *b\n  x:\n    <<: [*b, *b, {c: 3}]\n`,
      type: Y,
    },
    { name: 'a merge key of a scalar', data: `${valid}spec:\n  <<: 1\n`, type: Y },
    { name: 'multi-document', data: `---\n${valid}---\n${valid}`, type: Y },
    { name: 'multi-document, first empty', data: `---\n---\n${valid}`, type: Y },
    { name: 'only document markers', data: '---\n...\n---\n...\n', type: Y },
    { name: 'a directive', data: `%YAML 1.1\n%TAG ! tag:evil.example.com,2000:\n---\n${valid}`, type: Y },
    { name: 'tabs as indentation', data: 'a:\n\tb: 1\n', type: Y },
    { name: 'duplicate keys', data: `${valid}x: 1\nx: 2\n`, type: Y },
    {
      name: '__proto__ key',
      data: `${valid}__proto__: {polluted: true}\nspec: {__proto__: {polluted: true}}\n`,
      type: Y,
    },
    { name: 'a sequence root', data: '- 1\n- 2\n', type: Y },
    { name: 'a scalar root', data: 'just a string\n', type: Y },
    {
      name: 'invalid UTF-8',
      data: Buffer.concat([Buffer.from(valid), Buffer.from('x: "'), Buffer.from([0xff, 0xfe]), Buffer.from('"\n')]),
      type: Y,
    },
    ...DEPTHS.map((n) => ({ name: `flow sequences ${n} deep`, data: deepArray(n), type: Y })),
    ...DEPTHS.map((n) => ({ name: `flow mappings ${n} deep`, data: '{a: '.repeat(n) + '1' + '}'.repeat(n), type: Y })),
    ...DEPTHS.map((n) => ({ name: `block sequences ${n} deep on one line`, data: `${'- '.repeat(n)}1\n`, type: Y })),
    {
      name: 'block mappings 2,000 deep by indentation',
      data: Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n',
      type: Y,
    },
    { name: 'YAML in a JSON-typed body', data: valid, type: 'application/json' },
  ];
}

/** Garbage sent as kube protobuf (the `k8s\0` envelope), which custom resources cannot decode anyway. */
export function protobufCases(): Hostile[] {
  const P = 'application/vnd.kubernetes.protobuf';
  const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
  // Field 1 (length-delimited) nested n deep: each level wraps the previous one.
  let nested = Buffer.alloc(0);
  for (let i = 0; i < 10_000; i++) nested = Buffer.concat([Buffer.from([0x0a]), varint(nested.length), nested]);
  const pseudo = Buffer.alloc(4096);
  for (let i = 0, x = 12345; i < pseudo.length; i++) pseudo[i] = (x = (x * 1103515245 + 12345) & 0x7fffffff) & 0xff;
  // A valid Namespace in its runtime.Unknown envelope, and field number 0 (gogo's illegal tag) where it ends.
  const ld = (field: number, bytes: Buffer): Buffer =>
    Buffer.concat([Buffer.from([(field << 3) | 2]), varint(bytes.length), bytes]);
  const typeMeta = ld(1, Buffer.concat([ld(1, Buffer.from('v1')), ld(2, Buffer.from('Namespace'))]));
  const namespace = (meta: Buffer): Buffer => ld(2, ld(1, meta));
  return [
    { name: 'empty', data: Buffer.alloc(0), type: P },
    { name: 'the magic alone', data: magic, type: P },
    {
      name: 'field number 0 after the envelope',
      data: Buffer.concat([magic, typeMeta, namespace(ld(1, Buffer.from('pb-zero'))), Buffer.from([0, 0])]),
      type: P,
    },
    {
      name: 'field number 0 in the metadata',
      data: Buffer.concat([
        magic,
        typeMeta,
        namespace(Buffer.concat([ld(1, Buffer.from('pb-zero')), Buffer.from([2, 0])])),
      ]),
      type: P,
    },
    {
      name: 'field number 0 alone in the object',
      data: Buffer.concat([magic, typeMeta, ld(2, Buffer.from([0x07]))]),
      type: P,
    },
    { name: 'pseudo-random bytes', data: pseudo, type: P },
    { name: 'the magic and pseudo-random bytes', data: Buffer.concat([magic, pseudo]), type: P },
    {
      name: 'a length prefix claiming 2^63 bytes',
      data: Buffer.concat([magic, Buffer.from([0x0a]), varint(2 ** 63)]),
      type: P,
    },
    {
      name: 'a varint that never ends',
      data: Buffer.concat([magic, Buffer.from([0x08]), Buffer.alloc(64, 0xff)]),
      type: P,
    },
    { name: 'messages nested 10,000 deep', data: Buffer.concat([magic, nested]), type: P },
    {
      name: 'JSON with a protobuf type',
      data: '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"p"}}',
      type: P,
    },
    { name: 'a protobuf stream type', data: Buffer.concat([magic, pseudo.subarray(0, 64)]), type: `${P};stream=watch` },
  ];
}

/** metadata of the wrong shape, which kube's decoder refuses: managedFields, labels, finalizers. */
export const METADATA_SHAPES: readonly unknown[] = [
  { managedFields: 'x' },
  { managedFields: [1] },
  { managedFields: [[{}]] },
  { managedFields: {} },
  { managedFields: [null, true] },
  { labels: 'x' },
  { labels: { a: 1 } },
  { annotations: [] },
  { finalizers: 'x' },
  { finalizers: [{}] },
  { name: 7 },
  { managedFields: 'x', creationTimestamp: 'soon' },
];

/** A protobuf varint (for lengths up to 2^63, so computed on a bigint). */
function varint(n: number): Buffer {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

/** Content types a PATCH might claim that are no patch type at all. */
export const BOGUS_PATCH_TYPES: readonly string[] = [
  'application/json',
  'application/foo-patch+json',
  'text/plain',
  '',
  'application/json-patch+json; charset=utf-16',
  'application/merge-patch+json;;;;==',
];

/** JSON patches with absurd paths, indices, operations and sizes. */
export function jsonPatchCases(): Hostile[] {
  const ops = (o: unknown): string => JSON.stringify(o);
  const deepPath = `/spec/free${'/a'.repeat(10_000)}`;
  // Each copy doubles /spec/free: without kube's copy-size limit this is 2^40 bytes.
  const doubling = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/spec/free', path: `/spec/free/c${i}` }));
  return [
    { name: 'add /spec/-', data: ops([{ op: 'add', path: '/spec/-', value: 1 }]) },
    { name: 'add /spec/items/-', data: ops([{ op: 'add', path: '/spec/items/-', value: 'x' }]) },
    { name: 'add /a/99999999999999999999', data: ops([{ op: 'add', path: '/a/99999999999999999999', value: 1 }]) },
    {
      name: 'add /spec/items/99999999999999999999',
      data: ops([{ op: 'add', path: '/spec/items/99999999999999999999', value: 'x' }]),
    },
    { name: 'add /spec/items/-99999999999', data: ops([{ op: 'add', path: '/spec/items/-99999999999', value: 'x' }]) },
    { name: 'replace /spec/items/1e3', data: ops([{ op: 'replace', path: '/spec/items/1e3', value: 'x' }]) },
    { name: 'remove /spec/items/01', data: ops([{ op: 'remove', path: '/spec/items/01' }]) },
    { name: 'replace the root with a number', data: ops([{ op: 'replace', path: '', value: 1 }]) },
    { name: 'replace the root with an empty object', data: ops([{ op: 'replace', path: '', value: {} }]) },
    { name: 'add at "/"', data: ops([{ op: 'add', path: '/', value: 1 }]) },
    { name: 'a path without a slash', data: ops([{ op: 'add', path: 'spec', value: 1 }]) },
    {
      name: 'bad ~ escapes',
      data: ops([
        { op: 'add', path: '/metadata/labels/~2', value: 'x' },
        { op: 'add', path: '/metadata/~', value: 1 },
      ]),
    },
    { name: 'remove /metadata', data: ops([{ op: 'remove', path: '/metadata' }]) },
    {
      name: 'remove apiVersion and kind',
      data: ops([
        { op: 'remove', path: '/apiVersion' },
        { op: 'remove', path: '/kind' },
      ]),
    },
    { name: 'rename the object', data: ops([{ op: 'replace', path: '/metadata/name', value: 'someone-else' }]) },
    {
      name: 'a resourceVersion of abc',
      data: ops([{ op: 'replace', path: '/metadata/resourceVersion', value: 'abc' }]),
    },
    { name: 'a resourceVersion of 1e400', data: '[{"op":"replace","path":"/metadata/resourceVersion","value":1e400}]' },
    {
      name: 'a generation past int64',
      data: '[{"op":"replace","path":"/metadata/generation","value":9223372036854775808}]',
    },
    { name: 'move a parent into its child', data: ops([{ op: 'move', from: '/spec', path: '/spec/free/x' }]) },
    { name: 'copy without from', data: ops([{ op: 'copy', path: '/spec/x' }]) },
    { name: 'copy doubling 40 times', data: ops(doubling) },
    { name: 'test with a mismatch', data: ops([{ op: 'test', path: '/spec', value: { nope: true } }]) },
    { name: 'an unknown op', data: ops([{ op: 'explode', path: '/spec' }]) },
    { name: 'an op that is a number, a path that is null', data: ops([{ op: 123, path: null }]) },
    { name: 'no op at all', data: ops([{ path: '/spec' }]) },
    { name: 'an operation that is not an object', data: ops([1, 'two', null, []]) },
    { name: 'an object instead of a list', data: ops({ op: 'add', path: '/spec/x', value: 1 }) },
    { name: 'a path 10,000 segments deep', data: ops([{ op: 'add', path: deepPath, value: 1 }]) },
    { name: 'a 1 MiB path', data: ops([{ op: 'add', path: `/spec/${'x'.repeat(MIB)}`, value: 1 }]) },
    {
      name: 'a value nested 100,000 deep',
      data: `[{"op":"add","path":"/spec/free/x","value":${deepObject(100_000)}}]`,
    },
    {
      name: '10,001 operations',
      data: ops(Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'x' }))),
    },
    {
      name: '60,000 operations',
      data: ops(Array.from({ length: 60_000 }, (_, i) => ({ op: 'add', path: `/spec/free/k${i % 50}`, value: i }))),
    },
  ];
}

/** Merge and strategic-merge patches that try to break identity, versions or directives. */
export function mergePatchCases(): Hostile[] {
  const j = (o: unknown): string => JSON.stringify(o);
  return [
    { name: 'metadata: null', data: j({ metadata: null }) },
    { name: 'spec: null', data: j({ spec: null }) },
    { name: 'apiVersion and kind changed', data: j({ apiVersion: 'v9', kind: 'Elsewhere' }) },
    { name: 'name changed', data: j({ metadata: { name: 'someone-else' } }) },
    { name: 'namespace changed', data: j({ metadata: { namespace: 'kube-system' } }) },
    { name: 'a resourceVersion of abc', data: j({ metadata: { resourceVersion: 'abc' } }) },
    { name: 'a resourceVersion past uint64', data: j({ metadata: { resourceVersion: '99999999999999999999999' } }) },
    { name: 'a numeric resourceVersion', data: '{"metadata":{"resourceVersion":1e400}}' },
    {
      name: 'uid and creationTimestamp garbage',
      data: j({ metadata: { uid: '../../etc', creationTimestamp: 'yesterday' } }),
    },
    { name: 'labels that are not strings', data: '{"metadata":{"labels":{"a":1e400,"b":null,"c":{"d":1}}}}' },
    { name: 'finalizers that are not strings', data: j({ metadata: { finalizers: [1, null, {}] } }) },
    { name: '$patch: delete', data: j({ $patch: 'delete' }) },
    { name: '$patch: replace', data: j({ $patch: 'replace', spec: {} }) },
    {
      name: '$setElementOrder and $retainKeys',
      data: j({ spec: { '$setElementOrder/items': [1, 2], $retainKeys: ['x'] } }),
    },
    { name: '$deleteFromPrimitiveList', data: j({ metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } }) },
    { name: 'a patch nested 10,000 deep', data: `{"spec":{"free":${deepObject(10_000)}}}` },
    { name: 'a patch nested 100,000 deep', data: `{"spec":{"free":${deepObject(100_000)}}}` },
    {
      name: '__proto__ and constructor',
      data: '{"__proto__":{"polluted":true},"spec":{"constructor":{"prototype":{"polluted":true}}}}',
    },
  ];
}
