// Structural pruning of custom resources, as kube-apiserver does it
// (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go, plus the ObjectMeta
// coercion of pkg/apiserver/schema/objectmeta/coerce.go for embedded resources).
//
// What kube does, and this module mirrors:
// - A field is kept when the schema names it in `properties`, or when the object has
//   `additionalProperties` (a schema, or a boolean: then the value is pruned against "no schema",
//   i.e. objects inside it are emptied). Anything else is deleted and its path reported.
// - An object or array value with no schema at all loses every object field below it (arrays are
//   walked, scalars kept).
// - `x-kubernetes-preserve-unknown-fields: true`: unknown fields of that node are kept (and not
//   walked); known properties and additionalProperties values are still pruned by their own schema;
//   array items are walked in the same "preserving" mode. The flag is not inherited by the schema
//   inside `additionalProperties` or `properties`.
// - `x-kubernetes-embedded-resource: true` (and the resource root when `isResourceRoot`):
//   `apiVersion`, `kind` and `metadata` are never pruned by the schema. The embedded `metadata` is
//   instead cut down to ObjectMeta's own fields (objectmeta.Coerce round-trips it through the Go
//   type); this module does that too and reports those paths the way kube does.
//
// Reported paths (kube's PruneWithOptions with TrackUnknownFieldPaths, UnknownFieldPathOptions):
// every key is joined with "." (map keys under additionalProperties too: `spec.labels.foo.bar`,
// never `[foo]`), list items as `[i]` (`spec.items[0].nmae`); only the topmost pruned key of a
// subtree is reported; apiVersion/kind/metadata deleted at the very top (not resource root) are
// dropped silently. The list is sorted (Go's sort.Strings, byte order). The embedded-metadata paths
// come from objectmeta.Coerce, which builds them with field.Path (`spec.map[key].metadata.foo`,
// `spec.list[0].metadata.foo`), sorted among themselves and listed after the pruned ones.
// kube's full list for a request is: unknown root-metadata fields (GetObjectMetaWithOptions, in
// the order of Go's sorted-key marshalling), then sorted pruned paths, then sorted embedded-metadata
// paths; `prune(..., { isResourceRoot: true, pruneRootMetadata: true })` returns exactly that. The
// caller prints each as `unknown field "<path>"` after the JSON decoder's `duplicate field "<path>"`
// errors (see server/endpoints/json-parse.ts), joined with ", " behind `strict decoding error: `.
//
// Deviations: a schema's array-form `items` (rejected for structural schemas at CRD write) is
// treated as no items schema. Embedded apiVersion/kind that are not strings are left for validation
// (kube's Coerce fails the request with `must be a string`, or drops them when reading storage).
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { child, index as indexPath, key as keyPath } from '../../apimachinery/field-errors.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { appendAll } from '../../apimachinery/append.js';
import { compareGoStrings } from '../../apimachinery/go-sort.js';

export interface PruneOptions {
  /** The object is a whole resource: apiVersion, kind and metadata are kept at the top. */
  isResourceRoot?: boolean;
  /**
   * With isResourceRoot: also cut the root `metadata` down to ObjectMeta's fields (kube does this
   * by decoding it into metav1.ObjectMeta) and report those paths first, as kube orders them.
   */
  pruneRootMetadata?: boolean;
  /**
   * Also drop, in the same walk, what kube's PruneNonNullableNullsWithoutDefaults drops after
   * pruning (see pruneNonNullableNullsWithoutDefaults).
   */
  dropNulls?: boolean;
}

type Obj = Record<string, unknown>;

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

/** The items schema as structural schemas know it (a single schema). */
export function itemsSchema(s: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  const it = s?.items;
  return it && !Array.isArray(it) ? it : undefined;
}

/**
 * kube's `s.AdditionalProperties`: undefined when absent, null when present without a schema
 * (`additionalProperties: true|false`), else the schema.
 */
export function additionalSchema(s: JSONSchemaProps | undefined): JSONSchemaProps | null | undefined {
  const ap = s?.additionalProperties;
  if (ap === undefined) return undefined;
  return typeof ap === 'boolean' ? null : ap;
}

/**
 * Whether `test` holds for a schema below `s` (its properties, additionalProperties and items, at
 * any depth). Walks that act only at such schemas skip a value whose schema has none below: a
 * map of 100,000 keys is then not walked at all. Remembered per schema object in `within`.
 */
export function holdsBelow(
  s: JSONSchemaProps,
  test: (s: JSONSchemaProps) => boolean,
  within: WeakMap<JSONSchemaProps, boolean>,
): boolean {
  const known = within.get(s);
  if (known !== undefined) return known;
  // Children before parents, on an explicit stack: a CRD's schema may nest deep.
  const stack: Array<{ s: JSONSchemaProps; visited: boolean }> = [{ s, visited: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const below = childSchemas(top.s);
    if (!top.visited) {
      top.visited = true;
      for (const c of below) if (!within.has(c)) stack.push({ s: c, visited: false });
      continue;
    }
    stack.pop();
    within.set(
      top.s,
      below.some((c) => test(c) || within.get(c) === true),
    );
  }
  return within.get(s) === true;
}

function childSchemas(s: JSONSchemaProps): JSONSchemaProps[] {
  const out: JSONSchemaProps[] = [];
  if (s.properties !== undefined) for (const k of Object.keys(s.properties)) out.push(s.properties[k]!);
  const ap = additionalSchema(s);
  if (ap) out.push(ap);
  const items = itemsSchema(s);
  if (items) out.push(items);
  return out;
}

/** The schema of a property named in `properties` (own keys only: `constructor` is no property). */
export function propertySchema(s: JSONSchemaProps, k: string): JSONSchemaProps | undefined {
  const props = s.properties;
  return props !== undefined && Object.hasOwn(props, k) ? props[k] : undefined;
}

interface Frame {
  x: unknown;
  s: JSONSchemaProps | undefined;
  path: string;
  /** The path is empty (kube's len(ParentPath) == 0). */
  top: boolean;
  /** Walk as skipPrune (x-kubernetes-preserve-unknown-fields). */
  skip: boolean;
  /** Treat as embedded resource (apiVersion/kind/metadata not pruned). */
  embedded: boolean;
}

const joinKey = (f: Frame, k: string): string => (f.top ? k : `${f.path}.${k}`);

/**
 * Drops, in place, every field of `obj` the structural schema does not specify, as kube's
 * pruning does; returns the pruned paths (see the module comment for their format and order).
 */
export function prune(obj: unknown, schema: JSONSchemaProps, opts: PruneOptions = {}): string[] {
  const rootMeta: string[] = [];
  if (opts.isResourceRoot && opts.pruneRootMetadata && isJsonObject(obj) && isJsonObject(obj['metadata'])) {
    appendAll(rootMeta, pruneObjectMeta(obj['metadata'], 'metadata'));
  }

  const pruned: string[] = [];
  // Nulls dropped as the walk keeps a field; an embedded resource's apiVersion, kind and metadata,
  // which pruning leaves to the ObjectMeta coercion below, only after it, as kube drops them.
  const dropNulls = opts.dropNulls === true;
  const afterCoercion: Array<{ x: Obj; k: string; s: JSONSchemaProps }> = [];
  const keep = (x: Obj, k: string, ks: JSONSchemaProps | null | undefined): boolean => {
    if (!dropNulls || x[k] !== null || !isNonNullableWithoutDefault(ks ?? undefined)) return true;
    delete x[k];
    return false;
  };
  const embeddedRoot = !!opts.isResourceRoot || !!schema['x-kubernetes-embedded-resource'];
  const stack: Frame[] = [{ x: obj, s: schema, path: '', top: true, skip: false, embedded: embeddedRoot }];
  while (stack.length > 0) {
    const f = stack.pop()!;
    const { x, s } = f;
    if (!f.skip && s?.['x-kubernetes-preserve-unknown-fields']) f.skip = true;

    if (f.skip) {
      // skipPrune: unknown fields stay; known ones are pruned by their schema.
      if (s === undefined) continue;
      if (isJsonObject(x)) {
        const ap = additionalSchema(s);
        for (const k of Object.keys(x)) {
          if (f.embedded && metaFields.has(k)) {
            if (dropNulls) afterCoercion.push({ x, k, s });
            continue;
          }
          const prop = propertySchema(s, k);
          if (prop !== undefined) {
            if (keep(x, k, prop)) pushContainer(stack, x[k], prop, f, k);
          } else if (ap !== undefined && keep(x, k, ap)) pushContainer(stack, x[k], ap ?? undefined, f, k);
        }
      } else if (Array.isArray(x)) {
        const items = itemsSchema(s);
        for (let i = 0; i < x.length; i++) {
          if (isContainer(x[i])) stack.push({ ...frame(x[i], items, `${f.path}[${i}]`, false), skip: true });
        }
      }
      continue;
    }

    if (isJsonObject(x)) {
      if (s === undefined) {
        for (const k of Object.keys(x)) {
          pruned.push(joinKey(f, k));
          delete x[k];
        }
        continue;
      }
      const ap = additionalSchema(s);
      for (const k of Object.keys(x)) {
        if (f.embedded && metaFields.has(k)) {
          if (dropNulls) afterCoercion.push({ x, k, s });
          continue;
        }
        const prop = propertySchema(s, k);
        if (prop !== undefined) {
          if (keep(x, k, prop)) pushContainer(stack, x[k], prop, f, k);
        } else if (ap !== undefined) {
          if (keep(x, k, ap)) pushContainer(stack, x[k], ap ?? undefined, f, k);
        } else {
          if (!metaFields.has(k) || !f.top) pruned.push(joinKey(f, k));
          delete x[k];
        }
      }
    } else if (Array.isArray(x)) {
      const items = s === undefined ? undefined : itemsSchema(s);
      for (let i = 0; i < x.length; i++)
        if (isContainer(x[i])) stack.push(frame(x[i], items, `${f.path}[${i}]`, false));
    }
  }
  pruned.sort(compareGoStrings);

  const coerced = pruneEmbeddedObjectMeta(obj, schema);
  for (const { x, k, s } of afterCoercion) {
    const ks = propertySchema(s, k) ?? additionalSchema(s) ?? undefined;
    if (x[k] === null && isNonNullableWithoutDefault(ks)) delete x[k];
    else pruneNonNullableNullsWithoutDefaults(x[k], ks);
  }
  return [...rootMeta, ...pruned, ...coerced];
}

export const hasDefault = (s: JSONSchemaProps | undefined | null): s is JSONSchemaProps & { default: unknown } =>
  !!s && s.default !== undefined && s.default !== null;

/** Where a null goes, as kube's PruneNonNullableNullsWithoutDefaults drops it: not nullable, and no default to take its place. */
const isNonNullableWithoutDefault = (s: JSONSchemaProps | undefined): boolean =>
  s !== undefined && !s.nullable && !hasDefault(s);

/**
 * kube's PruneNonNullableNullsWithoutDefaults: removes object fields whose value is null where
 * the field's schema (property or additionalProperties) is not nullable and has no default. Nulls
 * with a default are left for applyDefaults; list items are never removed. Runs after pruning and
 * before defaulting, only when pruning is on (prune's `dropNulls` does it in pruning's walk).
 */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, schema: JSONSchemaProps | undefined): void {
  // Without a schema nothing below can be removed (kube walks on, to no effect).
  if (schema === undefined) return;
  if (isJsonObject(x)) {
    const ap = additionalSchema(schema);
    for (const k of Object.keys(x)) {
      const s = propertySchema(schema, k) ?? (ap ? ap : undefined);
      const v = x[k];
      if (v === null && isNonNullableWithoutDefault(s)) delete x[k];
      else if (typeof v === 'object' && v !== null) pruneNonNullableNullsWithoutDefaults(v, s);
    }
  } else if (Array.isArray(x)) {
    const items = itemsSchema(schema);
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, items);
  }
}

/** Scalars have nothing to prune below them: they are not stacked (nor their paths built). */
const isContainer = (v: unknown): boolean => typeof v === 'object' && v !== null;

function pushContainer(stack: Frame[], v: unknown, s: JSONSchemaProps | undefined, parent: Frame, k: string): void {
  if (isContainer(v)) stack.push(frame(v, s, joinKey(parent, k), false));
}

function frame(x: unknown, s: JSONSchemaProps | undefined, path: string, top: boolean): Frame {
  return { x, s, path, top, skip: false, embedded: !!s?.['x-kubernetes-embedded-resource'] };
}

/**
 * kube's objectmeta.Coerce (below the root): walks the schema and cuts the `metadata` of every
 * `x-kubernetes-embedded-resource` object down to ObjectMeta's fields. Returns the sorted paths
 * (`spec.template.metadata.foo`). prune() already calls it; it is exported for the legacy
 * `preserveUnknownFields: true` CRDs, where kube still coerces metadata but does not prune.
 */
export function pruneEmbeddedObjectMeta(obj: unknown, schema: JSONSchemaProps): string[] {
  const out: string[] = [];
  coerce(obj, schema, '', out);
  return out.sort(compareGoStrings);
}

const isEmbedded = (s: JSONSchemaProps): boolean => !!s['x-kubernetes-embedded-resource'];
const embeddedBelow = new WeakMap<JSONSchemaProps, boolean>();

function coerce(x: unknown, s: JSONSchemaProps | undefined, path: string, out: string[]): void {
  if (s === undefined || !(isEmbedded(s) || holdsBelow(s, isEmbedded, embeddedBelow))) return;
  if (isJsonObject(x)) {
    const ap = additionalSchema(s);
    for (const k of Object.keys(x)) {
      if (k === 'metadata' && s['x-kubernetes-embedded-resource'] && isJsonObject(x[k])) {
        appendAll(out, pruneObjectMeta(x[k] as Obj, child(path, 'metadata')));
      }
      const prop = propertySchema(s, k);
      if (prop !== undefined) coerce(x[k], prop, child(path, k), out);
      else if (ap) coerce(x[k], ap, keyPath(path, k), out);
    }
  } else if (Array.isArray(x)) {
    const items = itemsSchema(s);
    for (let i = 0; i < x.length; i++) coerce(x[i], items, indexPath(path, i), out);
  }
}

// metav1.ObjectMeta's JSON fields (kube 1.34), and those of the structs inside it.
const objectMetaFields = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);
const ownerReferenceFields = new Set(['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion']);
const managedFieldsEntryFields = new Set([
  'manager',
  'operation',
  'apiVersion',
  'time',
  'fieldsType',
  'fieldsV1',
  'subresource',
]);
const metaStringFields = new Set(['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion']);
const metaListFields = new Set(['ownerReferences', 'finalizers', 'managedFields']);

/**
 * Cuts `meta` (an ObjectMeta-shaped object at `prefix`, e.g. `metadata` or
 * `spec.template.metadata`) down to ObjectMeta's fields as decoding it into metav1.ObjectMeta and
 * writing it back does: unknown fields (also inside ownerReferences and managedFields entries) are
 * deleted and reported as `<prefix>.<field>` in Go's sorted-key order; fields Go omits when empty
 * (null, "", generation 0, empty maps and lists) are dropped. Wrongly typed values are left for
 * validation.
 */
export function pruneObjectMeta(meta: Obj, prefix: string): string[] {
  const out: string[] = [];
  for (const k of Object.keys(meta).sort(compareGoStrings)) {
    if (!objectMetaFields.has(k)) {
      out.push(`${prefix}.${k}`);
      delete meta[k];
      continue;
    }
    if (k === 'ownerReferences') pruneEntries(meta[k], ownerReferenceFields, `${prefix}.${k}`, out);
    else if (k === 'managedFields') pruneEntries(meta[k], managedFieldsEntryFields, `${prefix}.${k}`, out);
  }
  for (const k of Object.keys(meta)) {
    const v = meta[k];
    const empty =
      v === null ||
      (v === '' && metaStringFields.has(k)) ||
      (v === 0 && k === 'generation') ||
      (Array.isArray(v) && v.length === 0 && metaListFields.has(k)) ||
      ((k === 'labels' || k === 'annotations') && isJsonObject(v) && Object.keys(v).length === 0);
    if (empty) delete meta[k];
  }
  return out;
}

function pruneEntries(list: unknown, known: Set<string>, path: string, out: string[]): void {
  if (!Array.isArray(list)) return;
  list.forEach((entry, i) => {
    if (!isJsonObject(entry)) return;
    for (const k of Object.keys(entry).sort(compareGoStrings)) {
      if (known.has(k)) continue;
      out.push(`${path}[${i}].${k}`);
      delete entry[k];
    }
  });
}
