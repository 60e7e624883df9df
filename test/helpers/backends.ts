// Storage test helpers: the backends the shared contract suite runs against (a backend joins by
// adding one entry to `backendFactories`), a watch recorder, and the path of compiled modules.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Storage, WatchEvent } from '../../storage/interface.js';
import { createEtcdFixture } from './etcd.js';
import { createSqliteFixture } from './sqlite-fixture.js';

export interface BackendFixture {
  name: string;
  /** Opens the fixture's store. One store is open at a time; reopen it with restart(). */
  open(): Promise<Storage>;
  /** close and reopen the same data (restart) */
  restart(s: Storage): Promise<Storage>;
  /** Closes whatever is still open and removes the fixture's data. */
  teardown(): Promise<void>;
}

export interface BackendFactory {
  name: string;
  create(): Promise<BackendFixture>;
}

export const backendFactories: BackendFactory[] = [
  { name: 'sqlite', create: createSqliteFixture },
  { name: 'etcd', create: createEtcdFixture },
];

export interface WatchRecorder {
  /** Every event delivered so far, flattened in delivery order. */
  events: WatchEvent[];
  errors: Error[];
  close(): void;
  /** Resolves once `done()` holds, re-checked on each delivery; rejects after `timeoutMs`. */
  until(done: () => boolean, what: string, timeoutMs?: number): Promise<void>;
}

/** Watches `prefix` after `afterRevision` and records what arrives, for tests to wait on. */
export function recordWatch(store: Storage, prefix: string, afterRevision: number): WatchRecorder {
  const events: WatchEvent[] = [];
  const errors: Error[] = [];
  let wake: (() => void) | undefined;
  const handle = store.watch(prefix, afterRevision, {
    onEvents(batch) {
      events.push(...batch);
      wake?.();
    },
    onError(err) {
      errors.push(err);
      wake?.();
    },
  });
  return {
    events,
    errors,
    close: () => handle.close(),
    async until(done, what, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done()) {
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(`timed out waiting for ${what}: ${events.length} events, errors [${errors.join('; ')}]`);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
  };
}

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The compiled form under dist/ of a source file such as 'storage/sqlite.ts', for child processes
 * that run plain node (Node 20 cannot load TypeScript). `make test` builds dist/ first; a bare
 * `npx vitest` after editing a source needs `npx tsc -p tsconfig.json` before it.
 */
export function builtModule(source: string): string {
  const built = join(root, 'dist', source.replace(/\.ts$/, '.js'));
  if (!existsSync(built)) throw new Error(`${built} is missing: run \`npx tsc -p tsconfig.json\` (make test does)`);
  return built;
}
