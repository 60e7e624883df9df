// `kubectl explain --output=plaintext-openapiv2` with the real kubectl 1.27 and 1.33 against the
// real binary: kubectl asks GET /openapi/v2 for gnostic's protobuf (Accept
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf) and looks the kind up in its
// definitions, for built-in kinds and for a CRD's kind alike. Also the handler's caching headers
// over the wire: the ETag shared with the JSON form, Vary: Accept, 304 on If-None-Match.
//
// One server for the file, shared by both versions, each with its own kubeconfig and cache
// (test/helpers/kubectl.ts kubectlScope) and its own Widget CRD, deleted after its tests so that
// the other version's `widget` names one kind.
//
// kubectl comes from test/helpers/kubectl.ts findKubectl; a version not found FAILS its first test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { kubectlScope, kubectlsFor } from '../helpers/kubectl.js';
import { eventually } from '../helpers/eventually.js';

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = kubectlsFor(VERSIONS, 'explain, OpenAPI v2');
const KUBECTL_PROTO = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
});
afterAll(async () => {
  await server?.stop();
});

const folded = (s: string): string => s.replace(/\s+/g, ' ');

const widgetCrd = (group: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A Widget is a thing explained from the v2 document.
        properties:
          spec:
            type: object
            description: What the widget should be.
            properties:
              size: {type: integer, description: How big the widget is.}
              colors: {type: array, items: {type: string}}
`;

for (const version of VERSIONS) {
  const binary = KUBECTLS.get(version) ?? '';

  describe.skipIf(binary === '')(`kubectl ${version} explain --output=plaintext-openapiv2`, () => {
    const scope = kubectlScope(binary, version, () => server);
    const { kubectl, ok } = scope;
    const group = `v2-${scope.suffix}.example.com`;
    const explain = async (...args: string[]): Promise<string> => {
      const r = await kubectl(['explain', '--output=plaintext-openapiv2', ...args]);
      if (r.code !== 0) throw new Error(`kubectl explain ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return r.stdout;
    };

    afterAll(async () => {
      await kubectl(['delete', 'crd', `widgets.${group}`, '--ignore-not-found']);
    });

    it("configmap: kube's description and fields from the v2 document", async () => {
      const out = await explain('configmap');
      expect(out).toMatch(/^KIND:\s+ConfigMap$/m);
      expect(out).toMatch(/^VERSION:\s+v1$/m);
      expect(folded(out)).toContain('DESCRIPTION: ConfigMap holds configuration data for pods to consume.');
      expect(out).toMatch(/^\s+binaryData\s+<map\[string\]string>$/m);
      expect(out).toMatch(/^\s+data\s+<map\[string\]string>$/m);
      expect(out).toMatch(/^\s+immutable\s+<boolean>$/m);
      expect(out).toMatch(/^\s+metadata\s+<Object>$/m);
    });

    it('configmap.metadata.labels: a field reached through a $ref', async () => {
      const out = await explain('configmap.metadata.labels');
      expect(out).toMatch(/^FIELD:\s+labels\s+<map\[string\]string>$/m);
    });

    it("a CRD's kind and its nested fields", async () => {
      expect(await ok(['apply', '-f', '-'], widgetCrd(group))).toBe(
        `customresourcedefinition.apiextensions.k8s.io/widgets.${group} created\n`,
      );
      const out = await eventually('widget explained', async () => {
        const r = await kubectl(['explain', '--output=plaintext-openapiv2', 'widget']);
        return r.code === 0 ? r.stdout : undefined;
      });
      expect(out).toMatch(/^KIND:\s+Widget$/m);
      expect(out).toMatch(new RegExp(`^VERSION:\\s+${group.replaceAll('.', '\\.')}/v1$`, 'm'));
      expect(folded(out)).toContain('A Widget is a thing explained from the v2 document.');
      expect(out).toMatch(/^\s+spec\s+<Object>$/m);
      const size = await explain('widget.spec.size');
      expect(size).toMatch(/^FIELD:\s+size\s+<integer>$/m);
      expect(folded(size)).toContain('How big the widget is.');
      expect(await explain('widget.spec.colors')).toMatch(/^FIELD:\s+colors\s+<\[\]string>$/m);
    });

    it('service.spec.ports: a list of a named definition, from the v2 document', async () => {
      const out = await explain('service.spec.ports');
      expect(out).toMatch(/^KIND:\s+Service$/m);
      expect(out).toMatch(/^(RESOURCE|FIELD):\s+ports\s+<\[\]Object>$/m);
      expect(folded(out)).toContain("ServicePort contains information on service's port.");
      expect(out).toMatch(/^\s+port\s+<integer> -required-$/m);
      expect(out).toMatch(/^\s+targetPort\s+<string>$/m);
    });

    it('an unknown field is an error naming it', async () => {
      const r = await kubectl(['explain', '--output=plaintext-openapiv2', 'configmap.nothing']);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('nothing');
    });
  });
}

describe('GET /openapi/v2 over the wire', () => {
  it('protobuf and JSON share one ETag; a matching If-None-Match is a 304', async () => {
    const proto = await server.request('/openapi/v2', { headers: { Accept: KUBECTL_PROTO } });
    const json = await server.request('/openapi/v2', { headers: { Accept: 'application/json' } });
    expect(proto.status).toBe(200);
    expect(proto.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(proto.headers['vary']).toBe('Accept');
    expect(proto.headers['etag']).toMatch(/^"[0-9A-F]{128}"$/);
    expect(json.headers['etag']).toBe(proto.headers['etag']);
    const again = await server.request('/openapi/v2', {
      headers: { Accept: KUBECTL_PROTO, 'If-None-Match': proto.headers['etag'] as string },
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });
});
