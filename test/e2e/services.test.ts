// Services through kubectl's typed client and its patches, with the real kubectl 1.27 and 1.33
// against the real binary: `kubectl create service` (protobuf bodies and replies from 1.32 on),
// strategic merge patch of spec.ports (merged on port) and server-side apply (a list-map keyed by
// port and protocol, protocol defaulting to TCP).
//
// One server for the file, shared by both versions, each in a namespace of its own
// (test/helpers/kubectl.ts kubectlScope).
//
// kubectl comes from test/helpers/kubectl.ts findKubectl; a version not found FAILS its first test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { kubectlScope, kubectlsFor } from '../helpers/kubectl.js';

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = kubectlsFor(VERSIONS, 'services');

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
});
afterAll(async () => {
  await server?.stop();
});

interface Service {
  metadata: {
    managedFields?: Array<{
      manager: string;
      operation: string;
      fieldsV1?: { 'f:spec'?: { 'f:ports'?: Record<string, unknown> } };
    }>;
  };
  spec: { ports: Array<Record<string, unknown>> };
}

for (const version of VERSIONS) {
  const binary = KUBECTLS.get(version) ?? '';

  describe.skipIf(binary === '')(`kubectl ${version}: services`, () => {
    const { kubectl, ok } = kubectlScope(binary, version, () => server);
    // A node port is the cluster's, not a namespace's: each version its own (30127, 30133).
    const nodePort = 30000 + Number(version.replace('.', ''));
    const get = async (name: string): Promise<Service> =>
      JSON.parse(await ok(['get', 'service', name, '-o', 'json'])) as Service;

    it('create service clusterip: the typed client (protobuf from 1.32) creates it, targetPort an int', async () => {
      expect(await ok(['create', 'service', 'clusterip', 'web', '--tcp=80:8080'])).toBe('service/web created\n');
      const web = await get('web');
      expect(web.spec.ports).toEqual([{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }]);
      expect(await ok(['get', 'service', 'web', '--no-headers'])).toMatch(
        /^web\s+ClusterIP\s+<none>\s+<none>\s+80\/TCP\s+\d+s\n$/,
      );
    });

    it('create service nodeport with a named target port: targetPort a string, the node port kept', async () => {
      expect(await ok(['create', 'service', 'nodeport', 'np', '--tcp=8081:http', `--node-port=${nodePort}`])).toBe(
        'service/np created\n',
      );
      expect((await get('np')).spec.ports).toEqual([
        { name: '8081-http', port: 8081, protocol: 'TCP', targetPort: 'http', nodePort },
      ]);
    });

    it('strategic merge patch merges spec.ports on port, leaving both ports', async () => {
      // kube's validation wants every port named once there are two: the patch merged, so refused.
      const nameless = await kubectl([
        'patch',
        'service',
        'web',
        '-p',
        '{"spec":{"ports":[{"port":443,"targetPort":8443}]}}',
      ]);
      expect(nameless.code).not.toBe(0);
      expect(nameless.stderr).toContain('spec.ports[0].name: Required value');
      expect(
        await ok([
          'patch',
          'service',
          'web',
          '-p',
          '{"spec":{"ports":[{"name":"https","port":443,"targetPort":8443}]}}',
        ]),
      ).toBe('service/web patched\n');
      expect((await get('web')).spec.ports).toEqual([
        { name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 },
        { name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 },
      ]);
      // A port named by the patch is merged into, not duplicated; merged items keep the live order.
      expect(await ok(['patch', 'service', 'web', '-p', '{"spec":{"ports":[{"port":80,"targetPort":9090}]}}'])).toBe(
        'service/web patched\n',
      );
      expect((await get('web')).spec.ports.map((p) => [p['port'], p['targetPort']])).toEqual([
        [443, 8443],
        [80, 9090],
      ]);
    });

    it('server-side apply: ports are a list-map on (port, protocol), protocol defaulting to TCP', async () => {
      const manifest = (ports: string): string =>
        `apiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec:\n  ports:\n${ports}`;
      expect(
        await ok(['apply', '--server-side', '--field-manager=a', '-f', '-'], manifest('  - {name: http, port: 80}\n')),
      ).toBe('service/api serverside-applied\n');
      // The same port again with a target: one port, owned by its defaulted key.
      expect(
        await ok(
          ['apply', '--server-side', '--field-manager=a', '-f', '-'],
          manifest('  - {name: http, port: 80, targetPort: 8080}\n'),
        ),
      ).toBe('service/api serverside-applied\n');
      // Another manager's port joins it rather than replacing the list.
      expect(
        await ok(
          ['apply', '--server-side', '--field-manager=b', '-f', '-'],
          manifest('  - {name: https, port: 443, protocol: TCP}\n'),
        ),
      ).toBe('service/api serverside-applied\n');
      const api = JSON.parse(await ok(['get', 'service', 'api', '-o', 'json', '--show-managed-fields'])) as Service;
      expect(api.spec.ports).toEqual([
        { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 },
        { name: 'https', port: 443, protocol: 'TCP', targetPort: 443 },
      ]);
      const owned = (manager: string): string[] =>
        Object.keys(
          api.metadata.managedFields?.find((m) => m.manager === manager && m.operation === 'Apply')?.fieldsV1?.[
            'f:spec'
          ]?.['f:ports'] ?? {},
        );
      expect(owned('a')).toEqual(['k:{"port":80,"protocol":"TCP"}']);
      expect(owned('b')).toEqual(['k:{"port":443,"protocol":"TCP"}']);
    });
  });
}
