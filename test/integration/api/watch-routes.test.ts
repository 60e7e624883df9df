// The /watch/ paths as kube's installer routes them (WATCH and WATCHLIST, GET only): a kind that
// watches has them, a create-only one (every resource and subresource discovery lists with the one
// verb `create`) and a subresource have none, so go-restful answers 404 there; the collection's
// own path with ?watch=true routes POST only, a 405. Both as kube's serviceErrorHandler words
// them (NewGenericServerResponse: empty details).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { type ApiResponse, apiClient } from '../../helpers/api-client.js';
import { failureStatus, installCrd, simpleCrd } from '../../helpers/crds.js';

const NO_ROUTE = failureStatus(404, 'NotFound', 'the server could not find the requested resource', {});
const NO_METHOD = failureStatus(
  405,
  'MethodNotAllowed',
  'the server does not allow this method on the requested resource',
  {},
);

interface CreateOnly {
  /** The group version's root: /api/v1, /apis/<group>/<version>. */
  root: string;
  /** The path below /namespaces/default/ or the root: `subjectaccessreviews`, `serviceaccounts/default/token`. */
  path: string;
  namespaced: boolean;
}

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;
const createOnly: CreateOnly[] = [];

const answer = (r: ApiResponse): [number, unknown] => [r.status, r.json];

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
  const roots = ['/api/v1'];
  const groups = (await call('GET', '/apis')).json as { groups: { versions: { groupVersion: string }[] }[] };
  for (const g of groups.groups) for (const v of g.versions) roots.push(`/apis/${v.groupVersion}`);
  for (const root of roots) {
    const list = (await call('GET', root)).json as {
      resources: { name: string; namespaced: boolean; verbs: string[] }[];
    };
    for (const r of list.resources) {
      if (r.verbs.join() !== 'create') continue;
      const [plural, sub] = r.name.split('/');
      createOnly.push({ root, path: sub ? `${plural}/default/${sub}` : plural!, namespaced: r.namespaced });
    }
  }
});
afterAll(async () => {
  await server?.close();
});

describe('create-only resources', () => {
  it('are the access reviews and a ServiceAccount token, found by their verbs', () => {
    expect(createOnly.map((c) => c.path)).toEqual(
      expect.arrayContaining(['serviceaccounts/default/token', 'subjectaccessreviews', 'localsubjectaccessreviews']),
    );
  });

  it('have no /watch/ path: 404, to any method', async () => {
    for (const c of createOnly) {
      const path = `${c.root}/watch/${c.namespaced ? 'namespaces/default/' : ''}${c.path}`;
      expect(answer(await call('GET', path)), path).toEqual([404, NO_ROUTE]);
      expect(answer(await call('POST', path, { body: {} })), path).toEqual([404, NO_ROUTE]);
    }
  });

  it('refuse ?watch=true on their path, which routes POST only: 405', async () => {
    for (const c of createOnly) {
      const path = `${c.root}/${c.namespaced ? 'namespaces/default/' : ''}${c.path}?watch=true`;
      expect(answer(await call('GET', path)), path).toEqual([405, NO_METHOD]);
    }
  });
});

describe('a kind that watches', () => {
  it('has /watch/ paths for GET, across namespaces too; POST there is a 405', async () => {
    for (const path of ['/api/v1/watch/namespaces/default/configmaps', '/api/v1/watch/configmaps']) {
      const r = await call('GET', `${path}?timeoutSeconds=1`);
      expect(r.status, path).toBe(200);
      expect(answer(await call('POST', path, { body: {} })), path).toEqual([405, NO_METHOD]);
    }
  });

  it('has none for a subresource, nor for an object outside its scope: 404', async () => {
    for (const path of [
      '/api/v1/watch/namespaces/default/services/kubernetes/status',
      '/api/v1/watch/namespaces/default/serviceaccounts/default/token',
      '/api/v1/watch/configmaps/x',
    ])
      expect(answer(await call('GET', path)), path).toEqual([404, NO_ROUTE]);
  });
});

describe('a custom resource with status and scale subresources', () => {
  // kube's CRD handler, not go-restful, serves these paths: its serveStatus and serveScale take get,
  // update and patch alone, and answer any other verb with MethodNotSupported.
  it('answers a /watch/ path on either subresource 405, naming the verb', async () => {
    const crd = simpleCrd('watch-routes.example.com', 'gauges', {
      type: 'object',
      properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
    });
    const version = crd.spec.versions[0]!;
    Object.assign(version, {
      subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' } },
    });
    await installCrd(call, crd);
    const base = '/apis/watch-routes.example.com/v1/watch/namespaces/default/gauges/g';
    for (const sub of ['status', 'scale']) {
      const r = await call('GET', `${base}/${sub}?timeoutSeconds=1`);
      expect(answer(r), sub).toEqual([
        405,
        failureStatus(
          405,
          'MethodNotAllowed',
          'watch is not supported on resources of kind "gauges.watch-routes.example.com"',
          {
            group: 'watch-routes.example.com',
            kind: 'gauges',
          },
        ),
      ]);
    }
  });
});
