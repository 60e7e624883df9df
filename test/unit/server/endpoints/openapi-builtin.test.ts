// The built-in kinds in /openapi/v3 and /openapi/v2: kube's definitions (apimachinery/apis/
// builtin-schemas.ts) rendered with $refs to named definitions, every reference resolvable, the
// shared definitions identical wherever they appear, and custom resources untouched.
import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import {
  clusterRoleBindingSchema,
  clusterRoleSchema,
  configMapSchema,
  coreEventSchema,
  customResourceDefinitionSchema,
  eventsV1EventSchema,
  leaseSchema,
  namespaceSchema,
  roleBindingSchema,
  roleSchema,
  secretSchema,
  serviceAccountSchema,
} from '../../../../apimachinery/apis/builtin-schemas.js';
import { type OpenAPIResource, definitionName } from '../../../../server/endpoints/openapi/definitions.js';
import { BUILTIN_KINDS } from '../../../../server/registry/builtin/table.js';
import { OpenAPI, type OpenAPISource } from '../../../../server/endpoints/openapi/documents.js';
import { openapiResponse } from '../../../../server/endpoints/openapi/http.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => v as Json;

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function builtin(
  group: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  schema: JSONSchemaProps,
  extra: Partial<OpenAPIResource> = {},
): OpenAPIResource {
  return {
    group,
    version: 'v1',
    names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames: [], categories: [] },
    namespaced,
    verbs: VERBS,
    subresources: [],
    schema,
    // What makes it compiled in: its module's Go package.
    goPackage: BUILTIN_KINDS.find((k) => k.group === group && k.names.kind === kind)!.goPackage!,
    ...extra,
  };
}

const RBAC = 'rbac.authorization.k8s.io';
const BUILTINS: OpenAPIResource[] = [
  builtin('', 'ConfigMap', 'configmaps', true, configMapSchema),
  builtin('', 'Secret', 'secrets', true, secretSchema),
  builtin('', 'ServiceAccount', 'serviceaccounts', true, serviceAccountSchema),
  builtin('', 'Namespace', 'namespaces', false, namespaceSchema, { subresources: ['finalize', 'status'] }),
  builtin('', 'Event', 'events', true, coreEventSchema),
  builtin('events.k8s.io', 'Event', 'events', true, eventsV1EventSchema),
  builtin('coordination.k8s.io', 'Lease', 'leases', true, leaseSchema),
  builtin(RBAC, 'Role', 'roles', true, roleSchema),
  builtin(RBAC, 'ClusterRole', 'clusterroles', false, clusterRoleSchema),
  builtin(RBAC, 'RoleBinding', 'rolebindings', true, roleBindingSchema),
  builtin(RBAC, 'ClusterRoleBinding', 'clusterrolebindings', false, clusterRoleBindingSchema),
  builtin(
    'apiextensions.k8s.io',
    'CustomResourceDefinition',
    'customresourcedefinitions',
    false,
    customResourceDefinitionSchema,
    { subresources: ['status'] },
  ),
];

const CACHE: OpenAPIResource = {
  group: 'cache.example.com',
  version: 'v1',
  names: { plural: 'caches', singular: 'cache', kind: 'Cache', listKind: 'CacheList', shortNames: [], categories: [] },
  namespaced: true,
  verbs: VERBS,
  subresources: ['status'],
  schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } },
};

const source = (resources: OpenAPIResource[]): OpenAPISource => ({ generation: 1, all: () => resources });
const openapi = new OpenAPI(source([...BUILTINS, CACHE]));

const GROUP_VERSIONS = [
  'api/v1',
  'apis/events.k8s.io/v1',
  'apis/coordination.k8s.io/v1',
  `apis/${RBAC}/v1`,
  'apis/apiextensions.k8s.io/v1',
  'apis/cache.example.com/v1',
];

function v3(gv: string): Json {
  const doc = openapi.v3Group(gv);
  if (!doc) throw new Error(`no document for ${gv}`);
  return JSON.parse(doc.body) as Json;
}
const v3Schemas = (gv: string): Json => obj(obj(v3(gv)['components'])['schemas']);
const v2Definitions = (): Json => obj((JSON.parse(openapi.v2().body) as Json)['definitions']);

/** Every `$ref` anywhere in a value. */
function refsIn(value: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...(v as unknown[]));
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') out.push(x);
        else stack.push(x);
      }
    }
  }
  return out;
}

/** Whether any object in a value has key `key`. */
const hasKey = (value: unknown, key: string): boolean => JSON.stringify(value).includes(`"${key}":`);

describe('built-in kinds in OpenAPI v3', () => {
  it.each(GROUP_VERSIONS)('%s: every $ref resolves to one of its component schemas', (gv) => {
    const doc = v3(gv);
    const schemas = v3Schemas(gv);
    for (const ref of refsIn(doc)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(schemas, ref).toHaveProperty([ref.slice('#/components/schemas/'.length)]);
    }
  });

  it("names definitions after kube's Go packages, rbac included", () => {
    expect(definitionName(BUILTINS.find((r) => r.group === RBAC)!, 'Role')).toBe('io.k8s.api.rbac.v1.Role');
    expect(
      Object.keys(v3Schemas(`apis/${RBAC}/v1`))
        .filter((n) => n.startsWith('io.k8s.api.rbac.v1.'))
        .sort(),
    ).toEqual([
      'io.k8s.api.rbac.v1.AggregationRule',
      'io.k8s.api.rbac.v1.ClusterRole',
      'io.k8s.api.rbac.v1.ClusterRoleBinding',
      'io.k8s.api.rbac.v1.ClusterRoleBindingList',
      'io.k8s.api.rbac.v1.ClusterRoleList',
      'io.k8s.api.rbac.v1.PolicyRule',
      'io.k8s.api.rbac.v1.Role',
      'io.k8s.api.rbac.v1.RoleBinding',
      'io.k8s.api.rbac.v1.RoleBindingList',
      'io.k8s.api.rbac.v1.RoleList',
      'io.k8s.api.rbac.v1.RoleRef',
      'io.k8s.api.rbac.v1.Subject',
    ]);
    expect(obj(v3(`apis/${RBAC}/v1`)['info'])['title']).toBe('Kubernetes');
  });

  it("ConfigMap: kube's description, typed fields, ObjectMeta by reference and its GVK", () => {
    const cm = obj(v3Schemas('api/v1')['io.k8s.api.core.v1.ConfigMap']);
    expect(cm['description']).toBe('ConfigMap holds configuration data for pods to consume.');
    expect(cm['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'ConfigMap', version: 'v1' }]);
    const props = obj(cm['properties']);
    expect(Object.keys(props).sort()).toEqual(['apiVersion', 'binaryData', 'data', 'immutable', 'kind', 'metadata']);
    expect(props['binaryData']).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'string', format: 'byte' },
    });
    expect(props['data']).toMatchObject({ type: 'object', additionalProperties: { type: 'string', default: '' } });
    expect(props['immutable']).toMatchObject({ type: 'boolean' });
    expect(props['metadata']).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
      description: expect.stringContaining("Standard object's metadata") as unknown,
    });
    expect(hasKey(cm, 'definitions')).toBe(false);
  });

  it('Role.rules: an atomic list of PolicyRule, by reference wrapped in allOf as kube does', () => {
    const rules = obj(obj(obj(v3Schemas(`apis/${RBAC}/v1`)['io.k8s.api.rbac.v1.Role'])['properties'])['rules']);
    expect(rules).toEqual({
      type: 'array',
      description: 'Rules holds all the PolicyRules for this Role',
      items: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.rbac.v1.PolicyRule' }], default: {} },
      'x-kubernetes-list-type': 'atomic',
    });
    const rule = obj(v3Schemas(`apis/${RBAC}/v1`)['io.k8s.api.rbac.v1.PolicyRule']);
    expect(rule['required']).toEqual(['verbs']);
    expect(obj(obj(rule['properties'])['verbs'])).toMatchObject({
      type: 'array',
      items: { type: 'string', default: '' },
      'x-kubernetes-list-type': 'atomic',
    });
  });

  it('keeps the extensions that matter: patch strategy and merge key, list and map types', () => {
    const sa = obj(obj(v3Schemas('api/v1')['io.k8s.api.core.v1.ServiceAccount'])['properties']);
    expect(sa['secrets']).toMatchObject({
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    expect(sa['imagePullSecrets']).toMatchObject({ 'x-kubernetes-list-type': 'atomic' });
    const status = obj(obj(v3Schemas('api/v1')['io.k8s.api.core.v1.NamespaceStatus'])['properties']);
    expect(status['conditions']).toMatchObject({
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'type',
      'x-kubernetes-patch-strategy': 'merge',
    });
    expect(obj(v3Schemas(`apis/${RBAC}/v1`)['io.k8s.api.rbac.v1.RoleRef'])['x-kubernetes-map-type']).toBe('atomic');
    expect(obj(v3Schemas('api/v1')['io.k8s.api.core.v1.ObjectReference'])['x-kubernetes-map-type']).toBe('atomic');
  });

  it('Lease.spec: a LeaseSpec whose times are MicroTime, emitted once beside the kinds', () => {
    const schemas = v3Schemas('apis/coordination.k8s.io/v1');
    const spec = obj(obj(schemas['io.k8s.api.coordination.v1.LeaseSpec'])['properties']);
    expect(spec['leaseDurationSeconds']).toMatchObject({ type: 'integer', format: 'int32' });
    expect(spec['renewTime']).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime' }],
    });
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime']).toMatchObject({
      type: 'string',
      format: 'date-time',
    });
  });

  it('leaves the meta/v1 definitions the documents already emit as they were (ObjectMeta, Time)', () => {
    const withoutBuiltins = new OpenAPI(source([CACHE]));
    const cacheSchemas = obj(
      obj((JSON.parse(withoutBuiltins.v3Group('apis/cache.example.com/v1')!.body) as Json)['components'])['schemas'],
    );
    for (const gv of GROUP_VERSIONS) {
      const schemas = v3Schemas(gv);
      for (const name of [
        'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
        'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
      ]) {
        if (schemas[name]) expect(schemas[name], `${gv} ${name}`).toEqual(cacheSchemas[name]);
      }
    }
  });

  it('a definition shared by several documents (ObjectReference, EventSource, MicroTime) is the same in each', () => {
    const seen = new Map<string, string>();
    for (const gv of GROUP_VERSIONS) {
      for (const [name, def] of Object.entries(v3Schemas(gv))) {
        const text = JSON.stringify(def);
        if (seen.has(name)) expect(text, `${name} in ${gv}`).toBe(seen.get(name));
        else seen.set(name, text);
      }
    }
    expect(v3Schemas('apis/events.k8s.io/v1')).toHaveProperty(['io.k8s.api.core.v1.ObjectReference']);
  });

  it('CustomResourceDefinition: spec.versions[].schema.openAPIV3Schema is a JSONSchemaProps, which refers to itself', () => {
    const APIEXT = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
    const schemas = v3Schemas('apis/apiextensions.k8s.io/v1');
    expect(obj(schemas[`${APIEXT}.CustomResourceDefinition`])['required']).toEqual(['spec']);
    const validation = obj(obj(schemas[`${APIEXT}.CustomResourceValidation`])['properties']);
    expect(validation['openAPIV3Schema']).toMatchObject({
      allOf: [{ $ref: `#/components/schemas/${APIEXT}.JSONSchemaProps` }],
    });
    const props = obj(obj(schemas[`${APIEXT}.JSONSchemaProps`])['properties']);
    expect(props['properties']).toEqual({
      type: 'object',
      additionalProperties: { allOf: [{ $ref: `#/components/schemas/${APIEXT}.JSONSchemaProps` }], default: {} },
    });
    expect(props['not']).toEqual({ $ref: `#/components/schemas/${APIEXT}.JSONSchemaProps` });
    expect(props['x-kubernetes-validations']).toMatchObject({
      'x-kubernetes-list-map-keys': ['rule'],
      'x-kubernetes-patch-merge-key': 'rule',
    });
    expect(props).toHaveProperty(['$ref']);
    expect(schemas[`${APIEXT}.JSON`]).toEqual({
      description: expect.stringContaining('JSON represents any valid JSON value') as unknown,
    });
  });

  it('offers strategic merge patch on the PATCH operation of a built-in kind with a schema, never on a custom resource', () => {
    const patch = (gv: string, path: string): string[] =>
      Object.keys(obj(obj(obj(obj(obj(v3(gv)['paths'])[path])['patch'])['requestBody'])['content']));
    expect(patch('api/v1', '/api/v1/namespaces/{namespace}/configmaps/{name}')).toContain(
      'application/strategic-merge-patch+json',
    );
    expect(patch(`apis/${RBAC}/v1`, `/apis/${RBAC}/v1/clusterroles/{name}`)).toContain(
      'application/strategic-merge-patch+json',
    );
    expect(
      patch('apis/cache.example.com/v1', '/apis/cache.example.com/v1/namespaces/{namespace}/caches/{name}'),
    ).not.toContain('application/strategic-merge-patch+json');
  });

  it('custom resources are built exactly as without built-in schemas', () => {
    const alone = new OpenAPI(source([CACHE]));
    expect(openapi.v3Group('apis/cache.example.com/v1')!.body).toBe(alone.v3Group('apis/cache.example.com/v1')!.body);
  });
});

describe('built-in kinds in OpenAPI v2', () => {
  it('every $ref resolves to a definition, and no allOf wrapping or default is left', () => {
    const doc = JSON.parse(openapi.v2().body) as Json;
    const definitions = v2Definitions();
    for (const ref of refsIn(doc)) {
      expect(ref).toMatch(/^#\/definitions\//);
      expect(definitions, ref).toHaveProperty([ref.slice('#/definitions/'.length)]);
    }
    for (const name of Object.keys(definitions).filter((n) => n.startsWith('io.k8s.api.'))) {
      expect(hasKey(definitions[name], 'allOf'), name).toBe(false);
      expect(hasKey(definitions[name], 'default'), name).toBe(false);
    }
  });

  it("Secret.type and Role.rules as kube's swagger has them: $ref with sibling description", () => {
    const defs = v2Definitions();
    expect(obj(obj(obj(defs['io.k8s.api.core.v1.Secret'])['properties'])['type'])).toEqual({
      type: 'string',
      description:
        'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
    });
    expect(obj(obj(obj(defs['io.k8s.api.rbac.v1.Role'])['properties'])['rules'])['items']).toEqual({
      $ref: '#/definitions/io.k8s.api.rbac.v1.PolicyRule',
    });
    expect(obj(obj(obj(defs['io.k8s.api.core.v1.Event'])['properties'])['involvedObject'])).toEqual({
      $ref: '#/definitions/io.k8s.api.core.v1.ObjectReference',
      description: 'The object that this event is about.',
    });
  });

  it('the core and events.k8s.io Events are two definitions with their own GVKs', () => {
    const defs = v2Definitions();
    expect(obj(defs['io.k8s.api.core.v1.Event'])['x-kubernetes-group-version-kind']).toEqual([
      { group: '', kind: 'Event', version: 'v1' },
    ]);
    expect(obj(defs['io.k8s.api.events.v1.Event'])['x-kubernetes-group-version-kind']).toEqual([
      { group: 'events.k8s.io', kind: 'Event', version: 'v1' },
    ]);
    expect(obj(obj(defs['io.k8s.api.events.v1.Event'])['properties'])).toHaveProperty(['regarding']);
  });

  it('is served as JSON to a JSON Accept', () => {
    const res = openapiResponse(openapi, '/openapi/v2', new URLSearchParams(), 'application/json');
    expect(res.code).toBe(200);
    expect(() => JSON.parse(String(res.body)) as unknown).not.toThrow();
  });
});

describe('the built-in schemas themselves', () => {
  const all: Array<[string, JSONSchemaProps]> = [
    ['ConfigMap', configMapSchema],
    ['Secret', secretSchema],
    ['ServiceAccount', serviceAccountSchema],
    ['Namespace', namespaceSchema],
    ['Event', coreEventSchema],
    ['events.k8s.io Event', eventsV1EventSchema],
    ['Lease', leaseSchema],
    ['Role', roleSchema],
    ['ClusterRole', clusterRoleSchema],
    ['RoleBinding', roleBindingSchema],
    ['ClusterRoleBinding', clusterRoleBindingSchema],
    ['CustomResourceDefinition', customResourceDefinitionSchema],
  ];

  it.each(all)(
    '%s: a description, no apiVersion/kind/metadata of its own, and every $ref carried or a meta/v1 one',
    (_, schema) => {
      expect(schema.description).toBeTruthy();
      expect(Object.keys(schema.properties ?? {})).not.toEqual(expect.arrayContaining(['apiVersion']));
      expect(schema.properties).not.toHaveProperty(['metadata']);
      for (const ref of refsIn(schema)) {
        const name = ref.slice('#/definitions/'.length);
        if (!name.startsWith('io.k8s.apimachinery.pkg.apis.meta.v1.'))
          expect(schema.definitions, name).toHaveProperty([name]);
      }
    },
  );
});
