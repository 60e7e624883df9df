// Periodic compaction, as kube-apiserver's --etcd-compaction-interval: every interval, compact up
// to the revision seen one interval earlier, so history of at least one interval stays readable
// (watches resuming from a recent resourceVersion) while older superseded versions go.
import type { Logger } from '../server/log.js';
import { isStorageError } from './errors.js';
import type { Storage } from './interface.js';

export interface Compactor {
  stop(): void;
}

export function startCompactor(storage: Storage, intervalMs: number, logger: Logger): Compactor {
  let previous: number | undefined;
  let running = false;
  const tick = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      const current = await storage.currentRevision();
      if (previous !== undefined && previous > (await storage.compactedRevision())) {
        await storage.compact(previous);
        logger.debug('compacted storage', { revision: previous });
      }
      previous = current;
    } catch (err) {
      // Another replica compacting further, or storage briefly away: try again next time.
      if (!isStorageError(err, 'Compacted')) logger.warn('compaction failed', { err: err instanceof Error ? err.message : String(err) });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
