// ConfigMap, Secret, ServiceAccount and Lease driven by the real kubectl 1.27 (JSON bodies) and
// 1.33 (protobuf bodies for `create configmap/secret/serviceaccount`), against the real binary:
// create, get (kube's table columns), describe, patch, apply, delete. One server for the file,
// shared by both versions, each in a namespace of its own (test/helpers/kubectl.ts kubectlScope).
//
// kubectl comes from test/helpers/kubectl.ts findKubectl ($KUBECTL_1_27 / $KUBECTL_1_33, then
// $KUBECTL_DIR/kubectl.<version>, then `kubectl` on PATH). A version not found FAILS its first
// test, saying where it looked and how to get it; its other tests cannot run and are skipped.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { kubectlScope, kubectlsFor } from '../helpers/kubectl.js';

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = kubectlsFor(VERSIONS, 'core kinds');

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
});
afterAll(async () => {
  await server?.stop();
});

const LEASE = `
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: leader
spec:
  holderIdentity: node-a
  leaseDurationSeconds: 15
  acquireTime: "2024-05-01T10:00:00.000000Z"
  renewTime: "2024-05-01T10:00:05.123456Z"
  leaseTransitions: 1
`;

interface Obj {
  metadata: { name: string; namespace: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  type?: string;
  secrets?: { name: string }[];
  spec?: Record<string, unknown>;
}

for (const version of VERSIONS) {
  const binary = KUBECTLS.get(version) ?? '';

  describe.skipIf(binary === '')(`kubectl ${version} with ConfigMap, Secret, ServiceAccount, Lease`, () => {
    const { kubectl, namespace: ns } = kubectlScope(binary, version, () => server);
    const ok = async (args: string[], input?: string): Promise<string> => {
      const r = await kubectl(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      // No warnings either (a schema kubectl dislikes, a deprecated API, a dropped field).
      expect(r.stderr, `kubectl ${args.join(' ')}`).toBe('');
      return r.stdout;
    };
    const getJson = async (kind: string, name: string): Promise<Obj> =>
      JSON.parse(await ok(['get', kind, name, '-o', 'json'])) as Obj;

    it('configmap: create --from-literal, get, describe, patch, apply, delete', async () => {
      expect(await ok(['create', 'configmap', 'x', '--from-literal=a=b'])).toBe('configmap/x created\n');
      expect((await getJson('cm', 'x')).data).toEqual({ a: 'b' });
      const table = (await ok(['get', 'cm', 'x'])).split('\n');
      expect(table[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
      expect(table[1]).toMatch(/^x\s+1\s+\d+s$/);

      const described = await ok(['describe', 'configmap', 'x']);
      expect(described).toMatch(/^Name:\s+x$/m);
      expect(described).toMatch(new RegExp(`^Namespace:\\s+${ns}$`, 'm'));
      expect(described).toMatch(/^a:\n----\nb$/m);

      expect(await ok(['patch', 'configmap', 'x', '-p', '{"data":{"c":"d"}}'])).toBe('configmap/x patched\n');
      expect((await getJson('configmap', 'x')).data).toEqual({ a: 'b', c: 'd' });
      expect(await ok(['patch', 'configmap', 'x', '--type=merge', '-p', '{"data":{"c":null}}'])).toBe(
        'configmap/x patched\n',
      );
      expect((await getJson('configmap', 'x')).data).toEqual({ a: 'b' });

      const applied = JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'applied', labels: { v: '1' } },
        data: { k: 'v1' },
      });
      expect(await ok(['apply', '-f', '-'], applied)).toBe('configmap/applied created\n');
      expect(await ok(['apply', '-f', '-'], applied.replace('"v1"}', '"v2"}'))).toBe('configmap/applied configured\n');
      expect((await getJson('configmap', 'applied')).data).toEqual({ k: 'v2' });
      expect(await ok(['apply', '--server-side', '-f', '-'], applied.replace('"v1"}', '"v3"}'))).toBe(
        'configmap/applied serverside-applied\n',
      );
      expect((await getJson('configmap', 'applied')).data).toEqual({ k: 'v3' });

      // A file that is not UTF-8 goes to binaryData (field 3 of kubectl 1.33's protobuf body).
      const dir = mkdtempSync(join(tmpdir(), 'core-kinds-'));
      writeFileSync(join(dir, 'blob'), Buffer.from([0xff, 0x00, 0x01]));
      expect(await ok(['create', 'configmap', 'bin', `--from-file=${join(dir, 'blob')}`])).toBe(
        'configmap/bin created\n',
      );
      rmSync(dir, { recursive: true });
      const bin = (await getJson('cm', 'bin')) as Obj & { binaryData?: Record<string, string> };
      expect([bin.data, bin.binaryData]).toEqual([undefined, { blob: '/wAB' }]);
      expect((await ok(['get', 'cm', 'bin'])).split('\n')[1]).toMatch(/^bin\s+1\s+\d+s$/);

      // kube's 422, as kubectl prints it (`create configmap` checks keys itself, `create -f` does not).
      const bad = await kubectl(
        ['create', '-f', '-'],
        JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' }, data: { '..': 'c' } }),
      );
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain(`The ConfigMap "bad" is invalid: data[..]: Invalid value: "..": must not be '..'`);

      expect(await ok(['delete', 'configmap', 'x', 'applied', 'bin'])).toBe(
        'configmap "x" deleted\nconfigmap "applied" deleted\nconfigmap "bin" deleted\n',
      );
      expect((await kubectl(['get', 'cm', 'x'])).stderr).toContain('configmaps "x" not found');
    });

    it('secret: create generic --from-literal, get, describe, patch, delete', async () => {
      expect(await ok(['create', 'secret', 'generic', 's', '--from-literal=p=q'])).toBe('secret/s created\n');
      const secret = await getJson('secret', 's');
      expect(secret.type).toBe('Opaque');
      expect(secret.data).toEqual({ p: Buffer.from('q').toString('base64') });
      const table = (await ok(['get', 'secrets', 's'])).split('\n');
      expect(table[0]).toMatch(/^NAME\s+TYPE\s+DATA\s+AGE$/);
      expect(table[1]).toMatch(/^s\s+Opaque\s+1\s+\d+s$/);

      const described = await ok(['describe', 'secret', 's']);
      expect(described).toMatch(/^Name:\s+s$/m);
      expect(described).toMatch(/^Type:\s+Opaque$/m);
      expect(described).toMatch(/^p:\s+1 bytes$/m);

      expect(await ok(['patch', 'secret', 's', '-p', '{"stringData":{"r":"st"}}'])).toBe('secret/s patched\n');
      const patched = await getJson('secret', 's');
      expect(patched.data).toEqual({ p: Buffer.from('q').toString('base64'), r: Buffer.from('st').toString('base64') });
      expect(Object.keys(patched)).not.toContain('stringData');

      const tls = await kubectl([
        'create',
        'secret',
        'generic',
        'tls',
        '--type=kubernetes.io/tls',
        '--from-literal=tls.crt=x',
      ]);
      expect(tls.code).not.toBe(0);
      expect(tls.stderr).toContain('Secret "tls" is invalid: data[tls.key]: Required value');

      // A typed secret with its required, JSON-checked key.
      expect(
        await ok([
          'create',
          'secret',
          'docker-registry',
          'reg',
          '--docker-server=r.example.com',
          '--docker-username=u',
          '--docker-password=p',
        ]),
      ).toBe('secret/reg created\n');
      const reg = await getJson('secret', 'reg');
      expect(reg.type).toBe('kubernetes.io/dockerconfigjson');
      expect(JSON.parse(Buffer.from(reg.data?.['.dockerconfigjson'] ?? '', 'base64').toString())).toMatchObject({
        auths: { 'r.example.com': { username: 'u', password: 'p' } },
      });
      expect(
        await ok(['get', 'secrets', '--field-selector', 'type=kubernetes.io/dockerconfigjson', '-o', 'name']),
      ).toBe('secret/reg\n');
      expect(await ok(['delete', 'secret', 'reg'])).toBe('secret "reg" deleted\n');

      expect(await ok(['get', 'secrets', '--field-selector', 'type=Opaque', '-o', 'name'])).toBe('secret/s\n');
      expect(await ok(['delete', 'secret', 's'])).toBe('secret "s" deleted\n');
    });

    it('serviceaccount: create, get, describe, patch, apply, delete', async () => {
      expect(await ok(['create', 'serviceaccount', 'sa1'])).toBe('serviceaccount/sa1 created\n');
      const table = (await ok(['get', 'sa', 'sa1'])).split('\n');
      expect(table[0]).toMatch(/^NAME\s+SECRETS\s+AGE$/);
      expect(table[1]).toMatch(/^sa1\s+0\s+\d+s$/);

      const described = await ok(['describe', 'serviceaccount', 'sa1']);
      expect(described).toMatch(/^Name:\s+sa1$/m);
      expect(described).toMatch(/^Image pull secrets:\s+<none>$/m);

      expect(
        await ok(['patch', 'sa', 'sa1', '-p', '{"secrets":[{"name":"tok"}],"imagePullSecrets":[{"name":"pull"}]}']),
      ).toBe('serviceaccount/sa1 patched\n');
      const patched = await getJson('sa', 'sa1');
      expect([patched.secrets, (patched as { imagePullSecrets?: unknown }).imagePullSecrets]).toEqual([
        [{ name: 'tok' }],
        [{ name: 'pull' }],
      ]);
      expect((await ok(['get', 'sa', 'sa1'])).split('\n')[1]).toMatch(/^sa1\s+1\s+\d+s$/);

      const applied = JSON.stringify({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'sa1', labels: { app: 'x' } },
      });
      // Created without apply: kubectl warns and patches, as against kube.
      const r = await kubectl(['apply', '-f', '-'], applied);
      expect([r.code, r.stdout]).toEqual([0, 'serviceaccount/sa1 configured\n']);
      expect(r.stderr).toMatch(
        /^Warning: resource serviceaccounts\/sa1 is missing the kubectl.kubernetes.io\/last-applied-configuration annotation/,
      );
      expect((await getJson('sa', 'sa1')).metadata.labels).toEqual({ app: 'x' });

      expect(await ok(['delete', 'sa', 'sa1'])).toBe('serviceaccount "sa1" deleted\n');
    });

    it('lease: apply from YAML, get, describe, patch, delete; a bad one refused', async () => {
      expect(await ok(['apply', '-f', '-'], LEASE)).toBe('lease.coordination.k8s.io/leader created\n');
      const lease = parseYaml(await ok(['get', 'lease', 'leader', '-o', 'yaml'])) as Obj;
      expect(lease.spec).toEqual({
        holderIdentity: 'node-a',
        leaseDurationSeconds: 15,
        acquireTime: '2024-05-01T10:00:00.000000Z',
        renewTime: '2024-05-01T10:00:05.123456Z',
        leaseTransitions: 1,
      });
      const table = (await ok(['get', 'leases'])).split('\n');
      expect(table[0]).toMatch(/^NAME\s+HOLDER\s+AGE$/);
      expect(table[1]).toMatch(/^leader\s+node-a\s+\d+s$/);

      const described = await ok(['describe', 'lease', 'leader']);
      expect(described).toMatch(/^Name:\s+leader$/m);
      expect(described).toMatch(/^\s+Holder Identity:\s+node-a$/m);

      expect(
        await ok([
          'patch',
          'lease',
          'leader',
          '--type=merge',
          '-p',
          '{"spec":{"holderIdentity":"node-b","leaseTransitions":2}}',
        ]),
      ).toBe('lease.coordination.k8s.io/leader patched\n');
      expect((await ok(['get', 'lease', 'leader'])).split('\n')[1]).toMatch(/^leader\s+node-b\s+\d+s$/);
      expect(await ok(['apply', '-f', '-'], LEASE.replace('node-a', 'node-c'))).toBe(
        'lease.coordination.k8s.io/leader configured\n',
      );
      expect((await getJson('lease', 'leader')).spec?.['holderIdentity']).toBe('node-c');

      const bad = await kubectl(
        ['apply', '-f', '-'],
        LEASE.replace('name: leader', 'name: bad').replace('leaseDurationSeconds: 15', 'leaseDurationSeconds: -1'),
      );
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0');

      expect(await ok(['delete', 'lease', 'leader'])).toBe('lease.coordination.k8s.io "leader" deleted\n');
    });

    it('api-resources lists them with their short names', async () => {
      const out = await ok(['api-resources', '--namespaced=true', '--no-headers']);
      expect(out).toMatch(/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
      expect(out).toMatch(/^secrets\s+v1\s+true\s+Secret$/m);
      expect(out).toMatch(/^serviceaccounts\s+sa\s+v1\s+true\s+ServiceAccount$/m);
      expect(out).toMatch(/^leases\s+coordination\.k8s\.io\/v1\s+true\s+Lease$/m);
    });
  });
}
