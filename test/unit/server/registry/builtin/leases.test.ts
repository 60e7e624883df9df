// coordination.k8s.io/v1 Lease's strategy against kube's ValidateLeaseSpec texts
// (pkg/apis/coordination/validation), its MicroTimes as kube's decoder reads and writes them, and
// the CoordinatedLeaderElection fields dropped while that gate is off (kube 1.33's default).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../../apimachinery/object.js';
import { formatFieldError } from '../../../../../apimachinery/field-errors.js';
import { parseMicroTime } from '../../../../../apimachinery/validation/micro-time.js';
import { LEASE_COLUMNS, leaseStrategy } from '../../../../../server/registry/builtin/leases.js';
import { runStep } from '../../../../../apimachinery/structured-merge/trampoline.js';

const lease = (spec: Record<string, unknown>): KubeObject =>
  ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'default' },
    spec,
  }) as KubeObject;
const ctx = { dryRun: false };

describe('Lease validation', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['a held lease', { holderIdentity: 'node-1', leaseDurationSeconds: 15, leaseTransitions: 0 }, []],
    ['an empty spec', {}, []],
    [
      'duration 0',
      { leaseDurationSeconds: 0 },
      ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0'],
    ],
    [
      'a negative duration',
      { leaseDurationSeconds: -5 },
      ['spec.leaseDurationSeconds: Invalid value: -5: must be greater than 0'],
    ],
    [
      'negative transitions',
      { leaseTransitions: -1 },
      ['spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0'],
    ],
    [
      "an unknown strategy (at kube's doubled path)",
      { strategy: 'Newest' },
      ['spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"'],
    ],
    ['a qualified strategy', { strategy: 'example.com/mine' }, []],
    [
      'a preferred holder without a strategy',
      { preferredHolder: 'node-2' },
      ['spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined'],
    ],
    [
      'both bad',
      { leaseDurationSeconds: -1, leaseTransitions: -1 },
      [
        'spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0',
        'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
      ],
    ],
  ])('%s', (_name, spec, want) => {
    expect(runStep(leaseStrategy.create.validate(lease(spec), ctx)).map(formatFieldError)).toEqual(want);
    expect(runStep(leaseStrategy.update.validate(lease(spec), lease({}), ctx)).map(formatFieldError)).toEqual(want);
  });
});

describe('Lease MicroTimes', () => {
  it.each<[string, string]>([
    ['2024-05-01T10:00:00.123456Z', '2024-05-01T10:00:00.123456Z'],
    ['2024-05-01T12:00:00.000001+02:00', '2024-05-01T10:00:00.000001Z'],
    ['2024-05-01T10:00:00,500000Z', '2024-05-01T10:00:00.500000Z'],
  ])('%s is kept to the microsecond, in UTC', (input, stored) => {
    const obj = lease({ acquireTime: input, renewTime: input });
    leaseStrategy.canonicalize(obj, ctx);
    expect(obj['spec']).toEqual({ acquireTime: stored, renewTime: stored });
  });

  const LAYOUT = '"2006-01-02T15:04:05.000000Z07:00"';
  it.each<[string, string]>([
    ['2024-05-01T10:00:00Z', `parsing time "2024-05-01T10:00:00Z" as ${LAYOUT}: cannot parse "Z" as ".000000"`],
    [
      '2024-05-01T10:00:00.123Z',
      `parsing time "2024-05-01T10:00:00.123Z" as ${LAYOUT}: cannot parse ".123Z" as ".000000"`,
    ],
    [
      '2024-05-01T10:00:00.123456789Z',
      `parsing time "2024-05-01T10:00:00.123456789Z" as ${LAYOUT}: cannot parse "789Z" as "Z07:00"`,
    ],
    ['yesterday', `parsing time "yesterday" as ${LAYOUT}: cannot parse "yesterday" as "2006"`],
  ])("%s does not decode: 400 with Go's parse error", (input, message) => {
    expect(parseMicroTime(input)).toEqual({ ok: false, error: message });
    expect(() => leaseStrategy.canonicalize(lease({ renewTime: input }), ctx)).toThrow(
      `Lease in version "v1" cannot be handled as a Lease: ${message}`,
    );
  });

  it('a null time is no time', () => {
    const obj = lease({ renewTime: null, holderIdentity: 'a' });
    leaseStrategy.canonicalize(obj, ctx);
    expect(obj['spec']).toEqual({ holderIdentity: 'a' });
  });
});

describe('Lease coordinated leader election fields', () => {
  it('are dropped on create, and on an update of a lease that does not use them', () => {
    const created = lease({ holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' });
    leaseStrategy.create.prepare(created);
    expect(created['spec']).toEqual({ holderIdentity: 'a' });
    const updated = lease({ strategy: 'OldestEmulationVersion' });
    leaseStrategy.update.prepare(updated, lease({}), ctx);
    expect(updated['spec']).toEqual({});
  });
  it('are kept on an update of a lease that already uses them', () => {
    const updated = lease({ strategy: 'OldestEmulationVersion', preferredHolder: 'c' });
    leaseStrategy.update.prepare(updated, lease({ strategy: 'OldestEmulationVersion' }), ctx);
    expect(updated['spec']).toEqual({ strategy: 'OldestEmulationVersion', preferredHolder: 'c' });
  });
});

describe('Lease printing and selectors', () => {
  it('prints HOLDER, empty when nobody holds it', () => {
    expect(LEASE_COLUMNS.map((c) => [c.name, c.type, c.value?.(lease({ holderIdentity: 'node-1' }))])).toEqual([
      ['Holder', 'string', 'node-1'],
      ['Age', 'string', undefined],
    ]);
    expect(LEASE_COLUMNS[0]!.value?.(lease({}))).toBe('');
  });
  it('answers other field labels with the metav1 default text', () => {
    expect(leaseStrategy.fieldLabels('spec.holderIdentity', 'x')).toEqual({
      error: '"spec.holderIdentity" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
  });
});
