// Snapshots of the stored state, for the testing API (server/testing/): what both backends share.
// A snapshot is every key in a scope, copied as of one revision. A restore writes the difference
// between the keys now and the snapshot as ordinary writes (creates, updates, deletes) at new
// revisions, so revisions never go back and watchers see each change as an event.
import type { KeyValue } from './interface.js';

/** Which keys a snapshot holds: every key under `prefix` but those under one of `exclude`. */
export interface SnapshotScope {
  prefix: string;
  exclude: readonly string[];
}

export interface SnapshotInfo {
  /** The revision the copy was taken at. */
  revision: number;
  keys: number;
  /** The values' size in UTF-8. */
  bytes: number;
}

export interface RestoreResult {
  /** The revision of the last write (the current one when nothing differed). */
  revision: number;
  created: number;
  updated: number;
  deleted: number;
}

/** What a key holds now: its value and revisions. */
type Held = Pick<KeyValue, 'value' | 'modRevision' | 'createRevision'>;

/** One key to change: to `value`, or deleted (`value` undefined); `current` is what it holds now. */
export interface SnapshotChange {
  key: string;
  value: string | undefined;
  current: Held | undefined;
}

export const inScope = (key: string, scope: SnapshotScope): boolean =>
  key.startsWith(scope.prefix) && !scope.exclude.some((e) => key.startsWith(e));

/**
 * The writes that turn `current` (the keys in scope now) into `saved`: creates of keys only saved
 * has, updates of keys whose values differ, deletes of keys saved lacks; in key order.
 */
export function snapshotDiff(
  saved: ReadonlyMap<string, string>,
  current: readonly (Held & { key: string })[],
): SnapshotChange[] {
  const changes: SnapshotChange[] = [];
  const seen = new Set<string>();
  for (const kv of current) {
    seen.add(kv.key);
    const want = saved.get(kv.key);
    if (want === kv.value) continue;
    const { key, ...held } = kv;
    changes.push({ key, value: want, current: held });
  }
  for (const [key, value] of saved) if (!seen.has(key)) changes.push({ key, value, current: undefined });
  return changes.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** What a restore made of its changes. */
export function restoreCounts(changes: readonly SnapshotChange[]): Omit<RestoreResult, 'revision'> {
  let created = 0;
  let updated = 0;
  let deleted = 0;
  for (const c of changes) {
    if (c.value === undefined) deleted++;
    else if (c.current === undefined) created++;
    else updated++;
  }
  return { created, updated, deleted };
}

/**
 * `changes` cut into transactions etcd takes with its default limits: at most `maxOps` operations
 * (--max-txn-ops, 128) and about `maxBytes` of keys and values (under --max-request-bytes, 1.5
 * MiB); a change larger than that goes alone. In order.
 */
export function transactionBatches(
  changes: readonly SnapshotChange[],
  maxOps: number,
  maxBytes: number,
): SnapshotChange[][] {
  const batches: SnapshotChange[][] = [];
  let batch: SnapshotChange[] = [];
  let bytes = 0;
  for (const c of changes) {
    const size = Buffer.byteLength(c.key) + (c.value === undefined ? 0 : Buffer.byteLength(c.value));
    if (batch.length > 0 && (batch.length >= maxOps || bytes + size > maxBytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(c);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
