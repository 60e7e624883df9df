// Strategic merge patch: the entry point, the schema type, and the kinds' metadata.
export {
  type ErrorClass,
  StrategicMergePatchError,
  strategicMergeMapPatch,
  strategicMergePatch,
  toPatchApiError,
} from './merge.js';
export { type FieldPatchMeta, type PatchMeta, type PatchStrategy, lookupPatchMeta } from './patch-meta.js';
export * from './kube-types.js';
