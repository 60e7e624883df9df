// Discovery documents, legacy (/api, /apis, /apis/<g>, /apis/<g>/<v>) and aggregated
// (apidiscovery.k8s.io v2 and v2beta1, which kubectl 1.27+ asks for first). All are derived from
// the catalog and cached until it changes, with an ETag so clients' caches revalidate cheaply.
import { createHash } from 'node:crypto';
import { goEncoderText } from '../../apimachinery/go-json.js';
import { type Catalog, type ResourceDescriptor, subresourceVerbs } from '../registry/catalog.js';

export const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
export const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

export interface Document {
  body: string;
  etag: string;
}

function subresourceKind(d: ResourceDescriptor, sub: string): { group: string; version: string; kind: string } {
  if (sub === 'scale') return { group: 'autoscaling', version: 'v1', kind: 'Scale' };
  if (sub === 'token') return { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
  if (sub === 'restore') return { group: d.group, version: d.version, kind: 'SnapshotRestore' };
  return { group: d.group, version: d.version, kind: d.names.kind };
}

function apiResource(d: ResourceDescriptor): Record<string, unknown> {
  const r: Record<string, unknown> = {
    name: d.names.plural,
    singularName: d.names.singular,
    namespaced: d.namespaced,
    kind: d.names.kind,
    verbs: d.verbs,
  };
  if (d.names.shortNames.length) r['shortNames'] = d.names.shortNames;
  if (d.names.categories.length) r['categories'] = d.names.categories;
  // Resources that are never stored (access reviews) have none, and kube omits it.
  if (d.storageVersionHash) r['storageVersionHash'] = d.storageVersionHash;
  return r;
}

function apiSubresource(d: ResourceDescriptor, sub: string): Record<string, unknown> {
  const k = subresourceKind(d, sub);
  const r: Record<string, unknown> = { name: `${d.names.plural}/${sub}`, singularName: '', namespaced: d.namespaced };
  // Named only when the subresource speaks another group version than its resource (Scale, TokenRequest).
  if (k.group !== d.group || k.version !== d.version) {
    r['group'] = k.group;
    r['version'] = k.version;
  }
  r['kind'] = k.kind;
  r['verbs'] = subresourceVerbs(sub);
  return r;
}

function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

function document(value: unknown): Document {
  // As kube's serializer writes it (respond.ts jsonDocument).
  const body = `${goEncoderText(JSON.stringify(value))}\n`;
  return { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` };
}

export class Discovery {
  private cache = new Map<string, Document>();
  private cachedGeneration = -1;

  constructor(
    private readonly catalog: Catalog,
    private readonly serverAddress: () => string,
  ) {}

  private cached(key: string, build: () => unknown): Document {
    if (this.cachedGeneration !== this.catalog.generation) {
      this.cache.clear();
      this.cachedGeneration = this.catalog.generation;
    }
    let doc = this.cache.get(key);
    if (!doc) {
      doc = document(build());
      this.cache.set(key, doc);
    }
    return doc;
  }

  /** /api as APIVersions. */
  legacyCore(): Document {
    return this.cached('api', () => ({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress() }],
    }));
  }

  /** /apis as APIGroupList. */
  groupList(): Document {
    return this.cached('apis', () => ({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: this.catalog
        .groups()
        .filter((g) => g.group !== '')
        .map((g) => this.apiGroup(g.group, g.versions)),
    }));
  }

  /** /apis/<group> as APIGroup, or undefined when no such group is served. */
  group(group: string): Document | undefined {
    const g = this.catalog.groups().find((x) => x.group === group);
    if (!g || group === '') return undefined;
    return this.cached(`group/${group}`, () => ({
      kind: 'APIGroup',
      apiVersion: 'v1',
      ...this.apiGroup(g.group, g.versions),
    }));
  }

  private apiGroup(group: string, versions: string[]): Record<string, unknown> {
    const gvs = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
    return { name: group, versions: gvs, preferredVersion: gvs[0] };
  }

  /** /api/v1 or /apis/<g>/<v> as APIResourceList, or undefined when not served. */
  resourceList(group: string, version: string): Document | undefined {
    const resources = this.catalog.resourcesIn(group, version);
    if (resources.length === 0) return undefined;
    // kube-apiserver writes /api/v1 without apiVersion (the legacy core codec leaves it out) and
    // every /apis/<g>/<v> with "apiVersion":"v1"; clients' discovery caches keep what they get.
    return this.cached(`resources/${group}/${version}`, () => ({
      kind: 'APIResourceList',
      ...(group === '' ? {} : { apiVersion: 'v1' }),
      groupVersion: groupVersion(group, version),
      resources: resources.flatMap((d) => [apiResource(d), ...d.subresources.map((s) => apiSubresource(d, s))]),
    }));
  }

  /** Aggregated discovery of the core group (/api) or of all groups (/apis). */
  aggregated(core: boolean, apiVersion: 'v2' | 'v2beta1'): Document {
    return this.cached(`aggregated/${core}/${apiVersion}`, () => ({
      kind: 'APIGroupDiscoveryList',
      apiVersion: `apidiscovery.k8s.io/${apiVersion}`,
      metadata: {},
      items: this.catalog
        .groups()
        .filter((g) => (g.group === '') === core)
        .map((g) => ({
          metadata: core ? { creationTimestamp: null } : { name: g.group, creationTimestamp: null },
          versions: g.versions.map((v) => ({
            version: v,
            resources: this.catalog.resourcesIn(g.group, v).map((d) => aggregatedResource(d)),
            freshness: 'Current',
          })),
        })),
    }));
  }
}

function aggregatedResource(d: ResourceDescriptor): Record<string, unknown> {
  const r: Record<string, unknown> = {
    resource: d.names.plural,
    responseKind: { group: d.group, version: d.version, kind: d.names.kind },
    scope: d.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: d.names.singular,
    verbs: d.verbs,
  };
  if (d.names.shortNames.length) r['shortNames'] = d.names.shortNames;
  if (d.names.categories.length) r['categories'] = d.names.categories;
  if (d.subresources.length) {
    r['subresources'] = d.subresources.map((s) => ({
      subresource: s,
      responseKind: subresourceKind(d, s),
      verbs: subresourceVerbs(s),
    }));
  }
  return r;
}
