// The protobuf form of /openapi/v2 (gnostic's openapi.v2.Document): decoded with the same message
// definitions and turned back into swagger JSON by gnostic's rules read backwards, it is the JSON
// document again, but for the zero values proto3 leaves out (as kube's does).
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import type { Message, Type } from 'protobufjs';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import {
  configMapSchema,
  namespaceSchema,
  customResourceDefinitionSchema,
} from '../../../../apimachinery/apis/builtin-schemas.js';
import { parseJSON } from '../../../../apimachinery/json.js';
import type { OpenAPIResource } from '../../../../server/endpoints/openapi/definitions.js';
import { BUILTIN_KINDS } from '../../../../server/registry/builtin/table.js';
import { OpenAPI } from '../../../../server/endpoints/openapi/documents.js';
import { openapiResponse } from '../../../../server/endpoints/openapi/http.js';
import { encodeOpenAPIV2, openapiV2Document, yamlOf } from '../../../../server/codecs/openapi-v2-protobuf.js';

type Json = unknown;
type Obj = Record<string, unknown>;

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
function res(
  group: string,
  version: string,
  kind: string,
  plural: string,
  namespaced: boolean,
  schema: JSONSchemaProps,
  extra: Partial<OpenAPIResource> = {},
): OpenAPIResource {
  // A built-in kind is compiled in by its module's Go package; a custom resource has none.
  const goPackage = BUILTIN_KINDS.find((k) => k.group === group && k.names.kind === kind)?.goPackage;
  return {
    group,
    version,
    names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, shortNames: [], categories: [] },
    namespaced,
    verbs: VERBS,
    subresources: [],
    schema,
    ...(goPackage && { goPackage }),
    ...extra,
  };
}

const CACHE_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      description: 'The cache\'s spec: "quoted", ünïcode, new\nline.',
      example: { size: 3, tiers: ['a', 'b'] },
      required: ['size'],
      properties: {
        size: { type: 'integer', format: 'int64', default: 3, minimum: 1, maximum: 9007199254740992, multipleOf: 1.5 },
        mode: { type: 'string', enum: ['fast', 'safe'], pattern: '^[a-z]+$', maxLength: 10 },
        port: { 'x-kubernetes-int-or-string': true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        tiers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      },
    },
  },
};

function sourceOf(...resources: OpenAPIResource[]): OpenAPI {
  return new OpenAPI({ generation: 1, all: () => resources });
}

const openapi = sourceOf(
  res('', 'v1', 'ConfigMap', 'configmaps', true, configMapSchema),
  res('', 'v1', 'Namespace', 'namespaces', false, namespaceSchema, { subresources: ['status', 'finalize'] }),
  res(
    'apiextensions.k8s.io',
    'v1',
    'CustomResourceDefinition',
    'customresourcedefinitions',
    false,
    customResourceDefinitionSchema,
    { subresources: ['status'] },
  ),
  res('cache.example.com', 'v1', 'Cache', 'caches', true, CACHE_SCHEMA, { subresources: ['status', 'scale'] }),
);

// ---- gnostic's rules backwards ------------------------------------------------------------------

const MAPS = new Set([
  'Default',
  'Definitions',
  'Examples',
  'Headers',
  'Oauth2Scopes',
  'ParameterDefinitions',
  'Properties',
  'ResponseDefinitions',
  'SecurityDefinitions',
  'SecurityRequirement',
  'VendorExtension',
]);
const camel = (field: string): string =>
  field === '_ref' ? '$ref' : field.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** A decoded message (toObject with longs as strings) back to its JSON. */
function toJson(type: Type, m: Obj): Json {
  const value = (t: Type | null, v: unknown): Json => (t ? toJson(t, v as Obj) : v);
  const fieldType = (name: string): Type | null => (type.fields[name]!.resolvedType as Type | null) ?? null;
  switch (type.name) {
    case 'Any':
      return YAML.parse(m['yaml'] as string, { intAsBigInt: true }) as Json;
    case 'TypeItem':
    case 'StringArray': {
      const v = (m['value'] as string[] | undefined) ?? [];
      return type.name === 'TypeItem' && v.length === 1 ? v[0] : v;
    }
    case 'ItemsItem': {
      const s = (m['schema'] as Obj[]).map((x) => toJson(fieldType('schema')!, x));
      return s.length === 1 ? s[0] : s;
    }
    case 'Paths':
    case 'Responses': {
      const out: Obj = {};
      const list = (type.name === 'Paths' ? m['path'] : m['response_code']) as Obj[] | undefined;
      const listType = fieldType(type.name === 'Paths' ? 'path' : 'response_code')!;
      for (const p of list ?? [])
        out[p['name'] as string] = toJson(listType.fields['value']!.resolvedType as Type, p['value'] as Obj);
      for (const p of (m['vendor_extension'] as Obj[] | undefined) ?? [])
        out[p['name'] as string] = toJson(
          fieldType('vendor_extension')!.fields['value']!.resolvedType as Type,
          p['value'] as Obj,
        );
      return out;
    }
  }
  if (MAPS.has(type.name)) {
    const named = fieldType('additional_properties')!;
    const out: Obj = {};
    for (const p of (m['additional_properties'] as Obj[] | undefined) ?? [])
      out[p['name'] as string] = value(named.fields['value']!.resolvedType as Type | null, p['value']);
    return out;
  }
  if (type.oneofs?.['oneof']) {
    const branch = type.oneofs['oneof'].oneof.find((f) => m[f] !== undefined)!;
    return value(fieldType(branch), m[branch]);
  }
  const out: Obj = {};
  for (const [name, v] of Object.entries(m)) {
    if (name === 'vendor_extension') {
      for (const p of v as Obj[])
        out[p['name'] as string] = toJson(fieldType(name)!.fields['value']!.resolvedType as Type, p['value'] as Obj);
    } else if (Array.isArray(v)) {
      out[camel(name)] = v.map((x) => value(fieldType(name), x));
    } else {
      const field = type.fields[name]!;
      out[camel(name)] = field.type === 'int64' ? BigInt(v as string) : value(fieldType(name), v);
    }
  }
  return out;
}

/** proto3 leaves zero scalars and empty lists out; free-form values (YAML in an Any) keep them. */
function withoutZeros(v: Json, freeForm = false): Json {
  if (freeForm) return v;
  if (Array.isArray(v)) return v.map((x) => withoutZeros(x));
  if (v === null || typeof v !== 'object') return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v as Obj)) {
    if (x === '' || x === false || x === 0) continue;
    out[k] = withoutZeros(x, k.startsWith('x-') || k === 'default' || k === 'example' || k === 'enum');
  }
  return out;
}

/** Numbers made bigints where integral, so JSON's and YAML's integers compare equal. */
function ints(v: Json): Json {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (Array.isArray(v)) return v.map(ints);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v as Obj).map(([k, x]) => [k, ints(x)]));
  return v;
}

function decode(bytes: Uint8Array): Obj {
  return openapiV2Document().toObject(openapiV2Document().decode(bytes) as Message, {
    longs: String,
    defaults: false,
    arrays: false,
  }) as Obj;
}

describe('the /openapi/v2 document as gnostic protobuf', () => {
  const json = parseJSON(openapi.v2().body);
  const bytes = openapi.v2Protobuf().body;

  it('decodes back to the JSON document, zero values aside', () => {
    const back = toJson(openapiV2Document(), decode(bytes));
    expect(ints(back)).toEqual(ints(withoutZeros(json)));
  });

  it('carries the definitions kubectl looks kinds up by, with their group-version-kind extension', () => {
    const doc = decode(bytes);
    const defs = (doc['definitions'] as Obj)['additional_properties'] as Obj[];
    const cm = defs.find((d) => d['name'] === 'io.k8s.api.core.v1.ConfigMap')!['value'] as Obj;
    expect(cm['description']).toMatch(/^ConfigMap holds configuration data/);
    const gvk = (cm['vendor_extension'] as Obj[]).find((e) => e['name'] === 'x-kubernetes-group-version-kind')!;
    expect(YAML.parse((gvk['value'] as Obj)['yaml'] as string)).toEqual([
      { group: '', kind: 'ConfigMap', version: 'v1' },
    ]);
    expect(defs.map((d) => d['name'])).toContain('com.example.cache.v1.Cache');
  });

  it('writes free-form values as flow YAML ending in a newline, int64-exact', () => {
    expect(yamlOf([{ group: '', kind: 'ConfigMap', version: 'v1' }])).toBe(
      '[{"group": "", "kind": "ConfigMap", "version": "v1"}]\n',
    );
    expect(yamlOf('a "b"\n')).toBe('"a \\"b\\"\\n"\n');
    expect(yamlOf(9007199254740993n as unknown as number)).toBe('9007199254740993\n');
  });

  it("picks gnostic's branches: $ref parameters, body and non-body parameters, file responses, apiKey security", () => {
    const doc = decode(
      encodeOpenAPIV2({
        swagger: '2.0',
        paths: {
          '/x': {
            parameters: [
              { $ref: '#/parameters/p' },
              { name: 'q', in: 'query', type: 'string', uniqueItems: true },
              { name: 'id', in: 'path', required: true, type: 'string' },
            ],
            post: {
              parameters: [{ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/D' } }],
              responses: {
                '200': { description: 'ok', schema: { type: 'file' } },
                '404': { $ref: '#/responses/nf' },
                'x-r': 1,
              },
            },
          },
          'x-p': true,
        },
        securityDefinitions: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } },
        security: [{ BearerToken: [] }],
      }),
    );
    const item = ((doc['paths'] as Obj)['path'] as Obj[])[0]!['value'] as Obj;
    const params = item['parameters'] as Obj[];
    expect(params[0]).toEqual({ json_reference: { _ref: '#/parameters/p' } });
    expect(params[1]).toEqual({
      parameter: {
        non_body_parameter: {
          query_parameter_sub_schema: { name: 'q', in: 'query', type: 'string', unique_items: true },
        },
      },
    });
    expect(params[2]).toEqual({
      parameter: {
        non_body_parameter: { path_parameter_sub_schema: { name: 'id', in: 'path', required: true, type: 'string' } },
      },
    });
    const post = item['post'] as Obj;
    expect((post['parameters'] as Obj[])[0]).toEqual({
      parameter: { body_parameter: { name: 'body', in: 'body', required: true, schema: { _ref: '#/definitions/D' } } },
    });
    expect(post['responses']).toEqual({
      response_code: [
        { name: '200', value: { response: { description: 'ok', schema: { file_schema: { type: 'file' } } } } },
        { name: '404', value: { json_reference: { _ref: '#/responses/nf' } } },
      ],
      vendor_extension: [{ name: 'x-r', value: { yaml: '1\n' } }],
    });
    expect((doc['paths'] as Obj)['vendor_extension']).toEqual([{ name: 'x-p', value: { yaml: 'true\n' } }]);
    expect(doc['security_definitions']).toEqual({
      additional_properties: [
        { name: 'BearerToken', value: { api_key_security: { type: 'apiKey', name: 'authorization', in: 'header' } } },
      ],
    });
    expect(doc['security']).toEqual([{ additional_properties: [{ name: 'BearerToken', value: {} }] }]);
  });
});

describe('GET /openapi/v2 in protobuf', () => {
  const KUBECTL_PROTO = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
  const none = new URLSearchParams();

  it("answers kube's content type, the JSON document's ETag and Vary: Accept", () => {
    const r = openapiResponse(openapi, '/openapi/v2', none, KUBECTL_PROTO);
    expect(r.code).toBe(200);
    expect(r.headers).toMatchObject({
      'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
      ETag: openapi.v2().etag,
      Vary: 'Accept',
    });
    expect(r.headers['ETag']).toMatch(/^"[0-9A-F]{128}"$/);
    expect(Buffer.isBuffer(r.body) && r.body.length).toBe(Number(r.headers['Content-Length']));
    expect(r.body.length).toBeGreaterThan(1000);
  });

  it.each([
    ['the same ETag', (e: string) => e],
    ['a list holding it', (e: string) => `"other", ${e}`],
    ['its weak form', (e: string) => `W/${e}`],
    ['*', () => '*'],
  ])('answers 304 without a body for If-None-Match with %s', (_name, header) => {
    const etag = openapi.v2().etag;
    for (const accept of [KUBECTL_PROTO, 'application/json']) {
      const r = openapiResponse(openapi, '/openapi/v2', none, accept, header(etag));
      expect(r.code).toBe(304);
      expect(r.body).toHaveLength(0);
      expect(r.headers).toEqual({ ETag: etag, Vary: 'Accept' });
    }
  });

  it('answers 200 for a stale ETag', () => {
    expect(openapiResponse(openapi, '/openapi/v2', none, KUBECTL_PROTO, '"0123"').code).toBe(200);
  });
});
