// Snapshots: a Snapshot object is saved by this controller once created (storage's saveSnapshot
// of every object but the testing API's own and the controllers' leader Lease), which then marks
// it Ready; deleting it deletes what was saved. POST snapshots/<name>/restore (restoreHandler)
// puts the saved state back through storage's restoreSnapshot: the difference as new
// resourceVersions, which every watch sees.
import { TESTING_API_VERSION } from '../../apimachinery/apis/testing.js';
import type { Clock } from '../../apimachinery/clock.js';
import { ApiError, badRequest, conflict } from '../../apimachinery/errors.js';
import type { Logger } from '../../apimachinery/log.js';
import { type KubeObject, nowTimestamp } from '../../apimachinery/object.js';
import { isStorageError } from '../../storage/errors.js';
import type { Storage } from '../../storage/interface.js';
import type { SnapshotInfo, SnapshotScope } from '../../storage/snapshot.js';
import type { CreateOnlyHandler } from '../registry/catalog.js';
import { Informer } from '../registry/informer.js';
import type { Store } from '../registry/store.js';
import { snapshotKind, snapshotStatus } from '../registry/builtin/testing.js';
import { qualifiedResource } from '../registry/strategy.js';

const isReady = (obj: KubeObject): boolean =>
  snapshotStatus(obj).conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

interface SnapshotControllerDeps {
  store: Store;
  storage: Storage;
  /** What a snapshot holds. */
  scope: SnapshotScope;
  logger: Logger;
  /** One replica saves (on etcd several may share the data). */
  isLeader: () => boolean;
}

export class SnapshotController {
  private readonly informer: Informer;
  /** The Snapshots as last seen, by name. */
  private readonly known = new Map<string, KubeObject>();

  constructor(private readonly deps: SnapshotControllerDeps) {
    this.informer = new Informer(
      deps.store,
      {
        upsert: (obj) => {
          this.known.set(obj.metadata.name ?? '', obj);
          return this.save(obj);
        },
        remove: (obj) => {
          const name = obj.metadata.name ?? '';
          if (this.known.get(name)?.metadata.uid === obj.metadata.uid) this.known.delete(name);
          if (this.deps.isLeader()) return this.deps.storage.deleteSnapshot(name);
        },
      },
      deps.logger.with({ controller: 'testing-snapshots' }),
    );
  }

  /** Every Snapshot handled once; what was saved for Snapshots that are gone is deleted. */
  async start(): Promise<void> {
    await this.informer.start();
    if (!this.deps.isLeader()) return;
    for (const name of await this.deps.storage.snapshotNames())
      if (!this.known.has(name)) await this.deps.storage.deleteSnapshot(name);
  }

  /** A new leader saves what the last one left unsaved. */
  resync(): void {
    for (const obj of this.known.values())
      this.save(obj).catch((err: unknown) => this.deps.logger.warn('snapshot not saved', { err: String(err) }));
  }

  close(): void {
    this.informer.close();
  }

  private async save(obj: KubeObject): Promise<void> {
    if (isReady(obj) || !this.deps.isLeader()) return;
    const name = obj.metadata.name ?? '';
    let saved: SnapshotInfo | Error;
    try {
      saved = await this.deps.storage.saveSnapshot(name, this.deps.scope);
    } catch (err) {
      saved = err instanceof Error ? err : new Error(String(err));
    }
    const status =
      saved instanceof Error
        ? { conditions: [this.condition('False', 'SaveFailed', saved.message)] }
        : {
            resourceVersion: String(saved.revision),
            objects: saved.keys,
            bytes: saved.bytes,
            conditions: [
              this.condition('True', 'Saved', `${saved.keys} objects as of resourceVersion ${saved.revision}`),
            ],
          };
    await this.deps.store
      .update(
        undefined,
        name,
        (current) => {
          // Replaced under its name meanwhile: the new one is saved on its own turn.
          if (current.metadata.uid !== obj.metadata.uid) throw new Replaced();
          current['status'] = status;
          return current;
        },
        { dryRun: false, subresource: 'status' },
      )
      .catch((err: unknown) => {
        if (err instanceof Replaced || (err instanceof ApiError && err.code === 404)) return;
        throw err;
      });
  }

  private condition(status: 'True' | 'False', reason: string, message: string): Record<string, string> {
    return {
      type: 'Ready',
      status,
      reason,
      message,
      lastTransitionTime: nowTimestamp(this.deps.store.clock),
    };
  }
}

class Replaced extends Error {}

/**
 * POST snapshots/<name>/restore: the body is a SnapshotRestore (or empty); the answer, 201, says
 * what the restore changed. A Snapshot not yet saved is a 409, as a write that cannot be done yet.
 */
export function restoreHandler(snapshots: Store, storage: Storage, clock: Clock): CreateOnlyHandler {
  return async ({ obj, name }) => {
    const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
    if (
      (apiVersion !== undefined && apiVersion !== TESTING_API_VERSION) ||
      (kind !== undefined && kind !== 'SnapshotRestore')
    )
      throw badRequest(`the body must be a ${TESTING_API_VERSION} SnapshotRestore`);
    const snapshot = await snapshots.get(undefined, name);
    const resource = qualifiedResource(snapshotKind);
    if (!isReady(snapshot))
      throw conflict(resource, name, 'the snapshot is not saved yet: wait for its Ready condition');
    const restored = await storage.restoreSnapshot(name).catch((err: unknown) => {
      if (isStorageError(err, 'NotFound')) throw conflict(resource, name, 'what it saved is gone');
      if (isStorageError(err, 'Conflict'))
        throw conflict(resource, name, 'objects kept changing while it was restored');
      throw err;
    });
    return {
      apiVersion: TESTING_API_VERSION,
      kind: 'SnapshotRestore',
      metadata: { name, creationTimestamp: nowTimestamp(clock) },
      status: {
        resourceVersion: String(restored.revision),
        created: restored.created,
        updated: restored.updated,
        deleted: restored.deleted,
      },
    };
  };
}
