// Custom resources over HTTPS against an in-process server on the embedded store, checked against
// what kube-apiserver answers (texts from staging/src/k8s.io/{apiserver,apimachinery,
// apiextensions-apiserver}): metadata on create, generation, the status subresource, finalizers,
// optimistic concurrency, delete options, dry run, patches, request bodies, content negotiation,
// lists (selectors, paging, all namespaces), Table and PartialObjectMetadata output, and events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { request } from '../../helpers/server-process.js';
import { failureStatus } from '../../helpers/crds.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Json;
}

let s: ServerHandle;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GV = '/apis/cache.example.com/v1';
const caches = (ns = 'default'): string => `${GV}/namespaces/${ns}/caches`;
const CLUSTER = `${GV}/clustercaches`;

const SCHEMA = {
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
};

const CACHE_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'caches.cache.example.com' },
  spec: {
    group: 'cache.example.com',
    scope: 'Namespaced',
    names: { plural: 'caches', singular: 'cache', kind: 'Cache' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: SCHEMA,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      },
      { name: 'v2', served: true, storage: false, schema: SCHEMA, subresources: { status: {} } },
    ],
  },
};

const CLUSTER_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'clustercaches.cache.example.com' },
  spec: {
    group: 'cache.example.com',
    scope: 'Cluster',
    names: { plural: 'clustercaches', singular: 'clustercache', kind: 'ClusterCache' },
    versions: [{ name: 'v1', served: true, storage: true, schema: SCHEMA }],
  },
};

/** kube's metav1.ObjectMeta swagger descriptions, which the Table columns Name and (default) Age carry. */
const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATION_TIMESTAMP_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const CR_MEDIA_TYPES = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';
const OBJECT_MODIFIED = 'the object has been modified; please apply your changes to the latest version and try again';
const DNS1123_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const QUALIFIED_NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

async function api(
  method: string,
  path: string,
  o: { body?: unknown; raw?: string; contentType?: string; accept?: string } = {},
): Promise<Res> {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (o.raw !== undefined) body = o.raw;
  else if (o.body !== undefined) body = JSON.stringify(o.body);
  if (body !== undefined) {
    headers['content-type'] = o.contentType ?? 'application/json';
    // Node sends a DELETE body with neither Content-Length nor chunking unless told; clients send the length.
    headers['content-length'] = String(Buffer.byteLength(body));
  } else if (o.contentType) headers['content-type'] = o.contentType;
  if (o.accept) headers['accept'] = o.accept;
  const r = await request(s.url + path, {
    method,
    ca: s.caCert,
    token: s.token,
    headers,
    ...(body !== undefined ? { body } : {}),
    timeoutMs: 30_000,
  });
  let json: Json;
  try {
    json = JSON.parse(r.body);
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, text: r.body, json };
}

const cache = (
  name: string,
  extra: {
    labels?: Record<string, string>;
    spec?: Json;
    status?: Json;
    finalizers?: string[];
    namespace?: string;
  } = {},
): Json => ({
  apiVersion: 'cache.example.com/v1',
  kind: 'Cache',
  metadata: {
    name,
    ...(extra.namespace ? { namespace: extra.namespace } : {}),
    ...(extra.labels ? { labels: extra.labels } : {}),
    ...(extra.finalizers ? { finalizers: extra.finalizers } : {}),
  },
  spec: extra.spec ?? { size: 3, engine: 'redis' },
  ...(extra.status ? { status: extra.status } : {}),
});

async function create(obj: Json, ns = 'default'): Promise<Json> {
  const r = await api('POST', caches(ns), { body: obj });
  if (r.status !== 201)
    throw new Error(`create ${obj.metadata.name ?? obj.metadata.generateName}: ${r.status} ${r.text}`);
  return r.json;
}

async function createNamespace(name: string): Promise<void> {
  const r = await api('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.status} ${r.text}`);
}

/** Polls the CRD until its Established condition is True, then until its resource is served. */
async function established(name: string, path: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const crd = await api('GET', `${CRDS}/${name}`);
    const conds: Json[] = crd.json?.status?.conditions ?? [];
    if (conds.some((c) => c.type === 'Established' && c.status === 'True') && (await api('GET', path)).status === 200)
      return;
    if (Date.now() > deadline) throw new Error(`${name} was not established: ${JSON.stringify(crd.json?.status)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const names = (list: Json): string[] => (list.items as Json[]).map((i) => i.metadata.name as string).sort();

beforeAll(async () => {
  s = await startServer({ storage: 'memory' });
  for (const crd of [CACHE_CRD, CLUSTER_CRD]) {
    const r = await api('POST', CRDS, { body: crd });
    expect(r.status, r.text).toBe(201);
  }
  await established('caches.cache.example.com', caches());
  await established('clustercaches.cache.example.com', CLUSTER);
});

afterAll(async () => {
  await s?.close();
});

describe('metadata on create', () => {
  it('fills generateName, uid, creationTimestamp, generation 1 and resourceVersion', async () => {
    const r = await api('POST', caches(), {
      body: {
        apiVersion: 'cache.example.com/v1',
        kind: 'Cache',
        metadata: { generateName: 'web-' },
        spec: { size: 1 },
      },
    });
    expect(r.status).toBe(201);
    const meta = r.json.metadata;
    // names.SimpleNameGenerator: the prefix and 5 characters of utilrand's alphabet.
    expect(meta.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(meta.generateName).toBe('web-');
    expect(meta.namespace).toBe('default');
    expect(meta.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(meta.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Math.abs(Date.parse(meta.creationTimestamp) - Date.now())).toBeLessThan(60_000);
    expect(meta.generation).toBe(1);
    expect(meta.resourceVersion).toMatch(/^[1-9]\d*$/);
    const got = await api('GET', `${caches()}/${meta.name}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(r.json);
  });

  it('ignores system fields the client sets (uid, creationTimestamp, generation)', async () => {
    const obj = cache('sysfields');
    obj.metadata.uid = 'client-uid';
    obj.metadata.creationTimestamp = '2001-01-01T00:00:00Z';
    obj.metadata.generation = 7;
    const created = await create(obj);
    expect(created.metadata.uid).not.toBe('client-uid');
    expect(created.metadata.creationTimestamp).not.toBe('2001-01-01T00:00:00Z');
    expect(created.metadata.generation).toBe(1);
  });

  it('refuses a name that is not a DNS-1123 subdomain with kube text', async () => {
    const r = await api('POST', caches(), { body: cache('Bad_Name') });
    expect(r.json).toEqual(
      failureStatus(
        422,
        'Invalid',
        `Cache.cache.example.com "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${DNS1123_SUBDOMAIN}`,
        {
          name: 'Bad_Name',
          group: 'cache.example.com',
          kind: 'Cache',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: `Invalid value: "Bad_Name": ${DNS1123_SUBDOMAIN}`,
              field: 'metadata.name',
            },
          ],
        },
      ),
    );
  });

  it('refuses bad label keys, label values and annotation keys with kube text', async () => {
    const key = await api('POST', caches(), { body: cache('lbl', { labels: { 'bad key!': 'x' } }) });
    expect(key.status).toBe(422);
    expect(key.json.message).toBe(
      `Cache.cache.example.com "lbl" is invalid: metadata.labels: Invalid value: "bad key!": ${QUALIFIED_NAME_PART}`,
    );
    expect(key.json.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "bad key!": ${QUALIFIED_NAME_PART}`,
        field: 'metadata.labels',
      },
    ]);

    const value = await api('POST', caches(), { body: cache('lbl', { labels: { app: '-bad-' } }) });
    expect(value.status).toBe(422);
    expect(value.json.message).toBe(
      `Cache.cache.example.com "lbl" is invalid: metadata.labels: Invalid value: "-bad-": ${LABEL_VALUE}`,
    );

    const obj = cache('ann');
    obj.metadata.annotations = { 'bad key!': 'v' };
    const ann = await api('POST', caches(), { body: obj });
    expect(ann.status).toBe(422);
    expect(ann.json.message).toBe(
      `Cache.cache.example.com "ann" is invalid: metadata.annotations: Invalid value: "bad key!": ${QUALIFIED_NAME_PART}`,
    );
    expect((await api('GET', `${caches()}/lbl`)).status).toBe(404);
  });

  it('bumps generation only for changes outside metadata and status', async () => {
    const c = await create(cache('gen'));
    expect(c.metadata.generation).toBe(1);

    // Metadata only: a new resourceVersion, the same generation.
    c.metadata.labels = { touched: 'yes' };
    const labelled = await api('PUT', `${caches()}/gen`, { body: c });
    expect(labelled.status).toBe(200);
    expect(labelled.json.metadata.generation).toBe(1);
    expect(labelled.json.metadata.labels).toEqual({ touched: 'yes' });
    expect(Number(labelled.json.metadata.resourceVersion)).toBeGreaterThan(Number(c.metadata.resourceVersion));

    // The spec: generation + 1.
    const patched = await api('PATCH', `${caches()}/gen`, {
      body: { spec: { size: 4 } },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status).toBe(200);
    expect(patched.json.metadata.generation).toBe(2);
    expect(patched.json.spec).toEqual({ size: 4, engine: 'redis' });

    // Status through the main resource is ignored: nothing changes, not even the resourceVersion.
    const statusViaMain = await api('PATCH', `${caches()}/gen`, {
      body: { status: { ready: true } },
      contentType: 'application/merge-patch+json',
    });
    expect(statusViaMain.status).toBe(200);
    expect(statusViaMain.json.status).toBeUndefined();
    expect(statusViaMain.json.metadata.generation).toBe(2);
    expect(statusViaMain.json.metadata.resourceVersion).toBe(patched.json.metadata.resourceVersion);

    // Through /status: status changes, generation does not; spec changes sent there are ignored.
    const st = await api('PUT', `${caches()}/gen/status`, {
      body: { ...patched.json, spec: { size: 99 }, status: { ready: true } },
    });
    expect(st.status).toBe(200);
    expect(st.json.status).toEqual({ ready: true });
    expect(st.json.spec).toEqual({ size: 4, engine: 'redis' });
    expect(st.json.metadata.generation).toBe(2);

    // A PUT of the main resource keeps the stored status whatever it sends.
    const put = await api('PUT', `${caches()}/gen`, { body: { ...st.json, status: { ready: false, extra: 1 } } });
    expect(put.status).toBe(200);
    expect(put.json.status).toEqual({ ready: true });
    expect(put.json.metadata.resourceVersion).toBe(st.json.metadata.resourceVersion);
  });

  it('drops .status on create when the status subresource exists', async () => {
    const c = await create(cache('withstatus', { status: { ready: true } }));
    expect(c.status).toBeUndefined();
    expect((await api('GET', `${caches()}/withstatus`)).json.status).toBeUndefined();
  });
});

describe('finalizers', () => {
  it('DELETE only marks an object with finalizers; removing the last finalizer deletes it', async () => {
    const c = await create(cache('fin', { finalizers: ['example.com/cleanup'] }));
    const del = await api('DELETE', `${caches()}/fin`);
    expect(del.status).toBe(200);
    expect(del.json.kind).toBe('Cache');
    expect(del.json.apiVersion).toBe('cache.example.com/v1');
    expect(del.json.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(del.json.metadata.deletionGracePeriodSeconds).toBe(0);
    // markAsDeleting bumps generation for kinds without graceful deletion.
    expect(del.json.metadata.generation).toBe(2);
    expect(del.json.metadata.finalizers).toEqual(['example.com/cleanup']);
    expect(Number(del.json.metadata.resourceVersion)).toBeGreaterThan(Number(c.metadata.resourceVersion));

    const still = await api('GET', `${caches()}/fin`);
    expect(still.status).toBe(200);
    expect(still.json).toEqual(del.json);

    // A second DELETE changes nothing.
    const again = await api('DELETE', `${caches()}/fin`);
    expect(again.status).toBe(200);
    expect(again.json.metadata.deletionTimestamp).toBe(del.json.metadata.deletionTimestamp);
    expect(again.json.metadata.resourceVersion).toBe(del.json.metadata.resourceVersion);

    const cleared = await api('PATCH', `${caches()}/fin`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
    expect(cleared.status).toBe(200);
    expect(cleared.json.metadata.name).toBe('fin');
    expect(cleared.json.metadata.finalizers).toBeUndefined();
    const gone = await api('GET', `${caches()}/fin`);
    expect(gone.json).toEqual(
      failureStatus(404, 'NotFound', 'caches.cache.example.com "fin" not found', {
        name: 'fin',
        group: 'cache.example.com',
        kind: 'caches',
      }),
    );
  });

  it('an update (PUT) removing the last finalizer deletes the object too', async () => {
    await create(cache('fin2', { finalizers: ['a.example.com/x', 'b.example.com/y'] }));
    const marked = (await api('DELETE', `${caches()}/fin2`)).json;
    const one = await api('PUT', `${caches()}/fin2`, {
      body: { ...marked, metadata: { ...marked.metadata, finalizers: ['b.example.com/y'] } },
    });
    expect(one.status).toBe(200);
    expect((await api('GET', `${caches()}/fin2`)).status).toBe(200);
    const none = await api('PUT', `${caches()}/fin2`, {
      body: { ...one.json, metadata: { ...one.json.metadata, finalizers: [] } },
    });
    expect(none.status).toBe(200);
    expect((await api('GET', `${caches()}/fin2`)).status).toBe(404);
  });
});

describe('optimistic concurrency', () => {
  it('PUT with a stale resourceVersion is a 409 Conflict with kube text', async () => {
    const c = await create(cache('occ'));
    const first = await api('PUT', `${caches()}/occ`, { body: { ...c, spec: { size: 5 } } });
    expect(first.status).toBe(200);
    const stale = await api('PUT', `${caches()}/occ`, { body: { ...c, spec: { size: 6 } } });
    expect(stale.json).toEqual(
      failureStatus(
        409,
        'Conflict',
        `Operation cannot be fulfilled on caches.cache.example.com "occ": ${OBJECT_MODIFIED}`,
        { name: 'occ', group: 'cache.example.com', kind: 'caches' },
      ),
    );
    expect((await api('GET', `${caches()}/occ`)).json.spec).toEqual({ size: 5 });
  });

  it('a merge patch carrying a mismatching metadata.resourceVersion is a 409; a matching one applies', async () => {
    const c = await create(cache('occpatch'));
    const bad = await api('PATCH', `${caches()}/occpatch`, {
      body: { metadata: { resourceVersion: String(Number(c.metadata.resourceVersion) - 1) }, spec: { size: 9 } },
      contentType: 'application/merge-patch+json',
    });
    expect(bad.json).toEqual(
      failureStatus(
        409,
        'Conflict',
        `Operation cannot be fulfilled on caches.cache.example.com "occpatch": ${OBJECT_MODIFIED}`,
        {
          name: 'occpatch',
          group: 'cache.example.com',
          kind: 'caches',
        },
      ),
    );
    const good = await api('PATCH', `${caches()}/occpatch`, {
      body: { metadata: { resourceVersion: c.metadata.resourceVersion }, spec: { size: 9 } },
      contentType: 'application/merge-patch+json',
    });
    expect(good.status).toBe(200);
    expect(good.json.spec.size).toBe(9);
  });
});

describe('delete options', () => {
  it('a uid precondition that does not match is a 409 with rest.BeforeDelete text', async () => {
    const c = await create(cache('pre-uid'));
    const r = await api('DELETE', `${caches()}/pre-uid`, { body: { preconditions: { uid: 'not-the-uid' } } });
    // BeforeDelete names the kind, not the resource (schema.GroupResource{Group, Resource: gvk.Kind}).
    expect(r.json).toEqual(
      failureStatus(
        409,
        'Conflict',
        `Operation cannot be fulfilled on Cache.cache.example.com "pre-uid": the UID in the precondition (not-the-uid) does not match the UID in record (${c.metadata.uid}). The object might have been deleted and then recreated`,
        { name: 'pre-uid', group: 'cache.example.com', kind: 'Cache' },
      ),
    );
    expect((await api('GET', `${caches()}/pre-uid`)).status).toBe(200);
  });

  it('a resourceVersion precondition that does not match is a 409 with rest.BeforeDelete text', async () => {
    const c = await create(cache('pre-rv'));
    const r = await api('DELETE', `${caches()}/pre-rv`, { body: { preconditions: { resourceVersion: '1' } } });
    expect(r.json).toEqual(
      failureStatus(
        409,
        'Conflict',
        `Operation cannot be fulfilled on Cache.cache.example.com "pre-rv": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${c.metadata.resourceVersion}). The object might have been modified`,
        { name: 'pre-rv', group: 'cache.example.com', kind: 'Cache' },
      ),
    );
  });

  it('matching preconditions, propagationPolicy and gracePeriodSeconds delete; the answer is a Success Status', async () => {
    const c = await create(cache('pre-ok'));
    const r = await api('DELETE', `${caches()}/pre-ok?gracePeriodSeconds=0`, {
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: 'Background',
        gracePeriodSeconds: 0,
        preconditions: { uid: c.metadata.uid, resourceVersion: c.metadata.resourceVersion },
      },
    });
    // Custom resources have no ReturnDeletedObject: registry.Store.finalizeDelete answers with a Status
    // whose details.kind is the resource, and no code or message.
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'pre-ok', group: 'cache.example.com', kind: 'caches', uid: c.metadata.uid },
    });
    expect((await api('GET', `${caches()}/pre-ok`)).status).toBe(404);
  });

  it('propagationPolicy in the query is accepted; an unknown one is a DeleteOptions 422 with kube text', async () => {
    await create(cache('pp'));
    const bad = await api('DELETE', `${caches()}/pp`, { body: { propagationPolicy: 'Bogus' } });
    const msg =
      'propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"';
    expect(bad.json).toEqual(
      failureStatus(422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: ${msg}`, {
        group: 'meta.k8s.io',
        kind: 'DeleteOptions',
        causes: [
          {
            reason: 'FieldValueNotSupported',
            message: 'Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
            field: 'propagationPolicy',
          },
        ],
      }),
    );
    // With a body, the delete handler decodes only the body: the query's options are not read.
    const queryIgnored = await api('DELETE', `${caches()}/pp?propagationPolicy=Bogus`, {
      body: { propagationPolicy: 'Background' },
    });
    expect(queryIgnored.status).toBe(200);
    expect(queryIgnored.json.status).toBe('Success');
    await create(cache('pp'));
    const ok = await api('DELETE', `${caches()}/pp?propagationPolicy=Background`);
    expect(ok.status).toBe(200);
    expect(ok.json.status).toBe('Success');
    expect((await api('GET', `${caches()}/pp`)).status).toBe(404);
  });

  it('deletecollection with a label selector deletes what it selects and answers with the list as it was', async () => {
    await createNamespace('dc');
    const before: Json[] = [];
    for (const [name, app] of [
      ['dc1', 'gone'],
      ['dc2', 'gone'],
      ['dc3', 'kept'],
    ] as const)
      before.push(await create(cache(name, { labels: { app } }), 'dc'));
    const r = await api('DELETE', `${caches('dc')}?labelSelector=app%3Dgone`);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('CacheList');
    expect(r.json.apiVersion).toBe('cache.example.com/v1');
    expect(r.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(names(r.json)).toEqual(['dc1', 'dc2']);
    // registry.Store.DeleteCollection returns the listed objects, before their deletion.
    for (const item of r.json.items as Json[]) {
      expect(item).toEqual(before.find((b) => b.metadata.name === item.metadata.name));
    }
    expect(names((await api('GET', caches('dc'))).json)).toEqual(['dc3']);
  });
});

describe('dryRun=All', () => {
  it('create: validated, answered, not stored', async () => {
    const r = await api('POST', `${caches()}?dryRun=All`, { body: cache('dry') });
    expect(r.status).toBe(201);
    expect(r.json.metadata.name).toBe('dry');
    expect(r.json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.metadata.generation).toBe(1);
    expect(r.json.metadata.resourceVersion).toBeUndefined();
    expect((await api('GET', `${caches()}/dry`)).status).toBe(404);

    const invalid = await api('POST', `${caches()}?dryRun=All`, { body: cache('Dry_Invalid') });
    expect(invalid.status).toBe(422);
    expect(invalid.json.message).toBe(
      `Cache.cache.example.com "Dry_Invalid" is invalid: metadata.name: Invalid value: "Dry_Invalid": ${DNS1123_SUBDOMAIN}`,
    );

    await create(cache('dry-exists'));
    const exists = await api('POST', `${caches()}?dryRun=All`, { body: cache('dry-exists') });
    expect(exists.json).toEqual(
      failureStatus(409, 'AlreadyExists', 'caches.cache.example.com "dry-exists" already exists', {
        name: 'dry-exists',
        group: 'cache.example.com',
        kind: 'caches',
      }),
    );
  });

  it('an unknown dryRun value is a CreateOptions 422 with kube text', async () => {
    const r = await api('POST', `${caches()}?dryRun=bogus`, { body: cache('dry-bogus') });
    expect(r.json).toEqual(
      failureStatus(
        422,
        'Invalid',
        'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"bogus"}: supported values: "All"',
        {
          group: 'meta.k8s.io',
          kind: 'CreateOptions',
          causes: [
            {
              reason: 'FieldValueNotSupported',
              message: 'Unsupported value: []string{"bogus"}: supported values: "All"',
              field: 'dryRun',
            },
          ],
        },
      ),
    );
    expect((await api('GET', `${caches()}/dry-bogus`)).status).toBe(404);
  });

  it('update, patch and delete: answered as if done, nothing stored', async () => {
    const c = await create(cache('dry-upd'));
    const put = await api('PUT', `${caches()}/dry-upd?dryRun=All`, { body: { ...c, spec: { size: 10 } } });
    expect(put.status).toBe(200);
    expect(put.json.spec).toEqual({ size: 10 });
    expect(put.json.metadata.generation).toBe(2);

    const badPut = await api('PUT', `${caches()}/dry-upd?dryRun=All`, {
      body: { ...c, metadata: { ...c.metadata, labels: { 'bad key!': 'x' } } },
    });
    expect(badPut.status).toBe(422);

    const patch = await api('PATCH', `${caches()}/dry-upd?dryRun=All`, {
      body: { spec: { size: 11 } },
      contentType: 'application/merge-patch+json',
    });
    expect(patch.status).toBe(200);
    expect(patch.json.spec).toEqual({ size: 11, engine: 'redis' });
    expect(patch.json.metadata.generation).toBe(2);

    const badDel = await api('DELETE', `${caches()}/dry-upd`, { body: { dryRun: ['All', 'bogus'] } });
    expect(badDel.status).toBe(422);
    expect(badDel.json.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "bogus"}: supported values: "All"',
    );

    const del = await api('DELETE', `${caches()}/dry-upd?dryRun=All`);
    expect(del.status).toBe(200);
    expect(del.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'dry-upd', group: 'cache.example.com', kind: 'caches', uid: c.metadata.uid },
    });

    const stored = await api('GET', `${caches()}/dry-upd`);
    expect(stored.status).toBe(200);
    expect(stored.json).toEqual(c);
  });

  it('delete of an object with finalizers: answered with the marked object, nothing stored', async () => {
    const c = await create(cache('dry-fin', { finalizers: ['example.com/f'] }));
    const del = await api('DELETE', `${caches()}/dry-fin?dryRun=All`);
    expect(del.status).toBe(200);
    expect(del.json.metadata.deletionTimestamp).toMatch(/Z$/);
    expect((await api('GET', `${caches()}/dry-fin`)).json).toEqual(c);
    await api('PATCH', `${caches()}/dry-fin`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
  });
});

describe('patches', () => {
  it('merge patch sets and removes fields', async () => {
    await create(cache('mp'));
    const r = await api('PATCH', `${caches()}/mp`, {
      body: { spec: { size: 5, engine: null, tier: 'gold' } },
      contentType: 'application/merge-patch+json',
    });
    expect(r.status).toBe(200);
    expect(r.json.spec).toEqual({ size: 5, tier: 'gold' });
    expect(r.json.metadata.generation).toBe(2);
  });

  it('JSON patch with test and move', async () => {
    await create(cache('jp'));
    const r = await api('PATCH', `${caches()}/jp`, {
      body: [
        { op: 'test', path: '/spec/size', value: 3 },
        { op: 'move', from: '/spec/size', path: '/spec/replicas' },
      ],
      contentType: 'application/json-patch+json',
    });
    expect(r.status).toBe(200);
    expect(r.json.spec).toEqual({ replicas: 3, engine: 'redis' });
    // A failing test operation changes nothing (kube: 422 from the JSON patch).
    const failed = await api('PATCH', `${caches()}/jp`, {
      body: [
        { op: 'test', path: '/spec/replicas', value: 4 },
        { op: 'remove', path: '/spec/engine' },
      ],
      contentType: 'application/json-patch+json',
    });
    expect(failed.status).toBe(422);
    expect(failed.json.reason).toBe('Invalid');
    expect((await api('GET', `${caches()}/jp`)).json.spec).toEqual({ replicas: 3, engine: 'redis' });
  });

  it('strategic merge patch is a 415 listing the patch types custom resources support', async () => {
    await create(cache('smp'));
    const r = await api('PATCH', `${caches()}/smp`, {
      body: { spec: { size: 5 } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(r.json).toEqual(
      failureStatus(
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      ),
    );
  });

  it('apply-patch+yaml applies the body as kubectl sends it (JSON and a newline)', async () => {
    const r = await api('PATCH', `${caches()}/smp?fieldManager=test`, {
      raw: JSON.stringify(cache('smp')) + '\n',
      contentType: 'application/apply-patch+yaml',
    });
    expect(r.status).toBe(200);
    expect(r.json.metadata.managedFields.map((m: Json) => [m.manager, m.operation])).toContainEqual(['test', 'Apply']);
  });
});

describe('request bodies and negotiation', () => {
  it('creates from YAML', async () => {
    const yaml = [
      'apiVersion: cache.example.com/v1',
      'kind: Cache',
      'metadata:',
      '  name: from-yaml',
      'spec:',
      '  size: 2',
      '  engine: memcached',
      '',
    ].join('\n');
    const r = await api('POST', caches(), { raw: yaml, contentType: 'application/yaml' });
    expect(r.status).toBe(201);
    expect(r.json.spec).toEqual({ size: 2, engine: 'memcached' });
  });

  it("malformed JSON is kube's 400 from meta.Interpret, malformed YAML a 400 naming the position", async () => {
    const json = await api('POST', caches(), {
      raw: '{"apiVersion": "cache.example.com/v1",\n  "kind": "Cache",\n  "metadata": {"name": "x"},,\n}',
    });
    expect(json.status).toBe(400);
    expect(json.json.reason).toBe('BadRequest');
    expect(json.json.message).toBe(
      "the object provided is unrecognized (must be of type Cache): couldn't get version/kind; json parse error: " +
        'invalid character \',\' looking for beginning of object key string ({"apiVersion": "cache.example. ...)',
    );

    const yaml = await api('POST', caches(), {
      raw: 'apiVersion: cache.example.com/v1\nkind: Cache\nmetadata:\n  name: [unclosed\n',
      contentType: 'application/yaml',
    });
    expect(yaml.status).toBe(400);
    expect(yaml.json.reason).toBe('BadRequest');
    expect(yaml.json.message).toMatch(/line \d+, column \d+/);
  });

  it('a body over 3 MiB is a 413', async () => {
    const big = JSON.stringify({ ...cache('big'), spec: { blob: 'x'.repeat(3 * 1024 * 1024) } });
    const r = await api('POST', caches(), { raw: big });
    expect(r.json).toEqual(failureStatus(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));
  });

  it('another served version in the body is a 400 with the create handler text', async () => {
    const r = await api('POST', caches(), { body: { ...cache('v2body'), apiVersion: 'cache.example.com/v2' } });
    expect(r.json).toEqual(
      failureStatus(
        400,
        'BadRequest',
        'the API version in the data (cache.example.com/v2) does not match the expected API version (cache.example.com/v1)',
      ),
    );
  });

  it('another group in the body is a 400 with the decoder text (crConverter, transformDecodeError)', async () => {
    const r = await api('POST', caches(), { body: { ...cache('othergroup'), apiVersion: 'other.example.com/v1' } });
    expect(r.json).toEqual(
      failureStatus(
        400,
        'BadRequest',
        'Cache in version "v1" cannot be handled as a Cache: other.example.com/v1, Kind=Cache is unstructured and is not suitable for converting to "cache.example.com/v1"',
      ),
    );
  });

  it('another kind in the body is a 422 from the custom resource validator', async () => {
    const r = await api('POST', caches(), { body: { ...cache('otherkind'), kind: 'Other' } });
    expect(r.json).toEqual(
      failureStatus(
        422,
        'Invalid',
        'Other.cache.example.com "otherkind" is invalid: kind: Invalid value: "Other": must be Cache',
        {
          name: 'otherkind',
          group: 'cache.example.com',
          kind: 'Other',
          causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "Other": must be Cache', field: 'kind' }],
        },
      ),
    );
  });

  it('a verb the status subresource does not serve is a 405 with kube text', async () => {
    await create(cache('m405'));
    const post = await api('POST', `${caches()}/m405/status`, { body: cache('m405') });
    expect(post.json).toEqual(
      failureStatus(
        405,
        'MethodNotAllowed',
        'create is not supported on resources of kind "caches.cache.example.com"',
        { group: 'cache.example.com', kind: 'caches' },
      ),
    );
    const del = await api('DELETE', `${caches()}/m405/status`);
    expect(del.json.code).toBe(405);
    expect(del.json.message).toBe('delete is not supported on resources of kind "caches.cache.example.com"');
  });

  it('PUT and PATCH on the collection are a 400: the handler needs a name', async () => {
    for (const [method, contentType] of [
      ['PUT', 'application/json'],
      ['PATCH', 'application/merge-patch+json'],
    ] as const) {
      const r = await api(method, caches(), { body: cache('noname'), contentType });
      expect(r.json).toEqual(failureStatus(400, 'BadRequest', 'name must be provided'));
    }
  });

  it('an Accept nothing can satisfy is a 406 listing the serializers', async () => {
    const r = await api('GET', caches(), { accept: 'text/plain' });
    expect(r.json).toEqual(
      failureStatus(406, 'NotAcceptable', `only the following media types are accepted: ${CR_MEDIA_TYPES}`),
    );
  });

  it('an unknown Content-Type is a 415 listing the serializers', async () => {
    const r = await api('POST', caches(), { raw: 'name=x', contentType: 'text/plain' });
    expect(r.json).toEqual(
      failureStatus(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: ${CR_MEDIA_TYPES}`,
      ),
    );
  });
});

describe('list', () => {
  const LABELS: Record<string, Record<string, string>> = {
    l1: { app: 'x', tier: 'fe' },
    l2: { app: 'x', tier: 'be' },
    l3: { app: 'y' },
    l4: { app: 'z', tier: 'fe' },
    l5: {},
  };
  const sel = async (selector: string): Promise<string[]> => {
    const r = await api('GET', `${caches('lists')}?labelSelector=${encodeURIComponent(selector)}`);
    expect(r.status, r.text).toBe(200);
    return names(r.json);
  };

  beforeAll(async () => {
    await createNamespace('lists');
    for (const [name, labels] of Object.entries(LABELS))
      await create(cache(name, Object.keys(labels).length ? { labels } : {}), 'lists');
  });

  it('label selectors: =, ==, !=, in, notin, exists, !', async () => {
    expect(await sel('app=x')).toEqual(['l1', 'l2']);
    expect(await sel('app==x')).toEqual(['l1', 'l2']);
    expect(await sel('app!=x')).toEqual(['l3', 'l4', 'l5']);
    expect(await sel('app in (x,y)')).toEqual(['l1', 'l2', 'l3']);
    expect(await sel('app notin (x,y)')).toEqual(['l4', 'l5']);
    expect(await sel('tier')).toEqual(['l1', 'l2', 'l4']);
    expect(await sel('!tier')).toEqual(['l3', 'l5']);
    expect(await sel('app=x,tier=fe')).toEqual(['l1']);
  });

  it('field selectors on metadata.name and metadata.namespace', async () => {
    const byName = await api('GET', `${caches('lists')}?fieldSelector=metadata.name%3Dl2`);
    expect(names(byName.json)).toEqual(['l2']);
    const notName = await api('GET', `${caches('lists')}?fieldSelector=metadata.name!%3Dl2`);
    expect(names(notName.json)).toEqual(['l1', 'l3', 'l4', 'l5']);
    const byNamespace = await api('GET', `${GV}/caches?fieldSelector=metadata.namespace%3Dlists`);
    expect(names(byNamespace.json)).toEqual(['l1', 'l2', 'l3', 'l4', 'l5']);
  });

  it('an unsupported field label is a 400 with kube text', async () => {
    const r = await api('GET', `${caches('lists')}?fieldSelector=spec.x%3D1`);
    expect(r.json).toEqual(failureStatus(400, 'BadRequest', 'field label not supported: spec.x'));
    const cluster = await api('GET', `${CLUSTER}?fieldSelector=metadata.namespace%3Dx`);
    expect(cluster.json).toEqual(failureStatus(400, 'BadRequest', 'field label not supported: metadata.namespace'));
  });

  it('limit and continue page through a snapshot', async () => {
    const p1 = await api('GET', `${caches('lists')}?limit=2`);
    expect(p1.status).toBe(200);
    expect(names(p1.json)).toEqual(['l1', 'l2']);
    const rv = p1.json.metadata.resourceVersion;
    const token = p1.json.metadata.continue;
    expect(typeof token).toBe('string');
    // Opaque to clients, checked by the server: a mangled token is a 400 (etcd3 store's GetList).
    const mangled = await api(
      'GET',
      `${caches('lists')}?limit=2&continue=${encodeURIComponent(token.slice(0, -4) + '!!!!')}`,
    );
    expect(mangled.status).toBe(400);
    expect(mangled.json.reason).toBe('BadRequest');
    expect(mangled.json.message).toMatch(/^invalid continue token: /);
    if ('remainingItemCount' in p1.json.metadata) expect(p1.json.metadata.remainingItemCount).toBe(3);

    // Written after the first page: not in the snapshot the pages come from.
    await create(cache('l9'), 'lists');

    const p2 = await api('GET', `${caches('lists')}?limit=2&continue=${encodeURIComponent(token)}`);
    expect(names(p2.json)).toEqual(['l3', 'l4']);
    expect(p2.json.metadata.resourceVersion).toBe(rv);
    if ('remainingItemCount' in p2.json.metadata) expect(p2.json.metadata.remainingItemCount).toBe(1);

    const p3 = await api('GET', `${caches('lists')}?limit=2&continue=${encodeURIComponent(p2.json.metadata.continue)}`);
    expect(names(p3.json)).toEqual(['l5']);
    expect(p3.json.metadata.resourceVersion).toBe(rv);
    expect(p3.json.metadata.continue).toBeUndefined();
    expect(p3.json.metadata.remainingItemCount).toBeUndefined();

    expect(names((await api('GET', caches('lists'))).json)).toEqual(['l1', 'l2', 'l3', 'l4', 'l5', 'l9']);
    await api('DELETE', `${caches('lists')}/l9`);
  });

  it('lists across all namespaces', async () => {
    const r = await api('GET', `${GV}/caches`);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('CacheList');
    expect(r.json.apiVersion).toBe('cache.example.com/v1');
    const spaces = new Set((r.json.items as Json[]).map((i) => i.metadata.namespace));
    expect(spaces.has('default')).toBe(true);
    expect(spaces.has('lists')).toBe(true);
    for (const item of r.json.items as Json[]) {
      expect(item.kind).toBe('Cache');
      expect(item.apiVersion).toBe('cache.example.com/v1');
    }
  });
});

describe('Table and metadata-only output', () => {
  beforeAll(async () => {
    await createNamespace('tables');
    await create(cache('t1', { spec: { size: 7 } }), 'tables');
    const r = await api('POST', CLUSTER, {
      body: { apiVersion: 'cache.example.com/v1', kind: 'ClusterCache', metadata: { name: 'ct1' }, spec: {} },
    });
    expect(r.status).toBe(201);
  });

  it('columns from additionalPrinterColumns; rows carry PartialObjectMetadata by default', async () => {
    const r = await api('GET', caches('tables'), { accept: TABLE });
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe('Table');
    expect(r.json.apiVersion).toBe('meta.k8s.io/v1');
    expect(r.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.json.columnDefinitions).toEqual([
      { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
      { name: 'Size', type: 'integer', format: '', description: '', priority: 0 },
      { name: 'Age', type: 'date', format: '', description: '', priority: 0 },
    ]);
    expect(r.json.rows).toHaveLength(1);
    const [row] = r.json.rows;
    expect(row.cells[0]).toBe('t1');
    expect(row.cells[1]).toBe(7);
    expect(row.cells[2]).toMatch(/^\d+s$/);
    const stored = (await api('GET', `${caches('tables')}/t1`)).json;
    expect(row.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: stored.metadata,
    });
  });

  it('Name and Age when the CRD declares no columns', async () => {
    const r = await api('GET', CLUSTER, { accept: TABLE });
    expect(r.json.columnDefinitions).toEqual([
      { name: 'Name', type: 'string', format: 'name', description: NAME_DESCRIPTION, priority: 0 },
      { name: 'Age', type: 'date', format: '', description: CREATION_TIMESTAMP_DESCRIPTION, priority: 0 },
    ]);
    expect(r.json.rows.map((row: Json) => row.cells[0])).toEqual(['ct1']);
    expect(r.json.rows[0].cells[1]).toMatch(/^\d+s$/);
  });

  it('includeObject=Object, None, and an unknown value', async () => {
    const full = await api('GET', `${caches('tables')}?includeObject=Object`, { accept: TABLE });
    expect(full.json.rows[0].object.kind).toBe('Cache');
    expect(full.json.rows[0].object.apiVersion).toBe('cache.example.com/v1');
    expect(full.json.rows[0].object.spec).toEqual({ size: 7 });

    const none = await api('GET', `${caches('tables')}?includeObject=None`, { accept: TABLE });
    expect(none.json.rows[0]).toHaveProperty('object', null);

    const bad = await api('GET', `${caches('tables')}?includeObject=Bogus`, { accept: TABLE });
    expect(bad.json).toEqual(
      failureStatus(
        400,
        'BadRequest',
        "Unable to convert to Table as requested: includeObject: Invalid value: \"Bogus\": must be 'Metadata', 'Object', 'None', or empty",
      ),
    );
    // Without a Table, kube does not read includeObject at all.
    expect((await api('GET', `${caches('tables')}?includeObject=Bogus`)).status).toBe(200);
  });

  it('a single object as a Table', async () => {
    const r = await api('GET', `${caches('tables')}/t1`, { accept: TABLE });
    expect(r.json.kind).toBe('Table');
    expect(r.json.rows.map((row: Json) => row.cells.slice(0, 2))).toEqual([['t1', 7]]);
  });

  it('as=PartialObjectMetadata and as=PartialObjectMetadataList', async () => {
    const stored = (await api('GET', `${caches('tables')}/t1`)).json;
    const one = await api('GET', `${caches('tables')}/t1`, {
      accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
    });
    expect(one.json).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: stored.metadata,
    });

    const list = await api('GET', caches('tables'), {
      accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    });
    expect(list.json.kind).toBe('PartialObjectMetadataList');
    expect(list.json.apiVersion).toBe('meta.k8s.io/v1');
    expect(list.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(list.json.items).toEqual([
      { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: stored.metadata },
    ]);

    // The wrong one of the two is a 406 (handlers.asPartialObjectMetadata(List)).
    const oneAsList = await api('GET', `${caches('tables')}/t1`, {
      accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    });
    expect(oneAsList.json).toEqual(
      failureStatus(
        406,
        'NotAcceptable',
        'you requested PartialObjectMetadataList, but the requested object is not a list (*unstructured.Unstructured)',
      ),
    );
    const listAsOne = await api('GET', caches('tables'), {
      accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
    });
    expect(listAsOne.json).toEqual(
      failureStatus(
        406,
        'NotAcceptable',
        'you requested PartialObjectMetadata, but the requested object is a list (*unstructured.UnstructuredList)',
      ),
    );
  });
});

describe('events', () => {
  it('lists core/v1 Events by involvedObject field selectors', async () => {
    const web = await create(cache('evweb'));
    const event = (name: string, involved: string, uid: string): Json => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: 'default' },
      involvedObject: { apiVersion: 'cache.example.com/v1', kind: 'Cache', namespace: 'default', name: involved, uid },
      reason: 'Synced',
      message: `${involved} synced`,
      type: 'Normal',
      source: { component: 'cache-controller' },
      count: 1,
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:00Z',
    });
    for (const ev of [event('evweb.1', 'evweb', web.metadata.uid), event('evother.1', 'evother', 'other-uid')]) {
      const r = await api('POST', '/api/v1/namespaces/default/events', { body: ev });
      expect(r.status, r.text).toBe(201);
    }
    const byName = await api('GET', '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Devweb');
    expect(byName.status).toBe(200);
    expect(byName.json.kind).toBe('EventList');
    expect(names(byName.json)).toEqual(['evweb.1']);
    expect(byName.json.items[0].message).toBe('evweb synced');

    // What `kubectl describe` sends.
    const selector = `involvedObject.name=evweb,involvedObject.namespace=default,involvedObject.kind=Cache,involvedObject.uid=${web.metadata.uid}`;
    const describe = await api(
      'GET',
      `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(selector)}&limit=500`,
    );
    expect(names(describe.json)).toEqual(['evweb.1']);
    const wrongUid = await api(
      'GET',
      `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent('involvedObject.name=evweb,involvedObject.uid=x')}`,
    );
    expect(wrongUid.json.items).toEqual([]);
  });
});

// apiextensions' crdHandler compares the request info's namespace with the CRD's scope, and kube's
// request info reads /namespaces/{name} as a namespace wherever it appears: a cluster-scoped CRD
// whose plural is `namespaces` lists and creates at its root, yet has no object path (404).
describe('scope by the request namespace', () => {
  it('a cluster-scoped `namespaces` CRD answers its collection but not /namespaces/{name}', async () => {
    const gv = '/apis/scope.example.com/v1';
    const crd = {
      ...CLUSTER_CRD,
      metadata: { name: 'namespaces.scope.example.com' },
      spec: {
        ...CLUSTER_CRD.spec,
        group: 'scope.example.com',
        names: { plural: 'namespaces', singular: 'namespace', kind: 'Namespace' },
      },
    };
    expect((await api('POST', CRDS, { body: crd })).status).toBe(201);
    await established('namespaces.scope.example.com', `${gv}/namespaces`);
    const made = await api('POST', `${gv}/namespaces`, {
      body: { apiVersion: 'scope.example.com/v1', kind: 'Namespace', metadata: { name: 'x' } },
    });
    expect(made.status, made.text).toBe(201);
    expect(names((await api('GET', `${gv}/namespaces`)).json)).toEqual(['x']);
    for (const method of ['GET', 'DELETE']) {
      const r = await api(method, `${gv}/namespaces/x`);
      expect({ method, status: r.status, body: r.json }).toEqual({
        method,
        status: 404,
        body: failureStatus(404, 'NotFound', 'the server could not find the requested resource', {}),
      });
    }
  });
});
