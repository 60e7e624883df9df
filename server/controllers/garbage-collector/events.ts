// The Events the garbage collector records, as kube's graph builder records them through client-go's
// EventRecorder (source component `garbage-collector-controller`). The collector only builds them:
// writing one is the caller's `recordEvent`, so that this folder does not import the API wiring.
import type { ObjectMeta, OwnerReference } from '../../../apimachinery/object.js';
import { formatTimestamp } from '../../../apimachinery/object.js';
import type { Clock } from '../../../apimachinery/clock.js';
import { goQuote } from '../../../apimachinery/quote.js';
import type { Identity } from './graph.js';

const GC_EVENT_COMPONENT = 'garbage-collector-controller';
const REASON_OWNER_REF_INVALID_NAMESPACE = 'OwnerRefInvalidNamespace';

/** core/v1 ObjectReference as Go serializes it: empty fields are left out (omitempty). */
interface EventObjectReference {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid: string;
}

/** A core/v1 Event as client-go's recorder makes it (the fields it sets; the rest stay unset). */
export interface CoreEvent {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: ObjectMeta & { name: string; namespace: string };
  involvedObject: EventObjectReference;
  reason: string;
  message: string;
  source: { component: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  type: 'Normal' | 'Warning';
  reportingComponent: string;
  reportingInstance: string;
  [key: string]: unknown;
}

/** Writes an Event (the core events store's create, in the server); rejections are logged, not retried. */
export type EventRecorder = (event: CoreEvent) => Promise<void>;

/** Nanoseconds since the epoch on `clock`, for an Event's name as Go's t.UnixNano() gives it. */
export const epochNanos = (clock: Clock): bigint => BigInt(clock.nowMicros()) * 1000n;

/**
 * kube's reportInvalidNamespaceOwnerRef: `dependent` names, through `ref`, a namespaced owner that
 * lives in another namespace (or the dependent is cluster-scoped), which kube reads as absent.
 */
export function invalidNamespaceOwnerRefEvent(dependent: Identity, ref: OwnerReference, at: bigint): CoreEvent {
  const ns = dependent.namespace;
  // The owner as the dependent's reference places it: in the dependent's own namespace (kube's
  // objectReference String(): "[apiVersion/kind, namespace: ns, name: n, uid: u]").
  const owner = `[${ref.apiVersion}/${ref.kind}, namespace: ${ns}, name: ${ref.name}, uid: ${ref.uid}]`;
  return recorded(
    dependent,
    'Warning',
    REASON_OWNER_REF_INVALID_NAMESPACE,
    `ownerRef ${owner} does not exist in namespace ${goQuote(ns)}`,
    at,
  );
}

/** client-go's makeEvent: named `<object>.<nanos in hex>`, in the object's namespace or "default". */
function recorded(obj: Identity, type: CoreEvent['type'], reason: string, message: string, at: bigint): CoreEvent {
  const t = formatTimestamp(Number(at / 1_000_000n));
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${obj.name}.${at.toString(16)}`, namespace: obj.namespace || 'default' },
    involvedObject: {
      kind: obj.kind,
      ...(obj.namespace ? { namespace: obj.namespace } : {}),
      name: obj.name,
      uid: obj.uid,
      apiVersion: obj.apiVersion,
    },
    reason,
    message,
    source: { component: GC_EVENT_COMPONENT },
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type,
    reportingComponent: GC_EVENT_COMPONENT,
    reportingInstance: '',
  };
}
