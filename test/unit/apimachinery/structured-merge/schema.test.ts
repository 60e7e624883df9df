// CRD schemas as kube's managed-fields type converter sees them (kube-openapi schemaconv over the
// OpenAPI apiextensions builds), checked through the field sets values get.
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import {
  Conflicts,
  STRIPPED_META_FIELDS,
  Updater,
  deducedType,
  fieldSetToFieldsV1,
  fromOpenAPISchema,
  mapListType,
  mapType,
  objectMetaType,
  scalarType,
  setListType,
  stripMetaFields,
  structType,
} from '../../../../apimachinery/structured-merge/index.js';
import { toFieldSet } from '../../../../apimachinery/structured-merge/typed.js';
import { KBF, NS, P, V } from './helpers.js';

const widgetSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        args: { type: 'array', items: { type: 'string' } },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: {
            type: 'object',
            properties: {
              port: { type: 'integer' },
              protocol: { type: 'string', default: 'TCP' },
              name: { type: 'string' },
            },
          },
        },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { app: { type: 'string' } } },
        env: { type: 'object', additionalProperties: { type: 'string' } },
        port: { 'x-kubernetes-int-or-string': true },
        raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        typedRaw: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'object', properties: { a: { type: 'string' } } } },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
        when: { type: 'string', format: 'date-time' },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};
const widget = fromOpenAPISchema(widgetSchema);

describe('fromOpenAPISchema', () => {
  it('adds apiVersion, kind and ObjectMeta to the root', () => {
    const fields = widget.map!.fields;
    expect(fields.get('apiVersion')!.type.scalar).toBe('string');
    expect(fields.get('kind')!.type.scalar).toBe('string');
    expect(fields.get('metadata')!.type).toBe(objectMetaType);
    expect(widget.map!.elementType).toBeUndefined();
  });

  it.each<{ name: string; spec: unknown; set: ReturnType<typeof NS> }>([
    { name: 'lists are atomic by default', spec: { args: ['a', 'b'] }, set: NS(P('spec', 'args')) },
    { name: 'listType set', spec: { tags: ['a', 'b'] }, set: NS(P('spec', 'tags', V('a')), P('spec', 'tags', V('b'))) },
    {
      name: 'listType map keyed by two fields',
      spec: { ports: [{ port: 80, protocol: 'UDP', name: 'dns' }] },
      set: NS(
        P('spec', 'ports', KBF('port', 80, 'protocol', 'UDP')),
        P('spec', 'ports', KBF('port', 80, 'protocol', 'UDP'), 'port'),
        P('spec', 'ports', KBF('port', 80, 'protocol', 'UDP'), 'protocol'),
        P('spec', 'ports', KBF('port', 80, 'protocol', 'UDP'), 'name'),
      ),
    },
    {
      name: 'a missing key field takes its default',
      spec: { ports: [{ port: 53 }] },
      set: NS(
        P('spec', 'ports', KBF('port', 53, 'protocol', 'TCP')),
        P('spec', 'ports', KBF('port', 53, 'protocol', 'TCP'), 'port'),
      ),
    },
    { name: 'map-type atomic', spec: { selector: { app: 'x' } }, set: NS(P('spec', 'selector')) },
    {
      name: 'additionalProperties is a granular map',
      spec: { env: { A: '1', B: '2' } },
      set: NS(P('spec', 'env', 'A'), P('spec', 'env', 'B')),
    },
    { name: 'int-or-string is a scalar', spec: { port: 'http' }, set: NS(P('spec', 'port')) },
    {
      name: 'preserve-unknown-fields deduces maps granular',
      spec: { raw: { a: { b: [1, 2] } } },
      set: NS(P('spec', 'raw', 'a'), P('spec', 'raw', 'a', 'b')),
    },
    {
      name: 'preserve-unknown-fields reaches below declared properties',
      spec: { typedRaw: { known: { a: 'x', extra: { y: 1 } } } },
      set: NS(
        P('spec', 'typedRaw', 'known', 'a'),
        P('spec', 'typedRaw', 'known', 'extra'),
        P('spec', 'typedRaw', 'known', 'extra', 'y'),
      ),
    },
    {
      name: 'embedded resources get ObjectMeta',
      spec: {
        template: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { labels: { a: 'b' }, finalizers: ['f'] },
          spec: { x: 1 },
        },
      },
      set: NS(
        P('spec', 'template', 'apiVersion'),
        P('spec', 'template', 'kind'),
        P('spec', 'template', 'metadata', 'labels', 'a'),
        P('spec', 'template', 'metadata', 'finalizers', V('f')),
        P('spec', 'template', 'spec'),
        P('spec', 'template', 'spec', 'x'),
      ),
    },
    {
      name: 'date-time strings are untyped scalars',
      spec: { when: '2024-01-01T00:00:00Z' },
      set: NS(P('spec', 'when')),
    },
  ])('$name', ({ spec, set }) => {
    const got = toFieldSet(widget, { spec });
    expect(got.toString()).toBe(set.toString());
    expect(got.equals(set)).toBe(true);
  });

  it('rejects fields the schema does not have, unless unknown fields are preserved', () => {
    expect(() => toFieldSet(widget, { spec: { nope: 1 } })).toThrow('schema error');
    expect(
      toFieldSet(fromOpenAPISchema(widgetSchema, { preserveUnknownFields: true }), { spec: { nope: 1 } }).equals(
        NS(P('spec', 'nope')),
      ),
    ).toBe(true);
  });

  it('treats a CRD without a schema as deduced', () => {
    expect(fromOpenAPISchema(undefined)).toBe(deducedType);
  });

  it('refuses listType map without keys', () => {
    expect(() =>
      fromOpenAPISchema({
        type: 'object',
        properties: { l: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object' } } },
      }),
    ).toThrow('x-kubernetes-list-map-keys');
  });
});

/**
 * A built-in kind's schema as kube publishes it: named definitions behind `$ref`s (one recursive),
 * a reference that makes its target atomic, and lists typed only by their patch extensions.
 */
const gadgetSchema = {
  type: 'object',
  properties: {
    spec: { $ref: '#/definitions/Spec', default: {} },
  },
  definitions: {
    Spec: {
      type: 'object',
      properties: {
        secrets: {
          type: 'array',
          items: { $ref: '#/definitions/Ref' },
          'x-kubernetes-patch-strategy': 'merge',
          'x-kubernetes-patch-merge-key': 'name',
        },
        finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
        retained: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'retainKeys' },
        owner: { $ref: '#/definitions/Ref', 'x-kubernetes-map-type': 'atomic' },
        plain: { $ref: '#/definitions/Ref' },
        tree: { $ref: '#/definitions/Node' },
      },
    },
    Ref: { type: 'object', properties: { name: { type: 'string' }, uid: { type: 'string' } } },
    Node: {
      type: 'object',
      properties: {
        value: { type: 'string' },
        children: { type: 'object', additionalProperties: { $ref: '#/definitions/Node' } },
      },
    },
  },
} as JSONSchemaProps;
const gadget = fromOpenAPISchema(gadgetSchema);

describe('fromOpenAPISchema over named definitions', () => {
  it.each<{ name: string; spec: unknown; set: ReturnType<typeof NS> }>([
    {
      name: 'a merge patch strategy with a merge key is a list keyed by it',
      spec: { secrets: [{ name: 'a', uid: '1' }] },
      set: NS(
        P('spec', 'secrets', KBF('name', 'a')),
        P('spec', 'secrets', KBF('name', 'a'), 'name'),
        P('spec', 'secrets', KBF('name', 'a'), 'uid'),
      ),
    },
    {
      name: 'a merge patch strategy without a key is a set',
      spec: { finalizers: ['x'] },
      set: NS(P('spec', 'finalizers', V('x'))),
    },
    { name: 'retainKeys alone is atomic', spec: { retained: ['x'] }, set: NS(P('spec', 'retained')) },
    { name: 'a reference may make its target atomic', spec: { owner: { name: 'a' } }, set: NS(P('spec', 'owner')) },
    {
      name: 'the target itself stays granular',
      spec: { plain: { name: 'a' } },
      set: NS(P('spec', 'plain', 'name')),
    },
    {
      name: 'a recursive definition reaches itself',
      spec: { tree: { children: { a: { children: { b: { value: 'x' } } } } } },
      set: NS(
        P('spec', 'tree', 'children', 'a'),
        P('spec', 'tree', 'children', 'a', 'children', 'b'),
        P('spec', 'tree', 'children', 'a', 'children', 'b', 'value'),
      ),
    },
  ])('$name', ({ spec, set }) => {
    const got = toFieldSet(gadget, { spec });
    expect(got.toString()).toBe(set.toString());
  });

  it('refuses fields no definition declares', () => {
    expect(() => toFieldSet(gadget, { spec: { plain: { nope: 1 } } })).toThrow('schema error');
  });

  it('refuses a reference to no definition', () => {
    expect(() => fromOpenAPISchema({ type: 'object', properties: { a: { $ref: '#/definitions/Nowhere' } } })).toThrow(
      'no definition Nowhere',
    );
  });
});

describe('ObjectMeta', () => {
  it('has granular labels, a finalizer set, ownerReferences by uid and atomic managedFields', () => {
    const meta = {
      name: 'w',
      labels: { a: 'b' },
      annotations: { n: 'm' },
      finalizers: ['example.com/f'],
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u-1', controller: true }],
      managedFields: [{ manager: 'm', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} }],
    };
    expect(toFieldSet(widget, { metadata: meta }).toString()).toBe(
      NS(
        P('metadata', 'name'),
        P('metadata', 'labels', 'a'),
        P('metadata', 'annotations', 'n'),
        P('metadata', 'finalizers', V('example.com/f')),
        P('metadata', 'ownerReferences', KBF('uid', 'u-1')),
        P('metadata', 'managedFields'),
      ).toString(),
    );
  });

  it('keys an ownerReference without uid by the default ""', () => {
    expect(
      toFieldSet(objectMetaType, { ownerReferences: [{ name: 'x' }] }).equals(NS(P('ownerReferences', KBF('uid', '')))),
    ).toBe(true);
  });
});

describe('a custom resource, end to end', () => {
  const manifest = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default', labels: { app: 'w' } },
    spec: { size: 3, tags: ['x'], ports: [{ port: 80, protocol: 'TCP' }] },
  };

  it('records an apply the way kube writes its FieldsV1', () => {
    const u = new Updater(widget);
    const r = u.apply(null, manifest, 'example.com/v1', new Map(), 'kubectl', false);
    const managers = stripMetaFields(r.managers, 'kubectl');
    expect(JSON.stringify(fieldSetToFieldsV1(managers.get('kubectl')!.set))).toBe(
      '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:ports":{"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:port":{},"f:protocol":{}}},"f:size":{},"f:tags":{"v:\\"x\\"":{}}}}',
    );
    expect(STRIPPED_META_FIELDS.has(P('metadata', 'resourceVersion'))).toBe(true);
  });

  it('records an update with containers marked by "."', () => {
    const u = new Updater(widget);
    const r = u.update(null, manifest, 'example.com/v1', new Map(), 'creator');
    const managers = stripMetaFields(r.managers, 'creator');
    expect(JSON.stringify(fieldSetToFieldsV1(managers.get('creator')!.set))).toBe(
      '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{".":{},"f:ports":{".":{},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:port":{},"f:protocol":{}}},"f:size":{},"f:tags":{".":{},"v:\\"x\\"":{}}}}',
    );
  });

  it('conflicts with the creator on a changed field, and force takes it', () => {
    const u = new Updater(widget);
    const created = u.update(null, manifest, 'example.com/v1', new Map(), 'creator');
    const config = { ...manifest, spec: { size: 5 } };
    expect(() => u.apply(created.object, config, 'example.com/v1', created.managers, 'kubectl', false)).toThrow(
      Conflicts,
    );
    const forced = u.apply(created.object, config, 'example.com/v1', created.managers, 'kubectl', true);
    expect((forced.object as { spec: { size: number; tags: string[] } }).spec).toEqual({
      size: 5,
      tags: ['x'],
      ports: [{ port: 80, protocol: 'TCP' }],
    });
    expect(forced.managers.get('creator')!.set.has(P('spec', 'size'))).toBe(false);
    expect(forced.managers.get('creator')!.set.has(P('spec', 'tags', V('x')))).toBe(true);
  });

  it('builds built-in kinds by hand with the same pieces', () => {
    const configMap = structType({
      apiVersion: scalarType('string'),
      kind: scalarType('string'),
      metadata: objectMetaType,
      data: mapType(scalarType('string')),
      list: mapListType(structType({ name: scalarType('string') }), ['name']),
      set: setListType(scalarType('numeric')),
    });
    expect(toFieldSet(configMap, { data: { a: '1' }, list: [{ name: 'x' }], set: [1] }).toString()).toBe(
      '.data.a\n.list[name="x"]\n.list[name="x"].name\n.set[=1]',
    );
  });
});
