// DIR/tokens.csv beside the cluster's token file: the README adds a user by appending a line and
// restarting, and with replicas that must still work, without a stale copy on another replica
// undoing it. So each data dir remembers the hash of the cluster's file it last took
// (tokens.csv.sha256), which tells a local edit (pushed to the cluster at start) from a copy the
// cluster has moved past (replaced), as a three-way merge tells them apart.
import { sha256 } from './record.js';

export type TokenFileAction =
  /** The local file is the cluster's. */
  | { kind: 'keep' }
  /**
   * The cluster's replaces the local file: there was none, or an unedited copy the cluster has
   * moved past (`stale`), or one this data dir never took from the cluster (`unsynced`: it joins).
   */
  | { kind: 'take'; replaces: 'nothing' | 'stale' | 'unsynced' }
  /** Edited here since it was taken, and the cluster's is unchanged: the edit becomes the cluster's. */
  | { kind: 'push' }
  /** Edited here and changed in the cluster since: nobody can tell which lines should win. */
  | { kind: 'conflict' };

export function reconcileTokenFile(
  local: string | undefined,
  synced: string | undefined,
  cluster: string,
): TokenFileAction {
  if (local === undefined) return { kind: 'take', replaces: 'nothing' };
  if (local === cluster) return { kind: 'keep' };
  if (synced === undefined) return { kind: 'take', replaces: 'unsynced' };
  if (sha256(local) === synced) return { kind: 'take', replaces: 'stale' };
  if (sha256(cluster) === synced) return { kind: 'push' };
  return { kind: 'conflict' };
}
