// Which handler serves a resource request, or the 404 or 405 kube answers when none does. kube's
// installer (apiserver/pkg/endpoints/installer.go) routes a cluster-scoped kind at the group
// version's root, a namespaced kind under namespaces/{namespace}/, and a namespaced kind it can
// list also at the root, for list and watch across namespaces; go-restful answers a path no route
// has with 404 and a method the path's routes lack with 405. apiextensions' CRD handler compares
// the request's namespace with the CRD's scope instead, handing a mismatch to its 404 delegate.
// Every dispatch (HTTP and WebSocket, stores and computed creates) resolves here, after
// authorization: a request allowed in one namespace never reaches a kind that lives outside it.
import { methodNotSupported, notFoundPath } from '../../apimachinery/errors.js';
import {
  type Catalog,
  type CreateOnlyHandler,
  type ResourceDescriptor,
  subresourceVerbs,
} from '../registry/catalog.js';
import type { Store } from '../registry/store.js';
import type { RequestInfo } from '../request/request-info.js';

type Route = { desc: ResourceDescriptor } & (
  | { store: Store; create?: undefined }
  | { create: CreateOnlyHandler; store?: undefined }
);

/** The verbs a namespaced kind serves without a namespace (kube's possiblyAcrossAllNamespacesVerbs). */
const ACROSS_NAMESPACES = new Set(['list', 'watch']);

export function route(catalog: Catalog, info: RequestInfo): Route {
  const desc = catalog.lookup(info.apiGroup, info.apiVersion, info.resource);
  if (!desc || (info.subresource && !desc.subresources.includes(info.subresource))) throw notFoundPath();
  if (desc.serving.unsupported === 'route' && info.verbInPath) checkWatchPath(desc, info);
  if (desc.serving.unsupported === 'route') checkRoutes(desc, info);
  else checkRequestScope(desc, info);
  // Own properties only: a subresource named `constructor` is not a handler.
  const computed =
    desc.creates && Object.hasOwn(desc.creates, info.subresource) ? desc.creates[info.subresource] : undefined;
  // Registered as POST on its own path alone: the collection's, or the subresource's.
  if (computed && (info.subresource !== '' || info.parts.length === 1)) {
    if (info.verb !== 'create') throw methodNotSupported();
    return { desc, create: computed };
  }
  // Without a store a resource has no routes but its creates' (an access review has no /{name}).
  if (!desc.store) throw notFoundPath();
  return { desc, store: desc.store };
}

/**
 * installer.go's WATCH and WATCHLIST routes, /watch/ before the resource's path: only for a kind
 * that watches (and lists, for its collection), never for a subresource, so a create-only kind
 * (an access review, a ServiceAccount's token) has none: a 404, where its collection's path with
 * ?watch=true is a 405 (that path routes POST). The path serves GET only (rest/resource.ts).
 */
function checkWatchPath(desc: ResourceDescriptor, info: RequestInfo): void {
  const watches = desc.verbs.includes('watch') && (info.parts.length !== 1 || desc.verbs.includes('list'));
  if (info.verb !== 'watch' || info.subresource || !watches) throw notFoundPath();
}

/** The verbs kube routes at a collection path (LIST, WATCHLIST, POST, DELETECOLLECTION); the others at an object's. */
const COLLECTION_VERBS = new Set(['list', 'watch', 'create', 'deletecollection']);

/**
 * go-restful's routes: the path's shape decides the scope, whatever namespace it carries, and a
 * verb is routed only where the kind (or its subresource) serves it.
 */
function checkRoutes(desc: ResourceDescriptor, info: RequestInfo): void {
  if (info.namespacedPath !== desc.namespaced) {
    // A namespaced kind at the root: only its collection, routed for list and watch when it lists.
    if (!desc.namespaced || info.parts.length !== 1 || !desc.verbs.includes('list')) throw notFoundPath();
    if (!ACROSS_NAMESPACES.has(info.verb)) throw methodNotSupported();
  }
  // {namespace} matches no empty segment (/namespaces//configmaps).
  if (info.namespacedPath && !info.namespace) throw notFoundPath();
  const verbs = info.subresource ? subresourceVerbs(info.subresource) : desc.verbs;
  if (verbs.includes(info.verb)) return;
  // 405 where the path routes another method, 404 where it routes none (an access review's /{name}).
  const collection = info.parts.length === 1;
  const routed = info.subresource ? verbs : verbs.filter((v) => COLLECTION_VERBS.has(v) === collection);
  throw routed.length ? methodNotSupported() : notFoundPath();
}

/** The CRD handler: the request's namespace decides, so /namespaces/x of a cluster-scoped `namespaces` CRD is a 404. */
function checkRequestScope(desc: ResourceDescriptor, info: RequestInfo): void {
  const namespacedRequest = info.namespace !== '';
  if (namespacedRequest === desc.namespaced) return;
  if (desc.namespaced && ACROSS_NAMESPACES.has(info.verb)) return;
  throw notFoundPath();
}
