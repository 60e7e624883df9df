// ONE generic store for every kind: it turns REST verbs into storage operations with kube's
// semantics (system metadata, optimistic concurrency, finalizers, graceful deletion, dry run),
// and leaves what differs between kinds to the strategy.
import type { KeyValue, Storage } from '../../storage/interface.js';
import { isStorageError } from '../../storage/errors.js';
import {
  ApiError,
  OBJECT_MODIFIED,
  alreadyExists,
  generateNameConflict,
  badRequest,
  conflict,
  internalError,
  invalid,
  notFound,
  requestEntityTooLarge,
  serviceUnavailable,
  tooLargeResourceVersion,
} from '../../apimachinery/errors.js';
import { Cacher, TooLargeResourceVersion } from '../../storage/cacher.js';
import { GoPrinted, invalid as invalidField } from '../../apimachinery/field-errors.js';
import { type KubeObject, cloneJson, nowTimestamp } from '../../apimachinery/object.js';
import { type Clock, systemClock } from '../../apimachinery/clock.js';
import { listPrefix, objectKey } from './keys.js';
import { type Strategy, type WriteContext, qualifiedKind, qualifiedResource, updateStrategyFor } from './strategy.js';
import {
  type Decoded,
  checkDecodable,
  checkNewObject,
  decodeErrorOf,
  expectedNamespace,
  prepareCreate,
  prepareUpdate,
  validateCreate,
  validateUpdate,
} from './write-steps.js';
import { generateNameFrom } from './object-meta-ops.js';
import { deepEqual, sameJson } from '../../apimachinery/equality.js';
import { MAX_VALUE_BYTES } from '../../storage/interface.js';
import { type ContinueFrom, continueExpired, listExpired } from './continue-token.js';
import { parseJSON, stringifyJSON } from '../../apimachinery/json.js';
import { type AdmissionChain, type Attributes, NO_ADMISSION, type Operation } from '../../admission/interface.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { type Propagation, finalizersForDeletion } from './delete-propagation.js';
import { LARGE_WRITE_BYTES, giveWayFor, runSliced } from './give-way.js';

export interface ListOptions {
  /** Objects the caller wants (label and field selectors); applied before `limit` counts. */
  predicate?: (obj: KubeObject) => boolean;
  limit?: number;
  /** Continue a paged list: from this key on, at the token's revision (latest when it has none). */
  continueFrom?: ContinueFrom;
  /** Read at an exact revision (resourceVersionMatch=Exact). */
  revision?: number;
  /** Read at this revision or a newer one; waits for it briefly, then 504 (NotOlderThan). */
  minRevision?: number;
  /** resourceVersion "0": any recent state will do, so the watch cache answers as it is. */
  anyRevision?: boolean;
}

export interface ListResult {
  items: KubeObject[];
  revision: number;
  /** When `limit` cut the list short: where the next page starts. */
  next?: { revision: number; startKey: string };
}

/** A change to one object, as a watch delivers it before selectors are applied. */
export interface ObjectEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object after the change; for DELETED its last state, at the delete's resourceVersion. */
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED), for selector transitions. */
  previous?: KubeObject;
  revision: number;
}

export interface ObjectWatchCallbacks {
  onEvents(events: ObjectEvent[]): void;
  /** The watch ended: a storage Compacted error when its start revision is gone. */
  onError(err: Error): void;
}

export interface DeleteOptions extends Propagation {
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
  /** Who asked, for admission. */
  user?: UserInfo;
}

/** An object's stored JSON text, and the offset of its metadata's closing brace in it (-1: none). */
export interface StoredText {
  text: string;
  metadataEnd: number;
}

export type DeleteResult = { deleted: true; obj: KubeObject } | { deleted: false; obj: KubeObject };

/** Computes the new object from the current one; may throw an ApiError. */
export type UpdateFn = (current: KubeObject) => KubeObject | Promise<KubeObject>;

export interface UpdateOptions extends WriteContext {
  /**
   * A PUT: the caller's object replaces the stored one, so a missing resourceVersion makes it
   * unconditional, which the strategy may refuse. (A patch or a controller's read-modify-write
   * starts from the stored object and is never unconditional in that sense.)
   */
  replace?: boolean;
  /**
   * `fn` only reads the object it is given and returns a new one (the CRD controller's status
   * write): it is given the current object itself, the watch cache's (read no further from storage
   * than its revision when the cache holds that), and what it returns is written without a copy.
   * That object's top level and metadata must be its own, and what it shares with the current
   * object must be what the write's steps leave alone.
   */
  derived?: boolean;
}

const MAX_CONFLICT_RETRIES = 8;
/** Writes whose objects the watch cache may take (`Store.writing`) at most: more than are ever in flight. */
const MAX_WRITING = 1024;

/** kube's maxNameGenerationCreateAttempts: 8 attempts in all when the name is generated. */
export const MAX_NAME_GENERATION_CREATE_ATTEMPTS = 8;

export class Store {
  readonly strategy: Strategy;
  /** Serves whole lists and watches from memory; created on first use. */
  private cache: Cacher<KubeObject> | undefined;

  constructor(
    private readonly storage: Storage,
    strategy: Strategy,
    /** Run around every create, update and delete, as kube's handlers and store run it. */
    private readonly admission: AdmissionChain = NO_ADMISSION,
    /** The server's clock: creation and deletion times, and what its requests stamp. */
    readonly clock: Clock = systemClock,
  ) {
    this.strategy = strategy;
  }

  /**
   * Objects a create (or a handed-over update) is writing, by key, with the bytes it writes: the
   * watch cache takes the object when those bytes come back, instead of decoding them again (see
   * `create`).
   */
  private readonly writing = new Map<string, { value: string; object: KubeObject }>();
  /** See `storedText`. */
  private readonly stored = new WeakMap<KubeObject, StoredText>();

  private cacher(): Cacher<KubeObject> {
    this.cache ??= new Cacher(this.storage, this.prefix(undefined), (kv, previous, sameBytes) =>
      sameBytes && previous
        ? { ...previous, metadata: { ...previous.metadata, resourceVersion: String(kv.modRevision) } }
        : shareUnchanged(this.written(kv) ?? this.decode(kv), previous),
    );
    return this.cache;
  }

  /** The object a write of this store wrote as `kv`, at kv's revision: what decoding `kv` gives. */
  private written(kv: KeyValue): KubeObject | undefined {
    const w = this.writing.get(kv.key);
    if (w?.value !== kv.value) return undefined;
    this.writing.delete(kv.key);
    w.object.metadata.resourceVersion = String(kv.modRevision);
    return w.object;
  }

  /** How many objects storage holds now: kube's apiserver_storage_objects, a count-only range (its Stats). */
  objectCount(): Promise<number> {
    return this.storage.count(this.prefix(undefined));
  }

  /** Watches resuming from before `revision` get kube's 410 from now on (storage/cacher.ts expireHistory). */
  expireHistory(revision: number): void {
    this.cacher().expireHistory(revision);
  }

  /** Stops the watch cache: the kind is no longer served. */
  close(): void {
    this.cache?.stop();
    this.cache = undefined;
    this.writing.clear();
  }

  get kind() {
    return this.strategy.kind;
  }

  /** kube's admission.Attributes for a write of this kind. */
  private attributes(
    operation: Operation,
    namespace: string | undefined,
    name: string,
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    ctx: Pick<WriteContext, 'subresource' | 'dryRun' | 'user' | 'warn' | 'auditAnnotate'>,
  ): Attributes {
    return {
      operation,
      kind: qualifiedKind(this.kind),
      resource: qualifiedResource(this.kind),
      subresource: ctx.subresource ?? '',
      namespace: this.kind.namespaced ? (namespace ?? '') : '',
      name,
      object,
      oldObject,
      dryRun: ctx.dryRun,
      userInfo: ctx.user,
      ...(ctx.warn ? { warn: ctx.warn } : {}),
      ...(ctx.auditAnnotate ? { annotate: ctx.auditAnnotate } : {}),
      defaultPatched: this.strategy.defaultPatched,
    };
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(this.kind, namespace, name);
  }

  prefix(namespace: string | undefined): string {
    return listPrefix(this.kind, namespace);
  }

  decode(kv: KeyValue): KubeObject {
    const obj = (this.strategy.exactIntegers ? parseJSON(kv.value) : JSON.parse(kv.value)) as KubeObject;
    this.strategy.fromStorage?.(obj);
    obj.metadata.resourceVersion = String(kv.modRevision);
    return obj;
  }

  /**
   * The stored text of `obj`, and where its metadata's object ends in it (its closing brace). It is
   * JSON.stringify's text, written member by member at the top, so that a reply can be made of it
   * (`storedText`).
   */
  private encode(obj: KubeObject): StoredText {
    // The resourceVersion is the storage revision; it is never stored inside the object.
    const { resourceVersion: _rv, ...metadata } = obj.metadata;
    let text = '{';
    let metadataEnd = -1;
    for (const k of Object.keys(obj)) {
      const v = k === 'metadata' ? metadata : obj[k];
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      if (text.length > 1) text += ',';
      text += `${JSON.stringify(k)}:${stringifyJSON(v)}`;
      if (k === 'metadata') metadataEnd = text.length - 1;
    }
    text += '}';
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_VALUE_BYTES) throw requestEntityTooLarge(MAX_VALUE_BYTES);
    return { text, metadataEnd };
  }

  /**
   * What a create stored of the object it answers with (the object exactly, but its
   * resourceVersion), for a reply made of the same text. Given once: the object may live on in the
   * watch cache, and its stored text need not.
   */
  storedText(obj: KubeObject): StoredText | undefined {
    const text = this.stored.get(obj);
    this.stored.delete(obj);
    return text;
  }

  /**
   * The object, read from storage; with `anyRevision` (resourceVersion "0") from the watch cache;
   * with `minRevision`, once the watch cache has seen it (kube's 504 if not in time). Shared, as
   * lists are: the watch cache's own object whenever it holds the revision storage answered with
   * (the same stored bytes, decoded once, and encoded once per reply format: endpoints/encoded.ts).
   * Do not mutate it.
   */
  async get(
    namespace: string | undefined,
    name: string,
    opts: { anyRevision?: boolean; minRevision?: number } = {},
  ): Promise<KubeObject> {
    if (opts.minRevision !== undefined) await this.call(() => this.cacher().waitFresh(opts.minRevision!));
    if (opts.anyRevision) {
      const cached = await this.call(() => this.cacher().get(this.key(namespace, name)));
      if (!cached) throw notFound(qualifiedResource(this.kind), name);
      return cached.object;
    }
    const key = this.key(namespace, name);
    const held = await this.heldNewest(key, name);
    if (held) return held.object;
    const kv = await this.call(() => this.storage.get(key));
    if (!kv) throw notFound(qualifiedResource(this.kind), name);
    return this.cache?.heldAt(key, kv.modRevision) ?? this.decode(kv);
  }

  /**
   * The watch cache's object at storage's newest revision of the key, as kube's consistent GET
   * reads it, with that revision read alone (`Storage.modRevision`): undefined when the cache is
   * behind or storage has no such read, and the value must be read.
   */
  private async heldNewest(key: string, name: string): Promise<{ object: KubeObject; revision: number } | undefined> {
    const cache = this.cache;
    if (!cache || !this.storage.modRevision) return undefined;
    const revision = await this.call(() => this.storage.modRevision!(key));
    if (revision === undefined) throw notFound(qualifiedResource(this.kind), name);
    const object = cache.heldAt(key, revision);
    return object && { object, revision };
  }

  /**
   * Objects under the namespace (all when undefined): whole lists from the watch cache, pages from
   * storage (the watch cache's objects where it holds the same revisions). Shared: do not mutate them.
   */
  async list(namespace: string | undefined, opts: ListOptions = {}): Promise<ListResult> {
    const prefix = this.prefix(namespace);
    if (opts.minRevision !== undefined) await this.call(() => this.cacher().waitFresh(opts.minRevision!));
    if (!opts.limit && !opts.continueFrom && opts.revision === undefined) {
      // A whole list: at the newest revision (from the watch cache once it caught up, or from storage
      // where the cache cannot know it has), or at least at minRevision, which the cache has reached.
      const anyRevision = opts.anyRevision || opts.minRevision !== undefined;
      const cached = await this.call(() => this.cacher().list(prefix, anyRevision ? { anyRevision } : {}));
      // Shared with the watch cache (and every other reader): callers must not mutate them.
      const items = cached.items.map((i) => i.object).filter((o) => !opts.predicate || opts.predicate(o));
      return { items, revision: cached.revision };
    }
    let revision = opts.continueFrom?.revision ?? opts.revision;
    let startKey = opts.continueFrom?.startKey;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
    const items: KubeObject[] = [];
    // Selectors filter after storage paging, so keep reading pages until the limit is filled.
    for (;;) {
      const at = revision;
      const from = startKey;
      const page = await this.call(() =>
        this.storage.range(prefix, {
          ...(limit !== undefined ? { limit: limit - items.length + 1 } : {}),
          ...(from !== undefined ? { startKey: from } : {}),
          ...(at !== undefined ? { revision: at } : {}),
        }),
      ).catch(async (err: unknown) => {
        if (isStorageError(err, 'FutureRevision') && at !== undefined) {
          // A revision storage never had: made up, so a 400 for a token (kube passes etcd's 500 on),
          // and kube's "too large" for resourceVersionMatch=Exact, as its cacher answers.
          if (opts.continueFrom)
            throw badRequest(`invalid continue token: resource version ${at} has not been reached yet`);
          throw tooLargeResourceVersion(at, await this.call(() => this.storage.currentRevision()));
        }
        if (!isStorageError(err, 'Compacted')) throw err;
        throw opts.continueFrom ? continueExpired(opts.continueFrom.startKey, prefix) : listExpired();
      });
      revision = page.revision;
      for (const kv of page.kvs) {
        const obj = this.cache?.heldAt(kv.key, kv.modRevision) ?? this.decode(kv);
        if (opts.predicate && !opts.predicate(obj)) continue;
        if (limit !== undefined && items.length === limit) {
          return { items, revision, next: { revision, startKey: kv.key } };
        }
        items.push(obj);
      }
      if (!page.more || page.kvs.length === 0) return { items, revision };
      startKey = page.kvs[page.kvs.length - 1]!.key + '\x00';
    }
  }

  /**
   * Changes under the namespace (every namespace when undefined) after `afterRevision`, from the
   * watch cache: each object is decoded once and shared by every watcher, which must not mutate it.
   */
  watch(namespace: string | undefined, afterRevision: number, callbacks: ObjectWatchCallbacks): { close(): void } {
    return this.cacher().watch(this.prefix(namespace), afterRevision, {
      onEvents: (events) =>
        callbacks.onEvents(
          events.map((ev) => {
            const type = ev.type === 'create' ? 'ADDED' : ev.type === 'update' ? 'MODIFIED' : 'DELETED';
            return {
              type,
              object: ev.object,
              ...(ev.previous ? { previous: ev.previous } : {}),
              revision: ev.revision,
            };
          }),
        ),
      onError: (err) =>
        callbacks.onError(
          err instanceof TooLargeResourceVersion ? tooLargeResourceVersion(err.requested, err.current) : err,
        ),
    });
  }

  /**
   * metadata.generateName's names (names.SimpleNameGenerator): the base and 5 random characters.
   * Replaceable so that tests can make generated names collide.
   */
  generateName: (base: string) => string = generateNameFrom;

  async create(namespace: string | undefined, input: KubeObject, ctx: WriteContext): Promise<KubeObject> {
    checkNewObject(this.strategy, input, ctx);
    const obj = ctx.handedOver ? input : cloneJson(input);
    const meta = obj.metadata;
    if (this.kind.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    // Mutating admission sees the object as the request decoded it, before a name is generated or
    // anything validated, as kube's create handler runs it.
    const attrs = this.attributes('CREATE', namespace, meta.name ?? '', obj, undefined, ctx);
    const decoded = await this.decodeAndTrack(obj, undefined, attrs, ctx);
    await this.admission.admit(attrs);
    await giveWayFor(ctx.large);
    // kube's RetryGenerateName (GA in 1.32): when the server picks the name, a collision is tried
    // again with a new one, the whole create each time, up to maxNameGenerationCreateAttempts.
    if (!meta.name && meta.generateName) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.createOnce(namespace, cloneJson(obj), attrs, ctx, decoded);
        } catch (err) {
          if (
            attempt >= MAX_NAME_GENERATION_CREATE_ATTEMPTS ||
            !(err instanceof ApiError && err.status.reason === 'AlreadyExists')
          )
            throw err;
        }
      }
    }
    return this.createOnce(namespace, obj, attrs, ctx, decoded);
  }

  /** One attempt of a create (kube's Store.create), after mutating admission. */
  private async createOnce(
    namespace: string | undefined,
    obj: KubeObject,
    attrs: Attributes,
    ctx: WriteContext,
    decoded: Decoded | undefined,
  ): Promise<KubeObject> {
    // BeforeCreate: mutating admission may have moved the object, and added what decoding defaults
    // and prunes; the key is the request's namespace.
    prepareCreate(
      this.strategy,
      obj,
      expectedNamespace(this.kind, namespace),
      ctx,
      nowTimestamp(this.clock),
      this.generateName,
      decoded,
    );
    await giveWayFor(ctx.large);
    await runSliced(validateCreate(this.strategy, obj, ctx));
    await giveWayFor(ctx.large);
    const name = obj.metadata.name!;
    await this.admission.validate({ ...attrs, name, object: obj });
    const stored = await this.inVersion(obj, this.strategy.versions?.storageApiVersion);
    await giveWayFor(ctx.large);
    if (ctx.dryRun) {
      const existing = await this.call(() => this.storage.get(this.key(namespace, name)));
      if (existing) throw this.createConflict(obj, name);
      return stored;
    }
    const key = this.key(namespace, name);
    const encoded = this.encode(stored);
    const value = encoded.text;
    // The request's object, in storage's version as it is, is canonical (decoding it gives it back:
    // the schema pruned and defaulted it) and goes only to the reply, which does not change it: the
    // watch cache may hold it rather than decode the same bytes again. Not when the client sent an
    // empty resourceVersion: decoding puts the revision last in the metadata, not where it was. Nor
    // when its strings are slices of the body's text, which the cache would keep whole beside the
    // object (6 to 10 MiB of RSS for the real-world CRDs).
    const shared =
      ctx.handedOver &&
      !ctx.slicesBody &&
      stored === obj &&
      this.cache !== undefined &&
      !Object.hasOwn(stored.metadata, 'resourceVersion');
    if (shared) this.hold(key, value, stored);
    try {
      const kv = await this.call(() => this.storage.create(key, value));
      stored.metadata.resourceVersion = String(kv.modRevision);
      if (stored === obj) this.stored.set(stored, encoded);
      return stored;
    } catch (err) {
      if (shared) this.release(key, stored);
      if (isStorageError(err, 'KeyExists')) throw this.createConflict(obj, name);
      throw err;
    }
  }

  /** The watch cache takes `object` when the event of `value` at `key` comes (`written`). */
  private hold(key: string, value: string, object: KubeObject): void {
    // Only writes in flight wait here; a bound keeps a cache that missed its events from keeping them.
    if (this.writing.size >= MAX_WRITING) this.writing.clear();
    this.writing.set(key, { value, object });
  }

  /** A write that failed: its object will not come back. */
  private release(key: string, object: KubeObject): void {
    if (this.writing.get(key)?.object === object) this.writing.delete(key);
  }

  /**
   * The 409 for a name taken (InterpretCreateError, then rest.CheckGeneratedNameError): when the
   * server generated the name, NewGenerateNameConflict, which asks the client to retry after 1s.
   */
  private createConflict(obj: KubeObject, name: string): ApiError {
    const resource = qualifiedResource(this.kind);
    return obj.metadata.generateName ? generateNameConflict(resource, name) : alreadyExists(resource, name);
  }

  /**
   * Read-modify-write with compare-and-swap, as kube's GuaranteedUpdate: `fn` sees the current
   * object; a resourceVersion in its result is a precondition (409 on mismatch). Returns the
   * stored object; an object whose last finalizer is gone while it is being deleted is deleted.
   */
  async update(namespace: string | undefined, name: string, fn: UpdateFn, options: UpdateOptions): Promise<KubeObject> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      // A derived write's object, when the watch cache holds it, is not read from storage at all
      // (then it is a large write only if the caller says so).
      const held = options.derived ? await this.heldNewest(key, name) : undefined;
      const kv = held ? undefined : await this.call(() => this.storage.get(key));
      if (!held && !kv) throw notFound(qualifiedResource(this.kind), name);
      const revision = held?.revision ?? kv!.modRevision;
      // The watch cache's object when it holds this revision (as get answers), read only here.
      const current = held?.object ?? this.cache?.heldAt(key, revision) ?? this.decode(kv!);
      // A small patch of a large stored object is a large write too.
      const opts = kv && kv.value.length >= LARGE_WRITE_BYTES ? { ...options, large: true } : options;
      const copy = opts.derived ? current : cloneJson(current);
      const made = await fn(copy);
      await giveWayFor(opts.large);
      // The copy it was given is already this write's alone, as a derived object is; anything else
      // may share with the caller's.
      const next = made === copy || opts.derived ? made : cloneJson(made);
      await giveWayFor(opts.large);
      // Malformed metadata the stored object already had is not the caller's to answer for.
      if (opts.replace || decodeErrorOf(this.strategy, next, opts) !== decodeErrorOf(this.strategy, current, opts))
        checkDecodable(this.strategy, next, opts);
      if (opts.replace) this.checkUIDPrecondition(key, name, next, current);
      const wantRv: unknown = next.metadata?.resourceVersion;
      // kube's versioner reads "" and "0" (any run of zeros) as revision 0: no precondition, which
      // only a kind that allows unconditional updates takes (a patch that sets it included).
      const unconditional =
        wantRv === undefined || wantRv === null || (typeof wantRv === 'string' && /^0*$/.test(wantRv));
      if (unconditional) {
        if (
          (opts.replace || wantRv !== undefined) &&
          !updateStrategyFor(this.strategy, opts.subresource).allowUnconditional
        )
          throw this.resourceVersionRequired(name);
        if (next.metadata) delete next.metadata.resourceVersion;
      } else if (wantRv !== current.metadata.resourceVersion) {
        throw conflict(qualifiedResource(this.kind), name, OBJECT_MODIFIED);
      }
      // The update is made, and validated, in the version the caller wrote; stored in storage's.
      const old = await this.inVersion(current, next.apiVersion);
      // kube runs mutating admission on the updated object before the strategy, validating after.
      const attrs = this.attributes('UPDATE', namespace, name, next, old, opts);
      const decoded = await this.decodeAndTrack(next, old, attrs, opts);
      await this.admission.admit(attrs);
      await giveWayFor(opts.large);
      const prepared = await this.prepareUpdate(next, old, namespace, opts, decoded);
      await this.admission.validate({ ...attrs, object: prepared });
      const obj = await this.inVersion(prepared, this.strategy.versions?.storageApiVersion);
      await giveWayFor(opts.large);
      // As kube: an update that changes nothing is not written and keeps the resourceVersion.
      if (deepEqual(obj, current)) return obj;
      if (opts.dryRun) return obj;
      if (obj.metadata.deletionTimestamp && !this.strategy.delete.waits(obj)) {
        // Removing the last finalizer of an object being deleted completes the delete.
        return this.finishDelete(key, obj, revision, name);
      }
      // As a handed-over create's: the watch cache takes the object written rather than decode its
      // bytes, when decoding them gives it back (in storage's version, the resourceVersion last).
      const shared = opts.handedOver === true && obj === prepared && this.cache !== undefined;
      if (shared) delete obj.metadata.resourceVersion;
      const value = this.encode(obj).text;
      if (shared) this.hold(key, value, obj);
      try {
        const written = await this.call(() => this.storage.update(key, value, revision));
        obj.metadata.resourceVersion = String(written.modRevision);
        return obj;
      } catch (err) {
        if (shared) this.release(key, obj);
        // Always safe to retry: `fn` sees the new current object, and a caller's precondition
        // (a resourceVersion it sent) no longer matches it, which is then the 409.
        if (isStorageError(err, 'Conflict') && attempt < MAX_CONFLICT_RETRIES) continue;
        if (isStorageError(err, 'Conflict')) throw conflict(qualifiedResource(this.kind), name, OBJECT_MODIFIED);
        if (isStorageError(err, 'NotFound')) throw notFound(qualifiedResource(this.kind), name);
        throw err;
      }
    }
  }

  /** The object in `apiVersion` (as it is when the kind has one version, or none is asked for). */
  async inVersion(obj: KubeObject, apiVersion: string | undefined): Promise<KubeObject> {
    return (await this.allInVersion([obj], apiVersion))[0]!;
  }

  /** Whether `obj` is in `apiVersion` as it is, with no conversion to make (one version, or none asked for). */
  isInVersion(obj: KubeObject, apiVersion: string | undefined): boolean {
    return !this.strategy.versions || !apiVersion || obj.apiVersion === apiVersion;
  }

  /** Objects in `apiVersion`, those in another version converted in one batch (one webhook call). */
  async allInVersion(objs: KubeObject[], apiVersion: string | undefined): Promise<KubeObject[]> {
    const todo = objs.filter((o) => !this.isInVersion(o, apiVersion));
    if (todo.length === 0) return objs;
    const converted = await this.strategy.versions!.convert(todo, apiVersion!);
    let i = 0;
    return objs.map((o) => (this.isInVersion(o, apiVersion) ? o : converted[i++]!));
  }

  /**
   * kube's decoding of the request's object, before mutating admission sees it: the kind's
   * canonicalize (a custom resource pruned and defaulted, a built-in kind's unknown fields
   * dropped), what it finds told to the request there (fieldValidation's warnings, or its 400
   * before any webhook is called); then managedFields, as kube's handlers record them before
   * mutating admission (the field manager's UpdateNoErrors): what a webhook changes afterwards is
   * no manager's. The object is canonicalized again, quietly, after admission when a plugin may
   * have changed it, on update, and on create when BeforeCreate sets what canonicalizing reads or
   * drops (`settled`).
   */
  private async decodeAndTrack(
    obj: KubeObject,
    old: KubeObject | undefined,
    attrs: Attributes,
    ctx: WriteContext,
  ): Promise<Decoded | undefined> {
    if (typeof obj.metadata !== 'object' || obj.metadata === null) return undefined;
    const again = old !== undefined || !settled(obj.metadata) || this.admission.mayMutate(attrs);
    await giveWayFor(ctx.large);
    this.strategy.canonicalize(obj, ctx);
    await giveWayFor(ctx.large);
    if (ctx.trackFields) await ctx.trackFields(obj, old);
    return { again };
  }

  private async finishDelete(key: string, obj: KubeObject, revision: number, name: string): Promise<KubeObject> {
    try {
      const kv = await this.call(() => this.storage.delete(key, revision));
      obj.metadata.resourceVersion = String(kv.modRevision);
      return obj;
    } catch (err) {
      if (isStorageError(err, 'Conflict')) throw conflict(qualifiedResource(this.kind), name, OBJECT_MODIFIED);
      if (isStorageError(err, 'NotFound')) throw notFound(qualifiedResource(this.kind), name);
      throw err;
    }
  }

  private async prepareUpdate(
    obj: KubeObject,
    old: KubeObject,
    namespace: string | undefined,
    ctx: WriteContext,
    decoded: Decoded | undefined,
  ): Promise<KubeObject> {
    // BeforeUpdate: the key is the request's namespace, whatever mutating admission did.
    prepareUpdate(this.strategy, obj, old, expectedNamespace(this.kind, namespace), ctx, decoded);
    await giveWayFor(ctx.large);
    await runSliced(validateUpdate(this.strategy, obj, old, ctx));
    return obj;
  }

  async delete(namespace: string | undefined, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    const key = this.key(namespace, name);
    for (let attempt = 0; ; attempt++) {
      const kv = await this.call(() => this.storage.get(key));
      if (!kv) throw notFound(qualifiedResource(this.kind), name);
      const current = this.decode(kv);
      this.checkPreconditions(current, opts.preconditions, name);
      await this.admission.validate(this.attributes('DELETE', namespace, name, undefined, current, opts));
      const marked = this.markForDeletion(current, opts);
      try {
        if (marked) {
          if (opts.dryRun) return { deleted: false, obj: marked };
          // Nothing changes when the object is already marked: answer with it as it is.
          if (current.metadata.deletionTimestamp && marked === current) return { deleted: false, obj: current };
          const written = await this.call(() => this.storage.update(key, this.encode(marked).text, kv.modRevision));
          marked.metadata.resourceVersion = String(written.modRevision);
          return { deleted: false, obj: marked };
        }
        if (opts.dryRun) return { deleted: true, obj: current };
        const gone = await this.call(() => this.storage.delete(key, kv.modRevision));
        current.metadata.resourceVersion = String(gone.modRevision);
        return { deleted: true, obj: current };
      } catch (err) {
        if (isStorageError(err, 'Conflict') && attempt < MAX_CONFLICT_RETRIES) continue;
        if (isStorageError(err, 'Conflict')) throw conflict(qualifiedResource(this.kind), name, OBJECT_MODIFIED);
        if (isStorageError(err, 'NotFound')) throw notFound(qualifiedResource(this.kind), name);
        throw err;
      }
    }
  }

  /**
   * The object as a pending delete leaves it, or undefined when it can go at once. The propagation
   * policy first sets the garbage collector's finalizers (updateForGracefulDeletionAndFinalizers):
   * on an object already being deleted too, so a second DELETE with another policy switches
   * Foreground to Orphan, or to Background, which removes the last finalizer and deletes it.
   */
  private markForDeletion(current: KubeObject, propagation: Propagation): KubeObject | undefined {
    const del = this.strategy.delete;
    const finalizers = del.finalizersOnDelete
      ? del.finalizersOnDelete(current, propagation)
      : finalizersForDeletion(current.metadata.finalizers ?? [], propagation, del.garbageCollection);
    let next = current;
    if (finalizers) {
      next = cloneJson(current);
      if (finalizers.length) next.metadata.finalizers = finalizers;
      else delete next.metadata.finalizers;
    }
    // Already being deleted: the mark stays as it is while finalizers remain.
    if (current.metadata.deletionTimestamp) return del.waits(next) ? next : undefined;
    if (!del.marksFirst(next)) return undefined;
    const marked = next === current ? cloneJson(current) : next;
    del.mark(marked, nowTimestamp(this.clock));
    return marked;
  }

  /**
   * rest.BeforeDelete's early check, which is the one a client sees (storage's own "Precondition
   * failed" check comes after it): the conflict names the kind, not the resource
   * (schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}).
   */
  private checkPreconditions(obj: KubeObject, pre: DeleteOptions['preconditions'], name: string): void {
    if (!pre) return;
    const kind = qualifiedKind(this.kind);
    if (pre.uid && pre.uid !== obj.metadata.uid) {
      throw conflict(
        kind,
        name,
        `the UID in the precondition (${pre.uid}) does not match the UID in record (${obj.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
      );
    }
    if (pre.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
      throw conflict(
        kind,
        name,
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata.resourceVersion ?? ''}). The object might have been modified`,
      );
    }
  }

  /**
   * A PUT whose object carries a uid makes it a precondition (rest.DefaultUpdatedObjectInfo's
   * Preconditions), checked by storage's GuaranteedUpdate before anything else: a mismatch is a
   * StorageError (invalid object) that the store turns into a 409 Conflict.
   */
  private checkUIDPrecondition(key: string, name: string, next: KubeObject, current: KubeObject): void {
    const uid = next.metadata?.uid;
    if (typeof uid !== 'string' || uid === '' || uid === current.metadata.uid) return;
    const why = `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid ?? ''}`;
    throw conflict(
      qualifiedResource(this.kind),
      name,
      `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${why}`,
    );
  }

  /** kube names the resource, not the kind, here, and prints the uint64 0 with Go's %#v. */
  private resourceVersionRequired(name: string): ApiError {
    const field = invalidField('metadata.resourceVersion', new GoPrinted('0x0'), 'must be specified for an update');
    return invalid(qualifiedResource(this.kind), name, [field]);
  }

  /** Storage failures that are not the caller's fault become 503/500 Status errors. */
  private async call<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (err instanceof TooLargeResourceVersion) throw tooLargeResourceVersion(err.requested, err.current);
      if (isStorageError(err, 'Unavailable')) throw serviceUnavailable(err.message);
      if (isStorageError(err, 'TooLarge')) throw requestEntityTooLarge(MAX_VALUE_BYTES);
      if (isStorageError(err)) throw err;
      throw internalError(err);
    }
  }
}

/**
 * Whether a create's metadata is as BeforeCreate will leave it where canonicalizing could tell:
 * a name given (a namespace's label is its name), and no namespace, generation or managedFields
 * that pruning would drop as empty before BeforeCreate or the field manager set them again (at the
 * end of the metadata, not where the client put them): else the object is canonicalized again.
 */
function settled(meta: KubeObject['metadata']): boolean {
  const { name, namespace, generation } = meta as Record<string, unknown>;
  return (
    typeof name === 'string' &&
    name !== '' &&
    (namespace === undefined || (typeof namespace === 'string' && namespace !== '')) &&
    (generation === undefined || (generation !== 0 && generation !== null)) &&
    !Object.hasOwn(meta, 'managedFields')
  );
}

/**
 * `obj` with the members (its own and its metadata's) written as `previous` writes them taken from
 * `previous`: the versions of one object the watch cache holds (the current one, the window's
 * older ones) share what a write left alone, such as a status write's spec and managedFields.
 * Both are decoded objects, which no reader mutates.
 */
function shareUnchanged(obj: KubeObject, previous: KubeObject | undefined): KubeObject {
  if (!previous) return obj;
  for (const k of Object.keys(obj)) if (k !== 'metadata' && sameJson(obj[k], previous[k])) obj[k] = previous[k];
  const meta = obj.metadata as Record<string, unknown>;
  const before = previous.metadata as Record<string, unknown> | undefined;
  if (before) for (const k of Object.keys(meta)) if (sameJson(meta[k], before[k])) meta[k] = before[k];
  return obj;
}
