// A built-in kind as one module describes it, and the one install that serves every kind of the
// table (table.ts): its names and scope, its OpenAPI schema (from which its field ownership types,
// strategic merge patch metadata and known fields are derived, in its strategy), its printer
// columns, subresources, verbs and serving profile, and the strategy its store runs.
import type { JSONSchemaProps, ResourceNames } from '../../../apimachinery/apis/apiextensions.js';
import type { FieldLabelConversion } from '../../../apimachinery/selectors/fields.js';
import { storageVersionHash } from '../../../apimachinery/versions.js';
import {
  type Catalog,
  type CreateOnlyHandler,
  type ResourceDescriptor,
  type ServedColumn,
  type ServingProfile,
  TYPED_PROFILE,
} from '../catalog.js';
import type { Store } from '../store.js';
import type { Strategy } from '../strategy.js';

/**
 * Which admission a kind's writes pass: kube's whole chain (`standard`); the chain without dynamic
 * admission, which never judges its own configuration (`configuration`); or the whole chain and
 * then RBAC's escalation check, which kube's RBAC storage runs (`rbac`).
 */
export type AdmissionProfile = 'standard' | 'configuration' | 'rbac';

/** One served resource of a built-in kind. */
export interface BuiltinKind {
  readonly group: string;
  readonly version: string;
  readonly names: Readonly<ResourceNames>;
  readonly namespaced: boolean;
  /**
   * The Go package of kube's types for this version (`k8s.io/api/core/v1`), which its OpenAPI
   * definitions, protobuf messages and internal type are named after; absent for kinds kube does
   * not compile in (the testing API's), named after their group as custom resources are.
   */
  readonly goPackage?: string;
  /** kube's published definition of the kind in this version. */
  readonly schema: JSONSchemaProps;
  readonly verbs: readonly string[];
  /** Served besides the object itself; a create-only one (a ServiceAccount's token) needs its handler at install. */
  readonly subresources: readonly string[];
  readonly serving: ServingProfile;
  readonly printerColumns?: readonly ServedColumn[];
  /** This version's field selector labels, when they differ from the stored kind's. */
  readonly fieldLabels?: FieldLabelConversion;
  /**
   * What its store runs: one store per strategy, so resources sharing one (core's and
   * events.k8s.io's events) share their objects. Absent for kinds only ever created and answered,
   * never stored (the access reviews).
   */
  readonly strategy?: Strategy;
  readonly admission: AdmissionProfile;
}

/** Every verb kube's generic store serves. */
const STORED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;

interface StoredKindInit {
  singular: string;
  goPackage?: string;
  schema: JSONSchemaProps;
  shortNames?: readonly string[];
  categories?: readonly string[];
  printerColumns?: readonly ServedColumn[];
  subresources?: readonly string[];
  verbs?: readonly string[];
  serving?: ServingProfile;
  admission?: AdmissionProfile;
  /** Served under another group than the stored kind's (events.k8s.io's events are core's). */
  group?: string;
  /** Default v1. */
  version?: string;
  fieldLabels?: FieldLabelConversion;
}

/** A kind kube's generic store serves: every verb, typed serving, its strategy's names and scope. */
export function storedKind(strategy: Strategy, init: StoredKindInit): BuiltinKind {
  const { kind } = strategy;
  return {
    group: init.group ?? kind.group,
    version: init.version ?? 'v1',
    names: {
      plural: kind.resource,
      singular: init.singular,
      kind: kind.kind,
      listKind: kind.listKind,
      shortNames: [...(init.shortNames ?? [])],
      categories: [...(init.categories ?? [])],
    },
    namespaced: kind.namespaced,
    ...(init.goPackage ? { goPackage: init.goPackage } : {}),
    schema: init.schema,
    verbs: init.verbs ?? STORED_VERBS,
    subresources: init.subresources ?? [],
    serving: init.serving ?? TYPED_PROFILE,
    admission: init.admission ?? 'standard',
    ...(init.printerColumns ? { printerColumns: init.printerColumns } : {}),
    ...(init.fieldLabels ? { fieldLabels: init.fieldLabels } : {}),
    strategy,
  };
}

/** A kind that is only ever created, answered by a handler and never stored (kube's access reviews). */
export function createOnlyKind(
  group: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  goPackage: string,
  schema: JSONSchemaProps,
): BuiltinKind {
  return {
    group,
    version: 'v1',
    names: { plural: resource, singular: kind.toLowerCase(), kind, listKind: '', shortNames: [], categories: [] },
    namespaced,
    goPackage,
    schema,
    verbs: ['create'],
    subresources: [],
    serving: TYPED_PROFILE,
    admission: 'standard',
  };
}

/** The stores of a table's kinds: one per strategy, made on first use. */
export function builtinStores(
  make: (strategy: Strategy, admission: AdmissionProfile) => Store,
): (k: BuiltinKind) => Store {
  const stores = new Map<Strategy, Store>();
  return (k) => {
    if (!k.strategy) throw new Error(`${k.names.plural} is never stored`);
    let store = stores.get(k.strategy);
    if (!store) stores.set(k.strategy, (store = make(k.strategy, k.admission)));
    return store;
  };
}

/** What a create computes rather than stores, per kind, by subresource ('' for the resource itself). */
export type ComputedCreates = ReadonlyMap<BuiltinKind, Readonly<Record<string, CreateOnlyHandler>>>;

/** The catalog's descriptor of a kind: its store, or the handler that answers its creates. */
function descriptorOf(
  k: BuiltinKind,
  store: Store | undefined,
  creates: Readonly<Record<string, CreateOnlyHandler>> | undefined,
): ResourceDescriptor {
  const computed = Object.keys(creates ?? {}).filter((sub) => sub !== '');
  return {
    group: k.group,
    version: k.version,
    names: { ...k.names, shortNames: [...k.names.shortNames], categories: [...k.names.categories] },
    namespaced: k.namespaced,
    verbs: [...k.verbs],
    subresources: [...k.subresources, ...computed],
    serving: k.serving,
    schema: k.schema,
    ...(k.goPackage ? { goPackage: k.goPackage } : {}),
    // kube's hash of the version objects are stored in: the stored kind's, whatever group serves it.
    storageVersionHash: k.strategy ? storageVersionHash(k.strategy.kind.group, k.version, k.strategy.kind.kind) : '',
    ...(store ? { store } : {}),
    ...(creates ? { creates } : {}),
    ...(k.printerColumns ? { printerColumns: [...k.printerColumns] } : {}),
    ...(k.fieldLabels ? { fieldLabels: k.fieldLabels } : {}),
  };
}

/** Serves every kind of `kinds`: its store from `storeOf`, or its create handler from `creates`. */
export function installBuiltinKinds(
  catalog: Catalog,
  kinds: readonly BuiltinKind[],
  storeOf: (k: BuiltinKind) => Store,
  creates: ComputedCreates,
): void {
  for (const k of kinds) {
    const computed = creates.get(k);
    if (!k.strategy && !computed?.['']) throw new Error(`${k.names.plural} has neither a store nor a create handler`);
    catalog.setResource(k.group, k.names.plural, [descriptorOf(k, k.strategy && storeOf(k), computed)]);
  }
}
