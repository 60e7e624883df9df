// Validation of apiextensions.k8s.io/v1 CustomResourceDefinitions with kube-apiserver's field
// paths and messages (apiextensions validation.go). Kube validates the internal version of the
// object, so the v1 object is first read the way kube converts it: when every version carries the
// same schema, subresources or printer columns, they are reported at spec.validation,
// spec.subresources and spec.additionalPrinterColumns, and webhook settings under
// spec.conversion.webhookClientConfig. Structural checks of openAPIV3Schema belong to the schema
// module and plug in through a SchemaValidator.
import type { ResourceNames } from '../../apimachinery/apis/apiextensions.js';
import {
  type FieldError,
  child,
  forbidden,
  index,
  invalid,
  key,
  notSupported,
  required,
} from '../../apimachinery/field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import { validateWebhookService, validateWebhookURL } from '../../apimachinery/validation/webhook.js';
import { parseGoRequestURI } from '../../apimachinery/go-url.js';
import { caBundleError } from '../../webhook/ca-bundle.js';
import { schemaHas } from '../schema/structural.js';
import type { CustomResourceDefinition, JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { isJsonObject } from '../../apimachinery/object.js';

/** What a schema validator may need beyond the schema: the version and, on update, the old CRD. */
export interface SchemaValidationContext {
  /** The version the schema belongs to; the first version for a schema all versions share. */
  version: string;
  /** The CRD before an update (kube relaxes some schema rules the stored CRD already broke). */
  old?: CustomResourceDefinition;
}

/** Structural and CEL checks of one openAPIV3Schema; `path` is where kube reports it. */
export type SchemaValidator = (schema: JSONSchemaProps, path: string, ctx: SchemaValidationContext) => FieldError[];

export function validateCRD(crd: CustomResourceDefinition, schemaValidator?: SchemaValidator): FieldError[] {
  const spec = readSpec(crd.spec);
  const opts: Options = {
    requireRecognizedConversionReviewVersion: true,
    requireOpenAPISchema: true,
    allowInvalidCABundle: true, // nothing is served yet, so nothing can break
    schemaValidator,
  };
  return [
    ...validateNameMatchesSpec(crd, spec),
    ...validateSpec(spec, opts),
    ...validateCRDStatus(crd),
    ...validateStoredVersions(crd, spec),
    ...validateAPIApproval(crd, undefined),
    ...validatePreserveUnknownFields(crd, undefined),
  ];
}

export function validateCRDUpdate(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition,
  schemaValidator?: SchemaValidator,
): FieldError[] {
  const spec = readSpec(crd.spec);
  const oldSpec = readSpec(old.spec);
  const established = isConditionTrue(old, 'Established');
  // Rules the stored object already breaks are not tightened on it.
  const opts: Options = {
    requireRecognizedConversionReviewVersion:
      !oldSpec.conversion ||
      oldSpec.conversion.reviewVersions.length === 0 ||
      oldSpec.conversion.reviewVersions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v)),
    requireOpenAPISchema: oldSpec.versions.every((v) => v.schemaPresent),
    allowInvalidCABundle: allowInvalidCABundle(oldSpec, established),
    schemaValidator,
    old,
  };
  const errs = validateSpec(spec, opts);
  if (established) {
    // Scope and kind shape the stored data and the served API.
    errs.push(...immutable('spec.scope', spec.scope, oldSpec.scope));
    errs.push(...immutable('spec.names.kind', spec.names.kind, oldSpec.names.kind));
  }
  // Both make up metadata.name, which never changes.
  errs.push(...immutable('spec.group', spec.group, oldSpec.group));
  errs.push(...immutable('spec.names.plural', spec.names.plural, oldSpec.names.plural));
  return [
    ...errs,
    ...validateCRDStatus(crd),
    ...validateStoredVersions(crd, spec),
    ...validateAPIApproval(crd, old),
    ...validatePreserveUnknownFields(crd, old),
  ];
}

/** The status rules (status.acceptedNames), all kube checks on a write to /status. */
export function validateCRDStatus(crd: CustomResourceDefinition): FieldError[] {
  return validateNames(readNames(rec(crd.status)?.['acceptedNames']), 'status.acceptedNames');
}

// ---------------------------------------------------------------------------------------------
// The v1 object as kube's internal version sees it.

type Rec = Record<string, unknown>;

type Names = ResourceNames;

interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning: string | undefined;
  /** Whether the v1 object had a schema for this version (before hoisting). */
  schemaPresent: boolean;
  /** Per-version fields, cleared when hoisted to the spec. */
  schema: Rec | undefined;
  subresources: Rec | undefined;
  columns: unknown[];
}

interface Conversion {
  strategy: string;
  clientConfig: Rec | undefined;
  reviewVersions: string[];
}

interface Spec {
  group: string;
  scope: string;
  names: Names;
  versions: Version[];
  /** Kube's deprecated spec.version: the first version's name. */
  version: string;
  /** Hoisted per-version fields, when all versions agree. */
  validation: Rec | undefined;
  subresources: Rec | undefined;
  columns: unknown[];
  conversion: Conversion | undefined;
  preserveUnknownFields: boolean;
  /** spec.versions as sent, for the errors that print the whole list. */
  rawVersions: unknown[];
}

const isAbsent = (v: unknown): boolean => v === undefined || v === null;
const rec = (v: unknown): Rec | undefined => (isJsonObject(v) ? v : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).map(str);

/** Names from untrusted JSON, with '' and [] for what is absent or of the wrong type. */
export function readNames(v: unknown): Names {
  const n = rec(v) ?? {};
  return {
    plural: str(n['plural']),
    singular: str(n['singular']),
    kind: str(n['kind']),
    listKind: str(n['listKind']),
    shortNames: strings(n['shortNames']),
    categories: strings(n['categories']),
  };
}

function readSpec(v: unknown): Spec {
  const s = rec(v) ?? {};
  const versions: Version[] = list(s['versions']).map((raw) => {
    const ver = rec(raw) ?? {};
    const schema = rec(ver['schema']);
    return {
      name: str(ver['name']),
      served: ver['served'] === true,
      storage: ver['storage'] === true,
      deprecated: ver['deprecated'] === true,
      deprecationWarning: typeof ver['deprecationWarning'] === 'string' ? ver['deprecationWarning'] : undefined,
      schemaPresent: rec(schema?.['openAPIV3Schema']) !== undefined,
      schema,
      subresources: rec(ver['subresources']),
      columns: list(ver['additionalPrinterColumns']),
    };
  });
  const spec: Spec = {
    group: str(s['group']),
    scope: str(s['scope']),
    names: readNames(s['names']),
    versions,
    version: versions[0]?.name ?? '',
    validation: undefined,
    subresources: undefined,
    columns: [],
    conversion: readConversion(s['conversion']),
    preserveUnknownFields: s['preserveUnknownFields'] === true,
    rawVersions: list(s['versions']),
  };
  hoistIdenticalVersionFields(spec);
  return spec;
}

/** Kube's v1-to-internal conversion moves fields all versions share up to the spec. */
function hoistIdenticalVersionFields(spec: Spec): void {
  const [first] = spec.versions;
  if (!first) return;
  if (spec.versions.every((v) => semanticEqual(v.schema, first.schema))) {
    spec.validation = first.schema;
    for (const v of spec.versions) v.schema = undefined;
  }
  if (spec.versions.every((v) => semanticEqual(v.subresources, first.subresources))) {
    spec.subresources = first.subresources;
    for (const v of spec.versions) v.subresources = undefined;
  }
  if (spec.versions.every((v) => semanticEqual(v.columns, first.columns))) {
    spec.columns = first.columns;
    for (const v of spec.versions) v.columns = [];
  }
}

function readConversion(v: unknown): Conversion | undefined {
  const c = rec(v);
  if (!c) return undefined;
  const webhook = rec(c['webhook']);
  return {
    strategy: str(c['strategy']),
    clientConfig: rec(webhook?.['clientConfig']),
    reviewVersions: strings(webhook?.['conversionReviewVersions']),
  };
}

/**
 * Go's semantic equality on decoded JSON: null and absent are the same, and so are an empty list
 * and an absent one (Go compares nil and empty slices equal); an empty object is not absent.
 * Schemas carry defaults and examples of any depth: pairs wait on a stack, not the call stack.
 */
function semanticEqual(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown => (isAbsent(v) || (Array.isArray(v) && v.length === 0) ? undefined : v);
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = norm(pending.pop());
    const x = norm(pending.pop());
    if (x === undefined || y === undefined) {
      if (x !== y) return false;
      continue;
    }
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], y[i]);
      continue;
    }
    const rx = rec(x);
    const ry = rec(y);
    if (!rx || !ry) {
      if (x !== y) return false;
      continue;
    }
    for (const k of new Set([...Object.keys(rx), ...Object.keys(ry)])) pending.push(rx[k], ry[k]);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Spec

interface Options {
  requireRecognizedConversionReviewVersion: boolean;
  requireOpenAPISchema: boolean;
  allowInvalidCABundle: boolean;
  schemaValidator: SchemaValidator | undefined;
  old?: CustomResourceDefinition;
}

const SCOPES = ['Cluster', 'Namespaced'];
const STRATEGIES = ['None', 'Webhook'];

function validateSpec(spec: Spec, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  if (!spec.group) errs.push(required('spec.group'));
  else {
    const dns = isDNS1123Subdomain(spec.group);
    if (dns.length) errs.push(invalid('spec.group', spec.group, dns.join(',')));
    else if (spec.group.split('.').length < 2)
      errs.push(invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  errs.push(...validateEnum('spec.scope', spec.scope, SCOPES));

  const topSchema = rec(spec.validation?.['openAPIV3Schema']);
  if (opts.requireOpenAPISchema) {
    if (!topSchema) {
      spec.versions.forEach((v, i) => {
        if (!rec(v.schema?.['openAPIV3Schema']))
          errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
      });
    }
  } else if (!spec.preserveUnknownFields && !topSchema) {
    spec.versions.forEach((v, i) => {
      if (v.served && !rec(v.schema?.['openAPIV3Schema'])) {
        errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'because otherwise all fields are pruned'));
      }
    });
  }
  if (spec.preserveUnknownFields && specHasDefaults(spec)) {
    errs.push(invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  spec.versions.forEach((v, i) => {
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const path = `spec.versions[${i}]`;
    const dns = isDNS1035Label(v.name);
    if (dns.length) errs.push(invalid(child(path, 'name'), v.name, dns.join(',')));
    errs.push(...validateVersion(spec, v, path, opts));
  });
  if (!unique) errs.push(invalid('spec.versions', spec.rawVersions, 'must contain unique version names'));
  if (storageCount !== 1)
    errs.push(invalid('spec.versions', spec.rawVersions, 'must have exactly one version marked as storage version'));
  if (spec.version) {
    // Kube's internal spec.version mirrors versions[0].name, so a bad name is reported twice.
    const dns = isDNS1035Label(spec.version);
    if (dns.length) errs.push(invalid('spec.version', spec.version, dns.join(',')));
  }

  if (!spec.names.plural) errs.push(required('spec.names.plural'));
  if (!spec.names.singular) errs.push(required('spec.names.singular'));
  if (!spec.names.kind) errs.push(required('spec.names.kind'));
  if (!spec.names.listKind) errs.push(required('spec.names.listKind'));
  errs.push(...validateNames(spec.names, 'spec.names'));

  errs.push(...validateSchema(spec.validation, hasAnyStatusEnabled(spec), 'spec.validation', spec.version, opts));
  errs.push(...validateSubresources(spec.subresources, 'spec.subresources'));
  spec.columns.forEach((c, i) => errs.push(...validateColumn(c, `spec.additionalPrinterColumns[${i}]`)));

  if (spec.conversion && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields) {
    errs.push(
      invalid(
        'spec.conversion.strategy',
        spec.conversion.strategy,
        'must be None if spec.preserveUnknownFields is true',
      ),
    );
  }
  errs.push(...validateConversion(spec.conversion, opts));
  return errs;
}

function validateVersion(spec: Spec, v: Version, path: string, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  for (const detail of deprecationWarningErrors(v.deprecated, v.deprecationWarning)) {
    errs.push(invalid(child(path, 'deprecationWarning'), v.deprecationWarning, detail));
  }
  const statusEnabled = hasStatusEnabled(subresourcesForVersion(spec, v.name));
  errs.push(...validateSchema(v.schema, statusEnabled, child(path, 'schema'), v.name, opts));
  errs.push(...validateSubresources(v.subresources, child(path, 'subresources')));
  v.columns.forEach((c, i) => errs.push(...validateColumn(c, `${path}.additionalPrinterColumns[${i}]`)));
  return errs;
}

const MAX_DEPRECATION_WARNING = 256;

function deprecationWarningErrors(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const errs: string[] = [];
  if (Buffer.byteLength(warning) > MAX_DEPRECATION_WARNING) errs.push('must be <= 256 characters long');
  if (warning.length === 0) errs.push('must not be an empty string');
  // Go reports the byte offset of the first rune unicode.IsPrint rejects.
  let offset = 0;
  for (const ch of warning) {
    if (!isGoPrintable(ch)) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${offset}`);
      break;
    }
    offset += Buffer.byteLength(ch);
  }
  return errs;
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const isGoPrintable = (ch: string): boolean => ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);

/** The subresources that apply to a version, wherever kube's conversion put them. */
function subresourcesForVersion(spec: Spec, name: string): Rec | undefined {
  if (!spec.versions.some((v) => v.subresources)) return spec.subresources;
  return spec.versions.find((v) => v.name === name)?.subresources;
}

const hasStatusEnabled = (sub: Rec | undefined): boolean => !isAbsent(sub?.['status']);
const hasAnyStatusEnabled = (spec: Spec): boolean =>
  hasStatusEnabled(spec.subresources) || spec.versions.some((v) => hasStatusEnabled(v.subresources));

// ---------------------------------------------------------------------------------------------
// The schema root (the rest is the SchemaValidator's)

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

function validateSchema(
  wrapper: Rec | undefined,
  statusEnabled: boolean,
  path: string,
  version: string,
  opts: Options,
): FieldError[] {
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
      ...opts.schemaValidator(schema as JSONSchemaProps, schemaPath, {
        version,
        ...(opts.old ? { old: opts.old } : {}),
      }),
    );
  }
  return errs;
}

function specHasDefaults(spec: Spec): boolean {
  const hasDefault = (s: Rec): boolean => !isAbsent(s['default']);
  return [spec.validation, ...spec.versions.map((v) => v.schema)].some(
    (w) => isJsonObject(w?.['openAPIV3Schema']) && schemaHas(w['openAPIV3Schema'], hasDefault),
  );
}

// ---------------------------------------------------------------------------------------------
// Names, subresources, printer columns

function validateNames(n: Names, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (field: string, value: string): void => {
    const dns = isDNS1035Label(value);
    if (dns.length) errs.push(invalid(field, value, dns.join(',')));
  };
  const mixedCase = (field: string, value: string): void => {
    const dns = isDNS1035Label(value.toLowerCase());
    if (dns.length)
      errs.push(invalid(field, value, `may have mixed case, but should otherwise match: ${dns.join(',')}`));
  };
  if (n.plural) label(child(path, 'plural'), n.plural);
  if (n.singular) label(child(path, 'singular'), n.singular);
  if (n.kind) mixedCase(child(path, 'kind'), n.kind);
  if (n.listKind) mixedCase(child(path, 'listKind'), n.listKind);
  n.shortNames.forEach((s, i) => label(index(child(path, 'shortNames'), i), s));
  // Equal kind and listKind would make list parsing ambiguous.
  if (n.kind && n.kind === n.listKind)
    errs.push(invalid(child(path, 'listKind'), n.listKind, 'kind and listKind may not be the same'));
  n.categories.forEach((c, i) => label(index(child(path, 'categories'), i), c));
  return errs;
}

function validateSubresources(sub: Rec | undefined, path: string): FieldError[] {
  const scale = rec(sub?.['scale']);
  if (!scale) return [];
  const errs: FieldError[] = [];
  const underRoot = (field: string, value: string, roots: string[], detail: string): void => {
    const fieldPath = `${path}.scale.${field}`;
    const jsonPathErrs = simpleJSONPathErrors(value, fieldPath);
    if (jsonPathErrs.length) errs.push(...jsonPathErrs);
    else if (!roots.some((r) => value.startsWith(r))) errs.push(invalid(fieldPath, value, detail));
  };
  const specPath = str(scale['specReplicasPath']);
  if (!specPath) errs.push(required(`${path}.scale.specReplicasPath`));
  else underRoot('specReplicasPath', specPath, ['.spec.'], 'should be a json path under .spec');
  const statusPath = str(scale['statusReplicasPath']);
  if (!statusPath) errs.push(required(`${path}.scale.statusReplicasPath`));
  else underRoot('statusReplicasPath', statusPath, ['.status.'], 'should be a json path under .status');
  const selectorPath = str(scale['labelSelectorPath']);
  if (selectorPath)
    underRoot(
      'labelSelectorPath',
      selectorPath,
      ['.spec.', '.status.'],
      'should be a json path under either .spec or .status',
    );
  return errs;
}

function simpleJSONPathErrors(s: string, path: string): FieldError[] {
  if (s.length === 0) return [invalid(path, s, 'must not be empty')];
  if (!s.startsWith('.')) return [invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

// Kube's sets.List() order: sorted.
const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

function validateColumn(raw: unknown, path: string): FieldError[] {
  const col = rec(raw) ?? {};
  const errs: FieldError[] = [];
  const name = str(col['name']);
  const type = str(col['type']);
  const format = str(col['format']);
  const jsonPath = str(col['jsonPath']);
  if (!name) errs.push(required(child(path, 'name')));
  const typeDetail = `must be one of ${COLUMN_TYPES.join(',')}`;
  if (!type) errs.push(required(child(path, 'type'), typeDetail));
  else if (!COLUMN_TYPES.includes(type)) errs.push(invalid(child(path, 'type'), type, typeDetail));
  if (format && !COLUMN_FORMATS.includes(format))
    errs.push(invalid(child(path, 'format'), format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  // The internal field is JSONPath, and kube reports it under that name.
  if (!jsonPath) errs.push(required(child(path, 'JSONPath')));
  else errs.push(...simpleJSONPathErrors(jsonPath, child(path, 'JSONPath')));
  return errs;
}

function validateEnum(path: string, value: string, accepted: string[]): FieldError[] {
  if (value === '') return [required(path)];
  return accepted.includes(value) ? [] : [notSupported(path, value, accepted)];
}

// ---------------------------------------------------------------------------------------------
// Conversion

/** ConversionReview versions this server (and the one before it) understands. */
const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const NOT_WEBHOOK = 'should not be set when strategy is not set to Webhook';

function validateConversion(conv: Conversion | undefined, opts: Options): FieldError[] {
  if (!conv) return [];
  const errs = validateEnum('spec.conversion.strategy', conv.strategy, STRATEGIES);
  const ccPath = 'spec.conversion.webhookClientConfig';
  const reviewPath = 'spec.conversion.conversionReviewVersions';
  const cc = conv.clientConfig;
  if (conv.strategy !== 'Webhook') {
    if (cc) errs.push(forbidden(ccPath, NOT_WEBHOOK));
    if (conv.reviewVersions.length > 0) errs.push(forbidden(reviewPath, NOT_WEBHOOK));
    return errs;
  }
  if (!cc) errs.push(required(ccPath, 'required when strategy is set to Webhook'));
  else {
    const url = typeof cc['url'] === 'string' ? cc['url'] : undefined;
    const service = rec(cc['service']);
    if ((url === undefined) === (service === undefined))
      errs.push(required(ccPath, 'exactly one of url or service is required'));
    else if (url !== undefined) errs.push(...validateWebhookURL(`${ccPath}.url`, url));
    else if (service) errs.push(...validateWebhookService(`${ccPath}.service`, service));
    const caBundle = str(cc['caBundle']);
    if (caBundle && !opts.allowInvalidCABundle) {
      const why = caBundleError(caBundle);
      if (why) errs.push(invalid(`${ccPath}.caBundle`, caBundle, why));
    }
  }
  errs.push(...validateReviewVersions(conv.reviewVersions, opts.requireRecognizedConversionReviewVersion, reviewPath));
  return errs;
}

function validateReviewVersions(versions: string[], requireRecognized: boolean, path: string): FieldError[] {
  if (versions.length === 0) return [required(path)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(invalid(index(path, i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const detail of isDNS1035Label(v)) errs.push(invalid(index(path, i), v, detail));
  });
  if (requireRecognized && !versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))) {
    errs.push(invalid(path, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Metadata and status rules

function validateNameMatchesSpec(crd: CustomResourceDefinition, spec: Spec): FieldError[] {
  const want = `${spec.names.plural}.${spec.group}`;
  const detail = 'must be spec.names.plural+"."+spec.group';
  const errs: FieldError[] = [];
  const generateName = str(crd.metadata?.generateName);
  const name = str(crd.metadata?.name);
  if (generateName && generateName !== want) errs.push(invalid('metadata.generateName', generateName, detail));
  if (name && name !== want) errs.push(invalid('metadata.name', name, detail));
  return errs;
}

function validateStoredVersions(crd: CustomResourceDefinition, spec: Spec): FieldError[] {
  const path = 'status.storedVersions';
  const stored = strings(rec(crd.status)?.['storedVersions']);
  if (stored.length === 0) return [invalid(path, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  stored.forEach((v, i) => remaining.set(v, i));
  for (const v of spec.versions) {
    const known = remaining.has(v.name);
    if (v.storage && !known) errs.push(invalid(path, stored, `must have the storage version ${v.name}`));
    remaining.delete(v.name);
  }
  // Kube walks a Go map here (random order); index order is one of its possible outputs.
  for (const [v, i] of [...remaining].sort((a, b) => a[1] - b[1])) {
    errs.push(
      invalid(
        index(path, i),
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
const APPROVAL_PR = 'https://github.com/kubernetes/enhancements/pull/1111';

type ApprovalState = 'invalid' | 'approved' | 'bypassed' | 'missing';

function approvalState(annotations: Record<string, string> | undefined): [ApprovalState, string] {
  const value = annotations?.[APPROVAL_ANNOTATION] ?? '';
  if (!value)
    return ['missing', `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", see ${APPROVAL_PR}`];
  if (value.startsWith('unapproved')) return ['bypassed', `not approved: ${JSON.stringify(value)}`];
  const u = parseGoRequestURI(value);
  if (u.ok && u.url.host && u.url.scheme) return ['approved', `approved in ${value}`];
  return [
    'invalid',
    `protected groups must have approval annotation "${APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", see ${APPROVAL_PR}`,
  ];
}

/** Groups under k8s.io and kubernetes.io need an API review, recorded in an annotation. */
function validateAPIApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): FieldError[] {
  const group = str(rec(crd.spec)?.['group']);
  const protectedGroup = [/^(.+\.)?k8s\.io$/, /^(.+\.)?kubernetes\.io$/].some((re) => re.test(group));
  if (!protectedGroup) return [];
  const [state, reason] = approvalState(crd.metadata?.annotations);
  // An unchanged state never fails, so controllers that only touch the spec keep working.
  if (old && approvalState(old.metadata?.annotations)[0] === state) return [];
  const path = key('metadata.annotations', APPROVAL_ANNOTATION);
  if (state === 'missing') return [required(path, reason)];
  if (state === 'invalid') return [invalid(path, crd.metadata.annotations?.[APPROVAL_ANNOTATION], reason)];
  return [];
}

function validatePreserveUnknownFields(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition | undefined,
): FieldError[] {
  // CRDs stored with it set (from v1beta1 days) may keep it.
  if (old && rec(old.spec)?.['preserveUnknownFields'] === true) return [];
  if (rec(crd.spec)?.['preserveUnknownFields'] !== true) return [];
  return [
    invalid(
      'spec.preserveUnknownFields',
      true,
      'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ),
  ];
}

function immutable(path: string, value: string, oldValue: string): FieldError[] {
  return value === oldValue ? [] : [invalid(path, value, 'field is immutable')];
}

function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return list(rec(crd.status)?.['conditions']).some((c) => rec(c)?.['type'] === type && rec(c)?.['status'] === 'True');
}

/** Kube accepts a broken caBundle unless the CRD is established with a working one. */
function allowInvalidCABundle(oldSpec: Spec, established: boolean): boolean {
  if (!established) return true;
  const caBundle = str(oldSpec.conversion?.clientConfig?.['caBundle']);
  return caBundle !== '' && caBundleError(caBundle) !== undefined;
}
