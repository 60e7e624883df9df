// The API layer: everything behind authentication that is not a health or version endpoint.
// One handler parses every path into request info and dispatches, as kube-apiserver does; there
// is no route table to register per CRD, so a CRD is served the moment it enters the catalog.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Storage } from '../storage/interface.js';
import type { Registry } from 'prom-client';
import { type AdjustableClock, type Clock, systemClock } from '../apimachinery/clock.js';
import type { Logger } from '../apimachinery/log.js';
import type { ApiHandler, ParsedRequest } from './pipeline/types.js';
import type { UserInfo } from '../apimachinery/user.js';
import type { KubeObject } from '../apimachinery/object.js';
import {
  ApiError,
  badRequest,
  ignoreNotFound,
  methodNotSupported,
  notFoundPath,
  toApiError,
} from '../apimachinery/errors.js';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from './options.js';
import { Catalog } from './registry/catalog.js';
import { parseGroupVersion } from '../apimachinery/versions.js';
import { Store } from './registry/store.js';
import { type AdmissionProfile, builtinStores, installBuiltinKinds } from './registry/builtin/kind.js';
import { BUILTIN_KINDS } from './registry/builtin/table.js';
import { CORE_EVENTS } from './registry/builtin/events.js';
import { NAMESPACES, isTerminating } from './registry/builtin/namespaces.js';
import { CUSTOM_RESOURCE_DEFINITIONS } from './registry/builtin/crds.js';
import { SERVICES, kubernetesService } from './registry/builtin/services.js';
import { SECRETS } from './registry/builtin/secrets.js';
import { SERVICE_ACCOUNTS } from './registry/builtin/serviceaccounts.js';
import { LEASES } from './registry/builtin/leases.js';
import { CLUSTER_ROLES, CLUSTER_ROLE_BINDINGS, ROLES, ROLE_BINDINGS } from './registry/builtin/rbac.js';
import {
  MUTATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
} from './registry/builtin/admissionregistration.js';
import { NamespaceController } from './controllers/namespace-controller.js';
import { type LeaderElectionConfig, LeaderElector } from './controllers/leader-election.js';
import { namespaceLifecycle } from '../admission/namespace-lifecycle.js';
import { ownerReferencesPermissionEnforcement } from '../admission/owner-references-permission.js';
import { AdmissionChain, type AdmissionPlugin } from '../admission/interface.js';
import { rbacEscalationCheck } from '../admission/rbac-escalation.js';
import { installDynamicAdmission } from './dynamic-admission/install.js';
import { CRDController } from './controllers/crd-controller.js';
import { GarbageCollector } from './controllers/garbage-collector/collector.js';
import { customResourceStrategy } from './registry/builtin/custom-resources.js';
import { watchOptions } from './endpoints/rest/read.js';
import { negotiateOutput, serveResource } from './endpoints/rest/resource.js';
import { serveCreateOnly } from './endpoints/create-only.js';
import { route } from './endpoints/routes.js';
import { writeStatus } from './endpoints/respond.js';
import { negotiate, parseAccept } from './endpoints/negotiate.js';
import { WatchRegistry } from './endpoints/watch/registry.js';
import { measured } from './endpoints/watch/events.js';
import { serveWatch } from './endpoints/watch/serve-watch.js';
import { acceptWebSocket, webSocketWatchSink } from './endpoints/watch/websocket.js';
import { AGGREGATED_V2, AGGREGATED_V2BETA1, Discovery, type Document } from './endpoints/discovery.js';
import { OpenAPI } from './endpoints/openapi/documents.js';
import { openapiResponse } from './endpoints/openapi/http.js';
import type { Authorizer } from '../apimachinery/authorization.js';
import { type AuthorizationMode, alwaysDeny } from './authz/authorizer.js';
import { installAuthorization, reviewCreates } from './authz/install.js';
import type { ObjectLookup } from './authn/service-account-token.js';
import { type TokenRequestSigning, liveObject, tokenRequestHandler } from './authn/token-request-handler.js';

export interface Api extends ApiHandler {
  /** The authorizer chain of --authorization-mode, kept current from the RBAC objects served here. */
  authorizer: Authorizer;
  /** Per served resource (`configmaps`, `leases.coordination.k8s.io`, custom resources), the objects stored; -1 when storage did not say. */
  storedObjectCounts(): Promise<{ resource: string; count: number }[]>;
  /** ServiceAccounts and Secrets as token authentication checks them (exists, same uid, not deleted). */
  liveObjects: { serviceAccount: ObjectLookup; secret: ObjectLookup };
  /** Stops background work (controllers, watches) before storage closes. */
  close(): Promise<void>;
  /** With the testing API: the API handler with its Faults acting on client requests. */
  withFaults?(api: ApiHandler): ApiHandler;
}

interface ApiDeps {
  storage: Storage;
  logger: Logger;
  /** host:port clients reach us at, for legacy discovery's serverAddressByClientCIDRs. */
  serverAddress?: () => string;
  /** The largest request body a write may send (kube's MaxRequestBodyBytes, 3 MiB by default). */
  maxRequestBodyBytes?: number;
  /** kube's --min-request-timeout, for watches. */
  minRequestTimeoutSeconds?: number;
  /** Bytes all watchers together may have pending before the slowest are ended. */
  watchBudgetBytes?: number;
  /**
   * Elect one replica (over a Lease) to run the controllers that act on the cluster: the garbage
   * collector and namespace deletion. Absent: this process is the only one and always acts.
   */
  leaderElection?: Pick<
    LeaderElectionConfig,
    'leaseDurationSeconds' | 'renewDeadlineMs' | 'retryPeriodMs' | 'identity'
  >;
  /** kube-controller-manager's --enable-garbage-collector (default true). */
  garbageCollector?: boolean;
  /** What TokenRequest signs with; without it `serviceaccounts/token` is not served. */
  tokens?: TokenRequestSigning;
  /** --authorization-mode, in order (default RBAC). */
  authorizationModes?: readonly AuthorizationMode[];
  /** Every time the API writes or checks (apimachinery/clock.ts); default the system's. */
  clock?: Clock;
  /**
   * --enable-testing-apis: serve testing.mini-apiserver.io (server/testing/), setting `clock`, its
   * metric in `metrics`. Absent: the group is not served.
   */
  testing?: { clock: AdjustableClock; metrics: Registry };
}

export async function createApi(deps: ApiDeps): Promise<Api> {
  const { storage, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const maxRequestBodyBytes = deps.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  const catalog = new Catalog();
  // Namespaces pass the admission chain too (webhooks and policies may match them); the chain's
  // namespace lifecycle reads them back, hence the late binding.
  let namespaces: Store | undefined;
  // kube's admission plugins read namespaces from an informer (here the watch cache), and storage
  // when the cache may be behind.
  const cachedNamespace = (name: string): Promise<KubeObject | undefined> =>
    namespaces!.get(undefined, name, { anyRevision: true }).catch(ignoreNotFound);
  const storedNamespace = (name: string): Promise<KubeObject | undefined> =>
    namespaces!.get(undefined, name).catch(ignoreNotFound);
  // The authorizer chain, installed below with RBAC's stores, which need these plugins first.
  let authorizer: Authorizer = alwaysDeny;
  const askAuthorizer: Authorizer = {
    authorize: (a) => authorizer.authorize(a),
    rulesFor: (u, ns) => authorizer.rulesFor(u, ns),
  };
  // kube's default admission plugins that apply here, run by the store for every write.
  const basePlugins: AdmissionPlugin[] = [
    namespaceLifecycle(async (name, { live }) => {
      const ns = await (live ? storedNamespace : cachedNamespace)(name);
      return ns && { terminating: isTerminating(ns) };
    }),
    ownerReferencesPermissionEnforcement(askAuthorizer, (apiVersion, kind) => {
      const gv = parseGroupVersion(apiVersion);
      const desc = gv && catalog.resourcesIn(gv.group, gv.version).find((d) => d.names.kind === kind && d.store);
      return desc ? { group: desc.group, resource: desc.names.plural, namespaced: desc.namespaced } : undefined;
    }),
  ];
  // One store per built-in kind (per strategy: core's and events.k8s.io's events share theirs),
  // made when first asked for, each with the admission chain its kind's profile names.
  const chains = new Map<AdmissionProfile, AdmissionChain>([['configuration', new AdmissionChain(basePlugins)]]);
  const storeOf = builtinStores((strategy, profile) => {
    const chain = chains.get(profile);
    if (!chain) throw new Error(`the ${profile} admission chain is not built yet`);
    return new Store(storage, strategy, chain, clock);
  });
  // kube's dynamic admission, last in each phase: mutating webhooks; policies, then validating webhooks.
  const dynamicAdmission = installDynamicAdmission({
    catalog,
    stores: {
      mutatingWebhooks: storeOf(MUTATING_WEBHOOK_CONFIGURATIONS),
      validatingWebhooks: storeOf(VALIDATING_WEBHOOK_CONFIGURATIONS),
      policies: storeOf(VALIDATING_ADMISSION_POLICIES),
      bindings: storeOf(VALIDATING_ADMISSION_POLICY_BINDINGS),
    },
    // A miss may be a namespace created a moment ago.
    namespace: async (name) => (await cachedNamespace(name)) ?? storedNamespace(name),
    authorizer: askAuthorizer,
    logger,
  });
  const admissionPlugins = [...basePlugins, dynamicAdmission.mutating, ...dynamicAdmission.validating];
  const admission = new AdmissionChain(admissionPlugins);
  chains.set('standard', admission);
  // RBAC's writes also pass kube's escalation check, against the rules RBAC's index gives their
  // writer: the index is built below, over the very stores the check guards.
  chains.set(
    'rbac',
    new AdmissionChain([
      ...admissionPlugins,
      rbacEscalationCheck({ authorizer: askAuthorizer, sourceFor: (u) => authorization.sourceFor(u) }),
    ]),
  );

  namespaces = storeOf(NAMESPACES);
  const events = storeOf(CORE_EVENTS);
  const crds = storeOf(CUSTOM_RESOURCE_DEFINITIONS);
  const serviceAccounts = storeOf(SERVICE_ACCOUNTS);
  const secrets = storeOf(SECRETS);
  const leases = storeOf(LEASES);
  const services = storeOf(SERVICES);
  installBuiltinKinds(
    catalog,
    BUILTIN_KINDS,
    storeOf,
    new Map([
      ...reviewCreates(askAuthorizer),
      // TokenRequest (`kubectl create token`): a signed token for the ServiceAccount, never stored.
      ...(deps.tokens
        ? [[SERVICE_ACCOUNTS, { token: tokenRequestHandler(deps.tokens, serviceAccounts, secrets) }] as const]
        : []),
    ]),
  );

  const authorization = installAuthorization({
    stores: {
      roles: storeOf(ROLES),
      clusterRoles: storeOf(CLUSTER_ROLES),
      roleBindings: storeOf(ROLE_BINDINGS),
      clusterRoleBindings: storeOf(CLUSTER_ROLE_BINDINGS),
    },
    modes: deps.authorizationModes ?? ['RBAC'],
    logger,
  });
  authorizer = authorization.authorizer;
  // Loaded only with the flag: without it, none of the testing API is in the process.
  const testing = deps.testing
    ? (await import('./testing/install.js')).installTesting({
        catalog,
        storeOf,
        storage,
        clock: deps.testing.clock,
        metrics: deps.testing.metrics,
        logger,
      })
    : undefined;

  // Leader election, as kube-controller-manager's: only the Lease holder empties namespaces and
  // collects garbage. The controllers watch in every replica, so a new leader only re-queues.
  let garbageCollector: GarbageCollector | undefined;
  let namespaceController: NamespaceController | undefined;
  const elector = deps.leaderElection
    ? new LeaderElector(leases, logger.with({ controller: 'leader-election' }), {
        ...deps.leaderElection,
        clock: () => clock.nowMicros(),
        onStartedLeading: () => {
          garbageCollector?.resync();
          authorization.resync();
          dynamicAdmission.resync();
          namespaceController?.resync();
          testing?.resync();
        },
      })
    : undefined;
  const isLeader = elector ? () => elector.isLeader() : () => true;

  const crdController = new CRDController(
    crds,
    catalog,
    (crd) => new Store(storage, customResourceStrategy(crd), admission),
    logger,
  );
  namespaceController = new NamespaceController(namespaces, catalog, logger, { isLeader });
  // The default roles, then RBAC's index (decisions wait for it), then aggregation, as leader;
  // the admission configurations before the server's own first writes, which they may judge.
  await authorization.start(isLeader);
  await dynamicAdmission.start(isLeader);
  // The stored Clock in force before the server's own writes stamp anything.
  await testing?.start(isLeader);
  // Creates kube-system, where the Lease lives, in every replica (idempotent), before electing.
  await namespaceController.start();
  // kube's `default/kubernetes` Service, created once if absent (the secure port, 6443 when not yet known).
  const securePort = Number((deps.serverAddress?.() ?? '').split(':').pop()) || 6443;
  // Looked up first, as kube's controller does: a restart finds it. Not fatal: admission (a
  // webhook) may refuse or be down; kube's controller would retry.
  await services
    .get('default', 'kubernetes')
    .catch(ignoreNotFound)
    .then((found) => found ?? services.create('default', kubernetesService(securePort), { dryRun: false }))
    .catch((err: unknown) => {
      if (!(err instanceof ApiError && err.code === 409))
        logger.warn('could not create the kubernetes Service', { err: String(err) });
    });
  await crdController.start();

  // The garbage collector (ownerReferences, propagationPolicy), started after the CRD controller
  // so that its first lists include every installed CRD kind; kinds added later join through the
  // catalog. It acts only while this replica leads.
  if (deps.garbageCollector !== false) {
    garbageCollector = new GarbageCollector(catalog, logger.with({ controller: 'garbage-collector' }), {
      isLeader,
      clock,
      // kube's warning events (OwnerRefInvalidNamespace), written as the controller.
      recordEvent: async (event) => {
        await events.create(event.metadata.namespace, event, { dryRun: false });
      },
    });
    await garbageCollector.start();
  }
  // Campaigns once now (a lone replica leads from the start), then every retry period; a new
  // leader's resync() re-queues what the graph holds, so starting the controllers first is safe.
  await elector?.start();

  const watches = new WatchRegistry({
    logger,
    ...(deps.minRequestTimeoutSeconds !== undefined ? { minRequestTimeoutSeconds: deps.minRequestTimeoutSeconds } : {}),
    ...(deps.watchBudgetBytes !== undefined ? { budgetBytes: deps.watchBudgetBytes } : {}),
  });
  catalog.onChange(() => watches.closeUnserved(new Set(catalog.stores())));
  const discovery = new Discovery(catalog, deps.serverAddress ?? (() => '127.0.0.1:6443'));
  const openapi = new OpenAPI(catalog);

  async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    user: UserInfo,
    { info, query }: ParsedRequest,
  ): Promise<void> {
    if (!info.isResourceRequest) return serveNonResource(req, res, info.path, query);
    const { desc, store, create } = route(catalog, info);
    if (create) return serveCreateOnly({ req, res, info, desc, user, maxRequestBodyBytes }, create);
    await serveResource({ req, res, info, query, desc, store, watches, maxRequestBodyBytes, user });
  }

  /** A watch over WebSocket: checked like any watch, then upgraded and streamed. */
  async function handleUpgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    user: UserInfo,
    { info, query }: ParsedRequest,
    upgraded: (ws: WebSocket) => void,
  ): Promise<void> {
    if (!info.isResourceRequest || info.verb !== 'watch')
      throw badRequest('only watch requests can be upgraded to a WebSocket');
    const { desc, store } = route(catalog, info);
    // Narrows the type only: route() already answered a watch of a computed create with its 405.
    if (!store) throw methodNotSupported();
    const request = { req, info, query, desc, store, watches, maxRequestBodyBytes, user };
    const options = watchOptions({ ...request, output: negotiateOutput(request) });
    const ws = await acceptWebSocket(req, socket, head);
    upgraded(ws);
    const sink = webSocketWatchSink(ws);
    await serveWatch(sink, options, watches).catch((err: unknown) => {
      // Past the upgrade there is no HTTP status left: the error travels as an ERROR event.
      sink.send(measured(JSON.stringify({ type: 'ERROR', object: toApiError(err).status })));
      sink.end();
    });
  }

  function serveNonResource(
    req: IncomingMessage,
    res: ServerResponse,
    decodedPath: string,
    query: URLSearchParams,
  ): void {
    const path = decodedPath.replace(/\/+$/, '') || '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') throw notFoundPath();
    if (path.startsWith('/openapi/')) {
      const r = openapiResponse(openapi, path, query, req.headers.accept, req.headers['if-none-match']);
      res.writeHead(r.code, r.headers);
      res.end(r.body);
      return;
    }
    const parts = path.split('/').filter(Boolean);
    const aggregated = aggregatedVersion(req.headers.accept);
    let doc: Document | undefined;
    let contentType = 'application/json';
    if (path === '/api' || path === '/apis') {
      const core = path === '/api';
      if (aggregated) {
        doc = discovery.aggregated(core, aggregated);
        contentType = aggregated === 'v2' ? AGGREGATED_V2 : AGGREGATED_V2BETA1;
      } else {
        doc = core ? discovery.legacyCore() : discovery.groupList();
      }
    } else if (parts[0] === 'api' && parts.length === 2) {
      doc = discovery.resourceList('', parts[1]!);
    } else if (parts[0] === 'apis' && parts.length === 2) {
      doc = discovery.group(parts[1]!);
    } else if (parts[0] === 'apis' && parts.length === 3) {
      doc = discovery.resourceList(parts[1]!, parts[2]!);
    }
    if (!doc) throw notFoundPath();
    // Aggregated discovery is the same for everyone and validated by ETag, so kube marks it public.
    const headers = {
      'Content-Type': contentType,
      ETag: doc.etag,
      Vary: 'Accept',
      ...(aggregated ? { 'Cache-Control': 'public' } : {}),
    };
    if (req.headers['if-none-match'] === doc.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Length': String(Buffer.byteLength(doc.body)) });
    res.end(doc.body);
  }

  return {
    async handle(req, res, user, parsed) {
      try {
        await handle(req, res, user, parsed);
      } catch (err) {
        const apiErr = toApiError(err);
        // A stack only for the unexpected: a Status we built (a webhook down, storage away) says it all.
        if (apiErr.code >= 500)
          logger.error('request failed', {
            method: req.method,
            url: req.url,
            err: err instanceof ApiError ? err.message : err instanceof Error ? err.stack : String(err),
          });
        writeStatus(res, apiErr);
      }
    },
    handleUpgrade,
    authorizer,
    storedObjectCounts: () =>
      Promise.all(
        catalog.stores().map(async (store) => ({
          resource: store.kind.group ? `${store.kind.resource}.${store.kind.group}` : store.kind.resource,
          count: await store.objectCount().catch(() => -1),
        })),
      ),
    liveObjects: { serviceAccount: liveObject(serviceAccounts), secret: liveObject(secrets) },
    ...(testing ? { withFaults: testing.around } : {}),
    async close() {
      watches.closeAll();
      testing?.close();
      await authorization.close();
      await dynamicAdmission.close();
      garbageCollector?.close();
      crdController.close();
      namespaceController?.close();
      // After the controllers stopped acting, so a successor never overlaps with us; released
      // (not left to expire) so it takes over at its next round.
      await elector?.stop();
      // Watch caches hold storage watches: stop them before storage closes.
      for (const store of catalog.stores()) store.close();
    },
  };
}

/**
 * The aggregated discovery version an Accept header asks for: the first clause in negotiation
 * order decides, as kube's discovery handler takes the media type negotiated (an aggregated list
 * asked for with `as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=...`, else the legacy document).
 */
function aggregatedVersion(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  if (!accept) return undefined;
  for (const clause of parseAccept(accept)) {
    if (clause.q === 0) continue;
    const p = clause.params;
    if (clause.type === 'application/json' && p['as'] === 'APIGroupDiscoveryList' && p['g'] === 'apidiscovery.k8s.io') {
      if (p['v'] === 'v2' || p['v'] === 'v2beta1') return p['v'];
      continue;
    }
    if (negotiate(clause.type, ['application/json'])) return undefined;
  }
  return undefined;
}
