import { describe, expect, it } from 'vitest';
import { decideNames, type NamesDecision } from '../../../crd/naming.js';
import type { CRDCondition, CRDNames, CustomResourceDefinition } from '../../../apimachinery/apis/apiextensions.js';
import { CA_PEM } from '../../helpers/test-ca.js';

interface Opts {
  group?: string;
  accepted?: CRDNames;
  conditions?: CRDCondition[];
  caBundle?: string;
}

function crd(names: CRDNames, opts: Opts = {}): CustomResourceDefinition {
  const group = opts.group ?? 'example.com';
  return {
    metadata: { name: `${names.plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names,
      versions: [{ name: 'v1', served: true, storage: true }],
      conversion: opts.caBundle
        ? {
            strategy: 'Webhook',
            webhook: {
              clientConfig: { url: 'https://h', caBundle: Buffer.from(opts.caBundle).toString('base64') },
              conversionReviewVersions: ['v1'],
            },
          }
        : { strategy: 'None' },
    },
    status: {
      acceptedNames: opts.accepted ?? { plural: '', kind: '' },
      storedVersions: ['v1'],
      ...(opts.conditions ? { conditions: opts.conditions } : {}),
    },
  };
}

const cacheNames: CRDNames = { plural: 'caches', singular: 'cache', kind: 'Cache', listKind: 'CacheList' };
/** A CRD whose names were accepted (and which is established), i.e. one that holds its names. */
const holder = (names: CRDNames, group?: string): CustomResourceDefinition =>
  crd(names, { accepted: names, conditions: [ESTABLISHED], ...(group ? { group } : {}) });

const NO_CONFLICTS: CRDCondition = {
  type: 'NamesAccepted',
  status: 'True',
  reason: 'NoConflicts',
  message: 'no conflicts found',
};
const ESTABLISHED: CRDCondition = {
  type: 'Established',
  status: 'True',
  reason: 'InitialNamesAccepted',
  message: 'the initial names have been accepted',
};
const NOT_ACCEPTED: CRDCondition = {
  type: 'Established',
  status: 'False',
  reason: 'NotAccepted',
  message: 'not all names are accepted',
};
const conflict = (reason: string, message: string): CRDCondition => ({
  type: 'NamesAccepted',
  status: 'False',
  reason,
  message,
});

describe('decideNames', () => {
  const cases: {
    name: string;
    crd: CustomResourceDefinition;
    others: CustomResourceDefinition[];
    want: NamesDecision;
  }[] = [
    {
      name: 'a new CRD alone in its group takes its names and is established',
      crd: crd(cacheNames),
      others: [],
      want: { acceptedNames: cacheNames, conditions: [NO_CONFLICTS, ESTABLISHED] },
    },
    {
      name: 'the same names in another group are no conflict',
      crd: crd(cacheNames),
      others: [holder(cacheNames, 'other.io')],
      want: { acceptedNames: cacheNames, conditions: [NO_CONFLICTS, ESTABLISHED] },
    },
    {
      name: 'names another CRD only requested are not taken',
      crd: crd(cacheNames),
      others: [
        crd({ plural: 'caches', singular: 'cache', kind: 'Cache', listKind: 'CacheList' }, { group: 'example.com' }),
      ],
      want: { acceptedNames: cacheNames, conditions: [NO_CONFLICTS, ESTABLISHED] },
    },
    {
      name: 'a plural accepted by another CRD',
      crd: crd(cacheNames),
      others: [holder({ plural: 'stores', singular: 'caches', kind: 'Store', listKind: 'StoreList' })],
      want: {
        acceptedNames: { plural: '', singular: 'cache', kind: 'Cache', listKind: 'CacheList' },
        conditions: [conflict('PluralConflict', '"caches" is already in use'), NOT_ACCEPTED],
      },
    },
    {
      name: "a singular that is another CRD's short name",
      crd: crd(cacheNames),
      others: [
        holder({ plural: 'stores', singular: 'store', shortNames: ['cache'], kind: 'Store', listKind: 'StoreList' }),
      ],
      want: {
        acceptedNames: { plural: 'caches', kind: 'Cache', listKind: 'CacheList' },
        conditions: [conflict('SingularConflict', '"cache" is already in use'), NOT_ACCEPTED],
      },
    },
    {
      name: 'short names in use are aggregated as kube does',
      crd: crd({ ...cacheNames, shortNames: ['ca', 'st', 'sto'] }),
      others: [
        holder({
          plural: 'stores',
          singular: 'store',
          shortNames: ['st', 'sto'],
          kind: 'Store',
          listKind: 'StoreList',
        }),
      ],
      want: {
        acceptedNames: cacheNames,
        conditions: [conflict('ShortNamesConflict', '["st" is already in use, "sto" is already in use]'), NOT_ACCEPTED],
      },
    },
    {
      name: 'one short name in use is reported bare',
      crd: crd({ ...cacheNames, shortNames: ['st'] }),
      others: [
        holder({ plural: 'stores', singular: 'store', shortNames: ['st'], kind: 'Store', listKind: 'StoreList' }),
      ],
      want: {
        acceptedNames: cacheNames,
        conditions: [conflict('ShortNamesConflict', '"st" is already in use'), NOT_ACCEPTED],
      },
    },
    {
      name: 'kinds and list kinds share one namespace',
      crd: crd(cacheNames),
      others: [holder({ plural: 'stores', singular: 'store', kind: 'CacheList', listKind: 'Cache' })],
      want: {
        acceptedNames: { plural: 'caches', singular: 'cache', kind: '' },
        conditions: [conflict('ListKindConflict', '"CacheList" is already in use'), NOT_ACCEPTED],
      },
    },
    {
      name: 'the last conflict is the one reported',
      crd: crd(cacheNames),
      others: [holder({ plural: 'caches', singular: 'x', kind: 'Cache', listKind: 'XList' }, 'example.com')],
      want: {
        acceptedNames: { plural: '', singular: 'cache', kind: '', listKind: 'CacheList' },
        conditions: [conflict('KindConflict', '"Cache" is already in use'), NOT_ACCEPTED],
      },
    },
    {
      name: 'categories are never contested',
      crd: crd({ ...cacheNames, categories: ['all'] }),
      others: [
        holder({ plural: 'stores', singular: 'store', kind: 'Store', listKind: 'StoreList', categories: ['all'] }),
      ],
      want: { acceptedNames: { ...cacheNames, categories: ['all'] }, conditions: [NO_CONFLICTS, ESTABLISHED] },
    },
    {
      name: 'an established CRD that cannot take a new short name keeps its names and stays established',
      crd: crd(
        { ...cacheNames, shortNames: ['st'] },
        { accepted: cacheNames, conditions: [NO_CONFLICTS, ESTABLISHED] },
      ),
      others: [
        holder({ plural: 'stores', singular: 'store', shortNames: ['st'], kind: 'Store', listKind: 'StoreList' }),
      ],
      want: {
        acceptedNames: cacheNames,
        conditions: [conflict('ShortNamesConflict', '"st" is already in use'), ESTABLISHED],
      },
    },
    {
      name: "a CRD's own accepted names count as taken: its singular cannot become its plural",
      crd: crd(
        { ...cacheNames, singular: 'caches' },
        { accepted: cacheNames, conditions: [NO_CONFLICTS, ESTABLISHED] },
      ),
      others: [],
      want: {
        acceptedNames: cacheNames,
        conditions: [conflict('SingularConflict', '"caches" is already in use'), ESTABLISHED],
      },
    },
    {
      name: 'a short name equal to its own accepted plural is no conflict',
      crd: crd(
        { ...cacheNames, shortNames: ['caches', 'ca'] },
        { accepted: cacheNames, conditions: [NO_CONFLICTS, ESTABLISHED] },
      ),
      others: [],
      want: { acceptedNames: { ...cacheNames, shortNames: ['caches', 'ca'] }, conditions: [NO_CONFLICTS, ESTABLISHED] },
    },
    {
      name: 'a freed name is taken on the next decision',
      crd: crd(cacheNames, {
        accepted: { plural: '', singular: 'cache', kind: 'Cache', listKind: 'CacheList' },
        conditions: [conflict('PluralConflict', '"caches" is already in use'), NOT_ACCEPTED],
      }),
      others: [],
      want: { acceptedNames: cacheNames, conditions: [NO_CONFLICTS, ESTABLISHED] },
    },
    {
      name: "names already accepted leave a stale condition alone, as kube's controller skips the CRD",
      crd: crd(cacheNames, {
        accepted: cacheNames,
        conditions: [conflict('ShortNamesConflict', '"st" is already in use'), ESTABLISHED],
      }),
      others: [
        holder({ plural: 'stores', singular: 'store', shortNames: ['st'], kind: 'Store', listKind: 'StoreList' }),
      ],
      want: {
        acceptedNames: cacheNames,
        conditions: [conflict('ShortNamesConflict', '"st" is already in use'), ESTABLISHED],
      },
    },
    {
      name: 'a broken conversion caBundle keeps an accepted CRD from being established',
      crd: crd(cacheNames, { caBundle: 'not a certificate' }),
      others: [],
      want: {
        acceptedNames: cacheNames,
        conditions: [
          NO_CONFLICTS,
          {
            type: 'Established',
            status: 'False',
            reason: 'InvalidCABundle',
            message: 'The conversion webhook CABundle is invalid',
          },
        ],
      },
    },
    {
      name: 'a working caBundle does not',
      crd: crd(cacheNames, { caBundle: CA_PEM }),
      others: [],
      want: { acceptedNames: cacheNames, conditions: [NO_CONFLICTS, ESTABLISHED] },
    },
    {
      name: 'the CRD itself among the others changes nothing',
      crd: crd(cacheNames),
      others: [crd(cacheNames)],
      want: { acceptedNames: cacheNames, conditions: [NO_CONFLICTS, ESTABLISHED] },
    },
  ];

  it.each(cases)('$name', ({ crd: c, others, want }) => {
    expect(decideNames(c, others)).toEqual(want);
  });

  it('returns conditions without times and leaves its input alone', () => {
    const c = crd(cacheNames, {
      accepted: cacheNames,
      conditions: [
        { ...NO_CONFLICTS, lastTransitionTime: '2024-01-01T00:00:00Z' },
        { ...ESTABLISHED, lastTransitionTime: '2024-01-01T00:00:00Z' },
      ],
    });
    const before = structuredClone(c);
    expect(decideNames(c, []).conditions).toEqual([NO_CONFLICTS, ESTABLISHED]);
    expect(c).toEqual(before);
  });
});
