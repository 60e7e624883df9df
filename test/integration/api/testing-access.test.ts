// Who sees the testing API: without --enable-testing-apis nobody (kube's 404, absent from
// discovery); with it, system:masters, and anyone else only as RBAC grants, as for any kind; it is
// in discovery and OpenAPI like a built-in group.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { eventually } from '../../helpers/eventually.js';
import { request } from '../../helpers/server-process.js';

const FAULTS = '/apis/testing.mini-apiserver.io/v1alpha1/faults';

describe('without --enable-testing-apis', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startServer({});
  });
  afterAll(async () => {
    await server?.close();
  });

  it('the group is not served: 404 to system:masters, absent from discovery', async () => {
    const call = apiClient(server);
    const r = await call('GET', FAULTS);
    expect(r.status).toBe(404);
    expect((r.json as { message: string }).message).toBe('the server could not find the requested resource');
    const groups = (await call('GET', '/apis')).json as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).not.toContain('testing.mini-apiserver.io');
    expect(server.testing).toBeUndefined();
  });
});

describe('with --enable-testing-apis', () => {
  let dir: string;
  let server: ServerHandle;
  let call: ReturnType<typeof apiClient>;
  const asDev = (path: string) => request(server.url + path, { ca: server.caCert, token: 'dev-token' });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'testing-access-'));
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, 'admin-token,admin,1,"system:masters"\ndev-token,dev,2,"devs"\n');
    server = await startServer({ testing: true, tokenAuthFile: tokens });
    call = apiClient(server);
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("a user outside system:masters gets kube's 403, until RBAC grants it", async () => {
    const denied = await asDev(FAULTS);
    expect(denied.status).toBe(403);
    expect((JSON.parse(denied.body) as { message: string }).message).toBe(
      'faults.testing.mini-apiserver.io is forbidden: User "dev" cannot list resource "faults" in API group "testing.mini-apiserver.io" at the cluster scope',
    );
    expect((await call('GET', FAULTS)).status).toBe(200);

    await call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'fault-reader' },
        rules: [{ apiGroups: ['testing.mini-apiserver.io'], resources: ['faults'], verbs: ['get', 'list'] }],
      },
    });
    await call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'devs-read-faults' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'fault-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'devs' }],
      },
    });
    await eventually('the binding in force', async () => ((await asDev(FAULTS)).status === 200 ? true : undefined));
    expect((await asDev('/apis/testing.mini-apiserver.io/v1alpha1/snapshots')).status).toBe(403);
  });

  it('is in discovery and OpenAPI as a group of its own', async () => {
    const group = (await call('GET', '/apis/testing.mini-apiserver.io')).json as {
      preferredVersion: { groupVersion: string };
    };
    expect(group.preferredVersion.groupVersion).toBe('testing.mini-apiserver.io/v1alpha1');
    const resources = (await call('GET', '/apis/testing.mini-apiserver.io/v1alpha1')).json as {
      resources: { name: string; namespaced: boolean; kind: string; verbs: string[] }[];
    };
    expect(resources.resources.map((r) => [r.name, r.kind, r.namespaced]).sort()).toEqual([
      ['clocks', 'Clock', false],
      ['clocks/status', 'Clock', false],
      ['faults', 'Fault', false],
      ['faults/status', 'Fault', false],
      ['snapshots', 'Snapshot', false],
      ['snapshots/restore', 'SnapshotRestore', false],
      ['snapshots/status', 'Snapshot', false],
    ]);
    expect(resources.resources.find((r) => r.name === 'snapshots/restore')?.verbs).toEqual(['create']);
    const openapi = (await call('GET', '/openapi/v3/apis/testing.mini-apiserver.io/v1alpha1')).json as {
      components: {
        schemas: Record<string, { properties?: Record<string, { properties?: Record<string, unknown> }> }>;
      };
    };
    const fault = openapi.components.schemas['io.mini-apiserver.testing.v1alpha1.Fault'];
    expect(Object.keys(fault?.properties?.['spec']?.properties ?? {}).sort()).toEqual([
      'action',
      'count',
      'delay',
      'match',
      'percent',
    ]);
  });
});
