// The checks kube-apiserver runs on a CRD's openAPIV3Schema at CRD create and update, with its
// field paths and messages:
//
//  1. structural schema rules (apiextensions-apiserver pkg/apiserver/schema: NewStructural in
//     convert.go, validateStructuralInvariants / validateValueValidation /
//     validateNestedValueValidation in validation.go, validateStructuralCompleteness in
//     complete.go), reported sorted by message as kube sorts them;
//  2. the per-node rules of pkg/apis/apiextensions/validation's
//     ValidateCustomResourceDefinitionOpenAPISchema (forbidden keywords, uniqueItems,
//     additionalProperties with properties, defaults in resource metadata, the x-kubernetes-*
//     extensions), in kube's traversal order;
//  3. a schema NewStructural cannot convert at all (only `$schema` gets that far without an error
//     from step 2) is reported last, and only when nothing else was.
//
// Defaults that must be pruned and valid (defaulting.ValidateDefaults) belong to the defaulting
// module and plug in through options.validateDefault, called for each default the structural walk
// met (kube runs them between steps 1 and 2, for a structural schema only); the x-kubernetes-validations rules (CEL) are the cel module's; the
// root-only checks (status subresource fields, nullable at the root) live in crd/validation/.
//
// The schema arrives as decoded JSON typed as JSONSchemaProps; it is read defensively, with Go's
// decoding semantics: `null` is the same as absent, and a value of the wrong JSON type is ignored.
import { compilePattern } from '../../apimachinery/re2.js';
import {
  type FieldError,
  GoPrinted,
  child,
  forbidden,
  goStringSlice,
  formatFieldError,
  index,
  invalid,
  key,
  notSupported,
  required,
} from '../../apimachinery/field-errors.js';
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { appendAll } from '../../apimachinery/append.js';

/** kube's validationOptions that concern the schema. All default to true (a CRD create). */
interface StructuralSchemaOptions {
  /** The schema must be structural (kube: always for v1 CRDs with preserveUnknownFields false). */
  requireStructuralSchema?: boolean;
  /** `type` must be one of the OpenAPI v3 types. */
  requireValidPropertyType?: boolean;
  /** Items of an x-kubernetes-list-type=set list must be scalars or atomic. */
  requireAtomicSetType?: boolean;
  /** Map-list keys are required or defaulted and not nullable; set/map items are not nullable. */
  requireMapListKeysMapSetValidation?: boolean;
  /**
   * kube's defaulting.ValidateDefaults (defaults pruned and valid) for the node at `path`, which
   * has a default; provided by the defaulting module. Called only for a structural schema, as kube
   * does, for each default in ValidateDefaults' order; its errors go where kube puts them.
   */
  validateDefault?: (schema: JSONSchemaProps, path: string) => FieldError[];
}

/** All of kube's CRD-write checks of one openAPIV3Schema; `path` is where kube reports it. */
export function validateStructuralSchema(
  schema: JSONSchemaProps,
  path: string,
  options: StructuralSchemaOptions = {},
): FieldError[] {
  const opts: Flags = {
    requireStructuralSchema: options.requireStructuralSchema ?? true,
    requireValidPropertyType: options.requireValidPropertyType ?? true,
    requireAtomicSetType: options.requireAtomicSetType ?? true,
    requireMapListKeysMapSetValidation: options.requireMapListKeysMapSetValidation ?? true,
  };
  const root = asRec(schema);
  const walk: OpenAPIWalk = { opts, errs: [], convertible: true };
  validateOpenAPISchema(
    root,
    path,
    { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false },
    true,
    walk,
  );
  const errs: FieldError[] = [];
  let initError: string | undefined;
  if (opts.requireStructuralSchema) {
    // That walk met every node NewStructural converts: the conversion's error, which needs its
    // order, is looked for only when it met a node that fails.
    initError = walk.convertible ? undefined : newStructuralError(root);
    if (initError === undefined) {
      const defaulted: Defaulted[] = [];
      const structural = structuralErrors(root, path, defaulted);
      appendAll(errs, structural);
      if (structural.length === 0 && options.validateDefault)
        for (const d of defaulted) appendAll(errs, options.validateDefault(d.schema as JSONSchemaProps, d.path));
    }
  }
  appendAll(errs, walk.errs);
  if (errs.length === 0 && initError !== undefined) errs.push(invalid(path, '', initError));
  return errs;
}

/**
 * On a CRD update kube does not tighten rules the stored CRD already breaks: pass the old CRD's
 * schemas (every version's, or the shared one) to get the options for validating the new ones.
 */
export function structuralOptionsForUpdate(
  oldSchemas: readonly (JSONSchemaProps | undefined)[],
): StructuralSchemaOptions {
  const any = (pred: (s: Rec) => boolean): boolean => oldSchemas.some((s) => s !== undefined && schemaHas(s, pred));
  return {
    requireValidPropertyType: !any((s) => str(s, 'type') !== '' && !OPENAPI_V3_TYPES.includes(str(s, 'type'))),
    requireAtomicSetType: !any(hasNonAtomicSetItems),
    requireMapListKeysMapSetValidation: !any((s) => mapListKeysMapSetErrors(s, '').length > 0),
  };
}

// ---------------------------------------------------------------------------------------------
// Reading decoded JSON the way Go decodes it into JSONSchemaProps.

type Rec = Record<string, unknown>;

const asRec = (v: unknown): Rec => (isJsonObject(v) ? v : {});
/** Set at all (a non-nil pointer, slice or map in Go). */
const present = (s: Rec, k: string): boolean => s[k] !== undefined && s[k] !== null;
const str = (s: Rec, k: string): string => {
  const v = s[k];
  return typeof v === 'string' ? v : '';
};
const isTrue = (s: Rec, k: string): boolean => s[k] === true;
/** What the walks share for an absent list: they visit tens of thousands of nodes, most without one. */
const NO_SCHEMAS: readonly Rec[] = [];
/** A list of schemas (allOf, anyOf, oneOf, items as an array); null entries are zero schemas. */
const schemaList = (s: Rec, k: string): readonly Rec[] => {
  const v = s[k];
  return Array.isArray(v) ? v.map(asRec) : NO_SCHEMAS;
};
const stringList = (s: Rec, k: string): string[] => {
  const v = s[k];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};
const listLength = (s: Rec, k: string): number => {
  const v = s[k];
  return Array.isArray(v) ? v.length : 0;
};
const mapSize = (s: Rec, k: string): number => {
  const v = s[k];
  return isJsonObject(v) ? Object.keys(v).length : 0;
};
/**
 * properties (or definitions, patternProperties): the map, or undefined when absent; its names in
 * document order are its keys, and each value is read with asRec (null is a zero schema).
 */
const schemaMap = (s: Rec, k: string): Rec | undefined => {
  const v = s[k];
  return isJsonObject(v) ? v : undefined;
};
/** A named schema of a map from schemaMap, or undefined when it has no such name. */
const named = (map: Rec | undefined, name: string): Rec | undefined =>
  map !== undefined && Object.hasOwn(map, name) ? asRec(map[name]) : undefined;
const NO_NAMES: readonly string[] = [];
const namesOf = (map: Rec | undefined): readonly string[] => (map === undefined ? NO_NAMES : Object.keys(map));
const itemsSchema = (s: Rec): Rec | undefined => (isJsonObject(s['items']) ? s['items'] : undefined);
const notSchema = (s: Rec): Rec | undefined => (isJsonObject(s['not']) ? s['not'] : undefined);
/** JSONSchemaPropsOrBool: `true`, `false` or a schema (which allows). */
function additionalProperties(s: Rec): { allows: boolean; schema?: Rec } | undefined {
  const v = s['additionalProperties'];
  if (typeof v === 'boolean') return { allows: v };
  if (isJsonObject(v)) return { allows: true, schema: v };
  return undefined;
}

/**
 * The keys a walk branches on, one bit each. A node's bits are read with one pass over its own keys
 * (keyBits), so the many keys a node lacks (nearly all: the corpus's nodes have 2.5 keys on average)
 * cost nothing; reading each absent key by name from nodes of thousands of shapes was most of the
 * walks' time.
 */
const K_ID = 1 << 0;
const K_SCHEMA = 1 << 1;
const K_REF = 1 << 2;
const K_PATTERN_PROPERTIES = 1 << 3;
const K_DEPENDENCIES = 1 << 4;
const K_ADDITIONAL_ITEMS = 1 << 5;
const K_DEFINITIONS = 1 << 6;
const K_NOT = 1 << 7;
const K_ALL_OF = 1 << 8;
const K_ANY_OF = 1 << 9;
const K_ONE_OF = 1 << 10;
const K_PRESERVE_UNKNOWN = 1 << 11;
const K_ITEMS = 1 << 12;
const K_PROPERTIES = 1 << 13;
const K_ADDITIONAL_PROPERTIES = 1 << 14;
const K_INT_OR_STRING = 1 << 15;
const K_EMBEDDED = 1 << 16;
const K_PATTERN = 1 << 17;
const K_DEFAULT = 1 << 18;
const K_UNIQUE_ITEMS = 1 << 19;
const K_MAP_TYPE = 1 << 20;
const K_LIST_TYPE = 1 << 21;
const K_LIST_MAP_KEYS = 1 << 22;
const KEY_BITS = new Map<string, number>([
  ['id', K_ID],
  ['$schema', K_SCHEMA],
  ['$ref', K_REF],
  ['patternProperties', K_PATTERN_PROPERTIES],
  ['dependencies', K_DEPENDENCIES],
  ['additionalItems', K_ADDITIONAL_ITEMS],
  ['definitions', K_DEFINITIONS],
  ['not', K_NOT],
  ['allOf', K_ALL_OF],
  ['anyOf', K_ANY_OF],
  ['oneOf', K_ONE_OF],
  ['x-kubernetes-preserve-unknown-fields', K_PRESERVE_UNKNOWN],
  ['items', K_ITEMS],
  ['properties', K_PROPERTIES],
  ['additionalProperties', K_ADDITIONAL_PROPERTIES],
  ['x-kubernetes-int-or-string', K_INT_OR_STRING],
  ['x-kubernetes-embedded-resource', K_EMBEDDED],
  ['pattern', K_PATTERN],
  ['default', K_DEFAULT],
  ['uniqueItems', K_UNIQUE_ITEMS],
  ['x-kubernetes-map-type', K_MAP_TYPE],
  ['x-kubernetes-list-type', K_LIST_TYPE],
  ['x-kubernetes-list-map-keys', K_LIST_MAP_KEYS],
]);
/** The fields NewStructural cannot convert (unsupportedField). */
const UNSUPPORTED =
  K_ID | K_SCHEMA | K_REF | K_PATTERN_PROPERTIES | K_DEPENDENCIES | K_ADDITIONAL_ITEMS | K_DEFINITIONS;
const JUNCTORS = K_ALL_OF | K_ANY_OF | K_ONE_OF;
/** What valueValidation reads. */
const VALUE_VALIDATIONS = JUNCTORS | K_NOT | K_PATTERN;
/** What extensionChecks and mapListKeysMapSetErrors read besides type and items. */
const LIST_AND_MAP_TYPES = K_MAP_TYPE | K_LIST_TYPE | K_LIST_MAP_KEYS;

/** The bits of the keys a node has (JSON objects have only own, enumerable keys). */
function keyBits(s: Rec): number {
  let bits = 0;
  for (const k in s) bits |= KEY_BITS.get(k) ?? 0;
  return bits;
}

type Flags = Required<Omit<StructuralSchemaOptions, 'validateDefault'>>;

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = ['metadata', 'kind', 'apiVersion'];

// ---------------------------------------------------------------------------------------------
// NewStructural: the conversion fails on fields a structural schema has no place for.

function unsupportedField(s: Rec): string | undefined {
  if (str(s, 'id') !== '') return "OpenAPIV3Schema 'id' is not supported";
  if (str(s, '$schema') !== '') return "OpenAPIV3Schema 'schema' is not supported";
  if (str(s, '$ref') !== '') return "OpenAPIV3Schema '$ref' is not supported";
  if (mapSize(s, 'patternProperties') > 0) return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (mapSize(s, 'dependencies') > 0) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (present(s, 'additionalItems')) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (mapSize(s, 'definitions') > 0) return "OpenAPIV3Schema 'definitions' is not supported";
  return undefined;
}

/** The junctors in NewStructural's conversion order (after `not`). */
const CONVERSION_JUNCTORS = ['allOf', 'anyOf', 'oneOf'];

/** The error NewStructural would return for this schema, in its conversion order. */
function newStructuralError(s: Rec): string | undefined {
  const keys = keyBits(s);
  if (keys & UNSUPPORTED) {
    const own = unsupportedField(s);
    if (own) return own;
  }
  if (keys & K_NOT) {
    const not = notSchema(s);
    const notError = not && newStructuralError(not);
    if (notError) return notError;
  }
  if (keys & JUNCTORS) {
    for (const junctor of CONVERSION_JUNCTORS) {
      for (const sub of schemaList(s, junctor)) {
        const e = newStructuralError(sub);
        if (e) return e;
      }
    }
  }
  if (keys & K_PRESERVE_UNKNOWN && s['x-kubernetes-preserve-unknown-fields'] === false) {
    return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  }
  if (keys & K_ITEMS) {
    if (Array.isArray(s['items'])) {
      if (s['items'].length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
    } else {
      const items = itemsSchema(s);
      const e = items && newStructuralError(items);
      if (e) return e;
    }
  }
  const properties = keys & K_PROPERTIES ? schemaMap(s, 'properties') : undefined;
  for (const name in properties) {
    const e = newStructuralError(asRec(properties[name]));
    if (e) return e;
  }
  const ap = keys & K_ADDITIONAL_PROPERTIES ? additionalProperties(s)?.schema : undefined;
  return ap && newStructuralError(ap);
}

/** Whether NewStructural fails at this node itself, its sub-schemas aside (newStructuralError's own checks). */
const failsConversion = (s: Rec, keys: number): boolean =>
  ((keys & UNSUPPORTED) !== 0 && unsupportedField(s) !== undefined) ||
  ((keys & K_PRESERVE_UNKNOWN) !== 0 && s['x-kubernetes-preserve-unknown-fields'] === false) ||
  ((keys & K_ITEMS) !== 0 && listLength(s, 'items') > 0);

// ---------------------------------------------------------------------------------------------
// ValidateStructural. It runs on the converted schema only (after newStructuralError found
// nothing), so neither the unsupported fields nor items arrays are left to meet here.

type Level = 'root' | 'item' | 'field';

/** A node with a default, met by the structural walk, where ValidateDefaults would check it. */
interface Defaulted {
  schema: Rec;
  path: string;
}

/** The structural errors; the nodes whose defaults are to be checked are added to `defaulted`. */
function structuralErrors(root: Rec, path: string, defaulted: Defaulted[]): FieldError[] {
  const errs: FieldError[] = [];
  structuralInvariants(root, 'root', path, errs, defaulted);
  valueValidationCompleteness(root, root, path, path, errs);
  // kube sorts by message, since it walks Go maps in random order.
  const text = errs.map((e) => Buffer.from(formatFieldError(e)));
  return errs
    .map((e, i) => ({ e, t: text[i]! }))
    .sort((a, b) => Buffer.compare(a.t, b.t))
    .map(({ e }) => e);
}

/**
 * `defaulted` collects the defaults ValidateDefaults checks, in its order (a node, then its items,
 * then its properties): none under additionalProperties, where defaults are forbidden, nor in the
 * root's metadata, refused elsewhere; undefined below those.
 */
function structuralInvariants(
  s: Rec,
  lvl: Level,
  path: string,
  errs: FieldError[],
  defaulted: Defaulted[] | undefined,
): void {
  const keys = keyBits(s);
  if (defaulted !== undefined && keys & K_DEFAULT && present(s, 'default')) defaulted.push({ schema: s, path });
  const type = str(s, 'type');
  const items = keys & K_ITEMS ? itemsSchema(s) : undefined;
  if (type === 'array' && !items) errs.push(required(child(path, 'items'), 'must be specified'));
  if (items) structuralInvariants(items, 'item', child(path, 'items'), errs, defaulted);

  const properties = keys & K_PROPERTIES ? schemaMap(s, 'properties') : undefined;
  let hasProperties = false;
  if (properties !== undefined) {
    const propertiesPath = child(path, 'properties');
    for (const name in properties) {
      hasProperties = true;
      const sub = lvl === 'root' && name === 'metadata' ? undefined : defaulted;
      structuralInvariants(asRec(properties[name]), 'field', key(propertiesPath, name), errs, sub);
    }
  }

  const ap = keys & K_ADDITIONAL_PROPERTIES ? additionalProperties(s) : undefined;
  if (ap) {
    if (lvl === 'root') errs.push(forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (ap.schema) structuralInvariants(ap.schema, 'field', child(path, 'additionalProperties'), errs, undefined);
  }

  const intOrString = (keys & K_INT_OR_STRING) !== 0 && isTrue(s, 'x-kubernetes-int-or-string');
  const preserveUnknown = (keys & K_PRESERVE_UNKNOWN) !== 0 && isTrue(s, 'x-kubernetes-preserve-unknown-fields');
  const embedded = (keys & K_EMBEDDED) !== 0 && isTrue(s, 'x-kubernetes-embedded-resource');
  if (intOrString && preserveUnknown) {
    errs.push(
      invalid(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (intOrString && embedded) {
    errs.push(
      invalid(
        child(path, 'x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }

  if (keys & VALUE_VALIDATIONS) {
    // The two int-or-string shapes whose nested types are allowed:
    //   anyOf: [{type: integer}, {type: string}]   and   allOf: [{anyOf: [those two]}, ...]
    const skipAnyOf = isIntOrStringAnyOf(schemaList(s, 'anyOf'));
    const allOf = schemaList(s, 'allOf');
    const skipFirstAllOfAnyOf = allOf.length > 0 && isIntOrStringAnyOf(schemaList(allOf[0]!, 'anyOf'));
    valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, path, errs);
  }

  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    const detail = 'must be object if x-kubernetes-embedded-resource is true';
    errs.push(type === '' ? required(child(path, 'type'), detail) : invalid(child(path, 'type'), type, detail));
  } else if (type === '' && !intOrString && !preserveUnknown) {
    const detail = {
      root: 'must not be empty at the root',
      item: 'must not be empty for specified array items',
      field: 'must not be empty for specified object fields',
    }[lvl];
    errs.push(required(child(path, 'type'), detail));
  }
  if (embedded && ap)
    errs.push(
      forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'),
    );
  if (lvl === 'root' && type !== '' && type !== 'object')
    errs.push(invalid(child(path, 'type'), type, 'must be object at the root'));

  if (properties === undefined && !embedded) return;
  const propertiesPath = child(path, 'properties');
  if (checkMetadata) {
    for (const name of ['kind', 'apiVersion']) {
      const sub = named(properties, name);
      if (sub && str(sub, 'type') !== 'string')
        errs.push(invalid(child(key(propertiesPath, name), 'type'), str(sub, 'type'), 'must be string'));
    }
  }
  const metadata = named(properties, 'metadata');
  if (metadata) {
    const metadataPath = key(propertiesPath, 'metadata');
    if (checkMetadata && str(metadata, 'type') !== 'object') {
      errs.push(invalid(child(metadataPath, 'type'), str(metadata, 'type'), 'must be object'));
    }
    if (lvl === 'root' && !restrictsOnlyNameAndGenerateName(metadata)) {
      errs.push(
        forbidden(
          metadataPath,
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        ),
      );
    }
  }
  if (embedded && !preserveUnknown && !hasProperties) {
    errs.push(
      required(
        propertiesPath,
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
}

/** The value validations (allOf, anyOf, oneOf, not, pattern) of a schema or a nested clause. */
function valueValidation(
  v: Rec,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  lvl: Level,
  path: string,
  errs: FieldError[],
): void {
  if (!skipAnyOf) {
    const anyOf = schemaList(v, 'anyOf');
    for (let i = 0; i < anyOf.length; i++)
      nestedValueValidation(anyOf[i]!, false, lvl, index(child(path, 'anyOf'), i), errs);
  }
  const allOf = schemaList(v, 'allOf');
  for (let i = 0; i < allOf.length; i++)
    nestedValueValidation(allOf[i]!, skipFirstAllOfAnyOf && i === 0, lvl, index(child(path, 'allOf'), i), errs);
  const oneOf = schemaList(v, 'oneOf');
  for (let i = 0; i < oneOf.length; i++)
    nestedValueValidation(oneOf[i]!, false, lvl, index(child(path, 'oneOf'), i), errs);
  const not = notSchema(v);
  if (not) nestedValueValidation(not, false, lvl, child(path, 'not'), errs);

  const pattern = str(v, 'pattern');
  if (pattern !== '') {
    const err = regexpError(pattern);
    if (err !== undefined)
      errs.push(invalid(child(path, 'pattern'), pattern, `must be a valid regular expression, but isn't: ${err}`));
  }
}

/** A clause under allOf/anyOf/oneOf/not may only validate values, never add structure. */
function nestedValueValidation(v: Rec, skipAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  valueValidation(v, skipAnyOf, false, lvl, path, errs);
  const items = itemsSchema(v);
  if (items) nestedValueValidation(items, false, lvl, child(path, 'items'), errs);
  const properties = schemaMap(v, 'properties');
  const names = namesOf(properties);
  for (const name of names)
    nestedValueValidation(asRec(properties![name]), false, 'field', key(child(path, 'properties'), name), errs);

  const mustBe = (field: string, detail: string): void => void errs.push(forbidden(child(path, field), detail));
  if (str(v, 'type') !== '') mustBe('type', 'must be empty to be structural');
  if (nestedAdditionalProperties(v)) mustBe('additionalProperties', 'must be undefined to be structural');
  if (present(v, 'default')) mustBe('default', 'must be undefined to be structural');
  if (str(v, 'title') !== '') mustBe('title', 'must be empty to be structural');
  if (str(v, 'description') !== '') mustBe('description', 'must be empty to be structural');
  if (isTrue(v, 'nullable')) mustBe('nullable', 'must be false to be structural');
  for (const ext of [
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-embedded-resource',
    'x-kubernetes-int-or-string',
  ]) {
    if (isTrue(v, ext)) mustBe(ext, 'must be false to be structural');
  }
  if (listLength(v, 'x-kubernetes-list-map-keys') > 0)
    mustBe('x-kubernetes-list-map-keys', 'must be empty to be structural');
  if (present(v, 'x-kubernetes-list-type')) mustBe('x-kubernetes-list-type', 'must be undefined to be structural');
  if (present(v, 'x-kubernetes-map-type')) mustBe('x-kubernetes-map-type', 'must be undefined to be structural');
  if (listLength(v, 'x-kubernetes-validations') > 0)
    mustBe('x-kubernetes-validations', 'must be empty to be structural');
  // reasoning about metadata in a clause could restrict it in ways kube does not want
  if (names.includes('metadata')) {
    errs.push(forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  }
}

/** In a nested clause `additionalProperties: false` converts to nothing; `true` or a schema count. */
const nestedAdditionalProperties = (v: Rec): boolean =>
  v['additionalProperties'] === true || isJsonObject(v['additionalProperties']);

/** Every field or array a clause (of the root) speaks about must be specified by the structure. */
function valueValidationCompleteness(v: Rec, s: Rec, sPath: string, vPath: string, errs: FieldError[]): void {
  const not = notSchema(v);
  if (not) nestedCompleteness(not, s, sPath, child(vPath, 'not'), errs);
  for (const junctor of ['allOf', 'anyOf', 'oneOf']) {
    schemaList(v, junctor).forEach((sub, i) =>
      nestedCompleteness(sub, s, sPath, index(child(vPath, junctor), i), errs),
    );
  }
}

function nestedCompleteness(v: Rec, s: Rec | undefined, sPath: string, vPath: string, errs: FieldError[]): void {
  if (!s) {
    errs.push(required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  valueValidationCompleteness(v, s, sPath, vPath, errs);
  const vItems = itemsSchema(v);
  if (vItems) nestedCompleteness(vItems, itemsSchema(s), child(sPath, 'items'), child(vPath, 'items'), errs);
  const sProperties = schemaMap(s, 'properties');
  const vProperties = schemaMap(v, 'properties');
  for (const name of namesOf(vProperties)) {
    nestedCompleteness(
      asRec(vProperties![name]),
      named(sProperties, name),
      key(child(sPath, 'properties'), name),
      key(child(vPath, 'properties'), name),
      errs,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Comparisons kube makes with reflect.DeepEqual on the converted schema. What counts as "set"
// follows the conversion: slices copied as they are (required, list-map-keys, validations) are
// set even when empty, slices built by appending (enum, allOf, anyOf, oneOf) only when not.

/** Made once: int-or-string's anyOf clauses are checked at every node that has one (thousands in the corpus). */
const UNSET_POINTERS = [
  'maximum',
  'minimum',
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'multipleOf',
  'maxProperties',
  'minProperties',
  'not',
  'required',
];
const APPENDED_SLICES = ['enum', 'allOf', 'anyOf', 'oneOf'];

function valueValidationIsZero(s: Rec): boolean {
  if (str(s, 'format') !== '' || str(s, 'pattern') !== '') return false;
  if (isTrue(s, 'exclusiveMaximum') || isTrue(s, 'exclusiveMinimum') || isTrue(s, 'uniqueItems')) return false;
  for (const k of UNSET_POINTERS) if (present(s, k)) return false;
  for (const k of APPENDED_SLICES) if (listLength(s, k) > 0) return false;
  return true;
}

function extensionsAreZero(s: Rec): boolean {
  return (
    !isTrue(s, 'x-kubernetes-preserve-unknown-fields') &&
    !isTrue(s, 'x-kubernetes-embedded-resource') &&
    !isTrue(s, 'x-kubernetes-int-or-string') &&
    !present(s, 'x-kubernetes-list-map-keys') &&
    !present(s, 'x-kubernetes-list-type') &&
    !present(s, 'x-kubernetes-map-type')
  );
}

/** A clause that is exactly `{type: <type>}` once converted. */
function isOnlyType(s: Rec, type: string): boolean {
  return (
    str(s, 'type') === type &&
    valueValidationIsZero(s) &&
    extensionsAreZero(s) &&
    !present(s, 'x-kubernetes-validations') &&
    !itemsSchema(s) &&
    !present(s, 'properties') &&
    !nestedAdditionalProperties(s) &&
    !present(s, 'default') &&
    str(s, 'title') === '' &&
    str(s, 'description') === '' &&
    !isTrue(s, 'nullable')
  );
}

const isIntOrStringAnyOf = (anyOf: readonly Rec[]): boolean =>
  anyOf.length === 2 && isOnlyType(anyOf[0]!, 'integer') && isOnlyType(anyOf[1]!, 'string');

/** The root's metadata schema may be `type: object` plus schemas for name and generateName only. */
function restrictsOnlyNameAndGenerateName(m: Rec): boolean {
  const names = namesOf(schemaMap(m, 'properties'));
  const onlyNames = names.every((n) => n === 'name' || n === 'generateName') && new Set(names).size === names.length;
  return (
    onlyNames &&
    !itemsSchema(m) &&
    additionalProperties(m) === undefined &&
    str(m, 'description') === '' &&
    str(m, 'title') === '' &&
    !isTrue(m, 'nullable') &&
    extensionsAreZero(m) &&
    !present(m, 'x-kubernetes-validations') &&
    valueValidationIsZero(m)
  );
}

// ---------------------------------------------------------------------------------------------
// Regular expressions are Go's (RE2): re2js reports Go's parse errors in Go's words.

function regexpError(pattern: string): string | undefined {
  const message = compilePattern(pattern).error;
  if (message === undefined) return undefined;
  // Go's syntax.Error always ends in ": `<expr>`", even with an empty expression.
  return message.startsWith('error parsing regexp: ') && !message.endsWith('`') ? `${message}: \`\`` : message;
}

// ---------------------------------------------------------------------------------------------
// ValidateCustomResourceDefinitionOpenAPISchema.

interface NodeContext {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  /** Inside the schema of TypeMeta or ObjectMeta, at the root or of an embedded resource. */
  insideResourceMeta: boolean;
}

const withForbiddenDefaults = (ctx: NodeContext, reason: string): NodeContext => ({
  ...ctx,
  allowDefaults: false,
  disallowDefaultsReason: reason,
});

/** One walk of ValidateCustomResourceDefinitionOpenAPISchema. */
interface OpenAPIWalk {
  readonly opts: Flags;
  readonly errs: FieldError[];
  /** No node met so far fails NewStructural's conversion (failsConversion). */
  convertible: boolean;
}

/** The junctors in the order ValidateCustomResourceDefinitionOpenAPISchema walks them. */
const VALIDATION_JUNCTORS = ['allOf', 'oneOf', 'anyOf'];

function validateOpenAPISchema(s: Rec, path: string, ctx: NodeContext, isRoot: boolean, w: OpenAPIWalk): void {
  const keys = keyBits(s);
  if (w.convertible && failsConversion(s, keys)) w.convertible = false;
  const { opts, errs } = w;
  standardChecks(s, keys, path, ctx, opts, errs);

  if (keys & K_UNIQUE_ITEMS && isTrue(s, 'uniqueItems')) {
    errs.push(
      forbidden(
        child(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }

  const properties = keys & K_PROPERTIES ? schemaMap(s, 'properties') : undefined;
  const ap = keys & K_ADDITIONAL_PROPERTIES ? additionalProperties(s) : undefined;
  if (ap) {
    // properties are for structs, additionalProperties for maps: together they would contradict
    // the convention that unknown fields are dropped
    if (namesOf(properties).length > 0 && (!ap.allows || ap.schema)) {
      errs.push(
        forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'),
      );
    }
    // pruning a default inside a metadata map is ambiguous
    const sub = ctx.insideResourceMeta
      ? withForbiddenDefaults(ctx, 'inside additionalProperties applying to object metadata')
      : ctx;
    if (ap.schema) validateOpenAPISchema(ap.schema, child(path, 'additionalProperties'), sub, false, w);
  }

  if (properties !== undefined) {
    const embedded = (keys & K_EMBEDDED) !== 0 && isTrue(s, 'x-kubernetes-embedded-resource');
    const propertiesPath = child(path, 'properties');
    for (const name in properties) {
      let sub = ctx;
      if ((isRoot || embedded) && META_FIELDS.includes(name)) {
        sub = { ...sub, insideResourceMeta: true };
        if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${name}`);
      }
      validateOpenAPISchema(asRec(properties[name]), key(propertiesPath, name), sub, false, w);
    }
  }

  if (keys & K_NOT) {
    const not = notSchema(s);
    if (not) validateOpenAPISchema(not, child(path, 'not'), ctx, false, w);
  }
  if (keys & JUNCTORS) {
    for (const junctor of VALIDATION_JUNCTORS) {
      const subs = schemaList(s, junctor);
      for (let i = 0; i < subs.length; i++)
        validateOpenAPISchema(subs[i]!, index(child(path, junctor), i), ctx, false, w);
    }
  }
  if (keys & K_DEFINITIONS) {
    const definitions = schemaMap(s, 'definitions');
    for (const name of namesOf(definitions))
      validateOpenAPISchema(asRec(definitions![name]), key(child(path, 'definitions'), name), ctx, false, w);
  }
  if (keys & K_ITEMS) {
    const items = itemsSchema(s);
    if (items) validateOpenAPISchema(items, child(path, 'items'), ctx, false, w);
    const itemsList = schemaList(s, 'items');
    for (let i = 0; i < itemsList.length; i++)
      validateOpenAPISchema(itemsList[i]!, index(child(path, 'items'), i), ctx, false, w);
  }
  const dependencies = keys & K_DEPENDENCIES ? s['dependencies'] : undefined;
  if (isJsonObject(dependencies)) {
    for (const [name, dep] of Object.entries(dependencies)) {
      // a dependency is a schema or a list of property names
      if (isJsonObject(dep)) validateOpenAPISchema(dep, key(child(path, 'dependencies'), name), ctx, false, w);
    }
  }

  if (keys & K_PRESERVE_UNKNOWN && s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  if (keys & LIST_AND_MAP_TYPES) {
    extensionChecks(s, path, opts, errs);
    if (opts.requireMapListKeysMapSetValidation) appendAll(errs, mapListKeysMapSetErrors(s, path));
  }
}

const OPENAPI_V3_TYPE_SET: ReadonlySet<string> = new Set(OPENAPI_V3_TYPES);

/** kube's specStandardValidatorV3: keywords CRD schemas do not support. */
function standardChecks(s: Rec, keys: number, path: string, ctx: NodeContext, opts: Flags, errs: FieldError[]): void {
  const type = str(s, 'type');
  if (opts.requireValidPropertyType && type !== '' && !OPENAPI_V3_TYPE_SET.has(type)) {
    errs.push(notSupported(child(path, 'type'), type, OPENAPI_V3_TYPES));
  }
  if (keys & K_DEFAULT && present(s, 'default') && !ctx.allowDefaults) {
    const reason = ctx.disallowDefaultsReason ? ` ${ctx.disallowDefaultsReason}` : '';
    errs.push(forbidden(child(path, 'default'), `must not be set${reason}`));
  }
  if (keys & K_ID && str(s, 'id') !== '') errs.push(forbidden(child(path, 'id'), 'id is not supported'));
  if (keys & K_ADDITIONAL_ITEMS && present(s, 'additionalItems'))
    errs.push(forbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (keys & K_PATTERN_PROPERTIES && mapSize(s, 'patternProperties') > 0)
    errs.push(forbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  if (keys & K_DEFINITIONS && mapSize(s, 'definitions') > 0)
    errs.push(forbidden(child(path, 'definitions'), 'definitions is not supported'));
  if (keys & K_DEPENDENCIES && present(s, 'dependencies'))
    errs.push(forbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (keys & K_REF && present(s, '$ref')) errs.push(forbidden(child(path, '$ref'), '$ref is not supported'));
  if (type === 'null')
    errs.push(forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (keys & K_ITEMS && listLength(s, 'items') > 0)
    errs.push(forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (keys & K_EMBEDDED && ctx.insideResourceMeta && isTrue(s, 'x-kubernetes-embedded-resource')) {
    errs.push(forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
}

/** x-kubernetes-map-type, x-kubernetes-list-type and x-kubernetes-list-map-keys. */
function extensionChecks(s: Rec, path: string, opts: Flags, errs: FieldError[]): void {
  const type = str(s, 'type');
  const mapType = s['x-kubernetes-map-type'];
  if (present(s, 'x-kubernetes-map-type')) {
    if (type !== 'object') {
      const detail = 'must be object if x-kubernetes-map-type is specified';
      errs.push(type === '' ? required(child(path, 'type'), detail) : invalid(child(path, 'type'), type, detail));
    }
    if (mapType !== 'atomic' && mapType !== 'granular')
      errs.push(notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }

  const listType = present(s, 'x-kubernetes-list-type') ? s['x-kubernetes-list-type'] : undefined;
  const items = itemsSchema(s);
  if (listType !== undefined && type !== 'array') {
    const detail = 'must be array if x-kubernetes-list-type is specified';
    errs.push(type === '' ? required(child(path, 'type'), detail) : invalid(child(path, 'type'), type, detail));
  } else if (opts.requireAtomicSetType && listType === 'set' && items) {
    const detail = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    const itemListType = present(items, 'x-kubernetes-list-type') ? items['x-kubernetes-list-type'] : undefined;
    if (str(items, 'type') === 'array' && itemListType !== undefined && itemListType !== 'atomic') {
      errs.push(invalid(child(child(path, 'items'), 'x-kubernetes-list-type'), itemListType, detail));
    } else if (str(items, 'type') === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // kube reports the item's list type here, not its map type
      errs.push(invalid(child(child(path, 'items'), 'x-kubernetes-map-type'), itemListType, detail));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }

  if (listLength(s, 'x-kubernetes-list-map-keys') > 0) {
    const detail = 'must be map if x-kubernetes-list-map-keys is non-empty';
    if (listType === undefined) errs.push(required(child(path, 'x-kubernetes-list-type'), detail));
    else if (listType !== 'map') errs.push(invalid(child(path, 'x-kubernetes-list-type'), listType, detail));
  }
  if (listType === 'map') {
    const mapKeys = stringList(s, 'x-kubernetes-list-map-keys');
    const keysPath = child(path, 'x-kubernetes-list-map-keys');
    if (listLength(s, 'x-kubernetes-list-map-keys') === 0)
      errs.push(required(keysPath, 'must not be empty if x-kubernetes-list-type is map'));
    if (!present(s, 'items'))
      errs.push(required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(s['items'])) {
      errs.push(
        invalid(
          child(path, 'items'),
          goItemsArray(s['items']),
          'must only have a single schema if x-kubernetes-list-type is map',
        ),
      );
    }
    if (items && str(items, 'type') !== 'object') {
      errs.push(
        invalid(
          child(child(path, 'items'), 'type'),
          str(items, 'type'),
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    }
    if (items && str(items, 'type') === 'object') {
      const itemProperties = schemaMap(items, 'properties');
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const prop = named(itemProperties, k);
        if (!prop) {
          errs.push(invalid(keysPath, goStringSlice(mapKeys), 'entries must all be names of item properties'));
        } else if (str(prop, 'type') === 'array' || str(prop, 'type') === 'object') {
          // kube reports the item's type ("object") as the bad value
          const propTypePath = child(key(child(child(path, 'items'), 'properties'), k), 'type');
          errs.push(
            invalid(
              propTypePath,
              str(items, 'type'),
              "must be a scalar type if parent array's x-kubernetes-list-type is map",
            ),
          );
        }
        if (seen.has(k)) errs.push(invalid(keysPath, goStringSlice(mapKeys), 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
}

const NO_ERRORS: readonly FieldError[] = [];

/** Set and map list items are not nullable; map keys are required or defaulted, and not nullable. */
function mapListKeysMapSetErrors(s: Rec, path: string): readonly FieldError[] {
  const items = itemsSchema(s);
  const listType = s['x-kubernetes-list-type'];
  if (!items || (listType !== 'set' && listType !== 'map')) return NO_ERRORS;
  const errs: FieldError[] = [];
  const itemsPath = child(path, 'items');
  if (isTrue(items, 'nullable'))
    errs.push(forbidden(child(itemsPath, 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType === 'map') {
    const requiredKeys = new Set(stringList(items, 'required'));
    const itemProperties = schemaMap(items, 'properties');
    for (const k of stringList(s, 'x-kubernetes-list-map-keys')) {
      const prop = named(itemProperties, k);
      if (!prop) continue; // reported as "entries must all be names of item properties"
      const propPath = key(child(itemsPath, 'properties'), k);
      if (!requiredKeys.has(k) && !present(prop, 'default')) {
        errs.push(
          required(
            child(propPath, 'default'),
            'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
          ),
        );
      }
      if (isTrue(prop, 'nullable')) {
        errs.push(
          forbidden(
            child(propPath, 'nullable'),
            'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
          ),
        );
      }
    }
  }
  return errs;
}

function hasNonAtomicSetItems(s: Rec): boolean {
  const items = itemsSchema(s);
  if (s['x-kubernetes-list-type'] !== 'set' || !items) return false;
  if (str(items, 'type') === 'array')
    return present(items, 'x-kubernetes-list-type') && items['x-kubernetes-list-type'] !== 'atomic';
  if (str(items, 'type') === 'object') return items['x-kubernetes-map-type'] !== 'atomic';
  return false;
}

/** The keys that hold sub-schemas. */
const SUB_SCHEMAS =
  K_ITEMS |
  K_ADDITIONAL_PROPERTIES |
  K_ADDITIONAL_ITEMS |
  K_NOT |
  JUNCTORS |
  K_PROPERTIES |
  K_PATTERN_PROPERTIES |
  K_DEFINITIONS |
  K_DEPENDENCIES;

const addSchema = (out: JSONSchemaProps[], v: unknown): void => {
  if (isJsonObject(v)) out.push(v as JSONSchemaProps);
};
const addSchemas = (out: JSONSchemaProps[], list: unknown): void => {
  if (Array.isArray(list)) for (const v of list) addSchema(out, v);
};
const addSchemaValues = (out: JSONSchemaProps[], map: unknown): void => {
  if (isJsonObject(map)) for (const k in map) addSchema(out, map[k]);
};

/**
 * Adds the sub-schemas of a schema, of every keyword that holds one (every place JSONSchemaProps
 * nests), to `out`. A `null` where a schema goes is none: it is a zero schema, which has nothing.
 */
export function addSubSchemas(schema: JSONSchemaProps, out: JSONSchemaProps[]): void {
  const s = asRec(schema);
  const keys = keyBits(s);
  if ((keys & SUB_SCHEMAS) === 0) return;
  if (keys & K_ITEMS) {
    const items = s['items'];
    if (Array.isArray(items)) addSchemas(out, items);
    else addSchema(out, items);
  }
  if (keys & K_ADDITIONAL_PROPERTIES) addSchema(out, s['additionalProperties']);
  if (keys & K_ADDITIONAL_ITEMS) addSchema(out, s['additionalItems']);
  if (keys & K_NOT) addSchema(out, s['not']);
  if (keys & K_ALL_OF) addSchemas(out, s['allOf']);
  if (keys & K_ANY_OF) addSchemas(out, s['anyOf']);
  if (keys & K_ONE_OF) addSchemas(out, s['oneOf']);
  if (keys & K_PROPERTIES) addSchemaValues(out, s['properties']);
  if (keys & K_PATTERN_PROPERTIES) addSchemaValues(out, s['patternProperties']);
  if (keys & K_DEFINITIONS) addSchemaValues(out, s['definitions']);
  if (keys & K_DEPENDENCIES) addSchemaValues(out, s['dependencies']);
}

/** Whether any schema in the tree (every place JSONSchemaProps nests) satisfies `pred`. */
export function schemaHas(schema: JSONSchemaProps, pred: (s: Rec) => boolean): boolean {
  const stack = [schema];
  for (let s = stack.pop(); s !== undefined; s = stack.pop()) {
    if (pred(asRec(s))) return true;
    addSubSchemas(s, stack);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Bad values kube prints with Go's %#v.

/** An items array: Go prints the struct with pointer addresses, which no one can reproduce. */
const goItemsArray = (items: unknown[]): GoPrinted =>
  new GoPrinted(
    `apiextensions.JSONSchemaPropsOrArray{Schema:(*apiextensions.JSONSchemaProps)(nil), JSONSchemas:[]apiextensions.JSONSchemaProps{${items.length ? '...' : ''}}}`,
  );
