import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdsBelow, prune, pruneObjectMeta } from '../../../../crd/schema/prune.js';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';

const obj = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...extra,
});
const str: JSONSchemaProps = { type: 'string' };
const int: JSONSchemaProps = { type: 'integer' };
const preserve: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const embedded = (properties: Record<string, JSONSchemaProps> = {}, extra: JSONSchemaProps = {}): JSONSchemaProps =>
  obj(properties, { 'x-kubernetes-embedded-resource': true, ...extra });

const run = (value: unknown, schema: JSONSchemaProps, opts = {}) => {
  const copy = structuredClone(value);
  const paths = prune(copy, schema, opts);
  return { value: copy, paths };
};

// kube's pruning/algorithm_test.go TestPrune, as JSONSchemaProps.
describe('prune: kube TestPrune', () => {
  const cases: { name: string; json: unknown; schema: JSONSchemaProps; root?: boolean; want: unknown }[] = [
    { name: 'empty', json: null, schema: {}, want: null },
    { name: 'scalar', json: 4, schema: {}, want: 4 },
    { name: 'scalar array', json: [1, 2], schema: { items: {} }, want: [1, 2] },
    {
      name: 'object array',
      json: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }],
      schema: { items: { properties: { a: {}, c: {} } } },
      want: [{ a: 1 }, {}, { a: 1, c: 3 }],
    },
    {
      name: 'object array with nil schema',
      json: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }],
      schema: {},
      want: [{}, {}, {}],
    },
    {
      name: 'object array object',
      json: {
        array: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }],
        unspecified: { a: 1 },
        specified: { a: 1, b: 2, c: 3 },
      },
      schema: {
        properties: { array: { items: { properties: { a: {}, c: {} } } }, specified: { properties: { a: {}, c: {} } } },
      },
      want: { array: [{ a: 1 }, {}, { a: 1, c: 3 }], specified: { a: 1, c: 3 } },
    },
    {
      name: 'nested x-kubernetes-preserve-unknown-fields',
      json: {
        unspecified: 'bar',
        alpha: 'abc',
        beta: 42.0,
        unspecifiedObject: { unspecified: 'bar' },
        pruning: {
          unspecified: 'bar',
          unspecifiedObject: { unspecified: 'bar' },
          pruning: { unspecified: 'bar' },
          preserving: { unspecified: 'bar' },
        },
        preserving: {
          unspecified: 'bar',
          unspecifiedObject: { unspecified: 'bar' },
          pruning: { unspecified: 'bar' },
          preserving: { unspecified: 'bar' },
        },
        preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: {
          foo: { specified: { unspecified: 'bar' }, unspecified: 'bar' },
        },
        preservingAdditionalPropertiesKeyPruneValues: {
          foo: { specified: { unspecified: 'bar' }, unspecified: 'bar' },
        },
      },
      schema: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: {
          alpha: str,
          beta: { type: 'number' },
          pruning: obj({ preserving: preserve, pruning: { type: 'object' } }),
          preserving: obj(
            { preserving: preserve, pruning: { type: 'object' } },
            { 'x-kubernetes-preserve-unknown-fields': true },
          ),
          preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            additionalProperties: obj({ specified: { type: 'object' } }),
          },
          preservingAdditionalPropertiesKeyPruneValues: {
            type: 'object',
            additionalProperties: obj({ specified: { type: 'object' } }),
          },
        },
      },
      want: {
        unspecified: 'bar',
        alpha: 'abc',
        beta: 42.0,
        unspecifiedObject: { unspecified: 'bar' },
        pruning: { pruning: {}, preserving: { unspecified: 'bar' } },
        preserving: {
          unspecified: 'bar',
          unspecifiedObject: { unspecified: 'bar' },
          pruning: {},
          preserving: { unspecified: 'bar' },
        },
        preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: { foo: { specified: {} } },
        preservingAdditionalPropertiesKeyPruneValues: { foo: { specified: {} } },
      },
    },
    {
      name: 'additionalProperties with schema',
      json: { a: 1, b: 1, c: { a: 1, b: 2, c: { a: 1 } } },
      schema: { properties: { a: {}, c: { additionalProperties: int } } },
      want: { a: 1, c: { a: 1, b: 2, c: {} } },
    },
    {
      name: 'additionalProperties with bool',
      json: { a: 1, b: 1, c: { a: 1, b: 2, c: { a: 1 } } },
      schema: { properties: { a: {}, c: { additionalProperties: false } } },
      want: { a: 1, c: { a: 1, b: 2, c: {} } },
    },
  ];
  const embeddedDoc = (root: boolean) => {
    const res = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      apiVersion: 'foo/v1',
      kind: 'Foo',
      unspecified: 'bar',
      metadata: { name: 'instance', unspecified: 'bar' },
      spec,
      ...extra,
    });
    return {
      name: `x-kubernetes-embedded-resource, root=${root}`,
      root,
      json: {
        apiVersion: 'foo/v1',
        kind: 'Foo',
        metadata: { name: 'instance', unspecified: 'bar' },
        unspecified: 'bar',
        pruned: res({ unspecified: 'bar' }),
        preserving: res({ unspecified: 'bar' }),
        nested: res({ unspecified: 'bar', embedded: res({ unspecified: 'bar' }) }),
      },
      schema: obj({
        pruned: embedded({ spec: { type: 'object' } }),
        preserving: embedded({}, { 'x-kubernetes-preserve-unknown-fields': true }),
        nested: embedded({ spec: obj({ embedded: embedded({ spec: { type: 'object' } }) }) }),
      }),
    };
  };
  // kube's Prune alone keeps embedded metadata as is; objectmeta.Coerce (which prune() runs too)
  // then drops its unknown fields: `unspecified` goes from every embedded metadata.
  const embeddedWant = (root: boolean) => {
    const meta = { name: 'instance' };
    const kept = (spec: Record<string, unknown>) => ({ apiVersion: 'foo/v1', kind: 'Foo', metadata: meta, spec });
    return {
      ...(root ? { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'instance', unspecified: 'bar' } } : {}),
      pruned: kept({}),
      preserving: { ...kept({ unspecified: 'bar' }), unspecified: 'bar' },
      nested: kept({ embedded: kept({}) }),
    };
  };
  cases.push({ ...embeddedDoc(false), want: embeddedWant(false) }, { ...embeddedDoc(true), want: embeddedWant(true) });

  it.each(cases)('$name', ({ json, schema, root, want }) => {
    expect(run(json, schema, { isResourceRoot: !!root }).value).toEqual(want);
  });

  it('reports the embedded-resource case as kube: pruned paths sorted, then embedded metadata', () => {
    const c = embeddedDoc(true);
    expect(run(c.json, c.schema, { isResourceRoot: true }).paths).toEqual([
      'nested.spec.embedded.spec.unspecified',
      'nested.spec.embedded.unspecified',
      'nested.spec.unspecified',
      'nested.unspecified',
      'pruned.spec.unspecified',
      'pruned.unspecified',
      'unspecified',
      'nested.metadata.unspecified',
      'nested.spec.embedded.metadata.unspecified',
      'preserving.metadata.unspecified',
      'pruned.metadata.unspecified',
    ]);
  });
});

const cacheSchema = obj({
  spec: obj({
    size: { type: 'integer', minimum: 1, maximum: 9, default: 3 },
    maxSize: { type: 'integer', minimum: 1, maximum: 9, default: 9 },
    engine: { type: 'string', enum: ['redis', 'valkey'], default: 'redis' },
  }),
});

describe('prune: paths as kube reports them', () => {
  const cases: {
    name: string;
    json: unknown;
    schema: JSONSchemaProps;
    opts?: object;
    want: unknown;
    paths: string[];
  }[] = [
    {
      name: 'the lab: spec.repicas',
      json: {
        apiVersion: 'cache.example.com/v1',
        kind: 'Cache',
        metadata: { name: 'c' },
        spec: { size: 2, repicas: 4 },
      },
      schema: cacheSchema,
      opts: { isResourceRoot: true },
      want: { apiVersion: 'cache.example.com/v1', kind: 'Cache', metadata: { name: 'c' }, spec: { size: 2 } },
      paths: ['spec.repicas'],
    },
    {
      name: 'list items as [i], only the topmost pruned key, sorted bytewise',
      json: {
        status: { a: 1 },
        spec: {
          items: Array.from({ length: 11 }, (_, i) =>
            i === 2 || i === 10 ? { name: 'x', nmae: { deep: 1 } } : { name: 'x' },
          ),
          b: 1,
        },
      },
      schema: obj({ spec: obj({ items: { type: 'array', items: obj({ name: str }) } }) }),
      want: { spec: { items: Array.from({ length: 11 }, () => ({ name: 'x' })) } },
      paths: ['spec.b', 'spec.items[10].nmae', 'spec.items[2].nmae', 'status'],
    },
    {
      name: 'map values under additionalProperties are joined with "." too',
      json: { spec: { labels: { 'a.b/c': { keep: 1, drop: 2 } } } },
      schema: obj({ spec: obj({ labels: { type: 'object', additionalProperties: obj({ keep: int }) } }) }),
      want: { spec: { labels: { 'a.b/c': { keep: 1 } } } },
      paths: ['spec.labels.a.b/c.drop'],
    },
    {
      name: 'additionalProperties: true keeps keys and empties object values',
      json: { m: { k: { x: 1 }, s: 'v', l: [{ y: 1 }, 2] } },
      schema: obj({ m: { type: 'object', additionalProperties: true } }),
      want: { m: { k: {}, s: 'v', l: [{}, 2] } },
      paths: ['m.k.x', 'm.l[0].y'],
    },
    {
      name: 'without a schema for an array, objects in it are emptied',
      json: { l: [[{ a: 1 }], { b: 2 }] },
      schema: obj({ l: { type: 'array' } }),
      want: { l: [[{}], {}] },
      paths: ['l[0][0].a', 'l[1].b'],
    },
    {
      name: 'array-form items count as no items schema',
      json: { l: [{ a: 1 }] },
      schema: obj({ l: { type: 'array', items: [obj({ a: int })] } }),
      want: { l: [{}] },
      paths: ['l[0].a'],
    },
    {
      name: 'not a resource root: top-level apiVersion/kind/metadata go silently, deeper ones are reported',
      json: { apiVersion: 'v1', kind: 'K', metadata: {}, x: 1, spec: { metadata: {} } },
      schema: obj({ spec: obj({}) }),
      want: { spec: {} },
      paths: ['spec.metadata', 'x'],
    },
    {
      name: 'resource root: apiVersion/kind/metadata kept whatever the schema',
      json: { apiVersion: 'v1', kind: 'K', metadata: { name: 'n', bogus: 1 }, x: 1 },
      schema: obj({}),
      opts: { isResourceRoot: true },
      want: { apiVersion: 'v1', kind: 'K', metadata: { name: 'n', bogus: 1 } },
      paths: ['x'],
    },
    {
      name: 'preserve-unknown-fields: unknown kept and unreported, known properties still pruned',
      json: { spec: { anything: { goes: 1 }, known: { a: 1, b: 2 }, list: [{ a: 1, z: 1 }] } },
      schema: obj({
        spec: obj(
          { known: obj({ a: int }), list: { type: 'array', items: obj({ a: int }) } },
          { 'x-kubernetes-preserve-unknown-fields': true },
        ),
      }),
      want: { spec: { anything: { goes: 1 }, known: { a: 1 }, list: [{ a: 1 }] } },
      paths: ['spec.known.b', 'spec.list[0].z'],
    },
    {
      name: 'preserve-unknown-fields on an array: its items are walked preserving too (kube skipPrune)',
      json: { l: [{ a: 1, z: 1, o: { b: 1, y: 1 } }] },
      schema: obj({
        l: { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: obj({ a: int, o: obj({ b: int }) }) },
      }),
      want: { l: [{ a: 1, z: 1, o: { b: 1 } }] },
      paths: ['l[0].o.y'],
    },
    {
      name: 'embedded metadata: field.Path format, after the pruned paths',
      json: {
        spec: {
          template: {
            metadata: {
              name: 'a',
              zz: 1,
              ownerReferences: [{ name: 'o', kind: 'K', apiVersion: 'v1', uid: 'u', bogus: 1 }],
            },
            x: 1,
          },
          byName: { one: { apiVersion: 'v1', kind: 'K', metadata: { labels: { a: 'b' }, extra: true } } },
          list: [{ metadata: { annotations: { a: 'b' }, other: 1 } }],
        },
      },
      schema: obj({
        spec: obj({
          template: embedded(),
          byName: { type: 'object', additionalProperties: embedded() },
          list: { type: 'array', items: embedded() },
        }),
      }),
      want: {
        spec: {
          template: {
            metadata: { name: 'a', ownerReferences: [{ name: 'o', kind: 'K', apiVersion: 'v1', uid: 'u' }] },
          },
          byName: { one: { apiVersion: 'v1', kind: 'K', metadata: { labels: { a: 'b' } } } },
          list: [{ metadata: { annotations: { a: 'b' } } }],
        },
      },
      paths: [
        'spec.template.x',
        'spec.byName[one].metadata.extra',
        'spec.list[0].metadata.other',
        'spec.template.metadata.ownerReferences[0].bogus',
        'spec.template.metadata.zz',
      ],
    },
    {
      name: 'embedded metadata is normalized as a Go ObjectMeta round trip',
      json: {
        t: {
          metadata: {
            name: '',
            generation: 0,
            labels: {},
            finalizers: [],
            creationTimestamp: null,
            deletionGracePeriodSeconds: 0,
            namespace: 'ns',
          },
        },
      },
      schema: obj({ t: embedded() }),
      want: { t: { metadata: { deletionGracePeriodSeconds: 0, namespace: 'ns' } } },
      paths: [],
    },
    {
      name: 'root metadata on request: unknown fields first, in sorted-key order',
      json: {
        apiVersion: 'v1',
        kind: 'K',
        metadata: { zeta: 1, name: 'n', alpha: 2, managedFields: [{ manager: 'm', junk: 1 }] },
        spec: { u: 1 },
      },
      schema: obj({ spec: obj({}) }),
      opts: { isResourceRoot: true, pruneRootMetadata: true },
      want: { apiVersion: 'v1', kind: 'K', metadata: { name: 'n', managedFields: [{ manager: 'm' }] }, spec: {} },
      paths: ['metadata.alpha', 'metadata.managedFields[0].junk', 'metadata.zeta', 'spec.u'],
    },
    {
      name: 'a property named like an Object.prototype member is no property',
      json: { constructor: 1, toString: 2, a: 3 },
      schema: obj({ a: int }),
      want: { a: 3 },
      paths: ['constructor', 'toString'],
    },
  ];
  it.each(cases)('$name', ({ json, schema, opts, want, paths }) => {
    const r = run(json, schema, opts);
    expect(r.value).toEqual(want);
    expect(r.paths).toEqual(paths);
  });
});

describe('prune: helpers', () => {
  it('pruneObjectMeta keeps every ObjectMeta field', () => {
    const meta = {
      name: 'n',
      generateName: 'g',
      namespace: 'ns',
      selfLink: 's',
      uid: 'u',
      resourceVersion: '1',
      generation: 2,
      creationTimestamp: '2024-01-01T00:00:00Z',
      deletionTimestamp: '2024-01-01T00:00:00Z',
      deletionGracePeriodSeconds: 30,
      labels: { a: 'b' },
      annotations: { c: 'd' },
      ownerReferences: [
        { apiVersion: 'v1', kind: 'K', name: 'o', uid: 'u', controller: true, blockOwnerDeletion: true },
      ],
      finalizers: ['f'],
      managedFields: [
        {
          manager: 'm',
          operation: 'Apply',
          apiVersion: 'v1',
          time: 't',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:a': {} },
          subresource: 's',
        },
      ],
    };
    const copy = structuredClone(meta);
    expect(pruneObjectMeta(copy, 'metadata')).toEqual([]);
    expect(copy).toEqual(meta);
  });
});

describe('prune: properties', () => {
  const { value } = fc.letrec<{ value: unknown; arr: unknown[]; obj: Record<string, unknown> }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.string({ maxLength: 3 }),
      tie('arr'),
      tie('obj'),
    ),
    arr: fc.array(tie('value'), { maxLength: 3 }),
    obj: fc.dictionary(fc.constantFrom('a', 'b', 'name', 'x', 'metadata', 'apiVersion', 'kind', 'spec'), tie('value'), {
      maxKeys: 4,
    }),
  }));
  const some = <T>(r: Record<string, fc.Arbitrary<T>>) => fc.record(r, { requiredKeys: [] });
  // Objects shaped like the schema (with unknown fields and wrong types mixed in).
  const meta = fc.oneof(
    value,
    some({
      name: value,
      labels: value,
      bogus: value,
      ownerReferences: fc.array(fc.oneof(value, some({ name: value, bogus: value })), { maxLength: 2 }),
    }),
  );
  const spec = fc.oneof(
    value,
    some({
      a: value,
      items: fc.oneof(value, fc.array(fc.oneof(value, some({ name: value, x: value, junk: value })), { maxLength: 3 })),
      m: fc.oneof(
        value,
        fc.dictionary(fc.string({ maxLength: 2 }), fc.oneof(value, some({ a: value, p: value, junk: value })), {
          maxKeys: 3,
        }),
      ),
      p: fc.oneof(value, some({ a: value, junk: value })),
      x: fc.oneof(value, some({ apiVersion: value, kind: value, metadata: meta, spec: value, junk: value })),
      junk: value,
    }),
  );
  const resource = some({ apiVersion: value, kind: value, metadata: meta, spec, status: value, junk: value });
  const schema = obj({
    spec: obj({
      a: int,
      items: { type: 'array', items: obj({ name: str, x: obj({ a: int }) }) },
      m: { type: 'object', additionalProperties: obj({ a: int, p: preserve }) },
      p: obj({ a: obj({ b: int }) }, { 'x-kubernetes-preserve-unknown-fields': true }),
      x: embedded({ spec: obj({ a: int }) }),
    }),
    status: { type: 'object', additionalProperties: true },
  });

  it('is idempotent, and reports nothing the second time', () => {
    fc.assert(
      fc.property(resource, fc.boolean(), fc.boolean(), (v, isResourceRoot, pruneRootMetadata) => {
        const once = structuredClone(v);
        prune(once, schema, { isResourceRoot, pruneRootMetadata });
        const twice = structuredClone(once);
        expect(prune(twice, schema, { isResourceRoot, pruneRootMetadata })).toEqual([]);
        expect(twice).toEqual(once);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('holdsBelow', () => {
  const hasDefault = (s: JSONSchemaProps): boolean => s.default !== undefined;
  const deep = (levels: number, leaf: JSONSchemaProps): JSONSchemaProps => {
    let s = leaf;
    for (let i = 0; i < levels; i++) s = obj({ a: s });
    return s;
  };
  it.each<[string, JSONSchemaProps, boolean]>([
    ['a leaf', str, false],
    ['the schema itself only', { ...str, default: 'x' }, false],
    ['a property', obj({ a: { ...str, default: 'x' } }), true],
    ['additionalProperties', { type: 'object', additionalProperties: { ...str, default: 'x' } }, true],
    ['additionalProperties: true', { type: 'object', additionalProperties: true }, false],
    ['items', { type: 'array', items: obj({ b: { ...int, default: 1 } }) }, true],
    ['a map of strings without defaults', { type: 'object', additionalProperties: str }, false],
    ['10,000 levels down', deep(10_000, obj({ z: { ...str, default: 'x' } })), true],
    ['10,000 levels of nothing', deep(10_000, str), false],
  ])('%s', (_name, schema, want) => {
    expect(holdsBelow(schema, hasDefault, new WeakMap())).toBe(want);
  });

  it('answers from what it remembers for the schemas below', () => {
    const inner = obj({ a: { ...str, default: 'x' } });
    const within = new WeakMap<JSONSchemaProps, boolean>();
    expect(holdsBelow(obj({ spec: inner }), hasDefault, within)).toBe(true);
    expect(within.get(inner)).toBe(true);
  });
});
