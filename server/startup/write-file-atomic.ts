// Files the server writes at start (keys, certificates, tokens, the admin kubeconfig) are replaced
// in one step, never left half written.
import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { mkdirAll } from '../../apimachinery/mkdir-all.js';
import { StartupError, fsReason } from './errors.js';

/**
 * Replaces `path` in one step, so a crash never leaves half a key behind. The file gets `mode`
 * whatever the umask (and whatever a stale temporary file had); a directory created for it is the
 * owner's only, since what is written here are keys, tokens and credentials. Synchronous calls, as
 * mkdirAll's: a small file's open, write, close, chmod and rename, each through the thread pool
 * and back, cost a start more CPU than the writes, and a wait for a core at each on a busy machine.
 */
export async function writeFileAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    mkdirAll(dirname(path), 0o700);
    writeFileSync(tmp, data, { mode });
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (err) {
    throw new StartupError(`cannot write ${path}: ${fsReason(err)}`);
  }
}
