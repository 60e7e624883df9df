// The patch metadata strategic merge patch reads from a kind's Go struct tags (patchStrategy,
// patchMergeKey), as a sparse tree: only the fields that carry tags, or lead to ones that do.

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
