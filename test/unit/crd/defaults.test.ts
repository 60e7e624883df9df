import { describe, expect, it } from 'vitest';
import { defaultCRD } from '../../../crd/defaults.js';
import type { CRDSpec, CustomResourceDefinition } from '../../../apimachinery/apis/apiextensions.js';

const base = (spec: Partial<CRDSpec> = {}, status?: CustomResourceDefinition['status']): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'caches.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'caches', kind: 'Cache' },
    versions: [{ name: 'v1', served: true, storage: true }],
    ...spec,
  },
  ...(status ? { status } : {}),
});

const defaulted = (crd: CustomResourceDefinition): CustomResourceDefinition => {
  defaultCRD(crd);
  return crd;
};

describe('defaultCRD', () => {
  const cases: { name: string; crd: CustomResourceDefinition; want: Partial<CustomResourceDefinition> }[] = [
    {
      name: 'singular, listKind, conversion and storedVersions',
      crd: base(),
      want: {
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'caches', kind: 'Cache', singular: 'cache', listKind: 'CacheList' },
          versions: [{ name: 'v1', served: true, storage: true }],
          conversion: { strategy: 'None' },
        },
        status: { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] },
      },
    },
    {
      name: 'given names are kept',
      crd: base({ names: { plural: 'caches', singular: 'cachy', kind: 'Cache', listKind: 'Caches' } }),
      want: {
        spec: expect.objectContaining({
          names: { plural: 'caches', singular: 'cachy', kind: 'Cache', listKind: 'Caches' },
        }) as CRDSpec,
      },
    },
    {
      name: 'without a kind: an empty singular and no listKind',
      crd: base({ names: { plural: 'caches', kind: '' } }),
      want: { spec: expect.objectContaining({ names: { plural: 'caches', kind: '', singular: '' } }) as CRDSpec },
    },
    {
      name: 'a webhook service gets port 443; conversionReviewVersions get no default in v1',
      crd: base({
        conversion: {
          strategy: 'Webhook',
          webhook: { clientConfig: { service: { namespace: 'ns', name: 'svc' } } } as never,
        },
      }),
      want: {
        spec: expect.objectContaining({
          conversion: {
            strategy: 'Webhook',
            webhook: { clientConfig: { service: { namespace: 'ns', name: 'svc', port: 443 } } },
          },
        }) as CRDSpec,
      },
    },
    {
      name: 'a given port is kept',
      crd: base({
        conversion: {
          strategy: 'Webhook',
          webhook: {
            clientConfig: { service: { namespace: 'ns', name: 'svc', port: 8443 } },
            conversionReviewVersions: ['v1'],
          },
        },
      }),
      want: {
        spec: expect.objectContaining({
          conversion: {
            strategy: 'Webhook',
            webhook: {
              clientConfig: { service: { namespace: 'ns', name: 'svc', port: 8443 } },
              conversionReviewVersions: ['v1'],
            },
          },
        }) as CRDSpec,
      },
    },
    {
      name: 'storedVersions already set are kept',
      crd: base({}, { acceptedNames: { plural: 'caches', kind: 'Cache' }, storedVersions: ['v1beta1'] }),
      want: { status: { acceptedNames: { plural: 'caches', kind: 'Cache' }, storedVersions: ['v1beta1'] } },
    },
    {
      name: 'empty storedVersions get the first storage version, other status kept',
      crd: base(
        {
          versions: [
            { name: 'v1', served: true, storage: false },
            { name: 'v2', served: true, storage: true },
            { name: 'v3', served: true, storage: true },
          ],
        },
        {
          acceptedNames: { plural: 'caches', kind: 'Cache' },
          storedVersions: [],
          conditions: [{ type: 'Established', status: 'True' }],
        },
      ),
      want: {
        status: {
          acceptedNames: { plural: 'caches', kind: 'Cache' },
          storedVersions: ['v2'],
          conditions: [{ type: 'Established', status: 'True' }],
        },
      },
    },
    {
      name: 'no storage version: no status is made up',
      crd: base({ versions: [{ name: 'v1', served: true, storage: false }] }),
      want: {},
    },
    {
      name: 'absent required fields become Go zero values',
      crd: {
        metadata: { name: 'x' },
        spec: { versions: [{ name: 'v1' }, null] },
      } as unknown as CustomResourceDefinition,
      want: {
        spec: {
          group: '',
          scope: '' as 'Namespaced',
          names: { plural: '', kind: '', singular: '' },
          versions: [
            { name: 'v1', served: false, storage: false },
            { name: '', served: false, storage: false },
          ],
          conversion: { strategy: 'None' },
        },
      },
    },
  ];

  it.each(cases)('$name', ({ crd, want }) => {
    expect(defaulted(crd)).toMatchObject(want);
    if (!crd.spec.versions.some((v) => v.storage)) expect(crd.status).toBeUndefined();
  });

  it('is idempotent', () => {
    const once = defaulted(base());
    expect(defaulted(structuredClone(once))).toEqual(once);
  });

  // The CRD controller's status write shares the stored CRD's spec, which defaulting runs over again.
  it.each(cases.filter((c) => c.crd.spec.names?.kind))('writes nothing to a CRD it defaulted: $name', ({ crd }) => {
    const once = defaulted(structuredClone(crd));
    const frozen = (v: unknown): void => {
      if (typeof v !== 'object' || v === null) return;
      Object.freeze(v);
      for (const x of Object.values(v)) frozen(x);
    };
    frozen(once.spec);
    expect(defaulted({ ...once, spec: once.spec })).toEqual(once);
  });

  it('does not default the schema', () => {
    const crd = base({
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'string', default: 'x' } } } },
        },
      ],
    });
    const before = structuredClone(crd.spec.versions[0]!.schema);
    expect(defaulted(crd).spec.versions[0]!.schema).toEqual(before);
  });

  it('builds a spec for a CRD sent without one', () => {
    const crd = defaulted({ metadata: { name: 'x' } } as unknown as CustomResourceDefinition);
    expect(crd.spec).toEqual({
      group: '',
      scope: '',
      names: { plural: '', kind: '', singular: '' },
      versions: [],
      conversion: { strategy: 'None' },
    });
  });
});
