import { describe, expect, it } from 'vitest';
import {
  GENERATED_NAME_ALPHABET,
  fillObjectMetaSystemFields,
  generateNameFrom,
  specChanged,
  wipeObjectMetaSystemFields,
} from '../../../../server/registry/object-meta-ops.js';
import type { KubeObject, ObjectMeta } from '../../../../apimachinery/object.js';

describe('specChanged (what bumps metadata.generation)', () => {
  const base: KubeObject = {
    apiVersion: 'cache.example.com/v1',
    kind: 'Cache',
    metadata: { name: 'web', generation: 1, resourceVersion: '5' },
    spec: { size: 1, tags: ['a'] },
    status: { ready: true },
  };
  it.each<{ name: string; next: KubeObject; want: boolean }>([
    { name: 'nothing', next: structuredClone(base), want: false },
    { name: 'spec keys reordered', next: { ...base, spec: { tags: ['a'], size: 1 } }, want: false },
    {
      name: 'metadata only',
      next: { ...base, metadata: { name: 'web', labels: { a: 'b' }, annotations: { x: 'y' }, finalizers: ['f'] } },
      want: false,
    },
    { name: 'a spec value', next: { ...base, spec: { size: 2, tags: ['a'] } }, want: true },
    { name: 'a list order', next: { ...base, spec: { size: 1, tags: ['a', 'b'] } }, want: true },
    // kube's CR strategy compares everything but metadata; with a status subresource the store has
    // already restored the old status, so this only happens to kinds without one.
    { name: 'status', next: { ...base, status: { ready: false } }, want: true },
    { name: 'a new top-level field', next: { ...base, data: { a: 1 } }, want: true },
    {
      name: 'a removed spec',
      next: { apiVersion: base.apiVersion, kind: base.kind, metadata: base.metadata, status: base.status },
      want: true,
    },
    { name: 'an undefined field', next: { ...base, data: undefined }, want: false },
  ])('$name → $want', ({ next, want }) => {
    expect(specChanged(base, next)).toBe(want);
  });
});

describe('generateNameFrom', () => {
  /** A deterministic pick: the index sequence given. */
  const picks = (...indices: number[]): ((n: number) => number) => {
    let i = 0;
    return () => indices[i++ % indices.length]!;
  };

  it.each([
    { base: 'web-', pick: picks(0, 1, 2, 3, 4), want: 'web-bcdfg' },
    { base: '', pick: picks(26), want: '99999' },
    { base: 'x'.repeat(58), pick: picks(0), want: `${'x'.repeat(58)}bbbbb` },
    { base: 'y'.repeat(70), pick: picks(25), want: `${'y'.repeat(58)}88888` },
  ])('$base', ({ base, pick, want }) => {
    expect(generateNameFrom(base, pick)).toBe(want);
  });

  it("draws 5 characters from kube's alphabet by default", () => {
    expect(GENERATED_NAME_ALPHABET).toBe('bcdfghjklmnpqrstvwxz2456789');
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const name = generateNameFrom('gen-');
      expect(name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      seen.add(name);
    }
    expect(seen.size).toBeGreaterThan(190);
  });
});

describe('create: wipe then fill system fields', () => {
  it('replaces what the client sent', () => {
    const meta: ObjectMeta = {
      name: 'web',
      uid: 'client-uid',
      creationTimestamp: '2000-01-01T00:00:00Z',
      deletionTimestamp: '2000-01-02T00:00:00Z',
      deletionGracePeriodSeconds: 30,
      selfLink: '/x',
      labels: { a: 'b' },
      finalizers: ['f'],
    };
    wipeObjectMetaSystemFields(meta);
    expect(meta).toEqual({ name: 'web', labels: { a: 'b' }, finalizers: ['f'] });
    fillObjectMetaSystemFields(meta, '2024-05-01T10:00:00Z', 'new-uid');
    expect(meta).toEqual({
      name: 'web',
      labels: { a: 'b' },
      finalizers: ['f'],
      creationTimestamp: '2024-05-01T10:00:00Z',
      uid: 'new-uid',
    });
  });
});
