// validate(): kube's answers to creating a CRD and objects of its kind, or updating old objects to
// them, without a server. The e2e test (test/e2e/validate.test.ts) checks the same answers against
// a running server; here each case states kube's text.
import { describe, expect, it } from 'vitest';
import { type Outcome, type ValidationResult, validate } from '../../../../server/validate/validate.js';
import { ValidateInputError } from '../../../../server/validate/documents.js';
import { CACHE_CRD, cache } from '../../../helpers/validate-cache.js';

const invalid = (name: string, causes: [field: string, message: string][], reason = 'FieldValueInvalid') => ({
  result: 'invalid',
  status: {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `Cache.cache.example.com "${name}" is invalid: ${
      causes.length === 1
        ? `${causes[0]![0]}: ${causes[0]![1]}`
        : `[${causes.map(([f, m]) => `${f}: ${m}`).join(', ')}]`
    }`,
    reason: 'Invalid',
    details: {
      ...(name ? { name } : {}),
      group: 'cache.example.com',
      kind: 'Cache',
      causes: causes.map(([field, message]) => ({ reason, message, field })),
    },
    code: 422,
  },
});

const accepted = (name: string, spec: Record<string, unknown>, generation = 1) => ({
  result: 'valid',
  object: {
    apiVersion: 'cache.example.com/v1',
    kind: 'Cache',
    metadata: { name, namespace: 'default', generation },
    spec,
  },
});

async function one(object: Record<string, unknown>, old?: Record<string, unknown>): Promise<Outcome> {
  const result = await validate({ crds: [CACHE_CRD], objects: [object], oldObjects: old ? [old] : [] });
  expect(result.crds.map((c) => c.result)).toEqual(['valid']);
  return result.objects[0]!;
}

describe('validate: an object of a valid CRD', () => {
  it.each([
    [
      'valid: defaults applied, the status a create may not set dropped',
      cache('ok', { size: 3 }, { status: { ready: true } }),
      undefined,
      { ...accepted('ok', { size: 3, maxSize: 10, engine: 'redis' }), warnings: [], operation: 'create' },
    ],
    [
      'a schema error',
      cache('big', { size: 30, maxSize: 50 }),
      undefined,
      invalid('big', [['spec.size', 'Invalid value: 30: spec.size in body should be less than or equal to 10']]),
    ],
    [
      'two errors: the schema first, then CEL',
      cache('both', { size: 0, maxSize: -1 }),
      undefined,
      invalid('both', [
        ['spec.size', 'Invalid value: 0: spec.size in body should be greater than or equal to 1'],
        ['spec', 'Invalid value: "object": maxSize must be >= size'],
      ]).status.message,
    ],
    [
      // kube's hasBlockingErr: an unsupported (enum) value, among others, stops the CEL rules.
      'a schema error that blocks the CEL rules',
      cache('blocked', { size: 0, maxSize: -1, engine: 'etcd' }),
      undefined,
      invalid('blocked', [
        ['spec.size', 'Invalid value: 0: spec.size in body should be greater than or equal to 1'],
        ['spec.engine', 'Unsupported value: "etcd": supported values: "redis", "memcached"'],
        [
          '<nil>',
          'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
        ],
      ]).status.message,
    ],
    [
      'unknown fields pruned, each a warning',
      cache('unk', { size: 3, foo: 1 }, { extra: 1, metadata: { name: 'unk', bogus: 1 } }),
      undefined,
      {
        ...accepted('unk', { size: 3, maxSize: 10, engine: 'redis' }),
        warnings: ['unknown field "metadata.bogus"', 'unknown field "extra"', 'unknown field "spec.foo"'],
      },
    ],
    [
      'a CEL rule with a message',
      cache('cel', { size: 3, maxSize: 2 }),
      undefined,
      invalid('cel', [['spec', 'Invalid value: "object": maxSize must be >= size']]),
    ],
    [
      'a CEL rule with a messageExpression',
      cache('lucky', { size: 7 }),
      undefined,
      invalid('lucky', [['spec', 'Invalid value: "object": size 7 is unlucky']]),
    ],
    [
      'a transition rule, against the old object',
      cache('eng', { size: 3, engine: 'redis' }),
      cache('eng', { size: 3, engine: 'memcached' }),
      {
        ...invalid('eng', [['spec.engine', 'Invalid value: "string": engine is immutable: was memcached']]),
        operation: 'update',
      },
    ],
    [
      'an update that keeps what the transition rule guards: a new generation, the old status kept',
      cache('eng', { size: 4, engine: 'memcached' }, { status: { ready: false } }),
      cache('eng', { size: 3, engine: 'memcached' }, { status: { ready: true } }),
      {
        result: 'valid',
        operation: 'update',
        object: {
          ...accepted('eng', { size: 4, engine: 'memcached', maxSize: 10 }, 2).object,
          status: { ready: true },
        },
      },
    ],
    [
      'ratcheting: an invalid value the old object had already passes',
      cache('old', { size: 30, maxSize: 50, engine: 'redis' }),
      cache('old', { size: 30, maxSize: 50 }),
      { ...accepted('old', { size: 30, maxSize: 50, engine: 'redis' }), operation: 'update' },
    ],
    [
      'the object-meta rules: a name that is no DNS subdomain',
      cache('Bad_Name', { size: 3 }),
      undefined,
      invalid('Bad_Name', [
        [
          'metadata.name',
          `Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        ],
      ]),
    ],
    [
      'a name or generateName is required',
      { apiVersion: 'cache.example.com/v1', kind: 'Cache', spec: { size: 3 } },
      undefined,
      invalid('', [['metadata.name', 'Required value: name or generateName is required']], 'FieldValueRequired'),
    ],
    [
      'a resourceVersion on a create: 400',
      cache('rv', { size: 3 }, { metadata: { name: 'rv', resourceVersion: '5' } }),
      undefined,
      {
        result: 'invalid',
        status: expect.objectContaining({
          code: 400,
          reason: 'BadRequest',
          message: 'resourceVersion should not be set on objects to be created',
        }),
      },
    ],
    [
      "a deprecated version: kube's warning",
      { apiVersion: 'cache.example.com/v1beta1', kind: 'Cache', metadata: { name: 'b' }, anything: 1 },
      undefined,
      {
        result: 'valid',
        warnings: ['cache.example.com/v1beta1 Cache is deprecated; use cache.example.com/v1 Cache'],
        // Stored in v1, read back in v1beta1: what v1 does not know is gone.
        object: {
          apiVersion: 'cache.example.com/v1beta1',
          kind: 'Cache',
          metadata: { name: 'b', namespace: 'default', generation: 1 },
        },
      },
    ],
    [
      'a version not served: no match',
      { apiVersion: 'cache.example.com/v1alpha1', kind: 'Cache', metadata: { name: 'a' } },
      undefined,
      { result: 'no-match', message: 'no matches for kind "Cache" in version "cache.example.com/v1alpha1"' },
    ],
    [
      'a kind no CRD serves: no match',
      { apiVersion: 'other.example.com/v1', kind: 'Thing', metadata: { name: 't', namespace: 'ns' } },
      undefined,
      {
        result: 'no-match',
        name: 't',
        namespace: 'ns',
        message: 'no matches for kind "Thing" in version "other.example.com/v1"',
      },
    ],
  ] as const)('%s', async (_name, object, old, want) => {
    const got = await one(object, old);
    if (typeof want === 'string') return expect(got.result === 'invalid' && got.status.message).toBe(want);
    // The object, the Status and the warnings whole; the rest as far as the case says.
    const { object: wantObject, status, warnings, ...rest } = want as Partial<Record<string, unknown>>;
    expect(got).toMatchObject(rest);
    expect(got.warnings).toEqual(warnings ?? []);
    if (wantObject) expect(got.result === 'valid' && got.object).toEqual(wantObject);
    if (status) expect(got.result === 'invalid' && got.status).toEqual(status);
  });

  it('generates a name from generateName, as the server does', async () => {
    const got = await one({
      apiVersion: 'cache.example.com/v1',
      kind: 'Cache',
      metadata: { generateName: 'c-' },
      spec: { size: 1 },
    });
    expect(got.result).toBe('valid');
    expect(got.name).toMatch(/^c-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
});

describe('validate: the CRD, as kube validates it at create', () => {
  it("a bad CRD is refused with kube's CRD error, and its objects find no resource", async () => {
    const bad = CACHE_CRD.replace('rule: "self.maxSize >= self.size"', 'rule: "self.maxSize >= self.nope"');
    const result = await validate({ crds: [bad], objects: [cache('c', { size: 1 })] });
    expect(result.valid).toBe(false);
    const [crd] = result.crds;
    expect(crd?.result === 'invalid' && crd.status.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "caches.cache.example.com" is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.maxSize >= self.nope", Message:"maxSize must be >= size", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:21: undefined field \'nope\'\n | self.maxSize >= self.nope\n | ....................^',
    );
    expect(result.objects.map((o) => o.result)).toEqual(['no-match']);
  });

  it("a second CRD of the same name: kube's 409", async () => {
    const result = await validate({ crds: [CACHE_CRD, CACHE_CRD], objects: [] });
    expect(result.crds.map((c) => (c.result === 'invalid' ? c.status.message : c.result))).toEqual([
      'valid',
      'customresourcedefinitions.apiextensions.k8s.io "caches.cache.example.com" already exists',
    ]);
  });

  it('a v1beta1 CRD is no kind kube serves', async () => {
    const result = await validate({
      crds: [CACHE_CRD.replace('apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1')],
      objects: [],
    });
    expect(result.crds[0]).toMatchObject({
      result: 'no-match',
      message: 'no matches for kind "CustomResourceDefinition" in version "apiextensions.k8s.io/v1beta1"',
    });
  });

  it('a cluster-scoped kind: the namespace is dropped, as kube drops it', async () => {
    const result = await validate({
      crds: [CACHE_CRD.replace('scope: Namespaced', 'scope: Cluster')],
      objects: [cache('c', { size: 1 }, { metadata: { name: 'c', namespace: 'ns' } })],
    });
    expect(result.objects[0]).toMatchObject({ result: 'valid', namespace: '', object: { metadata: { name: 'c' } } });
    expect((result.objects[0] as Extract<Outcome, { result: 'valid' }>).object.metadata.namespace).toBeUndefined();
  });
});

describe('validate: sources', () => {
  const names = (r: ValidationResult): string[] => r.objects.map((o) => `${o.name}:${o.result}`);

  it('takes YAML with several documents, Lists (items typed by the list) and JSON', async () => {
    const yaml = `
apiVersion: cache.example.com/v1
kind: CacheList
items:
- metadata: {name: a}
  spec: {size: 1}
- {apiVersion: cache.example.com/v1, kind: Cache, metadata: {name: b}, spec: {size: 2}}
---
# nothing here
---
${JSON.stringify(cache('c', { size: 3 }))}
`;
    expect(names(await validate({ crds: [CACHE_CRD], objects: [yaml] }))).toEqual(['a:valid', 'b:valid', 'c:valid']);
  });

  it('takes a decoded List object', async () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [cache('a', { size: 1 }), cache('b', { size: 20 })] };
    expect(names(await validate({ crds: [CACHE_CRD], objects: [list] }))).toEqual(['a:valid', 'b:invalid']);
  });

  it.each([
    ['YAML that does not parse', 'a: [', 'objects[0]: line 1: '],
    ['a document that is no object', '- 1', 'objects[0]: line 1: a document must be an object, not array'],
    ['an object without kind', 'apiVersion: v1\nmetadata: {}', 'objects[0]: line 1: the object has no kind'],
    ['an object without apiVersion', '---\nkind: Cache', 'objects[0]: line 2: the object has no apiVersion'],
  ])('refuses %s with a ValidateInputError naming where', async (_name, text, message) => {
    const err = await validate({ crds: [CACHE_CRD], objects: [text] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidateInputError);
    expect((err as Error).message.startsWith(message)).toBe(true);
  });

  it('refuses an object given as a CRD', async () => {
    await expect(validate({ crds: [cache('a', {})], objects: [] })).rejects.toThrow(
      'crds: a Cache is not a CustomResourceDefinition',
    );
  });
});
