// kube's rbac/bootstrap-roles hook at a restart, over what an earlier run stored: a default role
// deleted is created again, one with autoupdate "true" gets its missing rules back (keeping its
// own), one with autoupdate "false" is left as it is, and a default binding's lost subject returns.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { covers } from '../../../apimachinery/rbac/escalation.js';
import { startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';

const root = mkdtempSync(join(tmpdir(), 'rbac-bootstrap-restart-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Role {
  metadata: { name: string; annotations?: Record<string, string>; resourceVersion?: string };
  rules: { verbs: string[]; apiGroups?: string[]; resources?: string[]; nonResourceURLs?: string[] }[];
}
interface Binding {
  metadata: { name: string; resourceVersion?: string };
  subjects: { kind: string; name: string; apiGroup?: string }[];
}

describe('a restart reconciles the default RBAC policy with what is stored', () => {
  it('recreates, completes, keeps protected roles as they are, and restores bindings', async () => {
    const dataDir = join(root, 'data');
    const first = await startServer({ dataDir });
    const call = apiClient(first);
    const get = async <T>(path: string): Promise<T> => {
      const r = await call('GET', path);
      expect(r.status, r.text).toBe(200);
      return r.json as T;
    };
    const put = async (path: string, body: unknown): Promise<void> => {
      const r = await call('PUT', path, { body });
      expect(r.status, r.text).toBe(200);
    };
    const discoveryRole = await get<Role>(`${RBAC}/clusterroles/system:discovery`);
    const basicUser = await get<Role>(`${RBAC}/clusterroles/system:basic-user`);
    const discovery = await get<Binding>(`${RBAC}/clusterrolebindings/system:discovery`);

    expect((await call('DELETE', `${RBAC}/clusterroles/system:public-info-viewer`)).status).toBe(200);
    const own = { verbs: ['get'], apiGroups: ['example.com'], resources: ['things'] };
    await put(`${RBAC}/clusterroles/system:basic-user`, { ...basicUser, rules: [own] });
    await put(`${RBAC}/clusterroles/system:discovery`, {
      ...discoveryRole,
      metadata: {
        ...discoveryRole.metadata,
        annotations: { ...discoveryRole.metadata.annotations, [AUTOUPDATE]: 'false' },
      },
      rules: [own],
    });
    await put(`${RBAC}/clusterrolebindings/system:discovery`, {
      ...discovery,
      subjects: [{ kind: 'User', name: 'someone', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    await first.close();

    const second = await startServer({ dataDir });
    try {
      const again = apiClient(second);
      const read = async <T>(path: string): Promise<T> => {
        const r = await again('GET', path);
        expect(r.status, r.text).toBe(200);
        return r.json as T;
      };
      const publicInfo = await read<Role>(`${RBAC}/clusterroles/system:public-info-viewer`);
      expect(publicInfo.rules).toContainEqual({
        verbs: ['get'],
        nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'],
      });
      const completed = await read<Role>(`${RBAC}/clusterroles/system:basic-user`);
      expect(completed.rules[0]).toEqual(own);
      // kube's reconciliation adds what is missing broken down, a rule per verb and resource.
      expect(covers(completed.rules.slice(1), basicUser.rules)).toBe(true);
      const kept = await read<Role>(`${RBAC}/clusterroles/system:discovery`);
      expect(kept.rules).toEqual([own]);
      expect(kept.metadata.annotations?.[AUTOUPDATE]).toBe('false');
      const restored = await read<Binding>(`${RBAC}/clusterrolebindings/system:discovery`);
      expect(restored.subjects).toEqual([
        { kind: 'User', name: 'someone', apiGroup: 'rbac.authorization.k8s.io' },
        ...discovery.subjects,
      ]);
    } finally {
      await second.close();
    }
  }, 60_000);
});
