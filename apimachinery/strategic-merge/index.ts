// Strategic merge patch: the entry point, the schema type, and the metadata kinds' schemas give.
export {
  type ErrorClass,
  StrategicMergePatchError,
  strategicMergeMapPatch,
  strategicMergePatch,
  toPatchApiError,
} from './merge.js';
export {
  type FieldPatchMeta,
  type PatchMeta,
  type PatchStrategy,
  lookupPatchMeta,
  patchMetaFromSchema,
} from './patch-meta.js';
