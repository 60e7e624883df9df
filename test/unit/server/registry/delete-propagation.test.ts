// What a DELETE does to the GC finalizers (kube's deletionFinalizersForGarbageCollection), table-first.
import { describe, expect, it } from 'vitest';
import {
  type GarbageCollectionPolicy,
  type Propagation,
  finalizersForDeletion,
  namespaceFinalizersForDeletion,
} from '../../../../server/registry/delete-propagation.js';

const cases: {
  name: string;
  finalizers: string[];
  p: Propagation;
  policy?: GarbageCollectionPolicy;
  want: string[] | undefined;
}[] = [
  { name: 'no policy, no finalizers: nothing (Background)', finalizers: [], p: {}, want: undefined },
  { name: 'Background: nothing', finalizers: [], p: { propagationPolicy: 'Background' }, want: undefined },
  {
    name: 'Foreground adds foregroundDeletion',
    finalizers: [],
    p: { propagationPolicy: 'Foreground' },
    want: ['foregroundDeletion'],
  },
  {
    name: 'Orphan adds orphan after other finalizers',
    finalizers: ['a/b'],
    p: { propagationPolicy: 'Orphan' },
    want: ['a/b', 'orphan'],
  },
  { name: 'orphanDependents true is Orphan', finalizers: [], p: { orphanDependents: true }, want: ['orphan'] },
  { name: 'orphanDependents false is not Foreground', finalizers: [], p: { orphanDependents: false }, want: undefined },
  {
    name: 'orphanDependents false drops a foreground finalizer',
    finalizers: ['foregroundDeletion'],
    p: { orphanDependents: false },
    want: [],
  },
  {
    name: 'Orphan replaces foregroundDeletion',
    finalizers: ['foregroundDeletion', 'x/y'],
    p: { propagationPolicy: 'Orphan' },
    want: ['x/y', 'orphan'],
  },
  {
    name: 'Background removes both',
    finalizers: ['orphan', 'x/y'],
    p: { propagationPolicy: 'Background' },
    want: ['x/y'],
  },
  { name: 'no policy keeps an orphan finalizer set by hand', finalizers: ['orphan'], p: {}, want: undefined },
  { name: 'no policy keeps foregroundDeletion', finalizers: ['foregroundDeletion'], p: {}, want: undefined },
  {
    name: 'the same set in another order is no change',
    finalizers: ['orphan', 'x/y'],
    p: { propagationPolicy: 'Orphan' },
    want: undefined,
  },
  {
    name: 'OrphanDependents kinds orphan by default',
    finalizers: [],
    p: {},
    policy: 'OrphanDependents',
    want: ['orphan'],
  },
  {
    name: 'Unsupported kinds never get one',
    finalizers: [],
    p: { propagationPolicy: 'Foreground' },
    policy: 'Unsupported',
    want: undefined,
  },
  {
    name: 'Unsupported kinds lose none either',
    finalizers: ['orphan'],
    p: { propagationPolicy: 'Foreground' },
    policy: 'Unsupported',
    want: [],
  },
];

describe('finalizersForDeletion', () => {
  it.each(cases)('$name', ({ finalizers, p, policy, want }) => {
    expect(finalizersForDeletion(finalizers, p, policy ?? 'DeleteDependents')).toEqual(want);
  });
});

describe('namespaceFinalizersForDeletion (kube’s namespace REST)', () => {
  it.each<{ name: string; finalizers: string[]; p: Propagation; want: string[] | undefined }>([
    { name: 'no options: nothing', finalizers: [], p: {}, want: undefined },
    { name: 'Foreground', finalizers: [], p: { propagationPolicy: 'Foreground' }, want: ['foregroundDeletion'] },
    { name: 'Orphan', finalizers: ['x/y'], p: { propagationPolicy: 'Orphan' }, want: ['x/y', 'orphan'] },
    {
      name: 'orphanDependents false is Foreground here',
      finalizers: [],
      p: { orphanDependents: false },
      want: ['foregroundDeletion'],
    },
    {
      name: 'orphanDependents true',
      finalizers: ['foregroundDeletion'],
      p: { orphanDependents: true },
      want: ['orphan'],
    },
    { name: 'Background drops both', finalizers: ['orphan'], p: { propagationPolicy: 'Background' }, want: [] },
    { name: 'no options keep what is there', finalizers: ['orphan'], p: {}, want: undefined },
  ])('$name', ({ finalizers, p, want }) => {
    expect(namespaceFinalizersForDeletion(finalizers, p)).toEqual(want);
  });
});
