// What a DELETE's propagationPolicy (or the older orphanDependents) does to the object's
// finalizers, as kube's generic store decides it (registry/store.go shouldOrphanDependents,
// shouldDeleteDependents, deletionFinalizersForGarbageCollection). The garbage collector then acts
// on the `orphan` and `foregroundDeletion` finalizers; Background needs no finalizer at all.
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from '../../apimachinery/validation/object-meta.js';

export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

export const PROPAGATION_POLICIES: readonly PropagationPolicy[] = ['Foreground', 'Background', 'Orphan'];

/**
 * kube's rest.GarbageCollectionPolicy of a kind: DeleteDependents (what kinds without one get,
 * custom resources included), OrphanDependents (legacy workload versions we do not serve), or
 * Unsupported (events: the garbage collector's finalizers are never added).
 */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/** The parts of DeleteOptions that decide propagation. */
export interface Propagation {
  propagationPolicy?: PropagationPolicy;
  /** Deprecated, still honoured: true is Orphan; false is "not Orphan" (Background, not Foreground). */
  orphanDependents?: boolean;
}

function shouldOrphan(finalizers: readonly string[], p: Propagation, policy: GarbageCollectionPolicy): boolean {
  if (policy === 'Unsupported') return false;
  if (p.orphanDependents !== undefined) return p.orphanDependents;
  if (p.propagationPolicy !== undefined) return p.propagationPolicy === 'Orphan';
  // A finalizer already on the object (a client may set it by hand) stands when the DELETE says nothing.
  for (const f of finalizers) {
    if (f === FINALIZER_ORPHAN_DEPENDENTS) return true;
    if (f === FINALIZER_DELETE_DEPENDENTS) return false;
  }
  return policy === 'OrphanDependents';
}

function shouldDeleteInForeground(
  finalizers: readonly string[],
  p: Propagation,
  policy: GarbageCollectionPolicy,
): boolean {
  if (policy === 'Unsupported') return false;
  // kube: an explicit orphanDependents (even false) never means Foreground in the generic store.
  if (p.orphanDependents !== undefined) return false;
  if (p.propagationPolicy !== undefined) return p.propagationPolicy === 'Foreground';
  return finalizers.includes(FINALIZER_DELETE_DEPENDENTS);
}

/**
 * The finalizers a DELETE leaves on the object, or undefined when they do not change (compared as
 * sets, as kube compares them). Both GC finalizers are removed, then the one the policy asks for
 * is appended; other finalizers keep their order.
 */
export function finalizersForDeletion(
  finalizers: readonly string[],
  p: Propagation,
  policy: GarbageCollectionPolicy,
): string[] | undefined {
  const next = finalizers.filter((f) => f !== FINALIZER_ORPHAN_DEPENDENTS && f !== FINALIZER_DELETE_DEPENDENTS);
  if (shouldOrphan(finalizers, p, policy)) next.push(FINALIZER_ORPHAN_DEPENDENTS);
  if (shouldDeleteInForeground(finalizers, p, policy)) next.push(FINALIZER_DELETE_DEPENDENTS);
  const before = new Set(finalizers);
  const after = new Set(next);
  if (before.size === after.size && [...before].every((f) => after.has(f))) return undefined;
  return next;
}

/**
 * kube's namespace REST Delete, which sets the GC finalizers itself on the first DELETE only (a
 * namespace already terminating keeps them) and reads orphanDependents=false as Foreground, unlike
 * the generic store. Set order: kube builds the list from a Go map, so its order is arbitrary;
 * ours keeps the existing ones and appends.
 */
export function namespaceFinalizersForDeletion(finalizers: readonly string[], p: Propagation): string[] | undefined {
  const has = (f: string) => finalizers.includes(f);
  const orphan =
    p.orphanDependents !== undefined
      ? p.orphanDependents
      : p.propagationPolicy !== undefined
        ? p.propagationPolicy === 'Orphan'
        : has(FINALIZER_ORPHAN_DEPENDENTS);
  const foreground =
    p.orphanDependents !== undefined
      ? !p.orphanDependents
      : p.propagationPolicy !== undefined
        ? p.propagationPolicy === 'Foreground'
        : has(FINALIZER_DELETE_DEPENDENTS);
  if (orphan === has(FINALIZER_ORPHAN_DEPENDENTS) && foreground === has(FINALIZER_DELETE_DEPENDENTS)) return undefined;
  const next = finalizers.filter((f) => f !== FINALIZER_ORPHAN_DEPENDENTS && f !== FINALIZER_DELETE_DEPENDENTS);
  if (orphan) next.push(FINALIZER_ORPHAN_DEPENDENTS);
  if (foreground) next.push(FINALIZER_DELETE_DEPENDENTS);
  return next;
}
