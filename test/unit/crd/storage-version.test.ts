import { describe, expect, it } from 'vitest';
import { crdStorageVersionHash, storageVersionOf } from '../../../crd/storage-version.js';
import { compareKubeAwareVersions, sortVersions, storageVersionHash } from '../../../apimachinery/versions.js';
import type { CRDVersion, CustomResourceDefinition } from '../../../apimachinery/apis/apiextensions.js';

const crd = (versions: CRDVersion[]): CustomResourceDefinition => ({
  metadata: { name: 'caches.example.com' },
  spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'caches', kind: 'Cache' }, versions },
});

describe('storageVersionHash', () => {
  // Values kube-apiserver publishes in its discovery documents.
  it.each([
    ['', 'v1', 'Namespace', 'Q3oi5N2YM8M='],
    ['', 'v1', 'Pod', 'xPOwRZ+Yhw8='],
  ])('%s/%s/%s is %s', (group, version, kind, want) => {
    expect(storageVersionHash(group, version, kind)).toBe(want);
  });

  it('hashes "group/version/kind": the first 8 bytes of sha256, base64', () => {
    // sha256("example.com/v1/Cache"), computed independently.
    expect(storageVersionHash('example.com', 'v1', 'Cache')).toBe('DIlehu0ozK4=');
  });
});

describe('crdStorageVersionHash', () => {
  it('uses the storage version and spec.names.kind', () => {
    const c = crd([
      { name: 'v1', served: true, storage: false },
      { name: 'v2', served: true, storage: true },
    ]);
    expect(crdStorageVersionHash(c)).toBe(storageVersionHash('example.com', 'v2', 'Cache'));
  });
  it('is empty when the storage version is not served', () => {
    expect(
      crdStorageVersionHash(
        crd([
          { name: 'v1', served: true, storage: false },
          { name: 'v2', served: false, storage: true },
        ]),
      ),
    ).toBe('');
  });
});

describe('storageVersionOf', () => {
  it.each([
    {
      versions: [
        { name: 'v1', served: true, storage: false },
        { name: 'v2', served: false, storage: true },
      ],
      want: 'v2',
    },
    {
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v2', served: true, storage: true },
      ],
      want: 'v1',
    },
    { versions: [{ name: 'v1', served: true, storage: false }], want: undefined },
  ])('$want', ({ versions, want }) => {
    expect(storageVersionOf(crd(versions))).toBe(want);
  });
});

describe('kube-aware version order', () => {
  it('sorts as the CRD API documentation lists it', () => {
    const kubeOrder = ['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'foo1', 'foo10'];
    const shuffled = ['foo10', 'v3beta1', 'v1', 'v11alpha2', 'v10', 'foo1', 'v12alpha1', 'v2', 'v10beta3', 'v11beta2'];
    expect(sortVersions(shuffled)).toEqual(kubeOrder);
  });

  it.each([
    { a: 'v1', b: 'v1', want: 0 },
    { a: 'v2', b: 'v1', want: 1 },
    { a: 'v1', b: 'v2beta1', want: 1 },
    { a: 'v1beta1', b: 'v1alpha2', want: 1 },
    { a: 'v1beta2', b: 'v1beta10', want: -1 },
    { a: 'v2alpha1', b: 'v1alpha9', want: 1 },
    { a: 'v1', b: 'foo', want: 1 },
    { a: 'abc', b: 'abd', want: 1 },
    { a: 'v1.0', b: 'v1', want: -1 },
    // Go's strconv.Atoi overflows, so this is not kube-like and sorts with the plain strings.
    { a: 'v99999999999999999999', b: 'v1alpha1', want: -1 },
    { a: 'v01', b: 'v1', want: 0 },
  ])('compare($a, $b) has the sign of $want', ({ a, b, want }) => {
    expect(Math.sign(compareKubeAwareVersions(a, b))).toBe(want);
  });

  it('does not reorder its input', () => {
    const input = ['v1alpha1', 'v1'];
    expect(sortVersions(input)).toEqual(['v1', 'v1alpha1']);
    expect(input).toEqual(['v1alpha1', 'v1']);
  });
});
