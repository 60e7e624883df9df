// Server-side apply and metadata.managedFields over HTTPS against an in-process server, on both
// backends: ownership by apply and by every other write, conflicts with kube's Status, force,
// shared ownership, list-map entries owned per manager, removal of what an applier stops
// applying, the status subresource's reset fields, resets and caps, and bad input as kube answers
// it (texts from k8s.io/apiserver handlers/patch.go and apimachinery's managedfields).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, type ServerOptions, startServer } from '../../../server/index.js';
import { apiClient, type ApiResponse } from '../../helpers/api-client.js';
import { installCrd, simpleCrd, failureStatus } from '../../helpers/crds.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const GROUP = 'ssa.example.com';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const APPLY = 'application/apply-patch+yaml';

const SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer' },
        color: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
          },
        },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' }, replicas: { type: 'integer' } } },
  },
};

const backends: { name: string; options(): Promise<ServerOptions> }[] = [
  { name: 'sqlite', options: async () => ({ storage: 'memory' }) },
  {
    name: 'etcd',
    options: async () => {
      etcd ??= await startEtcd();
      return { storage: 'etcd', etcdServers: [etcd.endpoint], etcdPrefix: `/${randomUUID()}` };
    },
  },
];
let etcd: EtcdProcess | undefined;
afterAll(async () => {
  await etcd?.destroy();
});

const widget = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name },
  spec,
  ...extra,
});

/** The managed fields as [manager, operation, subresource, fieldsV1], the parts tests compare. */
const owners = (obj: Json): Array<[string, string, string | undefined, unknown]> =>
  (obj.metadata.managedFields ?? []).map((m: Json) => [m.manager, m.operation, m.subresource, m.fieldsV1]);

describe.each(backends)('on $name', ({ options }) => {
  let server: ServerHandle;
  let call: (
    method: string,
    path: string,
    o?: Parameters<ReturnType<typeof apiClient>>[2],
  ) => Promise<ApiResponse & { json: Json }>;
  const apply = (name: string, body: unknown, query = 'fieldManager=alice', sub = '') =>
    call('PATCH', `${WIDGETS}/${name}${sub}?${query}`, { raw: `${JSON.stringify(body)}\n`, contentType: APPLY });

  beforeAll(async () => {
    server = await startServer({ ...(await options()), maxEventLoopUtilization: 1 });
    call = apiClient(server) as typeof call;
    const crd = simpleCrd(GROUP, 'widgets', SCHEMA);
    (crd.spec.versions[0] as Json).subresources = {
      status: {},
      scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.replicas' },
    };
    await installCrd(call, crd);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('creates a missing object (201), its applier owning exactly what it applied', async () => {
    const r = await apply('create', widget('create', { size: 1, ports: [{ name: 'http', port: 80 }] }));
    expect(r.status).toBe(201);
    expect(r.json.metadata.managedFields).toEqual([
      {
        manager: 'alice',
        operation: 'Apply',
        apiVersion: `${GROUP}/v1`,
        time: r.json.metadata.creationTimestamp,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': { 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } }, 'f:size': {} },
        },
      },
    ]);
    const again = await apply('create', widget('create', { size: 1, ports: [{ name: 'http', port: 80 }] }));
    expect(again.status).toBe(200);
    // The same configuration changes nothing: no write, the same resourceVersion.
    expect(again.json.metadata.resourceVersion).toBe(r.json.metadata.resourceVersion);
  });

  it('refuses to take another manager’s field: 409 with kube’s message and causes; force takes it', async () => {
    await apply('conflict', widget('conflict', { size: 1, color: 'red' }));
    const r = await apply('conflict', widget('conflict', { size: 2 }), 'fieldManager=bob');
    expect(r.json).toEqual(
      failureStatus(409, 'Conflict', 'Apply failed with 1 conflict: conflict with "alice": .spec.size', {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.size' }],
      }),
    );
    const forced = await apply('conflict', widget('conflict', { size: 2 }), 'fieldManager=bob&force=true');
    expect(forced.status).toBe(200);
    expect(forced.json.spec).toEqual({ size: 2, color: 'red' });
    expect(owners(forced.json)).toEqual([
      ['alice', 'Apply', undefined, { 'f:spec': { 'f:color': {} } }],
      ['bob', 'Apply', undefined, { 'f:spec': { 'f:size': {} } }],
    ]);
  });

  it('names every conflicting manager, an updater with its version', async () => {
    await apply('many', widget('many', { size: 1 }));
    await call('PATCH', `${WIDGETS}/many?fieldManager=editor`, {
      body: { spec: { color: 'red' } },
      contentType: 'application/merge-patch+json',
    });
    const r = await apply('many', widget('many', { size: 5, color: 'blue' }), 'fieldManager=carol');
    expect(r.status).toBe(409);
    expect(r.json.message).toBe(
      `Apply failed with 2 conflicts: conflicts with "alice":\n- .spec.size\nconflicts with "editor" using ${GROUP}/v1:\n- .spec.color`,
    );
    expect(r.json.details.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.size' },
      { reason: 'FieldManagerConflict', message: `conflict with "editor" using ${GROUP}/v1`, field: '.spec.color' },
    ]);
  });

  it('applying the value another manager set shares the field', async () => {
    await apply('shared', widget('shared', { size: 3 }));
    const r = await apply('shared', widget('shared', { size: 3 }), 'fieldManager=bob');
    expect(r.status).toBe(200);
    // The object did not change, so bob's entry has no time (managedFieldsUpdater), and sorts first.
    expect(r.json.metadata.managedFields.map((m: Json) => [m.manager, m.time === undefined, m.fieldsV1])).toEqual([
      ['bob', true, { 'f:spec': { 'f:size': {} } }],
      ['alice', false, { 'f:spec': { 'f:size': {} } }],
    ]);
  });

  it('list-map entries belong to whoever applied them; dropping one removes only that entry', async () => {
    await apply('ports', widget('ports', { ports: [{ name: 'http', port: 80 }] }));
    await apply('ports', widget('ports', { ports: [{ name: 'https', port: 443 }] }), 'fieldManager=bob');
    const both = await call('GET', `${WIDGETS}/ports`);
    expect(both.json.spec.ports).toEqual([
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
    ]);
    const r = await apply('ports', widget('ports', {}));
    expect(r.json.spec.ports).toEqual([{ name: 'https', port: 443 }]);
    // An empty map in a configuration is a value its applier owns. (Entries sort by time, to the
    // second: compared by manager here.)
    expect(
      owners(r.json)
        .map(([m, , , f]) => [m, f])
        .sort(),
    ).toEqual([
      ['alice', { 'f:spec': {} }],
      ['bob', { 'f:spec': { 'f:ports': { 'k:{"name":"https"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } }],
    ]);
  });

  it('a field the applier stops applying goes, unless an updater also set it', async () => {
    await apply('drop', widget('drop', { size: 1, color: 'red', tags: ['a', 'b'] }));
    await call('PATCH', `${WIDGETS}/drop?fieldManager=editor`, {
      body: { spec: { color: 'green' } },
      contentType: 'application/merge-patch+json',
    });
    const r = await apply('drop', widget('drop', { tags: ['b'] }));
    expect(r.json.spec).toEqual({ color: 'green', tags: ['b'] });
  });

  it('records every other write as an Update of its fieldManager, or of the User-Agent’s product', async () => {
    const created = await call('POST', `${WIDGETS}?fieldManager=creator`, { body: widget('updates', { size: 1 }) });
    expect(owners(created.json)).toEqual([['creator', 'Update', undefined, { 'f:spec': { '.': {}, 'f:size': {} } }]]);
    const patched = await call('PATCH', `${WIDGETS}/updates`, {
      body: { spec: { color: 'red' } },
      contentType: 'application/merge-patch+json',
      headers: { 'user-agent': 'kubectl/v1.33.0 (linux/amd64) kubernetes/abc' },
    });
    expect(owners(patched.json)).toEqual([
      ['creator', 'Update', undefined, { 'f:spec': { '.': {}, 'f:size': {} } }],
      ['kubectl', 'Update', undefined, { 'f:spec': { 'f:color': {} } }],
    ]);
    // Changing nothing changes no entry.
    const same = await call('PUT', `${WIDGETS}/updates?fieldManager=other`, { body: patched.json });
    expect(same.json.metadata.managedFields).toEqual(patched.json.metadata.managedFields);
  });

  it('the main resource’s apply does not own status; /status’s owns status and nothing else', async () => {
    const main = await apply('st', widget('st', { size: 1 }, { status: { ready: true } }));
    expect(main.json.status).toBeUndefined();
    expect(owners(main.json)).toEqual([['alice', 'Apply', undefined, { 'f:spec': { 'f:size': {} } }]]);
    const st = await apply(
      'st',
      widget('st', { size: 9 }, { status: { ready: true } }),
      'fieldManager=ctrl',
      '/status',
    );
    expect(st.status).toBe(200);
    expect([st.json.spec, st.json.status]).toEqual([{ size: 1 }, { ready: true }]);
    expect(owners(st.json)).toContainEqual(['ctrl', 'Apply', 'status', { 'f:status': { 'f:ready': {} } }]);
    const missing = await apply(
      'nope',
      widget('nope', {}, { status: { ready: true } }),
      'fieldManager=ctrl',
      '/status',
    );
    expect(missing.status).toBe(404);
  });

  it('/scale applies the replicas, owned through the scale subresource, and conflicts like any field', async () => {
    await apply('scaled', widget('scaled', { size: 1 }));
    const scale = (replicas: number) => ({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'scaled' },
      spec: { replicas },
    });
    const refused = await apply('scaled', scale(4), 'fieldManager=hpa', '/scale');
    expect([refused.status, refused.json.message]).toEqual([
      409,
      'Apply failed with 1 conflict: conflict with "alice": .spec.size',
    ]);
    const r = await apply('scaled', scale(4), 'fieldManager=hpa&force=true', '/scale');
    expect([r.status, r.json.kind, r.json.spec]).toEqual([200, 'Scale', { replicas: 4 }]);
    const obj = (await call('GET', `${WIDGETS}/scaled`)).json;
    expect(obj.spec.size).toBe(4);
    expect(owners(obj)).toContainEqual(['hpa', 'Apply', 'scale', { 'f:spec': { 'f:size': {} } }]);
    const wrong = await apply('scaled', { ...scale(1), kind: 'Widget' }, 'fieldManager=hpa', '/scale');
    expect([wrong.status, wrong.json.message]).toEqual([400, 'invalid object type: autoscaling/v1, Kind=Widget']);
  });

  it('a resourceVersion in the configuration is a precondition', async () => {
    const first = await apply('rv', widget('rv', { size: 1 }));
    const stale = await apply('rv', { ...widget('rv', { size: 2 }), metadata: { name: 'rv', resourceVersion: '1' } });
    expect([stale.status, stale.json.reason]).toEqual([409, 'Conflict']);
    const fresh = await apply('rv', {
      ...widget('rv', { size: 2 }),
      metadata: { name: 'rv', resourceVersion: first.json.metadata.resourceVersion },
    });
    expect(fresh.status).toBe(200);
  });

  it('a dry run stores nothing', async () => {
    const r = await apply('dry', widget('dry', { size: 1 }), 'fieldManager=alice&dryRun=All');
    expect(r.status).toBe(201);
    expect((await call('GET', `${WIDGETS}/dry`)).status).toBe(404);
  });

  it('managedFields written by a client: kept when valid; [{}] resets them, [] does not (kube’s docs)', async () => {
    const created = await call('POST', `${WIDGETS}?fieldManager=creator`, { body: widget('mf', { size: 1 }) });
    const mine = [
      {
        manager: 'mine',
        operation: 'Apply',
        apiVersion: `${GROUP}/v1`,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:size': {} } },
      },
    ];
    const kept = await call('PUT', `${WIDGETS}/mf`, {
      body: { ...created.json, metadata: { ...created.json.metadata, managedFields: mine } },
    });
    expect(owners(kept.json)).toEqual([['mine', 'Apply', undefined, { 'f:spec': { 'f:size': {} } }]]);
    // A custom resource's metadata is decoded as ObjectMeta, which drops an empty list.
    const emptied = await call('PUT', `${WIDGETS}/mf`, {
      body: { ...kept.json, metadata: { ...kept.json.metadata, managedFields: [] } },
    });
    expect(emptied.json.metadata.managedFields).toEqual(kept.json.metadata.managedFields);
    const reset = await call('PUT', `${WIDGETS}/mf`, {
      body: { ...emptied.json, metadata: { ...emptied.json.metadata, managedFields: [{}] } },
    });
    expect(reset.json.metadata.managedFields).toBeUndefined();
    // Untracked now, until the first apply, which gives what is there to "before-first-apply".
    const applied = await apply('mf', widget('mf', { color: 'red' }));
    expect(owners(applied.json).map(([m, op]) => [m, op])).toEqual([
      ['alice', 'Apply'],
      ['before-first-apply', 'Update'],
    ]);
  });

  it('keeps at most 10 Update managers, merging the oldest into ancient-changes', async () => {
    await call('POST', `${WIDGETS}?fieldManager=m0`, { body: widget('cap', { size: 0 }) });
    for (let i = 1; i <= 11; i++) {
      await call('PATCH', `${WIDGETS}/cap?fieldManager=m${i}`, {
        body: { metadata: { labels: { [`l${i}`]: 'x' } } },
        contentType: 'application/merge-patch+json',
      });
    }
    const r = await call('GET', `${WIDGETS}/cap`);
    const managers = owners(r.json).map(([m]) => m);
    expect(managers).toHaveLength(10);
    expect(managers).toContain('ancient-changes');
  });

  it.each<[string, string, string, number, string]>([
    [
      'apply without a fieldManager',
      '',
      JSON.stringify(widget('bad', {})),
      422,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    ],
    [
      'a fieldManager over 128 bytes',
      `fieldManager=${'m'.repeat(129)}`,
      JSON.stringify(widget('bad', {})),
      422,
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    ],
    [
      'another kind',
      'fieldManager=a',
      JSON.stringify({ ...widget('bad', {}), kind: 'Gadget' }),
      400,
      `invalid object type: ${GROUP}/v1, Kind=Gadget`,
    ],
    [
      'another version',
      'fieldManager=a',
      JSON.stringify({ ...widget('bad', {}), apiVersion: `${GROUP}/v2` }),
      400,
      `invalid object type: ${GROUP}/v2, Kind=Widget`,
    ],
    [
      'another name',
      'fieldManager=a',
      JSON.stringify(widget('other', {})),
      400,
      'the name of the object (other) does not match the name on the URL (bad)',
    ],
    [
      'no name',
      'fieldManager=a',
      JSON.stringify({ ...widget('bad', {}), metadata: {} }),
      400,
      'the name of the object (bad based on URL) was undeterminable: name must be provided',
    ],
    [
      'managedFields in the configuration',
      'fieldManager=a',
      JSON.stringify({ ...widget('bad', {}), metadata: { name: 'bad', managedFields: [] } }),
      400,
      'metadata.managedFields must be nil',
    ],
    ['a list', 'fieldManager=a', '[1, 2]', 400, 'error decoding YAML: the apply configuration must be an object'],
  ])('%s', async (_name, query, body, code, message) => {
    const r = await call('PATCH', `${WIDGETS}/bad?${query}`, { raw: body, contentType: APPLY });
    expect([r.status, r.json.message]).toEqual([code, message]);
    expect((await call('GET', `${WIDGETS}/bad`)).status).toBe(404);
  });

  it('malformed YAML and a list-map item without its key are a 400, nothing stored', async () => {
    const yaml = await call('PATCH', `${WIDGETS}/bad?fieldManager=a`, {
      raw: 'apiVersion: [unclosed',
      contentType: APPLY,
    });
    expect([yaml.status, yaml.json.reason]).toEqual([400, 'BadRequest']);
    const keyless = await apply('bad', widget('bad', { ports: [{ port: 80 }] }));
    expect(keyless.status).toBe(400);
    expect(keyless.json.message).toContain('.spec.ports');
    expect((await call('GET', `${WIDGETS}/bad`)).status).toBe(404);
  });

  it('a configuration nesting deeper than 256 levels is a 400, not a stack overflow', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 300; i++) deep = { a: deep };
    const r = await apply('deep', widget('deep', { nested: deep }));
    expect([r.status, r.json.message]).toEqual([400, 'server-side apply takes objects nesting at most 256 levels']);
    expect((await call('GET', `${WIDGETS}/deep`)).status).toBe(404);
  });

  it('force on a patch that is not an apply is a 422', async () => {
    const r = await call('PATCH', `${WIDGETS}/create?force=true`, {
      body: { spec: {} },
      contentType: 'application/merge-patch+json',
    });
    expect([r.status, r.json.message]).toEqual([
      422,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    ]);
  });
});

describe('built-in kinds', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory', maxEventLoopUtilization: 1 });
  });
  afterAll(async () => {
    await server?.close();
  });

  // apiextensions/v1's versions is +listType=atomic (before 1.30 untagged, so atomic too): one field.
  it('a CRD applies server-side, its versions one atomic list', async () => {
    const call = apiClient(server);
    const crd = simpleCrd('applied.example.com', 'things', {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    const r = await call(
      'PATCH',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}?fieldManager=kubectl`,
      { raw: JSON.stringify(crd), contentType: APPLY },
    );
    expect(r.status).toBe(201);
    const fields = (r.json as Json).metadata.managedFields[0].fieldsV1;
    expect(fields['f:spec']['f:versions']).toEqual({});
  });

  it('a namespace’s name label is its creator’s; the finalizer the server adds is nobody’s', async () => {
    const call = apiClient(server);
    const r = await call('POST', '/api/v1/namespaces', {
      body: { metadata: { name: 'owned' } },
      headers: { 'user-agent': 'kubectl-create/v1.33.0' },
    });
    expect(owners(r.json)).toEqual([
      [
        'kubectl-create',
        'Update',
        undefined,
        { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } },
      ],
    ]);
  });
});
