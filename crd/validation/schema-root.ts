// The root of an openAPIV3Schema, which kube checks itself before handing the schema to the schema
// validator: with a status subresource only type object and the fields /status writes can be
// checked against, never nullable; and whether any schema sets a default.
import { type FieldError, child, forbidden, invalid } from '../../apimachinery/field-errors.js';
import { schemaHas } from '../schema/structural.js';
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { isJsonObject } from '../../apimachinery/object.js';
import type { ValidationOptions } from './options.js';
import { call, type Task } from '../../apimachinery/structured-merge/trampoline.js';
import { type Rec, type Spec, isAbsent, rec } from './internal-version.js';

/** How Go tells a field's zero value: empty string, false, or nil (pointers, slices, maps). */
type ZeroKind = 'string' | 'bool' | 'nil';

/** JSONSchemaProps fields in the order of kube's internal struct, which decides the first error. */
const ROOT_FIELDS: readonly (readonly [json: string, goName: string, zero: ZeroKind])[] = [
  ['id', 'ID', 'string'],
  ['$schema', 'Schema', 'string'],
  ['$ref', 'Ref', 'nil'],
  ['description', 'Description', 'string'],
  ['type', 'Type', 'string'],
  ['nullable', 'Nullable', 'bool'],
  ['format', 'Format', 'string'],
  ['title', 'Title', 'string'],
  ['default', 'Default', 'nil'],
  ['maximum', 'Maximum', 'nil'],
  ['exclusiveMaximum', 'ExclusiveMaximum', 'bool'],
  ['minimum', 'Minimum', 'nil'],
  ['exclusiveMinimum', 'ExclusiveMinimum', 'bool'],
  ['maxLength', 'MaxLength', 'nil'],
  ['minLength', 'MinLength', 'nil'],
  ['pattern', 'Pattern', 'string'],
  ['maxItems', 'MaxItems', 'nil'],
  ['minItems', 'MinItems', 'nil'],
  ['uniqueItems', 'UniqueItems', 'bool'],
  ['multipleOf', 'MultipleOf', 'nil'],
  ['enum', 'Enum', 'nil'],
  ['maxProperties', 'MaxProperties', 'nil'],
  ['minProperties', 'MinProperties', 'nil'],
  ['required', 'Required', 'nil'],
  ['items', 'Items', 'nil'],
  ['allOf', 'AllOf', 'nil'],
  ['oneOf', 'OneOf', 'nil'],
  ['anyOf', 'AnyOf', 'nil'],
  ['not', 'Not', 'nil'],
  ['properties', 'Properties', 'nil'],
  ['additionalProperties', 'AdditionalProperties', 'nil'],
  ['patternProperties', 'PatternProperties', 'nil'],
  ['dependencies', 'Dependencies', 'nil'],
  ['additionalItems', 'AdditionalItems', 'nil'],
  ['definitions', 'Definitions', 'nil'],
  ['externalDocs', 'ExternalDocs', 'nil'],
  ['example', 'Example', 'nil'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields', 'nil'],
  ['x-kubernetes-embedded-resource', 'XEmbeddedResource', 'bool'],
  ['x-kubernetes-int-or-string', 'XIntOrString', 'bool'],
  ['x-kubernetes-list-map-keys', 'XListMapKeys', 'nil'],
  ['x-kubernetes-list-type', 'XListType', 'nil'],
  ['x-kubernetes-map-type', 'XMapType', 'nil'],
  ['x-kubernetes-validations', 'XValidations', 'nil'],
];

/** With a status subresource, /status writes are checked against properties[status] alone, so the root may only hold these. */
const ALLOWED_AT_ROOT = [
  'Description',
  'Type',
  'Format',
  'Title',
  'Maximum',
  'ExclusiveMaximum',
  'Minimum',
  'ExclusiveMinimum',
  'MaxLength',
  'MinLength',
  'Pattern',
  'MaxItems',
  'MinItems',
  'UniqueItems',
  'MultipleOf',
  'Required',
  'Items',
  'Properties',
  'ExternalDocs',
  'Example',
  'XPreserveUnknownFields',
  'XValidations',
];

function isZero(v: unknown, zero: ZeroKind): boolean {
  if (zero === 'string') return isAbsent(v) || v === '';
  if (zero === 'bool') return isAbsent(v) || v === false;
  return isAbsent(v);
}

export function* validateSchema(
  wrapper: Rec | undefined,
  statusEnabled: boolean,
  path: string,
  version: string,
  opts: ValidationOptions,
): Task<FieldError[]> {
  const schema = rec(wrapper?.['openAPIV3Schema']);
  if (!schema) return [];
  const errs: FieldError[] = [];
  const schemaPath = child(path, 'openAPIV3Schema');
  if (statusEnabled) {
    for (const [json, goName, zero] of ROOT_FIELDS) {
      if (isZero(schema[json], zero)) continue;
      if (goName === 'Type') {
        if (schema['type'] === 'object') continue;
        errs.push(
          invalid(
            `${schemaPath}.type`,
            schema['type'],
            'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
          ),
        );
        break;
      }
      if (!ALLOWED_AT_ROOT.includes(goName)) {
        errs.push(
          invalid(
            schemaPath,
            schema,
            `only [${ALLOWED_AT_ROOT.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
          ),
        );
        break;
      }
    }
  }
  if (schema['nullable'] === true)
    errs.push(forbidden(`${schemaPath}.nullable`, 'nullable cannot be true at the root'));
  if (opts.schemaValidator) {
    errs.push(
      ...(yield* call(
        opts.schemaValidator(schema as JSONSchemaProps, schemaPath, {
          version,
          ...(opts.old ? { old: opts.old } : {}),
        }),
      )),
    );
  }
  return errs;
}

export function specHasDefaults(spec: Spec): boolean {
  const hasDefault = (s: Rec): boolean => !isAbsent(s['default']);
  return [spec.validation, ...spec.versions.map((v) => v.schema)].some(
    (w) => isJsonObject(w?.['openAPIV3Schema']) && schemaHas(w['openAPIV3Schema'], hasDefault),
  );
}
