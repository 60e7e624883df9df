// Patch metadata derived from OpenAPI schemas (kube's PatchMetaFromOpenAPI): the tags
// openapi-gen wrote into the schema, found through $refs, list items and map values.
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import { customResourceDefinitionSchema } from '../../../../apimachinery/apis/builtin-schemas.js';
import {
  type FieldPatchMeta,
  lookupPatchMeta,
  patchMetaFromSchema,
} from '../../../../apimachinery/strategic-merge/patch-meta.js';

const schema = {
  type: 'object',
  properties: {
    spec: { $ref: '#/definitions/Spec' },
    plain: { type: 'string' },
  },
  definitions: {
    Spec: {
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          items: { $ref: '#/definitions/Port' },
          'x-kubernetes-patch-strategy': 'merge',
          'x-kubernetes-patch-merge-key': 'port',
        },
        names: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
        volumes: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' } } },
          'x-kubernetes-patch-strategy': 'merge,retainKeys',
          'x-kubernetes-patch-merge-key': 'name',
        },
        byName: { type: 'object', additionalProperties: { $ref: '#/definitions/Port' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        tree: { $ref: '#/definitions/Node' },
      },
    },
    Port: {
      type: 'object',
      properties: {
        port: { type: 'integer' },
        hosts: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'replace' },
      },
    },
    Node: {
      type: 'object',
      properties: {
        rules: {
          type: 'array',
          items: { type: 'object', properties: { rule: { type: 'string' } } },
          'x-kubernetes-patch-strategy': 'merge',
          'x-kubernetes-patch-merge-key': 'rule',
        },
        children: { type: 'object', additionalProperties: { $ref: '#/definitions/Node' } },
      },
    },
  },
} as JSONSchemaProps;

/** The tags found at a path of field names, as strategic merge patch looks them up. */
function at(meta: ReturnType<typeof patchMetaFromSchema>, ...path: string[]): FieldPatchMeta {
  let field: FieldPatchMeta = { type: meta };
  for (const key of path) field = lookupPatchMeta(field.type, key);
  return field;
}

describe('patchMetaFromSchema', () => {
  const meta = patchMetaFromSchema(schema);

  it.each<{ name: string; path: string[]; want: Partial<FieldPatchMeta> }>([
    {
      name: 'a list merged by key, through a $ref',
      path: ['spec', 'ports'],
      want: { patchStrategy: 'merge', patchMergeKey: 'port' },
    },
    { name: 'a list merged as a set', path: ['spec', 'names'], want: { patchStrategy: 'merge' } },
    {
      name: 'merge with retainKeys',
      path: ['spec', 'volumes'],
      want: { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' },
    },
    { name: "a list item's own fields", path: ['spec', 'ports', 'hosts'], want: { patchStrategy: 'replace' } },
    { name: "a map's values", path: ['spec', 'byName', 'any', 'hosts'], want: { patchStrategy: 'replace' } },
    {
      name: 'a recursive definition',
      path: ['spec', 'tree', 'children', 'a', 'children', 'b', 'rules'],
      want: { patchStrategy: 'merge', patchMergeKey: 'rule' },
    },
    { name: 'ObjectMeta at metadata: finalizers', path: ['metadata', 'finalizers'], want: { patchStrategy: 'merge' } },
    {
      name: 'ObjectMeta at metadata: ownerReferences',
      path: ['metadata', 'ownerReferences'],
      want: { patchStrategy: 'merge', patchMergeKey: 'uid' },
    },
    { name: 'an untagged scalar', path: ['plain'], want: {} },
    { name: 'a field the schema lacks', path: ['nope'], want: {} },
  ])('$name', ({ path, want }) => {
    const field = at(meta, ...path);
    expect({ patchStrategy: field.patchStrategy, patchMergeKey: field.patchMergeKey }).toEqual({
      patchStrategy: want.patchStrategy,
      patchMergeKey: want.patchMergeKey,
    });
  });

  it('gives a list of structs its element type and a list of scalars none', () => {
    expect(at(meta, 'spec', 'volumes').type).toBeDefined();
    expect(at(meta, 'spec', 'names').type).toBeUndefined();
    expect(at(meta, 'spec', 'labels').type).toBeUndefined();
  });

  it('is derived once per schema', () => {
    expect(patchMetaFromSchema(schema)).toBe(meta);
  });

  it("a CRD's validation rules merge by rule, at every depth of its schemas (JSONSchemaProps' tags)", () => {
    const crd = patchMetaFromSchema(customResourceDefinitionSchema);
    const root = ['spec', 'versions', 'schema', 'openAPIV3Schema'];
    expect(at(crd, ...root, 'x-kubernetes-validations')).toMatchObject({
      patchStrategy: 'merge',
      patchMergeKey: 'rule',
    });
    expect(at(crd, ...root, 'properties', 'spec', 'properties', 'a', 'x-kubernetes-validations')).toMatchObject({
      patchStrategy: 'merge',
      patchMergeKey: 'rule',
    });
  });

  it('refuses a reference to no definition and a strategy kube does not know', () => {
    expect(() => patchMetaFromSchema({ type: 'object', properties: { a: { $ref: '#/definitions/Nowhere' } } })).toThrow(
      'no definition Nowhere',
    );
    const odd = { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'sideways' };
    expect(() => patchMetaFromSchema({ type: 'object', properties: { a: odd } } as JSONSchemaProps)).toThrow(
      'unknown patch strategy sideways',
    );
  });
});
