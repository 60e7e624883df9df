// Several versions of one CRD with conversion None, the stored versions they leave behind and the
// storage migration that clears them; and the scale subresource over raw HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { migrateStorage } from '../../../server/migrate-storage.js';
import { type ApiResponse, apiClient } from '../../helpers/api-client.js';
import { eventually } from '../../helpers/eventually.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const NAME = 'caches.versions.example.com';
const path = (version: string, name = '') =>
  `/apis/versions.example.com/${version}/namespaces/default/caches${name ? `/${name}` : ''}`;

const specSchema = (props: Record<string, unknown>) => ({
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: props },
      status: { type: 'object', properties: { ready: { type: 'integer' } } },
    },
  },
});
const versions = (storage: 'v1alpha1' | 'v1', withAlpha = true) => [
  ...(withAlpha
    ? [
        {
          name: 'v1alpha1',
          served: true,
          storage: storage === 'v1alpha1',
          deprecated: true,
          schema: specSchema({ size: { type: 'integer' }, legacy: { type: 'string' } }),
        },
      ]
    : []),
  {
    name: 'v1',
    served: true,
    storage: storage === 'v1',
    schema: specSchema({ size: { type: 'integer', maximum: 9 } }),
    subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.ready' } },
  },
];
const crd = (storage: 'v1alpha1' | 'v1', withAlpha = true) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: NAME },
  spec: {
    group: 'versions.example.com',
    scope: 'Namespaced',
    names: { plural: 'caches', singular: 'cache', kind: 'Cache' },
    versions: versions(storage, withAlpha),
  },
});
const body = (r: ApiResponse) =>
  r.json as {
    apiVersion: string;
    metadata: { resourceVersion: string; generation: number };
    spec: Record<string, unknown>;
    message: string;
    status: { storedVersions: string[] };
  };

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

async function putCRD(next: ReturnType<typeof crd>): Promise<ApiResponse> {
  const current = body(await call('GET', `${CRDS}/${NAME}`));
  return call('PUT', `${CRDS}/${NAME}`, { body: { ...next, metadata: current.metadata } });
}

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
  expect((await call('POST', CRDS, { body: crd('v1') })).status).toBe(201);
  await eventually('both versions served', async () =>
    (await call('GET', path('v1alpha1'))).status === 200 && (await call('GET', path('v1'))).status === 200
      ? true
      : undefined,
  );
});
afterAll(async () => {
  await server?.close();
});

describe('versions with conversion None', () => {
  it('stores in the storage version and serves every version, with a deprecation warning', async () => {
    const created = await call('POST', path('v1alpha1'), {
      body: {
        apiVersion: 'versions.example.com/v1alpha1',
        kind: 'Cache',
        metadata: { name: 'a' },
        spec: { size: 2, legacy: 'x' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.headers['warning']).toBe(
      '299 - "versions.example.com/v1alpha1 Cache is deprecated; use versions.example.com/v1 Cache"',
    );
    // Written through v1alpha1, stored as v1: what v1 does not know is gone.
    expect(body(created)).toMatchObject({ apiVersion: 'versions.example.com/v1alpha1', spec: { size: 2 } });
    const asV1 = body(await call('GET', path('v1', 'a')));
    expect([asV1.apiVersion, asV1.spec]).toEqual(['versions.example.com/v1', { size: 2 }]);
    const listed = (await call('GET', path('v1alpha1'))).json as { items: { apiVersion: string }[] };
    expect(listed.items.map((i) => i.apiVersion)).toEqual(['versions.example.com/v1alpha1']);
  });

  it('validates with the schema of the version written: v1 has a maximum, v1alpha1 not', async () => {
    const tooBig = await call('POST', path('v1'), {
      body: { apiVersion: 'versions.example.com/v1', kind: 'Cache', metadata: { name: 'big' }, spec: { size: 12 } },
    });
    expect([tooBig.status, body(tooBig).message]).toEqual([
      422,
      'Cache.versions.example.com "big" is invalid: spec.size: Invalid value: 12: spec.size in body should be less than or equal to 9',
    ]);
  });

  it('records every storage version, refuses to drop one still stored, and migrates', async () => {
    expect((await putCRD(crd('v1alpha1'))).status).toBe(200);
    expect(body(await call('GET', `${CRDS}/${NAME}`)).status.storedVersions).toEqual(['v1', 'v1alpha1']);
    expect(
      (
        await call('POST', path('v1'), {
          body: { apiVersion: 'versions.example.com/v1', kind: 'Cache', metadata: { name: 'b' }, spec: { size: 3 } },
        })
      ).status,
    ).toBe(201);

    const dropV1 = crd('v1alpha1');
    dropV1.spec.versions = dropV1.spec.versions.filter((v) => v.name !== 'v1');
    const refused = await putCRD(dropV1);
    expect(refused.status).toBe(422);
    expect(body(refused).message).toContain(
      'v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
    );

    const result = await migrateStorage({ server: server.url, ca: server.caCert, token: server.token }, NAME);
    expect(result).toEqual({ storageVersion: 'v1alpha1', objects: 2, storedVersions: ['v1alpha1'] });
    expect(body(await call('GET', `${CRDS}/${NAME}`)).status.storedVersions).toEqual(['v1alpha1']);
    // Back to v1 as the storage version for the scale tests below.
    expect((await putCRD(crd('v1'))).status).toBe(200);
  });
});

describe('the scale subresource', () => {
  const scalePath = `${path('v1', 'a')}/scale`;

  it('reads replicas through specReplicasPath and statusReplicasPath', async () => {
    await call('PATCH', `${path('v1', 'a')}/status`, {
      body: { status: { ready: 2 } },
      contentType: 'application/merge-patch+json',
    });
    const scale = (await call('GET', scalePath)).json as Record<string, unknown>;
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'a', namespace: 'default' },
      spec: { replicas: 2 },
      status: { replicas: 2 },
    });
  });

  it('writes replicas, bumping generation; a stale resourceVersion is a 409, a count beyond the schema a 422', async () => {
    const before = body(await call('GET', path('v1', 'a')));
    const scaled = await call('PATCH', scalePath, {
      body: { spec: { replicas: 5 } },
      contentType: 'application/merge-patch+json',
    });
    expect([scaled.status, (scaled.json as { spec: unknown }).spec]).toEqual([200, { replicas: 5 }]);
    const after = body(await call('GET', path('v1', 'a')));
    expect([after.spec['size'], after.metadata.generation]).toEqual([5, before.metadata.generation + 1]);

    const stale = await call('PUT', scalePath, {
      body: {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'a', resourceVersion: before.metadata.resourceVersion },
        spec: { replicas: 6 },
      },
    });
    expect(stale.status).toBe(409);
    const tooMany = await call('PUT', scalePath, {
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'a' }, spec: { replicas: 99 } },
    });
    expect([tooMany.status, body(tooMany).message]).toEqual([
      422,
      'Cache.versions.example.com "a" is invalid: spec.size: Invalid value: 99: spec.size in body should be less than or equal to 9',
    ]);
  });
});
