// Custom resource validation against a structural schema, with kube-apiserver's texts. Expected
// messages follow kube-openapi (pkg/validation/validate, errors), apiextensions-apiserver
// (apiserver/validation kubeOpenAPIResultToFieldErrors, schema/listtype, schema/objectmeta) and
// apimachinery's field.Error printing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSchema } from '../../../../../crd/schema/validate/compile-schema.js';
import { formatCheck } from '../../../../../apimachinery/validation/strfmt.js';
import type { JSONSchemaProps } from '../../../../../apimachinery/apis/apiextensions.js';
import { formatFieldError } from '../../../../../apimachinery/field-errors.js';

/** A root object schema with `spec` holding the given properties. */
function spec(properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps {
  return { type: 'object', properties: { spec: { type: 'object', properties, ...extra } } };
}

interface Case {
  name: string;
  schema: JSONSchemaProps;
  obj: unknown;
  errs: string[];
  floats?: string[];
}

const run = (schema: JSONSchemaProps, obj: unknown, floats?: string[]): string[] =>
  compileSchema(schema)
    .validate(obj, floats ? { floatLiterals: new Set(floats) } : undefined)
    .map(formatFieldError);

const cacheSchema = spec(
  {
    size: { type: 'integer', minimum: 1, maximum: 9, default: 3 },
    maxSize: { type: 'integer', minimum: 1, maximum: 9, default: 9 },
    engine: { type: 'string', enum: ['redis', 'valkey'], default: 'redis' },
  },
  { required: ['size'] },
);

const cases: Case[] = [
  // --- the lab
  { name: 'lab: valid cache', schema: cacheSchema, obj: { spec: { size: 3, maxSize: 9, engine: 'redis' } }, errs: [] },
  {
    name: 'lab: size 99',
    schema: cacheSchema,
    obj: { spec: { size: 99 } },
    errs: ['spec.size: Invalid value: 99: spec.size in body should be less than or equal to 9'],
  },
  {
    name: 'lab: unsupported engine',
    schema: cacheSchema,
    obj: { spec: { size: 2, engine: 'memcached' } },
    errs: ['spec.engine: Unsupported value: "memcached": supported values: "redis", "valkey"'],
  },
  { name: 'lab: size required', schema: cacheSchema, obj: { spec: {} }, errs: ['spec.size: Required value'] },
  {
    name: 'errors follow the order of the keys in the object',
    schema: cacheSchema,
    obj: { spec: { engine: 'x', size: 0 } },
    errs: [
      'spec.engine: Unsupported value: "x": supported values: "redis", "valkey"',
      'spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
    ],
  },

  // --- type
  ...(
    [
      ['a string', 'foo', 'string'],
      ['an integer', 42, 'integer'],
      ['a boolean', true, 'boolean'],
      ['a number', 1.2, 'number'],
      ['an array', [], 'array'],
      ['null', null, 'null'],
    ] as const
  ).map(
    ([what, value, type]): Case => ({
      name: `type object given ${what}`,
      schema: { properties: { field: { type: 'object' } } },
      obj: { field: value },
      errs: [`field: Invalid value: "${type}": field in body must be of type object: "${type}"`],
    }),
  ),
  {
    name: 'type string given an integer',
    schema: spec({ s: { type: 'string' } }),
    obj: { spec: { s: 1 } },
    errs: ['spec.s: Invalid value: "integer": spec.s in body must be of type string: "integer"'],
  },
  {
    name: 'type boolean given a string',
    schema: spec({ b: { type: 'boolean' } }),
    obj: { spec: { b: 'true' } },
    errs: ['spec.b: Invalid value: "string": spec.b in body must be of type boolean: "string"'],
  },
  {
    name: 'type array given an object',
    schema: spec({ l: { type: 'array', items: { type: 'string' } } }),
    obj: { spec: { l: {} } },
    errs: ['spec.l: Invalid value: "object": spec.l in body must be of type array: "object"'],
  },
  {
    name: 'type integer given a fraction',
    schema: spec({ n: { type: 'integer' } }),
    obj: { spec: { n: 1.5 } },
    errs: ['spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"'],
  },
  {
    // kube decodes 1.0 as float64 and kube-openapi accepts an integral float64 for type integer
    name: 'type integer given 1.0 (a float64 kube still accepts)',
    schema: spec({ n: { type: 'integer' } }),
    obj: { spec: { n: 1 } },
    floats: ['spec.n'],
    errs: [],
  },
  {
    name: 'type integer given a float beyond 2^53',
    schema: spec({ n: { type: 'integer' } }),
    obj: { spec: { n: 1e20 } },
    errs: ['spec.n: Invalid value: "number": spec.n in body must be of type integer: "number"'],
  },
  { name: 'type number given an integer', schema: spec({ n: { type: 'number' } }), obj: { spec: { n: 3 } }, errs: [] },
  {
    name: 'nullable accepts null',
    schema: spec({ o: { type: 'object', nullable: true } }),
    obj: { spec: { o: null } },
    errs: [],
  },
  {
    name: 'no type, nullable: anything',
    schema: { properties: { field: { nullable: true } } },
    obj: { field: [1, 'a'] },
    errs: [],
  },
  {
    name: 'int-or-string: boolean',
    schema: { properties: { field: { 'x-kubernetes-int-or-string': true } } },
    obj: { field: true },
    errs: ['field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"'],
  },
  {
    name: 'int-or-string: null when not nullable',
    schema: { properties: { field: { 'x-kubernetes-int-or-string': true } } },
    obj: { field: null },
    errs: ['field: Invalid value: "null": field in body must be of type integer,string: "null"'],
  },
  {
    name: 'int-or-string: integer and string',
    schema: { properties: { a: { 'x-kubernetes-int-or-string': true }, b: { 'x-kubernetes-int-or-string': true } } },
    obj: { a: 42, b: '50%' },
    errs: [],
  },
  {
    name: 'int-or-string: a number',
    schema: { properties: { field: { 'x-kubernetes-int-or-string': true, nullable: true } } },
    obj: { field: 1.2 },
    errs: ['field: Invalid value: "number": field in body must be of type integer,string: "number"'],
  },
  {
    // kube-openapi checks a non-string value against the format first
    name: 'a format on a non-string value',
    schema: spec({ id: { type: 'string', format: 'uuid' } }),
    obj: { spec: { id: 5 } },
    errs: ['spec.id: Invalid value: "int64": spec.id in body must be of type uuid: "int64"'],
  },

  // --- formats
  ...(
    [
      ['uuid', 'not-a-uuid', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'],
      ['uuid3', 'f47ac10b-58cc-4372-a567-0e02b2c3d479', 'bcd02e22-68f0-3046-a512-327cca9def8f'],
      ['uuid4', 'bcd02e22-68f0-3046-a512-327cca9def8f', '025b0d74-00a2-4048-bf57-227c5111bb34'],
      ['uuid5', '025b0d74-00a2-4048-bf57-227c5111bb34', '886313e1-3b8a-5372-9b90-0c9aee199e5d'],
      ['date-time', '2020-13-01T00:00:00Z', '2020-01-01T10:00:00.5+02:00'],
      ['date', '2024-02-30', '2024-02-29'],
      ['email', 'not-an-email', 'Jane Doe <jane@example.com>'],
      ['hostname', '-bad-', 'www.example.com'],
      ['ipv4', '1.2.3', '01.2.3.4'],
      ['ipv6', '1.2.3.4', '2001:db8::1'],
      ['cidr', '10.0.0.0/33', '10.0.0.0/8'],
      ['mac', '00:00:5e', '00-00-5e-00-53-01'],
      ['uri', 'example.com/path', 'https://example.com/a?b=c'],
      ['byte', 'abc', 'aGVsbG8='],
      ['duration', 'forever', '1h30m'],
      ['isbn', '1234567890', '978-0321751041'],
      ['isbn10', '0321751044', '0321751043'],
      ['isbn13', '978-0321751042', '978-0321751041'],
      ['creditcard', '4111-1111-1111-1112', '4111-1111-1111-1111'],
      ['ssn', '111-11-111', '111-11-1111'],
      ['hexcolor', '#GGGGGG', '#FFF'],
      ['rgbcolor', 'rgb(256,0,0)', 'rgb(255, 255, 255)'],
      ['bsonobjectid', 'xyz', '507f1f77bcf86cd799439011'],
      ['k8s-short-name', 'My-Name', 'my-name'],
      ['k8s-long-name', 'a..b', 'a.b-c.d'],
    ] as const
  ).flatMap(([format, bad, good]): Case[] => [
    {
      name: `format ${format}: ${JSON.stringify(bad)} rejected`,
      schema: spec({ f: { type: 'string', format } }),
      obj: { spec: { f: bad } },
      errs: [
        `spec.f: Invalid value: ${JSON.stringify(bad)}: spec.f in body must be of type ${format}: ${JSON.stringify(bad)}`,
      ],
    },
    {
      name: `format ${format}: ${JSON.stringify(good)} accepted`,
      schema: spec({ f: { type: 'string', format } }),
      obj: { spec: { f: good } },
      errs: [],
    },
  ]),
  {
    name: 'format password accepts anything',
    schema: spec({ p: { type: 'string', format: 'password' } }),
    obj: { spec: { p: '' } },
    errs: [],
  },
  {
    name: 'format int32 is stripped by kube (not validated)',
    schema: spec({ n: { type: 'integer', format: 'int32' } }),
    obj: { spec: { n: 2 ** 40 } },
    errs: [],
  },
  {
    name: 'format double is stripped by kube',
    schema: spec({ n: { type: 'number', format: 'double' } }),
    obj: { spec: { n: 1.5 } },
    errs: [],
  },
  {
    name: 'unknown formats are ignored',
    schema: spec({ s: { type: 'string', format: 'made-up' } }),
    obj: { spec: { s: 'anything' } },
    errs: [],
  },
  {
    name: 'format names are normalised (datetime)',
    schema: spec({ t: { type: 'string', format: 'datetime' } }),
    obj: { spec: { t: 'yesterday' } },
    errs: ['spec.t: Invalid value: "yesterday": spec.t in body must be of type datetime: "yesterday"'],
  },

  // --- enum
  {
    name: 'enum: integers and strings',
    schema: {
      properties: {
        field: {
          type: 'object',
          required: ['nestedint', 'nestedstring'],
          properties: {
            nestedint: { type: 'integer', enum: [1, 2] },
            nestedstring: { type: 'string', enum: ['a', 'b'] },
          },
        },
      },
    },
    obj: { field: { nestedint: 'x', nestedstring: true } },
    errs: [
      'field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"',
      'field.nestedint: Unsupported value: "x": supported values: "1", "2"',
      'field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"',
      'field.nestedstring: Unsupported value: true: supported values: "a", "b"',
    ],
  },
  {
    name: 'enum: required nested fields',
    schema: {
      properties: {
        field: {
          type: 'object',
          required: ['nestedint', 'nestedstring'],
          properties: { nestedint: { type: 'integer' }, nestedstring: { type: 'string' } },
        },
      },
    },
    obj: { field: {} },
    errs: ['field.nestedint: Required value', 'field.nestedstring: Required value'],
  },
  {
    name: 'enum: object values print as Go does',
    schema: spec({ o: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, enum: [{ a: 1 }] } }),
    obj: { spec: { o: { b: [1, 'x'], a: 2 } } },
    errs: [
      'spec.o: Unsupported value: map[string]interface {}{"a":2, "b":[]interface {}{1, "x"}}: supported values: "{\\"a\\":1}"',
    ],
  },
  // kube converts the value to the allowed value's Go type: float64 1.7 becomes int64 1
  {
    name: 'enum: a float matches an integer by truncation (kube)',
    schema: spec({ n: { type: 'number', enum: [1, 2] } }),
    obj: { spec: { n: 1.7 } },
    errs: [],
  },
  {
    name: 'enum: null with nullable still fails (kube)',
    schema: spec({ e: { type: 'string', nullable: true, enum: ['a'] } }),
    obj: { spec: { e: null } },
    errs: ['spec.e: Unsupported value: "null": supported values: "a"'],
  },
  {
    name: 'enum: a float value prints with Go %v',
    schema: spec({ n: { type: 'number', enum: [1, 2] } }),
    obj: { spec: { n: 2500000 } },
    floats: ['spec.n'],
    errs: ['spec.n: Unsupported value: 2.5e+06: supported values: "1", "2"'],
  },

  {
    name: 'floatLiterals: map keys as .key or [key], list items as [i]',
    schema: spec({
      m: { type: 'object', additionalProperties: { type: 'number', maximum: 1 } },
      l: { type: 'array', items: { type: 'number', maximum: 1 } },
    }),
    obj: { spec: { m: { a: 2000000, b: 2000000 }, l: [3000000] } },
    floats: ['spec.m[a]', 'spec.m.b', 'spec.l[0]'],
    errs: [
      'spec.m.a: Invalid value: 2e+06: spec.m.a in body should be less than or equal to 1',
      'spec.m.b: Invalid value: 2e+06: spec.m.b in body should be less than or equal to 1',
      'spec.l[0]: Invalid value: 3e+06: spec.l[0] in body should be less than or equal to 1',
    ],
  },
  {
    name: 'small floats print in exponent form',
    schema: spec({ r: { type: 'number', minimum: 0.001 } }),
    obj: { spec: { r: 0.00001 } },
    errs: ['spec.r: Invalid value: 1e-05: spec.r in body should be greater than or equal to 0.001'],
  },

  // --- strings
  {
    name: 'maxLength counts characters, not bytes',
    schema: spec({ s: { type: 'string', maxLength: 3 } }),
    obj: { spec: { s: 'éé€' } },
    errs: [],
  },
  {
    name: 'maxLength exceeded',
    schema: spec({ s: { type: 'string', maxLength: 3 } }),
    obj: { spec: { s: 'abcd' } },
    errs: ['spec.s: Too long: may not be more than 3 bytes'],
  },
  {
    name: 'maxLength 1',
    schema: spec({ s: { type: 'string', maxLength: 1 } }),
    obj: { spec: { s: 'ab' } },
    errs: ['spec.s: Too long: may not be more than 1 byte'],
  },
  {
    name: 'minLength',
    schema: spec({ s: { type: 'string', minLength: 2 } }),
    obj: { spec: { s: '😀' } },
    errs: ['spec.s: Invalid value: "😀": spec.s in body should be at least 2 chars long'],
  },
  {
    name: 'pattern',
    schema: spec({ s: { type: 'string', pattern: '^[a-z]+$' } }),
    obj: { spec: { s: 'ABC' } },
    errs: ['spec.s: Invalid value: "ABC": spec.s in body should match \'^[a-z]+$\''],
  },
  {
    name: 'pattern is a search, not a full match',
    schema: spec({ s: { type: 'string', pattern: '[0-9]' } }),
    obj: { spec: { s: 'abc1' } },
    errs: [],
  },
  {
    name: 'pattern that RE2 rejects',
    schema: { properties: { field: { type: 'string', pattern: '+' } } },
    obj: { field: 'foo' },
    errs: [
      'field: Invalid value: "foo": field in body should match \'+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`\'',
    ],
  },
  {
    name: 'only the first failing string check is reported, then the enum',
    schema: spec({ s: { type: 'string', maxLength: 2, pattern: '^z', enum: ['zz'] } }),
    obj: { spec: { s: 'abc' } },
    errs: [
      'spec.s: Too long: may not be more than 2 bytes',
      'spec.s: Unsupported value: "abc": supported values: "zz"',
    ],
  },

  // --- numbers
  {
    name: 'minimum',
    schema: spec({ n: { type: 'integer', minimum: 1 } }),
    obj: { spec: { n: 0 } },
    errs: ['spec.n: Invalid value: 0: spec.n in body should be greater than or equal to 1'],
  },
  {
    name: 'exclusiveMinimum',
    schema: spec({ n: { type: 'integer', minimum: 1, exclusiveMinimum: true } }),
    obj: { spec: { n: 1 } },
    errs: ['spec.n: Invalid value: 1: spec.n in body should be greater than 1'],
  },
  {
    name: 'exclusiveMaximum',
    schema: spec({ n: { type: 'integer', maximum: 9, exclusiveMaximum: true } }),
    obj: { spec: { n: 9 } },
    errs: ['spec.n: Invalid value: 9: spec.n in body should be less than 9'],
  },
  {
    name: 'float bounds print as Go floats',
    schema: spec({ r: { type: 'number', minimum: 0.5 } }),
    obj: { spec: { r: 0.25 } },
    errs: ['spec.r: Invalid value: 0.25: spec.r in body should be greater than or equal to 0.5'],
  },
  {
    name: 'large float bound',
    schema: spec({ r: { type: 'number', maximum: 1000000 } }),
    obj: { spec: { r: 2500000.5 } },
    errs: ['spec.r: Invalid value: 2.5000005e+06: spec.r in body should be less than or equal to 1e+06'],
  },
  {
    name: 'large integer bound',
    schema: spec({ r: { type: 'integer', maximum: 1000000 } }),
    obj: { spec: { r: 2000000 } },
    errs: ['spec.r: Invalid value: 2000000: spec.r in body should be less than or equal to 1000000'],
  },
  // an int64 value is compared with the bound truncated to int64
  {
    name: 'fractional minimum against an integer (kube truncates the bound)',
    schema: spec({ n: { type: 'integer', minimum: 1.5 } }),
    obj: { spec: { n: 1 } },
    errs: [],
  },
  {
    name: 'fractional minimum against a float',
    schema: spec({ n: { type: 'number', minimum: 1.5 } }),
    obj: { spec: { n: 1.25 } },
    errs: ['spec.n: Invalid value: 1.25: spec.n in body should be greater than or equal to 1.5'],
  },
  {
    name: 'multipleOf (integers)',
    schema: spec({ n: { type: 'integer', multipleOf: 5 } }),
    obj: { spec: { n: 7 } },
    errs: ['spec.n: Invalid value: 7: spec.n in body should be a multiple of 5'],
  },
  {
    name: 'multipleOf (floats)',
    schema: spec({ n: { type: 'number', multipleOf: 0.1 } }),
    obj: { spec: { a: 1, n: 0.3 } },
    errs: [],
  },
  {
    name: 'multipleOf (floats) failing',
    schema: spec({ n: { type: 'number', multipleOf: 0.25 } }),
    obj: { spec: { n: 0.3 } },
    errs: ['spec.n: Invalid value: 0.3: spec.n in body should be a multiple of 0.25'],
  },
  {
    name: 'numeric checks run multipleOf, minimum, maximum',
    schema: spec({ n: { type: 'integer', multipleOf: 2, minimum: 10, maximum: 5 } }),
    obj: { spec: { n: 7 } },
    errs: [
      'spec.n: Invalid value: 7: spec.n in body should be a multiple of 2',
      'spec.n: Invalid value: 7: spec.n in body should be greater than or equal to 10',
      'spec.n: Invalid value: 7: spec.n in body should be less than or equal to 5',
    ],
  },

  // --- arrays
  {
    name: 'maxItems',
    schema: spec({ l: { type: 'array', maxItems: 3, items: { type: 'integer' } } }),
    obj: { spec: { l: [1, 2, 3, 4] } },
    errs: ['spec.l: Too many: 4: must have at most 3 items'],
  },
  {
    name: 'maxItems 1',
    schema: spec({ l: { type: 'array', maxItems: 1, items: { type: 'integer' } } }),
    obj: { spec: { l: [1, 2] } },
    errs: ['spec.l: Too many: 2: must have at most 1 item'],
  },
  {
    name: 'minItems',
    schema: spec({ l: { type: 'array', minItems: 2, items: { type: 'integer' } } }),
    obj: { spec: { l: [1] } },
    errs: ['spec.l: Invalid value: 1: spec.l in body should have at least 2 items'],
  },
  {
    name: 'items are validated before the array bounds',
    schema: spec({ l: { type: 'array', maxItems: 1, items: { type: 'string', maxLength: 1 } } }),
    obj: { spec: { l: ['a', 'bb'] } },
    errs: ['spec.l[1]: Too long: may not be more than 1 byte', 'spec.l: Too many: 2: must have at most 1 item'],
  },
  {
    name: 'nested items',
    schema: spec({
      l: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 65535 } },
        },
      },
    }),
    obj: { spec: { l: [{ name: 'a' }, { port: 70000 }] } },
    errs: [
      'spec.l[1].port: Invalid value: 70000: spec.l[1].port in body should be less than or equal to 65535',
      'spec.l[1].name: Required value',
    ],
  },

  // --- objects
  {
    name: 'maxProperties',
    schema: spec({ m: { type: 'object', maxProperties: 2, additionalProperties: { type: 'string' } } }),
    obj: { spec: { m: { a: 'x', b: 'y', c: 'z' } } },
    errs: ['spec.m: Too many: 3: must have at most 2 items'],
  },
  {
    name: 'minProperties',
    schema: spec({ m: { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } } }),
    obj: { spec: { m: {} } },
    errs: ['spec.m: Invalid value: 0: spec.m in body should have at least 1 properties'],
  },
  {
    name: 'additionalProperties schema',
    schema: spec({ labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 3 } } }),
    obj: { spec: { labels: { a: 'ok', b: 1, c: 'toolong' } } },
    errs: [
      'spec.labels.b: Invalid value: "integer": spec.labels.b in body must be of type string: "integer"',
      'spec.labels.c: Too long: may not be more than 3 bytes',
    ],
  },
  {
    name: 'additionalProperties false',
    schema: spec({ a: { type: 'string' } }, { additionalProperties: false }),
    obj: { spec: { a: 'x', extra: 1 } },
    errs: ['spec: Invalid value: "extra": spec.extra in body is a forbidden property'],
  },
  {
    name: 'additionalProperties true',
    schema: spec({}, { additionalProperties: true }),
    obj: { spec: { any: [1] } },
    errs: [],
  },
  {
    name: 'required in declared order, after property errors',
    schema: spec({ a: { type: 'string' }, b: { type: 'string' }, c: { type: 'integer' } }, { required: ['b', 'a'] }),
    obj: { spec: { c: 'x' } },
    errs: [
      'spec.c: Invalid value: "string": spec.c in body must be of type integer: "string"',
      'spec.b: Required value',
      'spec.a: Required value',
    ],
  },
  {
    name: 'required is satisfied by a null value',
    schema: spec({ a: { type: 'string', nullable: true } }, { required: ['a'] }),
    obj: { spec: { a: null } },
    errs: [],
  },
  {
    name: 'required at the root',
    schema: { type: 'object', required: ['spec'], properties: { spec: { type: 'object' } } },
    obj: { apiVersion: 'v1' },
    errs: ['spec: Required value'],
  },
  {
    name: 'an error on the root object has no path',
    schema: { type: 'object', minProperties: 3 },
    obj: { a: 1 },
    errs: ['<nil>: Invalid value: 1:  in body should have at least 3 properties'],
  },
  {
    name: 'preserve-unknown-fields keeps its fields unvalidated',
    schema: spec({ x: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }),
    obj: { spec: { x: { anything: [1, { b: null }] } } },
    errs: [],
  },

  // --- allOf / anyOf / oneOf / not
  {
    name: 'anyOf: none valid (kube line, then why each branch failed)',
    schema: {
      properties: {
        field: { 'x-kubernetes-int-or-string': true, nullable: true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
      },
    },
    obj: { field: true },
    errs: [
      'field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"',
      '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)\n' +
        'anyOf[0]: field: Invalid value: "boolean": field in body must be of type integer: "boolean"\n' +
        'anyOf[1]: field: Invalid value: "boolean": field in body must be of type string: "boolean"',
      'field: Invalid value: "boolean": field in body must be of type integer: "boolean"',
    ],
  },
  {
    name: 'anyOf: one valid',
    schema: {
      properties: { field: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
    },
    obj: { field: 'x' },
    errs: [],
  },
  {
    name: 'allOf around anyOf',
    schema: {
      properties: {
        field: {
          'x-kubernetes-int-or-string': true,
          nullable: true,
          allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }],
        },
      },
    },
    obj: { field: 1.2 },
    errs: [
      'field: Invalid value: "number": field in body must be of type integer,string: "number"',
      '<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)\n' +
        'anyOf[0]: field: Invalid value: "number": field in body must be of type integer: "number"\n' +
        'anyOf[1]: field: Invalid value: "number": field in body must be of type string: "number"',
      'field: Invalid value: "number": field in body must be of type integer: "number"',
      '<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated',
    ],
  },
  {
    name: 'allOf: one branch fails; the same error is reported once',
    schema: spec(
      { a: { type: 'integer' }, b: { type: 'integer' } },
      { allOf: [{ required: ['a'] }, { required: ['a'] }, { properties: { b: { maximum: 3 } } }] },
    ),
    obj: { spec: { b: 2 } },
    errs: ['spec.a: Required value', '<nil>: Invalid value: "": "spec" must validate all the schemas (allOf)'],
  },
  {
    name: 'oneOf: none valid',
    schema: spec(
      { a: { type: 'string' }, b: { type: 'string' } },
      { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
    ),
    obj: { spec: {} },
    errs: [
      '<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid\noneOf[0]: spec.a: Required value\noneOf[1]: spec.b: Required value',
      'spec.a: Required value',
    ],
  },
  {
    name: 'oneOf: two valid',
    schema: spec(
      { a: { type: 'string' }, b: { type: 'string' } },
      { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
    ),
    obj: { spec: { a: 'x', b: 'y' } },
    errs: [
      '<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives\nvalid: oneOf[0], oneOf[1]',
    ],
  },
  {
    name: 'oneOf: exactly one valid',
    schema: spec(
      { a: { type: 'string' }, b: { type: 'string' } },
      { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
    ),
    obj: { spec: { b: 'y' } },
    errs: [],
  },
  {
    name: 'oneOf: the branch with most checks passing is the one reported',
    schema: spec(
      { n: { type: 'integer' }, s: { type: 'string' } },
      { oneOf: [{ required: ['x'] }, { properties: { n: { minimum: 5 }, s: { maxLength: 1 } } }] },
    ),
    obj: { spec: { n: 1, s: 'ab' } },
    errs: [
      '<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid\noneOf[0]: spec.x: Required value\noneOf[1]: spec.n: Invalid value: 1: spec.n in body should be greater than or equal to 5; spec.s: Too long: may not be more than 1 byte',
      'spec.n: Invalid value: 1: spec.n in body should be greater than or equal to 5',
      'spec.s: Too long: may not be more than 1 byte',
    ],
  },
  {
    name: 'not',
    schema: spec({ mode: { type: 'string', not: { enum: ['legacy'] } } }),
    obj: { spec: { mode: 'legacy' } },
    errs: ['<nil>: Invalid value: "": "spec.mode" must not validate the schema (not)'],
  },

  // --- x-kubernetes-list-type
  {
    name: 'list-type set: the second occurrence of a value',
    schema: spec({ s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }),
    obj: { spec: { s: ['a', 'b', 'a', 'a', 'b'] } },
    errs: ['spec.s[2]: Duplicate value: "a"', 'spec.s[4]: Duplicate value: "b"'],
  },
  {
    name: 'list-type set: compound items',
    schema: spec({
      s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'array', items: { type: 'integer' } } },
    }),
    obj: {
      spec: {
        s: [
          [1, 2],
          [2, 1],
          [1, 2],
        ],
      },
    },
    errs: ['spec.s[2]: Duplicate value: []interface {}{1, 2}'],
  },
  {
    name: 'list-type set: int64 1 and float64 1.0 are different values',
    schema: spec({ s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'number' } } }),
    obj: { spec: { s: [1, 1] } },
    floats: ['spec.s[1]'],
    errs: [],
  },
  {
    name: 'list-type map: duplicate key',
    schema: spec({
      m: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'integer' } } },
      },
    }),
    obj: { spec: { m: [{ name: 'a', v: 1 }, { name: 'b' }, { name: 'a', v: 2 }] } },
    errs: ['spec.m[2]: Duplicate value: map[string]interface {}{"name":"a"}'],
  },
  {
    name: 'list-type map: missing key',
    schema: spec({
      m: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'integer' } } },
      },
    }),
    obj: { spec: { m: [{ v: 1 }, { v: 2 }] } },
    errs: ['spec.m[1]: Duplicate value: map[string]interface {}{}'],
  },
  {
    name: 'list-type map: several keys',
    schema: spec({
      m: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
        items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } },
      },
    }),
    obj: {
      spec: {
        m: [
          { port: 80, protocol: 'TCP' },
          { port: 80, protocol: 'UDP' },
          { protocol: 'TCP', port: 80 },
        ],
      },
    },
    errs: ['spec.m[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}'],
  },
  {
    name: 'list-type map: items must be objects',
    schema: spec({
      m: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' } } },
      },
    }),
    obj: { spec: { m: [{ name: 'a' }, 'x', 'y'] } },
    errs: [
      'spec.m[1]: Invalid value: "string": spec.m[1] in body must be of type object: "string"',
      'spec.m[2]: Invalid value: "string": spec.m[2] in body must be of type object: "string"',
      'spec.m[1]: Invalid value: "x": must be an object for an array of list-type map',
    ],
  },
  {
    name: 'list types under a map use key paths',
    schema: spec({
      byName: {
        type: 'object',
        additionalProperties: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } },
      },
    }),
    obj: { spec: { byName: { web: [1, 1] } } },
    errs: ['spec.byName[web][1]: Duplicate value: 1'],
  },
  {
    name: 'list-type atomic allows duplicates',
    schema: spec({ s: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } } }),
    obj: { spec: { s: ['a', 'a'] } },
    errs: [],
  },

  // --- x-kubernetes-embedded-resource
  {
    name: 'embedded resource: apiVersion and kind required',
    schema: spec({
      template: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      },
    }),
    obj: { spec: { template: { metadata: { name: 'x' } } } },
    errs: ['spec.template.apiVersion: Required value', 'spec.template.kind: Required value'],
  },
  {
    name: 'embedded resource: bad apiVersion, kind and metadata',
    schema: spec({
      template: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      },
    }),
    obj: {
      spec: {
        template: { apiVersion: 'a/b/c', kind: 'My_Kind', metadata: { name: 'a/b', labels: { 'bad key!': 'v' } } },
      },
    },
    errs: [
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "spec.template.kind: Invalid value: \"My_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      'spec.template.metadata.name: Invalid value: "a/b": may not contain \'/\'',
      "spec.template.metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
  },
  {
    name: 'embedded resource: kind and apiVersion must be strings',
    schema: spec({
      template: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      },
    }),
    obj: { spec: { template: { apiVersion: 1, kind: '' } } },
    errs: [
      'spec.template.apiVersion: Invalid value: 1: must be a string',
      'spec.template.kind: Invalid value: "": must not be empty',
    ],
  },
  {
    name: 'embedded resource: a valid object, name optional',
    schema: spec({
      template: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
      },
    }),
    obj: {
      spec: { template: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { labels: { app: 'x' } }, spec: {} } },
    },
    errs: [],
  },
  {
    name: 'embedded resources in a list',
    schema: spec({
      objs: {
        type: 'array',
        items: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    }),
    obj: { spec: { objs: [{ apiVersion: 'v1', kind: 'Pod' }, { apiVersion: 'v1' }] } },
    errs: ['spec.objs[1].kind: Required value'],
  },
  {
    name: 'schema errors come before embedded and list-type errors',
    schema: spec({
      t: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      n: { type: 'integer' },
    }),
    obj: { spec: { s: ['a', 'a'], t: {}, n: 'x' } },
    errs: [
      'spec.n: Invalid value: "string": spec.n in body must be of type integer: "string"',
      'spec.t.apiVersion: Required value',
      'spec.t.kind: Required value',
      'spec.s[1]: Duplicate value: "a"',
    ],
  },
];

describe('compileSchema().validate: kube-apiserver texts', () => {
  it.each(cases)('$name', ({ schema, obj, errs, floats }) => {
    expect(run(schema, obj, floats)).toEqual(errs);
  });

  it('returns FieldErrors with kube types', () => {
    const errs = compileSchema(cacheSchema).validate({ spec: { size: 99, engine: 'x', maxSize: 'y' } });
    expect(errs.map((e) => [e.type, e.field])).toEqual([
      ['FieldValueInvalid', 'spec.size'],
      ['FieldValueNotSupported', 'spec.engine'],
      ['FieldValueTypeInvalid', 'spec.maxSize'],
    ]);
    expect(compileSchema(cacheSchema).validate({ spec: {} })[0]).toEqual({
      type: 'FieldValueRequired',
      field: 'spec.size',
      detail: '',
    });
  });

  it('compiles once and validates many objects', () => {
    const c = compileSchema(cacheSchema);
    for (let size = 1; size <= 9; size++) expect(c.validate({ spec: { size } })).toEqual([]);
    expect(c.validate({ spec: { size: 10 } })).toHaveLength(1);
  });

  // Patterns run on RE2 (re2js), as kube's on Go's regexp: no backtracking, so `^(a+)+$` over a
  // long non-match is one linear scan. That it is RE2 shows in what it refuses: backreferences and
  // lookaheads, which only a backtracking engine has, are invalid patterns with Go's texts.
  it('never backtracks catastrophically on a pattern: patterns are RE2, without backreferences or lookarounds', () => {
    const c = compileSchema(spec({ s: { type: 'string', pattern: '^(a+)+$' } }));
    expect(
      run(spec({ s: { type: 'string', pattern: '^(a+)+$' } }), { spec: { s: `${'a'.repeat(50_000)}!` } }),
    ).toHaveLength(1);
    expect(c.validate({ spec: { s: 'aaaa' } })).toEqual([]);
    const refused = (pattern: string, value: string, why: string): string =>
      `spec.s: Invalid value: "${value}": spec.s in body should match '${pattern}, but pattern is invalid: error parsing regexp: ${why}'`;
    const backreference = String.raw`^(a+)\1$`;
    expect(run(spec({ s: { type: 'string', pattern: backreference } }), { spec: { s: 'aa' } })).toEqual([
      refused(backreference, 'aa', String.raw`invalid escape sequence: ${'`'}\1${'`'}`),
    ]);
    expect(run(spec({ s: { type: 'string', pattern: '^(?=a)a$' } }), { spec: { s: 'a' } })).toEqual([
      refused('^(?=a)a$', 'a', 'invalid or unsupported Perl syntax: `(?=`'),
    ]);
  });
});

describe('formats', () => {
  it('knows kube supported set and strips the rest', () => {
    for (const f of ['int32', 'int64', 'float', 'double', 'int-or-string', 'binary', 'nope'])
      expect(formatCheck(f)).toBeUndefined();
    for (const f of ['date-time', 'datetime', 'uuid', 'byte', 'k8s-short-name']) expect(formatCheck(f)).toBeDefined();
  });

  it.each([
    [
      'uri',
      ['http://a.b/c#d', 'mailto:x@y', '/absolute/path', 'http://[::1]:80/', 'urn:isbn:0451450523'],
      ['', 'relative/path', 'http://a b/', 'http://%zz/', 'http://host:port/'],
    ],
    [
      'email',
      ['a@b', '"quoted local"@example.com', 'x <y@z>', 'a@[127.0.0.1]'],
      ['a', 'a@', '@b', 'a@b@c', 'a..b@c', 'x <y@z'],
    ],
    [
      'hostname',
      ['localhost', 'a-b.example', 'xn--bcher-kva.example', 'ünïcödé.com'],
      ['a_b.com', 'a.b.c.1', `${'a'.repeat(64)}.com`],
    ],
    ['ipv4', ['0.0.0.0', '255.255.255.255', '::ffff:1.2.3.4'], ['256.1.1.1', '1.2.3.4.5', 'a.b.c.d']],
    [
      'ipv6',
      ['::', 'fe80::1', '::ffff:1.2.3.4', '1:2:3:4:5:6:7:8'],
      ['1:2:3:4:5:6:7:8:9', '::1%eth0', '00000::1', '1::2::3'],
    ],
    ['cidr', ['::/0', '192.168.0.0/016', '2001:db8::/32'], ['1.2.3.4', '1.2.3.4/', '::/129']],
    [
      'mac',
      ['02:00:5e:10:00:00:00:01', '0000.5e00.5301'],
      ['00:00:5e:00:53', '00:00-5e:00:53:01', 'zz:00:5e:00:53:01'],
    ],
    [
      'duration',
      ['0', '-1.5h', '300ms', '2 weeks', '1 hour 5 min', '5µs', '1d'],
      ['', '1', 'h', '1x', '99999999999999999999 days'],
    ],
    [
      'date-time',
      ['2015-01-02T03:04:05Z', '2015-01-02t03:04:05.123456+01:00', '2015-01-02T03:04:05Zt'],
      ['2015-01-02', '2015-01-02T24:00:00Z', '2015-01-02T03:04:05', '2015-01-02 03:04:05Z'],
    ],
    ['date', ['2000-02-29', '0000-01-01'], ['1900-02-29', '2000-1-01', '2000-01-01T00:00:00Z']],
    ['byte', ['YWJj', 'YWI=', 'YQ=='], ['', 'YWJ', 'Y===', 'YWJj\n']],
  ] as const)('%s', (format, good, bad) => {
    const check = formatCheck(format)!;
    for (const s of good) expect([s, check(s)]).toEqual([s, true]);
    for (const s of bad) expect([s, check(s)]).toEqual([s, false]);
  });
});

describe('ratcheting (validateUpdate)', () => {
  const schema = spec(
    {
      size: { type: 'integer', maximum: 9 },
      name: { type: 'string', maxLength: 3 },
      opts: {
        type: 'object',
        required: ['mode'],
        properties: { mode: { type: 'string' }, level: { type: 'integer' } },
      },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 65535 } } },
      },
      tags: { type: 'array', items: { type: 'string', maxLength: 2 } },
      set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 2 } },
      labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 2 } },
      extra: {
        type: 'object',
        required: ['a'],
        properties: { a: { type: 'string' } },
        'x-kubernetes-preserve-unknown-fields': true,
      },
    },
    { required: ['size'] },
  );
  const c = compileSchema(schema);
  const upd = (obj: unknown, old: unknown): string[] => c.validateUpdate(obj, old).map(formatFieldError);

  it('keeps an invalid value that did not change', () => {
    expect(upd({ spec: { size: 99, name: 'ok' } }, { spec: { size: 99, name: 'a' } })).toEqual([]);
  });
  it('rejects an invalid value that changed', () => {
    expect(upd({ spec: { size: 98 } }, { spec: { size: 99 } })).toEqual([
      'spec.size: Invalid value: 98: spec.size in body should be less than or equal to 9',
    ]);
  });
  it('rejects a newly added invalid value', () => {
    expect(upd({ spec: { size: 1, name: 'long' } }, { spec: { size: 1 } })).toEqual([
      'spec.name: Too long: may not be more than 3 bytes',
    ]);
  });
  it('validates everything on an identical object... and drops it all', () => {
    const obj = { spec: { size: 99, name: 'long' } };
    expect(upd(obj, structuredClone(obj))).toEqual([]);
    expect(c.validate(obj)).toHaveLength(2);
  });
  it('drops errors of an unchanged object (a missing required field)', () => {
    expect(upd({ spec: { size: 1, opts: { level: 1 } } }, { spec: { size: 2, opts: { level: 1 } } })).toEqual([]);
    expect(upd({ spec: { size: 1, opts: { level: 2 } } }, { spec: { size: 2, opts: { level: 1 } } })).toEqual([
      'spec.opts.mode: Required value',
    ]);
  });
  it('correlates map-type list items by key, whatever their order', () => {
    const old = { spec: { size: 1, ports: [{ name: 'a', port: 99999 }] } };
    expect(
      upd(
        {
          spec: {
            size: 1,
            ports: [
              { name: 'b', port: 80 },
              { name: 'a', port: 99999 },
            ],
          },
        },
        old,
      ),
    ).toEqual([]);
    expect(upd({ spec: { size: 1, ports: [{ name: 'a', port: 99998 }] } }, old)).toEqual([
      'spec.ports[0].port: Invalid value: 99998: spec.ports[0].port in body should be less than or equal to 65535',
    ]);
  });
  it('does not correlate atomic list items', () => {
    expect(upd({ spec: { size: 1, tags: ['long', 'ok'] } }, { spec: { size: 1, tags: ['long'] } })).toEqual([
      'spec.tags[0]: Too long: may not be more than 2 bytes',
    ]);
    expect(upd({ spec: { size: 2, tags: ['long'] } }, { spec: { size: 1, tags: ['long'] } })).toEqual([]);
  });
  it('does not correlate set items', () => {
    expect(upd({ spec: { size: 1, set: ['long', 'ok'] } }, { spec: { size: 1, set: ['long'] } })).toEqual([
      'spec.set[0]: Too long: may not be more than 2 bytes',
    ]);
  });
  it('correlates map values by key', () => {
    expect(
      upd({ spec: { size: 1, labels: { a: 'long', b: 'x' } } }, { spec: { size: 1, labels: { a: 'long' } } }),
    ).toEqual([]);
    expect(
      upd({ spec: { size: 1, labels: { a: 'long', b: 'xyz' } } }, { spec: { size: 1, labels: { a: 'long' } } }),
    ).toEqual(['spec.labels.b: Too long: may not be more than 2 bytes']);
  });
  it('an unknown (preserved) field makes its object unequal to the old one, as in kube', () => {
    const old = { spec: { size: 1, extra: { x: 1 } } };
    expect(upd({ spec: { size: 2, extra: { x: 1 } } }, old)).toEqual(['spec.extra.a: Required value']);
  });
  it('does not ratchet kind and apiVersion at the root', () => {
    const rc = compileSchema({
      type: 'object',
      properties: { kind: { type: 'string', maxLength: 3 }, spec: { type: 'object' } },
    });
    expect(
      rc
        .validateUpdate({ kind: 'LongKind', spec: { a: 2 } }, { kind: 'LongKind', spec: { a: 1 } })
        .map(formatFieldError),
    ).toEqual(['kind: Too long: may not be more than 3 bytes']);
  });
  it('skips list-type checks when the old object already failed them', () => {
    const ls = compileSchema(
      spec({ s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }),
    );
    expect(ls.validateUpdate({ spec: { s: ['a', 'a', 'b', 'b'] } }, { spec: { s: ['a', 'a'] } })).toEqual([]);
    expect(ls.validateUpdate({ spec: { s: ['b', 'b'] } }, { spec: { s: ['a'] } }).map(formatFieldError)).toEqual([
      'spec.s[1]: Duplicate value: "b"',
    ]);
  });
  it('validates embedded resources without ratcheting', () => {
    const es = compileSchema(
      spec({
        t: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      }),
    );
    const obj = { spec: { t: { kind: 'X' } } };
    expect(es.validateUpdate(obj, structuredClone(obj)).map(formatFieldError)).toEqual([
      'spec.t.apiVersion: Required value',
    ]);
  });
  it('ratchets inside oneOf branches', () => {
    const oc = compileSchema(
      spec(
        { a: { type: 'string', maxLength: 1 }, b: { type: 'string' }, n: { type: 'integer' } },
        { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
      ),
    );
    expect(oc.validateUpdate({ spec: { a: 'xx', n: 2 } }, { spec: { a: 'xx', n: 1 } })).toEqual([]);
  });
});

describe('properties', () => {
  const schemas: JSONSchemaProps[] = [
    cacheSchema,
    spec(
      {
        a: {
          'x-kubernetes-int-or-string': true,
          anyOf: [
            { type: 'integer', minimum: 0 },
            { type: 'string', pattern: '^[0-9]+%$' },
          ],
        },
        l: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k', 'j'],
          items: { type: 'object', properties: { k: { type: 'string' }, j: { type: 'integer' } } },
        },
        s: {
          type: 'array',
          'x-kubernetes-list-type': 'set',
          items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
        m: {
          type: 'object',
          maxProperties: 3,
          additionalProperties: { type: 'string', format: 'date-time', enum: ['x', 1, { a: null }] },
        },
        e: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { metadata: { type: 'object' } },
        },
        n: { type: 'number', multipleOf: 0.5, minimum: -1, maximum: 1e6, exclusiveMaximum: true, nullable: true },
      },
      { oneOf: [{ required: ['a'] }, { required: ['n'] }], not: { required: ['zz'] } },
    ),
    {
      type: 'object',
      minProperties: 1,
      maxProperties: 2,
      additionalProperties: false,
      properties: { a: { type: 'string', format: 'email' } },
      required: ['a'],
    },
  ];
  const json = fc.jsonValue({ maxDepth: 4 });
  const objectish = fc.oneof(
    json,
    fc.record({
      spec: fc.oneof(json, fc.dictionary(fc.constantFrom('a', 'l', 's', 'm', 'e', 'n', 'size', 'engine', 'x'), json)),
    }),
  );

  it('validate never throws and returns printable field errors', () => {
    for (const schema of schemas) {
      const c = compileSchema(schema);
      fc.assert(
        fc.property(objectish, (obj) => {
          const errs = c.validate(obj);
          for (const e of errs) expect(typeof formatFieldError(e)).toBe('string');
        }),
        { numRuns: 300 },
      );
    }
  });

  it('validateUpdate never throws and reports no more than validate', () => {
    for (const schema of schemas) {
      const c = compileSchema(schema);
      fc.assert(
        fc.property(objectish, objectish, (obj, old) => {
          const all = new Set(c.validate(obj).map(formatFieldError));
          for (const e of c.validateUpdate(obj, old)) expect(all.has(formatFieldError(e))).toBe(true);
        }),
        { numRuns: 200 },
      );
    }
  });

  it('an unchanged spec never fails an update on its own values', () => {
    const c = compileSchema(
      spec({
        a: {
          'x-kubernetes-int-or-string': true,
          anyOf: [
            { type: 'integer', minimum: 0 },
            { type: 'string', pattern: '^[0-9]+%$' },
          ],
        },
        n: { type: 'number', multipleOf: 0.5, maximum: 10, nullable: true },
        t: { type: 'array', maxItems: 1, items: { type: 'string', maxLength: 1 } },
        m: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string', format: 'uuid', enum: ['x'] } },
      }),
    );
    const leaf = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string()),
    );
    const specValue = fc.record(
      { a: leaf, n: leaf, t: leaf, m: fc.oneof(leaf, fc.dictionary(fc.string(), leaf)) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(specValue, (value) => {
        const old = { spec: value, metadata: { generation: 1 } };
        const obj = { spec: structuredClone(value), metadata: { generation: 2 } };
        expect(c.validateUpdate(obj, old).map(formatFieldError)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
