// Server-side apply with the clients that write with it: kubectl 1.27 and 1.33 (`apply
// --server-side`, conflicts, --force-conflicts, `diff --server-side`, the client-side to
// server-side migration, `get --show-managed-fields`, a CRD applied server-side) against the real
// binary, and @kubernetes/client-node's KubernetesObjectApi with PatchStrategy.ServerSideApply.
// A missing kubectl fails its first test here (and in kubectl.test.ts); the others cannot run.
// The kubectl versions share one server process, each in a namespace of its own with a CRD in a
// group of its own (test/helpers/kubectl.ts kubectlScope), deleted after its tests so that the
// other version's `route` names one kind; client-node runs against the library in this process.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ServerHandle, startServer } from '../../server/index.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { eventually } from '../helpers/eventually.js';
import { apiClient } from '../helpers/api-client.js';
import { findKubectl, kubectlScope } from '../helpers/kubectl.js';

const crd = (group: string): string => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: routes.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: routes, singular: route, kind: Route}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              host: {type: string}
              weight: {type: integer}
              backends:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
`;

const routeIn = (group: string, namespace: string, name: string, spec: Record<string, unknown>): string =>
  JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Route', metadata: { name, namespace }, spec });

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
});
afterAll(async () => {
  await server?.stop();
});

interface Entry {
  manager: string;
  operation: string;
  fieldsV1: Record<string, unknown>;
}

for (const version of ['1.27', '1.33']) {
  const found = findKubectl(version);
  describe(`kubectl ${version} server-side apply`, () => {
    it(`has the kubectl ${version} binary`, () => {
      if (!found.binary) expect.fail(found.problem);
    });

    describe.skipIf(!found.binary)('with it', () => {
      const scope = kubectlScope(found.binary!, version, () => server);
      const { kubectl, ok } = scope;
      const group = `net-${scope.suffix}.example.com`;
      const CRD = crd(group);
      const route = (name: string, spec: Record<string, unknown>): string =>
        routeIn(group, scope.namespace, name, spec);
      const managedFields = async (name: string): Promise<Entry[]> =>
        (
          JSON.parse(await ok(['get', 'route', name, '-o', 'json', '--show-managed-fields'])) as {
            metadata: { managedFields: Entry[] };
          }
        ).metadata.managedFields;

      afterAll(async () => {
        await kubectl(['delete', 'crd', `routes.${group}`, '--ignore-not-found']);
      });

      it('applies a CRD server-side, and again unchanged', async () => {
        expect(await ok(['apply', '--server-side', '-f', '-'], CRD)).toBe(
          `customresourcedefinition.apiextensions.k8s.io/routes.${group} serverside-applied\n`,
        );
        await eventually('Established', async () =>
          (await ok([
            'get',
            'crd',
            `routes.${group}`,
            '-o',
            'jsonpath={.status.conditions[?(@.type=="Established")].status}',
          ])) === 'True'
            ? true
            : undefined,
        );
        expect(await ok(['apply', '--server-side', '-f', '-'], CRD)).toBe(
          `customresourcedefinition.apiextensions.k8s.io/routes.${group} serverside-applied\n`,
        );
        const crd = JSON.parse(await ok(['get', 'crd', `routes.${group}`, '-o', 'json', '--show-managed-fields'])) as {
          metadata: { managedFields: Entry[] };
        };
        expect(crd.metadata.managedFields.map((m) => [m.manager, m.operation])).toContainEqual(['kubectl', 'Apply']);
      });

      it('creates and updates with apply; shows the applier as owner', async () => {
        expect(
          await ok(
            ['apply', '--server-side', '-f', '-'],
            route('web', { host: 'a.example.com', backends: [{ name: 'v1', port: 80 }] }),
          ),
        ).toBe(`route.${group}/web serverside-applied\n`);
        expect(
          await ok(
            ['apply', '--server-side', '-f', '-'],
            route('web', { host: 'b.example.com', backends: [{ name: 'v1', port: 80 }] }),
          ),
        ).toBe(`route.${group}/web serverside-applied\n`);
        expect(await ok(['get', 'route', 'web', '-o', 'jsonpath={.spec.host}'])).toBe('b.example.com');
        expect(await managedFields('web')).toEqual([
          expect.objectContaining({
            manager: 'kubectl',
            operation: 'Apply',
            fieldsV1: {
              'f:spec': { 'f:backends': { 'k:{"name":"v1"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:host': {} },
            },
          }),
        ]);
      });

      it('a second manager conflicts (exit 1, kube’s message), and takes the field with --force-conflicts', async () => {
        const other = route('web', { host: 'c.example.com' });
        const refused = await kubectl(['apply', '--server-side', '--field-manager=ops', '-f', '-'], other);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.host');
        await ok(['apply', '--server-side', '--field-manager=ops', '--force-conflicts', '-f', '-'], other);
        const fields = await managedFields('web');
        expect(fields.find((m) => m.manager === 'ops')?.fieldsV1).toEqual({ 'f:spec': { 'f:host': {} } });
        expect(fields.find((m) => m.manager === 'kubectl')?.fieldsV1).toEqual({
          'f:spec': { 'f:backends': { 'k:{"name":"v1"}': { '.': {}, 'f:name': {}, 'f:port': {} } } },
        });
      });

      it('two managers own different entries of a keyed list', async () => {
        await ok(
          ['apply', '--server-side', '--field-manager=canary', '-f', '-'],
          route('web', { backends: [{ name: 'v2', port: 8080 }] }),
        );
        expect(JSON.parse(await ok(['get', 'route', 'web', '-o', 'jsonpath={.spec.backends}']))).toEqual([
          { name: 'v1', port: 80 },
          { name: 'v2', port: 8080 },
        ]);
      });

      it('diff --server-side shows what an apply would change, and changes nothing', async () => {
        const r = await kubectl(
          ['diff', '--server-side', '--field-manager=ops', '-f', '-'],
          route('web', { host: 'd.example.com' }),
        );
        expect(r.code, r.stderr).toBe(1);
        expect(r.stdout).toMatch(/^-\s+host: c\.example\.com$/m);
        expect(r.stdout).toMatch(/^\+\s+host: d\.example\.com$/m);
        expect(await ok(['get', 'route', 'web', '-o', 'jsonpath={.spec.host}'])).toBe('c.example.com');
      });

      it('moves an object applied client-side to server-side apply without conflicts', async () => {
        expect(await ok(['apply', '-f', '-'], route('legacy', { host: 'old.example.com', weight: 1 }))).toBe(
          `route.${group}/legacy created\n`,
        );
        expect((await managedFields('legacy')).map((m) => [m.manager, m.operation])).toEqual([
          ['kubectl-client-side-apply', 'Update'],
        ]);
        expect(
          await ok(['apply', '--server-side', '-f', '-'], route('legacy', { host: 'new.example.com', weight: 1 })),
        ).toBe(`route.${group}/legacy serverside-applied\n`);
        const fields = await managedFields('legacy');
        expect(fields.map((m) => m.manager)).not.toContain('kubectl-client-side-apply');
        expect(fields.find((m) => m.manager === 'kubectl')).toMatchObject({
          operation: 'Apply',
          fieldsV1: { 'f:spec': { 'f:host': {}, 'f:weight': {} } },
        });
        expect(await ok(['get', 'route', 'legacy', '-o', 'jsonpath={.spec.host}'])).toBe('new.example.com');
      });
    });
  });
}

describe('@kubernetes/client-node KubernetesObjectApi with PatchStrategy.ServerSideApply', () => {
  /** The library's own server, in this process. */
  let library: ServerHandle;
  let objects: k8s.KubernetesObjectApi;
  beforeAll(async () => {
    library = await startServer({ storage: 'memory', maxEventLoopUtilization: 1 });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(library.kubeconfig);
    objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    await objects.create(parseYaml(crd('net.example.com')) as k8s.KubernetesObject);
    const call = apiClient(library);
    await eventually('served', async () =>
      (await call('GET', '/apis/net.example.com/v1/namespaces/default/routes')).status === 200 ? true : undefined,
    );
  });
  afterAll(async () => {
    await library?.close();
  });

  it('creates, then updates, the object; the field manager owns what it applied', async () => {
    const spec = (host: string): k8s.KubernetesObject =>
      JSON.parse(routeIn('net.example.com', 'default', 'app', { host })) as k8s.KubernetesObject;
    await objects.patch(
      spec('one.example.com'),
      undefined,
      undefined,
      'my-controller',
      undefined,
      k8s.PatchStrategy.ServerSideApply,
    );
    const updated = (await objects.patch(
      spec('two.example.com'),
      undefined,
      undefined,
      'my-controller',
      undefined,
      k8s.PatchStrategy.ServerSideApply,
    )) as k8s.KubernetesObject & { spec: { host: string } };
    expect(updated.spec.host).toBe('two.example.com');
    expect(updated.metadata?.managedFields?.map((m) => [m.manager, m.operation, m.fieldsV1])).toEqual([
      ['my-controller', 'Apply', { 'f:spec': { 'f:host': {} } }],
    ]);
  });
});
