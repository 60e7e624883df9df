// One request with a large keyed list or map (bodies up to the 3 MiB limit) costs its write
// seconds of work: a strategic merge of 12,000 ownerReferences or 20,000 Service ports by a user
// with `edit`, a custom resource of 100,000 map keys created or merge-patched. Only that request
// may wait for it: /readyz answers within 1 s all along (`during`), see harness.ts. Each result
// is past the storage size limit, so each is kube's 413, and nothing is written.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process.js';
import { FuzzServer, GROUP, type Outcome, call, installCRD, must, sleep } from './harness.js';

const NS = 'fuzz-large';
/** A user with the `edit` role in NS, reached by impersonation. */
const EDITOR = { 'Impersonate-User': 'fuzz-editor' };
const CONFIGMAP = `/api/v1/namespaces/${NS}/configmaps/owned`;
const SERVICE = `/api/v1/namespaces/${NS}/services/svc`;
const MAPS = `/apis/${GROUP}/v1/namespaces/${NS}/bigmaps`;
/** These requests take seconds of the server's time by design. */
const TIMEOUT_MS = 120_000;

const fuzz = new FuzzServer(async (s) => {
  await must(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await must(s, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'fuzz-editor' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'fuzz-editor' }],
  });
  await must(s, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'owned' },
    data: { a: 'b' },
  });
  await must(s, 'POST', `/api/v1/namespaces/${NS}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'svc' },
    spec: { ports: [{ port: 80 }] },
  });
  await installCRD(s, 'bigmaps', 'BigMap', {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { m: { type: 'object', additionalProperties: { type: 'string' } } } },
    },
  });
  await must(s, 'POST', MAPS, bigMap('patched', {}));
  // RBAC's index follows the binding through a watch.
  for (let i = 0; (await call(s, CONFIGMAP, { headers: EDITOR })).status !== 200; i++) {
    if (i > 400) throw new Error('fuzz-editor was never allowed to read the ConfigMap');
    await sleep(25);
  }
});
beforeAll(() => fuzz.start());
afterAll(() => fuzz.stop());

function bigMap(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: `${GROUP}/v1`, kind: 'BigMap', metadata: { name }, spec };
}

/** `{k0: 'v', ..., k99999: 'v'}`. */
function keys(n: number): Record<string, string> {
  const m: Record<string, string> = {};
  for (let i = 0; i < n; i++) m[`k${i}`] = 'v';
  return m;
}

const ownerReferences = Array.from({ length: 12_000 }, (_, i) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: `owner-${i}`,
  uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
}));
const ports = Array.from({ length: 20_000 }, (_, i) => ({ name: `p${i}`, port: 1 + (i % 65535), protocol: 'TCP' }));

/** The object at `path` as it was before the case: a 413 wrote nothing. */
const unchanged = (path: string, missing = false) => {
  let before = '';
  return {
    remember: async (s: ServerProcess): Promise<void> => void (before = (await call(s, path)).body),
    verify: async (s: ServerProcess): Promise<string[]> => {
      const now = await call(s, path);
      if (missing) return now.status === 404 ? [] : [`${path} exists: ${now.status}`];
      return now.body === before ? [] : [`${path} changed: ${now.status} ${now.body.slice(0, 200)}`];
    },
  };
};

interface Case {
  name: string;
  /** The object the case must leave as it was (or, for a create, absent). */
  target: string;
  creates?: boolean;
  send(s: ServerProcess): Promise<Outcome>;
}

const CASES: Case[] = [
  {
    name: '12,000 ownerReferences of a ConfigMap, strategic merge patch by an edit user',
    target: CONFIGMAP,
    send: (s) =>
      call(s, CONFIGMAP, {
        method: 'PATCH',
        headers: EDITOR,
        contentType: 'application/strategic-merge-patch+json',
        body: JSON.stringify({ metadata: { ownerReferences } }),
        timeoutMs: TIMEOUT_MS,
      }),
  },
  {
    name: '20,000 Service ports, strategic merge patch by an edit user',
    target: SERVICE,
    send: (s) =>
      call(s, SERVICE, {
        method: 'PATCH',
        headers: EDITOR,
        contentType: 'application/strategic-merge-patch+json',
        body: JSON.stringify({ spec: { ports } }),
        timeoutMs: TIMEOUT_MS,
      }),
  },
  {
    name: 'a custom resource of 100,000 map keys, created',
    target: `${MAPS}/created`,
    creates: true,
    send: (s) =>
      call(s, MAPS, {
        method: 'POST',
        body: JSON.stringify(bigMap('created', { m: keys(100_000) })),
        timeoutMs: TIMEOUT_MS,
      }),
  },
  {
    name: 'a custom resource of 100,000 map keys, merge patch',
    target: `${MAPS}/patched`,
    send: (s) =>
      call(s, `${MAPS}/patched`, {
        method: 'PATCH',
        contentType: 'application/merge-patch+json',
        body: JSON.stringify({ spec: { m: keys(100_000) } }),
        timeoutMs: TIMEOUT_MS,
      }),
  },
];

describe('large keyed lists and maps in one write', () => {
  it.each(CASES.map((c) => [c.name, c] as const))(
    '%s: a 4xx, /readyz answered all along, nothing written',
    async (_name, c) => {
      const object = unchanged(c.target, c.creates);
      await object.remember(fuzz.server);
      await fuzz.check((s) => c.send(s), { during: true, expect4xx: true, verify: object.verify });
    },
  );
});
