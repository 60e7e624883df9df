// The sealed identity record in storage (etcd): made once by whichever replica gets there first
// (a create-if-absent transaction, so two replicas starting at once on an empty etcd end with one
// identity), read by the others, changed by compare-and-swap, and followed by a watch, so that a
// rotated signing key or a new token reaches every running replica.
import { isStorageError } from '../../storage/errors.js';
import type { KeyValue, Storage, WatchHandle } from '../../storage/interface.js';
import { type ClusterIdentity, decodeIdentity, encodeIdentity } from './record.js';
import { type Sealed, type SealingKey, deriveKey, keyFor, open, parseSealed, seal } from './seal.js';

/** Under --etcd-prefix like every key, beside (not inside) /registry, where kube's resources live. */
export const IDENTITY_KEY = '/mini-apiserver/identity';
/** Compare-and-swap rounds before a change gives up: each loses only to another replica's change. */
const MAX_CAS_ATTEMPTS = 8;
/** How long a watch that failed waits before it reads and watches again. */
const REWATCH_DELAY_MS = 1000;

/** The record cannot be used: another token sealed it, or it does not hold an identity. */
export class IdentityError extends Error {
  override name = 'IdentityError';
}

export interface IdentityVersion {
  identity: ClusterIdentity;
  /** The record's modRevision: what a change compares against. */
  revision: number;
}

export class SharedIdentity {
  /** The key of the record's salt, derived once: scrypt is the slow part of every read. */
  private sealing: SealingKey | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly token: string,
    /** --etcd-prefix: bound into the seal, so a record copied to another prefix does not open. */
    private readonly prefix: string,
  ) {}

  private get aad(): string {
    return `mini-apiserver cluster identity v1\0${this.prefix}\0${IDENTITY_KEY}`;
  }

  /** The cluster's identity: the record's, or, on an empty store, `candidate()`'s once it wins the create. */
  async join(candidate: () => Promise<ClusterIdentity>): Promise<IdentityVersion & { created: boolean }> {
    const existing = await this.storage.get(IDENTITY_KEY);
    if (existing) return { ...(await this.read(existing)), created: false };
    const identity = await candidate();
    const sealing = await deriveKey(this.token);
    try {
      const kv = await this.storage.create(
        IDENTITY_KEY,
        JSON.stringify(seal(encodeIdentity(identity), sealing, this.aad)),
      );
      this.sealing = sealing;
      return { identity, revision: kv.modRevision, created: true };
    } catch (err) {
      if (!isStorageError(err, 'KeyExists')) throw err;
    }
    // Another replica made it between our read and our create: theirs is the cluster's.
    const winner = await this.storage.get(IDENTITY_KEY);
    if (!winner) throw new IdentityError(`${IDENTITY_KEY} was created and deleted while this server started`);
    return { ...(await this.read(winner)), created: false };
  }

  /** The identity now, or undefined when there is none. */
  async current(): Promise<IdentityVersion | undefined> {
    const kv = await this.storage.get(IDENTITY_KEY);
    return kv && this.read(kv);
  }

  /**
   * Applies `change` by compare-and-swap, again over a newer version when another replica wrote
   * first; `change` returns undefined to leave the record as it is.
   */
  async update(change: (current: ClusterIdentity) => ClusterIdentity | undefined): Promise<IdentityVersion> {
    for (let attempt = 1; ; attempt++) {
      const kv = await this.storage.get(IDENTITY_KEY);
      if (!kv) throw new IdentityError(`no cluster identity at ${this.where}: start a server with this token first`);
      const now = await this.read(kv);
      const next = change(now.identity);
      if (!next) return now;
      const sealed = seal(encodeIdentity(next), this.sealing!, this.aad);
      try {
        const written = await this.storage.update(IDENTITY_KEY, JSON.stringify(sealed), kv.modRevision);
        return { identity: next, revision: written.modRevision };
      } catch (err) {
        if (!isStorageError(err, 'Conflict') || attempt >= MAX_CAS_ATTEMPTS) throw err;
      }
    }
  }

  /**
   * Calls `onChange` with every version after `afterRevision`, in order, until closed. A watch that
   * ends (compaction, etcd away) is replaced by a read and a new watch; `onProblem` hears of a
   * version that does not open, or the record's deletion (the last identity stays in force).
   */
  follow(
    afterRevision: number,
    onChange: (v: IdentityVersion) => void,
    onProblem: (message: string) => void,
  ): { close(): void } {
    let seen = afterRevision;
    let handle: WatchHandle | undefined;
    let timer: NodeJS.Timeout | undefined;
    let closed = false;
    // One version at a time, in revision order, whatever scrypt's timing.
    let queue = Promise.resolve();
    const deliver = (kv: KeyValue): void => {
      queue = queue.then(async () => {
        if (closed || kv.modRevision <= seen) return;
        try {
          const v = await this.read(kv);
          seen = v.revision;
          if (!closed) onChange(v);
        } catch (err) {
          onProblem((err as Error).message);
        }
      });
    };
    const restart = (): void => {
      handle?.close();
      handle = undefined;
      if (closed) return;
      timer = setTimeout(() => {
        queue = queue.then(async () => {
          if (closed) return;
          const kv = await this.storage.get(IDENTITY_KEY).catch(() => undefined);
          if (kv) deliver(kv);
          watch(Math.max(seen, kv?.modRevision ?? 0));
        });
      }, REWATCH_DELAY_MS);
    };
    const watch = (from: number): void => {
      if (closed) return;
      handle = this.storage.watch(IDENTITY_KEY, from, {
        onEvents: (events) => {
          for (const e of events) {
            if (e.kv.key !== IDENTITY_KEY) continue;
            if (e.type === 'delete') onProblem(`${this.where} was deleted: this server keeps the identity it has`);
            else deliver(e.kv);
          }
        },
        onError: restart,
      });
    };
    watch(afterRevision);
    return {
      close() {
        closed = true;
        clearTimeout(timer);
        handle?.close();
      },
    };
  }

  private get where(): string {
    return this.prefix === '' ? IDENTITY_KEY : `etcd prefix ${JSON.stringify(this.prefix)}`;
  }

  private async read(kv: KeyValue): Promise<IdentityVersion> {
    const sealed = parseSealed(kv.value);
    if (typeof sealed === 'string')
      throw new IdentityError(`the cluster identity at ${this.where} is unreadable: ${sealed}`);
    const sealing = await this.keyOf(sealed);
    const text = open(sealed, sealing.key, this.aad);
    if (text === undefined)
      throw new IdentityError(
        `the cluster identity at ${this.where} was sealed with another token (or under another prefix): this server shares nothing with it`,
      );
    const identity = decodeIdentity(text);
    if (typeof identity === 'string')
      throw new IdentityError(`the cluster identity at ${this.where} is unusable: ${identity}`);
    this.sealing = sealing;
    return { identity, revision: kv.modRevision };
  }

  private async keyOf(sealed: Sealed): Promise<SealingKey> {
    const s = this.sealing;
    const same =
      s &&
      s.salt.toString('base64') === sealed.kdf.salt &&
      s.params.N === sealed.kdf.N &&
      s.params.r === sealed.kdf.r &&
      s.params.p === sealed.kdf.p;
    return same ? s : keyFor(this.token, sealed);
  }
}
