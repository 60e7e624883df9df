// `kubectl cluster-info` and core/v1 Services with the real kubectl 1.27 and 1.33 against the real
// binary. cluster-info lists the Services of kube-system labelled kubernetes.io/cluster-service=true
// and prints the control plane's address; Services are served as data (no proxying, no IP
// allocation), printed with kube's columns, and the server creates kube's `default/kubernetes`.
// One server for the file, shared by both versions, each in a namespace of its own
// (test/helpers/kubectl.ts kubectlScope). cluster-info reads kube-system whatever the context's
// namespace: a version's DNS Service there is named after it, and deleted after its tests.
//
// kubectl comes from test/helpers/kubectl.ts findKubectl; a version not found FAILS its first test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { kubectlScope, kubectlsFor } from '../helpers/kubectl.js';

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = kubectlsFor(VERSIONS, 'cluster-info');

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
});
afterAll(async () => {
  await server?.stop();
});

/** Output without the terminal colours kubectl may add. */
const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

const dnsService = (name: string): string => `apiVersion: v1
kind: Service
metadata:
  name: ${name}
  namespace: kube-system
  labels: {kubernetes.io/cluster-service: "true", kubernetes.io/name: CoreDNS}
spec:
  clusterIP: 10.96.0.10
  selector: {k8s-app: kube-dns}
  ports:
  - {name: dns, port: 53, protocol: UDP, targetPort: 53}
  - {name: dns-tcp, port: 53, protocol: TCP, targetPort: 53}
`;

for (const version of VERSIONS) {
  const binary = KUBECTLS.get(version) ?? '';

  describe.skipIf(binary === '')(`kubectl ${version}: cluster-info and services`, () => {
    const scope = kubectlScope(binary, version, () => server);
    const { kubectl, ok } = scope;
    const dns = `kube-dns-${scope.suffix}`;

    afterAll(async () => {
      // The other version's cluster-info must find kube-system as this version found it.
      await kubectl(['delete', 'service', dns, '-n', 'kube-system', '--ignore-not-found']);
    });

    it('cluster-info prints where the control plane runs', async () => {
      const out = plain(await ok(['cluster-info']));
      expect(out).toBe(
        `Kubernetes control plane is running at ${server.url}\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n`,
      );
    });

    it("kube's `kubernetes` Service exists in default, printed with kube's columns", async () => {
      // (-n: the context's namespace is this version's)
      const out = await ok(['get', 'services', '-n', 'default']);
      const [header, row, ...rest] = out.trimEnd().split('\n');
      expect(header).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/);
      expect(row).toMatch(/^kubernetes\s+ClusterIP\s+<none>\s+<none>\s+443\/TCP\s+\d+s$/);
      expect(rest).toEqual([]);
      const svc = JSON.parse(await ok(['get', 'service', 'kubernetes', '-n', 'default', '-o', 'json'])) as {
        metadata: { labels: Record<string, string> };
        spec: Record<string, unknown>;
      };
      expect(svc.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
      expect(svc.spec).toMatchObject({
        type: 'ClusterIP',
        sessionAffinity: 'None',
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: expect.any(Number) }],
      });
    });

    it('cluster-info also lists the cluster services of kube-system', async () => {
      expect(await ok(['apply', '-f', '-'], dnsService(dns))).toBe(`service/${dns} created\n`);
      const out = plain(await ok(['cluster-info']));
      expect(out.split('\n')[0]).toBe(`Kubernetes control plane is running at ${server.url}`);
      // kubectl names it after the kubernetes.io/name label and links through the server's proxy path
      expect(out.split('\n')[1]).toBe(
        `CoreDNS is running at ${server.url}/api/v1/namespaces/kube-system/services/${dns}:dns/proxy`,
      );
      const wide = await ok(['get', 'svc', '-n', 'kube-system', '-o', 'wide']);
      expect(wide).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR$/m);
      expect(wide).toMatch(
        new RegExp(
          `^${dns}\\s+ClusterIP\\s+10\\.96\\.0\\.10\\s+<none>\\s+53/UDP,53/TCP\\s+\\d+s\\s+k8s-app=kube-dns$`,
          'm',
        ),
      );
    });

    it('defaults a port as kube does, and refuses a port out of range', async () => {
      // (create -f to send exactly this spec; `create service` is in services.test.ts)
      expect(
        await ok(
          ['create', '-f', '-'],
          'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 8080}]\n',
        ),
      ).toBe('service/web created\n');
      const web = JSON.parse(await ok(['get', 'svc', 'web', '-o', 'json'])) as { spec: Record<string, unknown> };
      expect(web.spec).toEqual({
        type: 'ClusterIP',
        sessionAffinity: 'None',
        internalTrafficPolicy: 'Cluster',
        selector: { app: 'web' },
        ports: [{ port: 8080, protocol: 'TCP', targetPort: 8080 }],
      });
      const bad = await kubectl(
        ['create', '-f', '-'],
        'apiVersion: v1\nkind: Service\nmetadata: {name: bad}\nspec:\n  ports: [{port: 70000}]\n',
      );
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive');
      const noPorts = await kubectl(
        ['create', '-f', '-'],
        'apiVersion: v1\nkind: Service\nmetadata: {name: none}\nspec: {type: ClusterIP}\n',
      );
      expect(noPorts.stderr).toContain('spec.ports: Required value');
      const headless = await ok(
        ['create', '-f', '-'],
        'apiVersion: v1\nkind: Service\nmetadata: {name: headless}\nspec: {clusterIP: None}\n',
      );
      expect(headless).toBe('service/headless created\n');
      expect(await ok(['get', 'svc', 'headless', '--no-headers'])).toMatch(
        /^headless\s+ClusterIP\s+None\s+<none>\s+<none>\s+\d+s\n$/,
      );
    });
  });
}
