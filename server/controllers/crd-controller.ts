// The CRD controller: turns stored CustomResourceDefinitions into served APIs. It decides names
// (NamesAccepted), installs the resource in the catalog and only then reports Established, so a
// client that saw Established finds the API in discovery; on deletion it removes every custom
// resource first, then the finalizer, then the routes.
import type { Logger } from '../../apimachinery/log.js';
import { type KubeObject, cloneJson, nowTimestamp } from '../../apimachinery/object.js';
import { CUSTOM_RESOURCE_PROFILE, type Catalog, type ResourceDescriptor } from '../registry/catalog.js';
import { Informer } from '../registry/informer.js';
import type { Store } from '../registry/store.js';
import { setCondition } from '../registry/builtin/crds.js';
import { ApiError, ignoreNotFound } from '../../apimachinery/errors.js';
import { decideNames } from '../../crd/naming.js';
import { crdStorageVersionHash } from '../../crd/storage-version.js';
import { deprecationWarning } from '../../crd/deprecation.js';
import {
  CRD_CLEANUP_FINALIZER,
  type CRDCondition,
  type CustomResourceDefinition,
} from '../../apimachinery/apis/apiextensions.js';

const CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const CLEANUP_RETRY_MS = 1000;

/** Where a custom resource store is created, so the API layer can add admission hooks to it. */
type StoreFactory = (crd: CustomResourceDefinition) => Store;

export class CRDController {
  private readonly crds = new Map<string, CustomResourceDefinition>();
  /**
   * The store serving each CRD, kept while its spec is unchanged, and what the catalog was last
   * given for it (`served`: its generation, accepted names and whether it is terminating).
   */
  private readonly stores = new Map<string, { generation: number; store: Store; served?: string }>();
  private readonly informer: Informer;
  private readonly cleanups = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly crdStore: Store,
    private readonly catalog: Catalog,
    private readonly newStore: StoreFactory,
    private readonly logger: Logger,
  ) {
    this.informer = new Informer(
      crdStore,
      {
        upsert: (obj) => this.upsert(obj as CustomResourceDefinition),
        remove: (obj) => this.uninstall(obj as CustomResourceDefinition),
      },
      logger,
    );
  }

  /** Resolves when every stored CRD has been handled once (its API served if established). */
  start(): Promise<void> {
    return this.informer.start();
  }

  close(): void {
    this.closed = true;
    this.informer.close();
    for (const t of this.timers) clearTimeout(t);
  }

  /** metav1.Time now on the server's clock, for the conditions' lastTransitionTime. */
  private now(): string {
    return nowTimestamp(this.crdStore.clock);
  }

  /** The store for a CRD's resource, if it is served. */
  storeFor(crdName: string): Store | undefined {
    return this.stores.get(crdName)?.store;
  }

  private async upsert(crd: CustomResourceDefinition): Promise<void> {
    const name = crd.metadata.name ?? '';
    this.crds.set(name, crd);
    if (crd.metadata.deletionTimestamp) {
      // A terminating CRD still serves reads and deletes of its objects, as kube's handler does,
      // but only if it ever got its names: a CRD that lost a name conflict is never served.
      if (isEstablished(crd)) this.install(crd, true);
      this.startCleanup(name);
      return;
    }
    const others = [...this.crds.values()].filter((c) => c.metadata.name !== name);
    const decision = decideNames(crd, others);
    const namesAccepted = decision.conditions.find((c) => c.type === 'NamesAccepted')?.status === 'True';
    if (namesAccepted)
      this.install({ ...crd, status: { ...crd.status!, acceptedNames: decision.acceptedNames } }, false);
    await this.writeStatus(name, (current) => {
      current.status = { ...current.status!, acceptedNames: decision.acceptedNames };
      for (const cond of decision.conditions) setCondition(current, cond, this.now());
    });
  }

  private install(crd: CustomResourceDefinition, terminating: boolean): void {
    const name = crd.metadata.name ?? '';
    const generation = crd.metadata.generation ?? 0;
    let entry = this.stores.get(name);
    const previous = entry?.store;
    // A new spec means a new strategy; a terminating CRD keeps its store (and the watches on it)
    // until it goes, whatever else changes meanwhile.
    if (!entry || (entry.generation !== generation && !terminating)) {
      entry = { generation, store: this.newStore(crd) };
      this.stores.set(name, entry);
    }
    const names = crd.status?.acceptedNames?.plural ? crd.status.acceptedNames : crd.spec.names;
    const store = entry.store;
    // A status write (the controller's own, after every install) changes nothing served: the
    // catalog keeps its descriptors, so discovery and OpenAPI keep their documents.
    const served = JSON.stringify([generation, names, terminating]);
    if (store === previous && entry.served === served) return;
    entry.served = served;
    const hash = crdStorageVersionHash(crd);
    const descriptors: ResourceDescriptor[] = crd.spec.versions
      .filter((v) => v.served)
      .map((v) => ({
        group: crd.spec.group,
        version: v.name,
        names: {
          plural: names.plural,
          singular: names.singular ?? names.kind.toLowerCase(),
          kind: names.kind,
          listKind: names.listKind ?? `${names.kind}List`,
          shortNames: names.shortNames ?? [],
          categories: names.categories ?? [],
        },
        namespaced: crd.spec.scope === 'Namespaced',
        verbs: CR_VERBS,
        subresources: [...(v.subresources?.status ? ['status'] : []), ...(v.subresources?.scale ? ['scale'] : [])],
        ...(v.subresources?.scale ? { scale: v.subresources.scale } : {}),
        store,
        serving: CUSTOM_RESOURCE_PROFILE,
        ...(v.additionalPrinterColumns ? { printerColumns: v.additionalPrinterColumns } : {}),
        ...(v.deprecated ? { deprecationWarning: deprecationWarning(crd, v.name) } : {}),
        storageVersionHash: hash,
        terminating,
        ...(v.schema?.openAPIV3Schema ? { schema: v.schema.openAPIV3Schema } : {}),
      }));
    this.catalog.setResource(crd.spec.group, crd.spec.names.plural, descriptors);
    // Its watches have ended with the catalog change; its watch cache goes now.
    if (previous && previous !== store) previous.close();
  }

  private uninstall(crd: CustomResourceDefinition): void {
    const name = crd.metadata.name ?? '';
    this.crds.delete(name);
    const store = this.stores.get(name)?.store;
    this.stores.delete(name);
    this.catalog.setResource(crd.spec.group, crd.spec.names.plural, []);
    store?.close();
  }

  private async writeStatus(name: string, mutate: (crd: CustomResourceDefinition) => void): Promise<void> {
    // As kube's controllers decide from their informer's copy: a write that would change nothing
    // there is not made, and the stored object (as large as its schemas) is not read and copied.
    // A newer stored version comes back through the informer, and is decided again then.
    const seen = this.crds.get(name);
    if (seen && !changedBy(statusWriteOf(seen), mutate)) return;
    try {
      await this.crdStore.update(
        undefined,
        name,
        (current) => {
          const next = statusWriteOf(current as CustomResourceDefinition);
          if (!changedBy(next, mutate)) throw unchanged;
          return next;
        },
        // Nothing here reads the result: the watch cache may hold it (as large as the CRD's schemas)
        // rather than decode its bytes again. The write is derived: the stored CRD is not copied.
        { subresource: 'status', dryRun: false, handedOver: true, derived: true },
      );
    } catch (err) {
      if (err === unchanged) return;
      if (err instanceof ApiError && err.code === 404) return;
      throw err;
    }
  }

  /**
   * Deletes every custom resource of a terminating CRD, then lets the CRD go: kube's CRDFinalizer
   * (apiextensions-apiserver pkg/controller/finalizer/crd_finalizer.go), conditions included.
   */
  private startCleanup(name: string): void {
    if (this.cleanups.has(name) || this.closed) return;
    this.cleanups.add(name);
    const run = async (): Promise<void> => {
      const crd = this.crds.get(name);
      if (this.closed) return;
      // Gone, or someone else's finalizers are all that is left: nothing for us to do.
      if (!crd?.metadata.finalizers?.includes(CRD_CLEANUP_FINALIZER)) {
        this.cleanups.delete(name);
        return;
      }
      await this.writeStatus(name, (c) =>
        setCondition(
          c,
          {
            type: 'Terminating',
            status: 'True',
            reason: 'InstanceDeletionInProgress',
            message: 'CustomResource deletion is in progress',
          },
          this.now(),
        ),
      );
      let done: CRDCondition;
      if (isEstablished(crd)) {
        const store = this.stores.get(name)?.store;
        if (!store) {
          this.retryCleanup(name, run);
          return;
        }
        const { items } = await store.list(undefined);
        for (const obj of items) {
          if (obj.metadata.deletionTimestamp) continue;
          await store.delete(obj.metadata.namespace, obj.metadata.name ?? '', { dryRun: false }).catch(ignoreNotFound);
        }
        const remaining = (await store.list(undefined)).items.length;
        if (remaining > 0) {
          // Objects with finalizers of their own keep the CRD until their controllers let go.
          this.retryCleanup(name, run);
          return;
        }
        done = {
          type: 'Terminating',
          status: 'False',
          reason: 'InstanceDeletionCompleted',
          message: 'removed all instances',
        };
      } else {
        done = {
          type: 'Terminating',
          status: 'False',
          reason: 'NeverEstablished',
          message: 'resource was never established',
        };
      }
      // kube sets this condition and drops its finalizer in one status update; when that empties
      // the finalizers the CRD is deleted without the write, so watchers never see the condition.
      await this.writeStatus(name, (c) => {
        setCondition(c, done, this.now());
        c.metadata.finalizers = (c.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
      });
      this.cleanups.delete(name);
    };
    run().catch((err: unknown) => {
      this.logger.warn('CRD cleanup failed, retrying', { crd: name, err: String(err) });
      this.retryCleanup(name, run);
    });
  }

  private retryCleanup(name: string, run: () => Promise<void>): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      run().catch((err: unknown) => {
        this.logger.warn('CRD cleanup failed, retrying', { crd: name, err: String(err) });
        this.retryCleanup(name, run);
      });
    }, CLEANUP_RETRY_MS);
    this.timers.add(t);
  }
}

const unchanged = new Error('unchanged');

/**
 * A status write's object made from `crd`, which stays as it is: its own top level, metadata and
 * status (a copy, for `mutate`); its spec, which the status strategy keeps and defaulting a stored
 * CRD leaves alone, is `crd`'s.
 */
export const statusWriteOf = (crd: CustomResourceDefinition): CustomResourceDefinition => ({
  ...crd,
  metadata: { ...crd.metadata },
  status: cloneJson(crd.status),
});

/** Applies `mutate` to `crd`; whether it changed what a status write may change here: the status, and the cleanup finalizer. */
function changedBy(crd: CustomResourceDefinition, mutate: (crd: CustomResourceDefinition) => void): boolean {
  const written = (c: KubeObject): string => JSON.stringify([c['status'], c.metadata.finalizers]);
  const before = written(crd);
  mutate(crd);
  return written(crd) !== before;
}

const isEstablished = (crd: CustomResourceDefinition): boolean =>
  crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
