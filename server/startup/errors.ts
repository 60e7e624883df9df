// Start-up failures as the operator reads them: one line, without a stack, naming the flag that
// can change the outcome; file-system errors as the few words that say what is wrong.

/** A start-up failure the operator can act on: printed as one line, without a stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** A start-up step's failure as one line that names the flag the operator can change: `--flag: cause`. */
export function flagError(flag: string, err: unknown): StartupError {
  return new StartupError(`--${flag}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
}

/** Runs one start-up step; whatever it throws becomes flagError(flag, ...). */
export async function forFlag<T>(flag: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw flagError(flag, err);
  }
}

/** A file-system error as the few words an operator needs. */
export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a path component is not a directory';
    case 'EISDIR':
      return 'is a directory';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on device';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
