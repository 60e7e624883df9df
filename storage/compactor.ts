// Periodic compaction, as kube-apiserver's --etcd-compaction-interval: every interval, compact up
// to the revision seen one interval earlier, so history of at least one interval stays readable
// (watches resuming from a recent resourceVersion) while older superseded versions go.
//
// Several servers on one etcd coordinate as kube's do, through a compare-and-swap on one key:
// a server compacts only if nobody has moved the key since it last looked, so one compaction
// happens per interval, whoever does it.
import { type Clock, systemClock } from '../apimachinery/clock.js';
import type { Logger } from '../apimachinery/log.js';
import { isStorageError } from './errors.js';
import type { Storage } from './interface.js';

interface Compactor {
  stop(): void;
}

/** kube-apiserver's key (storage/etcd3/compact.go); the value is the revision compacted to. */
export const COMPACT_REV_KEY = 'compact_rev_key';

/**
 * One round: returns the revision to compact at next time and the key revision now known. Pure
 * protocol over the storage interface, so both backends and any number of replicas share it.
 */
export async function compactRound(
  storage: Storage,
  state: { keyRevision: number | undefined; previous: number | undefined },
): Promise<{ compacted: number | undefined }> {
  const current = await storage.currentRevision();
  const key = await storage.get(COMPACT_REV_KEY);
  const seen = key?.modRevision ?? 0;
  const mine = state.keyRevision === seen;
  const previous = state.previous;
  state.previous = current;
  if (!mine) {
    // First round, or another server took the last turn: watch the key, compact next time.
    state.keyRevision = seen;
    return { compacted: undefined };
  }
  try {
    const value = String(previous ?? 0);
    const written = key
      ? await storage.update(COMPACT_REV_KEY, value, seen)
      : await storage.create(COMPACT_REV_KEY, value);
    state.keyRevision = written.modRevision;
  } catch (err) {
    if (!isStorageError(err, 'Conflict') && !isStorageError(err, 'KeyExists') && !isStorageError(err, 'NotFound'))
      throw err;
    state.keyRevision = (await storage.get(COMPACT_REV_KEY))?.modRevision ?? 0;
    return { compacted: undefined };
  }
  if (previous === undefined || previous <= (await storage.compactedRevision())) return { compacted: undefined };
  await storage.compact(previous);
  return { compacted: previous };
}

/** Compacts every `intervalMs` of `clock`'s time (the server's: a frozen clock compacts nothing until moved). */
export function startCompactor(
  storage: Storage,
  intervalMs: number,
  logger: Logger,
  clock: Clock = systemClock,
): Compactor {
  const state: { keyRevision: number | undefined; previous: number | undefined } = {
    keyRevision: undefined,
    previous: undefined,
  };
  let running = false;
  const tick = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      const { compacted } = await compactRound(storage, state);
      if (compacted !== undefined) logger.debug('compacted storage', { revision: compacted });
    } catch (err) {
      // Compacted: another server went further. Anything else: storage briefly away. Next time.
      if (!isStorageError(err, 'Compacted'))
        logger.warn('compaction failed', { err: err instanceof Error ? err.message : String(err) });
    } finally {
      running = false;
    }
  };
  const ticker = clock.every(intervalMs, () => void tick());
  return { stop: () => ticker.stop() };
}
