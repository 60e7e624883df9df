import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import {
  type TypeCheckResolver,
  type ValidatingAdmissionPolicy,
  typeCheckPolicy,
} from '../../../../admission/policy/index.js';

const widgetSchema: JSONSchemaProps = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, name: { type: 'string' } } } },
};
const configMapSchema: JSONSchemaProps = {
  type: 'object',
  properties: { data: { type: 'object', additionalProperties: { type: 'string' } } },
};

const resolver: TypeCheckResolver = {
  kindsFor: (r) =>
    r.group === 'example.com' && r.resource === 'widgets'
      ? [{ group: 'example.com', version: r.version, kind: 'Widget' }]
      : [],
  schemaFor: (k) =>
    k.kind === 'Widget' ? widgetSchema : k.kind === 'ConfigMap' && k.group === '' ? configMapSchema : undefined,
};

const policy = (spec: Partial<ValidatingAdmissionPolicy['spec']>, versions = ['v1']): ValidatingAdmissionPolicy => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'p' },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: ['example.com'],
          apiVersions: versions,
          operations: ['CREATE'],
          resources: ['widgets', 'widgets/status'],
        },
      ],
    },
    ...spec,
  },
});

const cases: { name: string; p: ValidatingAdmissionPolicy; warnings: { fieldRef: string; warning: string }[] }[] = [
  {
    name: 'well-typed',
    p: policy({
      validations: [
        {
          expression: "object.spec.size < 10 && object.metadata.labels['a'] == 'b'",
          messageExpression: "object.spec.name + ' too big'",
        },
      ],
    }),
    warnings: [],
  },
  {
    name: 'a misspelt field',
    p: policy({ validations: [{ expression: 'object.spec.sise < 10' }] }),
    warnings: [
      {
        fieldRef: 'spec.validations[0].expression',
        warning:
          "example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'sise'\n | object.spec.sise < 10\n | ...........^\n",
      },
    ],
  },
  {
    name: 'a wrong type in messageExpression, for two versions',
    p: policy({ validations: [{ expression: 'true', messageExpression: "object.spec.size + ' x'" }] }, ['v2', 'v1']),
    warnings: [
      {
        fieldRef: 'spec.validations[0].messageExpression',
        warning:
          "example.com/v1, Kind=Widget: ERROR: <input>:1:18: found no matching overload for '_+_' applied to '(int, string)'\n | object.spec.size + ' x'\n | .................^\n\nexample.com/v2, Kind=Widget: ERROR: <input>:1:18: found no matching overload for '_+_' applied to '(int, string)'\n | object.spec.size + ' x'\n | .................^\n",
      },
    ],
  },
  {
    name: 'params typed by the paramKind, variables composed',
    p: policy({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      variables: [{ name: 'max', expression: "int(params.data['max'])" }],
      validations: [{ expression: 'object.spec.size <= variables.max' }, { expression: 'params.data.max > 1' }],
    }),
    warnings: [
      {
        fieldRef: 'spec.validations[1].expression',
        warning:
          "example.com/v1, Kind=Widget: ERROR: <input>:1:17: found no matching overload for '_>_' applied to '(string, int)'\n | params.data.max > 1\n | ................^\n",
      },
    ],
  },
  {
    // kube declares params only when it has the paramKind's schema.
    name: 'a paramKind without a schema: params undeclared',
    p: policy({
      paramKind: { apiVersion: 'example.com/v1', kind: 'Unknown' },
      validations: [{ expression: 'object.spec.size <= params.max' }],
    }),
    warnings: [
      {
        fieldRef: 'spec.validations[0].expression',
        warning:
          "example.com/v1, Kind=Widget: ERROR: <input>:1:21: undeclared reference to 'params' (in container '')\n | object.spec.size <= params.max\n | ....................^\n",
      },
    ],
  },
  {
    name: 'wildcards are not checked',
    p: policy({ validations: [{ expression: 'object.spec.sise < 10' }] }, ['*']),
    warnings: [],
  },
];

describe('typeCheckPolicy', () => {
  it.each(cases)('$name', ({ p, warnings }) => {
    expect(typeCheckPolicy(p, resolver)).toEqual(warnings);
  });
});
