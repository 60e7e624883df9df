// The installed resources: built-in kinds and every served version of every established CRD.
// Discovery, OpenAPI and the REST dispatcher read it; the CRD controller writes it.
import type { UserInfo } from '../../apimachinery/user.js';
import type { FieldLabelConversion } from '../../apimachinery/selectors/fields.js';
import type { JSONSchemaProps, PrinterColumn, ResourceNames } from '../../apimachinery/apis/apiextensions.js';
import type { Store } from './store.js';
import { compareKubeAwareVersions, sortVersions } from '../../apimachinery/versions.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** Preferred first. */
const preferredFirst = (a: string, b: string): number => compareKubeAwareVersions(b, a);

export interface ScaleMapping {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/**
 * How the REST layer serves a resource: what differs between kube's typed handlers (go-restful,
 * for built-in kinds) and apiextensions' handler for custom resources, stated per resource
 * instead of asked of a flag in every handler.
 */
export interface ServingProfile {
  /**
   * Objects have compiled-in types: a body may be protobuf and may omit apiVersion and kind, and
   * Go's %T of an object is `*<pkg>.<Kind>`. Otherwise unstructured: JSON or YAML with type meta.
   */
  typed: boolean;
  /** The patch media types accepted (415 lists them). */
  patchTypes: readonly string[];
  /**
   * A verb or path the handler has no answer for: go-restful's generic 405 (`route`), or the CRD
   * handler's own errors naming the resource (`resource`). Also how a request's scope is matched
   * (endpoints/routes.ts): by the path's shape, or by the request's namespace.
   */
  unsupported: 'route' | 'resource';
  /** What a delete that removed the object answers: the object, or a success Status. */
  deleted: 'object' | 'status';
}

/** The patch types kube's installer and CRD handler accept, in the order their 415s list them. */
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const TYPED_PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** Built-in kinds, as kube's typed registries serve them. */
export const TYPED_PROFILE: ServingProfile = {
  typed: true,
  patchTypes: TYPED_PATCH_TYPES,
  unsupported: 'route',
  // The generic store's default (ReturnDeletedObject unset); kinds with their own REST Delete differ.
  deleted: 'status',
};

/** Custom resources, as apiextensions-apiserver's CRD handler serves them. */
export const CUSTOM_RESOURCE_PROFILE: ServingProfile = {
  typed: false,
  patchTypes: PATCH_TYPES,
  unsupported: 'resource',
  deleted: 'status',
};

/**
 * A printer column of a built-in kind: kube's printers compute some cells (a ConfigMap's DATA is
 * a count of keys), which no JSONPath can, so such a column carries the computation.
 */
export interface ServedColumn extends PrinterColumn {
  value?: (obj: KubeObject) => unknown;
  /**
   * The jsonPath's timestamp shown as an age ("5m"), as kube's printers show creationTimestamp
   * in a column they declare as a string.
   */
  age?: boolean;
}

/** One resource in one group version: what discovery lists and the REST layer serves. */
export interface ResourceDescriptor {
  group: string;
  version: string;
  names: ResourceNames;
  namespaced: boolean;
  verbs: string[];
  /** Subresources served besides the object itself, e.g. status, scale, finalize. */
  subresources: string[];
  scale?: ScaleMapping;
  store?: Store;
  serving: ServingProfile;
  /** Columns for `kubectl get` beyond Name; undefined means Name and Age. */
  printerColumns?: ServedColumn[];
  deprecationWarning?: string;
  storageVersionHash: string;
  /** A CRD being deleted: its objects can be read and deleted, not created. */
  terminating?: boolean;
  /** A kind kube compiles in: the Go package of its types (BuiltinKind's `goPackage`). */
  goPackage?: string;
  /** The version's openAPIV3Schema (for OpenAPI documents); absent for schemaless built-ins. */
  schema?: JSONSchemaProps;
  /**
   * The field selector labels of this version when they differ from the stored kind's (kube
   * registers conversions per version: events.k8s.io/v1 names `regarding.name`).
   */
  fieldLabels?: FieldLabelConversion;
  /**
   * What a create computes rather than stores, by subresource ('' for the resource itself): kube's
   * access reviews (which have no store at all) and a ServiceAccount's token.
   */
  creates?: Readonly<Record<string, CreateOnlyHandler>>;
}

/** A create answered from the request alone: the object to answer 201 with, or an ApiError to throw. */
export type CreateOnlyHandler = (input: {
  obj: KubeObject;
  user: UserInfo;
  namespace: string;
  name: string;
  warn: (text: string) => void;
}) => Promise<KubeObject> | KubeObject;

/** The verbs each subresource serves (discovery lists them; kube routes nothing else at its path). */
const SUBRESOURCE_VERBS: Readonly<Record<string, readonly string[]>> = {
  status: ['get', 'patch', 'update'],
  scale: ['get', 'patch', 'update'],
  finalize: ['update'],
  token: ['create'],
  restore: ['create'],
};

export const subresourceVerbs = (subresource: string): readonly string[] => SUBRESOURCE_VERBS[subresource] ?? ['get'];

const gvrKey = (group: string, version: string, resource: string): string => `${group}/${version}/${resource}`;

interface GroupVersions {
  group: string;
  /** Served versions, preferred first. */
  versions: string[];
}

export class Catalog {
  private readonly byGvr = new Map<string, ResourceDescriptor>();
  /** byGvr's keys per group: a CRD's install touches its group only, not every resource served. */
  private readonly keysByGroup = new Map<string, Set<string>>();
  /** Per group: its versions in preference order (CRDs of one group may disagree; kube merges). */
  private readonly versionOrder = new Map<string, string[]>();
  private listeners: Array<() => void> = [];
  private generationCounter = 0;

  /** Bumped on every change, so caches (discovery, OpenAPI) know when to rebuild. */
  get generation(): number {
    return this.generationCounter;
  }

  onChange(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /**
   * Replaces everything served for one group-resource (all its versions) in one step, so a
   * reader never sees a half-installed CRD.
   */
  setResource(group: string, plural: string, descriptors: ResourceDescriptor[]): void {
    const keys = this.keysByGroup.get(group) ?? new Set<string>();
    for (const key of keys) {
      if (this.byGvr.get(key)!.names.plural !== plural) continue;
      this.byGvr.delete(key);
      keys.delete(key);
    }
    for (const d of descriptors) {
      const key = gvrKey(d.group, d.version, d.names.plural);
      this.byGvr.set(key, d);
      keys.add(key);
    }
    if (keys.size > 0) this.keysByGroup.set(group, keys);
    else this.keysByGroup.delete(group);
    this.recomputeVersions(group, keys);
    this.generationCounter++;
    for (const l of this.listeners) l();
  }

  lookup(group: string, version: string, resource: string): ResourceDescriptor | undefined {
    return this.byGvr.get(gvrKey(group, version, resource));
  }

  /** Every descriptor, in a stable order: core first, then groups by name. */
  all(): ResourceDescriptor[] {
    return [...this.byGvr.values()].sort(
      (a, b) =>
        (a.group === '' ? -1 : 0) - (b.group === '' ? -1 : 0) ||
        a.group.localeCompare(b.group) ||
        preferredFirst(a.version, b.version) ||
        a.names.plural.localeCompare(b.names.plural),
    );
  }

  /** Groups with their served versions, preferred version first. */
  groups(): GroupVersions[] {
    return [...this.versionOrder.entries()]
      .map(([group, versions]) => ({ group, versions }))
      .sort((a, b) =>
        a.group === ''
          ? -1
          : b.group === ''
            ? 1
            : builtinRank(a.group) - builtinRank(b.group) || a.group.localeCompare(b.group),
      );
  }

  resourcesIn(group: string, version: string): ResourceDescriptor[] {
    return this.all().filter((d) => d.group === group && d.version === version);
  }

  /** Distinct group-resources: one store per group-resource, whatever the versions. */
  stores(): Store[] {
    return [...new Set([...this.byGvr.values()].flatMap((d) => (d.store ? [d.store] : [])))];
  }

  private recomputeVersions(group: string, keys: ReadonlySet<string>): void {
    const versions = [...new Set([...keys].map((k) => this.byGvr.get(k)!.version))];
    if (versions.length === 0) this.versionOrder.delete(group);
    else this.versionOrder.set(group, sortVersions(versions));
  }
}

// Built-in groups come before custom ones in /apis, as kube orders them by priority.
function builtinRank(group: string): number {
  return group === 'apiextensions.k8s.io' ? 0 : group.endsWith('.k8s.io') ? 1 : 2;
}
