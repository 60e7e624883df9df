// The namespace controller's report on a deletion, on both backends: kube's five deleter conditions
// in status.conditions (types, statuses, reasons, messages and order as
// pkg/controller/namespace/deletion writes them), as the API and kubectl show them, while content
// waits on a finalizer or its delete is refused; and the namespace gone once the content is.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ServerHandle, type ServerOptions, startServer } from '../../../server/index.js';
import { apiClient, type ApiResponse, type CallOptions } from '../../helpers/api-client.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { eventually } from '../../helpers/eventually.js';
import { kubectlRunner } from '../../helpers/kubectl.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
type Call = (method: string, path: string, o?: CallOptions) => Promise<ApiResponse & { json: Json }>;

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

const scratch = mkdtempSync(join(tmpdir(), 'namespace-deletion-'));
let etcd: EtcdProcess | undefined;
afterAll(async () => {
  await etcd?.destroy();
  rmSync(scratch, { recursive: true, force: true });
});

const backends: { name: string; options(): Promise<ServerOptions> }[] = [
  { name: 'sqlite', options: async () => ({ storage: 'sqlite', dataDir: join(scratch, randomUUID()) }) },
  {
    name: 'etcd',
    options: async () => {
      etcd ??= await startEtcd();
      return { storage: 'etcd', etcdServers: [etcd.endpoint], etcdPrefix: `/${randomUUID()}` };
    },
  },
];

/** kube's all-is-well conditions, in the deleter's order; `over` replaces the ones a case expects failing. */
function expectedConditions(over: Record<string, { status: string; reason: string; message: string }>): Json[] {
  const ok: [string, string, string][] = [
    ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
    ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
    [
      'NamespaceDeletionContentFailure',
      'ContentDeleted',
      'All content successfully deleted, may be waiting on finalization',
    ],
    ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
    ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
  ];
  return ok.map(([type, reason, message]) => {
    const { status, ...rest } = over[type] ?? { status: 'False', reason, message };
    return { type, status, lastTransitionTime: expect.stringMatching(TIMESTAMP), ...rest };
  });
}

describe.each(backends)('namespace deletion conditions on $name', (backend) => {
  let server: ServerHandle;
  let call: Call;
  let kubeconfig: string;

  const ok = async (method: string, path: string, body?: unknown, contentType?: string): Promise<Json> => {
    const r = await call(method, path, {
      ...(body === undefined ? {} : { body }),
      ...(contentType ? { contentType } : {}),
    });
    expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
    return r.json;
  };
  const namespace = (name: string, labels: Record<string, string> = {}) =>
    ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  const configMap = (ns: string, name: string, finalizers: string[] = []) =>
    ok('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, finalizers },
    });
  /** The namespace once its conditions include `type` with `status`. */
  const conditionReached = (ns: string, type: string, status: string) =>
    eventually(`${ns}: ${type} ${status}`, async () => {
      const r = await call('GET', `/api/v1/namespaces/${ns}`);
      return (r.json?.status?.conditions ?? []).some((c: Json) => c.type === type && c.status === status)
        ? r.json
        : undefined;
    });
  const gone = (path: string) =>
    eventually(`${path} gone`, async () => ((await call('GET', path)).status === 404 ? true : undefined));

  beforeAll(async () => {
    server = await startServer({ ...(await backend.options()), maxEventLoopUtilization: 1 });
    call = apiClient(server) as Call;
    kubeconfig = join(scratch, `${randomUUID()}.kubeconfig`);
    writeFileSync(kubeconfig, server.kubeconfig);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('content held by a finalizer: SomeResourcesRemain and SomeFinalizersRemain; released, the namespace goes', async () => {
    const ns = 'held';
    await namespace(ns);
    await configMap(ns, 'plain');
    await configMap(ns, 'kept', ['example.com/hold']);
    const active = await ok('GET', `/api/v1/namespaces/${ns}`);
    expect(active.status).toEqual({ phase: 'Active' });

    await ok('DELETE', `/api/v1/namespaces/${ns}`);
    const terminating = await conditionReached(ns, 'NamespaceContentRemaining', 'True');
    expect(terminating.status.phase).toBe('Terminating');
    expect(terminating.status.conditions).toEqual(
      expectedConditions({
        NamespaceContentRemaining: {
          status: 'True',
          reason: 'SomeResourcesRemain',
          message: 'Some resources are remaining: configmaps. has 1 resource instances',
        },
        NamespaceFinalizersRemaining: {
          status: 'True',
          reason: 'SomeFinalizersRemain',
          message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
        },
      }),
    );
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/plain`)).status).toBe(404);
    expect((await ok('GET', `/api/v1/namespaces/${ns}/configmaps/kept`)).metadata.deletionTimestamp).toMatch(TIMESTAMP);

    // kubectl shows what the API stores, in kube's field order.
    const yaml = await kubectlRunner('kubectl', () => kubeconfig).ok(['get', 'ns', ns, '-o', 'yaml']);
    expect((parseYaml(yaml) as Json).status).toEqual(terminating.status);
    expect(yaml).toContain(
      [
        `  - lastTransitionTime: "${terminating.status.conditions[3].lastTransitionTime}"`,
        "    message: 'Some resources are remaining: configmaps. has 1 resource instances'",
        '    reason: SomeResourcesRemain',
        '    status: "True"',
        '    type: NamespaceContentRemaining',
      ].join('\n'),
    );

    await ok(
      'PATCH',
      `/api/v1/namespaces/${ns}/configmaps/kept`,
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    await gone(`/api/v1/namespaces/${ns}`);
  });

  it('a refused delete: ContentDeletionFailed with the refusal; allowed again, the namespace goes', async () => {
    const ns = 'guarded';
    const policy = `keep-configmaps-${backend.name}`;
    await ok('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policy },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }],
          namespaceSelector: { matchLabels: { guard: policy } },
        },
        validations: [{ expression: 'false', message: 'configmaps here are kept' }],
      },
    });
    await ok('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policy },
      spec: { policyName: policy, validationActions: ['Deny'] },
    });
    await namespace(ns, { guard: policy });
    await configMap(ns, 'kept');
    const refusal =
      `configmaps "kept" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}' denied request: ` +
      'configmaps here are kept';
    await eventually('the policy in force', async () => {
      const r = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/kept?dryRun=All`);
      // A validation without a reason refuses as Invalid, 422.
      return r.status === 422 ? r.json.message : undefined;
    }).then((message) => expect(message).toBe(refusal));

    await ok('DELETE', `/api/v1/namespaces/${ns}`);
    const failing = await conditionReached(ns, 'NamespaceDeletionContentFailure', 'True');
    // As kube: a resource whose delete failed is not counted as remaining.
    expect(failing.status.conditions).toEqual(
      expectedConditions({
        NamespaceDeletionContentFailure: {
          status: 'True',
          reason: 'ContentDeletionFailed',
          message: `Failed to delete all resource types, 1 remaining: ${refusal}`,
        },
      }),
    );

    await ok('DELETE', `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/${policy}`);
    await gone(`/api/v1/namespaces/${ns}`);
    expect((await call('GET', `/api/v1/namespaces/${ns}/configmaps/kept`)).status).toBe(404);
  });
});
