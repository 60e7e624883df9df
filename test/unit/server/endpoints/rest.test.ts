// The REST verbs at their boundary: serveResource behind a real HTTP server on 127.0.0.1, over the
// real Store and embedded SQLite, dispatched as server/api.ts dispatches it. Each row is a request
// and the answer kube-apiserver gives to it (code, Status reason and message).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Status, type StatusDetails, toApiError } from '../../../../apimachinery/errors.js';
import type { KubeObject } from '../../../../apimachinery/object.js';
import type { UserInfo } from '../../../../apimachinery/user.js';
import type { CustomResourceDefinition } from '../../../../apimachinery/apis/apiextensions.js';
import { storageVersionHash } from '../../../../apimachinery/versions.js';
import {
  CUSTOM_RESOURCE_PROFILE,
  Catalog,
  type ResourceDescriptor,
  TYPED_PROFILE,
} from '../../../../server/registry/catalog.js';
import { Store } from '../../../../server/registry/store.js';
import { eventKind } from '../../../../server/registry/builtin/events.js';
import { plainEventStrategy as eventStrategy } from '../../../helpers/plain-events.js';
import { customResourceStrategy } from '../../../../server/registry/builtin/custom-resources.js';
import { parseRequestInfo } from '../../../../server/request/request-info.js';
import { serveResource } from '../../../../server/endpoints/rest/resource.js';
import { route } from '../../../../server/endpoints/routes.js';
import { writeStatus } from '../../../../server/endpoints/respond.js';
import { WatchRegistry } from '../../../../server/endpoints/watch/registry.js';
import { createSqliteFixture } from '../../../helpers/sqlite-fixture.js';

const ADMIN: UserInfo = { name: 'admin', groups: ['system:masters'] };
const EVENTS = '/api/v1/namespaces/ns/events';
const WIDGETS = '/apis/example.com/v1/namespaces/ns/widgets';

let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
let server: Server;
let base: string;
let events: Store;
let widgets: Store;
const watches = new WatchRegistry();

/** A minimal namespaced custom resource: the CRD handler's serving profile differs from the typed one. */
const widgetCrd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

beforeAll(async () => {
  fixture = await createSqliteFixture();
  const storage = await fixture.open();
  events = new Store(storage, eventStrategy);
  widgets = new Store(storage, customResourceStrategy(widgetCrd));
  const catalog = new Catalog();
  // As server/api.ts describes events (its builtin() helper is private to that module).
  const eventsDesc: ResourceDescriptor = {
    group: '',
    version: 'v1',
    names: {
      plural: 'events',
      singular: 'event',
      kind: 'Event',
      listKind: 'EventList',
      shortNames: ['ev'],
      categories: [],
    },
    namespaced: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [],
    store: events,
    serving: TYPED_PROFILE,
    storageVersionHash: storageVersionHash(eventKind.group, 'v1', eventKind.kind),
  };
  const widgetsDesc: ResourceDescriptor = {
    group: 'example.com',
    version: 'v1',
    names: {
      plural: 'widgets',
      singular: 'widget',
      kind: 'Widget',
      listKind: 'WidgetList',
      shortNames: [],
      categories: [],
    },
    namespaced: true,
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    subresources: [],
    store: widgets,
    serving: CUSTOM_RESOURCE_PROFILE,
    storageVersionHash: storageVersionHash('example.com', 'v1', 'Widget'),
  };
  catalog.setResource('', 'events', [eventsDesc]);
  catalog.setResource('example.com', 'widgets', [widgetsDesc]);

  // The request path server/serve.ts and server/api.ts take: request info, route (catalog and scope), dispatch, Status.
  server = createServer((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
    void (async () => {
      try {
        const info = parseRequestInfo(req.method ?? 'GET', path, query);
        const { desc, store } = route(catalog, info);
        await serveResource({
          req,
          res,
          info,
          query,
          desc,
          store: store!,
          watches,
          maxRequestBodyBytes: 1 << 20,
          user: ADMIN,
        });
      } catch (err) {
        writeStatus(res, toApiError(err));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  watches.closeAll();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  events.close();
  widgets.close();
  await fixture.teardown();
});

interface Reply {
  status: number;
  body: unknown;
}

async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    init.headers = { 'Content-Type': contentType };
  }
  const r = await fetch(base + path, init);
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

const failure = (code: number, reason: string, message: string, details?: StatusDetails): Status => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  ...(details ? { details } : {}),
  code,
});

const event = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, ...extra },
  involvedObject: { kind: 'Pod', name: 'p' },
  reason: 'Tested',
});

const metaOf = (body: unknown): { name?: string; uid?: string; resourceVersion?: string } =>
  (body as { metadata: { name?: string; uid?: string; resourceVersion?: string } }).metadata;

async function seed(name: string): Promise<{ uid: string; resourceVersion: string }> {
  const r = await call('POST', EVENTS, event(name));
  expect(r.status).toBe(201);
  const m = metaOf(r.body);
  return { uid: m.uid!, resourceVersion: m.resourceVersion! };
}

describe('serveResource: refusals, as kube-apiserver words them', () => {
  let kept: { uid: string; resourceVersion: string };
  beforeAll(async () => {
    kept = await seed('keep');
    await call('POST', WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
  });

  interface Row {
    name: string;
    method: string;
    path: string;
    body?: unknown;
    contentType?: string;
    want: () => Status;
  }

  it.each<Row>([
    {
      name: 'GET of a missing object: 404 naming the resource',
      method: 'GET',
      path: `${EVENTS}/x`,
      want: () => failure(404, 'NotFound', 'events "x" not found', { name: 'x', kind: 'events' }),
    },
    {
      name: 'PUT whose body names another object (handlers checkName)',
      method: 'PUT',
      path: `${EVENTS}/keep`,
      body: event('other'),
      want: () =>
        failure(400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (keep)'),
    },
    {
      name: 'PUT whose body names another namespace (EnsureObjectNamespaceMatchesRequestNamespace)',
      method: 'PUT',
      path: `${EVENTS}/keep`,
      body: event('keep', { namespace: 'elsewhere' }),
      want: () =>
        failure(
          400,
          'BadRequest',
          'the namespace of the provided object does not match the namespace sent on the request',
        ),
    },
    {
      name: 'POST whose body names another namespace',
      method: 'POST',
      path: EVENTS,
      body: event('moved', { namespace: 'elsewhere' }),
      want: () =>
        failure(
          400,
          'BadRequest',
          'the namespace of the provided object does not match the namespace sent on the request',
        ),
    },
    {
      name: 'merge PATCH that renames the object (checkName on the patched object)',
      method: 'PATCH',
      path: `${EVENTS}/keep`,
      body: { metadata: { name: 'renamed' } },
      contentType: 'application/merge-patch+json',
      want: () =>
        failure(400, 'BadRequest', 'the name of the object (renamed) does not match the name on the URL (keep)'),
    },
    {
      name: 'PATCH of a missing object',
      method: 'PATCH',
      path: `${EVENTS}/x`,
      body: { reason: 'R' },
      contentType: 'application/merge-patch+json',
      want: () => failure(404, 'NotFound', 'events "x" not found', { name: 'x', kind: 'events' }),
    },
    {
      // The CRD handler's patch types, in its order (apiextensions crdHandler.serveResource).
      name: 'PATCH of a custom resource with an unsupported content type: 415 listing the CRD handler types',
      method: 'PATCH',
      path: `${WIDGETS}/w`,
      body: '{}',
      contentType: 'text/plain',
      want: () =>
        failure(
          415,
          'UnsupportedMediaType',
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
        ),
    },
    {
      name: 'DELETE with a uid precondition that does not match: 409 naming the kind (rest.BeforeDelete)',
      method: 'DELETE',
      path: `${EVENTS}/keep`,
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } },
      want: () =>
        failure(
          409,
          'Conflict',
          `Operation cannot be fulfilled on Event "keep": the UID in the precondition (not-the-uid) does not match the UID in record (${kept.uid}). The object might have been deleted and then recreated`,
          { name: 'keep', kind: 'Event' },
        ),
    },
    {
      name: 'DELETE with a resourceVersion precondition that does not match',
      method: 'DELETE',
      path: `${EVENTS}/keep`,
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '123456789' } },
      want: () =>
        failure(
          409,
          'Conflict',
          `Operation cannot be fulfilled on Event "keep": the ResourceVersion in the precondition (123456789) does not match the ResourceVersion in record (${kept.resourceVersion}). The object might have been modified`,
          { name: 'keep', kind: 'Event' },
        ),
    },
    {
      name: 'DELETE of a missing object',
      method: 'DELETE',
      path: `${EVENTS}/x`,
      want: () => failure(404, 'NotFound', 'events "x" not found', { name: 'x', kind: 'events' }),
    },
    {
      name: 'DELETE with an unknown propagationPolicy: 422 on DeleteOptions (ValidateDeleteOptions)',
      method: 'DELETE',
      path: `${EVENTS}/keep?propagationPolicy=Sideways`,
      want: () =>
        failure(
          422,
          'Invalid',
          'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
          {
            group: 'meta.k8s.io',
            kind: 'DeleteOptions',
            causes: [
              {
                reason: 'FieldValueNotSupported',
                message: 'Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
                field: 'propagationPolicy',
              },
            ],
          },
        ),
    },
    {
      name: 'POST with dryRun other than All: 422 on CreateOptions (ValidateDryRun prints the []string)',
      method: 'POST',
      path: `${EVENTS}?dryRun=Yes`,
      body: event('dry-bad'),
      want: () =>
        failure(
          422,
          'Invalid',
          'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"',
          {
            group: 'meta.k8s.io',
            kind: 'CreateOptions',
            causes: [
              {
                reason: 'FieldValueNotSupported',
                message: 'Unsupported value: []string{"Yes"}: supported values: "All"',
                field: 'dryRun',
              },
            ],
          },
        ),
    },
    {
      name: 'list with a limit beyond int64: the parameter codec 400',
      method: 'GET',
      path: `${EVENTS}?limit=99999999999999999999`,
      want: () => failure(400, 'BadRequest', 'strconv.ParseInt: parsing "99999999999999999999": value out of range'),
    },
    {
      name: 'list with a limit that is not a number',
      method: 'GET',
      path: `${EVENTS}?limit=ten`,
      want: () => failure(400, 'BadRequest', 'strconv.ParseInt: parsing "ten": invalid syntax'),
    },
    // ValidateListOptions: every error in one 422 on ListOptions.
    ...[
      [
        'resourceVersionMatch=Exact',
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      ],
      [
        'resourceVersionMatch=Exact&resourceVersion=0',
        'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      ],
      [
        'resourceVersionMatch=Newest&resourceVersion=5',
        'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
      ],
      [
        'resourceVersionMatch=NotOlderThan&continue=abc',
        '[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]',
      ],
      ['sendInitialEvents=true', 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ].map(([query, message]) => ({
      name: `list with ${query}: kube's 422 on ListOptions`,
      method: 'GET',
      path: `${EVENTS}?${query}`,
      want: () =>
        failure(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${message}`, {
          group: 'meta.k8s.io',
          kind: 'ListOptions',
          causes: expect.any(Array),
        }),
    })),
  ])('$name', async ({ method, path, body, contentType, want }) => {
    const r = await call(method, path, body, contentType);
    const expected = want();
    expect(r.status).toBe(expected.code);
    expect(r.body).toEqual(expected);
  });

  it('the refusals above left the object as it was', async () => {
    const r = await call('GET', `${EVENTS}/keep`);
    expect(r.status).toBe(200);
    expect(metaOf(r.body)).toMatchObject({ name: 'keep', uid: kept.uid, resourceVersion: kept.resourceVersion });
    expect((r.body as { reason: string }).reason).toBe('Tested');
  });

  it.each([
    ['an unknown subresource', 'GET', `${EVENTS}/keep/nonsense`],
    ['a subresource the kind does not serve', 'PUT', `${EVENTS}/keep/status`],
    ['a path below a subresource', 'GET', `${EVENTS}/keep/status/more`],
  ])('%s: the 404 for a path nothing serves', async (_name, method, path) => {
    const r = await call(method, path, method === 'PUT' ? event('keep') : undefined);
    expect(r.status).toBe(404);
    // Code, reason and message only: kube's go-restful 404 may carry details of its own.
    expect(r.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
      code: 404,
    });
  });

  it('PATCH of a built-in kind with an unsupported content type: 415 listing every patch type', async () => {
    const r = await call('PATCH', `${EVENTS}/keep`, '{}', 'text/plain');
    expect(r.status).toBe(415);
    const body = r.body as Status;
    expect(body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'UnsupportedMediaType', code: 415 });
    // Compared as a set: kube's installer lists strategic-merge before apply, this server the other way round.
    const prefix = 'the body of the request was in an unknown format - accepted media types include: ';
    expect(body.message.startsWith(prefix)).toBe(true);
    expect(body.message.slice(prefix.length).split(', ').sort()).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
  });

  it('POST of an object carrying a resourceVersion is refused and stores nothing', async () => {
    const r = await call('POST', EVENTS, event('with-rv', { resourceVersion: '5' }));
    // kube's etcd3 store returns this as a plain error (a 500 there); the text is what clients match on.
    expect(r.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      message: 'resourceVersion should not be set on objects to be created',
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect((await call('GET', `${EVENTS}/with-rv`)).status).toBe(404);
  });
});

describe('serveResource: writes', () => {
  it('dryRun=All on create answers 201 with the object and stores nothing', async () => {
    const r = await call('POST', `${EVENTS}?dryRun=All`, event('dry'));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'dry', namespace: 'ns' } });
    expect(metaOf(r.body).uid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call('GET', `${EVENTS}/dry`)).body).toEqual(
      failure(404, 'NotFound', 'events "dry" not found', { name: 'dry', kind: 'events' }),
    );
  });

  it('dryRun=All on update and patch answers the change and stores nothing', async () => {
    const { resourceVersion } = await seed('dry-update');
    const put = await call('PUT', `${EVENTS}/dry-update?dryRun=All`, { ...event('dry-update'), reason: 'Put' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ reason: 'Put' });
    const patched = await call(
      'PATCH',
      `${EVENTS}/dry-update?dryRun=All`,
      { reason: 'Patched' },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ reason: 'Patched' });
    const stored = await call('GET', `${EVENTS}/dry-update`);
    expect(stored.body).toMatchObject({ reason: 'Tested', metadata: { resourceVersion } });
  });

  it('dryRun=All on delete answers 200 and the object stays', async () => {
    await seed('dry-delete');
    const r = await call('DELETE', `${EVENTS}/dry-delete?dryRun=All`);
    expect(r.status).toBe(200);
    expect((await call('GET', `${EVENTS}/dry-delete`)).status).toBe(200);
  });

  it('PUT and merge PATCH change the stored object and bump its resourceVersion', async () => {
    const { resourceVersion } = await seed('changed');
    const put = await call('PUT', `${EVENTS}/changed`, { ...event('changed', { resourceVersion }), reason: 'Put' });
    expect(put.status).toBe(200);
    const afterPut = metaOf(put.body).resourceVersion!;
    expect(Number(afterPut)).toBeGreaterThan(Number(resourceVersion));
    const patch = await call('PATCH', `${EVENTS}/changed`, { message: 'hello' }, 'application/merge-patch+json');
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ reason: 'Put', message: 'hello' });
    expect(Number(metaOf(patch.body).resourceVersion)).toBeGreaterThan(Number(afterPut));
  });

  it('a PUT with a stale resourceVersion is a 409 Conflict on the resource', async () => {
    const { resourceVersion } = await seed('stale');
    await call('PATCH', `${EVENTS}/stale`, { message: 'moved on' }, 'application/merge-patch+json');
    const r = await call('PUT', `${EVENTS}/stale`, event('stale', { resourceVersion }));
    expect(r.body).toEqual(
      failure(
        409,
        'Conflict',
        'Operation cannot be fulfilled on events "stale": the object has been modified; please apply your changes to the latest version and try again',
        {
          name: 'stale',
          kind: 'events',
        },
      ),
    );
  });

  it('DELETE removes the object', async () => {
    await seed('gone');
    expect((await call('DELETE', `${EVENTS}/gone`)).status).toBe(200);
    expect((await call('GET', `${EVENTS}/gone`)).status).toBe(404);
  });

  it('DELETE of a custom resource answers the success Status of the CRD handler', async () => {
    const created = await call('POST', WIDGETS, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'deleted' },
    });
    expect(created.status).toBe(201);
    const r = await call('DELETE', `${WIDGETS}/deleted`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'deleted', group: 'example.com', kind: 'widgets', uid: metaOf(created.body).uid },
    });
  });
});

describe('serveResource: lists', () => {
  const LISTED = '/api/v1/namespaces/listed/events';
  const names = ['l1', 'l2', 'l3'];
  let lastRv = '';
  beforeAll(async () => {
    for (const name of names) {
      const r = await call('POST', LISTED, event(name));
      expect(r.status).toBe(201);
      lastRv = metaOf(r.body).resourceVersion!;
    }
  });

  const itemNames = (body: unknown): string[] =>
    (body as { items: KubeObject[] }).items.map((i) => i.metadata.name ?? '');

  it("a list is the kind's listKind at the storage revision it was read at", async () => {
    const r = await call('GET', LISTED);
    expect(r.status).toBe(200);
    // Nothing was written since the last create, so the list is at exactly its revision.
    expect(r.body).toMatchObject({ apiVersion: 'v1', kind: 'EventList', metadata: { resourceVersion: lastRv } });
    expect(itemNames(r.body)).toEqual(names);
  });

  it.each([
    ['a negative limit lists everything', '-1'],
    ['a zero limit lists everything', '0'],
    ['a limit past any page size (int64 max) lists everything', '9223372036854775807'],
    ['a limit above the collection lists everything', '10'],
  ])('%s, without a continue token', async (_name, limit) => {
    const r = await call('GET', `${LISTED}?limit=${limit}`);
    expect(r.status).toBe(200);
    expect(itemNames(r.body)).toEqual(names);
    expect((r.body as { metadata: Record<string, unknown> }).metadata).toEqual({ resourceVersion: lastRv });
  });

  it('a positive limit pages, and the continue token resumes at the same revision', async () => {
    const first = await call('GET', `${LISTED}?limit=2`);
    const meta = (first.body as { metadata: { resourceVersion: string; continue?: string } }).metadata;
    expect(itemNames(first.body)).toEqual(['l1', 'l2']);
    expect(meta.resourceVersion).toBe(lastRv);
    expect(meta.continue).toEqual(expect.any(String));
    // A write between pages must not show: the token pins the first page's revision.
    await call('POST', LISTED, event('l4'));
    const second = await call('GET', `${LISTED}?limit=2&continue=${encodeURIComponent(meta.continue!)}`);
    expect(itemNames(second.body)).toEqual(['l3']);
    expect((second.body as { metadata: Record<string, unknown> }).metadata).toEqual({ resourceVersion: lastRv });
    // The token carries the revision: naming another one as well is refused (etcd3 store GetList).
    const both = await call(
      'GET',
      `${LISTED}?limit=2&resourceVersion=${lastRv}&continue=${encodeURIComponent(meta.continue!)}`,
    );
    expect(both.body).toEqual(
      failure(400, 'BadRequest', 'specifying resource version is not allowed when using continue'),
    );
  });

  it('a label selector filters the list', async () => {
    await call('POST', LISTED, event('labelled', { labels: { app: 'x' } }));
    const r = await call('GET', `${LISTED}?labelSelector=${encodeURIComponent('app=x')}`);
    expect(itemNames(r.body)).toEqual(['labelled']);
  });

  it('deletecollection deletes what its selector picks and answers the list it deleted from', async () => {
    await call('POST', LISTED, event('doomed', { labels: { doomed: 'yes' } }));
    const r = await call('DELETE', `${LISTED}?labelSelector=doomed%3Dyes`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ apiVersion: 'v1', kind: 'EventList' });
    expect(itemNames(r.body)).toEqual(['doomed']);
    expect((await call('GET', `${LISTED}/doomed`)).status).toBe(404);
    expect((await call('GET', `${LISTED}/l1`)).status).toBe(200);
  });
});
