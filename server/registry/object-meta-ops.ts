// Pure helpers for the generic store: the metadata bookkeeping kube-apiserver does around every
// create and update, and the rule that bumps metadata.generation.
//
// Who owns which ObjectMeta field (kube 1.34: handlers/create.go, registry/generic/registry/store.go,
// registry/rest/create.go, update.go, meta.go):
//
//   field                       create                                   update
//   uid                         wiped, then a new UUID                   old's when the client sent none; a PUT's different
//                                                                        one fails its precondition (409 Conflict), a
//                                                                        patch's is a `field is immutable` error
//   creationTimestamp           wiped, then now                          always old's
//   deletionTimestamp           wiped                                    old's when set (cannot be cleared or changed); a
//                                                                        client setting one is an immutable error
//   deletionGracePeriodSeconds  wiped                                    old's when set and the client sent none
//   selfLink                    wiped                                    (not kept by current kube)
//   generation                  the strategy's (custom resources: 1)    old's, then the strategy may bump it (specChanged)
//   resourceVersion             must be empty (400), then the revision   the client's value is the precondition, then the
//                                                                        new revision
//   name                        the client's, or generated               must match the URL
//   namespace                   the request's (400 on a mismatch)        the request's; cleared for cluster-scoped kinds
//   labels, annotations,        the client's                             the client's
//   finalizers, ownerReferences
import { randomInt } from 'node:crypto';
import type { KubeObject, ObjectMeta } from '../../apimachinery/object.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { badRequest } from '../../apimachinery/errors.js';

/**
 * Whether an update changed anything outside `metadata`: kube's custom resource strategy bumps
 * generation on exactly that (copyNonMetadata in customresource/strategy.go). That includes
 * `status` when the kind has no status subresource; with one, the store has already put the old
 * status back, so status writes never count.
 */
export function specChanged(old: KubeObject, next: KubeObject): boolean {
  const outside = (o: KubeObject): Record<string, unknown> =>
    Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'metadata'));
  return !deepEqual(outside(old), outside(next));
}

/** k8s.io/apimachinery/pkg/util/rand's alphabet: no vowels (no words), no 0/1/3 (look like letters). */
export const GENERATED_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const GENERATED_NAME_RANDOM_LENGTH = 5;
/** names.SimpleNameGenerator keeps the result within 63 characters: the base is cut to 58. */
const MAX_GENERATED_NAME_BASE_LENGTH = 63 - GENERATED_NAME_RANDOM_LENGTH;

/**
 * A name from metadata.generateName, as names.SimpleNameGenerator: the base cut to 58 characters,
 * then 5 random characters. `pick(n)` returns an index below n (crypto randomness by default).
 */
export function generateNameFrom(base: string, pick: (n: number) => number = randomInt): string {
  let suffix = '';
  for (let i = 0; i < GENERATED_NAME_RANDOM_LENGTH; i++)
    suffix += GENERATED_NAME_ALPHABET[pick(GENERATED_NAME_ALPHABET.length)];
  return base.slice(0, MAX_GENERATED_NAME_BASE_LENGTH) + suffix;
}

/** rest.WipeObjectMetaSystemFields: what the create handler drops from the client's object. */
export function wipeObjectMetaSystemFields(meta: ObjectMeta): void {
  delete meta.creationTimestamp;
  delete meta.uid;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta['selfLink'];
}

/** rest.FillObjectMetaSystemFields: the store's first step of a create. */
export function fillObjectMetaSystemFields(meta: ObjectMeta, now: string, uid: string): void {
  meta.creationTimestamp = now;
  meta.uid = uid;
  delete meta['selfLink'];
}

/**
 * rest.EnsureObjectNamespaceMatchesRequestNamespace: the object's namespace is the request's
 * (`expected`, empty for a cluster-scoped kind), set when the object has none, cleared for a
 * cluster-scoped kind; any other is kube's 400. kube's handlers check it on the client's object,
 * and its store again (BeforeCreate, BeforeUpdate) after mutating admission.
 */
export function ensureNamespaceMatchesRequest(expected: string, meta: ObjectMeta): void {
  const given = meta.namespace ?? '';
  if (given !== '' && expected !== '' && given !== expected)
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (expected) meta.namespace = expected;
  else delete meta.namespace;
}
