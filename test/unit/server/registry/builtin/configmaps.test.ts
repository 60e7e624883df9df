// core/v1 ConfigMap's strategy against kube's ValidateConfigMap and ValidateConfigMapUpdate texts
// (pkg/apis/core/validation), printed as kube's 422 prints them.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../../apimachinery/object.js';
import { formatFieldError } from '../../../../../apimachinery/field-errors.js';
import {
  CONFIG_MAP_COLUMNS,
  configMapDataCount,
  configMapStrategy,
} from '../../../../../server/registry/builtin/configmaps.js';
import { runStep } from '../../../../../apimachinery/structured-merge/trampoline.js';

const cm = (fields: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, ...fields }) as KubeObject;
const ctx = { dryRun: false };
const texts = (errs: { field: string }[]): string[] =>
  errs.map((e) => formatFieldError(e as Parameters<typeof formatFieldError>[0])).sort();
const KEY_REGEX =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

describe('ConfigMap create validation', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['plain data', { data: { a: 'b', 'key.name': 'x', KEY_NAME: '', 'key-name': 'y' } }, []],
    ['binary data', { binaryData: { bin: Buffer.from([0, 1, 2]).toString('base64') } }, []],
    ['nothing at all', {}, []],
    ['a key with a slash', { data: { 'a/b': 'x' } }, [`data[a/b]: Invalid value: "a/b": ${KEY_REGEX}`]],
    ['an empty key', { data: { '': 'x' } }, [`data[]: Invalid value: "": ${KEY_REGEX}`]],
    ['the key "."', { data: { '.': 'x' } }, [`data[.]: Invalid value: ".": must not be '.'`]],
    ['the key ".."', { data: { '..': 'x' } }, [`data[..]: Invalid value: "..": must not be '..'`]],
    [
      'a key starting with ".."',
      { binaryData: { '..a': '' } },
      [`binaryData[..a]: Invalid value: "..a": must not start with '..'`],
    ],
    [
      'a key of 254 bytes',
      { data: { ['a'.repeat(254)]: '' } },
      [`data[${'a'.repeat(254)}]: Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters`],
    ],
    [
      'a key in both maps',
      { data: { k: 'x' }, binaryData: { k: 'eA==' } },
      ['data[k]: Invalid value: "k": duplicate of key present in binaryData'],
    ],
    ['1 MiB exactly', { data: { a: 'x'.repeat(1024 * 1024) } }, []],
    [
      'one byte over 1 MiB in data',
      { data: { a: 'x'.repeat(1024 * 1024), b: 'y' } },
      ['[]: Too long: must have at most 1048576 bytes'],
    ],
    [
      'over 1 MiB across data and binaryData',
      { data: { a: 'x'.repeat(1024 * 1024) }, binaryData: { b: 'eQ==' } },
      ['[]: Too long: must have at most 1048576 bytes'],
    ],
    [
      'multi-byte characters counted as UTF-8 bytes',
      { data: { a: 'é'.repeat(512 * 1024 + 1) } },
      ['[]: Too long: must have at most 1048576 bytes'],
    ],
  ])('%s', (_name, fields, want) => {
    expect(texts(runStep(configMapStrategy.create.validate(cm(fields), ctx)))).toEqual(want);
  });
});

describe('ConfigMap update validation', () => {
  const frozen = cm({ immutable: true, data: { a: 'b' }, binaryData: { c: 'ZA==' } });
  it.each<[string, KubeObject, KubeObject, string[]]>([
    ['a mutable one changes freely', cm({ data: { a: 'z' } }), cm({ data: { a: 'b' } }), []],
    ['it may become immutable', cm({ immutable: true, data: { a: 'b' } }), cm({ data: { a: 'b' } }), []],
    [
      'an immutable one keeps its data (labels may change)',
      cm({ immutable: true, data: { a: 'b' }, binaryData: { c: 'ZA==' }, metadata: { name: 'c', labels: { x: 'y' } } }),
      frozen,
      [],
    ],
    [
      'its data is frozen',
      cm({ immutable: true, data: { a: 'z' }, binaryData: { c: 'ZA==' } }),
      frozen,
      ['data: Forbidden: field is immutable when `immutable` is set'],
    ],
    [
      'its binaryData is frozen',
      cm({ immutable: true, data: { a: 'b' } }),
      frozen,
      ['binaryData: Forbidden: field is immutable when `immutable` is set'],
    ],
    [
      'the flag cannot be cleared',
      cm({ immutable: false, data: { a: 'b' }, binaryData: { c: 'ZA==' } }),
      frozen,
      ['immutable: Forbidden: field is immutable when `immutable` is set'],
    ],
    [
      'dropping the flag and the data: both',
      cm({}),
      frozen,
      [
        'binaryData: Forbidden: field is immutable when `immutable` is set',
        'data: Forbidden: field is immutable when `immutable` is set',
        'immutable: Forbidden: field is immutable when `immutable` is set',
      ],
    ],
    [
      'the new object is validated too',
      cm({ data: { 'a/b': '' } }),
      cm({}),
      [`data[a/b]: Invalid value: "a/b": ${KEY_REGEX}`],
    ],
  ])('%s', (_name, next, old, want) => {
    expect(texts(runStep(configMapStrategy.update.validate(next, old, ctx)))).toEqual(want);
  });
});

describe('ConfigMap decoding and printing', () => {
  it("binaryData that is not base64 fails as kube's decoder fails (400)", () => {
    expect(() => configMapStrategy.canonicalize(cm({ binaryData: { a: 'no!' } }), ctx)).toThrow(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 2',
    );
  });
  it.each<[string, Record<string, unknown>, string]>([
    [
      'a number in data',
      { data: { a: 5 } },
      'json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    ],
    [
      'an object in data',
      { data: { a: {} } },
      'json: cannot unmarshal object into Go struct field ConfigMap.data of type string',
    ],
    [
      'a bool in binaryData',
      { binaryData: { a: true } },
      'json: cannot unmarshal bool into Go struct field ConfigMap.binaryData of type []uint8',
    ],
  ])('%s does not decode (400)', (_name, fields, message) => {
    expect(() => configMapStrategy.canonicalize(cm(fields), ctx)).toThrow(
      `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${message}`,
    );
  });
  it('null values decode (a nil string is "", a nil []byte null)', () => {
    expect(() => configMapStrategy.canonicalize(cm({ data: { a: null }, binaryData: { b: null } }), ctx)).not.toThrow();
  });
  it('a patch answers the decode failure its own way', () => {
    const decodeError = (m: string): never => {
      throw new Error(`patch: ${m}`);
    };
    expect(() =>
      configMapStrategy.canonicalize(cm({ binaryData: { a: 'YQ' } }), { dryRun: false, decodeError }),
    ).toThrow('patch: illegal base64 data at input byte 0');
  });
  it('counts data and binaryData keys for the DATA column, declared as kube declares it', () => {
    expect(configMapDataCount(cm({ data: { a: '', b: '' }, binaryData: { c: '' } }))).toBe(3);
    expect(configMapDataCount(cm({}))).toBe(0);
    expect(CONFIG_MAP_COLUMNS.map((c) => [c.name, c.type])).toEqual([
      ['Data', 'string'],
      ['Age', 'string'],
    ]);
  });
  it("field selectors: only metadata, with core/v1's error text", () => {
    expect(configMapStrategy.fieldLabels('metadata.name', 'x')).toEqual({ label: 'metadata.name', value: 'x' });
    expect(configMapStrategy.fieldLabels('data.a', 'x')).toEqual({
      error: 'field label "data.a" not supported for "ConfigMap"',
    });
  });
});
