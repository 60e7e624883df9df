// core/v1 Event: recorded by controllers, listed by `kubectl describe`.
import { defineStrategy, kubeObjectType } from '../base-strategy.js';
import { deducedType, withMapRelationship } from '../../../apimachinery/structured-merge/schema.js';
import type { KubeObject } from '../../../apimachinery/object.js';

export const eventKind = { group: '', resource: 'events', kind: 'Event', listKind: 'EventList', namespaced: true };

interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** core/v1 Event as kube's OpenAPI model types it: object references are atomic structs. */
const EVENT_TYPE = kubeObjectType({
  involvedObject: withMapRelationship(deducedType, 'atomic'),
  related: withMapRelationship(deducedType, 'atomic'),
});

export const eventStrategy = defineStrategy(eventKind, {
  fieldTypes: () => EVENT_TYPE,
  // kube's event field set, which `kubectl describe` selects on (involvedObject.*).
  selectableFields(obj: KubeObject) {
    const ref = (obj['involvedObject'] ?? {}) as ObjectReference;
    const source = (obj['source'] ?? {}) as { component?: string };
    return {
      'metadata.name': obj.metadata.name ?? '',
      'metadata.namespace': obj.metadata.namespace ?? '',
      'involvedObject.kind': ref.kind ?? '',
      'involvedObject.namespace': ref.namespace ?? '',
      'involvedObject.name': ref.name ?? '',
      'involvedObject.uid': ref.uid ?? '',
      'involvedObject.apiVersion': ref.apiVersion ?? '',
      'involvedObject.resourceVersion': ref.resourceVersion ?? '',
      'involvedObject.fieldPath': ref.fieldPath ?? '',
      reason: typeof obj['reason'] === 'string' ? obj['reason'] : '',
      reportingComponent: typeof obj['reportingComponent'] === 'string' ? obj['reportingComponent'] : '',
      source: source.component ?? '',
      type: typeof obj['type'] === 'string' ? obj['type'] : '',
    };
  },
});
