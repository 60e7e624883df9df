// testing.mini-apiserver.io/v1alpha1's kinds as the generic store serves them, described as every
// built-in kind is (kind.ts): Fault, Snapshot and Clock, all cluster-scoped, each with a status
// subresource the server writes. Their schemas (apimachinery/apis/testing.ts) type their fields
// and validate as a CRD's do; the rules a schema cannot say are here. They are served only with
// the testing API (server/testing/install.ts), which also says what the server does with them.
import {
  CLOCK_MODES,
  CLOCK_NAME,
  type ClockSpec,
  type FaultAction,
  type FaultSpec,
  type SnapshotStatus,
  TESTING_API_VERSION,
  TESTING_GROUP,
  TESTING_VERSION,
  clockSchema,
  faultSchema,
  snapshotSchema,
} from '../../../apimachinery/apis/testing.js';
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import { type FieldError, forbidden, invalid, notSupported, required } from '../../../apimachinery/field-errors.js';
import { type KubeObject, isJsonObject } from '../../../apimachinery/object.js';
import { parseDuration } from '../../../cel/time.js';
import { CelError } from '../../../cel/values.js';
import { type CompiledSchema, compileSchema } from '../../../crd/schema/validate/compile-schema.js';
import { SPEC_GENERATION, defineStrategy, keepStoredStatus, statusUpdate, withoutStatus } from '../base-strategy.js';
import type { ServedColumn } from '../catalog.js';
import type { KindInfo, Strategy, UpdateStrategy } from '../strategy.js';
import { type BuiltinKind, storedKind } from './kind.js';
import { PRINTER_AGE } from './printer-columns.js';

const kind = (resource: string, kindName: string): KindInfo => ({
  group: TESTING_GROUP,
  resource,
  kind: kindName,
  listKind: `${kindName}List`,
  namespaced: false,
});

const faultKind = kind('faults', 'Fault');
export const snapshotKind = kind('snapshots', 'Snapshot');
const clockKind = kind('clocks', 'Clock');

export const faultSpec = (obj: KubeObject): FaultSpec => (isJsonObject(obj['spec']) ? (obj['spec'] as FaultSpec) : {});
export const clockSpec = (obj: KubeObject): ClockSpec | undefined =>
  isJsonObject(obj['spec']) ? (obj['spec'] as unknown as ClockSpec) : undefined;
export const snapshotStatus = (obj: KubeObject): SnapshotStatus =>
  isJsonObject(obj['status']) ? (obj['status'] as SnapshotStatus) : {};

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const ACTIONS = ['error', 'errorAfterCommit', 'resetConnection', 'endWatch', 'expireHistory'] as const;

/** A Go duration in milliseconds (negative allowed), or Go's error text. */
export function goDurationMs(text: string): number | string {
  const d = parseDuration(text);
  return d instanceof CelError ? d.message : Number(d.nanos / 1000n) / 1000;
}

/** The one action a spec names; undefined when it names none. */
export function actionOf(action: FaultAction | undefined): (typeof ACTIONS)[number] | undefined {
  return ACTIONS.find((a) => action?.[a] !== undefined);
}

/** What the schema cannot say of a Fault's spec. */
export function validateFaultSpec(spec: FaultSpec): FieldError[] {
  const errs: FieldError[] = [];
  const set = ACTIONS.filter((a) => spec.action?.[a] !== undefined);
  if (set.length > 1)
    errs.push(
      forbidden('spec.action', `may not set more than one of ${ACTIONS.join(', ')}: ${set.join(', ')} are set`),
    );
  if (set.length === 0 && spec.delay === undefined)
    errs.push(required('spec.action', `an action (one of ${ACTIONS.join(', ')}) or a delay is required`));
  if (spec.delay !== undefined) {
    const ms = goDurationMs(spec.delay);
    if (typeof ms === 'string') errs.push(invalid('spec.delay', spec.delay, ms));
    else if (ms < 0) errs.push(invalid('spec.delay', spec.delay, 'must not be negative'));
  }
  for (const [i, verb] of (spec.match?.verbs ?? []).entries()) {
    if (verb !== '*' && !VERBS.includes(verb)) errs.push(notSupported(`spec.match.verbs[${i}]`, verb, ['*', ...VERBS]));
  }
  return errs;
}

/** RFC 3339 (already checked by the schema's date-time format) in microseconds since the epoch. */
export function rfc3339Micros(text: string): number | undefined {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return undefined;
  const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
  return Math.floor(ms / 1000) * 1_000_000 + Number(fraction.slice(0, 6).padEnd(6, '0'));
}

/** What the schema cannot say of the Clock: its name, and the field each mode needs. */
export function validateClock(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  if (name !== CLOCK_NAME) errs.push(notSupported('metadata.name', name, [CLOCK_NAME]));
  const spec = clockSpec(obj);
  if (!spec || !CLOCK_MODES.includes(spec.mode)) return errs;
  if (spec.mode === 'Frozen') {
    if (spec.time === undefined) errs.push(required('spec.time', 'a Frozen clock needs the time it shows'));
  } else if (spec.time !== undefined) errs.push(forbidden('spec.time', 'only a Frozen clock has a time'));
  if (spec.mode === 'Offset') {
    if (spec.offset === undefined) errs.push(required('spec.offset', 'an Offset clock needs its offset'));
    else {
      const ms = goDurationMs(spec.offset);
      if (typeof ms === 'string') errs.push(invalid('spec.offset', spec.offset, ms));
    }
  } else if (spec.offset !== undefined) errs.push(forbidden('spec.offset', 'only an Offset clock has an offset'));
  return errs;
}

/** What one of these kinds' strategies shares: its schema's types and checks, and a status the server writes. */
function testingStrategy(k: KindInfo, schema: JSONSchemaProps, rules: (obj: KubeObject) => FieldError[]): Strategy {
  let compiled: CompiledSchema | undefined;
  const checked = (): CompiledSchema => (compiled ??= compileSchema(schema));
  const validate = (obj: KubeObject): FieldError[] => [...checked().validate(obj), ...rules(obj)];
  const update: UpdateStrategy = {
    allowUnconditional: false,
    prepare: keepStoredStatus,
    validate,
    resetFields: ['status'],
  };
  return defineStrategy(k, {
    schemas: { [TESTING_API_VERSION]: schema },
    generation: SPEC_GENERATION,
    create: { prepare: withoutStatus, validate },
    update,
    subresources: { status: statusUpdate(update, (obj, old) => checked().validateStatusUpdate(obj, old)) },
  });
}

/** One of the kinds, served in v1alpha1 with its status subresource. */
const testingKind = (
  strategy: Strategy,
  singular: string,
  schema: JSONSchemaProps,
  printerColumns: readonly ServedColumn[],
): BuiltinKind =>
  storedKind(strategy, { singular, schema, printerColumns, subresources: ['status'], version: TESTING_VERSION });

/** `error 409`, `delay 2s`, `endWatch 3`: what a Fault does, in a word or two. */
export function faultActionText(obj: KubeObject): string {
  const spec = faultSpec(obj);
  const a = actionOf(spec.action);
  const parts: string[] = [];
  if (spec.delay !== undefined) parts.push(`delay ${spec.delay}`);
  if (a === 'error' || a === 'errorAfterCommit') parts.push(`${a} ${spec.action![a]!.code}`);
  else if (a === 'endWatch') parts.push(`endWatch ${spec.action!.endWatch!.afterEvents}`);
  else if (a) parts.push(a);
  return parts.join(', ');
}

const snapshotReady = (obj: KubeObject): string =>
  snapshotStatus(obj).conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';

const faultStrategy = testingStrategy(faultKind, faultSchema, (obj) => validateFaultSpec(faultSpec(obj)));
const snapshotStrategy = testingStrategy(snapshotKind, snapshotSchema, () => []);
const clockStrategy = testingStrategy(clockKind, clockSchema, validateClock);

export const FAULTS = testingKind(faultStrategy, 'fault', faultSchema, [
  { name: 'Action', type: 'string', jsonPath: '.spec.action', description: 'What it does.', value: faultActionText },
  { name: 'Hits', type: 'integer', jsonPath: '.status.hits', description: 'Requests it acted on.' },
  { name: 'Count', type: 'integer', jsonPath: '.spec.count', description: 'How many it acts on.' },
  PRINTER_AGE,
]);

export const SNAPSHOTS = testingKind(snapshotStrategy, 'snapshot', snapshotSchema, [
  { name: 'Ready', type: 'string', jsonPath: '.status.conditions', description: 'Saved.', value: snapshotReady },
  { name: 'Objects', type: 'integer', jsonPath: '.status.objects', description: 'Objects saved.' },
  {
    name: 'Resource Version',
    type: 'string',
    jsonPath: '.status.resourceVersion',
    description: 'The resourceVersion it is as of.',
  },
  PRINTER_AGE,
]);

export const CLOCKS = testingKind(clockStrategy, 'clock', clockSchema, [
  { name: 'Mode', type: 'string', jsonPath: '.spec.mode', description: 'Real, Frozen or Offset.' },
  { name: 'Time', type: 'string', jsonPath: '.spec.time', description: 'A Frozen clock shows it.' },
  { name: 'Offset', type: 'string', jsonPath: '.spec.offset', description: 'An Offset clock adds it.' },
  PRINTER_AGE,
]);

/** The testing API's kinds, installed as the built-in table is. */
export const TESTING_KINDS: readonly BuiltinKind[] = [FAULTS, SNAPSHOTS, CLOCKS];
