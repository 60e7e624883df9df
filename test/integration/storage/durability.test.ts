// An acknowledged write survives the writer being killed: a child writes in a loop and prints each
// key once the store acknowledged it; after SIGKILL, every printed key must be in the reopened
// store. (SIGKILL leaves the OS page cache intact, so this proves commit-before-acknowledge, not
// fsync; fsync per commit is synchronous=FULL in storage/sqlite.ts.)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { StorageOptions } from '../../../storage/index.js';
import type { Storage } from '../../../storage/interface.js';
import { EtcdStorage } from '../../../storage/etcd.js';
import { SqliteStorage } from '../../../storage/sqlite.js';
import { builtModule } from '../../helpers/backends.js';
import { startEtcd } from '../../helpers/etcd.js';

interface DurabilityTarget {
  name: string;
  /** The compiled sources the writer child loads through dist/storage/index.js. */
  sources: string[];
  setup(): Promise<{
    /** What the child passes to openStorage. */
    options: StorageOptions;
    /** Opens the same data in this process, after the child is dead. */
    reopen(): Promise<Storage>;
    teardown(): Promise<void>;
  }>;
}

const targets: DurabilityTarget[] = [
  {
    name: 'sqlite',
    sources: ['storage/index.ts', 'storage/sqlite.ts'],
    async setup() {
      const dir = await mkdtemp(join(tmpdir(), 'mini-apiserver-durability-'));
      const path = join(dir, 'state.db');
      return {
        options: { kind: 'sqlite', path },
        reopen: async () => SqliteStorage.open(path),
        teardown: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'etcd',
    sources: ['storage/index.ts', 'storage/etcd.ts'],
    async setup() {
      const etcd = await startEtcd();
      return {
        options: { kind: 'etcd', endpoints: [etcd.endpoint] },
        // etcd is killed too, right after the writer, and restarted on the same data directory.
        reopen: async () => {
          await etcd.kill();
          await etcd.start();
          return EtcdStorage.connect([etcd.endpoint]);
        },
        teardown: () => etcd.destroy(),
      };
    },
  },
];

const writer = fileURLToPath(new URL('../../helpers/durability-writer.mjs', import.meta.url));
const KILL_AFTER = 400;

describe.each(targets.map((t) => [t.name, t] as const))('durability: %s', (_name, target) => {
  it(`keeps every acknowledged write after the writer is killed with SIGKILL`, async () => {
    for (const source of target.sources) builtModule(source);
    const { options, reopen, teardown } = await target.setup();
    const prefix = `/registry/durability-${process.pid}-${Date.now()}/`;
    const child = spawn(process.execPath, [writer, JSON.stringify(options), prefix], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const acknowledged: string[] = [];
      let partial = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        acknowledged.push(...lines);
        if (acknowledged.length >= KILL_AFTER) child.kill('SIGKILL');
      });
      const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
      expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
      expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);

      const store = await reopen();
      try {
        const stored = new Map((await store.range(prefix)).kvs.map((kv) => [kv.key, kv.value]));
        const missing = acknowledged.filter((key) => !stored.has(key));
        expect(missing).toEqual([]);
        for (const key of acknowledged) {
          expect(stored.get(key)).toBe(JSON.stringify({ n: Number(key.slice(prefix.length)) }));
        }
        // The writer is sequential: at most the one write in flight at the kill is stored unprinted.
        expect(stored.size - acknowledged.length).toBeLessThanOrEqual(1);
      } finally {
        await store.close();
      }
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await teardown();
    }
  });
});
