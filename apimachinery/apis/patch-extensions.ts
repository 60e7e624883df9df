// kube's patch extensions on OpenAPI schemas (openapi-gen writes them from the Go types' patchStrategy
// and patchMergeKey tags). A CRD's JSONSchemaProps has no such fields, so they live beside it: only
// the built-in kinds' schemas carry them.
import type { JSONSchemaProps } from './apiextensions.js';

export interface PatchExtensions {
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
}

/** A schema node's patch extensions, if it has any. */
export const patchExtensions = (s: JSONSchemaProps): PatchExtensions => s as PatchExtensions;
