// Go's os.MkdirAll, the one way every directory we write into is made. Not Node's
// mkdir(..., { recursive: true }): on Linux it spins forever (a core, no error) when a parent
// exists but refuses children with ENOENT, as /proc and /sys do (`--data-dir /proc/nope`): it
// takes ENOENT to mean "parent missing", "creates" the parent (EEXIST), and retries the child.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const errnoCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

/**
 * Makes `dir` and any missing parents with `mode` (before the umask), each with one mkdir, so it
 * ends after at most one system call per path component. Throws Node's own error of the first
 * step that fails (ENOENT, EACCES, EEXIST for a file in the way, ...); an existing directory is fine.
 */
export function mkdirAll(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let p = resolve(dir); ; ) {
    try {
      statSync(p);
      break;
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw err;
    }
    missing.push(p);
    const parent = dirname(p);
    if (parent === p) break;
    p = parent;
  }
  if (missing.length === 0) {
    if (statSync(dir).isDirectory()) return;
    // Something else is in the way: mkdir says so, in its own words (EEXIST).
    missing.push(resolve(dir));
  }
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p, { mode });
    } catch (err) {
      // Made by someone else meanwhile: as good as made by us, if it is a directory.
      if (errnoCode(err) !== 'EEXIST' || !statSync(p).isDirectory()) throw err;
    }
  }
}
