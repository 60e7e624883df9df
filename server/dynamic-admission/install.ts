// Admission configured by API objects, installed into the API over the stores of the
// admissionregistration.k8s.io/v1 kinds (webhook configurations, ValidatingAdmissionPolicy and its
// binding; the table's, server/registry/builtin/admissionregistration.ts): informers keeping
// them in memory from the watch cache (fed by storage, so every replica on one etcd applies the
// same), and kube's three plugins over them: MutatingAdmissionWebhook, ValidatingAdmissionPolicy
// and ValidatingAdmissionWebhook, which the API puts last in its chain, in that order.
import type { Authorizer } from '../../apimachinery/authorization.js';
import { ignoreNotFound } from '../../apimachinery/errors.js';
import type { Logger } from '../../apimachinery/log.js';
import type { JsonObject, JsonValue, KubeObject } from '../../apimachinery/object.js';
import { labelSelectorFromMeta, matchesLabels } from '../../apimachinery/selectors/labels.js';
import { parseGroupVersion } from '../../apimachinery/versions.js';
import type { AdmissionPlugin } from '../../admission/interface.js';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from '../../admission/webhook/dispatcher.js';
import { validatingAdmissionPolicy } from '../../admission/policy/plugin.js';
import { TypeCheckingController } from './type-checking.js';
import type { Catalog } from '../registry/catalog.js';
import { Informer, informerKey } from '../registry/informer.js';
import type { Store } from '../registry/store.js';
import { applyJsonPatchOperations } from '../endpoints/patch/json-patch.js';
interface DynamicAdmissionDeps {
  catalog: Catalog;
  /** The configuration kinds' stores (the table's: their writes never pass dynamic admission). */
  stores: ConfigurationStores;
  /** A namespace, for namespaceSelector and the policies' namespaceObject; undefined when there is none. */
  namespace(name: string): Promise<KubeObject | undefined>;
  /** For the policies' `authorizer` variable. */
  authorizer: Authorizer;
  logger: Logger;
}

interface DynamicAdmission {
  /** Mutating webhooks: last of the mutating plugins. */
  readonly mutating: AdmissionPlugin;
  /** Policies, then validating webhooks: last of the validating plugins. */
  readonly validating: readonly AdmissionPlugin[];
  /** Resolves once every configuration has been listed: requests before that would skip them. */
  start(isLeader: () => boolean): Promise<void>;
  /** A new leader type-checks what the last one left unchecked. */
  resync(): void;
  /** Resolves once nothing is being written any more. */
  close(): Promise<void>;
}

interface ConfigurationStores {
  mutatingWebhooks: Store;
  validatingWebhooks: Store;
  policies: Store;
  bindings: Store;
}

/** The objects of one kind, kept by an informer; the array is rebuilt on change, so engines may cache by identity. */
class Configurations {
  private readonly byKey = new Map<string, KubeObject>();
  private current: readonly KubeObject[] = [];
  readonly informer: Informer;

  constructor(store: Store, logger: Logger, onUpsert?: (obj: KubeObject) => void) {
    const changed = (): void => {
      this.current = [...this.byKey.values()];
    };
    this.informer = new Informer(
      store,
      {
        upsert: (obj) => (this.byKey.set(informerKey(obj), obj), changed(), onUpsert?.(obj)),
        remove: (obj) => (this.byKey.delete(informerKey(obj)), changed()),
      },
      logger,
    );
  }

  get all(): readonly KubeObject[] {
    return this.current;
  }
}

export function installDynamicAdmission(deps: DynamicAdmissionDeps): DynamicAdmission {
  const { catalog, stores, logger } = deps;
  const log = logger.with({ component: 'dynamic-admission' });
  const configs = {
    mutatingWebhooks: new Configurations(stores.mutatingWebhooks, log),
    validatingWebhooks: new Configurations(stores.validatingWebhooks, log),
    policies: new Configurations(stores.policies, log, (p) => typeChecking.enqueue(p)),
    bindings: new Configurations(stores.bindings, log),
  };

  // kube's ValidatingAdmissionPolicy status controller (on the elected replica): each new generation
  // of a policy gets status.typeChecking, its expressions type-checked against the matched custom
  // resources' schemas.
  const typeChecking = new TypeCheckingController(
    stores.policies,
    {
      kindsFor: (gvr) => {
        const desc = catalog.lookup(gvr.group, gvr.version, gvr.resource);
        return desc ? [{ group: desc.group, version: desc.version, kind: desc.names.kind }] : [];
      },
      // Custom resources' schemas; built-in kinds' refer to named definitions the checker does not read.
      schemaFor: (gvk) =>
        catalog.resourcesIn(gvk.group, gvk.version).find((d) => d.names.kind === gvk.kind && !d.serving.typed)?.schema,
    },
    log,
  );

  // A namespace's labels: {} for one without labels, undefined only when there is none (kube's 404).
  const namespaceLabels = async (name: string): Promise<Record<string, string> | undefined> => {
    const ns = await deps.namespace(name);
    return ns ? (ns.metadata.labels ?? {}) : undefined;
  };
  const hooks = {
    namespaceLabels,
    warn: (a: { warn?: (text: string) => void }, text: string) => a.warn?.(text),
    annotate: (a: { annotate?: (key: string, value: string) => void }, key: string, value: string) =>
      a.annotate?.(key, value),
    onIgnoredError: (webhook: string, message: string) =>
      log.warn('webhook failed, ignored (failurePolicy Ignore)', { webhook, err: message }),
    authorizer: deps.authorizer,
  };

  /** A paramKind's served resource (kube's REST mapping), if it is served. */
  const paramResource = (kind: { apiVersion: string; kind: string }) => {
    const gv = parseGroupVersion(kind.apiVersion);
    return gv
      ? catalog.resourcesIn(gv.group, gv.version).find((d) => d.names.kind === kind.kind && d.store)
      : undefined;
  };

  return {
    mutating: mutatingWebhookPlugin({
      ...hooks,
      configurations: () => configs.mutatingWebhooks.all,
      applyJsonPatch: (doc: JsonValue, ops: readonly JsonObject[]) => applyJsonPatchOperations(doc, ops),
    }),
    validating: [
      validatingAdmissionPolicy({
        policies: () => configs.policies.all,
        bindings: () => configs.bindings.all,
        paramScope: (kind) => {
          const desc = paramResource(kind);
          return desc ? (desc.namespaced ? 'Namespaced' : 'Cluster') : undefined;
        },
        // From the watch cache, as kube reads params through an informer's lister: a request never
        // waits on storage for them (on an etcd without safe consistent reads, it would for each).
        params: async (kind, namespace, lookup) => {
          const store = paramResource(kind)?.store;
          if (!store) return [];
          const ns = store.kind.namespaced ? namespace : undefined;
          if ('name' in lookup) {
            const obj = await store.get(ns, lookup.name, { anyRevision: true }).catch(ignoreNotFound);
            return obj ? [obj] : [];
          }
          const selector = labelSelectorFromMeta(lookup.selector);
          const predicate = (o: KubeObject) => matchesLabels(selector, o.metadata.labels);
          return (await store.list(ns, { anyRevision: true, predicate })).items;
        },
        namespace: deps.namespace,
        authorizer: deps.authorizer,
      }),
      validatingWebhookPlugin({ ...hooks, configurations: () => configs.validatingWebhooks.all }),
    ],
    async start(isLeader) {
      typeChecking.isLeader = isLeader;
      await Promise.all(Object.values(configs).map((c) => c.informer.start()));
    },
    resync() {
      for (const p of configs.policies.all) typeChecking.enqueue(p);
    },
    // The stores are the catalog's, closed with the rest.
    async close() {
      for (const c of Object.values(configs)) c.informer.close();
      await typeChecking.close();
    },
  };
}
