// apiextensions.k8s.io/v1 CustomResourceDefinition: defaulted and validated as kube does, with a
// status the CRD controller owns and a cleanup finalizer added when a DELETE arrives, so every
// custom resource is gone before the definition is.
import { SPEC_GENERATION, STATUS_RESET, defineStrategy, keepStoredStatus } from '../base-strategy.js';
import { customResourceDefinitionSchema } from '../../../apimachinery/apis/builtin-schemas.js';
import { TYPED_PROFILE } from '../catalog.js';
import { type BuiltinKind, storedKind } from './kind.js';
import type { UpdateStrategy } from '../strategy.js';
import { decodeFailure } from '../write-steps.js';
import { defaultMetaV1FieldLabels } from '../../../apimachinery/selectors/fields.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import {
  CRD_CLEANUP_FINALIZER,
  CRD_GROUP,
  type CRDCondition,
  type CustomResourceDefinition,
} from '../../../apimachinery/apis/apiextensions.js';
import { defaultCRD } from '../../../crd/defaults.js';
import { storageVersionOf } from '../../../crd/storage-version.js';
import { validateCRD, validateCRDStatus, validateCRDUpdate } from '../../../crd/validation/crd.js';
import { checkSchemaAtCRDWrite } from '../../../crd/schema/crd-write.js';
import { decodeCRDSchemas } from '../../../crd/decode.js';

export const crdKind = {
  group: CRD_GROUP,
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  namespaced: false,
};

const asCRD = (obj: KubeObject): CustomResourceDefinition => obj as CustomResourceDefinition;

/** Sets a condition, keeping lastTransitionTime when the status does not change (else `now`). */
export function setCondition(crd: CustomResourceDefinition, cond: CRDCondition, now: string): void {
  const status = (crd.status ??= { acceptedNames: { plural: '', kind: '' }, storedVersions: [] });
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === cond.type);
  const prev = i >= 0 ? conditions[i] : undefined;
  const next = {
    ...cond,
    lastTransitionTime: prev && prev.status === cond.status ? prev.lastTransitionTime : now,
  };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
}

const crdUpdate: UpdateStrategy = {
  allowUnconditional: false,
  prepare(obj, old) {
    keepStoredStatus(obj, old);
    const crd = asCRD(obj);
    // A new storage version is recorded at once, so objects written in it are never forgotten.
    const storage = storageVersionOf(crd);
    if (storage && crd.status && !crd.status.storedVersions.includes(storage)) crd.status.storedVersions.push(storage);
  },
  validate: (obj, old) => validateCRDUpdate(asCRD(obj), asCRD(old), checkSchemaAtCRDWrite),
  resetFields: STATUS_RESET,
};

/**
 * kube's CRD statusStrategy keeps the spec and lets the status write carry the metadata (its
 * ResetObjectMetaForStatus is handed the new object twice): the CRD controller sets the
 * Terminating condition and drops its cleanup finalizer in one write.
 */
const crdStatusUpdate: UpdateStrategy = {
  allowUnconditional: crdUpdate.allowUnconditional,
  prepare(obj, old) {
    obj['spec'] = old['spec'];
  },
  validate: (obj) => validateCRDStatus(asCRD(obj)),
  resetFields: ['metadata', 'spec'],
};

export const crdStrategy = defineStrategy(crdKind, {
  schemas: { [`${CRD_GROUP}/v1`]: customResourceDefinitionSchema },
  generation: SPEC_GENERATION,
  // CRDs register no field label conversion, so kube falls back to the metav1 default.
  fieldLabels: defaultMetaV1FieldLabels,
  canonicalize(obj, ctx) {
    // kube decodes a client's body into its Go types first: no schema of the wrong shape gets
    // further. The server's own writes (the CRD controller's) come from typed code, as there.
    const message = ctx.onUnknownFields && decodeCRDSchemas(obj, ctx.floatLiterals);
    if (message) throw decodeFailure(crdKind.kind, obj, message, ctx);
    defaultCRD(asCRD(obj));
  },
  create: {
    prepare(obj) {
      const crd = asCRD(obj);
      const storage = storageVersionOf(crd);
      crd.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: storage ? [storage] : [] };
    },
    validate: (obj) => validateCRD(asCRD(obj), checkSchemaAtCRDWrite),
  },
  update: crdUpdate,
  subresources: { status: crdStatusUpdate },
  delete: {
    // Every CRD is deleted in two phases: the DELETE adds the cleanup finalizer itself.
    marksFirst: () => true,
    mark(obj, now) {
      // kube's CRD REST.Delete only stamps deletionTimestamp, adds the finalizer and the condition
      // (registry/customresourcedefinition/etcd.go): no grace period, no new generation.
      obj.metadata.deletionTimestamp = now;
      const crd = asCRD(obj);
      const finalizers = new Set(obj.metadata.finalizers ?? []);
      finalizers.add(CRD_CLEANUP_FINALIZER);
      obj.metadata.finalizers = [...finalizers];
      setCondition(
        crd,
        {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionPending',
          message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
        },
        now,
      );
    },
  },
});

export const CUSTOM_RESOURCE_DEFINITIONS: BuiltinKind = storedKind(crdStrategy, {
  singular: 'customresourcedefinition',
  goPackage: 'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1',
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  schema: customResourceDefinitionSchema,
  subresources: ['status'],
  // The CRD REST's Delete answers with the CRD it marked.
  serving: { ...TYPED_PROFILE, deleted: 'object' },
  printerColumns: [{ name: 'Created At', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
});
