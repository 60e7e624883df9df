// Typed storage errors: the registry maps each code to a kube Status (NotFound, AlreadyExists,
// Conflict, Expired, RequestEntityTooLarge, ServiceUnavailable, ...), whatever the backend.

export type StorageErrorCode =
  | 'KeyExists'
  | 'NotFound'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'TooLarge'
  | 'Unavailable';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    /** For Conflict: the revision the key really has (0 when it is gone). */
    readonly actualRevision?: number,
    /** For Compacted: the oldest revision still readable. */
    readonly compactRevision?: number,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export const keyExists = (key: string): StorageError =>
  new StorageError('KeyExists', key, `key already exists: ${key}`);

export const notFound = (key: string): StorageError => new StorageError('NotFound', key, `key not found: ${key}`);

export const conflict = (key: string, expected: number, actual: number): StorageError =>
  new StorageError('Conflict', key, `revision mismatch on ${key}: expected ${expected}, have ${actual}`, actual);

export const compacted = (requested: number, compactRevision: number): StorageError =>
  new StorageError(
    'Compacted',
    '',
    `required revision ${requested} has been compacted (oldest available ${compactRevision})`,
    undefined,
    compactRevision,
  );

/** A read at a revision storage has not reached: only a made-up revision can name one. */
export const futureRevision = (requested: number): StorageError =>
  new StorageError('FutureRevision', '', `required revision ${requested} is a future revision`);

export const tooLarge = (key: string, bytes: number, limit: number): StorageError =>
  new StorageError('TooLarge', key, `value of ${bytes} bytes for ${key} exceeds the limit of ${limit} bytes`);

export const unavailable = (message: string): StorageError => new StorageError('Unavailable', '', message);

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}
