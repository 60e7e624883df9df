// The backends' shared snapshot logic: which keys a scope holds, the difference a restore writes,
// and how etcd's transactions cut it.
import { describe, expect, it } from 'vitest';
import {
  type SnapshotChange,
  inScope,
  restoreCounts,
  snapshotDiff,
  transactionBatches,
} from '../../../storage/snapshot.js';

const scope = { prefix: '/registry/', exclude: ['/registry/testing.mini-apiserver.io/', '/registry/leases/x/y'] };

describe('inScope', () => {
  it.each([
    ['/registry/configmaps/a/b', true],
    ['/registry/testing.mini-apiserver.io/faults/f', false],
    ['/registry/leases/x/y', false],
    ['/registry/leases/x/yz', false],
    ['/registry/leases/x/z', true],
    ['compact_rev_key', false],
    ['/registryx/a', false],
  ])('%s: %s', (key, want) => {
    expect(inScope(key, scope)).toBe(want);
  });
});

const kv = (key: string, value: string, modRevision: number) => ({ key, value, modRevision, createRevision: 1 });

describe('snapshotDiff', () => {
  it.each<[string, Record<string, string>, ReturnType<typeof kv>[], SnapshotChange[]]>([
    ['nothing differs', { '/a': '1', '/b': '2' }, [kv('/a', '1', 3), kv('/b', '2', 4)], []],
    [
      'a key only the snapshot has is created',
      { '/a': '1', '/b': '2' },
      [kv('/a', '1', 3)],
      [{ key: '/b', value: '2', current: undefined }],
    ],
    [
      'a key the snapshot lacks is deleted',
      { '/a': '1' },
      [kv('/a', '1', 3), kv('/c', '3', 5)],
      [{ key: '/c', value: undefined, current: { value: '3', modRevision: 5, createRevision: 1 } }],
    ],
    [
      'a changed value is put back',
      { '/a': '1' },
      [kv('/a', '9', 7)],
      [{ key: '/a', value: '1', current: { value: '9', modRevision: 7, createRevision: 1 } }],
    ],
    [
      'all three, in key order',
      { '/b': 'B', '/d': 'D' },
      [kv('/a', 'A', 2), kv('/b', 'x', 3), kv('/c', 'C', 4)],
      [
        { key: '/a', value: undefined, current: { value: 'A', modRevision: 2, createRevision: 1 } },
        { key: '/b', value: 'B', current: { value: 'x', modRevision: 3, createRevision: 1 } },
        { key: '/c', value: undefined, current: { value: 'C', modRevision: 4, createRevision: 1 } },
        { key: '/d', value: 'D', current: undefined },
      ],
    ],
    [
      'an empty snapshot empties the scope',
      {},
      [kv('/a', 'A', 2)],
      [{ key: '/a', value: undefined, current: { value: 'A', modRevision: 2, createRevision: 1 } }],
    ],
  ])('%s', (_name, saved, current, want) => {
    const changes = snapshotDiff(new Map(Object.entries(saved)), current);
    expect(changes).toEqual(want);
  });
});

describe('restoreCounts', () => {
  it('counts creates, updates and deletes', () => {
    const changes = snapshotDiff(
      new Map([
        ['/b', 'B'],
        ['/d', 'D'],
      ]),
      [kv('/a', 'A', 2), kv('/b', 'x', 3)],
    );
    expect(restoreCounts(changes)).toEqual({ created: 1, updated: 1, deleted: 1 });
  });
});

describe('transactionBatches', () => {
  const change = (key: string, bytes: number): SnapshotChange => ({
    key,
    value: 'v'.repeat(bytes),
    current: undefined,
  });

  it.each<[string, SnapshotChange[], number, number, string[][]]>([
    ['none', [], 2, 100, []],
    ['within both limits: one', [change('a', 1), change('b', 1)], 2, 100, [['a', 'b']]],
    ['by count', [change('a', 1), change('b', 1), change('c', 1)], 2, 100, [['a', 'b'], ['c']]],
    ['by size (key and value)', [change('a', 40), change('b', 40), change('c', 40)], 10, 100, [['a', 'b'], ['c']]],
    [
      'a change over the size goes alone',
      [change('a', 10), change('b', 500), change('c', 10)],
      10,
      100,
      [['a'], ['b'], ['c']],
    ],
    [
      'a delete weighs its key only',
      [
        change('a', 90),
        { key: 'b', value: undefined, current: { value: 'x'.repeat(500), modRevision: 1, createRevision: 1 } },
      ],
      10,
      100,
      [['a', 'b']],
    ],
  ])('%s', (_name, changes, maxOps, maxBytes, want) => {
    expect(transactionBatches(changes, maxOps, maxBytes).map((b) => b.map((c) => c.key))).toEqual(want);
  });
});
