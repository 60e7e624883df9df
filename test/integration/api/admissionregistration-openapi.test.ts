// admissionregistration.k8s.io/v1 in /openapi/v3 against an in-process server: the four kinds
// under kube's definition names with their group-version-kind, and the definitions they reach
// (kube 1.33's, from builtin-schemas.ts) with the list and patch extensions kubectl reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle } from '../../../server/index.js';
import { type ApiResponse, type CallOptions, apiClient } from '../../helpers/api-client.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`not an object: ${JSON.stringify(v)}`);
  return v as Json;
};

const GROUP = 'admissionregistration.k8s.io';
const DEF = 'io.k8s.api.admissionregistration.v1';
const KINDS = [
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
];

let server: ServerHandle;
let call: (method: string, path: string, o?: CallOptions) => Promise<ApiResponse & { json: unknown }>;
let schemas: Json;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server) as typeof call;
  const index = obj((await call('GET', '/openapi/v3')).json);
  const url = obj(obj(index.paths)[`apis/${GROUP}/v1`]).serverRelativeURL;
  expect(typeof url).toBe('string');
  const doc = await call('GET', String(url));
  expect(doc.status).toBe(200);
  schemas = obj(obj(obj(doc.json).components).schemas);
});
afterAll(async () => {
  await server?.close();
});

/** A property of a named definition. */
const prop = (def: string, name: string): Json => obj(obj(obj(schemas[def]).properties)[name]);

describe('/openapi/v3/apis/admissionregistration.k8s.io/v1', () => {
  it.each(KINDS)('%s: under its kube name, with its group-version-kind', (kind) => {
    const def = obj(schemas[`${DEF}.${kind}`]);
    expect(def['x-kubernetes-group-version-kind']).toEqual([{ group: GROUP, kind, version: 'v1' }]);
    expect(Object.keys(obj(def.properties))).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'metadata']));
  });

  it('the definitions the kinds reach, each reference resolvable', () => {
    for (const name of [
      'MutatingWebhook',
      'ValidatingWebhook',
      'RuleWithOperations',
      'WebhookClientConfig',
      'ServiceReference',
      'MatchCondition',
      'ValidatingAdmissionPolicySpec',
      'MatchResources',
      'NamedRuleWithOperations',
      'ParamKind',
      'Validation',
      'AuditAnnotation',
      'Variable',
      'TypeChecking',
      'ExpressionWarning',
      'ValidatingAdmissionPolicyStatus',
      'ValidatingAdmissionPolicyBindingSpec',
      'ParamRef',
    ])
      expect(schemas, name).toHaveProperty([`${DEF}.${name}`]);
    expect(schemas).toHaveProperty(['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']);
    expect(schemas).toHaveProperty(['io.k8s.apimachinery.pkg.apis.meta.v1.Condition']);
    const refs = JSON.stringify(schemas).match(/"\$ref":"#\/components\/schemas\/[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const r of refs) expect(schemas, r).toHaveProperty([r.slice('"$ref":"#/components/schemas/'.length, -1)]);
  });

  it("webhooks: kube's map list merged by name, as strategic merge patch needs", () => {
    for (const kind of ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']) {
      expect(prop(`${DEF}.${kind}`, 'webhooks')).toMatchObject({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'name',
      });
    }
  });

  it("kube's descriptions, enums and extensions on the nested definitions", () => {
    expect(obj(schemas[`${DEF}.RuleWithOperations`]).description).toBe(
      'RuleWithOperations is a tuple of Operations and Resources. It is recommended to make sure that all the tuple expansions are valid.',
    );
    expect(prop(`${DEF}.RuleWithOperations`, 'operations')).toMatchObject({
      'x-kubernetes-list-type': 'atomic',
      items: { type: 'string', default: '', enum: ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'] },
    });
    expect(prop(`${DEF}.ValidatingWebhook`, 'failurePolicy')).toMatchObject({
      type: 'string',
      enum: ['Fail', 'Ignore'],
    });
    expect(String(prop(`${DEF}.ValidatingWebhook`, 'failurePolicy').description)).toContain(
      'Possible enum values:\n - `"Fail"` means that an error calling the webhook causes the admission to fail.',
    );
    expect(prop(`${DEF}.ValidatingAdmissionPolicyStatus`, 'conditions')).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
    });
    expect(prop(`${DEF}.ValidatingAdmissionPolicyBindingSpec`, 'validationActions')).toMatchObject({
      'x-kubernetes-list-type': 'set',
    });
    expect(obj(schemas[`${DEF}.ParamRef`])['x-kubernetes-map-type']).toBe('atomic');
    expect(obj(schemas[`${DEF}.Validation`]).required).toEqual(['expression']);
  });
});
