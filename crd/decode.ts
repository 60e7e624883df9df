// A CRD's schemas as kube's decoder (sigs.k8s.io/json, a fork of encoding/json) reads them into
// apiextensions/v1's Go types: a value of the wrong JSON type fails the request before anything
// validates it, null is the Go zero value, and JSONSchemaPropsOr{Array,Bool,StringArray}'s own
// UnmarshalJSON ignores or refuses what they do not take. The walk leaves each schema as Go would
// hold it, so validation and CEL only ever see well-typed schemas.
import { jsonKind } from '../apimachinery/json.js';
import { isJsonObject } from '../apimachinery/object.js';
import { type DPath, dchild, dindex, FLOAT, type FloatLiterals } from '../apimachinery/float-literals.js';

/** The Go type a JSON value decodes into; `go` is its reflect String(). */
type GoType =
  | { k: 'string' | 'bool' | 'int64' | 'float64'; go: string }
  /** v1.JSON: any value; null is an empty Raw. */
  | { k: 'json' }
  | { k: 'slice' | 'map'; go: string; elem: GoType }
  | { k: 'struct'; go: string; name: string; fields: () => Record<string, GoType> }
  /** The custom unmarshalers of marshal.go. */
  | { k: 'orArray' | 'orBool' | 'orStringArray' };

const str = (go = 'string'): GoType => ({ k: 'string', go });
const BOOL: GoType = { k: 'bool', go: 'bool' };
const INT64: GoType = { k: 'int64', go: 'int64' };
const FLOAT64: GoType = { k: 'float64', go: 'float64' };
const JSON_VALUE: GoType = { k: 'json' };

const VALIDATION_RULE: GoType = {
  k: 'struct',
  go: 'v1.ValidationRule',
  name: 'ValidationRule',
  fields: () => ({
    rule: str(),
    message: str(),
    messageExpression: str(),
    reason: str('v1.FieldValueErrorReason'),
    fieldPath: str(),
    optionalOldSelf: BOOL,
  }),
};

const EXTERNAL_DOCUMENTATION: GoType = {
  k: 'struct',
  go: 'v1.ExternalDocumentation',
  name: 'ExternalDocumentation',
  fields: () => ({ description: str(), url: str() }),
};

/** JSONSchemaProps' fields, from types_jsonschema.go (a pointer field decodes as its element). */
const JSON_SCHEMA_PROPS: GoType = {
  k: 'struct',
  go: 'v1.JSONSchemaProps',
  name: 'JSONSchemaProps',
  fields: () => SCHEMA_FIELDS,
};
const SCHEMA_MAP: GoType = { k: 'map', go: 'map[string]v1.JSONSchemaProps', elem: JSON_SCHEMA_PROPS };
const SCHEMA_SLICE: GoType = { k: 'slice', go: '[]v1.JSONSchemaProps', elem: JSON_SCHEMA_PROPS };
const STRING_SLICE: GoType = { k: 'slice', go: '[]string', elem: str() };
const SCHEMA_FIELDS: Record<string, GoType> = {
  id: str(),
  $schema: str('v1.JSONSchemaURL'),
  $ref: str(),
  description: str(),
  type: str(),
  format: str(),
  title: str(),
  default: JSON_VALUE,
  maximum: FLOAT64,
  exclusiveMaximum: BOOL,
  minimum: FLOAT64,
  exclusiveMinimum: BOOL,
  maxLength: INT64,
  minLength: INT64,
  pattern: str(),
  maxItems: INT64,
  minItems: INT64,
  uniqueItems: BOOL,
  multipleOf: FLOAT64,
  enum: { k: 'slice', go: '[]v1.JSON', elem: JSON_VALUE },
  maxProperties: INT64,
  minProperties: INT64,
  required: STRING_SLICE,
  items: { k: 'orArray' },
  allOf: SCHEMA_SLICE,
  oneOf: SCHEMA_SLICE,
  anyOf: SCHEMA_SLICE,
  not: JSON_SCHEMA_PROPS,
  properties: SCHEMA_MAP,
  additionalProperties: { k: 'orBool' },
  patternProperties: SCHEMA_MAP,
  dependencies: { k: 'map', go: 'v1.JSONSchemaDependencies', elem: { k: 'orStringArray' } },
  additionalItems: { k: 'orBool' },
  definitions: { ...SCHEMA_MAP, go: 'v1.JSONSchemaDefinitions' },
  externalDocs: EXTERNAL_DOCUMENTATION,
  example: JSON_VALUE,
  nullable: BOOL,
  'x-kubernetes-preserve-unknown-fields': BOOL,
  'x-kubernetes-embedded-resource': BOOL,
  'x-kubernetes-int-or-string': BOOL,
  'x-kubernetes-list-map-keys': STRING_SLICE,
  'x-kubernetes-list-type': str(),
  'x-kubernetes-map-type': str(),
  'x-kubernetes-validations': { k: 'slice', go: 'v1.ValidationRules', elem: VALIDATION_RULE },
};

const CUSTOM_RESOURCE_VALIDATION: GoType = {
  k: 'struct',
  go: 'v1.CustomResourceValidation',
  name: 'CustomResourceValidation',
  fields: () => ({ openAPIV3Schema: JSON_SCHEMA_PROPS }),
};

/** Go's UnmarshalTypeError, or an unmarshaler's own error (`text`). */
type DecodeError = { value: string; go: string; struct: string; field: string } | { text: string };

const formatError = (e: DecodeError): string =>
  'text' in e
    ? e.text
    : e.struct || e.field
      ? `json: cannot unmarshal ${e.value} into Go struct field ${e.struct}.${e.field} of type ${e.go}`
      : `json: cannot unmarshal ${e.value} into Go value of type ${e.go}`;

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

const fitsInt64 = (v: number | bigint): boolean =>
  typeof v === 'bigint' ? v >= MIN_INT64 && v <= MAX_INT64 : Number.isInteger(v) && Math.abs(v) < 2 ** 63;

/** An error that ends a decode: a custom unmarshaler's, or one a nested json.Unmarshal returned. */
class Abort {
  constructor(readonly error: DecodeError) {}
}

/**
 * One json.Unmarshal: the first type error is kept and decoding goes on (saveError); an error from
 * a custom unmarshaler ends it, and wins over a kept one.
 */
class Decoder {
  saved: DecodeError | undefined;
  /** errorContext: the struct being decoded, and the struct fields (not map keys) down to here. */
  private struct: string;
  private readonly stack: string[];

  constructor(struct = '', stack: string[] = []) {
    this.struct = struct;
    this.stack = stack;
  }

  /** addErrorContext: this decoder's context replaces whatever a nested decoder's error had. */
  private withContext(e: DecodeError): DecodeError {
    if ('text' in e || (!this.struct && this.stack.length === 0)) return e;
    return { ...e, struct: this.struct, field: this.stack.join('.') };
  }

  private save(value: string, go: string): void {
    this.saved ??= this.withContext({ value, go, struct: '', field: '' });
  }

  /**
   * Decodes `v` into `t`: the value Go would hold, undefined for an omitempty field's zero value.
   * `d` is its place among the body's float literals.
   */
  value(v: unknown, t: GoType, d: DPath): unknown {
    switch (t.k) {
      case 'json':
        // A pointer field (default, example): null is nil. An enum's null element stays (elem).
        return v ?? undefined;
      case 'orArray':
      case 'orStringArray':
        // Anything but an object or array is quietly nothing.
        if (isJsonObject(v)) return this.nested(v, JSON_SCHEMA_PROPS, d);
        if (Array.isArray(v)) return this.nested(v, t.k === 'orArray' ? SCHEMA_SLICE : STRING_SLICE, d);
        return t.k === 'orArray' ? undefined : null;
      case 'orBool':
        // The field is a pointer: null sets it to nil before the unmarshaler is asked.
        if (v === null) return undefined;
        if (typeof v === 'boolean') return v;
        if (isJsonObject(v)) return this.nested(v, JSON_SCHEMA_PROPS, d);
        throw new Abort({ text: 'boolean or JSON schema expected' });
    }
    if (v === null) return undefined;
    switch (t.k) {
      case 'string':
        if (typeof v !== 'string') this.save(jsonKind(v), t.go);
        return v;
      case 'bool':
        if (typeof v !== 'boolean') this.save(jsonKind(v), t.go);
        return v;
      case 'float64':
        if (typeof v !== 'number' && typeof v !== 'bigint') this.save(jsonKind(v), t.go);
        return v;
      case 'int64':
        if (typeof v !== 'number' && typeof v !== 'bigint') this.save(jsonKind(v), t.go);
        // Go names the literal as written (`1.0`, `1e3`); its text is gone, its value is not.
        else if (d === FLOAT || !fitsInt64(v)) this.save(`number ${String(v)}`, t.go);
        return v;
      case 'slice':
        if (!Array.isArray(v)) this.save(jsonKind(v), t.go);
        else for (let i = 0; i < v.length; i++) v[i] = this.elem(v[i], t.elem, dindex(d, i));
        return v;
      case 'map':
        if (isJsonObject(v)) this.entries(v, t.elem, d);
        else this.save(jsonKind(v), t.go);
        return v;
      case 'struct':
        if (!isJsonObject(v)) this.save(jsonKind(v), t.go);
        else this.fields(v, t.name, t.fields(), d);
        return v;
    }
  }

  /** A slice element or map value: null there is the element type's zero value, not absent. */
  private elem(v: unknown, t: GoType, d: DPath): unknown {
    const decoded = this.value(v, t, d);
    if (decoded !== undefined) return decoded;
    if (t.k === 'struct') return {};
    if (t.k === 'string') return '';
    return null;
  }

  private entries(map: Record<string, unknown>, t: GoType, d: DPath): void {
    for (const k of Object.keys(map)) map[k] = this.elem(map[k], t, dchild(d, k));
  }

  private fields(obj: Record<string, unknown>, name: string, fields: Record<string, GoType>, d: DPath): void {
    const outer = this.struct;
    for (const key of Object.keys(obj)) {
      if (!Object.hasOwn(fields, key)) continue;
      this.struct = name;
      this.stack.push(key);
      const decoded = this.value(obj[key], fields[key]!, dchild(d, key));
      if (decoded === undefined) delete obj[key];
      else obj[key] = decoded;
      this.stack.pop();
      this.struct = outer;
    }
  }

  /** A custom unmarshaler's own json.Unmarshal: whatever fails it ends this decode too. */
  private nested(v: unknown, t: GoType, d: DPath): unknown {
    const inner = new Decoder();
    let decoded: unknown;
    try {
      decoded = inner.value(v, t, d);
    } catch (e) {
      if (e instanceof Abort) throw new Abort(this.withContext(e.error));
      throw e;
    }
    if (inner.saved) throw new Abort(this.withContext(inner.saved));
    return decoded;
  }
}

/**
 * Decodes every version's schema of a CRD (spec.versions[].schema) in place, as kube's decoder
 * would: Go's error text when one does not decode, else undefined. Other fields of the CRD are
 * left to the checks that read them. `floats`: the body's float literals, which no int64 takes.
 */
export function decodeCRDSchemas(crd: Record<string, unknown>, floats?: FloatLiterals): string | undefined {
  const spec = crd['spec'];
  if (!isJsonObject(spec) || !Array.isArray(spec['versions'])) return undefined;
  const versions = dchild(dchild(floats?.root, 'spec'), 'versions');
  let saved: DecodeError | undefined;
  try {
    for (const [i, version] of spec['versions'].entries()) {
      if (!isJsonObject(version) || !Object.hasOwn(version, 'schema')) continue;
      const top = new Decoder('CustomResourceDefinitionVersion', ['spec', 'versions', 'schema']);
      const schema = top.value(version['schema'], CUSTOM_RESOURCE_VALIDATION, dchild(dindex(versions, i), 'schema'));
      if (schema === undefined) delete version['schema'];
      saved ??= top.saved;
    }
  } catch (e) {
    if (e instanceof Abort) return formatError(e.error);
    throw e;
  }
  return saved && formatError(saved);
}
