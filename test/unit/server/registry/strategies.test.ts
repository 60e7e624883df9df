// The strategy parts kinds are built from, and what each built-in kind says it does on create,
// update, a status or finalize write, and delete (kube's PrepareForCreate / PrepareForUpdate of the
// kind and its statusStrategy, and the REST Delete of namespaces and CRDs).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../apimachinery/object.js';
import {
  FINALIZING_DELETE,
  SPEC_GENERATION,
  keepStoredStatus,
  statusUpdate,
  withoutStatus,
} from '../../../../server/registry/base-strategy.js';
import { crdStrategy } from '../../../../server/registry/builtin/crds.js';
import { namespaceStrategy } from '../../../../server/registry/builtin/namespaces.js';
import { eventStrategy } from '../../../../server/registry/builtin/events.js';
import type { UpdateStrategy } from '../../../../server/registry/strategy.js';
import { CRD_CLEANUP_FINALIZER } from '../../../../apimachinery/apis/apiextensions.js';

const obj = (fields: Record<string, unknown>, metadata: KubeObject['metadata'] = { name: 'x' }): KubeObject =>
  ({ metadata, ...fields }) as KubeObject;
const ctx = { dryRun: false };

describe('status subresource parts', () => {
  it('a create starts without status', () => {
    const o = obj({ spec: { a: 1 }, status: { ready: true } });
    withoutStatus(o);
    expect(o).toEqual({ metadata: { name: 'x' }, spec: { a: 1 } });
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    [
      'the stored status replaces the client one',
      { status: { ready: true } },
      { status: { ready: false } },
      { status: { ready: false } },
    ],
    ['no stored status: the client one goes', { status: { ready: true } }, {}, {}],
    ['a status the client left out comes back', {}, { status: { ready: false } }, { status: { ready: false } }],
  ])('main update: %s', (_name, client, stored, want) => {
    const o = obj({ spec: { a: 2 }, ...client });
    keepStoredStatus(o, obj({ spec: { a: 1 }, ...stored }));
    expect(o).toEqual(obj({ spec: { a: 2 }, ...want }));
  });

  const main: UpdateStrategy = {
    allowUnconditional: false,
    prepare: () => {},
    validate: () => [{ type: 'FieldValueRequired', field: 'main', detail: '' }],
    resetFields: ['status'],
  };
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'takes only the client status',
      { spec: { a: 9 }, status: { ready: true } },
      { spec: { a: 1 }, status: { ready: true } },
    ],
    ['a write without status removes it', { spec: { a: 9 } }, { spec: { a: 1 } }],
  ])('status update: %s', (_name, client, want) => {
    const o = obj(client, { name: 'x', labels: { client: 'y' } });
    statusUpdate(main).prepare(o, obj({ spec: { a: 1 }, status: { ready: false } }, { name: 'x', uid: 'u' }), ctx);
    expect(o).toEqual(obj(want, { name: 'x', uid: 'u' }));
  });

  it('a status update keeps the main strategy rules unless given its own', () => {
    expect(statusUpdate(main).allowUnconditional).toBe(false);
    expect(statusUpdate(main).validate(obj({}), obj({}), ctx)).toHaveLength(1);
    expect(statusUpdate(main, () => []).validate(obj({}), obj({}), ctx)).toEqual([]);
  });
});

describe('spec generation', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, boolean]>([
    ['a spec change', { spec: { a: 1 } }, { spec: { a: 2 } }, true],
    ['a metadata change only', { spec: { a: 1 } }, { spec: { a: 1 } }, false],
    ['a new top-level field', { spec: { a: 1 } }, { spec: { a: 1 }, data: 'x' }, true],
  ])('%s', (_name, before, after, bumps) => {
    expect(SPEC_GENERATION.specChanged(obj(before), obj(after, { name: 'x', labels: { l: 'v' } }))).toBe(bumps);
  });
});

describe('delete strategies', () => {
  const now = '2030-01-02T03:04:05Z';
  const marked = (strategy: { mark(o: KubeObject, now: string): void }, o: KubeObject): KubeObject => {
    strategy.mark(o, now);
    return o;
  };

  it.each<[string, KubeObject, boolean]>([
    ['no finalizers: deleted at once', obj({}), false],
    ['finalizers: marked first', obj({}, { name: 'x', finalizers: ['f'] }), true],
  ])('generic: %s', (_name, o, first) => {
    expect(FINALIZING_DELETE.marksFirst(o)).toBe(first);
    expect(FINALIZING_DELETE.waits(o)).toBe(first);
  });

  it('generic: marks with a grace period of 0 and bumps a generation it has', () => {
    const m = marked(FINALIZING_DELETE, obj({}, { name: 'x', generation: 3, finalizers: ['f'] })).metadata;
    expect(m.deletionTimestamp).toBe(now);
    expect(m.deletionGracePeriodSeconds).toBe(0);
    expect(m.generation).toBe(4);
    expect(marked(FINALIZING_DELETE, obj({})).metadata.generation).toBeUndefined();
  });

  it('events use the generic delete', () => {
    expect(eventStrategy.delete).toEqual(FINALIZING_DELETE);
  });

  it('a CRD is always marked first; its mark adds the cleanup finalizer and the Terminating condition, nothing else', () => {
    const crd = obj(
      { spec: {}, status: { acceptedNames: { plural: '', kind: '' }, storedVersions: [] } },
      { name: 'a.b.c', generation: 2 },
    );
    expect(crdStrategy.delete.marksFirst(crd)).toBe(true);
    const m = marked(crdStrategy.delete, crd);
    expect(m.metadata.finalizers).toEqual([CRD_CLEANUP_FINALIZER]);
    expect(m.metadata.deletionTimestamp).toBe(now);
    expect(m.metadata.generation).toBe(2);
    expect(m.metadata.deletionGracePeriodSeconds).toBeUndefined();
    expect((m['status'] as { conditions: unknown[] }).conditions).toEqual([
      expect.objectContaining({
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionPending',
        lastTransitionTime: now,
      }),
    ]);
    expect(crdStrategy.delete.waits(m)).toBe(true);
    expect(crdStrategy.delete.waits(obj({}, { name: 'a.b.c', deletionTimestamp: m.metadata.deletionTimestamp! }))).toBe(
      false,
    );
  });

  it.each<[string, KubeObject, boolean]>([
    ['the kubernetes finalizer in spec', obj({ spec: { finalizers: ['kubernetes'] } }), true],
    ['a metadata finalizer', obj({ spec: { finalizers: [] } }, { name: 'x', finalizers: ['f'] }), true],
    ['none left', obj({ spec: { finalizers: [] } }), false],
  ])('a namespace waits for %s', (_name, ns, waits) => {
    expect(namespaceStrategy.delete.marksFirst(ns)).toBe(waits);
    expect(namespaceStrategy.delete.waits(ns)).toBe(waits);
  });

  it('a namespace mark turns it Terminating, without a grace period', () => {
    const m = marked(
      namespaceStrategy.delete,
      obj({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }, { name: 'team' }),
    );
    expect(m['status']).toEqual({ phase: 'Terminating' });
    expect(m.metadata.deletionTimestamp).toBe(now);
    expect(m.metadata.deletionGracePeriodSeconds).toBeUndefined();
  });

  it.each(['default', 'kube-system', 'kube-public'])('namespace %s may not be deleted', (name) => {
    expect(() => namespaceStrategy.delete.mark(obj({}, { name }), now)).toThrow(
      `namespaces "${name}" is forbidden: this namespace may not be deleted`,
    );
  });
});

describe('namespace updates', () => {
  const stored = (): KubeObject =>
    obj(
      { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
      { name: 'team', uid: 'u', labels: { 'kubernetes.io/metadata.name': 'team' } },
    );

  it('the main resource keeps the stored finalizers and status', () => {
    const o = obj({ spec: { finalizers: [] }, status: { phase: 'Terminating' } }, { name: 'team', labels: { a: 'b' } });
    namespaceStrategy.update.prepare(o, stored(), ctx);
    expect(o).toEqual(
      obj({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }, { name: 'team', labels: { a: 'b' } }),
    );
  });

  it('the name label is a default (SetDefaults_Namespace), so whoever writes owns it', () => {
    const o = obj({}, { name: 'team', labels: { a: 'b', 'kubernetes.io/metadata.name': 'other' } });
    namespaceStrategy.canonicalize(o, ctx);
    expect(o.metadata.labels).toEqual({ a: 'b', 'kubernetes.io/metadata.name': 'team' });
  });

  it('finalize changes spec.finalizers and nothing else', () => {
    const o = obj(
      { spec: { finalizers: [] }, status: { phase: 'Terminating' } },
      { name: 'team', labels: { a: 'b' }, resourceVersion: '7' },
    );
    namespaceStrategy.subresources['finalize']!.prepare(o, stored(), ctx);
    expect(o).toEqual(
      obj(
        { spec: { finalizers: [] }, status: { phase: 'Active' } },
        { name: 'team', uid: 'u', labels: { 'kubernetes.io/metadata.name': 'team' }, resourceVersion: '7' },
      ),
    );
  });

  it('status changes status and nothing else', () => {
    const o = obj({ spec: { finalizers: [] }, status: { phase: 'Terminating' } }, { name: 'team' });
    namespaceStrategy.subresources['status']!.prepare(o, stored(), ctx);
    expect(o).toEqual({ ...stored(), status: { phase: 'Terminating' } });
  });

  it('namespaces and events keep no generation; CRDs count spec changes', () => {
    expect(namespaceStrategy.generation).toBeUndefined();
    expect(eventStrategy.generation).toBeUndefined();
    expect(crdStrategy.generation).toBe(SPEC_GENERATION);
  });
});
