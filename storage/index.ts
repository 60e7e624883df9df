// Picks the backend: etcd when servers are given, otherwise the embedded SQLite store.
import type { Storage } from './interface.js';

export type StorageOptions =
  | { kind: 'sqlite' /** a file path, or ':memory:' */; path: string }
  | { kind: 'etcd'; endpoints: string[] /** key prefix, as kube's --etcd-prefix */; prefix?: string };

export async function openStorage(opts: StorageOptions): Promise<Storage> {
  if (opts.kind === 'sqlite') {
    const { SqliteStorage } = await import('./sqlite.js');
    return SqliteStorage.open(opts.path);
  }
  const { EtcdStorage } = await import('./etcd.js');
  return EtcdStorage.connect(opts.endpoints, opts.prefix);
}

export type { Storage, KeyValue, WatchEvent, RangeResult } from './interface.js';
export { StorageError, isStorageError } from './errors.js';
