// One storage watch per resource, on each real backend: the API as the server starts it (every
// controller and index: RBAC's, dynamic admission's, namespaces, CRDs, the garbage collector), and
// a custom resource its CRD controller installs, are all fed by the watch caches. A controller
// that opened a storage watch of its own would watch some prefix twice.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../apimachinery/log.js';
import type { Storage, WatchCallbacks, WatchHandle } from '../../../storage/interface.js';
import { type Api, createApi } from '../../../server/api.js';
import { backendFactories, type BackendFixture } from '../../helpers/backends.js';
import { eventually } from '../../helpers/eventually.js';

/** The storage, its watches counted by prefix while they are open. */
function counting(inner: Storage): { storage: Storage; open: Map<string, number> } {
  const open = new Map<string, number>();
  const watch = (prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle => {
    open.set(prefix, (open.get(prefix) ?? 0) + 1);
    const handle = inner.watch(prefix, afterRevision, callbacks);
    let closed = false;
    return {
      close() {
        if (!closed) open.set(prefix, open.get(prefix)! - 1);
        closed = true;
        handle.close();
      },
      requestProgress: () => handle.requestProgress(),
    };
  };
  const storage = new Proxy(inner, {
    get(target, p) {
      if (p === 'watch') return watch;
      const v: unknown = Reflect.get(target, p, target);
      return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { storage, open };
}

const GROUP = 'watches.example.com';
const CRD_PREFIX = '/registry/apiextensions.k8s.io/customresourcedefinitions/';
/** What the controllers and indexes follow: each must be watched, once. */
const INFORMED = [
  '/registry/rbac.authorization.k8s.io/clusterroles/',
  '/registry/rbac.authorization.k8s.io/roles/',
  '/registry/rbac.authorization.k8s.io/clusterrolebindings/',
  '/registry/rbac.authorization.k8s.io/rolebindings/',
  '/registry/admissionregistration.k8s.io/mutatingwebhookconfigurations/',
  '/registry/admissionregistration.k8s.io/validatingwebhookconfigurations/',
  '/registry/admissionregistration.k8s.io/validatingadmissionpolicies/',
  '/registry/admissionregistration.k8s.io/validatingadmissionpolicybindings/',
  '/registry/namespaces/',
  CRD_PREFIX,
  `/registry/${GROUP}/widgets/`,
];

describe.each(backendFactories.map((f) => [f.name, f] as const))(
  'storage watches of a started API over %s',
  (_name, factory) => {
    let fixture: BackendFixture;
    let inner: Storage;
    let api: Api | undefined;
    let open: Map<string, number>;

    beforeAll(async () => {
      fixture = await factory.create();
      inner = await fixture.open();
      // A CRD stored before the start: the CRD controller serves it, the garbage collector observes it.
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: {
          name: `widgets.${GROUP}`,
          uid: randomUUID(),
          creationTimestamp: '2026-01-01T00:00:00Z',
          generation: 1,
        },
        spec: {
          group: GROUP,
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
      await inner.create(`${CRD_PREFIX}widgets.${GROUP}`, JSON.stringify(crd));
      const wrapped = counting(inner);
      open = wrapped.open;
      api = await createApi({ storage: wrapped.storage, logger: silentLogger });
    });
    afterAll(async () => {
      await api?.close();
      await fixture?.teardown();
    });

    it('opens one per resource: every controller and index reads the watch caches', async () => {
      await eventually('the custom resource observed', async () =>
        (open.get(`/registry/${GROUP}/widgets/`) ?? 0) > 0 ? true : undefined,
      );
      const twice = [...open].filter(([, n]) => n > 1);
      expect(twice).toEqual([]);
      for (const prefix of INFORMED) expect(open.get(prefix), prefix).toBe(1);
    });
  },
);
