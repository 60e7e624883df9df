import { describe, expect, it } from 'vitest';
import type { CRDVersion, CustomResourceDefinition } from '../../../apimachinery/apis/apiextensions.js';
import { deprecationWarning } from '../../../crd/deprecation.js';

const crd = (versions: Partial<CRDVersion>[]): CustomResourceDefinition => ({
  metadata: { name: 'caches.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'caches', kind: 'Cache' },
    versions: versions.map((v) => ({ name: '', served: true, storage: false, ...v })),
  },
});

describe('deprecationWarning (kube defaultDeprecationWarning)', () => {
  it.each([
    ['not deprecated', [{ name: 'v1' }], 'v1', undefined],
    ['the version is not there', [{ name: 'v1' }], 'v2', undefined],
    ['no newer version', [{ name: 'v1', deprecated: true }], 'v1', 'example.com/v1 Cache is deprecated'],
    [
      'the highest-ranked newer served version',
      [{ name: 'v1beta1', deprecated: true }, { name: 'v1' }, { name: 'v2beta1' }, { name: 'v1alpha1' }],
      'v1beta1',
      'example.com/v1beta1 Cache is deprecated; use example.com/v1 Cache',
    ],
    [
      'newer versions that are deprecated or not served do not count',
      [
        { name: 'v1alpha1', deprecated: true },
        { name: 'v1', deprecated: true },
        { name: 'v2', served: false },
      ],
      'v1alpha1',
      'example.com/v1alpha1 Cache is deprecated',
    ],
    [
      'older versions do not count',
      [{ name: 'v1alpha1' }, { name: 'v1', deprecated: true }],
      'v1',
      'example.com/v1 Cache is deprecated',
    ],
    [
      'the CRD says its own',
      [{ name: 'v1', deprecated: true, deprecationWarning: 'use v2' }, { name: 'v2' }],
      'v1',
      'use v2',
    ],
    ['an empty one is kept (and sends nothing)', [{ name: 'v1', deprecated: true, deprecationWarning: '' }], 'v1', ''],
  ] as const)('%s', (_name, versions, version, want) => {
    expect(deprecationWarning(crd([...versions]), version)).toBe(want);
  });
});
