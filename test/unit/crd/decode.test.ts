// A CRD's schemas decoded as kube's decoder reads them into apiextensions/v1's Go types: every
// JSONSchemaProps field given every JSON type, at depth.
import { describe, expect, it } from 'vitest';
import { decodeCRDSchemas } from '../../../crd/decode.js';
import { FloatLiterals } from '../../../apimachinery/float-literals.js';
import { simpleCrd } from '../../helpers/crds.js';

/** A CRD whose `spec.properties.list` schema is `{type: array, ...extra}`. */
const crdWith = (extra: Record<string, unknown>): Record<string, unknown> =>
  simpleCrd('example.com', 'lists', {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'true' }],
        properties: { list: { type: 'array', ...extra } },
      },
    },
  });
const listOf = (crd: Record<string, unknown>): Record<string, unknown> =>
  (crd as any).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.list;

const AT = 'JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.properties';
const typeError = (kind: string, field: string, go: string, struct = AT): string =>
  `json: cannot unmarshal ${kind} into Go struct field ${struct}.${field} of type ${go}`;

/** Each field's Go type (types_jsonschema.go) and the JSON types it takes. */
const FIELDS: [string, string, string[]][] = [
  ['id', 'string', ['string']],
  ['$schema', 'v1.JSONSchemaURL', ['string']],
  ['$ref', 'string', ['string']],
  ['description', 'string', ['string']],
  ['type', 'string', ['string']],
  ['format', 'string', ['string']],
  ['title', 'string', ['string']],
  ['default', 'v1.JSON', ['number', 'string', 'bool', 'object', 'array']],
  ['maximum', 'float64', ['number']],
  ['exclusiveMaximum', 'bool', ['bool']],
  ['minimum', 'float64', ['number']],
  ['exclusiveMinimum', 'bool', ['bool']],
  ['maxLength', 'int64', ['number']],
  ['minLength', 'int64', ['number']],
  ['pattern', 'string', ['string']],
  ['maxItems', 'int64', ['number']],
  ['minItems', 'int64', ['number']],
  ['uniqueItems', 'bool', ['bool']],
  ['multipleOf', 'float64', ['number']],
  ['enum', '[]v1.JSON', ['array']],
  ['maxProperties', 'int64', ['number']],
  ['minProperties', 'int64', ['number']],
  ['required', '[]string', ['array']],
  ['allOf', '[]v1.JSONSchemaProps', ['array']],
  ['oneOf', '[]v1.JSONSchemaProps', ['array']],
  ['anyOf', '[]v1.JSONSchemaProps', ['array']],
  ['not', 'v1.JSONSchemaProps', ['object']],
  ['properties', 'map[string]v1.JSONSchemaProps', ['object']],
  ['patternProperties', 'map[string]v1.JSONSchemaProps', ['object']],
  ['dependencies', 'v1.JSONSchemaDependencies', ['object']],
  ['definitions', 'v1.JSONSchemaDefinitions', ['object']],
  ['externalDocs', 'v1.ExternalDocumentation', ['object']],
  ['example', 'v1.JSON', ['number', 'string', 'bool', 'object', 'array']],
  ['nullable', 'bool', ['bool']],
  ['x-kubernetes-preserve-unknown-fields', 'bool', ['bool']],
  ['x-kubernetes-embedded-resource', 'bool', ['bool']],
  ['x-kubernetes-int-or-string', 'bool', ['bool']],
  ['x-kubernetes-list-map-keys', '[]string', ['array']],
  ['x-kubernetes-list-type', 'string', ['string']],
  ['x-kubernetes-map-type', 'string', ['string']],
  ['x-kubernetes-validations', 'v1.ValidationRules', ['array']],
];
const VALUES: [string, unknown][] = [
  ['number', 5],
  ['string', 'x'],
  ['bool', true],
  ['object', {}],
  ['array', []],
];

describe('each JSONSchemaProps field with each JSON type', () => {
  for (const [field, go, takes] of FIELDS) {
    it(field, () => {
      for (const [kind, value] of VALUES) {
        const crd = crdWith({ [field]: structuredClone(value) });
        const error = decodeCRDSchemas(crd);
        if (takes.includes(kind)) expect(error, `${field}: ${kind}`).toBeUndefined();
        else expect(error, `${field}: ${kind}`).toBe(typeError(kind, field, go));
      }
      // null is the Go zero value: the field is absent.
      const crd = crdWith({ [field]: null });
      expect(decodeCRDSchemas(crd)).toBeUndefined();
      expect(listOf(crd)).not.toHaveProperty(field);
    });
  }

  it('items (JSONSchemaPropsOrArray): what is neither a schema nor a list is quietly nothing', () => {
    for (const value of [5, 'x', true, false, null]) {
      const crd = crdWith({ items: value });
      expect(decodeCRDSchemas(crd)).toBeUndefined();
      expect(listOf(crd)).toEqual({ type: 'array' });
    }
    expect(decodeCRDSchemas(crdWith({ items: {} }))).toBeUndefined();
    expect(decodeCRDSchemas(crdWith({ items: [{}] }))).toBeUndefined();
  });

  it('additionalProperties and additionalItems (JSONSchemaPropsOrBool): their own error for anything but a bool or a schema', () => {
    for (const field of ['additionalProperties', 'additionalItems']) {
      for (const value of [5, 'x', []])
        expect(decodeCRDSchemas(crdWith({ [field]: value }))).toBe('boolean or JSON schema expected');
      for (const value of [true, false, {}]) expect(decodeCRDSchemas(crdWith({ [field]: value }))).toBeUndefined();
      const crd = crdWith({ [field]: null });
      expect(decodeCRDSchemas(crd)).toBeUndefined();
      expect(listOf(crd)).not.toHaveProperty(field);
    }
  });
});

describe('at depth', () => {
  it("inside a custom unmarshaler's schema: the Go type is the inner one, the path ends at the outer field", () => {
    expect(decodeCRDSchemas(crdWith({ items: { type: 5 } }))).toBe(typeError('number', 'items', 'string'));
    expect(decodeCRDSchemas(crdWith({ items: [5] }))).toBe(typeError('number', 'items', 'v1.JSONSchemaProps'));
    expect(decodeCRDSchemas(crdWith({ items: { items: { required: 'x' } } }))).toBe(
      typeError('string', 'items', '[]string'),
    );
    expect(decodeCRDSchemas(crdWith({ additionalProperties: { 'x-kubernetes-validations': 5 } }))).toBe(
      typeError('number', 'additionalProperties', 'v1.ValidationRules'),
    );
    expect(decodeCRDSchemas(crdWith({ dependencies: { a: { type: true } } }))).toBe(
      typeError('bool', 'dependencies', 'string'),
    );
    expect(decodeCRDSchemas(crdWith({ items: { additionalProperties: 5 } }))).toBe('boolean or JSON schema expected');
  });

  it('map keys are not in the path; a nested struct names itself', () => {
    expect(decodeCRDSchemas(crdWith({ properties: { a: { properties: { b: { type: 5 } } } } }))).toBe(
      typeError('number', 'properties.properties.type', 'string'),
    );
    expect(decodeCRDSchemas(crdWith({ properties: { a: 5 } }))).toBe(
      typeError('number', 'properties', 'v1.JSONSchemaProps'),
    );
    expect(decodeCRDSchemas(crdWith({ allOf: [{ not: 'x' }] }))).toBe(
      typeError('string', 'allOf.not', 'v1.JSONSchemaProps'),
    );
    expect(decodeCRDSchemas(crdWith({ 'x-kubernetes-validations': [{ rule: 5 }] }))).toBe(
      typeError('number', 'x-kubernetes-validations.rule', 'string', AT.replace('JSONSchemaProps', 'ValidationRule')),
    );
    expect(decodeCRDSchemas(crdWith({ 'x-kubernetes-validations': [{ rule: 'true', reason: 1 }] }))).toBe(
      typeError(
        'number',
        'x-kubernetes-validations.reason',
        'v1.FieldValueErrorReason',
        AT.replace('JSONSchemaProps', 'ValidationRule'),
      ),
    );
    expect(decodeCRDSchemas(crdWith({ externalDocs: { url: [] } }))).toBe(
      typeError('array', 'externalDocs.url', 'string', AT.replace('JSONSchemaProps', 'ExternalDocumentation')),
    );
    expect(decodeCRDSchemas(crdWith({ required: ['a', 5] }))).toBe(typeError('number', 'required', 'string'));
    expect(decodeCRDSchemas(crdWith({ dependencies: { a: ['b', 5] } }))).toBe(
      typeError('number', 'dependencies', 'string'),
    );
  });

  it('the schema and openAPIV3Schema fields themselves', () => {
    const crd = crdWith({});
    const version = (crd as any).spec.versions[0];
    version.schema = 5;
    expect(decodeCRDSchemas(crd)).toBe(
      'json: cannot unmarshal number into Go struct field CustomResourceDefinitionVersion.spec.versions.schema of type v1.CustomResourceValidation',
    );
    version.schema = { openAPIV3Schema: 'x' };
    expect(decodeCRDSchemas(crd)).toBe(
      'json: cannot unmarshal string into Go struct field CustomResourceValidation.spec.versions.schema.openAPIV3Schema of type v1.JSONSchemaProps',
    );
    version.schema = null;
    expect(decodeCRDSchemas(crd)).toBeUndefined();
    expect(version).not.toHaveProperty('schema');
  });

  it('an int64 takes whole numbers only', () => {
    expect(decodeCRDSchemas(crdWith({ maxLength: 1.5 }))).toBe(typeError('number 1.5', 'maxLength', 'int64'));
    expect(decodeCRDSchemas(crdWith({ maxLength: 2n ** 63n }))).toBe(
      typeError(`number ${2n ** 63n}`, 'maxLength', 'int64'),
    );
    expect(decodeCRDSchemas(crdWith({ maxLength: -(2n ** 63n), minLength: 3 }))).toBeUndefined();
    // A float literal, integral or not (the body's `1.0`): the text Go would quote is not kept.
    const at = (field: string) => `spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.list.${field}`;
    const floats = FloatLiterals.fromPaths([at('maxLength'), at('maximum')]);
    expect(decodeCRDSchemas(crdWith({ maxLength: 1, maximum: 1 }), floats)).toBe(
      typeError('number 1', 'maxLength', 'int64'),
    );
    expect(decodeCRDSchemas(crdWith({ maxLength: 1, maximum: 1 }))).toBeUndefined();
  });

  it("the first type error in the document is kept; an unmarshaler's error ends the decode and wins", () => {
    expect(decodeCRDSchemas(crdWith({ format: 5, title: true }))).toBe(typeError('number', 'format', 'string'));
    expect(decodeCRDSchemas(crdWith({ format: 5, additionalProperties: 5 }))).toBe('boolean or JSON schema expected');
    expect(decodeCRDSchemas(crdWith({ format: 5, items: { type: true } }))).toBe(typeError('bool', 'items', 'string'));
  });

  it("null in a list or map is the element's zero value", () => {
    const crd = crdWith({
      allOf: [null],
      required: [null],
      enum: [null],
      properties: { a: null },
      dependencies: { a: null },
    });
    expect(decodeCRDSchemas(crd)).toBeUndefined();
    expect(listOf(crd)).toMatchObject({
      allOf: [{}],
      required: [''],
      enum: [null],
      properties: { a: {} },
      dependencies: { a: null },
    });
  });
});

describe('random wrong-typed schemas', () => {
  const WRONG: unknown[] = [5, 1.5, 'x', true, false, null, {}, [], [5], [null], { type: 5 }, [{ items: 'x' }]];
  const FIELD_NAMES = FIELDS.map(([f]) => f).concat(['items', 'additionalProperties', 'additionalItems']);
  /** A deterministic PRNG: the same cases every run. */
  function* random(seed: number): Generator<number> {
    let s = seed;
    for (;;) {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      yield s / 2 ** 31;
    }
  }

  it('decode either answers a Go error or leaves every field of its Go type', () => {
    const rnd = random(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd.next().value! * xs.length)]!;
    for (let i = 0; i < 2000; i++) {
      const extra: Record<string, unknown> = {};
      for (let j = 0; j < 3; j++) extra[pick(FIELD_NAMES)] = structuredClone(pick(WRONG));
      const crd = crdWith({ items: { properties: { x: extra } } });
      const error = decodeCRDSchemas(crd);
      if (error !== undefined)
        expect(error).toMatch(/^(json: cannot unmarshal .+ of type .+|boolean or JSON schema expected)$/);
      else expect(decodeCRDSchemas(structuredClone(crd))).toBeUndefined();
    }
  });
});
