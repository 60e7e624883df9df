import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import { type OpenAPIResource, definitionName } from '../../../../server/endpoints/openapi/definitions.js';
import { OpenAPI, type OpenAPISource } from '../../../../server/endpoints/openapi/documents.js';
import { openapiResponse } from '../../../../server/endpoints/openapi/http.js';
import { Catalog } from '../../../../server/registry/catalog.js';
import type { Status } from '../../../../apimachinery/errors.js';

type Json = Record<string, unknown>;

/** The catalog as OpenAPI sees it, without stores: descriptors in, a generation counter. */
class FakeCatalog implements OpenAPISource {
  generation = 0;
  private readonly byKey = new Map<string, OpenAPIResource>();

  set(...resources: OpenAPIResource[]): void {
    for (const r of resources) this.byKey.set(`${r.group}/${r.version}/${r.names.plural}`, r);
    this.generation++;
  }

  remove(group: string, version: string, plural: string): void {
    this.byKey.delete(`${group}/${version}/${plural}`);
    this.generation++;
  }

  all(): OpenAPIResource[] {
    return [...this.byKey.values()];
  }
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function resource(
  group: string,
  version: string,
  kind: string,
  plural: string,
  extra: Partial<OpenAPIResource> = {},
): OpenAPIResource {
  return {
    group,
    version,
    names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames: [], categories: [] },
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: [],
    ...extra,
  };
}

const CACHE_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string', description: 'overwritten by the builder' },
    spec: {
      type: 'object',
      example: { size: 1 },
      properties: {
        size: { type: 'integer', default: 1, minimum: 0 },
        port: { 'x-kubernetes-int-or-string': true },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
  },
};

const cache = (extra: Partial<OpenAPIResource> = {}): OpenAPIResource =>
  resource('cache.example.com', 'v1', 'Cache', 'caches', {
    subresources: ['status', 'scale'],
    schema: CACHE_SCHEMA,
    ...extra,
  });
const widget = (): OpenAPIResource =>
  resource('widgets.example.org', 'v1alpha1', 'Widget', 'widgets', {
    namespaced: false,
    schema: { type: 'object', properties: { spec: { type: 'object' } } },
  });
const namespaces = (): OpenAPIResource =>
  resource('', 'v1', 'Namespace', 'namespaces', {
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['finalize', 'status'],
    goPackage: 'k8s.io/api/core/v1',
  });
const crds = (): OpenAPIResource =>
  resource('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'customresourcedefinitions', {
    namespaced: false,
    subresources: ['status'],
    goPackage: 'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1',
  });

const parse = (body: string): Json => JSON.parse(body) as Json;
const obj = (v: unknown): Json => v as Json;

function groupDoc(openapi: OpenAPI, gv: string): Json {
  const doc = openapi.v3Group(gv);
  expect(doc, gv).toBeDefined();
  return parse(doc!.body);
}

function paths(doc: Json): Record<string, Json> {
  return doc['paths'] as Record<string, Json>;
}

function schemas(doc: Json): Record<string, Json> {
  return obj(doc['components'])['schemas'] as Record<string, Json>;
}

/** Every `$ref` string anywhere in a document. */
function refsIn(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) refsIn(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') out.push(x);
      else refsIn(x, out);
    }
  }
  return out;
}

const hashOf = (body: string): string => createHash('sha512').update(body).digest('hex').toUpperCase();

let catalog: FakeCatalog;
let openapi: OpenAPI;

beforeEach(() => {
  catalog = new FakeCatalog();
  catalog.set(namespaces(), crds(), cache(), widget());
  openapi = new OpenAPI(catalog);
});

describe('v3 index', () => {
  it('lists every served group version with the hash of its document', () => {
    const index = parse(openapi.v3Index().body) as { paths: Record<string, { serverRelativeURL: string }> };
    expect(Object.keys(index.paths)).toEqual([
      'api/v1',
      'apis/apiextensions.k8s.io/v1',
      'apis/cache.example.com/v1',
      'apis/widgets.example.org/v1alpha1',
    ]);
    for (const [gv, { serverRelativeURL }] of Object.entries(index.paths)) {
      const doc = openapi.v3Group(gv)!;
      expect(serverRelativeURL).toBe(`/openapi/v3/${gv}?hash=${hashOf(doc.body)}`);
      expect(doc.etag).toBe(`"${hashOf(doc.body)}"`);
    }
  });

  it('is empty for an empty Catalog (the real one satisfies OpenAPISource)', () => {
    expect(new OpenAPI(new Catalog()).v3Index().body).toBe('{"paths":{}}');
  });

  it.each([
    [
      'a schema change',
      () => catalog.set(cache({ schema: { type: 'object', properties: { spec: { type: 'string' } } } })),
    ],
    ['a new subresource', () => catalog.set(cache({ subresources: ['status'] }))],
    ['a new resource in the group version', () => catalog.set(resource('cache.example.com', 'v1', 'Pool', 'pools'))],
    [
      'a resource leaving the group version',
      () => catalog.remove('cache.example.com', 'v1', 'caches') /* empties the gv */,
    ],
  ])('rebuilds only the group version that changed: %s', (_name, change) => {
    const before = Object.fromEntries(
      ['api/v1', 'apis/apiextensions.k8s.io/v1', 'apis/cache.example.com/v1', 'apis/widgets.example.org/v1alpha1'].map(
        (gv) => [gv, openapi.v3Group(gv)],
      ),
    );
    const index = openapi.v3Index();
    change();
    expect(openapi.v3Index().body).not.toBe(index.body);
    expect(openapi.v3Group('apis/cache.example.com/v1')?.etag).not.toBe(before['apis/cache.example.com/v1']!.etag);
    // untouched group versions keep their document (same object: not rebuilt) and hash
    for (const gv of ['api/v1', 'apis/apiextensions.k8s.io/v1', 'apis/widgets.example.org/v1alpha1'])
      expect(openapi.v3Group(gv)).toBe(before[gv]);
  });

  it('keeps every document when a generation bump changed nothing they show', () => {
    const index = openapi.v3Index();
    const doc = openapi.v3Group('apis/cache.example.com/v1');
    catalog.set(cache(), widget()); // new descriptor objects, same content (e.g. a CRD status update)
    expect(openapi.v3Index()).toBe(index);
    expect(openapi.v3Group('apis/cache.example.com/v1')).toBe(doc);
  });

  it('drops a group version nobody serves any more', () => {
    catalog.remove('widgets.example.org', 'v1alpha1', 'widgets');
    expect(Object.keys(obj(parse(openapi.v3Index().body)['paths']))).not.toContain('apis/widgets.example.org/v1alpha1');
    expect(openapi.v3Group('apis/widgets.example.org/v1alpha1')).toBeUndefined();
  });
});

describe('v3 group documents', () => {
  it.each([
    [
      'namespaced CRD',
      'apis/cache.example.com/v1',
      [
        '/apis/cache.example.com/v1/caches',
        '/apis/cache.example.com/v1/namespaces/{namespace}/caches',
        '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}',
        '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}/scale',
        '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}/status',
      ],
    ],
    [
      'cluster-scoped CRD',
      'apis/widgets.example.org/v1alpha1',
      ['/apis/widgets.example.org/v1alpha1/widgets', '/apis/widgets.example.org/v1alpha1/widgets/{name}'],
    ],
    [
      'core group',
      'api/v1',
      [
        '/api/v1/namespaces',
        '/api/v1/namespaces/{name}',
        '/api/v1/namespaces/{name}/finalize',
        '/api/v1/namespaces/{name}/status',
      ],
    ],
  ])('%s: the paths kube emits', (_name, gv, expected) => {
    expect(Object.keys(paths(groupDoc(openapi, gv))).sort()).toEqual(expected);
  });

  it.each([
    ['/apis/cache.example.com/v1/caches', 'get', 'listCacheExampleComV1CacheForAllNamespaces', 'list'],
    ['/apis/cache.example.com/v1/namespaces/{namespace}/caches', 'get', 'listCacheExampleComV1NamespacedCache', 'list'],
    [
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches',
      'post',
      'createCacheExampleComV1NamespacedCache',
      'post',
    ],
    [
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches',
      'delete',
      'deleteCacheExampleComV1CollectionNamespacedCache',
      'deletecollection',
    ],
    [
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}',
      'get',
      'readCacheExampleComV1NamespacedCache',
      'get',
    ],
    [
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}',
      'put',
      'replaceCacheExampleComV1NamespacedCache',
      'put',
    ],
    [
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}',
      'patch',
      'patchCacheExampleComV1NamespacedCache',
      'patch',
    ],
    [
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}',
      'delete',
      'deleteCacheExampleComV1NamespacedCache',
      'delete',
    ],
    [
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}/status',
      'get',
      'readCacheExampleComV1NamespacedCacheStatus',
      'get',
    ],
    [
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}/scale',
      'patch',
      'patchCacheExampleComV1NamespacedCacheScale',
      'patch',
    ],
  ])('%s %s: operationId %s, action %s, the kind on the operation', (path, method, operationId, action) => {
    const op = obj(paths(groupDoc(openapi, 'apis/cache.example.com/v1'))[path]![method]);
    expect(op['operationId']).toBe(operationId);
    expect(op['x-kubernetes-action']).toBe(action);
    expect(op['x-kubernetes-group-version-kind']).toEqual({ group: 'cache.example.com', version: 'v1', kind: 'Cache' });
    expect(op['tags']).toEqual(['cacheExampleCom_v1']);
  });

  it.each([
    ['api/v1', '/api/v1/namespaces/{name}', 'patchCoreV1Namespace'],
    [
      'apis/apiextensions.k8s.io/v1',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}',
      'patchApiextensionsV1CustomResourceDefinition',
    ],
    [
      'apis/widgets.example.org/v1alpha1',
      '/apis/widgets.example.org/v1alpha1/widgets/{name}',
      'patchWidgetsExampleOrgV1alpha1Widget',
    ],
  ])('%s: operation IDs of built-in and cluster-scoped kinds', (gv, path, operationId) => {
    expect(obj(paths(groupDoc(openapi, gv))[path]!['patch'])['operationId']).toBe(operationId);
  });

  // kubectl 1.29+ leaves validation to the server only when the PATCH operation of the kind (the
  // first it meets, in map order) carries the kind and a fieldValidation query parameter of its own.
  it.each([
    ['apis/cache.example.com/v1', { group: 'cache.example.com', version: 'v1', kind: 'Cache' }, 3],
    ['apis/widgets.example.org/v1alpha1', { group: 'widgets.example.org', version: 'v1alpha1', kind: 'Widget' }, 1],
    ['api/v1', { group: '', version: 'v1', kind: 'Namespace' }, 2],
    [
      'apis/apiextensions.k8s.io/v1',
      { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
      2,
    ],
  ])('%s: every PATCH operation has the GVK and its own fieldValidation parameter', (gv, gvk, count) => {
    const patches = Object.values(paths(groupDoc(openapi, gv))).flatMap((item) =>
      item['patch'] ? [obj(item['patch'])] : [],
    );
    expect(patches).toHaveLength(count);
    for (const op of patches) {
      expect(op['x-kubernetes-group-version-kind']).toEqual(gvk);
      expect(op['parameters']).toContainEqual(expect.objectContaining({ name: 'fieldValidation', in: 'query' }));
    }
  });

  it('keeps fieldValidation on a PATCH operation even when it is alone on its path', () => {
    catalog.set(resource('solo.example.com', 'v1', 'Solo', 'solos', { verbs: ['patch'] }));
    const item = paths(groupDoc(openapi, 'apis/solo.example.com/v1'))[
      '/apis/solo.example.com/v1/namespaces/{namespace}/solos/{name}'
    ]!;
    expect(obj(item['patch'])['parameters']).toEqual([expect.objectContaining({ name: 'fieldValidation' })]);
    expect((item['parameters'] as Json[]).map((p) => p['name'])).toEqual([
      'dryRun',
      'fieldManager',
      'force',
      'name',
      'namespace',
      'pretty',
    ]);
  });

  it.each([
    [
      'a custom resource',
      'apis/cache.example.com/v1',
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}',
      ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'],
    ],
    // Offering strategic merge patch without a schema with fields makes kubectl 1.29+ warn
    // "unable to find api field" on every apply; without the offer it uses OpenAPI v2 quietly.
    [
      'a built-in kind without a schema',
      'api/v1',
      '/api/v1/namespaces/{name}',
      ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json'],
    ],
  ])('PATCH of %s offers the patch types kubectl can use', (_name, gv, path, types) => {
    const body = obj(obj(paths(groupDoc(openapi, gv))[path]!['patch'])['requestBody']);
    expect(Object.keys(obj(body['content'])).sort()).toEqual(types);
    expect(body['required']).toBe(true);
  });

  it('hoists the parameters every operation of a path shares, sorted by name', () => {
    const item = paths(groupDoc(openapi, 'apis/cache.example.com/v1'))[
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}'
    ]!;
    expect(item['parameters']).toEqual([
      {
        name: 'name',
        in: 'path',
        description: 'name of the Cache',
        required: true,
        schema: { type: 'string', uniqueItems: true },
      },
      expect.objectContaining({ name: 'namespace', in: 'path', required: true }),
      expect.objectContaining({ name: 'pretty', in: 'query' }),
    ]);
    expect((obj(item['get'])['parameters'] as Json[]).map((p) => p['name'])).toEqual(['resourceVersion']);
  });

  it.each([
    [cache(), 'Cache', 'com.example.cache.v1.Cache'],
    [widget(), 'WidgetList', 'org.example.widgets.v1alpha1.WidgetList'],
    [namespaces(), 'Namespace', 'io.k8s.api.core.v1.Namespace'],
    [
      crds(),
      'CustomResourceDefinition',
      'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    ],
  ])('definition name of %# %s is %s', (r, kind, name) => {
    expect(definitionName(r, kind)).toBe(name);
  });

  it.each(['api/v1', 'apis/apiextensions.k8s.io/v1', 'apis/cache.example.com/v1', 'apis/widgets.example.org/v1alpha1'])(
    '%s: every $ref resolves to one of its component schemas',
    (gv) => {
      const doc = groupDoc(openapi, gv);
      const refs = refsIn(doc);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        expect(ref).toMatch(/^#\/components\/schemas\//);
        expect(schemas(doc), ref).toHaveProperty([ref.slice('#/components/schemas/'.length)]);
      }
    },
  );

  it('emits the meta/v1 (and Scale) definitions the documents reference, and nothing unreferenced', () => {
    expect(Object.keys(schemas(groupDoc(openapi, 'apis/cache.example.com/v1'))).sort()).toEqual([
      'com.example.cache.v1.Cache',
      'com.example.cache.v1.CacheList',
      'io.k8s.api.autoscaling.v1.Scale',
      'io.k8s.api.autoscaling.v1.ScaleSpec',
      'io.k8s.api.autoscaling.v1.ScaleStatus',
      'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
      'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      'io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Preconditions',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
      'io.k8s.apimachinery.pkg.apis.meta.v1.StatusCause',
      'io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
    ]);
    expect(Object.keys(schemas(groupDoc(openapi, 'apis/widgets.example.org/v1alpha1')))).not.toContain(
      'io.k8s.api.autoscaling.v1.Scale',
    );
  });

  it("builds the kind's schema as kube's buildKubeNative does", () => {
    const s = schemas(groupDoc(openapi, 'apis/cache.example.com/v1'))['com.example.cache.v1.Cache']!;
    const props = s['properties'] as Record<string, Json>;
    expect(s['x-kubernetes-group-version-kind']).toEqual([
      { group: 'cache.example.com', version: 'v1', kind: 'Cache' },
    ]);
    // a $ref with siblings is wrapped in allOf in v3
    expect(props['metadata']).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
      description: expect.stringContaining("Standard object's metadata"),
    });
    expect(props['apiVersion']).toEqual({
      type: 'string',
      description: expect.stringContaining('APIVersion defines the versioned schema'),
    });
    expect(props['kind']).toEqual({ type: 'string', description: expect.stringContaining('Kind is a string value') });
    const spec = obj(props['spec']);
    const specProps = spec['properties'] as Record<string, Json>;
    expect(spec).not.toHaveProperty('example');
    expect(specProps['size']).toEqual({ type: 'integer', default: 1, minimum: 0 });
    expect(specProps['port']).toEqual({
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    });
    const template = specProps['template']!;
    expect(Object.keys(obj(template['properties'])).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(template['required']).toEqual(['kind', 'apiVersion']);
  });

  it('builds the list kind with items of the kind and ListMeta', () => {
    const list = schemas(groupDoc(openapi, 'apis/cache.example.com/v1'))['com.example.cache.v1.CacheList']!;
    expect(list['x-kubernetes-group-version-kind']).toEqual([
      { group: 'cache.example.com', version: 'v1', kind: 'CacheList' },
    ]);
    expect(list['required']).toEqual(['items']);
    expect(obj(list['properties'])['items']).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/com.example.cache.v1.Cache' },
      description: expect.stringContaining('List of caches'),
    });
  });

  it.each([
    ['api/v1', 'io.k8s.api.core.v1.Namespace', { group: '', version: 'v1', kind: 'Namespace' }],
    [
      'apis/apiextensions.k8s.io/v1',
      'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
      { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
    ],
  ])('%s: a schemaless built-in kind gets a permissive schema with its GVK', (gv, name, gvk) => {
    const s = schemas(groupDoc(openapi, gv))[name]!;
    expect(s['type']).toBe('object');
    expect(s['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(s['x-kubernetes-group-version-kind']).toEqual([gvk]);
    expect(Object.keys(obj(s['properties'])).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
  });

  it.each([
    ['api/v1', { title: 'Kubernetes', version: 'v1.33.0' }],
    ['apis/cache.example.com/v1', { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' }],
  ])('%s: an OpenAPI 3.0.0 document with info as kube titles it', (gv, info) => {
    const doc = groupDoc(openapi, gv);
    expect(doc['openapi']).toBe('3.0.0');
    expect(doc['info']).toEqual(info);
  });
});

describe('v2 (swagger 2.0) conversion', () => {
  /** The v2 definition of a one-resource CRD whose schema has `field` as spec.x. */
  function v2Field(field: JSONSchemaProps, siblings: Record<string, JSONSchemaProps> = {}, required?: string[]): Json {
    const c = new FakeCatalog();
    const spec: JSONSchemaProps = { type: 'object', properties: { x: field, ...siblings } };
    if (required) spec.required = required;
    c.set(resource('conv.example.com', 'v1', 'Conv', 'convs', { schema: { type: 'object', properties: { spec } } }));
    const defs = parse(new OpenAPI(c).v2().body)['definitions'] as Record<string, Json>;
    return obj(obj(defs['com.example.conv.v1.Conv']!['properties'])['spec']);
  }
  const x = (spec: Json): Json => obj(obj(spec['properties'])['x']);

  it.each<[string, JSONSchemaProps, Json]>([
    [
      'drops oneOf/anyOf/allOf/not',
      {
        type: 'string',
        oneOf: [{ pattern: 'a' }],
        anyOf: [{ pattern: 'b' }],
        allOf: [{ pattern: 'c' }],
        not: { pattern: 'd' },
      },
      { type: 'string' },
    ],
    [
      'drops nullable with type, properties and items',
      { type: 'object', nullable: true, properties: { a: { type: 'string' } }, description: 'd' },
      { description: 'd' },
    ],
    [
      'drops properties and the object type of a preserving object',
      { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
      { 'x-kubernetes-preserve-unknown-fields': true },
    ],
    [
      'drops items and the array type of a preserving array',
      { type: 'array', 'x-kubernetes-preserve-unknown-fields': true, items: { type: 'string' } },
      { 'x-kubernetes-preserve-unknown-fields': true },
    ],
    ['drops defaults', { type: 'integer', default: 3 }, { type: 'integer' }],
    [
      'drops the anyOf that unfolds int-or-string',
      { 'x-kubernetes-int-or-string': true },
      { 'x-kubernetes-int-or-string': true },
    ],
    [
      'keeps value validations and list extensions',
      { type: 'array', maxItems: 3, items: { type: 'string', enum: ['a'] }, 'x-kubernetes-list-type': 'set' },
      { type: 'array', maxItems: 3, items: { type: 'string', enum: ['a'] }, 'x-kubernetes-list-type': 'set' },
    ],
    [
      'converts nested schemas too',
      { type: 'object', properties: { y: { type: 'string', nullable: true, default: 'a' } } },
      { type: 'object', properties: { y: {} } },
    ],
  ])('%s', (_name, field, expected) => {
    expect(x(v2Field(field))).toEqual(expected);
  });

  it.each<[string, string[], string[] | undefined]>([
    ['drops nullable properties from required', ['y', 'z'], ['z']],
    ['drops required entirely when nothing is left', ['y'], undefined],
  ])('%s', (_name, required, expected) => {
    const spec = v2Field(
      { type: 'string' },
      { y: { type: 'string', nullable: true }, z: { type: 'string' } },
      required,
    );
    expect(spec['required']).toEqual(expected);
  });

  it('drops required when additionalProperties are nullable', () => {
    const c = new FakeCatalog();
    c.set(
      resource('conv.example.com', 'v1', 'Conv', 'convs', {
        schema: {
          type: 'object',
          properties: {
            m: { type: 'object', required: ['a'], additionalProperties: { type: 'string', nullable: true } },
          },
        },
      }),
    );
    const m = obj(
      obj(obj(obj(parse(new OpenAPI(c).v2().body)['definitions'])['com.example.conv.v1.Conv'])['properties'])['m'],
    );
    expect(m).toEqual({ type: 'object', additionalProperties: {} });
  });

  it('publishes a preserving root as a bare object with its GVK, as kube does', () => {
    const c = new FakeCatalog();
    c.set(
      resource('conv.example.com', 'v1', 'Conv', 'convs', {
        schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
      }),
    );
    const defs = obj(parse(new OpenAPI(c).v2().body)['definitions']);
    expect(defs['com.example.conv.v1.Conv']).toEqual({
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'conv.example.com', version: 'v1', kind: 'Conv' }],
    });
  });

  it('is one swagger 2.0 document of every group version, with #/definitions refs that resolve', () => {
    const doc = parse(openapi.v2().body);
    expect(doc['swagger']).toBe('2.0');
    const p = paths(doc);
    for (const path of [
      '/api/v1/namespaces/{name}',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}/scale',
      '/apis/widgets.example.org/v1alpha1/widgets',
    ]) {
      expect(p).toHaveProperty([path]);
    }
    const defs = obj(doc['definitions']);
    for (const ref of refsIn(doc)) {
      expect(ref).toMatch(/^#\/definitions\//);
      expect(defs, ref).toHaveProperty([ref.slice('#/definitions/'.length)]);
    }
    // v2 keeps $ref siblings as they are (no allOf) and has no nullable anywhere
    expect(obj(obj(obj(defs['com.example.cache.v1.Cache'])['properties'])['metadata'])['$ref']).toBe(
      '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    );
    expect(openapi.v2().body).not.toContain('"nullable"');
    expect(openapi.v2().body).not.toContain('"allOf"');
  });

  it('has v2 parameters (body parameter, type on the parameter) and the GVK on the PATCH operation', () => {
    const op = obj(
      paths(parse(openapi.v2().body))['/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}']!['patch'],
    );
    expect(op['x-kubernetes-group-version-kind']).toEqual({ group: 'cache.example.com', version: 'v1', kind: 'Cache' });
    expect(op['parameters']).toContainEqual({
      name: 'body',
      in: 'body',
      required: true,
      schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' },
    });
    expect(op['parameters']).toContainEqual(
      expect.objectContaining({ name: 'fieldValidation', in: 'query', type: 'string', uniqueItems: true }),
    );
    expect(op['consumes']).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
  });

  it('is rebuilt when a group version changes, and cached otherwise', () => {
    const v2 = openapi.v2();
    expect(openapi.v2()).toBe(v2);
    catalog.set(widget()); // same content: nothing to rebuild
    expect(openapi.v2()).toBe(v2);
    catalog.set(resource('more.example.com', 'v1', 'More', 'mores'));
    expect(parse(openapi.v2().body)['paths']).toHaveProperty(['/apis/more.example.com/v1/mores']);
  });
});

describe('openapiResponse', () => {
  const PROTO = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
  const KUBECTL_PROTO = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
  const none = new URLSearchParams();

  it('serves the index', () => {
    const r = openapiResponse(openapi, '/openapi/v3', none, 'application/json, */*');
    expect(r.code).toBe(200);
    expect(r.headers['Content-Type']).toBe('application/json');
    expect(r.body).toBe(openapi.v3Index().body);
  });

  it('serves a group document at its current hash as immutable', () => {
    const doc = openapi.v3Group('apis/cache.example.com/v1')!;
    const r = openapiResponse(
      openapi,
      '/openapi/v3/apis/cache.example.com/v1',
      new URLSearchParams({ hash: hashOf(doc.body) }),
      'application/json',
    );
    expect(r.code).toBe(200);
    expect(r.body).toBe(doc.body);
    expect(r.headers).toMatchObject({
      'Content-Type': 'application/json',
      ETag: doc.etag,
      Vary: 'Accept',
      'Cache-Control': 'public, immutable',
    });
    expect(Date.parse(r.headers['Expires']!)).toBeGreaterThan(Date.now() + 360 * 24 * 3600 * 1000);
  });

  it('serves a group document without a hash, but not as immutable (kube handler3)', () => {
    const r = openapiResponse(openapi, '/openapi/v3/api/v1', none, undefined);
    expect(r.code).toBe(200);
    expect(r.body).toBe(openapi.v3Group('api/v1')!.body);
    expect(r.headers['ETag']).toBe(openapi.v3Group('api/v1')!.etag);
    expect(r.headers).not.toHaveProperty('Cache-Control');
  });

  it('redirects a stale hash to the current one (301)', () => {
    const stale = hashOf(openapi.v3Group('apis/cache.example.com/v1')!.body);
    catalog.set(cache({ subresources: [] }));
    const r = openapiResponse(
      openapi,
      '/openapi/v3/apis/cache.example.com/v1',
      new URLSearchParams({ hash: stale }),
      'application/json',
    );
    expect(r.code).toBe(301);
    expect(r.body).toBe('');
    expect(r.headers['Location']).toBe(
      `/openapi/v3/apis/cache.example.com/v1?hash=${hashOf(openapi.v3Group('apis/cache.example.com/v1')!.body)}`,
    );
    expect(r.headers).not.toHaveProperty('Cache-Control');
  });

  it.each([
    ['an unknown group version', '/openapi/v3/apis/nope.example.com/v1'],
    ['a group without version', '/openapi/v3/apis/cache.example.com'],
    ['an unknown OpenAPI version', '/openapi/v1'],
  ])("answers 404 with kube's path-not-found Status for %s", (_name, path) => {
    const r = openapiResponse(openapi, path, none, 'application/json');
    expect(r.code).toBe(404);
    expect(JSON.parse(r.body as string)).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      code: 404,
      message: 'the server could not find the requested resource',
    } satisfies Partial<Status>);
  });

  it.each([
    ['kubectl (deprecated protobuf name)', KUBECTL_PROTO, 200, PROTO],
    ['the current protobuf name', PROTO, 200, PROTO],
    ['JSON', 'application/json', 200, 'application/json'],
    ['JSON or anything', 'application/json, */*', 200, 'application/json'],
    ['anything', '*/*', 200, 'application/json'],
    ['no Accept', undefined, 200, 'application/json'],
    ['protobuf preferred by quality', `application/json;q=0.5, ${KUBECTL_PROTO}`, 200, PROTO],
    ['JSON preferred by quality', `${KUBECTL_PROTO};q=0.1, application/json`, 200, 'application/json'],
    ['concrete type before a wildcard', `*/*, ${KUBECTL_PROTO}`, 200, PROTO],
    ['HTML only', 'text/html', 406, 'application/json'],
  ])('/openapi/v2 for %s', (_name, accept, code, contentType) => {
    const r = openapiResponse(openapi, '/openapi/v2', none, accept);
    expect(r.code).toBe(code);
    expect(r.headers['Content-Type']).toBe(contentType);
    if (contentType === PROTO) {
      // gnostic's protobuf of the same document (openapi-v2-protobuf.test.ts decodes it)
      expect(Buffer.compare(r.body as Buffer, openapi.v2Protobuf().body)).toBe(0);
      expect(r.headers['ETag']).toBe(openapi.v2().etag);
    } else if (code === 200) {
      expect(r.body).toBe(openapi.v2().body);
    } else {
      expect(JSON.parse(r.body as string)).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    }
  });

  it('answers 406 for a group document in a type it cannot produce', () => {
    const r = openapiResponse(
      openapi,
      '/openapi/v3/api/v1',
      none,
      'application/com.github.proto-openapi.spec.v3.v1.0+protobuf',
    );
    expect(r.code).toBe(406);
  });
});
