import { describe, expect, it } from 'vitest';
import { dropUnknownFields } from '../../../../apimachinery/apis/unknown-fields.js';
import type { JsonObject } from '../../../../apimachinery/object.js';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import {
  configMapSchema,
  coreEventSchema,
  eventsV1EventSchema,
  leaseSchema,
  roleSchema,
  customResourceDefinitionSchema,
  secretSchema,
  serviceSchema,
  validatingAdmissionPolicySchema,
} from '../../../../apimachinery/apis/builtin-schemas.js';

/** The schema a built-in object's apiVersion and kind name (as the REST layer and strategies pick it). */
const SCHEMAS: Record<string, JSONSchemaProps> = {
  'v1/ConfigMap': configMapSchema,
  'v1/Secret': secretSchema,
  'v1/Service': serviceSchema,
  'v1/Event': coreEventSchema,
  'events.k8s.io/v1/Event': eventsV1EventSchema,
  'coordination.k8s.io/v1/Lease': leaseSchema,
  'rbac.authorization.k8s.io/v1/Role': roleSchema,
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': validatingAdmissionPolicySchema,
  'apiextensions.k8s.io/v1/CustomResourceDefinition': customResourceDefinitionSchema,
};
const schemaOf = (obj: JsonObject): JSONSchemaProps | undefined => SCHEMAS[`${obj['apiVersion']}/${obj['kind']}`];

describe('dropUnknownFields (typed decoding of built-in kinds)', () => {
  it.each<[string, JsonObject, JsonObject, string[]]>([
    [
      'a ConfigMap: a typo at the top, apiVersion and kind kept',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, datta: { x: '1' }, data: { k: 'v' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } },
      ['datta'],
    ],
    [
      'ObjectMeta is typed too; map values are never fields',
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'a', lables: { a: 'b' }, labels: { anything: 'x' } },
        stringData: { whatever: 'y' },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'a', labels: { anything: 'x' } },
        stringData: { whatever: 'y' },
      },
      ['metadata.lables'],
    ],
    [
      'a list of structs: each element, its index in the path, in document order',
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's' },
        spec: {
          ports: [
            { port: 80, targetPort: 'http', prot: 'TCP' },
            { port: 81, extra: 1 },
          ],
          selector: { app: 'x' },
          tipe: 'ClusterIP',
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's' },
        spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81 }], selector: { app: 'x' } },
      },
      ['spec.ports[0].prot', 'spec.ports[1].extra', 'spec.tipe'],
    ],
    [
      'RBAC: a rule field misspelled',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'r' },
        rules: [{ apiGroups: [''], resource: ['pods'], verbs: ['get'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'r' },
        rules: [{ apiGroups: [''], verbs: ['get'] }],
      },
      ['rules[0].resource'],
    ],
    [
      "times, MicroTimes and managedFields' fieldsV1 are JSON of their own, not objects of fields",
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: 'l',
          managedFields: [
            {
              manager: 'm',
              operation: 'Update',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:spec': { 'f:holderIdentity': {} } },
            },
          ],
        },
        spec: { holderIdentity: 'a', renewTime: '2026-11-25T01:02:03.000000Z' },
      },
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: 'l',
          managedFields: [
            {
              manager: 'm',
              operation: 'Update',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:spec': { 'f:holderIdentity': {} } },
            },
          ],
        },
        spec: { holderIdentity: 'a', renewTime: '2026-11-25T01:02:03.000000Z' },
      },
      [],
    ],
    [
      'events.k8s.io/v1 is checked against its own schema',
      {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'e' },
        note: 'n',
        involvedObject: { kind: 'Pod' },
        regarding: { kind: 'Pod', nam: 'x' },
      },
      { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e' }, note: 'n', regarding: { kind: 'Pod' } },
      ['involvedObject', 'regarding.nam'],
    ],
    [
      "a policy: paramKind's apiVersion and kind are its own fields, not TypeMeta",
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'p' },
        spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap', group: 'x' }, failurPolicy: 'Fail' },
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'p' },
        spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } },
      },
      ['spec.paramKind.group', 'spec.failurPolicy'],
    ],
    [
      "a CRD: its versions' fields are typed (an empty struct too); schemas under properties and the unions decode themselves",
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'a.b' },
        spec: {
          versions: [
            {
              name: 'v1',
              servd: true,
              subresources: { status: { scale: {} } },
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  propertys: {},
                  properties: { a: { type: 'string', anything: 1 } },
                  items: { type: 'string', anything: 2 },
                },
              },
            },
          ],
        },
      },
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'a.b' },
        spec: {
          versions: [
            {
              name: 'v1',
              subresources: { status: {} },
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { a: { type: 'string', anything: 1 } },
                  items: { type: 'string', anything: 2 },
                },
              },
            },
          ],
        },
      },
      [
        'spec.versions[0].servd',
        'spec.versions[0].subresources.status.scale',
        'spec.versions[0].schema.openAPIV3Schema.propertys',
      ],
    ],
    [
      'a value of the wrong type is left for validation',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: 'not an object', data: [1] },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: 'not an object', data: [1] },
      [],
    ],
    [
      'a kind without a schema of its Go type (a custom resource) is left alone',
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', foo: 1 }, anything: true },
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', foo: 1 }, anything: true },
      [],
    ],
  ])('%s', (_name, input, want, dropped) => {
    const obj = structuredClone(input);
    expect(dropUnknownFields(obj, schemaOf(input))).toEqual(dropped);
    expect(obj).toEqual(want);
  });
});
