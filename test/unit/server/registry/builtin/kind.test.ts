// The built-in kinds' table and its install: what each kind is served as, one store per strategy,
// create handlers given at install, and every kind's strategy able to derive its types from the
// schema it is served with.
import { describe, expect, it } from 'vitest';
import { Catalog, type CreateOnlyHandler } from '../../../../../server/registry/catalog.js';
import { type BuiltinKind, builtinStores, installBuiltinKinds } from '../../../../../server/registry/builtin/kind.js';
import { BUILTIN_KINDS } from '../../../../../server/registry/builtin/table.js';
import { CORE_EVENTS, EVENTS_V1 } from '../../../../../server/registry/builtin/events.js';
import { NAMESPACES } from '../../../../../server/registry/builtin/namespaces.js';
import { SERVICE_ACCOUNTS } from '../../../../../server/registry/builtin/serviceaccounts.js';
import { ACCESS_REVIEWS, SELF_SUBJECT_REVIEWS } from '../../../../../server/registry/builtin/reviews.js';
import type { Store } from '../../../../../server/registry/store.js';
import type { Strategy } from '../../../../../server/registry/strategy.js';
import { storageVersionHash } from '../../../../../apimachinery/versions.js';

const apiVersionOf = (k: BuiltinKind): string => (k.group ? `${k.group}/${k.version}` : k.version);

/** Stand-in stores: the install only hands them to the catalog. */
const fakeStores = (): { storeOf: (k: BuiltinKind) => Store; made: Strategy[] } => {
  const made: Strategy[] = [];
  const storeOf = builtinStores((strategy) => {
    made.push(strategy);
    return { kind: strategy.kind } as unknown as Store;
  });
  return { storeOf, made };
};

const answer: CreateOnlyHandler = ({ obj }) => obj;
const reviewHandlers = new Map<BuiltinKind, Record<string, CreateOnlyHandler>>(
  [...ACCESS_REVIEWS, SELF_SUBJECT_REVIEWS].map((k) => [k, { '': answer }]),
);

describe('the built-in kinds table', () => {
  it('serves each group and resource once', () => {
    const keys = BUILTIN_KINDS.map((k) => `${k.group}/${k.names.plural}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(BUILTIN_KINDS.filter((k) => k.strategy).map((k) => [`${k.names.plural}.${k.group || 'core'}`, k] as const))(
    '%s: its strategy derives types and patch metadata from the schema it is served with',
    (_name, k) => {
      const strategy = k.strategy!;
      expect(strategy.fieldTypes(apiVersionOf(k)).map?.fields.has('metadata')).toBe(true);
      expect(strategy.patchMeta?.(apiVersionOf(k)).fields?.['metadata']).toBeDefined();
    },
  );
});

describe('installBuiltinKinds', () => {
  it("describes a stored kind with every verb, its names, schema and kube's storage version hash", () => {
    const catalog = new Catalog();
    installBuiltinKinds(catalog, BUILTIN_KINDS, fakeStores().storeOf, reviewHandlers);
    const cm = catalog.lookup('', 'v1', 'configmaps')!;
    expect(cm).toMatchObject({
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      names: {
        plural: 'configmaps',
        singular: 'configmap',
        kind: 'ConfigMap',
        listKind: 'ConfigMapList',
        shortNames: ['cm'],
      },
      namespaced: true,
      subresources: [],
      storageVersionHash: storageVersionHash('', 'v1', 'ConfigMap'),
    });
    expect(cm.schema).toBeDefined();
    expect(catalog.lookup('', 'v1', 'namespaces')!.verbs).toEqual([...NAMESPACES.verbs]);
  });

  it("serves events.k8s.io's events from core's store, hashed as the core kind they are stored as", () => {
    const catalog = new Catalog();
    const { storeOf, made } = fakeStores();
    installBuiltinKinds(catalog, BUILTIN_KINDS, storeOf, reviewHandlers);
    const core = catalog.lookup('', 'v1', 'events')!;
    const v1 = catalog.lookup('events.k8s.io', 'v1', 'events')!;
    expect(v1.store).toBe(core.store);
    expect(v1.storageVersionHash).toBe(core.storageVersionHash);
    expect(v1.schema).toBe(EVENTS_V1.schema);
    expect(core.schema).toBe(CORE_EVENTS.schema);
    expect(made.filter((s) => s === CORE_EVENTS.strategy)).toHaveLength(1);
  });

  it('adds what a create computes: the resource itself for a review, a subresource for a token', () => {
    const catalog = new Catalog();
    installBuiltinKinds(
      catalog,
      BUILTIN_KINDS,
      fakeStores().storeOf,
      new Map([...reviewHandlers, [SERVICE_ACCOUNTS, { token: answer }]]),
    );
    const review = catalog.lookup('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews')!;
    expect(review).toMatchObject({ verbs: ['create'], storageVersionHash: '' });
    expect(review.store).toBeUndefined();
    expect(review.creates?.['']).toBe(answer);
    const sa = catalog.lookup('', 'v1', 'serviceaccounts')!;
    expect(sa.subresources).toEqual(['token']);
    expect(sa.creates?.['token']).toBe(answer);
  });

  it('refuses a kind that is never stored and has no handler', () => {
    expect(() => installBuiltinKinds(new Catalog(), BUILTIN_KINDS, fakeStores().storeOf, new Map())).toThrow(
      'selfsubjectaccessreviews has neither a store nor a create handler',
    );
  });
});
