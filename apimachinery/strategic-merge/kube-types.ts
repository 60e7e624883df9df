// The patch metadata of the kinds we serve, from the Go struct tags of k8s.io/api (and
// k8s.io/apiextensions-apiserver): only tagged fields and the paths to them. A kind without any
// tagged field still merges maps and replaces lists, as kube does for it.
import type { FieldPatchMeta, PatchMeta } from './patch-meta.js';

/** metav1.ObjectMeta: finalizers merge as a set; ownerReferences merge on uid. */
export const OBJECT_META_PATCH_META: PatchMeta = {
  fields: {
    finalizers: { patchStrategy: 'merge' },
    ownerReferences: { patchStrategy: 'merge', patchMergeKey: 'uid' },
  },
};

const metadata: FieldPatchMeta = { type: OBJECT_META_PATCH_META };

/**
 * A kind whose only tagged fields are ObjectMeta's: ConfigMap, Secret, Lease, Event (core and
 * events.k8s.io), CustomResourceDefinition (its status.conditions is a listType=map without patch
 * tags) and the RBAC kinds (rules and subjects are untagged, so replaced).
 */
export const KUBE_OBJECT_PATCH_META: PatchMeta = { fields: { metadata } };

/** core/v1 ServiceAccount: secrets merge on name; imagePullSecrets has no patch tags (replaced). */
export const SERVICE_ACCOUNT_PATCH_META: PatchMeta = {
  fields: {
    metadata,
    secrets: { patchStrategy: 'merge', patchMergeKey: 'name' },
  },
};

/** core/v1 Namespace: status.conditions merge on type; spec.finalizers has no patch tags (replaced). */
export const NAMESPACE_PATCH_META: PatchMeta = {
  fields: {
    metadata,
    status: { type: { fields: { conditions: { patchStrategy: 'merge', patchMergeKey: 'type' } } } },
  },
};

/**
 * core/v1 Service: spec.ports merge on port alone (so a UDP and a TCP port of one number collide, as
 * in kube), status.conditions on type; every other list (clusterIPs, externalIPs, ipFamilies,
 * loadBalancerSourceRanges, status.loadBalancer.ingress) has no patch tags, so it is replaced.
 */
export const SERVICE_PATCH_META: PatchMeta = {
  fields: {
    metadata,
    spec: { type: { fields: { ports: { patchStrategy: 'merge', patchMergeKey: 'port' } } } },
    status: { type: { fields: { conditions: { patchStrategy: 'merge', patchMergeKey: 'type' } } } },
  },
};
