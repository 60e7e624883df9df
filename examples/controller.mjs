// A Cache controller in one file, against a server this process starts with the library:
//
//   make build && node examples/controller.mjs
//
// (another project: `npm install mini-apiserver-<version>.tgz @kubernetes/client-node@1`, then this
// file and cache-crd.yaml from node_modules/mini-apiserver/examples/). It applies examples/cache-crd.yaml with server-side apply, waits for the CRD to be
// Established, watches Caches and, for each one it sees, writes status.readyReplicas = spec.size
// through the status subresource (where a real controller would start the instances). It then
// creates a Cache, waits until its status says it is ready, prints one JSON line of what it saw,
// and exits 0; anything else exits 1. test/e2e/package.test.ts runs it from an installed tarball.
import { readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import { startServer } from 'mini-apiserver';

const group = 'cache.example.com';
const version = 'v1';
const plural = 'caches';
const namespace = 'default';

const server = await startServer({ storage: 'memory' }); // SQLite in memory, a free port
const seen = [];
let watch;
try {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  const crds = kc.makeApiClient(k8s.ApiextensionsV1Api);
  const caches = kc.makeApiClient(k8s.CustomObjectsApi);

  // Install the CRD as `kubectl apply --server-side` would, and wait until it is served.
  const crd = k8s.loadYaml(readFileSync(new URL('./cache-crd.yaml', import.meta.url), 'utf8'));
  await objects.patch(crd, undefined, undefined, 'cache-controller', true, k8s.PatchStrategy.ServerSideApply);
  for (let i = 0; ; i++) {
    const got = await crds.readCustomResourceDefinition({ name: crd.metadata.name });
    if (got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
    if (i > 250) throw new Error(`${crd.metadata.name} was not Established within 5 s`);
    await new Promise((r) => setTimeout(r, 20));
  }

  // The reconcile loop: every Cache added or changed gets readyReplicas = spec.size.
  let resolveReady;
  const ready = new Promise((resolve) => (resolveReady = resolve));
  const reconcile = async (cache) => {
    if (cache.status?.readyReplicas === cache.spec.size) return resolveReady(cache);
    await caches.patchNamespacedCustomObjectStatus(
      {
        group,
        version,
        namespace,
        plural,
        name: cache.metadata.name,
        body: { status: { readyReplicas: cache.spec.size } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  };
  watch = await new k8s.Watch(kc).watch(
    `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
    {},
    (type, cache) => {
      seen.push(`${type} ${cache.metadata.name} size=${cache.spec.size} ready=${cache.status?.readyReplicas ?? '-'}`);
      if (type === 'ADDED' || type === 'MODIFIED') reconcile(cache).catch((err) => resolveReady(Promise.reject(err)));
    },
    (err) => {
      if (err && err.name !== 'AbortError') resolveReady(Promise.reject(err));
    },
  );

  const created = await caches.createNamespacedCustomObject({
    group,
    version,
    namespace,
    plural,
    body: { apiVersion: `${group}/${version}`, kind: 'Cache', metadata: { name: 'sessions' }, spec: { size: 3 } },
  });
  const timeout = setTimeout(
    () => resolveReady(Promise.reject(new Error(`no ready Cache within 10 s; saw ${JSON.stringify(seen)}`))),
    10_000,
  );
  const done = await ready;
  clearTimeout(timeout);

  console.log(
    JSON.stringify({
      version: (await kc.makeApiClient(k8s.VersionApi).getCode()).gitVersion,
      image: created.spec.image, // the CRD's default
      readyReplicas: done.status.readyReplicas,
      seen,
    }),
  );
} catch (err) {
  console.error(`controller: ${err?.stack ?? err}`);
  process.exitCode = 1;
} finally {
  watch?.abort();
  await server.close();
}
