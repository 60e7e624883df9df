import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDefaults, pruneAndDefault } from '../../../../crd/schema/default.js';
import { prune, pruneNonNullableNullsWithoutDefaults } from '../../../../crd/schema/prune.js';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';

const obj = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties,
  ...extra,
});

const defaulted = (value: unknown, schema: JSONSchemaProps | undefined): unknown => {
  const copy = structuredClone(value);
  applyDefaults(copy, schema);
  return copy;
};

// kube's defaulting/algorithm_test.go TestDefault, as JSONSchemaProps.
describe('applyDefaults: kube TestDefault', () => {
  const cases: { name: string; json: unknown; schema: JSONSchemaProps | undefined; want: unknown }[] = [
    { name: 'empty', json: null, schema: undefined, want: null },
    { name: 'scalar', json: 4, schema: { default: 'foo' }, want: 4 },
    { name: 'scalar array', json: [1, 2], schema: { items: { default: 'foo' } }, want: [1, 2] },
    {
      name: 'object array',
      json: [{ a: 1 }, { b: 1 }, { c: 1 }],
      schema: { items: { properties: { a: { default: 'A' }, b: { default: 'B' }, c: { default: 'C' } } } },
      want: [
        { a: 1, b: 'B', c: 'C' },
        { a: 'A', b: 1, c: 'C' },
        { a: 'A', b: 'B', c: 1 },
      ],
    },
    {
      name: 'object array object',
      json: { array: [{ a: 1 }, { b: 2 }], object: { a: 1 }, additionalProperties: { x: { a: 1 }, y: { b: 2 } } },
      schema: {
        properties: {
          array: { items: { properties: { a: { default: 'A' }, b: { default: 'B' } } } },
          object: { properties: { a: { default: 'N' }, b: { default: 'O' } } },
          additionalProperties: {
            additionalProperties: { properties: { a: { default: 'alpha' }, b: { default: 'beta' } } },
          },
          foo: { default: 'bar' },
        },
      },
      want: {
        array: [
          { a: 1, b: 'B' },
          { a: 'A', b: 2 },
        ],
        object: { a: 1, b: 'O' },
        additionalProperties: { x: { a: 1, b: 'beta' }, y: { a: 'alpha', b: 2 } },
        foo: 'bar',
      },
    },
    {
      name: 'empty and null',
      json: [{}, { a: 1 }, { a: 0 }, { a: 0.0 }, { a: '' }, { a: null }, { a: [] }, { a: {} }],
      schema: { items: { properties: { a: { default: 'A' } } } },
      want: [{ a: 'A' }, { a: 1 }, { a: 0 }, { a: 0.0 }, { a: '' }, { a: 'A' }, { a: [] }, { a: {} }],
    },
    {
      name: 'null in nullable list',
      json: [null],
      schema: { nullable: true, items: { properties: { a: { default: 'A' } } } },
      want: [null],
    },
    { name: 'null in non-nullable list', json: [null], schema: { items: { default: 'A' } }, want: ['A'] },
    {
      name: 'null in nullable object',
      json: { a: null },
      schema: { properties: { a: { nullable: true, default: 'A' } } },
      want: { a: null },
    },
    {
      name: 'null in non-nullable object',
      json: { a: null },
      schema: { properties: { a: { default: 'A' } } },
      want: { a: 'A' },
    },
    {
      name: 'null in nullable object with additionalProperties',
      json: { a: null },
      schema: { additionalProperties: { nullable: true, default: 'A' } },
      want: { a: null },
    },
    {
      name: 'null in non-nullable object with additionalProperties',
      json: { a: null },
      schema: { additionalProperties: { default: 'A' } },
      want: { a: 'A' },
    },
    { name: 'null unknown field', json: { a: null }, schema: { additionalProperties: true }, want: { a: null } },
  ];
  it.each(cases)('$name', ({ json, schema, want }) => {
    expect(defaulted(json, schema)).toEqual(want);
  });
});

const cacheSchema = obj({
  spec: obj({
    size: { type: 'integer', minimum: 1, maximum: 9, default: 3 },
    maxSize: { type: 'integer', minimum: 1, maximum: 9, default: 9 },
    engine: { type: 'string', enum: ['redis', 'valkey'], default: 'redis' },
  }),
});

describe('applyDefaults', () => {
  const cases: { name: string; json: unknown; schema: JSONSchemaProps; want: unknown }[] = [
    {
      name: 'the lab: {size: 3}',
      json: { spec: { size: 3 } },
      schema: cacheSchema,
      want: { spec: { engine: 'redis', maxSize: 9, size: 3 } },
    },
    { name: 'no spec, no defaults inside it', json: {}, schema: cacheSchema, want: {} },
    {
      name: 'a defaulted object gets its own defaults',
      json: {},
      schema: obj({
        spec: obj(
          { a: { type: 'string', default: 'x' }, b: obj({ c: { type: 'integer', default: 1 } }, { default: {} }) },
          { default: {} },
        ),
      }),
      want: { spec: { a: 'x', b: { c: 1 } } },
    },
    {
      name: 'array items, map values',
      json: { list: [{}, { name: 'n' }], map: { k: {}, l: { v: 2 } } },
      schema: obj({
        list: { type: 'array', items: obj({ name: { type: 'string', default: 'd' } }) },
        map: { type: 'object', additionalProperties: obj({ v: { type: 'integer', default: 1 } }) },
      }),
      want: { list: [{ name: 'd' }, { name: 'n' }], map: { k: { v: 1 }, l: { v: 2 } } },
    },
    {
      name: 'null map value and null list item: defaulted unless nullable',
      json: { m: { a: null }, n: { a: null }, l: [null], k: [null] },
      schema: obj({
        m: { type: 'object', additionalProperties: { type: 'object', default: { x: 1 } } },
        n: { type: 'object', additionalProperties: { type: 'object', nullable: true, default: { x: 1 } } },
        l: { type: 'array', items: { type: 'string', default: 's' } },
        k: { type: 'array', items: { type: 'string', nullable: true, default: 's' } },
      }),
      want: { m: { a: { x: 1 } }, n: { a: null }, l: ['s'], k: [null] },
    },
    {
      name: 'default: null is no default',
      json: { a: null },
      schema: obj({ a: { type: 'string', default: null }, b: { type: 'string', default: null } }),
      want: { a: null },
    },
    {
      name: 'unknown fields are not walked (preserve-unknown-fields), embedded resources are plain objects',
      json: { p: { u: {} }, e: {} },
      schema: obj({
        p: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { k: { type: 'string', default: 'k' } },
        },
        e: obj({ spec: obj({}, { default: { a: 1 } }) }, { 'x-kubernetes-embedded-resource': true }),
      }),
      want: { p: { u: {}, k: 'k' }, e: { spec: { a: 1 } } },
    },
    {
      name: 'a property named like an Object.prototype member is set as own data',
      json: {},
      schema: obj({ constructor: { type: 'string', default: 'c' } }),
      want: { constructor: 'c' },
    },
  ];
  it.each(cases)('$name', ({ json, schema, want }) => {
    expect(defaulted(json, schema)).toEqual(want);
  });

  it('deep-copies defaults', () => {
    const schema = obj({ list: { type: 'array', items: obj({ o: { type: 'object', default: { a: [1] } } }) } });
    const v = { list: [{}, {}] } as { list: { o: { a: number[] } }[] };
    applyDefaults(v, schema);
    v.list[0]!.o.a.push(2);
    expect(v.list[1]!.o.a).toEqual([1]);
    expect(schema.properties!['list']!.items).toEqual(obj({ o: { type: 'object', default: { a: [1] } } }));
  });

  it('applies a default added later to an object read back (defaulting on read)', () => {
    const stored = { apiVersion: 'cache.example.com/v1', kind: 'Cache', metadata: { name: 'c' }, spec: { size: 3 } };
    const laterSchema = structuredClone(cacheSchema);
    laterSchema.properties!['spec']!.properties!['mode'] = { type: 'string', default: 'fast' };
    expect(pruneAndDefault(stored, laterSchema, { isResourceRoot: true })).toEqual([]);
    expect(stored.spec).toEqual({ size: 3, maxSize: 9, engine: 'redis', mode: 'fast' });
  });
});

describe('pruneNonNullableNullsWithoutDefaults', () => {
  const cases: { name: string; json: unknown; schema: JSONSchemaProps; want: unknown }[] = [
    {
      name: 'removes non-nullable nulls without default, keeps the rest',
      json: { a: null, b: null, c: null, u: null, o: { x: null } },
      schema: obj({
        a: { type: 'string' },
        b: { type: 'string', nullable: true },
        c: { type: 'string', default: 'c' },
        o: obj({ x: { type: 'integer' } }),
      }),
      want: { b: null, c: null, u: null, o: {} },
    },
    {
      name: 'map values by additionalProperties; list items never',
      json: { m: { k: null }, n: { k: null }, l: [null, { x: null }] },
      schema: obj({
        m: { type: 'object', additionalProperties: { type: 'string' } },
        n: { type: 'object', additionalProperties: true },
        l: { type: 'array', items: obj({ x: { type: 'string' } }) },
      }),
      want: { m: {}, n: { k: null }, l: [null, {}] },
    },
  ];
  it.each(cases)('$name', ({ json, schema, want }) => {
    const copy = structuredClone(json);
    pruneNonNullableNullsWithoutDefaults(copy, schema);
    expect(copy).toEqual(want);
  });
});

describe('pruneAndDefault: kube order', () => {
  it('the lab: unknown spec.repicas pruned and reported, defaults applied', () => {
    const v = {
      apiVersion: 'cache.example.com/v1',
      kind: 'Cache',
      metadata: { name: 'c' },
      spec: { size: 2, repicas: 4 },
    };
    expect(pruneAndDefault(v, cacheSchema, { isResourceRoot: true })).toEqual(['spec.repicas']);
    expect(v).toEqual({
      apiVersion: 'cache.example.com/v1',
      kind: 'Cache',
      metadata: { name: 'c' },
      spec: { size: 2, maxSize: 9, engine: 'redis' },
    });
  });

  it('nulls: non-nullable without default dropped, with default defaulted, nullable kept', () => {
    const schema = obj({
      spec: obj({
        a: { type: 'string' },
        b: { type: 'string', default: 'b' },
        c: { type: 'string', nullable: true, default: 'c' },
      }),
    });
    const v = { spec: { a: null, b: null, c: null } };
    pruneAndDefault(v, schema);
    expect(v).toEqual({ spec: { b: 'b', c: null } });
  });

  it('defaults are applied after pruning: a default carrying unknown fields keeps them', () => {
    // kube requires defaults to be pruned at CRD write; were one not, pruning would not see it.
    const schema = obj({ spec: obj({ a: { type: 'integer' } }, { default: { a: 1, extra: true } }) });
    const v = {};
    expect(pruneAndDefault(v, schema)).toEqual([]);
    expect(v).toEqual({ spec: { a: 1, extra: true } });
  });

  it('legacy preserveUnknownFields: no pruning, no null dropping, still metadata and defaults', () => {
    const schema = obj({
      spec: obj({
        a: { type: 'string' },
        d: { type: 'string', default: 'd' },
        t: obj({}, { 'x-kubernetes-embedded-resource': true }),
      }),
    });
    const v = { spec: { a: null, x: 1, t: { metadata: { bogus: 1, name: 'n' } } } };
    expect(pruneAndDefault(v, schema, { preserveUnknownFields: true })).toEqual(['spec.t.metadata.bogus']);
    expect(v).toEqual({ spec: { a: null, x: 1, d: 'd', t: { metadata: { name: 'n' } } } });
  });
});

describe('defaulting: properties', () => {
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
    obj: fc.dictionary(fc.constantFrom('a', 'x', 'n', 'z'), tie('value'), { maxKeys: 3 }),
  }));
  const some = <T>(r: Record<string, fc.Arbitrary<T>>) => fc.record(r, { requiredKeys: [] });
  // Objects shaped like the schema (with unknown fields and wrong types mixed in).
  const item = fc.oneof(value, some({ x: fc.oneof(value, some({ a: value, z: value })), n: value, junk: value }));
  const spec = fc.oneof(
    value,
    some({
      a: value,
      b: value,
      n: value,
      items: fc.oneof(value, fc.array(item, { maxLength: 3 })),
      m: fc.oneof(
        value,
        fc.dictionary(fc.string({ maxLength: 2 }), fc.oneof(value, some({ a: value, z: value })), { maxKeys: 3 }),
      ),
      junk: value,
    }),
  );
  const resource = some({ apiVersion: value, kind: value, metadata: value, spec, status: value });
  const schema = obj({
    spec: obj(
      {
        a: { type: 'integer', default: 1 },
        b: { type: 'string', nullable: true, default: 'b' },
        n: { type: 'string' },
        items: {
          type: 'array',
          items: obj(
            { x: obj({ a: { type: 'integer' } }, { default: { a: 2 } }), n: { type: 'integer' } },
            { default: {} },
          ),
        },
        m: { type: 'object', additionalProperties: obj({ a: { type: 'integer', default: 3 } }, { default: { a: 4 } }) },
      },
      { default: {} },
    ),
  });

  it("prune's dropNulls is pruning, then kube's PruneNonNullableNullsWithoutDefaults, in one walk", () => {
    const text = { type: 'string' } as const;
    const nulls = obj({
      metadata: obj({ n: text }),
      spec: obj({
        n: text,
        a: { type: 'integer', default: 1 },
        x: obj({ a: text, n: { type: 'string', nullable: true } }, { 'x-kubernetes-preserve-unknown-fields': true }),
        z: obj({ metadata: obj({ n: text }), kind: text, a: text }, { 'x-kubernetes-embedded-resource': true }),
        m: { type: 'object', additionalProperties: text },
        b: { type: 'object', additionalProperties: true },
        l: { type: 'array', items: obj({ a: text, x: { type: 'integer' } }) },
      }),
    });
    const meta = fc.oneof(value, some({ name: value, n: value, labels: value }));
    const doc = some({
      apiVersion: value,
      kind: value,
      metadata: meta,
      spec: fc.oneof(
        value,
        some({
          n: value,
          a: value,
          x: fc.oneof(value, some({ a: value, n: value, z: value })),
          z: fc.oneof(value, some({ apiVersion: value, kind: value, metadata: meta, a: value, x: value })),
          m: value,
          b: value,
          l: fc.oneof(value, fc.array(fc.oneof(value, some({ a: value, x: value })), { maxLength: 3 })),
        }),
      ),
    });
    fc.assert(
      fc.property(doc, (v) => {
        const opts = { isResourceRoot: true, pruneRootMetadata: true };
        const inOneWalk = structuredClone(v);
        const unknown = prune(inOneWalk, nulls, { ...opts, dropNulls: true });
        const reference = structuredClone(v);
        expect(unknown).toEqual(prune(reference, nulls, opts));
        pruneNonNullableNullsWithoutDefaults(reference, nulls);
        expect(inOneWalk).toEqual(reference);
      }),
      { numRuns: 2000 },
    );
  });

  it('pruneAndDefault and applyDefaults are idempotent', () => {
    fc.assert(
      fc.property(resource, (v) => {
        const once = structuredClone(v);
        pruneAndDefault(once, schema, { isResourceRoot: true });
        const twice = structuredClone(once);
        expect(pruneAndDefault(twice, schema, { isResourceRoot: true })).toEqual([]);
        expect(twice).toEqual(once);

        const d1 = structuredClone(v);
        applyDefaults(d1, schema);
        const d2 = structuredClone(d1);
        applyDefaults(d2, schema);
        expect(d2).toEqual(d1);
      }),
      { numRuns: 1000 },
    );
  });
});
