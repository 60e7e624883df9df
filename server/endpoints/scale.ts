// The scale subresource of a custom resource: an autoscaling/v1 Scale read from and written to the
// object through the CRD's specReplicasPath, statusReplicasPath and labelSelectorPath, as kube's
// customresource scale storage does (scaleFromCustomResource, scaleUpdatedObjectInfo).
import { invalid } from '../../apimachinery/errors.js';
import { invalid as invalidField } from '../../apimachinery/field-errors.js';
import type { ScaleMapping } from '../registry/catalog.js';
import { type KubeObject, cloneJson, isJsonObject } from '../../apimachinery/object.js';

export interface Scale {
  kind: 'Scale';
  apiVersion: 'autoscaling/v1';
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string };
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

/** `.spec.replicas` → ['spec', 'replicas'] (kube accepts only such simple paths at CRD write). */
const segments = (path: string): string[] => path.replace(/^\./, '').split('.');

function read(obj: KubeObject, path: string): unknown {
  let v: unknown = obj;
  for (const s of segments(path)) v = isJsonObject(v) ? v[s] : undefined;
  return v;
}

/** unstructured.NestedInt64: a missing or non-integer value counts as 0. */
const int = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) ? v : 0);

export function scaleOf(obj: KubeObject, mapping: ScaleMapping): Scale {
  const m = obj.metadata;
  const selector = mapping.labelSelectorPath ? read(obj, mapping.labelSelectorPath) : undefined;
  const specReplicas = int(read(obj, mapping.specReplicasPath));
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      ...(m.name !== undefined ? { name: m.name } : {}),
      ...(m.namespace !== undefined ? { namespace: m.namespace } : {}),
      ...(m.uid !== undefined ? { uid: m.uid } : {}),
      ...(m.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
      ...(m.creationTimestamp !== undefined ? { creationTimestamp: m.creationTimestamp } : {}),
    },
    // ScaleSpec.replicas is omitempty, ScaleStatus.replicas is not.
    spec: specReplicas ? { replicas: specReplicas } : {},
    status: {
      replicas: int(read(obj, mapping.statusReplicasPath)),
      ...(typeof selector === 'string' && selector ? { selector } : {}),
    },
  };
}

/**
 * The object with the Scale's replicas written to specReplicasPath; a resourceVersion in the
 * Scale is the client's precondition. Replicas must be a non-negative int32 (kube's ValidateScale).
 */
export function applyScale(obj: KubeObject, scale: unknown, mapping: ScaleMapping): KubeObject {
  const s = isJsonObject(scale) ? scale : {};
  const spec = isJsonObject(s['spec']) ? s['spec'] : {};
  const replicas = spec['replicas'] ?? 0;
  const name = obj.metadata.name ?? '';
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas > 2 ** 31 - 1) {
    throw invalid({ group: 'autoscaling', name: 'Scale' }, name, [
      invalidField('spec.replicas', replicas, 'must be an int32'),
    ]);
  }
  if (replicas < 0) {
    throw invalid({ group: 'autoscaling', name: 'Scale' }, name, [
      invalidField('spec.replicas', replicas, 'must be greater than or equal to 0'),
    ]);
  }
  const next = cloneJson(obj);
  let at: Record<string, unknown> = next;
  const path = segments(mapping.specReplicasPath);
  for (const seg of path.slice(0, -1)) {
    if (!isJsonObject(at[seg])) at[seg] = {};
    at = at[seg] as Record<string, unknown>;
  }
  at[path[path.length - 1]!] = replicas;
  const meta = isJsonObject(s['metadata']) ? s['metadata'] : {};
  if (typeof meta['resourceVersion'] === 'string' && meta['resourceVersion'])
    next.metadata.resourceVersion = meta['resourceVersion'];
  return next;
}
