// Codes and texts kube-apiserver answers where clients (kubectl first) look at them, through the
// built binary: a resourceVersion "0" on a PUT (no precondition), bodies the decoder refuses
// (transformDecodeError's 400s), a patch that moves an object's namespace, metadata a patch gives
// the wrong shape, and the field paths of a status write that breaks the status schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { kubectlRunner, kubectlsFor } from '../helpers/kubectl.js';
import { eventually } from '../helpers/eventually.js';
import { CRDS_PATH, failureStatus } from '../helpers/crds.js';

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = kubectlsFor(VERSIONS, 'replace with resourceVersion "0"');

const GROUP = 'codes.example.com';
const HOSTS = `/apis/${GROUP}/v1/namespaces/default/hosts`;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

let server: ServerProcess;

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const text =
    body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const r = await server.request(path, {
    method,
    headers: { 'content-type': contentType, accept: 'application/json' },
    ...(text !== undefined ? { body: text as string } : {}),
  });
  return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
}

const configMap = (name: string, metadata: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...metadata },
  data: { a: 'b' },
});
const host = (name: string, metadata: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Host',
  metadata: { name, ...metadata },
  spec: { size: 1 },
});

beforeAll(async () => {
  server = await startServerProcess();
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `hosts.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'hosts', singular: 'host', kind: 'Host' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'integer' } } },
                status: {
                  type: 'object',
                  properties: {
                    addresses: {
                      type: 'array',
                      items: { type: 'object', properties: { value: { type: 'string', format: 'ipv4' } } },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
  expect((await call('POST', CRDS_PATH, crd)).status).toBe(201);
  await eventually('hosts served', async () => ((await call('GET', HOSTS)).status === 200 ? true : undefined));
});
afterAll(async () => {
  await server?.stop();
});

describe('a PUT whose resourceVersion is "0"', () => {
  it('is no precondition for a kind that allows unconditional updates: 200 for a ConfigMap and a Namespace', async () => {
    expect((await call('POST', CONFIGMAPS, configMap('rv-zero'))).status).toBe(201);
    for (const rv of ['0', '00']) {
      const r = await call('PUT', `${CONFIGMAPS}/rv-zero`, {
        ...configMap('rv-zero', { resourceVersion: rv }),
        data: { a: rv },
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json['data']).toEqual({ a: rv });
    }
    expect(
      (await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'rv-zero' } }))
        .status,
    ).toBe(201);
    const ns = await call('PUT', '/api/v1/namespaces/rv-zero', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'rv-zero', resourceVersion: '0', labels: { x: 'y' } },
    });
    expect(ns.status, JSON.stringify(ns.json)).toBe(200);
    expect((ns.json['metadata'] as Record<string, unknown>)['labels']).toMatchObject({ x: 'y' });
  });

  it('is a missing resourceVersion for a custom resource, which needs one: 422', async () => {
    expect((await call('POST', HOSTS, host('rv-zero'))).status).toBe(201);
    const r = await call('PUT', `${HOSTS}/rv-zero`, host('rv-zero', { resourceVersion: '0' }));
    expect(r.json).toEqual(
      failureStatus(
        422,
        'Invalid',
        `hosts.${GROUP} "rv-zero" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
        {
          name: 'rv-zero',
          group: GROUP,
          kind: 'hosts',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: 0x0: must be specified for an update',
              field: 'metadata.resourceVersion',
            },
          ],
        },
      ),
    );
  });

  for (const version of VERSIONS) {
    const binary = KUBECTLS.get(version) ?? '';
    it.skipIf(binary === '')(`kubectl ${version} replace of a manifest with resourceVersion "0" succeeds`, async () => {
      const { kubectl } = kubectlRunner(binary, () => server.kubeconfigPath);
      const name = `replaced-${version.replace('.', '-')}`;
      expect((await call('POST', CONFIGMAPS, configMap(name))).status).toBe(201);
      const manifest = JSON.stringify({
        ...configMap(name, { namespace: 'default', resourceVersion: '0' }),
        data: { a: 'replaced' },
      });
      const r = await kubectl(['replace', '-f', '-'], manifest);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, `configmap/${name} replaced\n`, '']);
      expect((await call('GET', `${CONFIGMAPS}/${name}`)).json['data']).toEqual({ a: 'replaced' });
    });
  }
});

describe('managedFields that is not a list of objects', () => {
  const cannot = (kind: string, what: string): string =>
    `${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${what}`;

  it('is a 400 decode error for a built-in kind, on create and update', async () => {
    const cases: Array<[unknown, string]> = [
      ['x', 'string into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry'],
      [{}, 'object into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry'],
      [[1], 'number into Go struct field ObjectMeta.metadata.managedFields of type v1.ManagedFieldsEntry'],
      [[['a']], 'array into Go struct field ObjectMeta.metadata.managedFields of type v1.ManagedFieldsEntry'],
    ];
    for (const [managedFields, what] of cases) {
      expect((await call('POST', CONFIGMAPS, configMap('mf', { managedFields }))).json).toEqual(
        failureStatus(400, 'BadRequest', cannot('ConfigMap', what)),
      );
    }
    expect((await call('POST', CONFIGMAPS, configMap('mf-put'))).status).toBe(201);
    const put = await call('PUT', `${CONFIGMAPS}/mf-put`, configMap('mf-put', { managedFields: true }));
    expect(put.json).toEqual(
      failureStatus(
        400,
        'BadRequest',
        cannot(
          'ConfigMap',
          'bool into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry',
        ),
      ),
    );
  });

  it('names the field from ObjectMeta for a custom resource, whose metadata decodes alone', async () => {
    const r = await call('POST', HOSTS, host('mf', { managedFields: 'x' }));
    expect(r.json).toEqual(
      failureStatus(
        400,
        'BadRequest',
        cannot('Host', 'string into Go struct field ObjectMeta.managedFields of type []v1.ManagedFieldsEntry'),
      ),
    );
  });

  it('yields to a timestamp that does not parse, which ends decoding', async () => {
    const r = await call('POST', CONFIGMAPS, configMap('mf', { managedFields: 'x', creationTimestamp: 'soon' }));
    expect(r.json['message']).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "soon" as "2006-01-02T15:04:05Z07:00": cannot parse "soon" as "2006"',
    );
  });
});

describe('bodies the decoder refuses before it knows the kind', () => {
  it("YAML sent as JSON: meta.Interpret's error and a summary of the body", async () => {
    const yaml = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: y\n';
    const r = await call('POST', '/api/v1/namespaces', yaml);
    const summary = `${Buffer.from(yaml).subarray(0, 30).toString('hex')} ...`;
    expect(r.json).toEqual(
      failureStatus(
        400,
        'BadRequest',
        `the object provided is unrecognized (must be of type Namespace): couldn't get version/kind; json parse error: invalid character 'a' looking for beginning of value (${summary})`,
      ),
    );
    const cases: Array<[string, string]> = [
      ['{"kind":', 'unexpected end of JSON input ({"kind":)'],
      [
        '[1]',
        `json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)`,
      ],
      [
        '{"apiVersion":"v1","kind":7}',
        'json: cannot unmarshal number into Go struct field .kind of type string ({"apiVersion":"v1","kind":7})',
      ],
    ];
    for (const [body, tail] of cases) {
      const answer = await call('POST', '/api/v1/namespaces', body);
      expect(answer.json['message']).toBe(
        `the object provided is unrecognized (must be of type Namespace): couldn't get version/kind; json parse error: ${tail}`,
      );
    }
    const cr = await call('POST', HOSTS, '{"apiVersion":');
    expect(cr.json['message']).toBe(
      'the object provided is unrecognized (must be of type Host): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":)',
    );
  });

  it('another built-in kind: the codec cannot convert it', async () => {
    const r = await call('POST', '/api/v1/namespaces', configMap('cm'));
    expect(r.json).toEqual(
      failureStatus(
        400,
        'BadRequest',
        'ConfigMap in version "v1" cannot be handled as a Namespace: converting (v1.ConfigMap) to (core.Namespace): unknown conversion',
      ),
    );
  });

  it("protobuf with field number 0: gogo's illegal tag, in the envelope or in the object", async () => {
    const field = (n: number, bytes: Buffer): Buffer =>
      Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes]);
    const typeMeta = field(1, Buffer.concat([field(1, Buffer.from('v1')), field(2, Buffer.from('Namespace'))]));
    const namespace = (meta: Buffer): Buffer => field(2, field(1, meta));
    const magic = Buffer.from('k8s\0', 'latin1');
    const outer = Buffer.concat([magic, typeMeta, namespace(field(1, Buffer.from('pb-outer'))), Buffer.from([0, 0])]);
    const inner = Buffer.concat([
      magic,
      typeMeta,
      namespace(Buffer.concat([field(1, Buffer.from('pb-inner')), Buffer.from([2, 0])])),
    ]);
    const post = async (body: Buffer): Promise<Answer> => {
      const r = await server.request('/api/v1/namespaces', {
        method: 'POST',
        headers: { 'content-type': PROTOBUF, accept: 'application/json' },
        body: body as unknown as string,
      });
      return { status: r.status, json: JSON.parse(r.body) as Record<string, unknown> };
    };
    expect((await post(outer)).json).toEqual(
      failureStatus(
        400,
        'BadRequest',
        `the object provided is unrecognized (must be of type Namespace): proto: Unknown: illegal tag 0 (wire type 0) (${outer.subarray(0, 30).toString('hex')} ...)`,
      ),
    );
    expect((await post(inner)).json).toEqual(
      failureStatus(
        400,
        'BadRequest',
        'Namespace in version "v1" cannot be handled as a Namespace: proto: ObjectMeta: illegal tag 0 (wire type 2)',
      ),
    );
  });
});

describe('patches', () => {
  it("a merge patch that moves metadata.namespace: checkName's 400", async () => {
    expect((await call('POST', CONFIGMAPS, configMap('moved'))).status).toBe(201);
    for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      const r = await call('PATCH', `${CONFIGMAPS}/moved`, { metadata: { namespace: 'elsewhere' } }, type);
      expect(r.json).toEqual(
        failureStatus(
          400,
          'BadRequest',
          'the namespace of the provided object does not match the namespace sent on the request',
        ),
      );
    }
  });

  it("labels that are a string: the converter's words for a strategic merge patch, Go's JSON for a merge patch", async () => {
    expect((await call('POST', CONFIGMAPS, configMap('labelled'))).status).toBe(201);
    const smp = await call(
      'PATCH',
      `${CONFIGMAPS}/labelled`,
      { metadata: { labels: 'invalid' } },
      'application/strategic-merge-patch+json',
    );
    expect(smp.json).toEqual(
      // errors.NewInvalid with an empty GroupKind and name, as the patch handler calls it.
      failureStatus(
        422,
        'Invalid',
        ' "" is invalid: patch: Invalid value: "map[metadata:map[labels:invalid]]": cannot restore map from string',
        {
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: "map[metadata:map[labels:invalid]]": cannot restore map from string',
              field: 'patch',
            },
          ],
        },
      ),
    );
    const others = await call(
      'PATCH',
      `${CONFIGMAPS}/labelled`,
      { data: { n: 1.5 }, metadata: { finalizers: 'x', annotations: { a: 2 } } },
      'application/strategic-merge-patch+json',
    );
    expect(others.json['message']).toBe(
      ' "" is invalid: patch: Invalid value: "map[data:map[n:1.5] metadata:map[annotations:map[a:2] finalizers:x]]": cannot convert int64 to string',
    );
    const merge = await call(
      'PATCH',
      `${CONFIGMAPS}/labelled`,
      { metadata: { labels: 'invalid' } },
      'application/merge-patch+json',
    );
    expect(merge.status).toBe(422);
    expect(merge.json['message']).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal string into Go struct field ObjectMeta\.metadata\.labels of type map\[string\]string$/,
    );
    const cr = await call('POST', HOSTS, host('labelled'));
    expect(cr.status).toBe(201);
    const crMerge = await call(
      'PATCH',
      `${HOSTS}/labelled`,
      { metadata: { labels: 'invalid' } },
      'application/merge-patch+json',
    );
    expect(crMerge.json['message']).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal string into Go struct field ObjectMeta\.labels of type map\[string\]string$/,
    );
  });
});

describe('a status write that breaks the status schema', () => {
  it('is checked against the status schema: its message names the path from status, its field keeps status.', async () => {
    const created = await call('POST', HOSTS, host('addressed'));
    expect(created.status).toBe(201);
    const bad = { ...created.json, status: { addresses: [{ value: 'not-an-ip' }] } };
    const detail = 'Invalid value: "not-an-ip": addresses[0].value in body must be of type ipv4: "not-an-ip"';
    const want = failureStatus(
      422,
      'Invalid',
      `Host.${GROUP} "addressed" is invalid: status.addresses[0].value: ${detail}`,
      {
        name: 'addressed',
        group: GROUP,
        kind: 'Host',
        causes: [{ reason: 'FieldValueTypeInvalid', message: detail, field: 'status.addresses[0].value' }],
      },
    );
    expect((await call('PUT', `${HOSTS}/addressed/status`, bad)).json).toEqual(want);
    const patch = await call(
      'PATCH',
      `${HOSTS}/addressed/status`,
      { status: { addresses: [{ value: 'not-an-ip' }] } },
      'application/merge-patch+json',
    );
    expect(patch.json).toEqual(want);
  });
});
