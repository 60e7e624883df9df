// The storage contract every backend (embedded SQLite, etcd) implements: an MVCC key-value store
// in the shape of etcd's, which is what kube-apiserver's registry assumes.
//
// Revisions are one global, strictly increasing counter per store. A key's modRevision becomes the
// object's resourceVersion; createRevision tells a re-created key from an old one.
import type { RestoreResult, SnapshotInfo, SnapshotScope } from './snapshot.js';

export interface KeyValue {
  key: string;
  /** The stored bytes as text (objects are stored as JSON). */
  value: string;
  createRevision: number;
  modRevision: number;
}

export interface RangeOptions {
  /** At most this many keys; `more` says whether keys were left out. */
  limit?: number;
  /** Start at this key (inclusive) instead of the prefix itself; must lie under the prefix. */
  startKey?: string;
  /** Read as of this revision (a snapshot); a compacted revision throws `Compacted`. */
  revision?: number;
}

export interface RangeResult {
  /** Keys in ascending byte order. */
  kvs: KeyValue[];
  /** True when `limit` cut the answer short. */
  more: boolean;
  /** The revision the read was served at (the store's current revision when none was asked). */
  revision: number;
}

type WatchEventType = 'create' | 'update' | 'delete';

export interface WatchEvent {
  type: WatchEventType;
  /**
   * The key after the change. For a delete: modRevision is the delete's revision and value is the
   * last value the key had, so a watcher can still tell what was deleted.
   */
  kv: KeyValue;
  /** The key before the change, for update and delete. */
  prevKv?: KeyValue;
}

export interface WatchHandle {
  close(): void;
  /**
   * Asks for an onProgress call with the store's current revision once every event up to it has
   * been delivered (etcd's progress notification): how a cache learns it is up to date when
   * nothing under its prefix changed.
   */
  requestProgress(): void;
}

export interface WatchCallbacks {
  /** Events in revision order; one call may carry several events. Never called after close(). */
  onEvents(events: WatchEvent[]): void;
  /**
   * The watch has ended and will deliver nothing more: `Compacted` when the start revision is
   * gone, `Unavailable` when the backend could not resume in time. Not called after close().
   */
  onError(err: Error): void;
  /** Every event up to `revision` has been delivered (an answer to requestProgress). */
  onProgress?(revision: number): void;
}

export interface WatchProgressSupport {
  supported: boolean;
  /** Why, for the start-up log: the backend, and on etcd each endpoint's version. */
  reason: string;
}

export interface Storage {
  /** 'sqlite' or 'etcd', for logs and metrics. */
  readonly backend: string;

  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined>;
  /**
   * The key's current modRevision, its value left unread (undefined when absent): for a reader that
   * holds the value that revision wrote (the watch cache). Only where reading the value costs more
   * than leaving it (SQLite's index answers alone); etcd sends it either way.
   */
  modRevision?(key: string): Promise<number | undefined>;
  /** Every key that starts with `prefix` (a plain byte prefix: '/a/' never matches '/ab/'). */
  range(prefix: string, opts?: RangeOptions): Promise<RangeResult>;
  /** How many keys start with `prefix` now (etcd's count-only range): kube's apiserver_storage_objects. */
  count(prefix: string): Promise<number>;
  /** Create only if absent; throws `KeyExists` otherwise. */
  create(key: string, value: string): Promise<KeyValue>;
  /** Replace only if the key's modRevision is `expectedRevision`; throws `Conflict` or `NotFound`. */
  update(key: string, value: string, expectedRevision: number): Promise<KeyValue>;
  /**
   * Delete, if given only when the key's modRevision is `expectedRevision`. Returns the deleted
   * key as a delete event carries it (modRevision is the delete's revision, value the last one).
   */
  delete(key: string, expectedRevision?: number): Promise<KeyValue>;
  /** Events under `prefix` with revision > afterRevision, then every later one. */
  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle;
  /** The store's current revision (the newest write's). */
  currentRevision(): Promise<number>;
  /** Forget superseded versions at or below `revision`; reads and watches below it fail. */
  compact(revision: number): Promise<void>;
  /** The oldest revision a read or watch may still ask for. */
  compactedRevision(): Promise<number>;
  /**
   * Whether onProgress can be trusted to mean every event up to its revision was delivered: kube's
   * RequestWatchProgress support. Asked once; a consistent list is served from the watch cache
   * only when it is (storage/cacher.ts), as kube's cacher delegates it to etcd otherwise.
   */
  watchProgressSupport(): Promise<WatchProgressSupport>;
  /** True when the backend answers (for /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;

  /**
   * Copies every key in `scope` as of the current revision under `name` (snapshot.ts), replacing
   * a snapshot of that name. Snapshots are kept apart from the objects: no range or watch of
   * /registry/ sees them (SQLite keeps them in tables of their own, etcd under
   * /mini-apiserver/snapshots/).
   */
  saveSnapshot(name: string, scope: SnapshotScope): Promise<SnapshotInfo>;
  /**
   * Makes the keys in the saved scope what snapshot `name` holds, writing the difference as new
   * revisions (each change its own on SQLite; on etcd one per transaction of at most etcd's
   * default 128 operations); throws NotFound when there is no such snapshot.
   */
  restoreSnapshot(name: string): Promise<RestoreResult>;
  deleteSnapshot(name: string): Promise<void>;
  /** The names of the snapshots held. */
  snapshotNames(): Promise<string[]>;
}

/** etcd's default request size limit (--max-request-bytes); both backends refuse larger values. */
export const MAX_VALUE_BYTES = 1.5 * 1024 * 1024;
