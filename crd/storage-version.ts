// Which version a CRD stores, and the hash discovery publishes for it.
import { storageVersionHash } from '../apimachinery/versions.js';
import type { CustomResourceDefinition } from '../apimachinery/apis/apiextensions.js';

/** The version marked `storage: true` (the first one, should a broken object have several). */
export function storageVersionOf(crd: CustomResourceDefinition): string | undefined {
  return crd.spec?.versions?.find((v) => v.storage)?.name;
}

/**
 * The hash discovery shows for a CRD: of its storage version and spec.names.kind, and empty when
 * the storage version is not served (kube only looks at served versions).
 */
export function crdStorageVersionHash(crd: CustomResourceDefinition): string {
  const storage = crd.spec.versions.find((v) => v.served && v.storage);
  return storage ? storageVersionHash(crd.spec.group, storage.name, crd.spec.names.kind) : '';
}
