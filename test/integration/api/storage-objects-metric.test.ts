// /metrics' apiserver_storage_objects as kube's: one series per served resource (kube's
// GroupResource.String(): `configmaps`, `roles.rbac.authorization.k8s.io`, a CRD's plural and group),
// counted in storage whether or not anything watches it, custom resources included; a resource that
// is no longer served drops out (kube's DeleteStoreStats when a CRD's storage goes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { type ApiResponse, apiClient } from '../../helpers/api-client.js';
import { installCrd, simpleCrd } from '../../helpers/crds.js';
import { eventually } from '../../helpers/eventually.js';

const GROUP = 'metrics.example.com';
const CRD = simpleCrd(GROUP, 'gauges', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });

interface ResourceList {
  groupVersion: string;
  resources: { name: string; verbs: string[] }[];
}

describe('apiserver_storage_objects', () => {
  let server: ServerHandle;
  let call: ReturnType<typeof apiClient>;
  const ok = async (r: Promise<ApiResponse>): Promise<ApiResponse> => {
    const res = await r;
    expect(res.status, res.text).toBeLessThan(300);
    return res;
  };
  const storageObjects = async (): Promise<Map<string, number>> => {
    const text = (await ok(call('GET', '/metrics'))).text;
    return new Map(
      [...text.matchAll(/^apiserver_storage_objects\{resource="([^"]+)"\} (-?\d+)$/gm)].map((m) => [
        m[1]!,
        Number(m[2]),
      ]),
    );
  };
  /** Every resource discovery lists with a list verb, as kube's GroupResource.String() names it. */
  const listable = async (): Promise<Set<string>> => {
    const lists: ResourceList[] = [];
    for (const v of ((await ok(call('GET', '/api'))).json as { versions: string[] }).versions)
      lists.push((await ok(call('GET', `/api/${v}`))).json as ResourceList);
    for (const g of ((await ok(call('GET', '/apis'))).json as { groups: { versions: { groupVersion: string }[] }[] })
      .groups)
      for (const { groupVersion } of g.versions)
        lists.push((await ok(call('GET', `/apis/${groupVersion}`))).json as ResourceList);
    const names = new Set<string>();
    for (const list of lists) {
      const group = list.groupVersion.includes('/') ? list.groupVersion.split('/')[0]! : '';
      for (const r of list.resources) {
        if (r.name.includes('/') || !r.verbs.includes('list')) continue;
        // events.k8s.io's Events are core's, in one storage, as kube's events REST is.
        names.add(group === '' || group === 'events.k8s.io' ? r.name : `${r.name}.${group}`);
      }
    }
    return names;
  };

  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    call = apiClient(server);
    await installCrd(call, CRD);
    for (const name of ['g1', 'g2'])
      await ok(
        call('POST', `/apis/${GROUP}/v1/namespaces/default/gauges`, {
          body: { apiVersion: `${GROUP}/v1`, kind: 'Gauge', metadata: { name } },
        }),
      );
    await ok(
      call('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
        body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [] },
      }),
    );
  });
  afterAll(async () => {
    await server?.close();
  });

  it('has a series for every served resource, RBAC kinds and custom resources included, and no other', async () => {
    const served = await listable();
    expect(served).toContain(`gauges.${GROUP}`);
    expect(served).toContain('rolebindings.rbac.authorization.k8s.io');
    expect(new Set((await storageObjects()).keys())).toEqual(served);
  });

  it('counts what storage holds, including kinds nothing lists or watches', async () => {
    const counts = await storageObjects();
    expect(counts.get(`gauges.${GROUP}`)).toBe(2);
    expect(counts.get('roles.rbac.authorization.k8s.io')).toBe(1);
    expect(counts.get('events')).toBe(0);
    const clusterRoles = (await ok(call('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles'))).json as {
      items: unknown[];
    };
    expect(counts.get('clusterroles.rbac.authorization.k8s.io')).toBe(clusterRoles.items.length);
    await ok(
      call('POST', '/api/v1/namespaces/default/configmaps', {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
      }),
    );
    expect((await storageObjects()).get('configmaps')).toBe(1);
  });

  it('drops a custom resource’s series once its CRD is gone', async () => {
    await ok(call('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gauges.${GROUP}`));
    await eventually('the CRD gone', async () =>
      (await call('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gauges.${GROUP}`)).status === 404
        ? true
        : undefined,
    );
    expect((await storageObjects()).has(`gauges.${GROUP}`)).toBe(false);
  });
});
