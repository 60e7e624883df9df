// The garbage collector's picture of the cluster (kube's GraphBuilder, simplified): one node per
// observed object, by uid, and for every uid named as an owner the dependents naming it. Pure:
// callers feed it what the stores' watches report and act on the work it hands back.
//
// Where kube keeps "virtual" nodes for owners it has not observed (and juggles the several
// coordinates dependents may give them), we keep only the edge index: an owner uid without a node
// is simply not observed, and the dependent naming it is queued so that its owners are verified
// with live reads (classify, below) in the dependent's own namespace. A namespaced owner referenced
// from another namespace is therefore absent for that dependent, as kube concludes; and when that
// owner has been observed elsewhere, the reference is reported (kube's OwnerRefInvalidNamespace).
import type { KubeObject, OwnerReference } from '../../../apimachinery/object.js';
import {
  FINALIZER_DELETE_DEPENDENTS,
  FINALIZER_ORPHAN_DEPENDENTS,
} from '../../../apimachinery/validation/object-meta.js';

/** Where an object is, as the collector needs it to read, update or delete it. */
export interface Identity {
  uid: string;
  apiVersion: string;
  kind: string;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
}

interface GraphNode {
  identity: Identity;
  owners: OwnerReference[];
  /** deletionTimestamp is set. */
  beingDeleted: boolean;
  /** Being deleted with the foregroundDeletion finalizer: waits for its blocking dependents. */
  deletingDependents: boolean;
  /** Being deleted with the orphan finalizer: its dependents lose their references to it first. */
  orphaning: boolean;
}

/** What a change asks of the collector: items to verify or delete, owners to orphan for. */
export interface Work {
  attemptToDelete: string[];
  attemptToOrphan: string[];
  /** References to an observed namespaced owner from outside its namespace, to report. */
  invalidNamespace: InvalidReference[];
}

/** A dependent's reference to a namespaced owner observed in another namespace. */
export interface InvalidReference {
  dependent: Identity;
  ref: OwnerReference;
}

const hasFinalizer = (obj: KubeObject, f: string): boolean => Boolean(obj.metadata.finalizers?.includes(f));
export const isDeletingDependents = (obj: KubeObject): boolean =>
  Boolean(obj.metadata.deletionTimestamp) && hasFinalizer(obj, FINALIZER_DELETE_DEPENDENTS);
export const isOrphaning = (obj: KubeObject): boolean =>
  Boolean(obj.metadata.deletionTimestamp) && hasFinalizer(obj, FINALIZER_ORPHAN_DEPENDENTS);

/** Owner references as stored: kube's validation makes the four coordinates present. */
export function ownerReferences(obj: KubeObject): OwnerReference[] {
  const refs = obj.metadata.ownerReferences;
  return Array.isArray(refs) ? refs.filter((r) => r && typeof r.uid === 'string' && r.uid !== '') : [];
}

export function nodeOf(obj: KubeObject): GraphNode {
  const m = obj.metadata;
  return {
    identity: {
      uid: m.uid ?? '',
      apiVersion: obj.apiVersion ?? '',
      kind: obj.kind ?? '',
      namespace: m.namespace ?? '',
      name: m.name ?? '',
    },
    owners: ownerReferences(obj),
    beingDeleted: Boolean(m.deletionTimestamp),
    deletingDependents: isDeletingDependents(obj),
    orphaning: isOrphaning(obj),
  };
}

const blocks = (ref: OwnerReference): boolean => ref.blockOwnerDeletion === true;

/** The group of an apiVersion: kinds are matched by group and kind, whatever the version. */
export const groupOf = (apiVersion: string): string =>
  apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';

export class Graph {
  private readonly nodes = new Map<string, GraphNode>();
  /** owner uid to dependent uids, whether or not the owner is observed. */
  private readonly dependentsOf = new Map<string, Set<string>>();

  get size(): number {
    return this.nodes.size;
  }

  node(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** Observed nodes naming `uid` as an owner. */
  dependents(uid: string): GraphNode[] {
    const out: GraphNode[] = [];
    for (const d of this.dependentsOf.get(uid) ?? []) {
      const n = this.nodes.get(d);
      if (n) out.push(n);
    }
    return out;
  }

  /** Dependents whose reference to `uid` has blockOwnerDeletion (kube's blockingDependents). */
  blockingDependents(uid: string): GraphNode[] {
    return this.dependents(uid).filter((d) => d.owners.some((r) => r.uid === uid && blocks(r)));
  }

  /**
   * Whether `from` waits on `target`: `target` is among the blocking dependents of `from`, or of
   * one of those that is itself deleting its dependents, and so on (a bounded walk: each node once).
   */
  waitsOn(from: string, target: string): boolean {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length > 0) {
      const uid = stack.pop()!;
      if (seen.has(uid)) continue;
      seen.add(uid);
      for (const dep of this.blockingDependents(uid)) {
        if (dep.identity.uid === target) return true;
        if (dep.deletingDependents) stack.push(dep.identity.uid);
      }
    }
    return false;
  }

  /** Every observed uid of one kind, for a relist to find what vanished. */
  uidsWhere(pred: (n: GraphNode) => boolean): string[] {
    return [...this.nodes.values()].filter(pred).map((n) => n.identity.uid);
  }

  /** An object was added or changed (kube's processGraphChanges for add and update). */
  upsert(next: GraphNode): Work {
    const work: Work = { attemptToDelete: [], attemptToOrphan: [], invalidNamespace: [] };
    const uid = next.identity.uid;
    const prev = this.nodes.get(uid);
    const before = new Map((prev?.owners ?? []).map((r) => [r.uid, r]));
    const after = new Map(next.owners.map((r) => [r.uid, r]));
    this.nodes.set(uid, next);
    let verifySelf = false;
    for (const [ownerUid, ref] of after) {
      const old = before.get(ownerUid);
      if (!old) {
        let set = this.dependentsOf.get(ownerUid);
        if (!set) this.dependentsOf.set(ownerUid, (set = new Set()));
        set.add(uid);
        const owner = this.nodes.get(ownerUid);
        // An owner never observed, or observed at other coordinates (another namespace, kind or
        // name): the dependent's owners must be checked with live reads.
        if (!owner || !coordinatesMatch(ref, owner.identity, next.identity.namespace)) verifySelf = true;
        // An owner already waiting for its dependents: this new one is among them.
        else if (owner.deletingDependents) verifySelf = true;
        // kube's "good parent, bad child" order: the owner is known to live elsewhere.
        if (owner && inOtherNamespace(owner.identity, next.identity.namespace))
          work.invalidNamespace.push({ dependent: next.identity, ref });
      } else if (blocks(old) && !blocks(ref)) {
        // No longer blocking: an owner waiting for its blocking dependents may be free now.
        if (this.nodes.get(ownerUid)?.deletingDependents) work.attemptToDelete.push(ownerUid);
      }
    }
    for (const ownerUid of before.keys()) {
      if (after.has(ownerUid)) continue;
      this.unlink(ownerUid, uid);
      if (this.nodes.get(ownerUid)?.deletingDependents) work.attemptToDelete.push(ownerUid);
    }
    if (!prev) {
      // An owner observed after its dependents: those that name it at other coordinates are
      // checked again (kube's "bad child, good parent" order).
      for (const dep of this.dependents(uid)) {
        const ref = dep.owners.find((r) => r.uid === uid);
        if (!ref || coordinatesMatch(ref, next.identity, dep.identity.namespace)) continue;
        work.attemptToDelete.push(dep.identity.uid);
        if (inOtherNamespace(next.identity, dep.identity.namespace))
          work.invalidNamespace.push({ dependent: dep.identity, ref });
      }
    }
    if (verifySelf) work.attemptToDelete.push(uid);
    // Transitions (processTransitions): work starts when a finalizer state begins.
    if (next.orphaning && !prev?.orphaning) work.attemptToOrphan.push(uid);
    if (next.deletingDependents && !prev?.deletingDependents) {
      for (const dep of this.dependents(uid)) work.attemptToDelete.push(dep.identity.uid);
      work.attemptToDelete.push(uid);
    }
    return work;
  }

  /**
   * Every reference to an observed namespaced owner from outside its namespace: what a fresh
   * collector's first lists would report (a new leader reports them again, as kube's does).
   */
  invalidNamespaceReferences(): InvalidReference[] {
    const out: InvalidReference[] = [];
    for (const n of this.nodes.values()) {
      for (const ref of n.owners) {
        const owner = this.nodes.get(ref.uid);
        if (owner && inOtherNamespace(owner.identity, n.identity.namespace)) out.push({ dependent: n.identity, ref });
      }
    }
    return out;
  }

  /** An object is gone: its dependents are checked, and owners waiting for it may finish. */
  remove(uid: string): Work {
    const work: Work = { attemptToDelete: [], attemptToOrphan: [], invalidNamespace: [] };
    const node = this.nodes.get(uid);
    if (!node) return work;
    this.nodes.delete(uid);
    for (const ref of node.owners) {
      this.unlink(ref.uid, uid);
      if (this.nodes.get(ref.uid)?.deletingDependents) work.attemptToDelete.push(ref.uid);
    }
    for (const dep of this.dependents(uid)) work.attemptToDelete.push(dep.identity.uid);
    return work;
  }

  private unlink(ownerUid: string, dependentUid: string): void {
    const set = this.dependentsOf.get(ownerUid);
    if (!set) return;
    set.delete(dependentUid);
    if (set.size === 0) this.dependentsOf.delete(ownerUid);
  }
}

/**
 * Whether a reference names the observed owner: same group, kind and name, and a namespaced owner
 * in the dependent's namespace (a cluster-scoped owner may be named from anywhere).
 */
export function coordinatesMatch(ref: OwnerReference, owner: Identity, dependentNamespace: string): boolean {
  if (groupOf(ref.apiVersion) !== groupOf(owner.apiVersion) || ref.kind !== owner.kind || ref.name !== owner.name)
    return false;
  return owner.namespace === '' || owner.namespace === dependentNamespace;
}

/**
 * A namespaced owner outside the dependent's namespace (a cluster-scoped dependent has none): kube
 * reads such an owner in the dependent's namespace, where it is absent, and reports the reference.
 */
const inOtherNamespace = (owner: Identity, dependentNamespace: string): boolean =>
  owner.namespace !== '' && owner.namespace !== dependentNamespace;

/** How one owner reference stands, after a live read (kube's classifyReferences). */
export type ReferenceState = 'solid' | 'dangling' | 'waiting' | 'unresolved' | 'invalid';

/** What to do with a dependent, given its references' states (kube's attemptToDeleteItem). */
type Decision =
  | { action: 'none' }
  /** Its owners cannot all be read now (a kind not served): try again later. */
  | { action: 'retry' }
  /** Some owner is solid: drop dangling references, unblock references to owners waiting for it. */
  | { action: 'patch'; remove: string[]; unblock: string[] }
  /** No solid owner: delete it; `unblockFirst` breaks a foreground cycle before deleting. */
  | { action: 'delete'; policy: 'Foreground' | 'Background' | 'Orphan'; unblockFirst: boolean };

export interface DecisionInput {
  refs: { ref: OwnerReference; state: ReferenceState }[];
  /** The dependent has dependents of its own in the graph. */
  hasDependents: boolean;
  /** One of those is itself deleting its dependents (a possible cycle). */
  dependentDeletingDependents: boolean;
  /** The dependent's own GC finalizers, which choose the policy of its own deletion. */
  finalizers: readonly string[];
}

export function decide(input: DecisionInput): Decision {
  const { refs } = input;
  if (refs.length === 0) return { action: 'none' };
  const of = (s: ReferenceState) => refs.filter((r) => r.state === s).map((r) => r.ref.uid);
  const solid = of('solid');
  const dangling = of('dangling');
  const waiting = of('waiting');
  if (solid.length === 0) {
    // kube gives up on the item when an owner cannot be read (deleting it could be wrong): a kind
    // not served yet is tried again, a cluster-scoped object naming a namespaced owner never is.
    if (of('unresolved').length > 0) return { action: 'retry' };
    if (of('invalid').length > 0) return { action: 'none' };
  } else {
    if (dangling.length === 0 && waiting.length === 0) return { action: 'none' };
    return { action: 'patch', remove: dangling, unblock: waiting };
  }
  if (waiting.length > 0 && input.hasDependents) {
    // Delete it in the foreground too, so that its owner waits for the whole subtree; if one of
    // its dependents is already waiting on it in turn, unblock first so the cycle can drain.
    return { action: 'delete', policy: 'Foreground', unblockFirst: input.dependentDeletingDependents };
  }
  const policy = input.finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS)
    ? 'Orphan'
    : input.finalizers.includes(FINALIZER_DELETE_DEPENDENTS)
      ? 'Foreground'
      : 'Background';
  return { action: 'delete', policy, unblockFirst: false };
}
