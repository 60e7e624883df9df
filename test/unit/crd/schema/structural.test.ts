import { describe, expect, it } from 'vitest';
import { structuralOptionsForUpdate, validateStructuralSchema } from '../../../../crd/schema/structural.js';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const S = (s: unknown): JSONSchemaProps => s as JSONSchemaProps;
const run = (schema: unknown, path = P): string[] => validateStructuralSchema(S(schema), path).map(formatFieldError);
/** A root object whose spec is `spec`. */
const withSpec = (spec: unknown): unknown => ({ type: 'object', properties: { spec } });
const SPEC = `${P}.properties[spec]`;

interface Case {
  name: string;
  schema: unknown;
  want: string[];
}

function table(cases: Case[]): void {
  for (const c of cases) it(c.name, () => expect(run(c.schema)).toEqual(c.want));
}

describe('valid schemas', () => {
  // What controller-gen (kubebuilder) writes for a typical operator.
  const kubebuilder = {
    description: 'Cache is the Schema for the caches API',
    type: 'object',
    properties: {
      apiVersion: {
        description: 'APIVersion defines the versioned schema of this representation of an object.',
        type: 'string',
      },
      kind: {
        description: 'Kind is a string value representing the REST resource this object represents.',
        type: 'string',
      },
      metadata: { type: 'object' },
      spec: {
        description: 'CacheSpec defines the desired state of Cache',
        type: 'object',
        required: ['size'],
        properties: {
          size: { type: 'integer', format: 'int32', minimum: 1, maximum: 9, default: 3 },
          maxSize: { type: 'integer', format: 'int32', minimum: 1, maximum: 9, default: 9 },
          engine: { type: 'string', enum: ['redis', 'valkey'], default: 'redis' },
          image: { type: 'string', pattern: '^[a-z0-9./:-]+$', maxLength: 253 },
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          maxUnavailable: {
            'x-kubernetes-int-or-string': true,
            anyOf: [{ type: 'integer' }, { type: 'string' }],
            pattern: '^(100|[1-9][0-9]?|0)%$',
          },
          resources: {
            type: 'object',
            properties: {
              limits: {
                type: 'object',
                additionalProperties: {
                  anyOf: [{ type: 'integer' }, { type: 'string' }],
                  pattern:
                    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
                  'x-kubernetes-int-or-string': true,
                },
              },
            },
          },
          nodeSelector: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
          tolerations: {
            type: 'array',
            items: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } } },
            'x-kubernetes-list-type': 'atomic',
          },
          ports: {
            type: 'array',
            items: {
              type: 'object',
              required: ['containerPort'],
              properties: {
                containerPort: { type: 'integer', format: 'int32' },
                protocol: { type: 'string', default: 'TCP' },
                name: { type: 'string' },
              },
            },
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
          },
          hosts: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
          selector: {
            type: 'object',
            'x-kubernetes-map-type': 'atomic',
            properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
          },
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
          raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          anything: { 'x-kubernetes-preserve-unknown-fields': true },
          config: {
            type: 'object',
            properties: { mode: { type: 'string' }, replicas: { type: 'integer' } },
            oneOf: [{ required: ['mode'] }, { required: ['replicas'] }],
            'x-kubernetes-validations': [{ rule: 'self.replicas >= 0' }],
          },
          window: { type: 'string', format: 'date-time', nullable: true },
        },
      },
      status: {
        type: 'object',
        properties: {
          conditions: {
            type: 'array',
            items: {
              type: 'object',
              required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
              properties: {
                lastTransitionTime: { type: 'string', format: 'date-time' },
                message: { type: 'string', maxLength: 32768 },
                observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
                reason: {
                  type: 'string',
                  maxLength: 1024,
                  minLength: 1,
                  pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
                },
                status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                type: {
                  type: 'string',
                  maxLength: 316,
                  pattern:
                    '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
                },
              },
            },
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['type'],
          },
        },
      },
    },
  };

  const valid: { name: string; schema: unknown }[] = [
    { name: 'a kubebuilder-generated schema', schema: kubebuilder },
    { name: 'the smallest schema', schema: { type: 'object' } },
    {
      name: 'a preserve-unknown-fields root',
      schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    {
      name: 'metadata restricting name',
      schema: {
        type: 'object',
        properties: { metadata: { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z]+$' } } } },
      },
    },
    {
      name: 'metadata restricting name and generateName',
      schema: {
        type: 'object',
        properties: {
          metadata: {
            type: 'object',
            properties: { name: { type: 'string', maxLength: 10 }, generateName: { type: 'string' } },
          },
        },
      },
    },
    {
      name: 'value validations that only narrow specified fields',
      schema: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          b: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string' } } } },
          c: {
            type: 'array',
            items: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
          },
          d: { type: 'array', items: { type: 'string' } },
        },
        not: {
          properties: {
            a: {},
            b: { not: { properties: { a: {}, b: { items: {} } } } },
            c: { items: { not: { items: { properties: { a: {} } } } } },
            d: { items: {} },
          },
        },
        allOf: [{ properties: { a: { pattern: 'abc' } } }],
        anyOf: [{ required: ['a'] }, { required: ['b'] }],
        oneOf: [{ properties: { d: { minItems: 1 } } }],
      },
    },
    {
      name: 'the int-or-string shapes',
      schema: withSpec({
        type: 'object',
        properties: {
          a: { 'x-kubernetes-int-or-string': true },
          b: {
            'x-kubernetes-int-or-string': true,
            anyOf: [{ type: 'integer' }, { type: 'string' }],
            allOf: [{ pattern: 'abc' }],
          },
          c: {
            'x-kubernetes-int-or-string': true,
            allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: 'abc' }, { pattern: 'abc' }],
          },
        },
      }),
    },
    {
      name: 'an embedded resource spelled out',
      schema: withSpec({
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: {
            type: 'object',
            properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
          },
        },
      }),
    },
    {
      name: 'additionalProperties true next to properties',
      schema: withSpec({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true }),
    },
    {
      name: 'a map of objects',
      schema: withSpec({
        type: 'object',
        additionalProperties: { type: 'object', properties: { a: { type: 'integer' } } },
      }),
    },
    {
      name: 'additionalProperties false without properties',
      schema: withSpec({ type: 'object', additionalProperties: false }),
    },
    {
      name: 'additionalProperties false in a clause',
      schema: {
        type: 'object',
        properties: { a: { type: 'object' } },
        allOf: [{ properties: { a: { additionalProperties: false } } }],
      },
    },
    {
      name: 'a set of atomic lists',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'set',
        items: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
      }),
    },
    {
      name: 'a set of lists with no list type',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'set',
        items: { type: 'array', items: { type: 'string' } },
      }),
    },
    {
      name: 'a set of atomic maps',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'set',
        items: { type: 'object', 'x-kubernetes-map-type': 'atomic' },
      }),
    },
    { name: 'a granular map', schema: withSpec({ type: 'object', 'x-kubernetes-map-type': 'granular' }) },
    {
      name: 'a default on a field of a list item',
      schema: withSpec({
        type: 'array',
        items: { type: 'object', properties: { a: { type: 'string', default: 'x' } } },
      }),
    },
    {
      name: 'a default inside embedded metadata',
      schema: withSpec({
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } } },
      }),
    },
    {
      name: 'null is the same as absent',
      schema: {
        type: 'object',
        default: null,
        items: null,
        not: null,
        $ref: null,
        'x-kubernetes-list-type': null,
        properties: { a: { type: 'string', nullable: null } },
      },
    },
    {
      name: 'named groups and Perl classes in patterns',
      schema: withSpec({ type: 'string', pattern: '^(?P<a>\\d+)(?<b>[[:alpha:]]*)\\pL?$' }),
    },
  ];
  for (const c of valid) {
    it(c.name, () => {
      expect(run(c.schema)).toEqual([]);
    });
  }
});

describe('types', () => {
  table([
    { name: 'the root needs a type', schema: {}, want: [`${P}.type: Required value: must not be empty at the root`] },
    {
      name: 'the root is an object',
      schema: { type: 'integer' },
      want: [`${P}.type: Invalid value: "integer": must be object at the root`],
    },
    {
      name: 'a field needs a type',
      schema: withSpec({}),
      want: [`${SPEC}.type: Required value: must not be empty for specified object fields`],
    },
    {
      name: 'array items need a type',
      schema: withSpec({ type: 'array', items: {} }),
      want: [`${SPEC}.items.type: Required value: must not be empty for specified array items`],
    },
    {
      name: 'an array needs items',
      schema: withSpec({ type: 'array' }),
      want: [`${SPEC}.items: Required value: must be specified`],
    },
    {
      name: 'an empty items array is no items',
      schema: withSpec({ type: 'array', items: [] }),
      want: [`${SPEC}.items: Required value: must be specified`],
    },
    {
      name: 'missing types everywhere, sorted as kube sorts them',
      schema: {
        properties: {
          foo: { properties: { a: {} } },
          bar: { items: { additionalProperties: { properties: { a: {} }, items: {} } } },
          abc: { additionalProperties: { properties: { a: { items: { additionalProperties: { items: null } } } } } },
          json: { 'x-kubernetes-preserve-unknown-fields': true, properties: { a: {} } },
          'int-or-string': { 'x-kubernetes-int-or-string': true, properties: { a: {} } },
        },
      },
      want: [
        `${P}.properties[abc].additionalProperties.properties[a].items.additionalProperties.type: Required value: must not be empty for specified object fields`,
        `${P}.properties[abc].additionalProperties.properties[a].items.type: Required value: must not be empty for specified array items`,
        `${P}.properties[abc].additionalProperties.properties[a].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[abc].additionalProperties.type: Required value: must not be empty for specified object fields`,
        `${P}.properties[abc].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[bar].items.additionalProperties.items.type: Required value: must not be empty for specified array items`,
        `${P}.properties[bar].items.additionalProperties.properties[a].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[bar].items.additionalProperties.type: Required value: must not be empty for specified object fields`,
        `${P}.properties[bar].items.type: Required value: must not be empty for specified array items`,
        `${P}.properties[bar].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[foo].properties[a].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[foo].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[int-or-string].properties[a].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[json].properties[a].type: Required value: must not be empty for specified object fields`,
        `${P}.type: Required value: must not be empty at the root`,
      ],
    },
    {
      name: 'type must be an OpenAPI v3 type',
      schema: withSpec({ type: 'int' }),
      want: [
        `${SPEC}.type: Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      ],
    },
    {
      name: 'type null',
      schema: withSpec({ type: 'null' }),
      want: [
        `${SPEC}.type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
        `${SPEC}.type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      ],
    },
  ]);
});

describe('value validations add no structure', () => {
  table([
    {
      name: 'forbidden generics under not, allOf, anyOf, oneOf (kube integration test)',
      schema: {
        type: 'object',
        properties: { foo: { type: 'string' } },
        not: { type: 'string', additionalProperties: true, title: 'hello', description: 'world', nullable: true },
        allOf: [
          {
            properties: {
              foo: { type: 'string', additionalProperties: true, title: 'hello', description: 'world', nullable: true },
            },
          },
        ],
        anyOf: [
          {
            items: { type: 'string', additionalProperties: true, title: 'hello', description: 'world', nullable: true },
          },
        ],
        oneOf: [
          {
            properties: {
              foo: { type: 'string', additionalProperties: true, title: 'hello', description: 'world', nullable: true },
            },
          },
        ],
      },
      want: [
        `${P}.allOf[0].properties[foo].additionalProperties: Forbidden: must be undefined to be structural`,
        `${P}.allOf[0].properties[foo].description: Forbidden: must be empty to be structural`,
        `${P}.allOf[0].properties[foo].nullable: Forbidden: must be false to be structural`,
        `${P}.allOf[0].properties[foo].title: Forbidden: must be empty to be structural`,
        `${P}.allOf[0].properties[foo].type: Forbidden: must be empty to be structural`,
        `${P}.anyOf[0].items.additionalProperties: Forbidden: must be undefined to be structural`,
        `${P}.anyOf[0].items.description: Forbidden: must be empty to be structural`,
        `${P}.anyOf[0].items.nullable: Forbidden: must be false to be structural`,
        `${P}.anyOf[0].items.title: Forbidden: must be empty to be structural`,
        `${P}.anyOf[0].items.type: Forbidden: must be empty to be structural`,
        `${P}.items: Required value: because it is defined in ${P}.anyOf[0].items`,
        `${P}.not.additionalProperties: Forbidden: must be undefined to be structural`,
        `${P}.not.description: Forbidden: must be empty to be structural`,
        `${P}.not.nullable: Forbidden: must be false to be structural`,
        `${P}.not.title: Forbidden: must be empty to be structural`,
        `${P}.not.type: Forbidden: must be empty to be structural`,
        `${P}.oneOf[0].properties[foo].additionalProperties: Forbidden: must be undefined to be structural`,
        `${P}.oneOf[0].properties[foo].description: Forbidden: must be empty to be structural`,
        `${P}.oneOf[0].properties[foo].nullable: Forbidden: must be false to be structural`,
        `${P}.oneOf[0].properties[foo].title: Forbidden: must be empty to be structural`,
        `${P}.oneOf[0].properties[foo].type: Forbidden: must be empty to be structural`,
      ],
    },
    {
      name: 'a default in a clause',
      schema: {
        type: 'object',
        properties: { a: { type: 'string' } },
        allOf: [{ properties: { a: { default: 'x' } } }],
      },
      want: [`${P}.allOf[0].properties[a].default: Forbidden: must be undefined to be structural`],
    },
    {
      name: 'vendor extensions in clauses',
      schema: {
        type: 'object',
        properties: { a: { type: 'array', items: { type: 'string' } } },
        not: {
          properties: {
            a: {
              'x-kubernetes-preserve-unknown-fields': true,
              'x-kubernetes-embedded-resource': true,
              'x-kubernetes-int-or-string': true,
              'x-kubernetes-list-map-keys': ['k'],
              'x-kubernetes-list-type': 'atomic',
              'x-kubernetes-map-type': 'atomic',
              'x-kubernetes-validations': [{ rule: 'true' }],
            },
          },
        },
      },
      want: [
        `${P}.not.properties[a].x-kubernetes-embedded-resource: Forbidden: must be false to be structural`,
        `${P}.not.properties[a].x-kubernetes-int-or-string: Forbidden: must be false to be structural`,
        `${P}.not.properties[a].x-kubernetes-list-map-keys: Forbidden: must be empty to be structural`,
        `${P}.not.properties[a].x-kubernetes-list-type: Forbidden: must be undefined to be structural`,
        `${P}.not.properties[a].x-kubernetes-map-type: Forbidden: must be undefined to be structural`,
        `${P}.not.properties[a].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`,
        `${P}.not.properties[a].x-kubernetes-validations: Forbidden: must be empty to be structural`,
        // the per-node rules apply inside clauses as well
        `${P}.not.properties[a].type: Required value: must be object if x-kubernetes-map-type is specified`,
        `${P}.not.properties[a].type: Required value: must be array if x-kubernetes-list-type is specified`,
        `${P}.not.properties[a].x-kubernetes-list-type: Invalid value: "atomic": must be map if x-kubernetes-list-map-keys is non-empty`,
      ],
    },
    {
      name: 'fields and items a clause adds (kube integration test "structural incomplete")',
      schema: {
        type: 'object',
        properties: {
          b: { type: 'object', properties: { b: { type: 'array' } } },
          c: { type: 'array', items: { type: 'object' } },
          d: { type: 'array' },
        },
        not: {
          properties: {
            a: {},
            b: { not: { properties: { a: {}, b: { items: {} } } } },
            c: { items: { not: { items: { properties: { a: {} } } } } },
            d: { items: {} },
          },
        },
        allOf: [{ properties: { e: {} } }],
        anyOf: [{ properties: { f: {} } }],
        oneOf: [{ properties: { g: {} } }],
      },
      want: [
        `${P}.properties[a]: Required value: because it is defined in ${P}.not.properties[a]`,
        `${P}.properties[b].properties[a]: Required value: because it is defined in ${P}.not.properties[b].not.properties[a]`,
        `${P}.properties[b].properties[b].items: Required value: because it is defined in ${P}.not.properties[b].not.properties[b].items`,
        `${P}.properties[b].properties[b].items: Required value: must be specified`,
        `${P}.properties[c].items.items: Required value: because it is defined in ${P}.not.properties[c].items.not.items`,
        `${P}.properties[d].items: Required value: because it is defined in ${P}.not.properties[d].items`,
        `${P}.properties[d].items: Required value: must be specified`,
        `${P}.properties[e]: Required value: because it is defined in ${P}.allOf[0].properties[e]`,
        `${P}.properties[f]: Required value: because it is defined in ${P}.anyOf[0].properties[f]`,
        `${P}.properties[g]: Required value: because it is defined in ${P}.oneOf[0].properties[g]`,
      ],
    },
    {
      // kube checks completeness from the root's clauses only, not from clauses deeper down
      name: 'a nested clause naming an unspecified field is let through, as kube does',
      schema: withSpec({
        type: 'object',
        properties: { a: { type: 'string' } },
        anyOf: [{ required: ['a'] }, { properties: { b: { minLength: 1 } } }],
      }),
      want: [],
    },
    {
      name: 'metadata under clauses',
      schema: {
        type: 'object',
        properties: { metadata: { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z]+$' } } } },
        allOf: [{ properties: { metadata: {} } }],
        anyOf: [{ properties: { metadata: {} } }],
        oneOf: [{ properties: { metadata: {} } }],
        not: { properties: { metadata: {} } },
      },
      want: [
        `${P}.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
        `${P}.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
        `${P}.not.properties[metadata]: Forbidden: must not be specified in a nested context`,
        `${P}.oneOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
      ],
    },
  ]);
});

describe('int-or-string', () => {
  table([
    {
      name: 'types in anyOf/allOf only in the two int-or-string shapes (kube integration test)',
      schema: withSpec({
        type: 'object',
        properties: {
          d: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string', pattern: 'abc' }] },
          e: {
            'x-kubernetes-int-or-string': true,
            allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string', pattern: 'abc' }] }, { pattern: 'abc' }],
          },
          f: {
            'x-kubernetes-int-or-string': true,
            anyOf: [{ type: 'integer' }, { type: 'string' }, { pattern: 'abc' }],
          },
          g: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'string' }, { type: 'integer' }] },
        },
      }),
      want: [
        `${SPEC}.properties[d].anyOf[0].type: Forbidden: must be empty to be structural`,
        `${SPEC}.properties[d].anyOf[1].type: Forbidden: must be empty to be structural`,
        `${SPEC}.properties[e].allOf[0].anyOf[0].type: Forbidden: must be empty to be structural`,
        `${SPEC}.properties[e].allOf[0].anyOf[1].type: Forbidden: must be empty to be structural`,
        `${SPEC}.properties[f].anyOf[0].type: Forbidden: must be empty to be structural`,
        `${SPEC}.properties[f].anyOf[1].type: Forbidden: must be empty to be structural`,
        `${SPEC}.properties[g].anyOf[0].type: Forbidden: must be empty to be structural`,
        `${SPEC}.properties[g].anyOf[1].type: Forbidden: must be empty to be structural`,
      ],
    },
    {
      name: 'int-or-string with preserve-unknown-fields',
      schema: { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-int-or-string': true },
      want: [
        `${P}.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      ],
    },
    {
      name: 'int-or-string with embedded-resource',
      schema: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-int-or-string': true,
        'x-kubernetes-preserve-unknown-fields': true,
      },
      want: [
        `${P}.x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
        `${P}.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      ],
    },
  ]);
});

describe('metadata, kind and apiVersion', () => {
  table([
    {
      name: 'metadata with other value validations (kube integration test)',
      schema: { type: 'object', properties: { metadata: { minimum: 42 } } },
      want: [
        // kube sorts bytewise: "." before ":"
        `${P}.properties[metadata].type: Invalid value: "": must be object`,
        `${P}.properties[metadata].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      ],
    },
    {
      name: 'metadata with other properties (kube integration test)',
      schema: {
        type: 'object',
        properties: {
          metadata: { properties: { name: { pattern: '^[a-z]+$' }, labels: { type: 'object', maxLength: 4 } } },
        },
      },
      want: [
        `${P}.properties[metadata].properties[name].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[metadata].type: Invalid value: "": must be object`,
        `${P}.properties[metadata].type: Required value: must not be empty for specified object fields`,
        `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      ],
    },
    {
      name: 'a description on metadata counts as restricting it',
      schema: { type: 'object', properties: { metadata: { type: 'object', description: 'standard object metadata' } } },
      want: [
        `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      ],
    },
    {
      name: 'metadata must be an object',
      schema: { type: 'object', properties: { metadata: { type: 'string' } } },
      want: [`${P}.properties[metadata].type: Invalid value: "string": must be object`],
    },
    {
      name: 'kind and apiVersion must be strings',
      schema: { type: 'object', properties: { kind: { type: 'integer' }, apiVersion: { type: 'object' } } },
      want: [
        `${P}.properties[apiVersion].type: Invalid value: "object": must be string`,
        `${P}.properties[kind].type: Invalid value: "integer": must be string`,
      ],
    },
    {
      name: 'the same rules inside an embedded resource, without the name restriction',
      schema: withSpec({
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { kind: { type: 'integer' }, metadata: { type: 'string', maxLength: 3 } },
      }),
      want: [
        `${SPEC}.properties[kind].type: Invalid value: "integer": must be string`,
        `${SPEC}.properties[metadata].type: Invalid value: "string": must be object`,
      ],
    },
    {
      name: 'kind is free outside resources',
      schema: withSpec({ type: 'object', properties: { kind: { type: 'integer' }, metadata: { type: 'string' } } }),
      want: [],
    },
    {
      name: 'defaults are not allowed in top-level metadata, kind and apiVersion',
      schema: {
        type: 'object',
        properties: {
          kind: { type: 'string', default: 'Cache' },
          metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } },
        },
      },
      want: [
        `${P}.properties[kind].default: Forbidden: must not be set in top-level kind`,
        `${P}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`,
      ],
    },
    {
      name: 'defaults are not allowed in metadata maps of embedded resources',
      schema: withSpec({
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: {
          metadata: {
            type: 'object',
            properties: { labels: { type: 'object', additionalProperties: { type: 'string', default: 'x' } } },
          },
        },
      }),
      want: [
        `${SPEC}.properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`,
      ],
    },
    {
      name: 'no embedded resource inside resource meta',
      schema: withSpec({
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: {
          metadata: {
            type: 'object',
            properties: {
              x: {
                type: 'object',
                'x-kubernetes-embedded-resource': true,
                'x-kubernetes-preserve-unknown-fields': true,
              },
            },
          },
        },
      }),
      want: [
        `${SPEC}.properties[metadata].properties[x].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`,
      ],
    },
  ]);
});

describe('embedded resources', () => {
  table([
    {
      name: 'without preserve-unknown-fields it needs properties',
      schema: withSpec({ type: 'object', 'x-kubernetes-embedded-resource': true }),
      want: [
        `${SPEC}.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      ],
    },
    {
      name: 'type array',
      schema: withSpec({
        type: 'array',
        items: { type: 'string' },
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      }),
      want: [`${SPEC}.type: Invalid value: "array": must be object if x-kubernetes-embedded-resource is true`],
    },
    {
      name: 'no type',
      schema: withSpec({ 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }),
      want: [`${SPEC}.type: Required value: must be object if x-kubernetes-embedded-resource is true`],
    },
    {
      name: 'with additionalProperties',
      schema: withSpec({
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
        additionalProperties: { type: 'string' },
      }),
      want: [`${SPEC}.additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set`],
    },
  ]);
});

describe('forbidden keywords', () => {
  table([
    {
      name: 'uniqueItems true',
      schema: withSpec({ type: 'array', items: { type: 'string' }, uniqueItems: true }),
      want: [
        `${SPEC}.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      ],
    },
    {
      name: 'uniqueItems false is fine',
      schema: withSpec({ type: 'array', items: { type: 'string' }, uniqueItems: false }),
      want: [],
    },
    {
      name: 'additionalItems',
      schema: withSpec({ type: 'array', items: { type: 'string' }, additionalItems: false }),
      want: [`${SPEC}.additionalItems: Forbidden: additionalItems is not supported`],
    },
    {
      name: 'patternProperties',
      schema: withSpec({ type: 'object', patternProperties: { '^a': { type: 'string' } } }),
      want: [`${SPEC}.patternProperties: Forbidden: patternProperties is not supported`],
    },
    {
      name: 'definitions (and what is inside them)',
      schema: withSpec({ type: 'object', definitions: { a: { type: 'string', uniqueItems: true } } }),
      want: [
        `${SPEC}.definitions: Forbidden: definitions is not supported`,
        `${SPEC}.definitions[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      ],
    },
    {
      name: 'dependencies',
      schema: withSpec({ type: 'object', dependencies: { a: ['b'], c: { $ref: '#/d' } } }),
      want: [
        `${SPEC}.dependencies: Forbidden: dependencies is not supported`,
        `${SPEC}.dependencies[c].$ref: Forbidden: $ref is not supported`,
      ],
    },
    {
      name: '$ref',
      schema: withSpec({ $ref: '#/definitions/a' }),
      want: [`${SPEC}.$ref: Forbidden: $ref is not supported`],
    },
    {
      name: 'an empty $ref is still set',
      schema: withSpec({ type: 'string', $ref: '' }),
      want: [`${SPEC}.$ref: Forbidden: $ref is not supported`],
    },
    { name: 'id', schema: withSpec({ type: 'string', id: 'x' }), want: [`${SPEC}.id: Forbidden: id is not supported`] },
    {
      name: '$schema, reported only when nothing else is wrong',
      schema: { type: 'object', $schema: 'http://json-schema.org/draft-04/schema#' },
      want: [`${P}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`],
    },
    {
      name: '$schema is not reported next to other errors',
      schema: { type: 'object', $schema: 'x', properties: { a: { type: 'string', uniqueItems: true } } },
      want: [
        `${P}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      ],
    },
    {
      name: 'items as an array (kube integration test)',
      schema: withSpec({ type: 'array', items: [{ type: 'string' }, { type: 'integer' }] }),
      want: [`${SPEC}.items: Forbidden: items must be a schema object and not an array`],
    },
    {
      name: 'items as an array in a clause (kube integration test)',
      schema: withSpec({ type: 'array', items: { type: 'string' }, not: { items: [{ type: 'string' }] } }),
      want: [`${SPEC}.not.items: Forbidden: items must be a schema object and not an array`],
    },
    {
      name: 'additionalProperties with properties',
      schema: withSpec({
        type: 'object',
        properties: { a: { type: 'string' } },
        additionalProperties: { type: 'string' },
      }),
      want: [`${SPEC}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
    },
    {
      name: 'additionalProperties false with properties',
      schema: withSpec({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }),
      want: [`${SPEC}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
    },
    {
      name: 'additionalProperties at the root',
      schema: { type: 'object', additionalProperties: false },
      want: [`${P}.additionalProperties: Forbidden: must not be used at the root`],
    },
    {
      name: 'errors inside forbidden keywords are still reported',
      schema: withSpec({ type: 'object', not: { uniqueItems: true } }),
      want: [
        `${SPEC}.not.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      ],
    },
  ]);
});

describe('x-kubernetes-preserve-unknown-fields', () => {
  table([
    {
      name: 'false is refused (and the schema is not converted, so no structural errors)',
      schema: {
        type: 'object',
        properties: { a: {}, b: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } },
      },
      want: [
        `${P}.properties[b].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
      ],
    },
  ]);
});

describe('x-kubernetes-list-type and x-kubernetes-list-map-keys', () => {
  const item = {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string' }, port: { type: 'integer' } },
  };
  table([
    {
      name: 'list-type on a non-array',
      schema: withSpec({ type: 'object', 'x-kubernetes-list-type': 'set' }),
      want: [`${SPEC}.type: Invalid value: "object": must be array if x-kubernetes-list-type is specified`],
    },
    {
      name: 'list-type without a type',
      schema: withSpec({ 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-list-type': 'atomic' }),
      want: [`${SPEC}.type: Required value: must be array if x-kubernetes-list-type is specified`],
    },
    {
      name: 'an unknown list-type',
      schema: withSpec({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' }),
      want: [`${SPEC}.x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`],
    },
    {
      name: 'set items that are granular maps',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'set',
        items: { type: 'object', properties: { a: { type: 'string' } } },
      }),
      want: [
        `${SPEC}.items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set`,
      ],
    },
    {
      name: 'set items that are granular maps, explicitly',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'set',
        items: { type: 'object', 'x-kubernetes-map-type': 'granular' },
      }),
      want: [
        `${SPEC}.items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set`,
      ],
    },
    {
      name: 'set items that are sets',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'set',
        items: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      }),
      want: [
        `${SPEC}.items.x-kubernetes-list-type: Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set`,
      ],
    },
    {
      name: 'nullable set items',
      schema: withSpec({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', nullable: true } }),
      want: [`${SPEC}.items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`],
    },
    {
      name: 'list-map-keys without list-type',
      schema: withSpec({ type: 'array', items: item, 'x-kubernetes-list-map-keys': ['name'] }),
      want: [`${SPEC}.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`],
    },
    {
      name: 'list-map-keys with list-type atomic',
      schema: withSpec({
        type: 'array',
        items: item,
        'x-kubernetes-list-type': 'atomic',
        'x-kubernetes-list-map-keys': ['name'],
      }),
      want: [
        `${SPEC}.x-kubernetes-list-type: Invalid value: "atomic": must be map if x-kubernetes-list-map-keys is non-empty`,
      ],
    },
    {
      name: 'map without keys',
      schema: withSpec({ type: 'array', items: item, 'x-kubernetes-list-type': 'map' }),
      want: [`${SPEC}.x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`],
    },
    {
      name: 'map without items',
      schema: withSpec({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
      want: [
        `${SPEC}.items: Required value: must be specified`,
        `${SPEC}.items: Required value: must have a schema if x-kubernetes-list-type is map`,
      ],
    },
    {
      name: 'map with an items array',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: [],
      }),
      want: [
        `${SPEC}.items: Required value: must be specified`,
        `${SPEC}.items: Invalid value: apiextensions.JSONSchemaPropsOrArray{Schema:(*apiextensions.JSONSchemaProps)(nil), JSONSchemas:[]apiextensions.JSONSchemaProps{}}: must only have a single schema if x-kubernetes-list-type is map`,
      ],
    },
    {
      name: 'map of scalars',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'string' },
      }),
      want: [
        `${SPEC}.items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
      ],
    },
    {
      name: 'map keys that are not item properties, or are duplicated',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name', 'nope', 'name'],
        items: item,
      }),
      want: [
        `${SPEC}.x-kubernetes-list-map-keys: Invalid value: []string{"name", "nope", "name"}: entries must all be names of item properties`,
        `${SPEC}.x-kubernetes-list-map-keys: Invalid value: []string{"name", "nope", "name"}: must not contain duplicate entries`,
      ],
    },
    {
      name: 'map keys of non-scalar type',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['obj'],
        items: { type: 'object', required: ['obj'], properties: { obj: { type: 'object' } } },
      }),
      want: [
        `${SPEC}.items.properties[obj].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      ],
    },
    {
      name: 'map keys neither required nor defaulted, and nullable; nullable items',
      schema: withSpec({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name', 'port'],
        items: {
          type: 'object',
          nullable: true,
          required: ['name'],
          properties: { name: { type: 'string', nullable: true }, port: { type: 'integer' } },
        },
      }),
      want: [
        `${SPEC}.items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is map`,
        `${SPEC}.items.properties[name].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
        `${SPEC}.items.properties[port].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      ],
    },
  ]);
});

describe('x-kubernetes-map-type', () => {
  table([
    {
      name: 'map-type on a non-object',
      schema: withSpec({ type: 'string', 'x-kubernetes-map-type': 'atomic' }),
      want: [`${SPEC}.type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`],
    },
    {
      name: 'map-type without a type',
      schema: withSpec({ 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-map-type': 'atomic' }),
      want: [`${SPEC}.type: Required value: must be object if x-kubernetes-map-type is specified`],
    },
    {
      name: 'an unknown map-type',
      schema: withSpec({ type: 'object', 'x-kubernetes-map-type': 'mixed' }),
      want: [`${SPEC}.x-kubernetes-map-type: Unsupported value: "mixed": supported values: "atomic", "granular"`],
    },
  ]);
});

describe('patterns', () => {
  table([
    {
      name: 'a pattern RE2 rejects (kube integration test)',
      schema: { type: 'object', properties: { foo: { type: 'string', pattern: '+' } } },
      want: [
        `${P}.properties[foo].pattern: Invalid value: "+": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: \`+\``,
      ],
    },
    {
      name: 'backreferences and lookaheads are not RE2',
      schema: withSpec({
        type: 'object',
        properties: { a: { type: 'string', pattern: '(a)\\1' }, b: { type: 'string', pattern: '^(?!x)' } },
      }),
      want: [
        `${SPEC}.properties[a].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: \`\\1\``,
        `${SPEC}.properties[b].pattern: Invalid value: "^(?!x)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?!\``,
      ],
    },
    {
      name: 'a trailing backslash, printed as Go prints it',
      schema: withSpec({ type: 'string', pattern: 'a\\' }),
      want: [
        `${SPEC}.pattern: Invalid value: "a\\\\": must be a valid regular expression, but isn't: error parsing regexp: trailing backslash at end of expression: \`\``,
      ],
    },
    {
      name: 'patterns in clauses are checked too',
      schema: withSpec({ type: 'string', allOf: [{ pattern: '[z-a]' }] }),
      want: [
        `${SPEC}.allOf[0].pattern: Invalid value: "[z-a]": must be a valid regular expression, but isn't: error parsing regexp: invalid character class range: \`z-a\``,
      ],
    },
  ]);
});

describe('order', () => {
  it('structural errors (sorted) come before the per-node ones (in traversal order)', () => {
    const schema = {
      type: 'object',
      properties: {
        z: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        a: {},
        m: { type: 'object', 'x-kubernetes-map-type': 'mixed', id: 'm' },
      },
    };
    expect(run(schema)).toEqual([
      // id stops the conversion, so there are no structural errors at all: kube's behaviour
      `${P}.properties[z].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${P}.properties[m].id: Forbidden: id is not supported`,
      `${P}.properties[m].x-kubernetes-map-type: Unsupported value: "mixed": supported values: "atomic", "granular"`,
    ]);
    delete (schema.properties.m as Record<string, unknown>)['id'];
    expect(run(schema)).toEqual([
      `${P}.properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[z].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      `${P}.properties[m].x-kubernetes-map-type: Unsupported value: "mixed": supported values: "atomic", "granular"`,
    ]);
  });

  it('reports at the path it is given', () => {
    expect(run({}, 'spec.validation.openAPIV3Schema')).toEqual([
      'spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root',
    ]);
  });

  it('never throws on odd JSON', () => {
    const odd = [
      null,
      1,
      'x',
      [],
      { properties: null },
      { properties: { a: null } },
      { allOf: [null, 1] },
      { items: 'x' },
      { type: 7 },
      { additionalProperties: 'x' },
    ];
    for (const s of odd) expect(() => validateStructuralSchema(S(s), P)).not.toThrow();
  });
});

describe('options', () => {
  it('requireStructuralSchema: false skips the structural rules', () => {
    expect(validateStructuralSchema(S(withSpec({})), P, { requireStructuralSchema: false })).toEqual([]);
  });

  it('relaxes on update only the rules the old schemas already broke', () => {
    const nonAtomicSet = withSpec({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object' } });
    const badType = withSpec({ type: 'int' });
    const nullableKey = withSpec({
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['k'],
      items: { type: 'object', properties: { k: { type: 'string' } } },
    });
    expect(structuralOptionsForUpdate([S({ type: 'object' })])).toEqual({
      requireValidPropertyType: true,
      requireAtomicSetType: true,
      requireMapListKeysMapSetValidation: true,
    });
    expect(structuralOptionsForUpdate([S(nonAtomicSet), undefined])).toMatchObject({
      requireAtomicSetType: false,
      requireValidPropertyType: true,
    });
    expect(structuralOptionsForUpdate([S(badType)])).toMatchObject({ requireValidPropertyType: false });
    expect(structuralOptionsForUpdate([S(nullableKey)])).toMatchObject({ requireMapListKeysMapSetValidation: false });
    expect(validateStructuralSchema(S(nonAtomicSet), P, structuralOptionsForUpdate([S(nonAtomicSet)]))).toEqual([]);
    expect(validateStructuralSchema(S(nullableKey), P, structuralOptionsForUpdate([S(nullableKey)]))).toEqual([]);
  });
});

describe('the defaults hook', () => {
  const hook = (schema: JSONSchemaProps, path: string) => [
    { type: 'FieldValueInvalid' as const, field: `${path}.default`, badValue: schema.type, detail: 'checked' },
  ];

  it('runs for a structural schema, between the structural and the per-node errors', () => {
    const schema = withSpec({ type: 'string', uniqueItems: true, default: 'a' });
    expect(validateStructuralSchema(S(schema), P, { validateDefault: hook }).map(formatFieldError)).toEqual([
      `${SPEC}.default: Invalid value: "string": checked`,
      `${SPEC}.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
    ]);
  });

  it("runs for each default in ValidateDefaults' order, none under additionalProperties or the root's metadata", () => {
    const schema = {
      type: 'object',
      default: {},
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } },
        spec: {
          type: 'object',
          default: {},
          properties: {
            list: { type: 'array', default: [], items: { type: 'integer', default: 1 } },
            map: { type: 'object', additionalProperties: { type: 'string', default: 'y' } },
          },
        },
        status: { type: 'boolean', default: true },
      },
    };
    expect(validateStructuralSchema(S(schema), P, { validateDefault: hook }).map((e) => e.field)).toEqual([
      `${P}.default`,
      `${SPEC}.default`,
      `${SPEC}.properties[list].default`,
      `${SPEC}.properties[list].items.default`,
      `${P}.properties[status].default`,
      `${P}.properties[metadata].properties[name].default`, // the per-node check's Forbidden
    ]);
  });

  it('does not run for a non-structural schema', () => {
    expect(validateStructuralSchema(S(withSpec({})), P, { validateDefault: hook }).map(formatFieldError)).toEqual([
      `${SPEC}.type: Required value: must not be empty for specified object fields`,
    ]);
    expect(
      validateStructuralSchema(S({ type: 'object', $schema: 'x' }), P, { validateDefault: hook }).map(formatFieldError),
    ).toEqual([`${P}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`]);
  });
});
