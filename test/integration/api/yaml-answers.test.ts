// Answers in YAML (`Accept: application/yaml`), as kube-apiserver serves them: its serializer set
// has application/yaml for every object, list and Status (sigs.k8s.io/yaml: the JSON marshalled,
// then written by go-yaml v2 with keys sorted and strings quoted when they would read back as
// something else), negotiated by the same rules as JSON and protobuf; a watch has no YAML stream
// serializer, so a watch asking for YAML is a 406.
import * as k8s from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { encodeYaml } from '../../../server/codecs/yaml-encode.js';
import { eventually } from '../../helpers/eventually.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const YAML = 'application/yaml';
const CMS = '/api/v1/namespaces/default/configmaps';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/yaml.example.com/v1/namespaces/default/widgets';

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
  const crd = await call('POST', CRDS, {
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.yaml.example.com' },
      spec: {
        group: 'yaml.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
              },
            },
            additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
          },
        ],
      },
    },
  });
  expect(crd.status).toBe(201);
  await eventually('widgets served', async () => ((await call('GET', WIDGETS)).status === 200 ? true : undefined));
});
afterAll(async () => server?.close());

/** The YAML answer for a path, checked to be YAML, with the same document's JSON. */
async function both(path: string, accept = YAML): Promise<{ text: string; json: Json }> {
  const y = await call('GET', path, { accept });
  expect(y.status).toBe(200);
  expect(y.headers['content-type']).toBe(YAML);
  const j = await call('GET', path);
  expect(j.headers['content-type']).toBe('application/json');
  return { text: y.text, json: j.json };
}

describe('objects in YAML', () => {
  it('a ConfigMap: keys sorted, strings that read as numbers, booleans or timestamps quoted, multi-line literal', async () => {
    const created = await call('POST', CMS, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cm1', labels: { app: 'x' } },
        data: {
          port: '8080',
          enabled: 'true',
          y: 'no',
          empty: '',
          script: 'echo hi\necho there\n',
          plain: 'hello world',
        },
      },
    });
    expect(created.status).toBe(201);
    const { text, json } = await both(`${CMS}/cm1`);
    const meta = json.metadata;
    expect(
      text.startsWith(
        [
          'apiVersion: v1',
          'data:',
          '  empty: ""',
          '  enabled: "true"',
          '  plain: hello world',
          '  port: "8080"',
          '  script: |',
          '    echo hi',
          '    echo there',
          '  "y": "no"',
          'kind: ConfigMap',
          'metadata:',
          `  creationTimestamp: "${meta.creationTimestamp}"`,
          '  labels:',
          '    app: x',
          '  managedFields:',
          '  - apiVersion: v1',
        ].join('\n') + '\n',
      ),
    ).toBe(true);
    expect(text).toContain(
      `\n  name: cm1\n  namespace: default\n  resourceVersion: "${meta.resourceVersion}"\n  uid: ${meta.uid}\n`,
    );
    expect(text.endsWith(`uid: ${meta.uid}\n`)).toBe(true);
    // It reads back as the same document.
    expect(parseYaml(text)).toEqual(json);
  });

  it('a custom resource: numbers as go-yaml writes them, natural key order, nested sequences not indented', async () => {
    const created = await call('POST', WIDGETS, {
      body: {
        apiVersion: 'yaml.example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: {
          size: 3,
          ratio: 0.5,
          big: 1234567.5,
          version: '1.10',
          on: 'on',
          a10: 1,
          a9: 2,
          none: null,
          tags: [],
          nested: { list: [1, { b: 'x', a: [] }], empty: {} },
        },
      },
    });
    expect(created.status).toBe(201);
    const { text, json } = await both(`${WIDGETS}/w1`);
    const spec = text.slice(text.indexOf('\nspec:\n') + 1);
    expect(spec).toBe(
      [
        'spec:',
        '  a9: 2',
        '  a10: 1',
        '  big: 1.2345675e+06',
        '  nested:',
        '    empty: {}',
        '    list:',
        '    - 1',
        '    - a: []',
        '      b: x',
        '  none: null',
        '  "on": "on"',
        '  ratio: 0.5',
        '  size: 3',
        '  tags: []',
        '  version: "1.10"',
        '',
      ].join('\n'),
    );
    expect(text.startsWith('apiVersion: yaml.example.com/v1\nkind: Widget\nmetadata:\n')).toBe(true);
    expect(parseYaml(text)).toEqual(json);
  });

  it('a list, and an empty one', async () => {
    const { text, json } = await both(WIDGETS);
    expect(
      text.startsWith(
        'apiVersion: yaml.example.com/v1\nitems:\n- apiVersion: yaml.example.com/v1\n  kind: Widget\n  metadata:\n',
      ),
    ).toBe(true);
    expect(
      text.endsWith(
        `kind: WidgetList\nmetadata:\n  continue: ""\n  resourceVersion: "${json.metadata.resourceVersion}"\n`,
      ) || text.endsWith(`kind: WidgetList\nmetadata:\n  resourceVersion: "${json.metadata.resourceVersion}"\n`),
    ).toBe(true);
    expect(parseYaml(text)).toEqual(json);
    const empty = await both('/api/v1/namespaces/kube-public/configmaps?labelSelector=none%3Dnone');
    expect(empty.text).toBe(
      `apiVersion: v1\nitems: []\nkind: ConfigMapList\nmetadata:\n  resourceVersion: "${empty.json.metadata.resourceVersion}"\n`,
    );
  });

  it('a list of hundreds of objects: chunked, a piece per turn of the event loop, the same text as in one piece', async () => {
    const ns = 'yaml-big';
    expect(
      (
        await call('POST', '/api/v1/namespaces', {
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
        })
      ).status,
    ).toBe(201);
    for (let i = 0; i < 300; i++) {
      const body = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}` },
        data: { text: `line ${i} `.repeat(60) },
      };
      expect((await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body })).status).toBe(201);
    }
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const { text, json } = await both(path);
    const y = await call('GET', path, { accept: YAML });
    expect(y.headers['transfer-encoding']).toBe('chunked');
    expect(y.headers['content-length']).toBeUndefined();
    expect(text.length).toBeGreaterThan(4 * 64 * 1024);
    expect(json.items).toHaveLength(300);
    expect(text).toBe(encodeYaml(json));
    // A short answer keeps its Content-Length.
    const one = await call('GET', `${path}/cm-0`, { accept: YAML });
    expect(one.headers['content-length']).toBe(String(Buffer.byteLength(one.text)));
  });

  it('a 404 Status', async () => {
    const r = await call('GET', `${CMS}/nope`, { accept: YAML });
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toBe(YAML);
    expect(r.text).toBe(
      [
        'apiVersion: v1',
        'code: 404',
        'details:',
        '  kind: configmaps',
        '  name: nope',
        'kind: Status',
        'message: configmaps "nope" not found',
        'metadata: {}',
        'reason: NotFound',
        'status: Failure',
        '',
      ].join('\n'),
    );
  });

  it('a create answered in YAML', async () => {
    const r = await call('POST', CMS, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm2' } },
      accept: YAML,
    });
    expect(r.status).toBe(201);
    expect(r.headers['content-type']).toBe(YAML);
    expect(parseYaml(r.text)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'cm2' } });
  });

  it('a Table and PartialObjectMetadata can be asked for in YAML', async () => {
    const table = await call('GET', WIDGETS, { accept: 'application/yaml;as=Table;g=meta.k8s.io;v=v1' });
    expect(table.headers['content-type']).toBe(YAML);
    expect(parseYaml(table.text)).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      rows: [{ cells: expect.arrayContaining(['w1', 3]) }],
    });
    const meta = await call('GET', `${WIDGETS}/w1`, {
      accept: 'application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    });
    expect(meta.headers['content-type']).toBe(YAML);
    expect(parseYaml(meta.text)).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'w1' } });
    expect(meta.text).not.toMatch(/^spec:/m);
  });
});

describe('negotiation', () => {
  it.each([
    ['application/yaml', YAML],
    ['application/json;q=0.5, application/yaml', YAML],
    ['application/yaml;q=0.5, application/json', 'application/json'],
    ['text/plain, application/yaml', YAML],
    ['application/yaml, application/json', YAML],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['application/vnd.kubernetes.protobuf, application/yaml', YAML], // custom resources have no protobuf
    ['application/yaml;stream=watch, application/json', 'application/json'], // YAML has no stream serializer
  ])('Accept %s answers %s', async (accept, want) => {
    const r = await call('GET', `${WIDGETS}/w1`, { accept });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(want);
  });

  it('a built-in kind prefers protobuf when it comes first', async () => {
    const r = await call('GET', `${CMS}/cm1`, { accept: 'application/vnd.kubernetes.protobuf, application/yaml' });
    expect(r.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
  });

  it('nothing acceptable: a 406 listing the served media types', async () => {
    const r = await call('GET', `${CMS}/cm1`, { accept: 'text/html' });
    expect(r.status).toBe(406);
    expect(r.json).toMatchObject({
      message:
        'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
  });

  it('a watch in YAML is not served: 406 listing the streaming media types, itself in YAML', async () => {
    for (const accept of ['application/yaml', 'application/yaml, application/json']) {
      const r = await call('GET', `${WIDGETS}?watch=1&timeoutSeconds=1`, { accept });
      expect(r.status).toBe(406);
      expect(r.headers['content-type']).toBe(YAML);
      expect(parseYaml(r.text)).toMatchObject({
        kind: 'Status',
        code: 406,
        reason: 'NotAcceptable',
        message:
          'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
      });
    }
  });

  it('a watch whose YAML clause asks for a stream falls through to JSON', async () => {
    const r = await call('GET', `${WIDGETS}?watch=1&timeoutSeconds=1`, {
      accept: 'application/yaml;stream=watch, application/json',
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.text.split('\n')[0]!)).toMatchObject({ type: 'ADDED', object: { kind: 'Widget' } });
  });
});

describe('@kubernetes/client-node', () => {
  const client = (): k8s.CoreV1Api => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(server.kubeconfig);
    return kc.makeApiClient(k8s.CoreV1Api);
  };

  it('asks for JSON (Accept: application/json, */*;q=0.8) and gets it', async () => {
    const cm = await client().readNamespacedConfigMap({ name: 'cm1', namespace: 'default' });
    expect(cm.data).toMatchObject({ port: '8080', y: 'no' });
  });

  it('cannot read YAML: with its own setHeaderOptions asking for it, its ObjectSerializer refuses the answer', async () => {
    await expect(
      client().readNamespacedConfigMap({ name: 'cm1', namespace: 'default' }, k8s.setHeaderOptions('Accept', YAML)),
    ).rejects.toThrow('The mediaType application/yaml is not supported by ObjectSerializer.parse.');
  });
});
