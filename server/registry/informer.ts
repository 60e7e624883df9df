// List-then-watch of one store for the server's own controllers and indexes (client-go's
// informer): every current object is reported, then every change in order, and a watch that ends
// (compaction, storage outage, the cache reloading) is replaced by a fresh list, after which
// whatever the list no longer holds is reported gone. Fed by the store's watch cache, so a kind is
// watched in storage once however many controllers follow it, and each event decoded once; the
// cache's source is storage, so several replicas on one etcd still see each other's writes.
import type { Logger } from '../../apimachinery/log.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { Store } from './store.js';

/**
 * What a controller does with the objects. They are the watch cache's, shared with every reader:
 * never mutate them. Calls are made one at a time, in order (an async handler is awaited).
 */
export interface InformerHandler {
  /** The object exists as given (added or changed, or listed again). */
  upsert(obj: KubeObject): void | Promise<void>;
  /** The object is gone (its last state). */
  remove(obj: KubeObject): void | Promise<void>;
  /**
   * After a (re)list, the uids it held. Removals of what this informer reported are reported
   * already; this is for a handler that also keeps objects it did not report (the garbage
   * collector's graph keeps a kind across the stores that served it in turn).
   */
  resync?(present: ReadonlySet<string>): void | Promise<void>;
}

/** An object's name, namespaced objects as `namespace/name`: a name may recur across namespaces. */
export const informerKey = (obj: KubeObject): string =>
  obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name ?? ''}` : (obj.metadata.name ?? '');

const RELIST_DELAY_MS = 500;

export class Informer {
  /** Each object as last reported, by uid: what a relist compares against (uid, so a replacement under one name is a removal too). */
  private readonly known = new Map<string, KubeObject>();
  private closed = false;
  private handle: { close(): void } | undefined;
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly handler: InformerHandler,
    private readonly logger: Logger,
  ) {}

  /**
   * Resolves once the first list has been handled: a controller started after it acts on a
   * complete view. If the list fails, it is retried in the background and the error thrown for
   * the caller to judge (fatal at start-up, or, for the garbage collector, one kind late).
   */
  async start(): Promise<void> {
    try {
      await this.listAndWatch();
    } catch (err) {
      this.relistLater();
      throw err;
    }
  }

  close(): void {
    this.closed = true;
    this.handle?.close();
    if (this.timer) clearTimeout(this.timer);
  }

  /** Resolves when every event received so far has been handled. */
  idle(): Promise<void> {
    return this.queue;
  }

  private upsert(obj: KubeObject): void {
    this.known.set(obj.metadata.uid ?? '', obj);
    this.enqueue(() => this.handler.upsert(obj));
  }

  private remove(obj: KubeObject): void {
    this.known.delete(obj.metadata.uid ?? '');
    this.enqueue(() => this.handler.remove(obj));
  }

  private enqueue(work: () => void | Promise<void>): void {
    this.queue = this.queue.then(work).catch((err: unknown) => {
      this.logger.error('controller handler failed', { resource: this.store.kind.resource, err: String(err) });
    });
  }

  private async listAndWatch(): Promise<void> {
    const { items, revision } = await this.store.list(undefined);
    if (this.closed) return;
    // Removals first: an object replaced under the same name goes before its successor comes.
    const listed = new Set(items.map((obj) => obj.metadata.uid ?? ''));
    for (const [uid, obj] of [...this.known]) if (!listed.has(uid)) this.remove(obj);
    for (const obj of items) this.upsert(obj);
    if (this.handler.resync) this.enqueue(() => this.handler.resync!(listed));
    // Events after the list queue behind it, in order.
    this.handle = this.store.watch(undefined, revision, {
      onEvents: (events) => {
        for (const ev of events) {
          if (ev.type === 'DELETED') this.remove(ev.object);
          else this.upsert(ev.object);
        }
      },
      onError: (err) => {
        if (this.closed) return;
        this.logger.warn('watch ended, relisting', { resource: this.store.kind.resource, err: err.message });
        this.relistLater();
      },
    });
    await this.queue;
  }

  private relistLater(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.listAndWatch().catch((err: unknown) => {
        this.logger.warn('relist failed', { resource: this.store.kind.resource, err: String(err) });
        this.relistLater();
      });
    }, RELIST_DELAY_MS);
    // Background work: a start that failed must not keep the process alive retrying.
    this.timer.unref();
  }
}
