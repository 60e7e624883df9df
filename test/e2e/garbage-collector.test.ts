// `kubectl delete --cascade=background|foreground|orphan` with the real kubectl 1.27 and 1.33
// against the real binary: a custom-resource owner with two dependents, and what remains after.
// A kubectl version not found FAILS its first test (see test/helpers/kubectl.ts), never skips silently.
// Then kube's OwnerRefInvalidNamespace Warning Event, recorded by the collector, as `kubectl describe`
// and a client see it. One server for the file: both versions, each in a namespace of its own with
// CRDs in a group of its own (deleted after its tests, so that the other version's `owner` names
// one kind), and the last part in namespaces of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { eventually } from '../helpers/eventually.js';
import { findKubectl, kubectlScope } from '../helpers/kubectl.js';

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = new Map(VERSIONS.map((v) => [v, findKubectl(v)]));

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
});
afterAll(async () => {
  await server?.stop();
});

const CRD = (group: string, plural: string, kind: string) => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

interface Meta {
  name: string;
  uid: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  ownerReferences?: { uid: string }[];
}

for (const version of VERSIONS) {
  const found = KUBECTLS.get(version)!;
  describe(`kubectl ${version}`, () => {
    it(`the kubectl ${version} binary is there`, () => {
      if (!found.binary) expect.fail(found.problem);
    });
  });

  describe.skipIf(!found.binary)(`kubectl ${version} delete --cascade`, () => {
    const scope = kubectlScope(found.binary!, version, () => server);
    const { kubectl, ok } = scope;
    const group = `gc-${scope.suffix}.example.com`;
    const names = async (resource: string): Promise<string[]> =>
      (await ok(['get', resource, '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').filter(Boolean).sort();
    const meta = async (resource: string, name: string): Promise<Meta | undefined> => {
      const r = await kubectl(['get', resource, name, '-o', 'json']);
      if (r.code !== 0) return undefined;
      return (JSON.parse(r.stdout) as { metadata: Meta }).metadata;
    };

    /** An owner and two dependents (one held by a finalizer when `hold`), named after the case. */
    async function family(prefix: string, hold = false): Promise<void> {
      await ok(
        ['create', '-f', '-'],
        JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Owner', metadata: { name: prefix } }),
      );
      const owner = (await meta('owners', prefix))!;
      const ref = {
        apiVersion: `${group}/v1`,
        kind: 'Owner',
        name: prefix,
        uid: owner.uid,
        blockOwnerDeletion: true,
      };
      for (const n of [1, 2]) {
        const finalizers = hold && n === 2 ? { finalizers: ['example.com/hold'] } : {};
        await ok(
          ['create', '-f', '-'],
          JSON.stringify({
            apiVersion: `${group}/v1`,
            kind: 'Dependent',
            metadata: { name: `${prefix}-${n}`, ownerReferences: [ref], ...finalizers },
          }),
        );
      }
    }

    beforeAll(async () => {
      await ok(['apply', '-f', '-'], CRD(group, 'owners', 'Owner'));
      await ok(['apply', '-f', '-'], CRD(group, 'dependents', 'Dependent'));
      await eventually(
        'both kinds served',
        async () => ((await kubectl(['get', 'owners,dependents'])).code === 0 ? true : undefined),
        20_000,
      );
    });
    afterAll(async () => {
      await kubectl(['delete', 'crd', `owners.${group}`, `dependents.${group}`, '--ignore-not-found']);
    });

    it('--cascade=background: the owner is gone at once, the dependents follow', async () => {
      await family('bg');
      expect(await ok(['delete', 'owner', 'bg', '--cascade=background', '--wait=false'])).toBe(
        `owner.${group} "bg" deleted\n`,
      );
      expect(await meta('owners', 'bg')).toBeUndefined();
      await eventually('bg dependents gone', async () =>
        (await names('dependents')).some((n) => n.startsWith('bg-')) ? undefined : true,
      );
    });

    it('--cascade=foreground: the owner waits, marked, for its dependents, then goes', async () => {
      await family('fg', true);
      expect(await ok(['delete', 'owner', 'fg', '--cascade=foreground', '--wait=false'])).toBe(
        `owner.${group} "fg" deleted\n`,
      );
      await eventually('fg-1 gone', async () => ((await meta('dependents', 'fg-1')) ? undefined : true));
      const owner = await meta('owners', 'fg');
      expect(owner?.finalizers).toEqual(['foregroundDeletion']);
      expect(owner?.deletionTimestamp).toBeTruthy();
      expect((await meta('dependents', 'fg-2'))?.deletionTimestamp).toBeTruthy();
      await ok(['patch', 'dependent', 'fg-2', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      await eventually('fg owner gone', async () => ((await meta('owners', 'fg')) ? undefined : true));
      expect((await names('dependents')).filter((n) => n.startsWith('fg-'))).toEqual([]);
    });

    it('--cascade=orphan: the dependents remain, without their owner reference', async () => {
      await family('or');
      expect(await ok(['delete', 'owner', 'or', '--cascade=orphan'])).toBe(`owner.${group} "or" deleted\n`);
      expect(await meta('owners', 'or')).toBeUndefined();
      expect((await names('dependents')).filter((n) => n.startsWith('or-'))).toEqual(['or-1', 'or-2']);
      for (const n of ['or-1', 'or-2']) expect((await meta('dependents', n))?.ownerReferences).toBeUndefined();
    });
  });
}

describe('an owner reference across namespaces', () => {
  const post = async (path: string, obj: unknown): Promise<{ metadata: Meta }> => {
    const r = await server.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(obj),
    });
    expect(r.status, r.body).toBe(201);
    return JSON.parse(r.body) as { metadata: Meta };
  };
  const configMap = (name: string, ownerReferences?: unknown[]) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(ownerReferences ? { ownerReferences } : {}) },
  });

  beforeAll(async () => {
    for (const name of ['gc-owners', 'gc-dependents'])
      await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  });

  it('a dependent naming a namespaced owner in another namespace is collected, as kube collects it', async () => {
    const owner = await post('/api/v1/namespaces/gc-owners/configmaps', configMap('owner-a'));
    await post(
      '/api/v1/namespaces/gc-dependents/configmaps',
      configMap('dep-a', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner-a', uid: owner.metadata.uid }]),
    );
    await eventually(
      'dep-a collected',
      async () =>
        (await server.request('/api/v1/namespaces/gc-dependents/configmaps/dep-a')).status === 404 ? true : undefined,
      20_000,
    );
    expect((await server.request('/api/v1/namespaces/gc-owners/configmaps/owner-a')).status).toBe(200);
  });

  // Passes once server/api.ts passes the collector a `recordEvent` writing to the core events store.
  it('the collector records the Warning Event OwnerRefInvalidNamespace about the dependent', async () => {
    const owner = await post('/api/v1/namespaces/gc-owners/configmaps', configMap('owner-b'));
    const dep = await post(
      '/api/v1/namespaces/gc-dependents/configmaps',
      configMap('dep-b', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner-b', uid: owner.metadata.uid }]),
    );
    const selector = encodeURIComponent(`involvedObject.uid=${dep.metadata.uid},reason=OwnerRefInvalidNamespace`);
    const event = await eventually(
      'the event',
      async () => {
        const r = await server.request(`/api/v1/namespaces/gc-dependents/events?fieldSelector=${selector}`);
        const items = (JSON.parse(r.body) as { items?: Record<string, unknown>[] }).items ?? [];
        return items[0];
      },
      20_000,
    );
    expect(event).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'gc-dependents' },
      involvedObject: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'gc-dependents',
        name: 'dep-b',
        uid: dep.metadata.uid,
      },
      reason: 'OwnerRefInvalidNamespace',
      message: `ownerRef [v1/ConfigMap, namespace: gc-dependents, name: owner-b, uid: ${owner.metadata.uid}] does not exist in namespace "gc-dependents"`,
      source: { component: 'garbage-collector-controller' },
      type: 'Warning',
      count: 1,
    });
    expect((event as { metadata: { name: string } }).metadata.name).toMatch(/^dep-b\.[0-9a-f]+$/);
    expect(event['firstTimestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(event['lastTimestamp']).toBe(event['firstTimestamp']);
  });
});
