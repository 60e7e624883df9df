// How big a CRD's data can be, as kube tells the cost estimator: the sizes kube's schema-to-CEL
// mapping attaches to each declared type (k8s.io/apiserver/pkg/cel/common/schemas.go
// SchemaDeclType, types.go DeclType.MaxElements / MinSerializedSize) and the size estimator
// apiextensions-apiserver hands cel-go (pkg/apiserver/schema/cel/compilation.go sizeEstimator).
// Unbounded strings, lists and maps are bounded by what fits in one 3 MiB request.
import type { AstNode, CostEstimator, SizeEstimate } from '../cost.js';
import { escapeFieldName } from './escaping.js';

/**
 * The parts of a structural OpenAPI v3 schema sizes depend on (JSON field names). apiextensions'
 * JSONSchemaProps fits it: `items` may be an array there and `additionalProperties` a boolean,
 * neither of which is a schema CEL sees (itemsOf, additionalPropertiesOf).
 */
export interface KubeSchema {
  readonly type?: string;
  readonly format?: string;
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly enum?: readonly unknown[];
  readonly items?: KubeSchema | readonly KubeSchema[];
  readonly properties?: Readonly<Record<string, KubeSchema>>;
  readonly additionalProperties?: KubeSchema | boolean;
  readonly required?: readonly string[];
  readonly default?: unknown;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
}

/** A list's item schema; an array of them (JSON Schema's tuple form) is none. */
export const itemsOf = <S extends { readonly items?: S | readonly S[] }>(s: S): S | undefined =>
  s.items === undefined || Array.isArray(s.items) ? undefined : (s.items as S);
/** A map's value schema; `additionalProperties: true` is none (kube's Schema() of a bool is nil). */
export const additionalPropertiesOf = <S extends { readonly additionalProperties?: S | boolean }>(
  s: S,
): S | undefined => (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);

/** A declared type's sizes (kube's DeclType, as far as sizes go). */
export interface SizedType {
  /** Largest size(): code points or bytes of a string, items of a list, entries of a map; 0 for the rest. */
  readonly maxElements: number;
  /** Fewest bytes a value takes in JSON: what bounds how many fit in a request. */
  readonly minSerializedSize: number;
  readonly elem?: SizedType;
  readonly key?: SizedType;
  /** Object fields by CEL (escaped) name. */
  readonly fields?: ReadonlyMap<string, SizedType>;
}

/** k8s.io/apiserver/pkg/apis/cel/config.go MaxRequestSizeBytes. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

// k8s.io/apiserver/pkg/cel/limits.go: JSON sizes, quotes included.
const MAX_DURATION_SIZE_JSON = 32;
const MAX_DATETIME_SIZE_JSON = 32;
const MIN_DURATION_SIZE_JSON = 3;
const JSON_DATE_SIZE = 12;
const MIN_DATETIME_SIZE_JSON = 21;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;

const simple = (minSerializedSize: number, maxElements = 0): SizedType => ({ maxElements, minSerializedSize });

/**
 * Map keys are kube's shared `string` type, whose MaxElements is never set: a key is sized 0
 * whatever maxLength or maxProperties say, which is why `self.all(k, k.matches(...))` on a map
 * is cheap in kube.
 */
const MAP_KEY = simple(MIN_STRING_SIZE);

const zeroIfNegative = (n: number): number => Math.max(n, 0);
const div = (a: number, b: number): number => Math.trunc(a / b);

/** maxLength is in code points and a code point may take 4 bytes; kube sizes strings in bytes. */
const maxElementsFromMaxLength = (maxLength: number): number => zeroIfNegative(maxLength) * 4;

function maxStringLengthPerRequest(s: KubeSchema): number {
  if (s['x-kubernetes-int-or-string'] === true) return MAX_REQUEST_SIZE_BYTES - 2;
  switch (s.format) {
    case 'duration':
      return MAX_DURATION_SIZE_JSON;
    case 'date':
      return JSON_DATE_SIZE;
    case 'date-time':
      return MAX_DATETIME_SIZE_JSON;
    default:
      return MAX_REQUEST_SIZE_BYTES - 2; // the quotes
  }
}

/** The longest enum value in bytes (Go's len()). */
function maxEnumLength(values: readonly unknown[]): number {
  let max = 0;
  for (const v of values) if (typeof v === 'string') max = Math.max(max, Buffer.byteLength(v, 'utf8'));
  return max;
}

const STRING_PROPERTY: KubeSchema = { type: 'string' };

/**
 * apiextensions' WithTypeAndObjectMeta: a resource's root (the CR's, or an embedded one's)
 * always has string kind and apiVersion and a metadata of just name and generateName, whatever
 * the schema says of metadata otherwise (unless it already declares all four as strings).
 */
export function withTypeAndObjectMeta<S extends KubeSchema>(s: S): S {
  let out = withMeta.get(s);
  if (out === undefined) withMeta.set(s, (out = addTypeAndObjectMeta(s)));
  return out as S;
}

/** Each schema's resource-root form, made once: every write of a resource converts its root. */
const withMeta = new WeakMap<KubeSchema, KubeSchema>();

function addTypeAndObjectMeta<S extends KubeSchema>(s: S): S {
  const p = s.properties;
  const meta = p?.metadata;
  if (
    p?.kind?.type === 'string' &&
    p.apiVersion?.type === 'string' &&
    meta?.type === 'object' &&
    meta.properties?.name?.type === 'string' &&
    meta.properties.generateName?.type === 'string'
  ) {
    return s;
  }
  const properties = {
    ...p,
    kind: STRING_PROPERTY,
    apiVersion: STRING_PROPERTY,
    metadata: { type: 'object', properties: { name: STRING_PROPERTY, generateName: STRING_PROPERTY } },
  };
  // The added properties are plain string and object schemas, which every S extending KubeSchema takes.
  return { ...s, properties } as S;
}

/** The sizes kube attaches to a schema's CEL type, or undefined where the schema is not visible to CEL (SchemaDeclType). */
export function schemaSizes(schema: KubeSchema, isResourceRoot = false): SizedType | undefined {
  if (schema['x-kubernetes-int-or-string'] === true) {
    // The smallest int-or-string is `0`.
    return simple(
      1,
      schema.maxLength !== undefined ? maxElementsFromMaxLength(schema.maxLength) : maxStringLengthPerRequest(schema),
    );
  }
  const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  switch (s.type) {
    case 'array': {
      const items = itemsOf(s);
      if (items === undefined) return undefined;
      const elem = schemaSizes(items, items['x-kubernetes-embedded-resource'] === true);
      if (elem === undefined) return undefined;
      // Each item needs at least its own size and a comma; the brackets take 2.
      const maxItems =
        s.maxItems !== undefined
          ? zeroIfNegative(s.maxItems)
          : div(MAX_REQUEST_SIZE_BYTES - 2, elem.minSerializedSize + 1);
      return { maxElements: maxItems, minSerializedSize: 2, elem };
    }
    case 'object': {
      const ap = additionalPropertiesOf(s);
      if (ap !== undefined) {
        const elem = schemaSizes(ap, ap['x-kubernetes-embedded-resource'] === true);
        if (elem === undefined) return undefined;
        // Each entry needs `"":` and a comma besides its value; the braces take 2.
        const maxProps =
          s.maxProperties !== undefined
            ? zeroIfNegative(s.maxProperties)
            : div(MAX_REQUEST_SIZE_BYTES - 2, elem.minSerializedSize + 6);
        return { maxElements: maxProps, minSerializedSize: 2, elem, key: MAP_KEY };
      }
      const fields = new Map<string, SizedType>();
      const required = new Set(s.required ?? []);
      let minSize = 2;
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const t = schemaSizes(prop, prop['x-kubernetes-embedded-resource'] === true);
        if (t === undefined) continue;
        const celName = escapeFieldName(name);
        if (celName !== undefined) fields.set(celName, t);
        // A required property without a default must be sent: `"name":` and a comma with its value.
        if (required.has(name) && prop.default === undefined)
          minSize += Buffer.byteLength(name, 'utf8') + t.minSerializedSize + 4;
      }
      return { maxElements: 0, minSerializedSize: minSize, fields };
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return simple(
            MIN_STRING_SIZE,
            s.maxLength !== undefined ? zeroIfNegative(s.maxLength) : maxStringLengthPerRequest(s),
          );
        case 'duration':
          return simple(MIN_DURATION_SIZE_JSON, maxStringLengthPerRequest(s));
        case 'date':
          return simple(JSON_DATE_SIZE, maxStringLengthPerRequest(s));
        case 'date-time':
          return simple(MIN_DATETIME_SIZE_JSON, maxStringLengthPerRequest(s));
      }
      if (s.maxLength !== undefined) return simple(MIN_STRING_SIZE, maxElementsFromMaxLength(s.maxLength));
      return simple(
        MIN_STRING_SIZE,
        s.enum !== undefined && s.enum.length > 0 ? maxEnumLength(s.enum) : maxStringLengthPerRequest(s),
      );
    case 'boolean':
      return simple(MIN_BOOL_SIZE);
    case 'number':
    case 'integer':
      return simple(MIN_NUMBER_SIZE);
    default:
      return undefined;
  }
}

/**
 * apiextensions-apiserver's size estimator: follows a node's path from the rule's `self` and
 * answers the type's MaxElements. The path's first element is skipped unread, so a path that
 * does not start at `self` (a ternary's iteration variable gets just `@items`) lands on the
 * root's size: kube's behaviour, kept.
 */
export class SchemaSizeEstimator implements Pick<CostEstimator, 'estimateSize'> {
  constructor(private readonly root: SizedType) {}

  estimateSize(node: AstNode): SizeEstimate | undefined {
    if (node.path.length === 0) return undefined;
    let t: SizedType | undefined = this.root;
    for (const step of node.path.slice(1)) {
      if (step === '@items' || step === '@values') t = t.elem;
      else if (step === '@keys') t = t.key;
      else t = t.fields?.get(step);
      if (t === undefined) return undefined;
    }
    return { min: 0n, max: BigInt(t.maxElements) };
  }
}
