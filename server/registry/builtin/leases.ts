// coordination.k8s.io/v1 Lease: what leader election and node heartbeats write. Validated as
// kube's ValidateLeaseSpec; its times are MicroTimes, kept to the microsecond.
import { defineStrategy } from '../base-strategy.js';
import { leaseSchema } from '../../../apimachinery/apis/builtin-schemas.js';
import { type BuiltinKind, storedKind } from './kind.js';
import type { ServedColumn } from '../catalog.js';
import { PRINTER_AGE } from './printer-columns.js';
import { type FieldError, child, forbidden, invalid, notSupported } from '../../../apimachinery/field-errors.js';
import { defaultMetaV1FieldLabels } from '../../../apimachinery/selectors/fields.js';
import { isQualifiedName } from '../../../apimachinery/validation/names.js';
import { parseMicroTime } from '../../../apimachinery/validation/micro-time.js';
import { type KubeObject, isJsonObject } from '../../../apimachinery/object.js';
import type { WriteContext } from '../strategy.js';
import { decodeFailure } from '../write-steps.js';

const COORDINATION_GROUP = 'coordination.k8s.io';

export const leaseKind = {
  group: COORDINATION_GROUP,
  resource: 'leases',
  kind: 'Lease',
  listKind: 'LeaseList',
  namespaced: true,
};

/** coordination/v1 LeaseSpec. */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  strategy?: string;
  preferredHolder?: string;
}

/** The object's LeaseSpec; {} when it has none. */
export const specOf = (obj: KubeObject): LeaseSpec => {
  const spec = obj['spec'];
  return isJsonObject(spec) ? (spec as LeaseSpec) : {};
};

/** coordination.OldestEmulationVersion, the one strategy kube defines. */
const VALID_STRATEGIES = ['OldestEmulationVersion'];

/** ValidateCoordinatedLeaseStrategy, at kube's path (it appends `strategy` to a path ending in it). */
function strategyErrors(strategy: string, path: string): FieldError[] {
  const at = child(path, 'strategy');
  if (!strategy.includes('/'))
    return VALID_STRATEGIES.includes(strategy) ? [] : [notSupported(at, strategy, VALID_STRATEGIES)];
  return isQualifiedName(strategy).map((msg) => invalid(at, strategy, msg));
}

/** ValidateLeaseSpec. */
function validateLeaseSpec(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  if (spec.leaseDurationSeconds != null && spec.leaseDurationSeconds <= 0) {
    errs.push(invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions != null && spec.leaseTransitions < 0) {
    errs.push(invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (spec.strategy != null) errs.push(...strategyErrors(spec.strategy, 'spec.strategy'));
  if (spec.preferredHolder && !spec.strategy)
    errs.push(forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  return errs;
}

const MICRO_TIME_FIELDS = ['acquireTime', 'renewTime'] as const;

/**
 * Decoding of the spec's MicroTimes: a malformed one fails as kube's decoder fails (400, or the
 * patch's 422); a good one is written as kube writes it, in UTC with its microseconds.
 */
function canonicalizeLease(obj: KubeObject, ctx: WriteContext): void {
  const spec = specOf(obj);
  for (const f of MICRO_TIME_FIELDS) {
    const value = spec[f];
    if (value === undefined) continue;
    if (value === null) {
      delete spec[f];
      continue;
    }
    const parsed = parseMicroTime(String(value));
    if (!parsed.ok) throw decodeFailure('Lease', obj, parsed.error, ctx);
    spec[f] = parsed.value;
  }
}

/**
 * CoordinatedLeaderElection is off by default (kube 1.33): its fields are dropped unless the
 * stored lease already uses them (the strategy's dropDisabledFields).
 */
function dropDisabledFields(obj: KubeObject, old?: KubeObject): void {
  const oldSpec = old ? specOf(old) : {};
  if (oldSpec.strategy || oldSpec.preferredHolder) return;
  const spec = specOf(obj);
  delete spec.strategy;
  delete spec.preferredHolder;
}

/** `kubectl get leases`' HOLDER column. */
const leaseHolder = (obj: KubeObject): string => specOf(obj).holderIdentity ?? '';

/** kube's leaseColumnDefinitions. */
export const LEASE_COLUMNS: ServedColumn[] = [
  {
    name: 'Holder',
    type: 'string',
    description:
      'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
    jsonPath: '.spec.holderIdentity',
    value: leaseHolder,
  },
  PRINTER_AGE,
];

export const leaseStrategy = defineStrategy(leaseKind, {
  schemas: { [`${COORDINATION_GROUP}/v1`]: leaseSchema },
  canonicalize: canonicalizeLease,
  // coordination registers no field label conversion: the metav1 default answers.
  fieldLabels: defaultMetaV1FieldLabels,
  create: { prepare: (obj) => dropDisabledFields(obj), validate: validateLeaseSpec },
  update: { prepare: dropDisabledFields, validate: validateLeaseSpec },
});

export const LEASES: BuiltinKind = storedKind(leaseStrategy, {
  singular: 'lease',
  goPackage: 'k8s.io/api/coordination/v1',
  schema: leaseSchema,
  printerColumns: LEASE_COLUMNS,
});
