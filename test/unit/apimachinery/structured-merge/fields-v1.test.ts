// Translated from SMD's fieldpath/serialize-pe_test.go and serialize_test.go.
import { describe, expect, it } from 'vitest';
import {
  FieldSet,
  FieldsV1Error,
  deserializePathElement,
  fieldElement,
  fieldSetToFieldsV1,
  fieldSetToFieldsV1JSON,
  fieldsV1ToFieldSet,
  indexElement,
  parseFieldsV1,
  serializePathElement,
  type Path,
  type PathElement,
} from '../../../../apimachinery/structured-merge/index.js';
import { KBF, NS, P, V } from './helpers.js';

describe('path element round trips (TestPathElementRoundTrip)', () => {
  it.each<[string, PathElement]>([
    ['i:0', indexElement(0)],
    ['i:1234', indexElement(1234)],
    ['f:', fieldElement('')],
    ['f:spec', fieldElement('spec')],
    ['f:more-complicated-string', fieldElement('more-complicated-string')],
    ['f: string-with-spaces   ', fieldElement(' string-with-spaces   ')],
    ['k:{"name":"my-container"}', KBF('name', 'my-container')],
    ['k:{"name":"   name with spaces   "}', KBF('name', '   name with spaces   ')],
    ['k:{"port":"8080","protocol":"TCP"}', KBF('port', '8080', 'protocol', 'TCP')],
    ['k:{"optionalField":null}', KBF('optionalField', null)],
    [
      'k:{"jsonField":{"A":1,"B":null,"C":"D","E":{"F":"G"}}}',
      KBF('jsonField', { A: 1, B: null, C: 'D', E: { F: 'G' } }),
    ],
    ['k:{"listField":["1","2","3"]}', KBF('listField', ['1', '2', '3'])],
    ['v:null', V(null)],
    ['v:"some-string"', V('some-string')],
    ['v:1234', V(1234)],
    ['v:{"some":"json"}', V({ some: 'json' })],
    ['v:{"some":" some  with spaces  "}', V({ some: ' some  with spaces  ' })],
    ['k:{"name":"app-🚀"}', KBF('name', 'app-🚀')],
    ['k:{"name":"app with-unicøde"}', KBF('name', 'app with-unicøde')],
    ['k:{"name":"你好世界"}', KBF('name', '你好世界')],
    ['k:{"name":"Привет, мир"}', KBF('name', 'Привет, мир')],
    ['f:spec-🚀', fieldElement('spec-🚀')],
    ['f:spec-\\n', fieldElement('spec-\\n')],
    // SMD's writer escapes as Go's encoding/json does: HTML characters and line separators.
    ['v:"a\\u003cb\\u003e\\u0026c\\u2028"', V('a<b>&c\u2028')],
    ['k:{"big":9223372036854775807}', KBF('big', 9223372036854775807n)],
  ])('%s', (text, pe) => {
    expect(deserializePathElement(text)).toEqual(pe);
    expect(serializePathElement(pe)).toBe(text);
  });

  it('sorts key fields by name when reading (k:{"protocol":...,"port":...})', () => {
    expect(deserializePathElement('k:{ "protocol":"udp","port":443}')).toEqual(KBF('port', 443, 'protocol', 'udp'));
  });

  it('returns undefined for unknown element types (TestPathElementIgnoreUnknown)', () => {
    expect(deserializePathElement('r:Hello')).toBeUndefined();
  });
});

describe('path element errors (TestDeserializePathElementError)', () => {
  it.each([
    '',
    'no-colon',
    'i:index is not a number',
    'i:1.23',
    'i:',
    'v:invalid json',
    'v:',
    'k:invalid json',
    'k:{"name":invalid}',
    'v:{"some":" \\x41"}',
    'v',
    'k',
    'f',
    'i',
    'v:{"a":"b"',
    'k:{"a":"b"',
    'i: 0',
    'i:0 ',
    'v:{"some":"json"} {"other":"json"}',
    'k:{"name":"my-container"} {"other":"my-container"}',
    'v:{"some":"json"} garbage',
    'k:{"name":"my-container"} garbage',
    'k:["a"]',
  ])('%j', (text) => {
    expect(() => deserializePathElement(text)).toThrow(FieldsV1Error);
  });

  it.each<[string, string]>([
    ['x', 'key must be 2 characters long:'],
    ['no-colon', 'missing colon: no-colon'],
    ['i:abc', 'strconv.Atoi: parsing "abc": invalid syntax'],
    ['i:99999999999999999999', 'strconv.Atoi: parsing "99999999999999999999": value out of range'],
  ])('message for %j', (text, message) => {
    expect(() => deserializePathElement(text)).toThrow(message);
  });
});

describe('path element successes (TestDeserializePathElementSuccess)', () => {
  it.each<[string, PathElement]>([
    ['v: {"some":"json"}', V({ some: 'json' })],
    ['k: {"name":"my-container"}', KBF('name', 'my-container')],
    ['v:{"some":"json"} ', V({ some: 'json' })],
    ['k:{"name":"my-container"} ', KBF('name', 'my-container')],
    ['k:{"name\\u002dcontainer":"my-container"}', KBF('name-container', 'my-container')],
    ['k:{"name\\nwith\\nnewlines":"my-container"}', KBF('name\nwith\nnewlines', 'my-container')],
    ['k:{"name-\\ud83d\\ude80":"my-container"}', KBF('name-🚀', 'my-container')],
    ['v:"value\\"quoted\\""', V('value"quoted"')],
    ['v:"\\u4f60\\u597d"', V('你好')],
    ['i:+7', indexElement(7)],
  ])('%s', (text, pe) => {
    expect(deserializePathElement(text)).toEqual(pe);
  });
});

const golden = [
  `{"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\\"name\\":\\"first\\"}":{},"k:{\\"name\\":\\"second\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\\"aa\\"":{},"v:\\"ab\\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}}`,
  `{"f:aaa":{"k:{\\"name\\":\\"second\\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"k:{\\"name\\":\\"first\\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\\"name\\":\\"second\\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\\"name\\":\\"first\\"}":{"k:{\\"name\\":\\"first\\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\\"name\\":\\"first\\"}":{"f:aad":{"f:aaf":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"f:aaa":{"f:aad":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"f:aac":{},"k:{\\"name\\":\\"first\\"}":{"i:3":{}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\\"name\\":\\"first\\"}":{},"i:2":{}},"v:\\"aa\\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\\"name\\":\\"first\\"}":{"f:aad":{}},"i:2":{}},"v:\\"ab\\"":{"f:aaf":{"i:4":{}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\\"name\\":\\"second\\"}":{"f:aaa":{}},"i:2":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\\"aa\\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\\"aa\\"":{"f:aab":{"k:{\\"name\\":\\"second\\"}":{}}}}}`,
  `{"f:spec":{".":{},"f:apps":{".":{},"k:{\\"name\\":\\" app-💻\\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"name\\":\\"port 🔑\\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}},"k:{\\"name\\":\\" app-🚀\\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"name\\":\\"port-✅ \\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}}}}}`,
];

describe('FieldsV1 sets (serialize_test.go)', () => {
  it.each(golden.map((g, i) => [i, g] as const))('golden data %i reads and writes back byte for byte', (_i, text) => {
    const set = parseFieldsV1(text);
    expect(fieldSetToFieldsV1JSON(set)).toBe(text);
    // The object form keeps the same key order, so JSON.stringify writes the same text.
    expect(JSON.stringify(fieldSetToFieldsV1(set))).toBe(text);
    expect(fieldsV1ToFieldSet(JSON.parse(text)).equals(set)).toBe(true);
  });

  it('normalises out-of-order and spaced input (TestDeserializeForValidNonNormalized)', () => {
    const messy = `{
  "f:aad": {}, "f:aaa": {}, "f:aab": {}, "f:aac": {}, "f:aae": {}, "f:aaf": {},
  "k:{\\"name\\":\\"first\\"}": {}, "k:{\\"name\\":\\"second\\"}": {},
  "k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}": {}, "k:{ \\"protocol\\":\\"udp\\",\\"port\\":443}": {},
  "v:1": {}, "v:2": {}, "v: 3": {}, "v:\\"aa\\"": {}, "v:\\"ab\\"": {}, "v:true": {},
  "i:1": {}, "i:2": {}, "i:3": {}  , "i:4":    {}
}`;
    const set = parseFieldsV1(messy);
    expect(fieldSetToFieldsV1JSON(set)).toBe(golden[0]);
    expect(set.equals(parseFieldsV1(golden[0]!))).toBe(true);
  });

  it.each([
    '[]',
    '42',
    '"hi"',
    '',
    '   ',
    '{1:{}}',
    '{"f:a":{},}',
    '{"f:a":}',
    '{"f:a":1}',
    '{"f:a":[]}',
    '{"f:a":{]}',
    '{"f:a":{},,"f:b":{}}',
    '{"f:a":{} "f:b":{}}',
    '{"":{}}',
    '{"x":{}}',
    '{":":{}}',
    '{',
    '{"f:a":{}',
    '{"f:a\\',
    '{"f:a":{}}}',
    '{"f:a":{}}{}',
    '{"f:a":{}}"string"',
    '{"f:a":{}}\n42',
    '{"f:a":{"i:x":{}}}',
  ])('rejects %j (TestSetFromJSONTokenTypeErrors)', (text) => {
    expect(() => parseFieldsV1(text)).toThrow(FieldsV1Error);
  });

  it.each(['{"f:a":{}} ', '{"f:a":{}}\t\n\r ', ' \t\n\r {"f:a":{}}', '  {}  ', '{ "f:a" : {} }', 'null', ' null '])(
    'accepts %j (TestSetFromJSON)',
    (text) => {
      expect(() => parseFieldsV1(text)).not.toThrow();
    },
  );

  it('names the bad key in its message', () => {
    expect(() => fieldsV1ToFieldSet({ 'f:a': { nocolon: {} } })).toThrow(
      'parsing key as path element: missing colon: nocolon',
    );
    expect(() => fieldsV1ToFieldSet({ 'f:a': 5 })).toThrow(FieldsV1Error);
  });

  it('drops unknown element types (TestDropUnknown)', () => {
    expect(fieldSetToFieldsV1JSON(parseFieldsV1('{"f:aaa":{},"r:aab":{}}'))).toBe('{"f:aaa":{}}');
  });

  it('reads null as a leaf and "." as membership', () => {
    const set = fieldsV1ToFieldSet({ 'f:a': null, 'f:b': { '.': {}, 'f:c': {} }, 'f:d': { 'f:e': {} } });
    expect(set.equals(NS(P('a'), P('b'), P('b', 'c'), P('d', 'e')))).toBe(true);
  });

  it('writes "." first for a member with children, and children in element order', () => {
    const set = NS(
      P('spec'),
      P('spec', 'replicas'),
      P('spec', 'template', 'metadata', 'labels', 'app'),
      P('metadata', 'labels', 'a'),
      P('spec', 'ports', KBF('port', 80, 'protocol', 'TCP')),
      P('spec', 'list', 2),
    );
    const v1 = fieldSetToFieldsV1(set);
    expect(Object.keys(v1)).toEqual(['f:metadata', 'f:spec']);
    expect(Object.keys(v1['f:spec']!)).toEqual(['.', 'f:list', 'f:ports', 'f:replicas', 'f:template']);
    expect(JSON.stringify(v1)).toBe(
      '{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{".":{},"f:list":{"i:2":{}},"f:ports":{"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{}},"f:replicas":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}}}}}',
    );
  });

  it('round-trips random sets (TestSerializeV1)', () => {
    const alphabet: PathElement[] = [
      ...P('aaa', 'aab', 'aac', 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'),
      KBF('name', 'привет'),
      KBF('name', '你好'),
      KBF('name', 'first'),
      KBF('port', 443, 'protocol', 'tcp'),
      KBF('key', ' value with spaces '),
      KBF('unicode-key', 'unicode-value-🔥'),
      V(1),
      V('aa'),
      V(true),
      V(-1),
      V(3.14159),
      V('string with "quotes"'),
      V(false),
      ...P(1, 2, 0, 100, 2147483648),
    ];
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 100; i++) {
      const set = new FieldSet();
      for (let j = 0; j < 50; j++) {
        const len = 2 + rand(4);
        const path: Path = Array.from({ length: len }, () => alphabet[rand(alphabet.length)]!);
        set.insert(path);
      }
      const text = fieldSetToFieldsV1JSON(set);
      const back = parseFieldsV1(text);
      expect(back.equals(set)).toBe(true);
      expect(fieldSetToFieldsV1JSON(back)).toBe(text);
    }
  });
});
