// A Storage that times every read and write of the one it wraps, for kube's
// etcd_request_duration_seconds (k8s.io/apiserver/pkg/storage/etcd3/metrics, v1.33): the
// operation as kube's etcd3 store names it (get, list, create, update, delete) and the type, the
// resource as kube's GroupResource.String() writes it ("pods", "deployments.apps"), read from the
// key. Either backend can be wrapped; what is timed is the call, retries included. Watches,
// revisions, compaction, pings and snapshots pass through untimed, as kube's store records none
// of them.
import { isStorageError } from './errors.js';
import type {
  KeyValue,
  RangeOptions,
  RangeResult,
  Storage,
  WatchCallbacks,
  WatchHandle,
  WatchProgressSupport,
} from './interface.js';
import type { RestoreResult, SnapshotInfo, SnapshotScope } from './snapshot.js';

type StorageOperation = 'get' | 'list' | 'listWithCount' | 'create' | 'update' | 'delete';

export interface StorageObserver {
  /**
   * One finished call: how long it took and whether it failed. A create of a key that exists, a
   * compare-and-swap that lost and a delete of a key that is gone did not fail: in kube's store
   * these are answers of a successful etcd transaction, not errors of the request.
   */
  observe(operation: StorageOperation, type: string, seconds: number, failed: boolean): void;
}

const REGISTRY_PREFIX = '/registry/';

/** API groups without a dot in their name; any other first segment without one is a core resource. */
const DOTLESS_GROUPS = new Set(['apps', 'autoscaling', 'batch', 'policy', 'extensions']);

/**
 * The resource a key (or key prefix) belongs to, as kube's GroupResource.String(): keys are laid out
 * /registry/<group>/<resource>/... or, for the core group, /registry/<resource>/... (see
 * server/registry/keys.ts). A group is told from a core resource by the dot every other group
 * name has (custom resources' groups must have one). "" for keys outside /registry/.
 */
export function resourceTypeOfKey(key: string): string {
  if (!key.startsWith(REGISTRY_PREFIX)) return '';
  const rest = key.slice(REGISTRY_PREFIX.length);
  const slash = rest.indexOf('/');
  const first = slash < 0 ? rest : rest.slice(0, slash);
  if (!first.includes('.') && !DOTLESS_GROUPS.has(first)) return first;
  if (slash < 0) return '';
  const after = rest.slice(slash + 1);
  const next = after.indexOf('/');
  const resource = next < 0 ? after : after.slice(0, next);
  return resource === '' ? '' : `${resource}.${first}`;
}

class InstrumentedStorage implements Storage {
  /** The inner store's, timed as the get it stands for; absent as it is. */
  readonly modRevision?: (key: string) => Promise<number | undefined>;

  constructor(
    private readonly inner: Storage,
    private readonly observer: StorageObserver,
    private readonly typeOf: (key: string) => string,
  ) {
    const modRevision = inner.modRevision?.bind(inner);
    if (modRevision) this.modRevision = (key) => this.timed('get', key, () => modRevision(key));
  }

  get backend(): string {
    return this.inner.backend;
  }

  private async timed<T>(operation: StorageOperation, key: string, call: () => Promise<T>): Promise<T> {
    const start = performance.now();
    let failed = false;
    try {
      return await call();
    } catch (err) {
      failed = !(
        isStorageError(err, 'KeyExists') ||
        isStorageError(err, 'Conflict') ||
        isStorageError(err, 'NotFound')
      );
      throw err;
    } finally {
      this.observer.observe(operation, this.typeOf(key), (performance.now() - start) / 1000, failed);
    }
  }

  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    return this.timed('get', key, () => this.inner.get(key, opts));
  }

  range(prefix: string, opts?: RangeOptions): Promise<RangeResult> {
    return this.timed('list', prefix, () => this.inner.range(prefix, opts));
  }

  count(prefix: string): Promise<number> {
    return this.timed('listWithCount', prefix, () => this.inner.count(prefix));
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.timed('create', key, () => this.inner.create(key, value));
  }

  update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    return this.timed('update', key, () => this.inner.update(key, value, expectedRevision));
  }

  delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    return this.timed('delete', key, () => this.inner.delete(key, expectedRevision));
  }

  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle {
    return this.inner.watch(prefix, afterRevision, callbacks);
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  watchProgressSupport(): Promise<WatchProgressSupport> {
    return this.inner.watchProgressSupport();
  }

  ping(): Promise<boolean> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  saveSnapshot(name: string, scope: SnapshotScope): Promise<SnapshotInfo> {
    return this.inner.saveSnapshot(name, scope);
  }

  restoreSnapshot(name: string): Promise<RestoreResult> {
    return this.inner.restoreSnapshot(name);
  }

  deleteSnapshot(name: string): Promise<void> {
    return this.inner.deleteSnapshot(name);
  }

  snapshotNames(): Promise<string[]> {
    return this.inner.snapshotNames();
  }
}

/** `storage` with each get, range, create, update and delete reported to `observer`. */
export function instrumentStorage(
  storage: Storage,
  observer: StorageObserver,
  typeOf: (key: string) => string = resourceTypeOfKey,
): Storage {
  return new InstrumentedStorage(storage, observer, typeOf);
}
