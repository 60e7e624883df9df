// core/v1 Namespace: cluster-scoped, no generation, and deleted in two phases: DELETE marks it
// Terminating, the namespace controller empties it and removes the `kubernetes` finalizer.
import { forbidden } from '../../../apimachinery/errors.js';
import { defineStrategy } from '../base-strategy.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import { validateDNS1123Label } from '../../../apimachinery/validation/names.js';

export const NAMESPACE_FINALIZER = 'kubernetes';

/** What kube-apiserver's NamespaceLifecycle admission never lets be deleted. */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

export const namespaceKind = { group: '', resource: 'namespaces', kind: 'Namespace', listKind: 'NamespaceList', namespaced: false };

interface NamespaceFields {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: unknown[] };
}

const asNamespace = (obj: KubeObject): KubeObject & NamespaceFields => obj as KubeObject & NamespaceFields;

export const namespaceStrategy = defineStrategy(namespaceKind, {
  statusSubresource: true,
  tracksGeneration: false,
  validateName: validateDNS1123Label,
  prepareForCreate(obj) {
    const ns = asNamespace(obj);
    ns.status = { phase: 'Active' };
    const finalizers = new Set(ns.spec?.finalizers ?? []);
    finalizers.add(NAMESPACE_FINALIZER);
    ns.spec = { ...ns.spec, finalizers: [...finalizers] };
    // kube labels every namespace with its own name, so selectors can pick namespaces by name.
    obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
  },
  prepareForUpdate(obj, old, ctx) {
    const ns = asNamespace(obj);
    // spec.finalizers change only through /finalize; the main resource keeps the stored ones.
    if (ctx.subresource !== 'finalize') ns.spec = { ...ns.spec, finalizers: asNamespace(old).spec?.finalizers ?? [] };
    else ns.status = asNamespace(old).status ?? {};
    if (ctx.subresource === 'finalize') obj.metadata = { ...old.metadata, resourceVersion: obj.metadata.resourceVersion };
    obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
  },
  hasPendingFinalizers: (obj) => Boolean(asNamespace(obj).spec?.finalizers?.length || obj.metadata.finalizers?.length),
  markedForDeletion(obj) {
    const name = obj.metadata.name ?? '';
    // kube's NamespaceLifecycle admission refuses these before anything else happens. Every
    // namespace carries the `kubernetes` finalizer from its creation, so each first DELETE of one
    // comes through here (only a namespace already finalized by hand would skip the check).
    if (IMMORTAL_NAMESPACES.has(name)) {
      throw forbidden(`namespaces "${name}" is forbidden: this namespace may not be deleted`, { name, kind: 'namespaces' });
    }
    // kube's namespace REST sets only deletionTimestamp and the phase: unlike the generic store's
    // finalizer path it leaves deletionGracePeriodSeconds unset.
    delete obj.metadata.deletionGracePeriodSeconds;
    const ns = asNamespace(obj);
    ns.status = { ...ns.status, phase: 'Terminating' };
  },
  selectableFields(obj) {
    return {
      'metadata.name': obj.metadata.name ?? '',
      'status.phase': asNamespace(obj).status?.phase ?? '',
    };
  },
});

export const isTerminating = (obj: KubeObject): boolean =>
  Boolean(obj.metadata.deletionTimestamp) || asNamespace(obj).status?.phase === 'Terminating';

export const namespaceFinalizers = (obj: KubeObject): string[] => asNamespace(obj).spec?.finalizers ?? [];
