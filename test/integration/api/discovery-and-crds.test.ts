// Discovery, CRD validation and status, namespace lifecycle and CRD deletion, through HTTP against
// an in-process server, checked against what kube-apiserver answers (the kubernetes sources cited
// next to each expectation). One server for the file; each block uses its own API group.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle } from '../../../server/index.js';
import { type ApiResponse, type CallOptions, apiClient } from '../../helpers/api-client.js';
import { type WatchEvent, openWatch } from '../../helpers/watch-stream.js';

const AGG_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGG_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
/** What kubectl 1.30 sends for /api and /apis. */
const KUBECTL_ACCEPT = `${AGG_V2},${AGG_V2BETA1},application/json`;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

let server: ServerHandle;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
});

afterAll(async () => {
  await server?.close();
});

/** An answer whose JSON the tests walk field by field. */
interface Response extends Omit<ApiResponse, 'json'> {
  json: any;
}

async function api(path: string, opts: CallOptions & { method?: string } = {}): Promise<Response> {
  return apiClient(server)(opts.method ?? 'GET', path, opts);
}

/** A GET of aggregated discovery revalidating by ETag. */
const revalidate = (path: string, etag: string): Promise<Response> =>
  api(path, { accept: AGG_V2, headers: { 'if-none-match': etag } });

const mergePatch = (path: string, body: unknown): Promise<Response> =>
  api(path, { method: 'PATCH', body, contentType: 'application/merge-patch+json' });

/** Polls until `probe` returns a value; fails with the last thing it saw. No fixed sleeps. */
async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** kube's discovery.StorageVersionHash: base64 of the first 8 bytes of sha256("group/version/kind"). */
const storageVersionHash = (group: string, version: string, kind: string): string =>
  createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');

const schema = {
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
      status: { type: 'object', properties: { replicas: { type: 'integer' } } },
    },
  },
};

interface CRDOptions {
  group: string;
  plural?: string;
  singular?: string;
  kind?: string;
  shortNames?: string[];
  categories?: string[];
  scope?: 'Namespaced' | 'Cluster';
  versions?: unknown[];
  name?: string;
}

function crd(o: CRDOptions): any {
  const plural = o.plural ?? 'widgets';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: o.name ?? `${plural}.${o.group}` },
    spec: {
      group: o.group,
      scope: o.scope ?? 'Namespaced',
      names: {
        plural,
        ...(o.singular === undefined ? {} : { singular: o.singular }),
        kind: o.kind ?? 'Widget',
        ...(o.shortNames ? { shortNames: o.shortNames } : {}),
        ...(o.categories ? { categories: o.categories } : {}),
      },
      versions: o.versions ?? [{ name: 'v1', served: true, storage: true, schema }],
    },
  };
}

const condition = (obj: any, type: string): any => obj?.status?.conditions?.find((c: any) => c.type === type);

/** The condition without its timestamp, which must be there and well formed. */
function conditionOf(obj: any, type: string): Record<string, string> | undefined {
  const c = condition(obj, type);
  if (!c) return undefined;
  const { lastTransitionTime, ...rest } = c;
  expect(lastTransitionTime).toMatch(TIMESTAMP);
  return rest;
}

async function createCRD(body: any): Promise<void> {
  const res = await api(CRDS, { method: 'POST', body });
  expect(res.status, res.text).toBe(201);
}

async function waitForCondition(name: string, type: string, status: string, reason?: string): Promise<any> {
  return poll(`${name} ${type}=${status}${reason ? ` (${reason})` : ''}`, async () => {
    const res = await api(`${CRDS}/${name}`);
    const c = condition(res.json, type);
    return c?.status === status && (reason === undefined || c.reason === reason) ? res.json : undefined;
  });
}

const waitEstablished = (name: string): Promise<any> => waitForCondition(name, 'Established', 'True');

async function waitGone(path: string): Promise<Response> {
  return poll(`${path} to be gone`, async () => {
    const res = await api(path);
    return res.status === 404 ? res : undefined;
  });
}

/** The Terminating conditions a CRD went through, as its watch events showed them (repeats folded). */
function terminatingHistory(events: WatchEvent<any>[]): Record<string, string>[] {
  const seen: Record<string, string>[] = [];
  for (const ev of events) {
    const c = condition(ev.object, 'Terminating');
    if (!c) continue;
    const { lastTransitionTime: _t, ...rest } = c;
    const last = seen[seen.length - 1];
    if (!last || last['reason'] !== rest.reason || last['status'] !== rest.status) seen.push(rest);
  }
  return seen;
}

const PENDING = {
  type: 'Terminating',
  status: 'True',
  reason: 'InstanceDeletionPending',
  message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
};
const IN_PROGRESS = {
  type: 'Terminating',
  status: 'True',
  reason: 'InstanceDeletionInProgress',
  message: 'CustomResource deletion is in progress',
};

const cr = (group: string, name: string, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: `${group}/v1`,
  kind: 'Widget',
  metadata: { name, ...extra },
});

describe('legacy discovery', () => {
  it('serves /api as APIVersions with the address clients reach it at', async () => {
    const res = await api('/api');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('no-cache, private');
    expect(res.json).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: new URL(server.url).host }],
    });
  });

  it('serves /api/v1 with its resources exactly as kube-apiserver lists them', async () => {
    const res = await api('/api/v1');
    expect(res.status).toBe(200);
    const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    // kube writes the core APIResourceList without apiVersion (kubectl -v=9 of a 1.31 cluster).
    expect(res.json).toEqual({
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [
        {
          name: 'configmaps',
          singularName: 'configmap',
          namespaced: true,
          kind: 'ConfigMap',
          verbs,
          shortNames: ['cm'],
          storageVersionHash: 'qFsyl6wFWjQ=',
        },
        {
          name: 'events',
          singularName: 'event',
          namespaced: true,
          kind: 'Event',
          verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: ['ev'],
          storageVersionHash: 'r2yiGXH7wu8=',
        },
        {
          name: 'namespaces',
          singularName: 'namespace',
          namespaced: false,
          kind: 'Namespace',
          verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: ['ns'],
          storageVersionHash: 'Q3oi5N2YM8M=',
        },
        { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] },
        {
          name: 'namespaces/status',
          singularName: '',
          namespaced: false,
          kind: 'Namespace',
          verbs: ['get', 'patch', 'update'],
        },
        {
          name: 'secrets',
          singularName: 'secret',
          namespaced: true,
          kind: 'Secret',
          verbs,
          storageVersionHash: 'S6u1pOWzb84=',
        },
        {
          name: 'serviceaccounts',
          singularName: 'serviceaccount',
          namespaced: true,
          kind: 'ServiceAccount',
          verbs,
          shortNames: ['sa'],
          storageVersionHash: 'pbx9ZvyFpBE=',
        },
        {
          name: 'serviceaccounts/token',
          singularName: '',
          namespaced: true,
          group: 'authentication.k8s.io',
          version: 'v1',
          kind: 'TokenRequest',
          verbs: ['create'],
        },
        {
          name: 'services',
          singularName: 'service',
          namespaced: true,
          kind: 'Service',
          verbs,
          shortNames: ['svc'],
          categories: ['all'],
          storageVersionHash: '0/CO1lhkEBI=',
        },
        {
          name: 'services/status',
          singularName: '',
          namespaced: true,
          kind: 'Service',
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
    expect(storageVersionHash('', 'v1', 'Event')).toBe('r2yiGXH7wu8=');
  });

  it('serves /apis and the apiextensions.k8s.io group and version', async () => {
    const gv = { groupVersion: 'apiextensions.k8s.io/v1', version: 'v1' };
    const apis = await api('/apis');
    expect(apis.status).toBe(200);
    expect(apis.json.kind).toBe('APIGroupList');
    expect(apis.json.apiVersion).toBe('v1');
    expect(apis.json.groups).toContainEqual({ name: 'apiextensions.k8s.io', versions: [gv], preferredVersion: gv });

    const group = await api('/apis/apiextensions.k8s.io');
    expect(group.json).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'apiextensions.k8s.io',
      versions: [gv],
      preferredVersion: gv,
    });

    const list = await api('/apis/apiextensions.k8s.io/v1');
    expect(list.status).toBe(200);
    expect(list.json).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'apiextensions.k8s.io/v1',
      resources: [
        {
          name: 'customresourcedefinitions',
          singularName: 'customresourcedefinition',
          namespaced: false,
          kind: 'CustomResourceDefinition',
          verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: ['crd', 'crds'],
          categories: ['api-extensions'],
          storageVersionHash: storageVersionHash('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition'),
        },
        {
          name: 'customresourcedefinitions/status',
          singularName: '',
          namespaced: false,
          kind: 'CustomResourceDefinition',
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
  });

  it('lists an established CRD under /apis/<group> and /apis/<group>/<version>, served versions only', async () => {
    const group = 'disco.example.com';
    await createCRD(
      crd({
        group,
        shortNames: ['wd'],
        categories: ['all'],
        versions: [
          { name: 'v1beta1', served: true, storage: false, schema },
          {
            name: 'v1',
            served: true,
            storage: true,
            schema,
            subresources: {
              status: {},
              scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
            },
          },
          { name: 'v2alpha1', served: false, storage: false, schema },
        ],
      }),
    );
    await waitEstablished(`widgets.${group}`);

    // Preferred first, by kube-aware version order; the unserved version is not listed.
    const v1 = { groupVersion: `${group}/v1`, version: 'v1' };
    const v1beta1 = { groupVersion: `${group}/v1beta1`, version: 'v1beta1' };
    const apiGroup = await api(`/apis/${group}`);
    expect(apiGroup.status).toBe(200);
    expect(apiGroup.json).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: group,
      versions: [v1, v1beta1],
      preferredVersion: v1,
    });
    expect((await api('/apis')).json.groups).toContainEqual({
      name: group,
      versions: [v1, v1beta1],
      preferredVersion: v1,
    });

    // crd customresource_discovery_controller.go: verbs in this order; the hash is the storage
    // version's for every served version; subresources per version.
    const hash = storageVersionHash(group, 'v1', 'Widget');
    const main = {
      name: 'widgets',
      singularName: 'widget',
      namespaced: true,
      kind: 'Widget',
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      shortNames: ['wd'],
      categories: ['all'],
      storageVersionHash: hash,
    };
    const list = await api(`/apis/${group}/v1`);
    expect(list.status).toBe(200);
    expect(list.json).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: `${group}/v1`,
      resources: [
        main,
        {
          name: 'widgets/status',
          singularName: '',
          namespaced: true,
          kind: 'Widget',
          verbs: ['get', 'patch', 'update'],
        },
        {
          name: 'widgets/scale',
          singularName: '',
          namespaced: true,
          group: 'autoscaling',
          version: 'v1',
          kind: 'Scale',
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
    const beta = await api(`/apis/${group}/v1beta1`);
    expect(beta.json).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: `${group}/v1beta1`,
      resources: [main],
    });

    const unserved = await api(`/apis/${group}/v2alpha1`);
    expect(unserved.status).toBe(404);
    expect((await api(`/apis/${group}/v2alpha1/namespaces/default/widgets`)).status).toBe(404);
  });

  it('lists a Cluster-scoped CRD as not namespaced, without subresources it does not declare', async () => {
    const group = 'cluster.example.com';
    await createCRD(crd({ group, plural: 'gizmos', kind: 'Gizmo', scope: 'Cluster' }));
    await waitEstablished(`gizmos.${group}`);
    const list = await api(`/apis/${group}/v1`);
    expect(list.json.resources).toEqual([
      {
        name: 'gizmos',
        singularName: 'gizmo',
        namespaced: false,
        kind: 'Gizmo',
        verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
        storageVersionHash: storageVersionHash(group, 'v1', 'Gizmo'),
      },
    ]);
  });
});

describe('aggregated discovery', () => {
  it('answers /api as APIGroupDiscoveryList v2 with kube content type and resources', async () => {
    const res = await api('/api', { accept: AGG_V2 });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(AGG_V2);
    expect(res.headers['vary']).toBe('Accept');
    expect(res.headers['cache-control']).toBe('public');
    expect(res.json).toEqual({
      kind: 'APIGroupDiscoveryList',
      apiVersion: 'apidiscovery.k8s.io/v2',
      metadata: {},
      items: [
        {
          metadata: { creationTimestamp: null },
          versions: [
            {
              version: 'v1',
              resources: [
                {
                  resource: 'configmaps',
                  responseKind: { group: '', version: 'v1', kind: 'ConfigMap' },
                  scope: 'Namespaced',
                  singularResource: 'configmap',
                  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
                  shortNames: ['cm'],
                },
                {
                  resource: 'events',
                  responseKind: { group: '', version: 'v1', kind: 'Event' },
                  scope: 'Namespaced',
                  singularResource: 'event',
                  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
                  shortNames: ['ev'],
                },
                {
                  resource: 'namespaces',
                  responseKind: { group: '', version: 'v1', kind: 'Namespace' },
                  scope: 'Cluster',
                  singularResource: 'namespace',
                  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
                  shortNames: ['ns'],
                  subresources: [
                    {
                      subresource: 'finalize',
                      responseKind: { group: '', version: 'v1', kind: 'Namespace' },
                      verbs: ['update'],
                    },
                    {
                      subresource: 'status',
                      responseKind: { group: '', version: 'v1', kind: 'Namespace' },
                      verbs: ['get', 'patch', 'update'],
                    },
                  ],
                },
                {
                  resource: 'secrets',
                  responseKind: { group: '', version: 'v1', kind: 'Secret' },
                  scope: 'Namespaced',
                  singularResource: 'secret',
                  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
                },
                {
                  resource: 'serviceaccounts',
                  responseKind: { group: '', version: 'v1', kind: 'ServiceAccount' },
                  scope: 'Namespaced',
                  singularResource: 'serviceaccount',
                  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
                  shortNames: ['sa'],
                  subresources: [
                    {
                      subresource: 'token',
                      responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
                      verbs: ['create'],
                    },
                  ],
                },
                {
                  resource: 'services',
                  responseKind: { group: '', version: 'v1', kind: 'Service' },
                  scope: 'Namespaced',
                  singularResource: 'service',
                  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
                  shortNames: ['svc'],
                  categories: ['all'],
                  subresources: [
                    {
                      subresource: 'status',
                      responseKind: { group: '', version: 'v1', kind: 'Service' },
                      verbs: ['get', 'patch', 'update'],
                    },
                  ],
                },
              ],
              freshness: 'Current',
            },
          ],
        },
      ],
    });
  });

  it('negotiates v2 from kubectl Accept header, v2beta1 when only that is asked for, plain JSON otherwise', async () => {
    const kubectl = await api('/apis', { accept: KUBECTL_ACCEPT });
    expect(kubectl.headers['content-type']).toBe(AGG_V2);
    expect(kubectl.json.apiVersion).toBe('apidiscovery.k8s.io/v2');

    const beta = await api('/apis', { accept: AGG_V2BETA1 });
    expect(beta.status).toBe(200);
    expect(beta.headers['content-type']).toBe(AGG_V2BETA1);
    expect(beta.json.kind).toBe('APIGroupDiscoveryList');
    expect(beta.json.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    const betaCore = await api('/api', { accept: AGG_V2BETA1 });
    expect(betaCore.headers['content-type']).toBe(AGG_V2BETA1);
    expect(betaCore.json.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');

    const plain = await api('/apis', { accept: 'application/json' });
    expect(plain.headers['content-type']).toBe('application/json');
    expect(plain.json.kind).toBe('APIGroupList');
  });

  it('shows a CRD in the first request after Established, revalidates by ETag, and changes the ETag on add and remove', async () => {
    const group = 'agg.example.com';
    const before = await api('/apis', { accept: AGG_V2 });
    const etag0 = before.headers['etag'] as string;
    expect(etag0).toMatch(/^"[^"]+"$/);
    expect(before.json.items.map((i: any) => i.metadata.name)).not.toContain(group);

    // aggregated/etag.go: If-None-Match equal to the ETag is a 304 without a body.
    const cached = await revalidate('/apis', etag0);
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
    expect(cached.headers['etag']).toBe(etag0);

    await createCRD(
      crd({
        group,
        shortNames: ['ag'],
        categories: ['all'],
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema,
            subresources: {
              status: {},
              scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
            },
          },
        ],
      }),
    );
    await waitEstablished(`widgets.${group}`);
    const after = await revalidate('/apis', etag0);
    expect(after.status).toBe(200);
    const etag1 = after.headers['etag'] as string;
    expect(etag1).toMatch(/^"[^"]+"$/);
    expect(etag1).not.toBe(etag0);
    const item = after.json.items.find((i: any) => i.metadata.name === group);
    expect(item).toEqual({
      metadata: { name: group, creationTimestamp: null },
      versions: [
        {
          version: 'v1',
          resources: [
            {
              resource: 'widgets',
              responseKind: { group, version: 'v1', kind: 'Widget' },
              scope: 'Namespaced',
              singularResource: 'widget',
              verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
              shortNames: ['ag'],
              categories: ['all'],
              subresources: [
                {
                  subresource: 'status',
                  responseKind: { group, version: 'v1', kind: 'Widget' },
                  verbs: ['get', 'patch', 'update'],
                },
                {
                  subresource: 'scale',
                  responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
                  verbs: ['get', 'patch', 'update'],
                },
              ],
            },
          ],
          freshness: 'Current',
        },
      ],
    });
    expect((await revalidate('/apis', etag1)).status).toBe(304);
    // The core group did not change, so /api keeps its ETag.
    const core = await api('/api', { accept: AGG_V2 });
    expect((await revalidate('/api', core.headers['etag'] as string)).status).toBe(304);

    expect((await api(`${CRDS}/widgets.${group}`, { method: 'DELETE' })).status).toBe(200);
    await waitGone(`${CRDS}/widgets.${group}`);
    const removed = await revalidate('/apis', etag1);
    expect(removed.status).toBe(200);
    expect(removed.json.items.map((i: any) => i.metadata.name)).not.toContain(group);
    expect(removed.headers['etag']).not.toBe(etag1);
    // The hash is of the content, which is what it was before the CRD came.
    expect(removed.headers['etag']).toBe(etag0);
  });
});

describe('CRD validation (422 Invalid, as apiextensions validation.go words it)', () => {
  const group = 'valid.example.com';

  it('refuses a name that is not <plural>.<group>', async () => {
    const res = await api(CRDS, { method: 'POST', body: crd({ group, name: `foo.${group}` }) });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `CustomResourceDefinition.apiextensions.k8s.io "foo.${group}" is invalid: metadata.name: Invalid value: "foo.${group}": must be spec.names.plural+"."+spec.group`,
      reason: 'Invalid',
      details: {
        name: `foo.${group}`,
        group: 'apiextensions.k8s.io',
        kind: 'CustomResourceDefinition',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: "foo.${group}": must be spec.names.plural+"."+spec.group`,
            field: 'metadata.name',
          },
        ],
      },
      code: 422,
    });
  });

  it('refuses a group without a dot', async () => {
    const res = await api(CRDS, { method: 'POST', body: crd({ group: 'example' }) });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "widgets.example" is invalid: spec.group: Invalid value: "example": should be a domain with at least one dot',
    );
    expect(res.json.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "example": should be a domain with at least one dot',
        field: 'spec.group',
      },
    ]);
  });

  it('refuses two storage versions', async () => {
    const res = await api(CRDS, {
      method: 'POST',
      body: crd({
        group,
        versions: [
          { name: 'v1', served: true, storage: true, schema },
          { name: 'v2', served: true, storage: true, schema },
        ],
      }),
    });
    expect(res.status).toBe(422);
    expect(res.json.reason).toBe('Invalid');
    // kube prints the versions with Go's %#v (pointers included), so only the wording is compared.
    const versions = res.json.details.causes.find((c: any) => c.field === 'spec.versions');
    expect(versions.reason).toBe('FieldValueInvalid');
    expect(versions.message).toMatch(/^Invalid value: .*: must have exactly one version marked as storage version$/);
    // PrepareForCreate stores the first storage version, so v2 is not among status.storedVersions.
    const stored = res.json.details.causes.find((c: any) => c.field === 'status.storedVersions');
    expect(stored.message).toMatch(/: must have the storage version v2$/);
  });

  it('refuses a version without a schema', async () => {
    const res = await api(CRDS, {
      method: 'POST',
      body: crd({ group, versions: [{ name: 'v1', served: true, storage: true }] }),
    });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      `CustomResourceDefinition.apiextensions.k8s.io "widgets.${group}" is invalid: spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required`,
    );
    expect(res.json.details.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        message: 'Required value: schemas are required',
        field: 'spec.versions[0].schema.openAPIV3Schema',
      },
    ]);
  });

  it('accepts a CRD that serves no version (kube has no such rule) and serves nothing for it', async () => {
    const g = 'unserved.example.com';
    await createCRD(crd({ group: g, versions: [{ name: 'v1', served: false, storage: true, schema }] }));
    const established = await waitEstablished(`widgets.${g}`);
    expect(established.status.storedVersions).toEqual(['v1']);
    expect((await api(`/apis/${g}`)).status).toBe(404);
    expect((await api(`/apis/${g}/v1`)).status).toBe(404);
    expect((await api(`/apis/${g}/v1/namespaces/default/widgets`)).status).toBe(404);
    expect((await api('/apis')).json.groups.map((x: any) => x.name)).not.toContain(g);
  });

  it('refuses a scope change of an established CRD', async () => {
    const g = 'scope.example.com';
    await createCRD(crd({ group: g }));
    const current = await waitEstablished(`widgets.${g}`);
    current.spec.scope = 'Cluster';
    const res = await api(`${CRDS}/widgets.${g}`, { method: 'PUT', body: current });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      `CustomResourceDefinition.apiextensions.k8s.io "widgets.${g}" is invalid: spec.scope: Invalid value: "Cluster": field is immutable`,
    );
    expect(res.json.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "Cluster": field is immutable', field: 'spec.scope' },
    ]);
  });
});

describe('CRD status', () => {
  const group = 'names.example.com';

  // Established with the names, in the controller's first status write: no wait in between (kube's
  // establishing controller waits 5 s only for the other servers of an HA control plane).
  it('accepts names, becomes Established in the same status write, and records storedVersions', async () => {
    const from = (await api(CRDS)).json.metadata.resourceVersion;
    const w = await openWatch<WatchEvent<any>>(
      server,
      `${CRDS}?watch=true&fieldSelector=metadata.name%3Dwidgets.${group}&resourceVersion=${from}`,
    );
    await createCRD(crd({ group, shortNames: ['wd'], categories: ['all'] }));
    const events = await w.until('Established', (ev) => conditionOf(ev.object, 'Established')?.status === 'True');
    w.close();
    expect(events.map((ev) => [ev.type, (ev.object.status?.conditions ?? []).map((c: any) => c.type)])).toEqual([
      ['ADDED', []],
      ['MODIFIED', ['NamesAccepted', 'Established']],
    ]);
    const established = await waitEstablished(`widgets.${group}`);
    expect(established.metadata.resourceVersion).toBe(events[1]!.object.metadata.resourceVersion);
    expect(established.status.acceptedNames).toEqual({
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wd'],
      kind: 'Widget',
      listKind: 'WidgetList',
      categories: ['all'],
    });
    // naming_controller.go: NamesAccepted first, then Established.
    expect(established.status.conditions.map((c: any) => c.type)).toEqual(['NamesAccepted', 'Established']);
    expect(conditionOf(established, 'NamesAccepted')).toEqual({
      type: 'NamesAccepted',
      status: 'True',
      reason: 'NoConflicts',
      message: 'no conflicts found',
    });
    expect(conditionOf(established, 'Established')).toEqual({
      type: 'Established',
      status: 'True',
      reason: 'InitialNamesAccepted',
      message: 'the initial names have been accepted',
    });
    expect(established.status.storedVersions).toEqual(['v1']);
    // Served right away: discovery and the resource itself.
    expect((await api(`/apis/${group}/v1`)).status).toBe(200);
    const list = await api(`/apis/${group}/v1/namespaces/default/widgets`);
    expect(list.status).toBe(200);
    expect(list.json.kind).toBe('WidgetList');
  });

  it('refuses a short name already in use in the group, serves nothing for it, and recovers once it is changed', async () => {
    await createCRD(crd({ group, plural: 'gizmos', kind: 'Gizmo', shortNames: ['wd'] }));
    const refused = await waitForCondition(`gizmos.${group}`, 'NamesAccepted', 'False');
    expect(conditionOf(refused, 'NamesAccepted')).toEqual({
      type: 'NamesAccepted',
      status: 'False',
      reason: 'ShortNamesConflict',
      message: '"wd" is already in use',
    });
    expect(conditionOf(refused, 'Established')).toEqual({
      type: 'Established',
      status: 'False',
      reason: 'NotAccepted',
      message: 'not all names are accepted',
    });
    // The names without conflicts are accepted; the short names are not.
    expect(refused.status.acceptedNames).toEqual({
      plural: 'gizmos',
      singular: 'gizmo',
      kind: 'Gizmo',
      listKind: 'GizmoList',
    });
    expect((await api(`/apis/${group}/v1/namespaces/default/gizmos`)).status).toBe(404);
    expect((await api(`/apis/${group}/v1`)).json.resources.map((r: any) => r.name)).not.toContain('gizmos');

    refused.spec.names.shortNames = ['gz'];
    const updated = await api(`${CRDS}/gizmos.${group}`, { method: 'PUT', body: refused });
    expect(updated.status, updated.text).toBe(200);
    const established = await waitEstablished(`gizmos.${group}`);
    expect(conditionOf(established, 'NamesAccepted')).toEqual({
      type: 'NamesAccepted',
      status: 'True',
      reason: 'NoConflicts',
      message: 'no conflicts found',
    });
    expect(established.status.acceptedNames.shortNames).toEqual(['gz']);
    expect((await api(`/apis/${group}/v1/namespaces/default/gizmos`)).status).toBe(200);
  });

  it('refuses a kind already in use in the group with the last conflict found (ListKindConflict)', async () => {
    // singular "widget", kind Widget and listKind WidgetList all clash; kube reports the last.
    // Our own finalizer keeps the CRD after its cleanup, so the final condition stays visible.
    await createCRD({
      ...crd({ group, plural: 'gadgets', kind: 'Widget' }),
      metadata: { name: `gadgets.${group}`, finalizers: ['example.com/keep'] },
    });
    const refused = await waitForCondition(`gadgets.${group}`, 'NamesAccepted', 'False');
    expect(conditionOf(refused, 'NamesAccepted')).toEqual({
      type: 'NamesAccepted',
      status: 'False',
      reason: 'ListKindConflict',
      message: '"WidgetList" is already in use',
    });
    expect(refused.status.acceptedNames).toEqual({ plural: 'gadgets', kind: '' });
    expect((await api(`/apis/${group}/v1/namespaces/default/gadgets`)).status).toBe(404);

    // crd_finalizer.go: a CRD that was never established has no instances to delete.
    const del = await api(`${CRDS}/gadgets.${group}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.json.metadata.finalizers).toEqual(['example.com/keep', CLEANUP_FINALIZER]);
    const finalized = await waitForCondition(`gadgets.${group}`, 'Terminating', 'False');
    expect(conditionOf(finalized, 'Terminating')).toEqual({
      type: 'Terminating',
      status: 'False',
      reason: 'NeverEstablished',
      message: 'resource was never established',
    });
    expect(finalized.metadata.finalizers).toEqual(['example.com/keep']);
    expect((await api(`/apis/${group}/v1/namespaces/default/gadgets`)).status).toBe(404);

    expect((await mergePatch(`${CRDS}/gadgets.${group}`, { metadata: { finalizers: null } })).status).toBe(200);
    await waitGone(`${CRDS}/gadgets.${group}`);
    // The owner of the names keeps serving.
    expect((await api(`/apis/${group}/v1/namespaces/default/widgets`)).status).toBe(200);
  });
});

describe('namespaces', () => {
  const group = 'ns.example.com';

  beforeAll(async () => {
    await createCRD(crd({ group }));
    await waitEstablished(`widgets.${group}`);
  });

  it('has default, kube-system and kube-public, Active with the kubernetes finalizer', async () => {
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const res = await api(`/api/v1/namespaces/${name}`);
      expect(res.status, name).toBe(200);
      expect(res.json.status).toEqual({ phase: 'Active' });
      expect(res.json.spec).toEqual({ finalizers: ['kubernetes'] });
      expect(res.json.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': name });
    }
  });

  it('label a generated name with that name, as their own', async () => {
    const res = await api('/api/v1/namespaces', {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'made-' } },
    });
    expect(res.status).toBe(201);
    expect(res.json.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': res.json.metadata.name });
  });

  it('refuses to delete them (NamespaceLifecycle: immortal namespaces)', async () => {
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const res = await api(`/api/v1/namespaces/${name}`, { method: 'DELETE' });
      expect(res.status, name).toBe(403);
      expect(res.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
        reason: 'Forbidden',
        details: { name, kind: 'namespaces' },
        code: 403,
      });
      expect((await api(`/api/v1/namespaces/${name}`)).json.status.phase).toBe('Active');
    }
  });

  it('answers a create in a missing namespace with 404 namespaces "x" not found', async () => {
    const res = await api(`/apis/${group}/v1/namespaces/nowhere/widgets`, { method: 'POST', body: cr(group, 'a') });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'namespaces "nowhere" not found',
      reason: 'NotFound',
      details: { name: 'nowhere', kind: 'namespaces' },
      code: 404,
    });
    const event = await api('/api/v1/namespaces/nowhere/events', {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: {} },
    });
    expect(event.status).toBe(404);
    expect(event.json.message).toBe('namespaces "nowhere" not found');
  });

  it('terminates a deleted namespace: empties it, refuses creates in it, then removes it', async () => {
    const ns = 'doomed';
    expect(
      (
        await api('/api/v1/namespaces', {
          method: 'POST',
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
        })
      ).status,
    ).toBe(201);
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    expect((await api(base, { method: 'POST', body: cr(group, 'plain') })).status).toBe(201);
    expect(
      (await api(base, { method: 'POST', body: cr(group, 'held', { finalizers: ['example.com/hold'] }) })).status,
    ).toBe(201);
    const ev = await api(`/api/v1/namespaces/${ns}/events`, {
      method: 'POST',
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'e1' },
        involvedObject: { kind: 'Widget', name: 'plain', namespace: ns },
      },
    });
    expect(ev.status).toBe(201);

    // namespace storage.go Delete: deletionTimestamp and phase Terminating, nothing else.
    const del = await api(`/api/v1/namespaces/${ns}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.json.kind).toBe('Namespace');
    expect(del.json.metadata.deletionTimestamp).toMatch(TIMESTAMP);
    expect(del.json.metadata).not.toHaveProperty('deletionGracePeriodSeconds');
    expect(del.json.status.phase).toBe('Terminating');
    expect(del.json.spec).toEqual({ finalizers: ['kubernetes'] });

    // lifecycle/admission.go: 403 for every create, with the NamespaceTerminating cause.
    const refused = await api(base, { method: 'POST', body: cr(group, 'late') });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `widgets.${group} "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
      reason: 'Forbidden',
      details: {
        name: 'late',
        group,
        kind: 'widgets',
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${ns} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      },
      code: 403,
    });
    const refusedEvent = await api(`/api/v1/namespaces/${ns}/events`, {
      method: 'POST',
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e2' }, involvedObject: {} },
    });
    expect(refusedEvent.status).toBe(403);
    expect(refusedEvent.json.message).toBe(
      `events "e2" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
    );
    expect(refusedEvent.json.details).toEqual({
      name: 'e2',
      kind: 'events',
      causes: [
        { reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' },
      ],
    });
    // Admission runs before a name is generated (and before validation), so there is none to name.
    const generated = await api(base, {
      method: 'POST',
      body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { generateName: 'gen-' } },
    });
    expect([generated.status, generated.json.message]).toEqual([
      403,
      `widgets.${group} is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
    ]);
    const invalidToo = await api(base, { method: 'POST', body: cr(group, 'Not_A_Valid_Name') });
    expect(invalidToo.status).toBe(403);

    // The namespace controller deletes the content; the finalized object waits for its owner.
    await waitGone(`${base}/plain`);
    await waitGone(`/api/v1/namespaces/${ns}/events/e1`);
    const held = await poll('held widget marked for deletion', async () => {
      const r = await api(`${base}/held`);
      return r.json?.metadata?.deletionTimestamp ? r.json : undefined;
    });
    expect(held.metadata.finalizers).toEqual(['example.com/hold']);
    const still = await api(`/api/v1/namespaces/${ns}`);
    expect(still.status).toBe(200);
    expect(still.json.status.phase).toBe('Terminating');
    expect(still.json.spec.finalizers).toEqual(['kubernetes']);

    expect((await mergePatch(`${base}/held`, { metadata: { finalizers: null } })).status).toBe(200);
    const gone = await waitGone(`/api/v1/namespaces/${ns}`);
    expect(gone.json.message).toBe(`namespaces "${ns}" not found`);
    expect((await api(`${base}/held`)).status).toBe(404);
  });
});

describe('deleting a CRD', () => {
  const group = 'cleanup.example.com';
  const name = `widgets.${group}`;

  it('terminates it, deletes its objects, refuses creates, then removes it and its routes', async () => {
    await createCRD(crd({ group }));
    const established = await waitEstablished(name);
    const w = await openWatch<WatchEvent<any>>(
      server,
      `${CRDS}?watch=true&fieldSelector=metadata.name%3D${name}&resourceVersion=${established.metadata.resourceVersion}`,
    );
    const objects = `/apis/${group}/v1/namespaces/default/widgets`;
    expect((await api(objects, { method: 'POST', body: cr(group, 'plain') })).status).toBe(201);
    expect(
      (
        await api('/api/v1/namespaces', {
          method: 'POST',
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await api(`/apis/${group}/v1/namespaces/other/widgets`, {
          method: 'POST',
          body: cr(group, 'held', { finalizers: ['example.com/hold'] }),
        })
      ).status,
    ).toBe(201);

    // customresourcedefinition/etcd.go Delete: finalizer, Terminating condition, 200 with the object.
    const del = await api(`${CRDS}/${name}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(del.json.metadata.deletionTimestamp).toMatch(TIMESTAMP);
    expect(del.json.metadata).not.toHaveProperty('deletionGracePeriodSeconds');
    // Unlike the generic store, the CRD registry's Delete leaves metadata.generation alone.
    expect(del.json.metadata.generation).toBe(established.metadata.generation);
    expect(del.json.metadata.finalizers).toEqual([CLEANUP_FINALIZER]);
    expect(conditionOf(del.json, 'Terminating')).toEqual(PENDING);

    // crd_finalizer.go: in progress while an object's own finalizer holds it.
    const inProgress = await waitForCondition(name, 'Terminating', 'True', 'InstanceDeletionInProgress');
    expect(conditionOf(inProgress, 'Terminating')).toEqual(IN_PROGRESS);
    await waitGone(`${objects}/plain`);
    const held = await poll('held widget marked for deletion', async () => {
      const r = await api(`/apis/${group}/v1/namespaces/other/widgets/held`);
      return r.json?.metadata?.deletionTimestamp ? r.json : undefined;
    });
    expect(held.metadata.finalizers).toEqual(['example.com/hold']);

    // Reads still work; creates are refused as customresource_handler.go does.
    expect((await api(`/apis/${group}/v1/widgets`)).json.items.map((i: any) => i.metadata.name)).toEqual(['held']);
    const refused = await api(objects, { method: 'POST', body: cr(group, 'late') });
    expect(refused.status).toBe(405);
    expect(refused.json.reason).toBe('MethodNotAllowed');
    expect(refused.json.message).toBe('create not allowed while custom resource definition is terminating');
    expect((await api(`${CRDS}/${name}`)).status).toBe(200);

    expect(
      (await mergePatch(`/apis/${group}/v1/namespaces/other/widgets/held`, { metadata: { finalizers: null } })).status,
    ).toBe(200);
    const gone = await waitGone(`${CRDS}/${name}`);
    expect(gone.json.message).toBe(`customresourcedefinitions.apiextensions.k8s.io "${name}" not found`);
    try {
      const events = await w.until('DELETED', (ev) => ev.type === 'DELETED');
      // kube's finalizer writes InstanceDeletionCompleted in the same status update that drops the
      // last finalizer, which deletes the CRD without storing it: watchers see the last stored
      // state, still in progress, in the DELETED event.
      expect(events.map((ev) => ev.type).filter((t, i, all) => t !== all[i - 1])).toEqual(['MODIFIED', 'DELETED']);
      expect(terminatingHistory(events)).toEqual([PENDING, IN_PROGRESS]);
      const last = events[events.length - 1]!.object;
      expect(last.metadata.finalizers).toEqual([CLEANUP_FINALIZER]);
      expect(conditionOf(last, 'Terminating')).toEqual(IN_PROGRESS);
    } finally {
      w.close();
    }

    for (const path of [
      objects,
      `${objects}/held`,
      `/apis/${group}/v1/widgets`,
      `/apis/${group}/v1`,
      `/apis/${group}`,
    ]) {
      const res = await api(path);
      expect(res.status, path).toBe(404);
      expect(res.json.reason, path).toBe('NotFound');
      expect(res.json.message, path).toBe('the server could not find the requested resource');
    }
    expect((await api('/apis', { accept: AGG_V2 })).json.items.map((i: any) => i.metadata.name)).not.toContain(group);
  });

  it('records InstanceDeletionCompleted when another finalizer keeps the CRD', async () => {
    const g = 'kept.example.com';
    await createCRD({ ...crd({ group: g }), metadata: { name: `widgets.${g}`, finalizers: ['example.com/keep'] } });
    await waitEstablished(`widgets.${g}`);
    expect((await api(`/apis/${g}/v1/namespaces/default/widgets`, { method: 'POST', body: cr(g, 'a') })).status).toBe(
      201,
    );
    expect((await api(`${CRDS}/widgets.${g}`, { method: 'DELETE' })).status).toBe(200);
    const done = await waitForCondition(`widgets.${g}`, 'Terminating', 'False');
    expect(conditionOf(done, 'Terminating')).toEqual({
      type: 'Terminating',
      status: 'False',
      reason: 'InstanceDeletionCompleted',
      message: 'removed all instances',
    });
    expect(done.metadata.finalizers).toEqual(['example.com/keep']);
    expect((await api(`/apis/${g}/v1/namespaces/default/widgets/a`)).status).toBe(404);
    expect((await mergePatch(`${CRDS}/widgets.${g}`, { metadata: { finalizers: null } })).status).toBe(200);
    await waitGone(`${CRDS}/widgets.${g}`);
    await waitGone(`/apis/${g}/v1`);
  });

  it('serves the same CRD again when it is recreated, without the old objects', async () => {
    await createCRD(crd({ group }));
    await waitEstablished(name);
    const list = await api(`/apis/${group}/v1/widgets`);
    expect(list.status).toBe(200);
    expect(list.json.items).toEqual([]);
    expect(
      (await api(`/apis/${group}/v1/namespaces/default/widgets`, { method: 'POST', body: cr(group, 'again') })).status,
    ).toBe(201);
  });
});
