// The etcd backend: each operation maps onto one etcd request, as kube-apiserver's etcd3 store does.
// Conditional writes are transactions on the key's create/mod revision; watches are our own gRPC
// watch streams (one per watch) so that a lost stream resumes exactly after the last event we
// delivered. etcd3's own watcher resumes from the last response header's revision, which can lie
// past events it never delivered.
import { InterceptingCall, type CallOptions, type Interceptor } from '@grpc/grpc-js';
import {
  CompareResult,
  CompareTarget,
  Etcd3,
  GRPCDeadlineExceededError,
  GRPCUnavailableError,
  type ICompare,
  type IDuplexStream,
  type IEvent,
  type IKeyValue,
  type IOptions,
  type IRangeRequest,
  type IRangeResponse,
  type IWatchRequest,
  type IWatchResponse,
} from 'etcd3';
import {
  compacted,
  conflict,
  futureRevision,
  isStorageError,
  keyExists,
  notFound,
  tooLarge,
  unavailable,
} from './errors.js';
import {
  MAX_VALUE_BYTES,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type Storage,
  type WatchCallbacks,
  type WatchEvent,
  type WatchHandle,
  type WatchProgressSupport,
} from './interface.js';
import {
  type RestoreResult,
  type SnapshotChange,
  type SnapshotInfo,
  type SnapshotScope,
  inScope,
  restoreCounts,
  snapshotDiff,
  transactionBatches,
} from './snapshot.js';

export interface EtcdOptions {
  /** Time budget of one operation, retries included; every gRPC call carries it as its deadline. */
  requestTimeoutMs?: number;
  /** How long a broken watch keeps trying to resume before it ends with Unavailable. */
  watchResumeTimeoutMs?: number;
  /** How long connect() keeps trying before it gives up. */
  connectTimeoutMs?: number;
}

const DEFAULTS: Required<EtcdOptions> = {
  requestTimeoutMs: 5_000,
  watchResumeTimeoutMs: 30_000,
  connectTimeoutMs: 8_000,
};
const PING_BUDGET_MS = 2_000;
const RETRY_MIN_MS = 10;
const RETRY_MAX_MS = 500;
const WATCH_RETRY_MIN_MS = 50;
const WATCH_RETRY_MAX_MS = 1_000;
/** How long a version check that failed stands before it is made again (kube's backoff cap). */
const VERSION_RETRY_MS = 15_000;

/**
 * Whether an etcd of this version answers a progress request only once the watch has every event
 * up to the revision it reports (kube's endpointSupportsRequestWatchProgress): 3.4.31 and later in
 * 3.4, 3.5.13 and later in 3.5, every 3.6 and later. Before, a watch still catching up could be
 * told it had all (etcd-io/etcd#15220, #17507). A version that does not parse is not trusted.
 */
export function requestWatchProgressSafe(version: string): boolean {
  const v = parseSemantic(version);
  if (!v) return false;
  const below = (target: readonly number[]): boolean => compareSemantic(v, target) < 0;
  return !(below([3, 4, 31]) || (!below([3, 5, 0]) && below([3, 5, 13])));
}

interface Semantic {
  numbers: number[];
  preRelease: string;
}

/** k8s.io/apimachinery's version.ParseSemantic: three numbers, no leading zeros, then -pre and +build. */
function parseSemantic(s: string): Semantic | undefined {
  const m = /^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)$/.exec(s);
  if (!m) return undefined;
  const parts = m[1]!.split('.');
  if (parts.length !== 3 || parts.some((p) => p.length > 1 && p.startsWith('0'))) return undefined;
  const extra = /^(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?\s*$/.exec(m[2]!);
  if (!extra) return undefined;
  return { numbers: parts.map(Number), preRelease: extra[1] ?? '' };
}

/** Numbers first; at equal numbers a pre-release is the lower, as kube's Version.Compare. */
function compareSemantic(v: Semantic, target: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (v.numbers[i] !== target[i]) return v.numbers[i]! < target[i]! ? -1 : 1;
  return v.preRelease ? -1 : 0;
}

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;
type Policy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Failures after which the request surely never reached etcd's log, so even a write may be resent. */
const NEVER_APPLIED = [
  'No connection established', // grpc-js: no connection to the member
  'Channel closed before call started',
  'etcdserver: no leader', // refused before proposing (we send hasleader)
  'raft proposal dropped',
  'etcdserver: too many requests',
];
const neverApplied = (err: unknown): boolean => NEVER_APPLIED.some((m) => messageOf(err).includes(m));

/** Failures that say this member in particular cannot serve: down, gone, or cut off from its leader. */
const memberUnreachable = (err: unknown): boolean =>
  /No connection established|Connection dropped|ECONNRESET|etcdserver: no leader|raft: stopped|etcdserver: server stopped/.test(
    messageOf(err),
  );

/** Failures another member or a moment later may not have: a read can simply be repeated. */
function transient(err: unknown): boolean {
  return (
    err instanceof GRPCUnavailableError ||
    err instanceof GRPCDeadlineExceededError ||
    neverApplied(err) ||
    // A member shutting down (a restart) answers these, as gRPC Unknown: the call may or may not
    // have been applied, like any unavailability.
    /leader changed|request timed out|Connection dropped|raft: stopped|etcdserver: server stopped/.test(messageOf(err))
  );
}

const isCompactedError = (err: unknown): boolean => messageOf(err).includes('required revision has been compacted');
const isFutureRevisionError = (err: unknown): boolean =>
  messageOf(err).includes('required revision is a future revision');
const isTooLargeError = (err: unknown): boolean => messageOf(err).includes('etcdserver: request is too large');
/**
 * etcd refused a transaction for its size: more operations than its --max-txn-ops, or more bytes
 * than its --max-request-bytes (etcd's own refusal, mapped to TooLarge by write(), or gRPC's, past
 * the message limit etcd sets a little above it).
 */
const isTooManyOpsError = (err: unknown): boolean =>
  messageOf(err).includes('etcdserver: too many operations in txn request');
const isTxnTooBigError = (err: unknown): boolean =>
  isStorageError(err, 'TooLarge') ||
  isTooManyOpsError(err) ||
  messageOf(err).includes('grpc: received message larger than max');

/** grpc-js's connection errors end in an empty "Resolution note"; keep the cause on one line. */
function reasonOf(err: unknown): string {
  const msg = messageOf(err).replace(/\s+/g, ' ').trim();
  return /Last error: (?:Error: )?(.*?)\.? Resolution note/.exec(msg)?.[1] ?? msg;
}

// etcd3's default fault handling retries any call three times, writes included (a create whose
// reply was lost would then report KeyExists), and opens a 5 s circuit per host after three
// failures (which outlasts an etcd restart). We retry ourselves, knowing which calls may repeat,
// and only steer calls away from members that just proved unreachable.
const neverAborted = new AbortController().signal;
const passThrough = {
  execute: async <T>(fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T> =>
    fn({ signal: neverAborted }),
  onSuccess: () => ({ dispose: () => {} }),
  onFailure: () => ({ dispose: () => {} }),
} as unknown as Policy;

/** How long calls avoid a member after it refused a connection or dropped one. */
const MEMBER_DOWN_MS = 1_000;

/**
 * A per-member policy for etcd3's connection pool: a member that just failed at the connection
 * level is skipped for a moment (the pool then tries the next one in the same call), unless every
 * member is in that state. Without it, a dead member keeps taking a share of the calls.
 */
class MemberHealth {
  private readonly downUntil = new Map<string, number>();

  constructor(private readonly endpoints: string[]) {}

  policy(endpoint: string): Policy {
    return {
      ...passThrough,
      execute: async <T>(fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T> => {
        if (this.isDown(endpoint) && !this.endpoints.every((e) => this.isDown(e))) {
          throw new Error(`etcd member ${endpoint} is skipped after a connection failure`);
        }
        try {
          return await fn({ signal: neverAborted });
        } catch (err) {
          if (memberUnreachable(err)) this.downUntil.set(endpoint, Date.now() + MEMBER_DOWN_MS);
          throw err;
        }
      },
    } as unknown as Policy;
  }

  private isDown(endpoint: string): boolean {
    return (this.downUntil.get(endpoint) ?? 0) > Date.now();
  }
}

// etcd's WithRequireLeader: a member cut off from its leader refuses requests ("no leader") and
// ends watch streams instead of serving stale reads or a watch that silently stops.
const requireLeader: Interceptor = (options, nextCall) =>
  new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      metadata.set('hasleader', 'true');
      next(metadata, listener);
    },
  });

/** The smallest key above every key starting with `prefix`; "\0" (to the end) when none exists. */
function prefixEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]! < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i]! += 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

function checkSize(key: string, value: string): number {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_VALUE_BYTES) throw tooLarge(key, bytes, MAX_VALUE_BYTES);
  return bytes;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// Transaction guards. A missing key has create and mod revision 0.
const absent = (key: Buffer): ICompare => ({
  key,
  target: CompareTarget.Create,
  result: CompareResult.Equal,
  create_revision: 0,
});
const present = (key: Buffer): ICompare => ({
  key,
  target: CompareTarget.Create,
  result: CompareResult.Greater,
  create_revision: 0,
});
const modifiedAt = (key: Buffer, revision: number): ICompare => ({
  key,
  target: CompareTarget.Mod,
  result: CompareResult.Equal,
  mod_revision: revision,
});

/** Where snapshots are kept: beside /registry/, so no watch cache or object range sees them. */
const SNAPSHOTS_PREFIX = '/mini-apiserver/snapshots/';
/** Snapshot data is stored in pieces this large, well under etcd's default request limit. */
const SNAPSHOT_CHUNK_BYTES = 1024 * 1024;
/** etcd's default --max-txn-ops: the pieces of a restore too large for one transaction stay within it. */
const MAX_TXN_OPS = 128;
/** How often a restore works its difference out again when keys changed under it. */
const MAX_RESTORE_ATTEMPTS = 5;

interface SnapshotManifest extends SnapshotInfo {
  scope: SnapshotScope;
  chunks: number;
}

export class EtcdStorage implements Storage {
  readonly backend = 'etcd';

  private readonly etcd: Etcd3;
  private readonly prefix: Buffer;
  private readonly options: Required<EtcdOptions>;
  private readonly watches = new Set<EtcdWatch>();
  /** The highest compact revision seen: our own compactions, and what etcd reported since. */
  private knownCompactRevision = 0;
  /**
   * The fewest changes etcd refused as one restore transaction for its --max-txn-ops: a restore
   * of as many or more goes in pieces at once, without being refused again.
   */
  private restoreOpsRefusedAt = Number.POSITIVE_INFINITY;
  private closed = false;
  private progressSupport: Promise<WatchProgressSupport> | undefined;

  private constructor(
    private readonly endpoints: string[],
    prefix: string,
    options: EtcdOptions,
  ) {
    this.prefix = Buffer.from(prefix, 'utf8');
    this.options = { ...DEFAULTS, ...options };
    const health = new MemberHealth(endpoints);
    this.etcd = new Etcd3({
      hosts: endpoints,
      faultHandling: { host: (endpoint) => health.policy(endpoint), global: passThrough },
      defaultCallOptions: { interceptors: [requireLeader] },
      grpcOptions: {
        // grpc-js caps replies at 4 MiB; a page of large objects or a watch replay can exceed it.
        'grpc.max_receive_message_length': -1,
        // Notices a member that vanished without closing the connection (etcd allows pings >= 5 s).
        'grpc.keepalive_time_ms': 10_000,
        'grpc.keepalive_timeout_ms': 5_000,
      },
    });
  }

  /**
   * Connects to etcd (every endpoint is used, so a dead member is failed over) and checks that it
   * answers, retrying for a bounded time; then fails with one line naming the endpoints.
   */
  static async connect(endpoints: string[], prefix = '', options: EtcdOptions = {}): Promise<EtcdStorage> {
    if (endpoints.length === 0) throw new Error('no etcd endpoints given');
    const store = new EtcdStorage(endpoints, prefix, options);
    const deadline = Date.now() + store.options.connectTimeoutMs;
    // The line names the most telling failure: a probe cut by its deadline may come back with no
    // detail at all (grpc-js's details null: the text "null") after refusals that said why.
    let told: string | undefined;
    for (;;) {
      try {
        await store.etcd.kv.range(store.probeRange(), { deadline: Math.min(deadline, Date.now() + 2_000) });
        return store;
      } catch (err) {
        const reason = reasonOf(err);
        if (reason !== '' && reason !== 'null') told = reason;
        if (!transient(err) || Date.now() + 250 >= deadline) {
          store.etcd.close();
          throw new Error(
            `cannot reach etcd at ${endpoints.join(',')}: ${told ?? (err instanceof Error ? err.name : reason)}`,
          );
        }
        await sleep(250);
      }
    }
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    const res = await this.kvRange({ key: this.wire(key), revision: opts.revision ?? 0 }, opts.revision);
    const kv = res.kvs[0];
    return kv && this.toKeyValue(kv);
  }

  async range(prefix: string, opts: RangeOptions = {}): Promise<RangeResult> {
    const wirePrefix = this.wire(prefix);
    // etcd refuses an empty key; "\0" is the smallest one there is.
    let key = wirePrefix.length > 0 ? wirePrefix : Buffer.from([0]);
    if (opts.startKey !== undefined) {
      const start = this.wire(opts.startKey);
      if (Buffer.compare(start, key) > 0) key = start;
    }
    const res = await this.kvRange(
      { key, range_end: prefixEnd(wirePrefix), limit: opts.limit ?? 0, revision: opts.revision ?? 0 },
      opts.revision,
    );
    return {
      kvs: res.kvs.map((kv) => this.toKeyValue(kv)),
      more: res.more,
      revision: opts.revision || Number(res.header.revision),
    };
  }

  async count(prefix: string): Promise<number> {
    const wirePrefix = this.wire(prefix);
    const key = wirePrefix.length > 0 ? wirePrefix : Buffer.from([0]);
    const res = await this.kvRange({ key, range_end: prefixEnd(wirePrefix), count_only: true });
    return Number(res.count);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const bytes = checkSize(key, value);
    const k = this.wire(key);
    const res = await this.write(key, bytes, (o) =>
      this.etcd.kv.txn(
        {
          compare: [absent(k)],
          success: [{ request_put: { key: k, value: Buffer.from(value, 'utf8') } }],
        },
        o,
      ),
    );
    if (!res.succeeded) throw keyExists(key);
    const revision = Number(res.header.revision);
    return { key, value, createRevision: revision, modRevision: revision };
  }

  async update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    const bytes = checkSize(key, value);
    const k = this.wire(key);
    const current = { request_range: { key: k, keys_only: true } };
    const res = await this.write(key, bytes, (o) =>
      this.etcd.kv.txn(
        {
          // present(): otherwise an expected revision of 0 would match a missing key and create it.
          compare: [present(k), modifiedAt(k, expectedRevision)],
          // The range after the put reads the key as the put left it, for its create revision.
          success: [{ request_put: { key: k, value: Buffer.from(value, 'utf8') } }, current],
          failure: [current],
        },
        o,
      ),
    );
    if (res.succeeded) {
      const kv = res.responses[1]!.response_range.kvs[0]!;
      return { key, value, createRevision: Number(kv.create_revision), modRevision: Number(res.header.revision) };
    }
    const kv = res.responses[0]!.response_range.kvs[0];
    if (!kv) throw notFound(key);
    throw conflict(key, expectedRevision, Number(kv.mod_revision));
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    const k = this.wire(key);
    const compare = expectedRevision === undefined ? [present(k)] : [present(k), modifiedAt(k, expectedRevision)];
    const res = await this.write(key, 0, (o) =>
      this.etcd.kv.txn(
        {
          compare,
          success: [{ request_delete_range: { key: k, prev_kv: true } }],
          failure: [{ request_range: { key: k, keys_only: true } }],
        },
        o,
      ),
    );
    if (res.succeeded) {
      const prev = res.responses[0]!.response_delete_range.prev_kvs[0]!;
      return { ...this.toKeyValue(prev), modRevision: Number(res.header.revision) };
    }
    const kv = res.responses[0]!.response_range.kvs[0];
    if (!kv) throw notFound(key);
    throw conflict(key, expectedRevision!, Number(kv.mod_revision));
  }

  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle {
    const wirePrefix = this.wire(prefix);
    const watch = new EtcdWatch(
      {
        open: () => this.etcd.watchClient.watch(),
        request: (startRevision) => ({
          key: wirePrefix.length > 0 ? wirePrefix : Buffer.from([0]),
          range_end: prefixEnd(wirePrefix),
          start_revision: startRevision,
          prev_kv: true,
        }),
        toEvent: (ev) => this.toEvent(ev),
        noteCompacted: (revision) => this.noteCompacted(revision),
        resumeTimeoutMs: this.options.watchResumeTimeoutMs,
        detach: (w) => this.watches.delete(w),
      },
      afterRevision,
      callbacks,
    );
    if (this.closed) {
      queueMicrotask(() => watch.fail(unavailable('storage closed')));
    } else {
      this.watches.add(watch);
      watch.start();
    }
    return watch;
  }

  async currentRevision(): Promise<number> {
    return Number((await this.kvRange(this.probeRange())).header.revision);
  }

  async compact(revision: number): Promise<void> {
    try {
      // Compacting the same revision twice is harmless, so a lost reply may be retried.
      await this.call((o) => this.etcd.kv.compact({ revision, physical: true }, o), transient);
    } catch (err) {
      // Already compacted at or past it: nothing left to do, as in the SQLite store.
      if (!isCompactedError(err)) throw this.failure(err);
    }
    this.noteCompacted(revision);
  }

  /**
   * etcd does not report its compact revision directly. A read at the highest one we know of tells
   * whether someone (another server, etcd's auto-compaction) compacted further; if so, a watch
   * from there is canceled with the exact revision.
   */
  async compactedRevision(): Promise<number> {
    const revision = Math.max(this.knownCompactRevision, 1);
    await this.kvRange({ ...this.probeRange(), revision }, revision).catch((err: unknown) => {
      if (!isStorageError(err, 'Compacted')) throw err;
    });
    return this.knownCompactRevision;
  }

  watchProgressSupport(): Promise<WatchProgressSupport> {
    if (!this.progressSupport) {
      const asked = (this.progressSupport = this.askProgressSupport());
      // A member that did not say its version is asked again later; until then, unsupported (kube
      // retries in the background and reports unsupported meanwhile).
      void asked.then(({ unknown }) => {
        if (!unknown) return;
        const forget = (): void => {
          if (this.progressSupport === asked) this.progressSupport = undefined;
        };
        setTimeout(forget, VERSION_RETRY_MS).unref();
      });
    }
    return this.progressSupport;
  }

  /** Each endpoint's version from its Maintenance Status, as kube's feature support checker reads them. */
  private async askProgressSupport(): Promise<WatchProgressSupport & { unknown?: boolean }> {
    const answers = await Promise.all(
      this.endpoints.map(async (endpoint) => {
        const member = new Etcd3({ hosts: [endpoint] });
        try {
          const { version } = await member.maintenance.status({ deadline: Date.now() + this.options.requestTimeoutMs });
          return { endpoint, version };
        } catch (err) {
          return { endpoint, error: reasonOf(err) };
        } finally {
          member.close();
        }
      }),
    );
    const versions = answers.map((a) => `${a.endpoint} ${a.version ?? `unknown (${a.error})`}`).join(', ');
    const unknown = answers.some((a) => a.version === undefined);
    const supported = !unknown && answers.every((a) => requestWatchProgressSafe(a.version!));
    const reason = unknown
      ? `etcd ${versions}: without every member's version, progress notifications are not trusted`
      : supported
        ? `etcd ${versions}: progress notifications are exact (3.4.31, 3.5.13 or later)`
        : `etcd ${versions}: progress notifications may run ahead of a watch before 3.4.31 and 3.5.13 (etcd-io/etcd#15220, #17507)`;
    return { supported, reason, ...(unknown ? { unknown } : {}) };
  }

  async ping(): Promise<boolean> {
    try {
      // Retried like any read, so one dead member does not fail the check, within kube's 2 s bound.
      await this.call((o) => this.etcd.kv.range(this.probeRange(), o), transient, PING_BUDGET_MS);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of [...this.watches]) w.fail(unavailable('storage closed'));
    this.etcd.close();
  }

  async saveSnapshot(name: string, scope: SnapshotScope): Promise<SnapshotInfo> {
    const res = await this.kvRange(this.prefixRange(scope.prefix));
    const revision = Number(res.header.revision);
    const pairs: [string, string][] = [];
    let bytes = 0;
    for (const kv of res.kvs) {
      const key = this.unwire(kv.key);
      if (!inScope(key, scope)) continue;
      pairs.push([key, kv.value.toString('utf8')]);
      bytes += kv.value.length;
    }
    // One document, stored in pieces each well under etcd's request limit; the manifest goes last,
    // so a snapshot half written (a crash) reads as none.
    const data = Buffer.from(JSON.stringify(pairs), 'utf8');
    const chunks = Math.ceil(data.length / SNAPSHOT_CHUNK_BYTES);
    await this.deleteSnapshot(name);
    for (let i = 0; i < chunks; i++) {
      const chunk = data.subarray(i * SNAPSHOT_CHUNK_BYTES, (i + 1) * SNAPSHOT_CHUNK_BYTES);
      await this.putRaw(this.snapshotKey(name, i), chunk);
    }
    const manifest: SnapshotManifest = { revision, scope, chunks, keys: pairs.length, bytes };
    await this.putRaw(this.snapshotKey(name), Buffer.from(JSON.stringify(manifest), 'utf8'));
    return { revision, keys: pairs.length, bytes };
  }

  async restoreSnapshot(name: string): Promise<RestoreResult> {
    const totals = { created: 0, updated: 0, deleted: 0 };
    for (let attempt = 1; ; attempt++) {
      const { scope, saved } = await this.readSnapshot(name);
      const now = await this.kvRange(this.prefixRange(scope.prefix));
      const current = now.kvs.map((kv) => this.toKeyValue(kv)).filter((kv) => inScope(kv.key, scope));
      const changes = snapshotDiff(saved, current);
      let revision = Number(now.header.revision);
      let lost = false;
      for (const piece of await this.restorePieces(changes)) {
        const written = piece.written ?? (await this.restoreTransaction(piece.changes));
        if (written === undefined) {
          lost = true;
          break;
        }
        revision = written;
        const counts = restoreCounts(piece.changes);
        totals.created += counts.created;
        totals.updated += counts.updated;
        totals.deleted += counts.deleted;
      }
      if (!lost) return { revision, ...totals };
      // Someone wrote a key in between: work the difference out again from what is there now.
      if (attempt >= MAX_RESTORE_ATTEMPTS) throw conflict(this.unwire(this.snapshotKey(name)), 0, 0);
    }
  }

  /**
   * A restore's changes as transactions: one, written here, so watchers see the whole restore at
   * once, at one revision; or, when etcd refuses one that large (its defaults: 128 operations,
   * 1.5 MiB), pieces within those defaults, left to write, of which a watcher may see the first
   * before the last is written. `written`: the revision a piece was written at, undefined for one
   * whose key had changed; absent for a piece not written yet.
   */
  private async restorePieces(
    changes: SnapshotChange[],
  ): Promise<{ changes: SnapshotChange[]; written?: number | undefined }[]> {
    if (changes.length === 0) return [];
    const pieces = () =>
      transactionBatches(changes, MAX_TXN_OPS, SNAPSHOT_CHUNK_BYTES).map((piece) => ({ changes: piece }));
    if (changes.length >= this.restoreOpsRefusedAt) return pieces();
    try {
      return [{ changes, written: await this.restoreTransaction(changes) }];
    } catch (err) {
      if (changes.length === 1 || !isTxnTooBigError(err)) throw err;
      if (isTooManyOpsError(err)) this.restoreOpsRefusedAt = Math.min(this.restoreOpsRefusedAt, changes.length);
      return pieces();
    }
  }

  /**
   * A restore's changes in one transaction, each key written only if it still holds what the
   * difference was worked out from: the revision written at, or undefined when one did not.
   */
  private async restoreTransaction(changes: readonly SnapshotChange[]): Promise<number | undefined> {
    const res = await this.write(changes[0]!.key, 0, (o) =>
      this.etcd.kv.txn(
        {
          compare: changes.map((c) => {
            const k = this.wire(c.key);
            return c.current ? modifiedAt(k, c.current.modRevision) : absent(k);
          }),
          success: changes.map((c) => {
            const key = this.wire(c.key);
            return c.value === undefined
              ? { request_delete_range: { key } }
              : { request_put: { key, value: Buffer.from(c.value, 'utf8') } };
          }),
        },
        o,
      ),
    );
    return res.succeeded ? Number(res.header.revision) : undefined;
  }

  async deleteSnapshot(name: string): Promise<void> {
    const manifest = this.snapshotKey(name);
    const chunks = Buffer.concat([manifest, Buffer.from('/')]);
    await this.write(name, 0, (o) =>
      this.etcd.kv.txn(
        {
          success: [
            { request_delete_range: { key: manifest } },
            { request_delete_range: { key: chunks, range_end: prefixEnd(chunks) } },
          ],
        },
        o,
      ),
    );
  }

  async snapshotNames(): Promise<string[]> {
    const base = this.wire(SNAPSHOTS_PREFIX);
    const res = await this.kvRange({ key: base, range_end: prefixEnd(base), keys_only: true });
    return res.kvs.map((kv) => this.unwire(kv.key).slice(SNAPSHOTS_PREFIX.length)).filter((n) => !n.includes('/'));
  }

  /** A snapshot's manifest and keys; NotFound without a manifest. */
  private async readSnapshot(name: string): Promise<{ scope: SnapshotScope; saved: Map<string, string> }> {
    const manifestKey = this.snapshotKey(name);
    const found = (await this.kvRange({ key: manifestKey })).kvs[0];
    if (!found) throw notFound(this.unwire(manifestKey));
    const manifest = JSON.parse(found.value.toString('utf8')) as SnapshotManifest;
    const chunkPrefix = Buffer.concat([manifestKey, Buffer.from('/')]);
    const res = await this.kvRange({ key: chunkPrefix, range_end: prefixEnd(chunkPrefix) });
    const byIndex = new Map(res.kvs.map((kv) => [Number(this.unwire(kv.key).split('/').pop()), kv.value]));
    const parts: Buffer[] = [];
    for (let i = 0; i < manifest.chunks; i++) {
      const part = byIndex.get(i);
      if (!part) throw notFound(this.unwire(this.snapshotKey(name, i)));
      parts.push(part);
    }
    const pairs = parts.length === 0 ? [] : (JSON.parse(Buffer.concat(parts).toString('utf8')) as [string, string][]);
    return { scope: manifest.scope, saved: new Map(pairs) };
  }

  /** `/mini-apiserver/snapshots/<name>` (its manifest), or `.../<name>/<chunk>`. */
  private snapshotKey(name: string, chunk?: number): Buffer {
    return this.wire(`${SNAPSHOTS_PREFIX}${name}${chunk === undefined ? '' : `/${chunk}`}`);
  }

  private async putRaw(key: Buffer, value: Buffer): Promise<void> {
    await this.write(this.unwire(key), value.length, (o) =>
      this.etcd.kv.txn({ success: [{ request_put: { key, value } }] }, o),
    );
  }

  /** A range request for every key under `prefix`. */
  private prefixRange(prefix: string): IRangeRequest {
    const wirePrefix = this.wire(prefix);
    return { key: wirePrefix.length > 0 ? wirePrefix : Buffer.from([0]), range_end: prefixEnd(wirePrefix) };
  }

  private wire(key: string): Buffer {
    return Buffer.concat([this.prefix, Buffer.from(key, 'utf8')]);
  }

  private unwire(key: Buffer): string {
    return key.subarray(this.prefix.length).toString('utf8');
  }

  /** A linearizable read of next to nothing, for its response header. */
  private probeRange(): IRangeRequest {
    return { key: this.wire('/'), count_only: true };
  }

  private toKeyValue(kv: IKeyValue): KeyValue {
    return {
      key: this.unwire(kv.key),
      value: kv.value.toString('utf8'),
      createRevision: Number(kv.create_revision),
      modRevision: Number(kv.mod_revision),
    };
  }

  private toEvent(ev: IEvent): WatchEvent {
    const prevKv = ev.prev_kv ? this.toKeyValue(ev.prev_kv) : undefined;
    const modRevision = Number(ev.kv.mod_revision);
    if (ev.type === 'Delete') {
      // etcd's delete event carries only the key and revision; the last value comes from prev_kv.
      const kv: KeyValue = {
        key: this.unwire(ev.kv.key),
        value: prevKv?.value ?? '',
        createRevision: prevKv?.createRevision ?? 0,
        modRevision,
      };
      return prevKv ? { type: 'delete', kv, prevKv } : { type: 'delete', kv };
    }
    const kv = this.toKeyValue(ev.kv);
    if (kv.createRevision === modRevision) return { type: 'create', kv };
    return prevKv ? { type: 'update', kv, prevKv } : { type: 'update', kv };
  }

  private noteCompacted(revision: number): void {
    this.knownCompactRevision = Math.max(this.knownCompactRevision, revision);
  }

  /** A range, retried while transient; a compacted `revision` becomes a typed Compacted error. */
  private async kvRange(req: IRangeRequest, revision?: number): Promise<IRangeResponse> {
    try {
      return await this.call((o) => this.etcd.kv.range(req, o), transient);
    } catch (err) {
      if (revision && isCompactedError(err)) throw compacted(revision, await this.compactRevisionAbove(revision));
      if (revision && isFutureRevisionError(err)) throw futureRevision(revision);
      throw this.failure(err);
    }
  }

  /** A write, resent only when it surely did not reach etcd; anything else is reported. */
  private async write<T>(key: string, bytes: number, fn: (o: CallOptions) => Promise<T>): Promise<T> {
    try {
      return await this.call(fn, neverApplied);
    } catch (err) {
      // etcd's own limit counts the whole request, so a value just under ours can still be refused.
      if (isTooLargeError(err)) throw tooLarge(key, bytes, MAX_VALUE_BYTES);
      throw this.failure(err);
    }
  }

  /**
   * Runs `fn` with a deadline, repeating it while `retryable` holds and the operation's time budget
   * lasts. Each attempt goes to a member picked at random, which is how a dead one is failed over.
   */
  private async call<T>(
    fn: (o: CallOptions) => Promise<T>,
    retryable: (err: unknown) => boolean,
    budgetMs = this.options.requestTimeoutMs,
  ): Promise<T> {
    const deadline = Date.now() + budgetMs;
    for (let delay = RETRY_MIN_MS; ; delay = Math.min(delay * 2, RETRY_MAX_MS)) {
      try {
        return await fn({ deadline });
      } catch (err) {
        if (this.closed || !retryable(err) || Date.now() + delay >= deadline) throw err;
        await sleep(delay);
      }
    }
  }

  /** What a caller sees of an etcd failure: Unavailable when etcd could not be reached in time. */
  private failure(err: unknown): unknown {
    if (isStorageError(err) || !transient(err)) return err;
    return unavailable(`etcd at ${this.endpoints.join(',')} is unavailable: ${reasonOf(err)}`);
  }

  /**
   * The compact revision, known to be above `revision`: etcd's read error does not carry it, but
   * a watch from a compacted revision is canceled with it.
   */
  private async compactRevisionAbove(revision: number): Promise<number> {
    const found = await new Promise<number>((resolve) => {
      const timer = setTimeout(() => done(0), this.options.requestTimeoutMs);
      let stream: WatchStream | undefined;
      let settled = false;
      const done = (compactRevision: number): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (stream) discard(stream);
        resolve(compactRevision);
      };
      this.etcd.watchClient.watch().then(
        (s) => {
          stream = s;
          s.on('data', (res) => {
            if (res.canceled) done(Number(res.compact_revision));
          });
          s.on('error', () => done(0));
          s.write({ create_request: { key: this.wire('/'), start_revision: revision } });
        },
        () => done(0),
      );
    });
    this.noteCompacted(found);
    // Without an answer, the best known bound: the revision is compacted, so etcd is past it.
    return Math.max(this.knownCompactRevision, revision + 1);
  }
}

/**
 * Ends a watch stream from our side. Half-closing first matters: etcd3 counts an error on a stream
 * that is still writable, our own cancellation included, as a failure of its member.
 */
function discard(stream: WatchStream): void {
  stream.end();
  stream.cancel();
}

interface WatchContext {
  open(): Promise<WatchStream>;
  request(startRevision: number): NonNullable<IWatchRequest['create_request']>;
  toEvent(ev: IEvent): WatchEvent;
  noteCompacted(revision: number): void;
  resumeTimeoutMs: number;
  detach(w: EtcdWatch): void;
}

/**
 * One watch on its own gRPC stream. It remembers the revision of the last event it delivered; when
 * the stream breaks (etcd restarted, the member died) it opens a new one, on any member, from the
 * next revision, and drops anything at or below it, so nothing is lost or delivered twice.
 */
class EtcdWatch implements WatchHandle {
  private stream: WatchStream | undefined;
  private ended = false;
  /** When the current run of failures began; cleared once a stream is established again. */
  private failingSince: number | undefined;
  private retryDelay = WATCH_RETRY_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: WatchContext,
    private lastRevision: number,
    private readonly callbacks: WatchCallbacks,
  ) {}

  start(): void {
    void this.connect();
  }

  close(): void {
    this.end();
  }

  requestProgress(): void {
    // Without a stream the answer comes anyway: the next `created` response carries the revision.
    this.stream?.write({ progress_request: {} });
  }

  /** Ends the watch and reports why. */
  fail(err: Error): void {
    if (this.ended) return;
    this.end();
    this.callbacks.onError(err);
  }

  private end(): void {
    this.ended = true;
    clearTimeout(this.retryTimer);
    if (this.stream) discard(this.stream);
    this.stream = undefined;
    this.ctx.detach(this);
  }

  private async connect(): Promise<void> {
    let stream: WatchStream;
    try {
      stream = await this.ctx.open();
    } catch (err) {
      this.retry(err);
      return;
    }
    // A cancelled stream still emits 'error' (CANCELLED); it must have a listener.
    stream.on('error', (err) => this.broken(stream, err));
    if (this.ended) {
      discard(stream);
      return;
    }
    this.stream = stream;
    stream.on('data', (res) => this.receive(stream, res));
    stream.on('end', () => this.broken(stream, new Error('watch stream ended')));
    stream.write({ create_request: this.ctx.request(this.lastRevision + 1) });
  }

  private receive(stream: WatchStream, res: IWatchResponse): void {
    if (stream !== this.stream || this.ended) return;
    if (res.canceled) {
      const compactRevision = Number(res.compact_revision);
      if (compactRevision > 0) {
        this.ctx.noteCompacted(compactRevision);
        this.fail(compacted(this.lastRevision + 1, compactRevision));
      } else {
        this.broken(stream, new Error(`watch canceled by etcd: ${res.cancel_reason}`));
      }
      return;
    }
    if (res.created) {
      this.failingSince = undefined;
      this.retryDelay = WATCH_RETRY_MIN_MS;
    }
    if (res.events.length === 0) {
      // A progress notification: etcd sends one only to a watcher that has every event up to the
      // revision. (The creation response is not one: replayed history may follow it.)
      if (!res.created) this.callbacks.onProgress?.(Number(res.header.revision));
      return;
    }
    // etcd never splits one revision's events across responses, so a revision is all new or all seen.
    const fresh = res.events.filter((ev) => Number(ev.kv.mod_revision) > this.lastRevision);
    if (fresh.length === 0) return;
    this.lastRevision = Number(fresh[fresh.length - 1]!.kv.mod_revision);
    this.callbacks.onEvents(fresh.map((ev) => this.ctx.toEvent(ev)));
  }

  private broken(stream: WatchStream, err: unknown): void {
    if (stream !== this.stream || this.ended) return;
    this.stream = undefined;
    discard(stream);
    this.retry(err);
  }

  private retry(err: unknown): void {
    if (this.ended) return;
    const now = Date.now();
    this.failingSince ??= now;
    if (now - this.failingSince >= this.ctx.resumeTimeoutMs) {
      const from = this.lastRevision + 1;
      const within = this.ctx.resumeTimeoutMs;
      this.fail(unavailable(`etcd watch could not resume from revision ${from} in ${within} ms: ${reasonOf(err)}`));
      return;
    }
    this.retryTimer = setTimeout(() => void this.connect(), this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, WATCH_RETRY_MAX_MS);
  }
}
