// core/v1 Namespace: cluster-scoped, no generation, and deleted in two phases: DELETE marks it
// Terminating, the namespace controller empties it and removes the `kubernetes` finalizer.
import { forbidden } from '../../../apimachinery/errors.js';
import { STATUS_RESET, defineStrategy, keepStoredStatus, statusUpdate } from '../base-strategy.js';
import { namespaceSchema } from '../../../apimachinery/apis/builtin-schemas.js';
import { TYPED_PROFILE } from '../catalog.js';
import { type BuiltinKind, storedKind } from './kind.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import type { UpdateStrategy } from '../strategy.js';
import { finalizersForDeletion, namespaceFinalizersForDeletion } from '../delete-propagation.js';
import { validateDNS1123Label } from '../../../apimachinery/validation/names.js';

export const NAMESPACE_FINALIZER = 'kubernetes';

/** What kube-apiserver's NamespaceLifecycle admission never lets be deleted. */
const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

export const namespaceKind = {
  group: '',
  resource: 'namespaces',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  namespaced: false,
};

interface NamespaceFields {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: unknown[] };
}

const asNamespace = (obj: KubeObject): KubeObject & NamespaceFields => obj as KubeObject & NamespaceFields;

/** The namespace controller's finalizers (spec) and everyone else's (metadata). */
const pendingFinalizers = (obj: KubeObject): boolean =>
  Boolean(asNamespace(obj).spec?.finalizers?.length || obj.metadata.finalizers?.length);

/** kube labels every namespace with its own name, so selectors can pick namespaces by name. */
const keepLabelOfName = (obj: KubeObject): void => {
  obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
};

const namespaceUpdate: UpdateStrategy = {
  allowUnconditional: true,
  prepare(obj, old) {
    keepStoredStatus(obj, old);
    // spec.finalizers change only through /finalize; the main resource keeps the stored ones.
    const ns = asNamespace(obj);
    ns.spec = { ...ns.spec, finalizers: asNamespace(old).spec?.finalizers ?? [] };
  },
  validate: () => [],
  resetFields: STATUS_RESET,
};

/** /finalize: spec.finalizers and nothing else (kube's namespaceFinalizeStrategy). */
const finalizeUpdate: UpdateStrategy = {
  allowUnconditional: true,
  prepare(obj, old) {
    asNamespace(obj).status = asNamespace(old).status ?? {};
    obj.metadata = { ...old.metadata, resourceVersion: obj.metadata.resourceVersion };
  },
  validate: () => [],
  resetFields: STATUS_RESET,
};

export const namespaceStrategy = defineStrategy(namespaceKind, {
  schemas: { v1: namespaceSchema },
  // SetDefaults_Namespace: the label is a default, so the writer owns it.
  canonicalize: keepLabelOfName,
  create: {
    prepare(obj) {
      const ns = asNamespace(obj);
      ns.status = { phase: 'Active' };
      const finalizers = new Set(ns.spec?.finalizers ?? []);
      finalizers.add(NAMESPACE_FINALIZER);
      ns.spec = { ...ns.spec, finalizers: [...finalizers] };
    },
    validateName: validateDNS1123Label,
  },
  update: namespaceUpdate,
  subresources: { status: statusUpdate(namespaceUpdate), finalize: finalizeUpdate },
  delete: {
    marksFirst: (obj) => pendingFinalizers(obj),
    waits: (obj) => pendingFinalizers(obj),
    // kube's namespace REST: the GC finalizers are set on the first DELETE; a terminating
    // namespace keeps them until its spec finalizers are done, then the generic store's rule applies.
    finalizersOnDelete(obj, propagation) {
      const finalizers = obj.metadata.finalizers ?? [];
      if (!obj.metadata.deletionTimestamp) return namespaceFinalizersForDeletion(finalizers, propagation);
      if (namespaceFinalizers(obj).length > 0) return undefined;
      return finalizersForDeletion(finalizers, propagation, 'DeleteDependents');
    },
    mark(obj, now) {
      const name = obj.metadata.name ?? '';
      // kube's NamespaceLifecycle admission refuses these before anything else happens. Every
      // namespace carries the `kubernetes` finalizer from its creation, so each first DELETE of one
      // comes through here (only a namespace already finalized by hand would skip the check).
      if (IMMORTAL_NAMESPACES.has(name)) {
        throw forbidden(`namespaces "${name}" is forbidden: this namespace may not be deleted`, {
          name,
          kind: 'namespaces',
        });
      }
      // kube's namespace REST sets only deletionTimestamp and the phase (no grace period).
      obj.metadata.deletionTimestamp = now;
      const ns = asNamespace(obj);
      ns.status = { ...ns.status, phase: 'Terminating' };
    },
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

const namespaceFinalizers = (obj: KubeObject): string[] => asNamespace(obj).spec?.finalizers ?? [];

export const NAMESPACES: BuiltinKind = storedKind(namespaceStrategy, {
  singular: 'namespace',
  goPackage: 'k8s.io/api/core/v1',
  shortNames: ['ns'],
  schema: namespaceSchema,
  // kube's namespace storage has no DeleteCollection.
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: ['finalize', 'status'],
  // The namespace REST's Delete answers with the namespace it marked.
  serving: { ...TYPED_PROFILE, deleted: 'object' },
  printerColumns: [
    { name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'The status of the namespace' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});
