// core/v1 Secret's strategy against kube's ValidateSecret and ValidateSecretUpdate texts, its
// defaulting (type Opaque) and the v1 conversion's folding of stringData into data.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../../apimachinery/object.js';
import { formatFieldError, type FieldError } from '../../../../../apimachinery/field-errors.js';
import { SECRET_COLUMNS, secretDataCount, secretStrategy } from '../../../../../server/registry/builtin/secrets.js';
import { runStep } from '../../../../../apimachinery/structured-merge/trampoline.js';

const secret = (fields: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'default', ...metadata },
    ...fields,
  }) as KubeObject;
const ctx = { dryRun: false };
const texts = (errs: FieldError[]): string[] => errs.map(formatFieldError).sort();
const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('Secret create validation', () => {
  it.each<[string, KubeObject, string[]]>([
    ['an Opaque secret', secret({ type: 'Opaque', data: { a: b64('b') } }), []],
    ['no type (validation runs after defaulting; "" passes too)', secret({ data: { a: b64('b') } }), []],
    [
      'a bad key',
      secret({ type: 'Opaque', data: { 'a b': '' } }),
      [
        expect.stringMatching(
          /^data\[a b\]: Invalid value: "a b": a valid config key must consist/,
        ) as unknown as string,
      ],
    ],
    [
      'over 1 MiB of decoded data',
      secret({ type: 'Opaque', data: { a: b64('x'.repeat(1024 * 1024 + 1)) } }),
      ['data: Too long: must have at most 1048576 bytes'],
    ],
    ['1 MiB decoded (more base64)', secret({ type: 'Opaque', data: { a: b64('x'.repeat(1024 * 1024)) } }), []],
    [
      'service-account-token without its annotation',
      secret({ type: 'kubernetes.io/service-account-token' }),
      ['metadata.annotations[kubernetes.io/service-account.name]: Required value'],
    ],
    [
      'service-account-token with it',
      secret(
        { type: 'kubernetes.io/service-account-token' },
        { annotations: { 'kubernetes.io/service-account.name': 'sa' } },
      ),
      [],
    ],
    [
      'dockercfg without .dockercfg',
      secret({ type: 'kubernetes.io/dockercfg', data: {} }),
      ['data[.dockercfg]: Required value'],
    ],
    [
      'dockercfg that is not JSON',
      secret({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('x:1') } }),
      [
        `data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character 'x' looking for beginning of value`,
      ],
    ],
    [
      'dockercfg cut short',
      secret({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('{"a":') } }),
      ['data[.dockercfg]: Invalid value: "<secret contents redacted>": unexpected end of JSON input'],
    ],
    [
      'dockerconfigjson without its key',
      secret({ type: 'kubernetes.io/dockerconfigjson' }),
      ['data[.dockerconfigjson]: Required value'],
    ],
    [
      'dockerconfigjson that is a JSON array',
      secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('[1]') } }),
      [
        'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
      ],
    ],
    [
      'dockerconfigjson that is valid',
      secret({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } }),
      [],
    ],
    [
      'basic-auth with neither key',
      secret({ type: 'kubernetes.io/basic-auth', data: {} }),
      ['data[password]: Required value', 'data[username]: Required value'],
    ],
    ['basic-auth with only a password', secret({ type: 'kubernetes.io/basic-auth', data: { password: '' } }), []],
    [
      'ssh-auth with an empty key',
      secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }),
      ['data[ssh-privatekey]: Required value'],
    ],
    ['ssh-auth with a key', secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': b64('k') } }), []],
    [
      'tls with neither',
      secret({ type: 'kubernetes.io/tls' }),
      ['data[tls.crt]: Required value', 'data[tls.key]: Required value'],
    ],
    ['tls with both (may be empty)', secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }), []],
    ['bootstrap token: no required keys in ValidateSecret', secret({ type: 'bootstrap.kubernetes.io/token' }), []],
    ["a type of one's own", secret({ type: 'example.com/thing' }), []],
  ])('%s', (_name, obj, want) => {
    expect(texts(runStep(secretStrategy.create.validate(obj, ctx)))).toEqual(want);
  });
});

describe('Secret update validation', () => {
  const frozen = secret({ type: 'Opaque', immutable: true, data: { a: b64('b') } });
  it.each<[string, KubeObject, KubeObject, string[]]>([
    [
      'data changes on a mutable secret',
      secret({ type: 'Opaque', data: { a: b64('z') } }),
      secret({ type: 'Opaque', data: { a: b64('b') } }),
      [],
    ],
    [
      'type is immutable',
      secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }),
      secret({ type: 'Opaque' }),
      ['type: Invalid value: "kubernetes.io/tls": field is immutable'],
    ],
    [
      'frozen data',
      secret({ type: 'Opaque', immutable: true, data: { a: b64('z') } }),
      frozen,
      ['data: Forbidden: field is immutable when `immutable` is set'],
    ],
    [
      'frozen flag',
      secret({ type: 'Opaque', data: { a: b64('b') } }),
      frozen,
      ['immutable: Forbidden: field is immutable when `immutable` is set'],
    ],
    [
      'labels still change',
      secret({ type: 'Opaque', immutable: true, data: { a: b64('b') } }, { labels: { x: 'y' } }),
      frozen,
      [],
    ],
  ])('%s', (_name, next, old, want) => {
    expect(texts(runStep(secretStrategy.update.validate(next, old, ctx)))).toEqual(want);
  });
});

describe('Secret decoding', () => {
  it('defaults the type to Opaque and folds stringData into data, stringData winning', () => {
    const s = secret({ data: { a: b64('old'), keep: b64('k') }, stringData: { a: 'new', b: 'ü' } });
    secretStrategy.canonicalize(s, ctx);
    expect(s).toEqual(secret({ type: 'Opaque', data: { a: b64('new'), keep: b64('k'), b: b64('ü') } }));
  });
  it('drops an empty stringData and keeps a given type', () => {
    const s = secret({ type: 'kubernetes.io/tls', stringData: {} });
    secretStrategy.canonicalize(s, ctx);
    expect(s).toEqual(secret({ type: 'kubernetes.io/tls' }));
  });
  it.each<[string, string]>([
    ['abc!', 'illegal base64 data at input byte 3'],
    ['YWJj=', 'illegal base64 data at input byte 4'],
    ['YQ', 'illegal base64 data at input byte 0'],
    ['YQ=', 'illegal base64 data at input byte 3'],
    ['YQ==YQ==', 'illegal base64 data at input byte 4'],
  ])('data %j is not base64: %s', (value, message) => {
    expect(() => secretStrategy.canonicalize(secret({ data: { a: value } }), ctx)).toThrow(
      `Secret in version "v1" cannot be handled as a Secret: ${message}`,
    );
  });
  it('a number in stringData does not decode (400)', () => {
    expect(() => secretStrategy.canonicalize(secret({ stringData: { a: 1 } }), ctx)).toThrow(
      'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.stringData of type string',
    );
  });
  it('accepts base64 with line breaks, as Go does', () => {
    expect(() => secretStrategy.canonicalize(secret({ data: { a: 'YW\nJj' } }), ctx)).not.toThrow();
  });
  it("field selectors: type and metadata, other labels with kube's text", () => {
    const s = secret({ type: 'kubernetes.io/tls' });
    expect(secretStrategy.selectableFields(s)).toEqual({
      'metadata.name': 's',
      'metadata.namespace': 'default',
      type: 'kubernetes.io/tls',
    });
    expect(secretStrategy.fieldLabels('type', 'x')).toEqual({ label: 'type', value: 'x' });
    expect(secretStrategy.fieldLabels('data', 'x')).toEqual({ error: 'field label not supported: data' });
  });
  it('prints TYPE and DATA as kube does', () => {
    const s = secret({ type: 'Opaque', data: { a: '', b: '' } });
    expect(secretDataCount(s)).toBe(2);
    expect(SECRET_COLUMNS.map((c) => [c.name, c.type, c.value?.(s)])).toEqual([
      ['Type', 'string', 'Opaque'],
      ['Data', 'string', 2],
      ['Age', 'string', undefined],
    ]);
  });
});
