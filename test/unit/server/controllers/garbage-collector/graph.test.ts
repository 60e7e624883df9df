// The collector's pure parts: the owner graph's bookkeeping and the work each change asks for, and
// the decision on a dependent given how its references stand, table-first.
import { describe, expect, it } from 'vitest';
import type { KubeObject, OwnerReference } from '../../../../../apimachinery/object.js';
import {
  type DecisionInput,
  Graph,
  coordinatesMatch,
  decide,
  nodeOf,
} from '../../../../../server/controllers/garbage-collector/graph.js';

const API = 'gc.example.com/v1';
const obj = (
  uid: string,
  meta: Partial<KubeObject['metadata']> = {},
  kind = 'Kid',
  namespace = 'default',
): KubeObject => ({
  apiVersion: API,
  kind,
  metadata: { uid, name: uid, ...(namespace ? { namespace } : {}), ...meta },
});
const ref = (uid: string, extra: Partial<OwnerReference> = {}, kind = 'Kid'): OwnerReference => ({
  apiVersion: API,
  kind,
  name: uid,
  uid,
  ...extra,
});
const sorted = (w: { attemptToDelete: string[]; attemptToOrphan: string[] }) => ({
  del: [...new Set(w.attemptToDelete)].sort(),
  orphan: [...w.attemptToOrphan].sort(),
});

describe('Graph', () => {
  type Step = { upsert?: KubeObject; remove?: string; want: { del: string[]; orphan: string[] } };
  const cases: { name: string; steps: Step[]; dependentsOf?: [string, string[]][] }[] = [
    {
      name: 'an owner observed first: its dependent asks nothing',
      steps: [
        { upsert: obj('o'), want: { del: [], orphan: [] } },
        { upsert: obj('d', { ownerReferences: [ref('o')] }), want: { del: [], orphan: [] } },
      ],
      dependentsOf: [['o', ['d']]],
    },
    {
      name: 'a dependent of an owner not observed is verified',
      steps: [{ upsert: obj('d', { ownerReferences: [ref('ghost')] }), want: { del: ['d'], orphan: [] } }],
      dependentsOf: [['ghost', ['d']]],
    },
    {
      name: 'a removed owner queues its dependents',
      steps: [
        { upsert: obj('o'), want: { del: [], orphan: [] } },
        { upsert: obj('d1', { ownerReferences: [ref('o')] }), want: { del: [], orphan: [] } },
        { upsert: obj('d2', { ownerReferences: [ref('o')] }), want: { del: [], orphan: [] } },
        { remove: 'o', want: { del: ['d1', 'd2'], orphan: [] } },
      ],
      dependentsOf: [['o', ['d1', 'd2']]],
    },
    {
      name: 'an owner starting foreground deletion queues its dependents and itself, once',
      steps: [
        { upsert: obj('o'), want: { del: [], orphan: [] } },
        {
          upsert: obj('d', { ownerReferences: [ref('o', { blockOwnerDeletion: true })] }),
          want: { del: [], orphan: [] },
        },
        {
          upsert: obj('o', { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }),
          want: { del: ['d', 'o'], orphan: [] },
        },
        {
          upsert: obj('o', { deletionTimestamp: 't', finalizers: ['foregroundDeletion'], labels: { a: 'b' } }),
          want: { del: [], orphan: [] },
        },
      ],
    },
    {
      name: 'a dependent removed, or unblocking its reference, frees an owner waiting in the foreground',
      steps: [
        {
          upsert: obj('o', { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] }),
          want: { del: ['o'], orphan: [] },
        },
        {
          upsert: obj('d1', { ownerReferences: [ref('o', { blockOwnerDeletion: true })] }),
          want: { del: ['d1'], orphan: [] },
        },
        {
          upsert: obj('d2', { ownerReferences: [ref('o', { blockOwnerDeletion: true })] }),
          want: { del: ['d2'], orphan: [] },
        },
        {
          upsert: obj('d1', { ownerReferences: [ref('o', { blockOwnerDeletion: false })] }),
          want: { del: ['o'], orphan: [] },
        },
        { remove: 'd2', want: { del: ['o'], orphan: [] } },
      ],
      dependentsOf: [['o', ['d1']]],
    },
    {
      name: 'an owner starting to orphan is queued for orphaning',
      steps: [
        { upsert: obj('o'), want: { del: [], orphan: [] } },
        { upsert: obj('o', { deletionTimestamp: 't', finalizers: ['orphan'] }), want: { del: [], orphan: ['o'] } },
      ],
    },
    {
      name: 'a reference dropped by an update unlinks the dependent',
      steps: [
        { upsert: obj('o'), want: { del: [], orphan: [] } },
        { upsert: obj('d', { ownerReferences: [ref('o')] }), want: { del: [], orphan: [] } },
        { upsert: obj('d'), want: { del: [], orphan: [] } },
      ],
      dependentsOf: [['o', []]],
    },
    {
      name: 'a namespaced owner named from another namespace: the dependent is verified',
      steps: [
        { upsert: obj('o', {}, 'Kid', 'a'), want: { del: [], orphan: [] } },
        { upsert: obj('d', { ownerReferences: [ref('o')] }, 'Kid', 'b'), want: { del: ['d'], orphan: [] } },
      ],
    },
    {
      name: 'an owner observed after its dependent at other coordinates re-verifies it',
      steps: [
        {
          upsert: obj('d', { ownerReferences: [{ apiVersion: API, kind: 'Kid', name: 'other-name', uid: 'o' }] }),
          want: { del: ['d'], orphan: [] },
        },
        { upsert: obj('o'), want: { del: ['d'], orphan: [] } },
      ],
    },
    {
      name: 'a cycle is only edges: nothing loops',
      steps: [
        { upsert: obj('a', { ownerReferences: [ref('b')] }), want: { del: ['a'], orphan: [] } },
        { upsert: obj('b', { ownerReferences: [ref('a')] }), want: { del: [], orphan: [] } },
        { remove: 'a', want: { del: ['b'], orphan: [] } },
      ],
    },
  ];
  it.each(cases)('$name', ({ steps, dependentsOf }) => {
    const g = new Graph();
    steps.forEach((s, i) => {
      const work = s.upsert ? g.upsert(nodeOf(s.upsert)) : g.remove(s.remove!);
      expect(sorted(work), `step ${i}`).toEqual(s.want);
    });
    for (const [owner, deps] of dependentsOf ?? [])
      expect(
        g
          .dependents(owner)
          .map((d) => d.identity.uid)
          .sort(),
      ).toEqual(deps);
  });

  it('blockingDependents and waitsOn follow blocking references through owners deleting in the foreground', () => {
    const g = new Graph();
    const fg = { deletionTimestamp: 't', finalizers: ['foregroundDeletion'] };
    g.upsert(nodeOf(obj('a', { ...fg, ownerReferences: [ref('c', { blockOwnerDeletion: true })] })));
    g.upsert(nodeOf(obj('b', { ...fg, ownerReferences: [ref('a', { blockOwnerDeletion: true })] })));
    g.upsert(nodeOf(obj('c', { ...fg, ownerReferences: [ref('b', { blockOwnerDeletion: true })] })));
    g.upsert(nodeOf(obj('x', { ownerReferences: [ref('a')] })));
    expect(g.blockingDependents('a').map((n) => n.identity.uid)).toEqual(['b']);
    expect(g.waitsOn('b', 'a')).toBe(true);
    expect(g.waitsOn('a', 'x')).toBe(false);
    const self = new Graph();
    self.upsert(nodeOf(obj('s', { ...fg, ownerReferences: [ref('s', { blockOwnerDeletion: true })] })));
    expect(self.blockingDependents('s').map((n) => n.identity.uid)).toEqual(['s']);
    expect(self.waitsOn('s', 's')).toBe(true);
  });
});

describe('coordinatesMatch', () => {
  const owner = (namespace: string) => ({ uid: 'o', apiVersion: API, kind: 'Kid', namespace, name: 'o' });
  it.each([
    { name: 'same namespace', ref: ref('o'), owner: owner('default'), ns: 'default', want: true },
    { name: 'another namespace', ref: ref('o'), owner: owner('other'), ns: 'default', want: false },
    { name: 'cluster-scoped owner from any namespace', ref: ref('o'), owner: owner(''), ns: 'default', want: true },
    {
      name: 'another version of the same group',
      ref: { ...ref('o'), apiVersion: 'gc.example.com/v2' },
      owner: owner('default'),
      ns: 'default',
      want: true,
    },
    {
      name: 'another group',
      ref: { ...ref('o'), apiVersion: 'other.example.com/v1' },
      owner: owner('default'),
      ns: 'default',
      want: false,
    },
    { name: 'another name', ref: { ...ref('o'), name: 'p' }, owner: owner('default'), ns: 'default', want: false },
  ])('$name', ({ ref: r, owner: o, ns, want }) => {
    expect(coordinatesMatch(r, o, ns)).toBe(want);
  });
});

describe('decide', () => {
  const base: Omit<DecisionInput, 'refs'> = {
    hasDependents: false,
    dependentDeletingDependents: false,
    finalizers: [],
  };
  const r = (uid: string) => ref(uid);
  it.each<{ name: string; input: DecisionInput; want: ReturnType<typeof decide> }>([
    { name: 'no references: nothing', input: { ...base, refs: [] }, want: { action: 'none' } },
    {
      name: 'a solid owner: nothing',
      input: { ...base, refs: [{ ref: r('a'), state: 'solid' }] },
      want: { action: 'none' },
    },
    {
      name: 'all dangling: Background delete',
      input: {
        ...base,
        refs: [
          { ref: r('a'), state: 'dangling' },
          { ref: r('b'), state: 'dangling' },
        ],
      },
      want: { action: 'delete', policy: 'Background', unblockFirst: false },
    },
    {
      name: 'solid and dangling: drop the dangling one',
      input: {
        ...base,
        refs: [
          { ref: r('a'), state: 'solid' },
          { ref: r('b'), state: 'dangling' },
        ],
      },
      want: { action: 'patch', remove: ['b'], unblock: [] },
    },
    {
      name: 'solid and waiting: unblock the waiting owner',
      input: {
        ...base,
        refs: [
          { ref: r('a'), state: 'solid' },
          { ref: r('b'), state: 'waiting' },
        ],
      },
      want: { action: 'patch', remove: [], unblock: ['b'] },
    },
    {
      name: 'waiting, no dependents: Background',
      input: { ...base, refs: [{ ref: r('a'), state: 'waiting' }] },
      want: { action: 'delete', policy: 'Background', unblockFirst: false },
    },
    {
      name: 'waiting, with dependents: Foreground',
      input: { ...base, hasDependents: true, refs: [{ ref: r('a'), state: 'waiting' }] },
      want: { action: 'delete', policy: 'Foreground', unblockFirst: false },
    },
    {
      name: 'waiting, a dependent waiting too: unblock, then Foreground',
      input: {
        ...base,
        hasDependents: true,
        dependentDeletingDependents: true,
        refs: [{ ref: r('a'), state: 'waiting' }],
      },
      want: { action: 'delete', policy: 'Foreground', unblockFirst: true },
    },
    {
      name: 'dangling, its own orphan finalizer: Orphan',
      input: { ...base, finalizers: ['orphan'], refs: [{ ref: r('a'), state: 'dangling' }] },
      want: { action: 'delete', policy: 'Orphan', unblockFirst: false },
    },
    {
      name: 'dangling, its own foregroundDeletion finalizer: Foreground',
      input: { ...base, finalizers: ['foregroundDeletion'], refs: [{ ref: r('a'), state: 'dangling' }] },
      want: { action: 'delete', policy: 'Foreground', unblockFirst: false },
    },
    {
      name: 'an owner kind not served: retry, never delete',
      input: {
        ...base,
        refs: [
          { ref: r('a'), state: 'dangling' },
          { ref: r('b'), state: 'unresolved' },
        ],
      },
      want: { action: 'retry' },
    },
    {
      name: 'a namespaced owner of a cluster-scoped object: nothing, no retry',
      input: { ...base, refs: [{ ref: r('a'), state: 'invalid' }] },
      want: { action: 'none' },
    },
    {
      name: 'solid with an unresolved one: nothing',
      input: {
        ...base,
        refs: [
          { ref: r('a'), state: 'solid' },
          { ref: r('b'), state: 'unresolved' },
        ],
      },
      want: { action: 'none' },
    },
  ])('$name', ({ input, want }) => {
    expect(decide(input)).toEqual(want);
  });
});

describe('Graph: references to a namespaced owner from outside its namespace (OwnerRefInvalidNamespace)', () => {
  const pairs = (w: { invalidNamespace: { dependent: { uid: string }; ref: { uid: string } }[] }) =>
    w.invalidNamespace.map((r) => [r.dependent.uid, r.ref.uid]);
  type Step = { upsert: KubeObject; want: string[][] };
  it.each<{ name: string; steps: Step[]; scan: string[][] }>([
    {
      name: 'owner observed first, then a dependent in another namespace (kube: good parent, bad child)',
      steps: [
        { upsert: obj('o', {}, 'Kid', 'a'), want: [] },
        { upsert: obj('d', { ownerReferences: [ref('o')] }, 'Kid', 'b'), want: [['d', 'o']] },
        // The same references again (an update, a relist): nothing new to report.
        { upsert: obj('d', { ownerReferences: [ref('o')], labels: { x: 'y' } }, 'Kid', 'b'), want: [] },
      ],
      scan: [['d', 'o']],
    },
    {
      name: 'dependent first, its owner then observed in another namespace (kube: bad child, good parent)',
      steps: [
        { upsert: obj('d', { ownerReferences: [ref('o')] }, 'Kid', 'b'), want: [] },
        { upsert: obj('o', {}, 'Kid', 'a'), want: [['d', 'o']] },
      ],
      scan: [['d', 'o']],
    },
    {
      name: 'a cluster-scoped dependent of a namespaced owner',
      steps: [
        { upsert: obj('o', {}, 'Kid', 'a'), want: [] },
        { upsert: obj('d', { ownerReferences: [ref('o')] }, 'Kid', ''), want: [['d', 'o']] },
      ],
      scan: [['d', 'o']],
    },
    {
      name: 'a cluster-scoped owner, named from a namespace: valid',
      steps: [
        { upsert: obj('o', {}, 'Kid', ''), want: [] },
        { upsert: obj('d', { ownerReferences: [ref('o')] }, 'Kid', 'b'), want: [] },
      ],
      scan: [],
    },
    {
      name: 'same namespace, even at other coordinates (a wrong name): not a namespace problem',
      steps: [
        { upsert: obj('o', {}, 'Kid', 'a'), want: [] },
        { upsert: obj('d', { ownerReferences: [{ ...ref('o'), name: 'other' }] }, 'Kid', 'a'), want: [] },
      ],
      scan: [],
    },
    {
      name: 'an owner never observed: nothing to report, only a live check',
      steps: [{ upsert: obj('d', { ownerReferences: [ref('ghost')] }, 'Kid', 'b'), want: [] }],
      scan: [],
    },
    {
      name: 'each invalid reference of a dependent is reported',
      steps: [
        { upsert: obj('o1', {}, 'Kid', 'a'), want: [] },
        { upsert: obj('o2', {}, 'Kid', 'c'), want: [] },
        {
          upsert: obj('d', { ownerReferences: [ref('o1'), ref('o2')] }, 'Kid', 'b'),
          want: [
            ['d', 'o1'],
            ['d', 'o2'],
          ],
        },
      ],
      scan: [
        ['d', 'o1'],
        ['d', 'o2'],
      ],
    },
  ])('$name', ({ steps, scan }) => {
    const g = new Graph();
    steps.forEach((s, i) => expect(pairs(g.upsert(nodeOf(s.upsert))), `step ${i}`).toEqual(s.want));
    expect(g.invalidNamespaceReferences().map((r) => [r.dependent.uid, r.ref.uid])).toEqual(scan);
  });

  it('the reported reference carries the dependent as observed and the reference as written', () => {
    const g = new Graph();
    g.upsert(nodeOf(obj('o', {}, 'Kid', 'a')));
    const [r] = g.upsert(
      nodeOf(obj('d', { ownerReferences: [ref('o', { controller: true })] }, 'Kid', 'b')),
    ).invalidNamespace;
    expect(r).toEqual({
      dependent: { uid: 'd', apiVersion: API, kind: 'Kid', namespace: 'b', name: 'd' },
      ref: ref('o', { controller: true }),
    });
  });
});
