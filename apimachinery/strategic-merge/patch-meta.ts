// The patch metadata strategic merge patch reads from a kind's Go struct tags (patchStrategy,
// patchMergeKey): the fields that carry tags or hold structs, derived from the kind's OpenAPI schema.
import type { JSONSchemaProps } from '../apis/apiextensions.js';
import { META_DEFINITIONS, OBJECT_META } from '../apis/meta-schemas.js';
import { patchExtensions } from '../apis/patch-extensions.js';

/** A Go `patchStrategy` tag value. retainKeys only steers the client's diff; applying ignores it. */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

/** The tags of one struct field, and the metadata of its type (a list's: its element type). */
export interface FieldPatchMeta {
  readonly patchStrategy?: PatchStrategy;
  readonly patchMergeKey?: string;
  readonly type?: PatchMeta;
}

/**
 * The metadata of a struct (`fields`) or of a Go map whose values are structs (`mapValues`). A field
 * absent here has no tags, as kube treats an untagged field: maps merge, lists replace.
 */
export interface PatchMeta {
  readonly fields?: Readonly<Record<string, FieldPatchMeta>>;
  readonly mapValues?: PatchMeta;
}

const NO_META: FieldPatchMeta = {};

/** forkedjson.LookupPatchMetadata: a map type's values share one type; a struct's field has its own tags. */
export function lookupPatchMeta(meta: PatchMeta | undefined, key: string): FieldPatchMeta {
  if (!meta) return NO_META;
  if (meta.mapValues) return { type: meta.mapValues };
  const fields = meta.fields;
  // Own properties only: a key such as `__proto__` must not find Object.prototype.
  if (fields && Object.hasOwn(fields, key)) return fields[key]!;
  return NO_META;
}

// ---------------------------------------------------------------------------------------------
// From a kind's OpenAPI schema (kube's PatchMetaFromOpenAPI): openapi-gen writes the Go struct tags
// into the schema as x-kubernetes-patch-strategy and x-kubernetes-patch-merge-key, so the schema
// says what the tags say.

const DEFINITION_PREFIX = '#/definitions/';
const STRATEGIES: ReadonlySet<string> = new Set<PatchStrategy>(['merge', 'replace', 'retainKeys', 'merge,retainKeys']);

interface Derivation {
  readonly definitions: Readonly<Record<string, JSONSchemaProps>>;
  /** Named definitions' metadata, each built once (a recursive definition refers to its own). */
  readonly named: Map<string, PatchMeta>;
}

/** The schema a `$ref` names, or the schema itself. */
function resolve(s: JSONSchemaProps, d: Derivation): { schema: JSONSchemaProps; name?: string } {
  if (s.$ref === undefined) return { schema: s };
  const name = s.$ref.startsWith(DEFINITION_PREFIX) ? s.$ref.slice(DEFINITION_PREFIX.length) : s.$ref;
  const schema = d.definitions[name];
  if (!schema) throw new Error(`no definition ${name} for $ref ${s.$ref}`);
  return { schema, name };
}

/** The metadata of a struct or of a map of structs; undefined for what holds no struct (scalars, free-form). */
function metaOf(s: JSONSchemaProps, d: Derivation): PatchMeta | undefined {
  const { schema, name } = resolve(s, d);
  if (name !== undefined) {
    const known = d.named.get(name);
    if (known) return known;
  }
  const { properties, additionalProperties: additional } = schema;
  if (properties === undefined) {
    // A Go map: its values' metadata, when they are structs.
    const values = typeof additional === 'object' ? metaOf(additional, d) : undefined;
    return values && { mapValues: values };
  }
  // Registered before its fields are read, so a definition that reaches itself finds it.
  const fields: Record<string, FieldPatchMeta> = {};
  const meta: PatchMeta = { fields };
  if (name !== undefined) d.named.set(name, meta);
  for (const [key, property] of Object.entries(properties)) {
    const field = fieldMetaOf(property, d);
    if (field) fields[key] = field;
  }
  return meta;
}

/** One property's tags and the metadata of its type (a list's: its items'); undefined when it has neither. */
function fieldMetaOf(property: JSONSchemaProps, d: Derivation): FieldPatchMeta | undefined {
  const { 'x-kubernetes-patch-strategy': strategy, 'x-kubernetes-patch-merge-key': mergeKey } =
    patchExtensions(property);
  if (strategy !== undefined && !STRATEGIES.has(strategy)) throw new Error(`unknown patch strategy ${strategy}`);
  const { schema } = resolve(property, d);
  const items = schema.type === 'array' && schema.items && !Array.isArray(schema.items) ? schema.items : undefined;
  const type = metaOf(items ?? property, d);
  if (strategy === undefined && mergeKey === undefined && type === undefined) return undefined;
  return {
    ...(strategy === undefined ? {} : { patchStrategy: strategy as PatchStrategy }),
    ...(mergeKey === undefined ? {} : { patchMergeKey: mergeKey }),
    ...(type === undefined ? {} : { type }),
  };
}

const derived = new WeakMap<JSONSchemaProps, PatchMeta>();

/**
 * The patch metadata of a kind whose OpenAPI schema is `schema` (its definitions beside it), with
 * ObjectMeta's at `metadata` as every kind has it.
 */
export function patchMetaFromSchema(schema: JSONSchemaProps): PatchMeta {
  let meta = derived.get(schema);
  if (meta) return meta;
  const d: Derivation = { definitions: { ...META_DEFINITIONS, ...schema.definitions }, named: new Map() };
  const root = metaOf(schema, d);
  const metadata = fieldMetaOf({ $ref: DEFINITION_PREFIX + OBJECT_META }, d);
  meta = { fields: { ...root?.fields, ...(metadata ? { metadata } : {}) } };
  derived.set(schema, meta);
  return meta;
}
