// A SQLite store in a fresh temporary directory: a real file, so restarts and locks are real too.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Storage } from '../../storage/interface.js';
import { SqliteStorage } from '../../storage/sqlite.js';
import type { BackendFixture } from './backends.js';

export async function createSqliteFixture(): Promise<BackendFixture & { file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'mini-apiserver-sqlite-'));
  const file = join(dir, 'state.db');
  const open = new Set<Storage>();
  const openStore = async (): Promise<Storage> => {
    const store = await SqliteStorage.open(file);
    open.add(store);
    return store;
  };
  return {
    name: 'sqlite',
    file,
    open: openStore,
    async restart(store) {
      await store.close();
      open.delete(store);
      return openStore();
    },
    async teardown() {
      for (const store of open) await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
