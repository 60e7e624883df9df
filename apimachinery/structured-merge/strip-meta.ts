// Fields kube never records in managedFields (managedfields/internal/stripmeta.go): type meta
// and the metadata the server sets. kube strips them from the writing manager's set after every
// update and apply.
import { FieldSet, makePath } from './fieldpath.js';
import type { ManagedFields, VersionedFieldSet } from './update.js';

export const STRIPPED_META_FIELDS: FieldSet = FieldSet.of(
  makePath('apiVersion'),
  makePath('kind'),
  makePath('metadata'),
  makePath('metadata', 'name'),
  makePath('metadata', 'namespace'),
  makePath('metadata', 'creationTimestamp'),
  makePath('metadata', 'selfLink'),
  makePath('metadata', 'uid'),
  makePath('metadata', 'clusterName'),
  makePath('metadata', 'generation'),
  makePath('metadata', 'managedFields'),
  makePath('metadata', 'resourceVersion'),
);

/** `managers` with the stripped fields taken out of `manager`'s set (dropped if that empties it). */
export function stripMetaFields(managers: ManagedFields, manager: string): Map<string, VersionedFieldSet> {
  const out = new Map(managers);
  const entry = out.get(manager);
  if (entry === undefined) return out;
  const set = entry.set.difference(STRIPPED_META_FIELDS);
  if (set.empty()) out.delete(manager);
  else out.set(manager, { ...entry, set });
  return out;
}
