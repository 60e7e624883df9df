// The MergeItem struct of kube's strategicpatch tests, as patch metadata, and a YAML loader for
// the tables translated from its patch_test.go.
import { parse } from 'yaml';
import type { JsonObject } from '../../../../apimachinery/object.js';
import type { FieldPatchMeta, PatchMeta } from '../../../../apimachinery/strategic-merge/patch-meta.js';

const mergeItemFields: Record<string, FieldPatchMeta> = {};

/** patch_test.go's MergeItem: it nests itself, so its fields are filled in below. */
export const MERGE_ITEM: PatchMeta = { fields: mergeItemFields };

/** patch_test.go's RetainKeysMergeItem. */
export const RETAIN_KEYS_MERGE_ITEM: PatchMeta = {
  fields: {
    mergingIntList: { patchStrategy: 'merge' },
    mergingList: { patchStrategy: 'merge', patchMergeKey: 'name', type: MERGE_ITEM },
    nonMergingList: { type: MERGE_ITEM },
  },
};

Object.assign(mergeItemFields, {
  mergingList: { patchStrategy: 'merge', patchMergeKey: 'name', type: MERGE_ITEM },
  nonMergingList: { type: MERGE_ITEM },
  mergingIntList: { patchStrategy: 'merge' },
  mergeItemPtr: { patchStrategy: 'merge', patchMergeKey: 'name', type: MERGE_ITEM },
  replacingItem: { patchStrategy: 'replace' },
  retainKeysMap: { patchStrategy: 'retainKeys', type: RETAIN_KEYS_MERGE_ITEM },
  retainKeysMergingList: { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name', type: MERGE_ITEM },
} satisfies Record<string, FieldPatchMeta>);

/** One application: `patch` on `original` gives `result`, or fails with a message containing `error`. */
export interface ApplyCase {
  description: string;
  original: JsonObject;
  patch: JsonObject;
  result?: JsonObject;
  error?: string;
}

/** Parses a YAML list of cases; a missing original or patch is `{}`, as kube's handleUnmarshal makes it. */
export function loadCases(yamlText: string): ApplyCase[] {
  const doc = parse(yamlText) as Array<Partial<ApplyCase> & { description: string }>;
  return doc.map((c) => ({ ...c, original: c.original ?? {}, patch: c.patch ?? {} }));
}
