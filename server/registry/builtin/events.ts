// Events: core/v1 Event, recorded by controllers and listed by `kubectl describe`, and
// events.k8s.io/v1 Event, the same objects under newer names. As in kube, both are one resource in
// one storage (/registry/events/, stored as core/v1): the newer version is a conversion of the
// stored object, validated as core after converting, strictly when written through events.k8s.io.
import { defineStrategy } from '../base-strategy.js';
import { coreEventSchema, eventsV1EventSchema } from '../../../apimachinery/apis/builtin-schemas.js';
import { type BuiltinKind, storedKind } from './kind.js';
import type { WriteContext } from '../strategy.js';
import { type FieldError, invalid, required } from '../../../apimachinery/field-errors.js';
import { type FieldLabelConversion, supportedFieldLabels } from '../../../apimachinery/selectors/fields.js';
import { isDNS1123Subdomain, isQualifiedName } from '../../../apimachinery/validation/names.js';
import { deepEqual } from '../../../apimachinery/equality.js';
import { FIELD_IMMUTABLE } from '../../../apimachinery/validation/object-meta.js';
import type { KubeObject } from '../../../apimachinery/object.js';

export const eventKind = { group: '', resource: 'events', kind: 'Event', listKind: 'EventList', namespaced: true };

const EVENTS_GROUP = 'events.k8s.io';
const CORE_API_VERSION = 'v1';
const EVENTS_API_VERSION = `${EVENTS_GROUP}/v1`;

interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** The fields events.k8s.io/v1 renames (pkg/apis/events/v1's conversion), as [events.k8s.io, core]. */
const RENAMED: ReadonlyArray<readonly [string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

/** One object's fields moved from one set of names to the other; nulls (Go's zero times) are dropped. */
function renamed(obj: KubeObject, apiVersion: string, pairs: ReadonlyArray<readonly [string, string]>): KubeObject {
  const rename = new Map(pairs);
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(obj)) {
    if (value === null) continue;
    out[rename.get(field) ?? field] = value;
  }
  return { ...out, apiVersion, kind: 'Event' } as KubeObject;
}

/** A core/v1 Event as events.k8s.io/v1 reads it, or the other way round. */
function convertEvent(obj: KubeObject, apiVersion: string): KubeObject {
  if (obj.apiVersion === apiVersion) return obj;
  return apiVersion === EVENTS_API_VERSION
    ? renamed(
        obj,
        apiVersion,
        RENAMED.map(([events, core]) => [core, events] as const),
      )
    : renamed(obj, apiVersion, RENAMED);
}

/** The object as kube's internal core.Event, which validation judges whatever the request version. */
const asCore = (obj: KubeObject): KubeObject => convertEvent(obj, CORE_API_VERSION);

const str = (obj: Record<string, unknown>, field: string): string => (typeof obj[field] === 'string' ? obj[field] : '');
const isZero = (value: unknown): boolean => value === undefined || value === null || value === '';
const refOf = (obj: KubeObject): ObjectReference => (obj['involvedObject'] ?? {}) as ObjectReference;

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

/** kube's legacyValidateEvent: what every event passes, in every version. */
function legacyErrors(event: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = event.metadata.namespace ?? '';
  const refNamespace = refOf(event).namespace ?? '';
  const mismatch = (): FieldError =>
    invalid('involvedObject.namespace', refNamespace, 'does not match event.namespace');
  if (isZero(event['eventTime'])) {
    // An old-style event: its namespace is its object's (or "default", as old clients wrote).
    if (refNamespace === '' ? namespace !== '' && namespace !== 'default' : namespace !== refNamespace)
      errs.push(mismatch());
  } else {
    if (refNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(mismatch());
    const controller = str(event, 'reportingComponent');
    if (controller === '') errs.push(required('reportingController'));
    for (const msg of isQualifiedName(controller)) errs.push(invalid('reportingController', controller, msg));
    const limited = (field: string, limit: number, requiredToo: boolean): void => {
      const value = str(event, field);
      if (requiredToo && value === '') errs.push(required(field));
      if (value.length > limit) errs.push(invalid(field, '', `can have at most ${limit} characters`));
    };
    limited('reportingInstance', REPORTING_INSTANCE_LIMIT, true);
    limited('action', ACTION_LIMIT, true);
    limited('reason', REASON_LIMIT, true);
    limited('message', NOTE_LIMIT, false);
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(invalid('namespace', namespace, msg));
  return errs;
}

/** validateV1EventSeries. */
function seriesErrors(event: KubeObject): FieldError[] {
  const series = event['series'] as { count?: number; lastObservedTime?: string } | undefined;
  if (series === undefined || series === null) return [];
  const errs: FieldError[] = [];
  if ((series.count ?? 0) < 2) errs.push(invalid('series.count', '', 'should be at least 2'));
  if (isZero(series.lastObservedTime)) errs.push(required('series.lastObservedTime'));
  return errs;
}

/** ValidateEventCreate: legacy rules, and for events.k8s.io/v1 writes the strict ones. */
function validateEventCreate(obj: KubeObject): FieldError[] {
  const event = asCore(obj);
  const errs = legacyErrors(event);
  if (obj.apiVersion !== EVENTS_API_VERSION) return errs;
  errs.push(...seriesErrors(event));
  if (isZero(event['eventTime'])) errs.push(required('eventTime'));
  const type = str(event, 'type');
  if (type !== 'Normal' && type !== 'Warning') errs.push(invalid('type', '', `has invalid value: ${type}`));
  for (const field of ['firstTimestamp', 'lastTimestamp', 'count']) {
    if (!isZero(event[field]) && event[field] !== 0) errs.push(invalid(field, '', 'needs to be unset'));
  }
  const source = (event['source'] ?? {}) as { component?: string; host?: string };
  if (source.component || source.host) errs.push(invalid('source', '', 'needs to be unset'));
  return errs;
}

/** The fields an events.k8s.io/v1 update may not change, in kube's order, at their core paths. */
const IMMUTABLE = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'reason',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
];

/** ValidateEventUpdate. */
function validateEventUpdate(obj: KubeObject, oldObj: KubeObject): FieldError[] {
  const event = asCore(obj);
  const old = asCore(oldObj);
  const errs = legacyErrors(event);
  if (obj.apiVersion !== EVENTS_API_VERSION) return errs;
  if (!deepEqual(event['series'] ?? null, old['series'] ?? null)) errs.push(...seriesErrors(event));
  for (const field of IMMUTABLE) {
    // kube's paths name the internal fields; its reportingController is core's reportingComponent.
    const path = field === 'reportingComponent' ? 'reportingController' : field;
    if (!deepEqual(event[field] ?? null, old[field] ?? null))
      errs.push(invalid(path, event[field] ?? '', FIELD_IMMUTABLE));
  }
  return errs;
}

/** events.k8s.io/v1's field labels, named as that version names them (AddFieldLabelConversionsForEvent). */
const EVENTS_V1_FIELD_LABELS: Record<string, string> = {
  'metadata.name': 'metadata.name',
  'metadata.namespace': 'metadata.namespace',
  reason: 'reason',
  type: 'type',
  reportingController: 'reportingComponent',
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
};

/** events.k8s.io/v1's field selector labels, converted to the core names the store selects on. */
const eventsV1FieldLabels: FieldLabelConversion = (label, value) => {
  const core = EVENTS_V1_FIELD_LABELS[label];
  return core === undefined ? { error: `field label not supported: ${label}` } : { label: core, value };
};

/** kube's event field set, which `kubectl describe` selects on (involvedObject.*). */
function selectableFields(obj: KubeObject): Record<string, string> {
  const ref = refOf(obj);
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
    reason: str(obj, 'reason'),
    reportingComponent: str(obj, 'reportingComponent'),
    source: source.component ?? '',
    type: str(obj, 'type'),
  };
}

/** The schemas events are written in: core's, and events.k8s.io's names for the same objects. */
export const EVENT_SCHEMAS = { [CORE_API_VERSION]: coreEventSchema, [EVENTS_API_VERSION]: eventsV1EventSchema };

export const eventStrategy = defineStrategy(eventKind, {
  schemas: EVENT_SCHEMAS,
  selectableFields,
  fieldLabels: supportedFieldLabels(Object.keys(selectableFields({ metadata: {} } as KubeObject))),
  create: { validate: (obj: KubeObject, _ctx: WriteContext) => validateEventCreate(obj) },
  update: { validate: (obj: KubeObject, old: KubeObject) => validateEventUpdate(obj, old) },
  versions: {
    storageApiVersion: CORE_API_VERSION,
    convert: (objects, apiVersion) => Promise.resolve(objects.map((o) => convertEvent(o, apiVersion))),
  },
});

export const CORE_EVENTS: BuiltinKind = storedKind(eventStrategy, {
  singular: 'event',
  shortNames: ['ev'],
  goPackage: 'k8s.io/api/core/v1',
  schema: coreEventSchema,
  printerColumns: [
    { name: 'Last Seen', type: 'date', jsonPath: '.lastTimestamp' },
    { name: 'Type', type: 'string', jsonPath: '.type' },
    { name: 'Reason', type: 'string', jsonPath: '.reason' },
    { name: 'Object', type: 'string', jsonPath: '.involvedObject.name' },
    { name: 'Message', type: 'string', jsonPath: '.message' },
  ],
});

/** The same events, in the same store, under events.k8s.io's names (a conversion on read and write). */
export const EVENTS_V1: BuiltinKind = storedKind(eventStrategy, {
  group: EVENTS_GROUP,
  singular: 'event',
  goPackage: 'k8s.io/api/events/v1',
  shortNames: ['ev'],
  schema: eventsV1EventSchema,
  fieldLabels: eventsV1FieldLabels,
  printerColumns: [
    { name: 'Last Seen', type: 'date', jsonPath: '.deprecatedLastTimestamp' },
    { name: 'Type', type: 'string', jsonPath: '.type' },
    { name: 'Reason', type: 'string', jsonPath: '.reason' },
    { name: 'Object', type: 'string', jsonPath: '.regarding.name' },
    { name: 'Message', type: 'string', jsonPath: '.note' },
  ],
});
