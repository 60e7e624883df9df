// List-then-watch over one storage prefix, for the server's own controllers: every current object
// is reported once, then every change, and a watch that ends (compaction, storage outage) is
// replaced by a fresh list. Watching storage rather than this process's writes is what lets
// several replicas on one etcd act as one API.
import type { Storage } from '../../storage/interface.js';
import type { Logger } from '../../apimachinery/log.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { Store } from './store.js';

export interface InformerHandler {
  /** The object exists as given (added or changed). */
  upsert(obj: KubeObject): void | Promise<void>;
  /** The object is gone. */
  remove(obj: KubeObject): void | Promise<void>;
  /** After a (re)list: every object whose key (`name`, or `namespace/name` when namespaced) is not in `present` is gone. */
  resync?(present: Set<string>): void | Promise<void>;
}

/** How `resync` names an object: namespaced objects of one name may live in several namespaces. */
export const informerKey = (obj: KubeObject): string =>
  obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name ?? ''}` : (obj.metadata.name ?? '');

const RELIST_DELAY_MS = 500;

export class Informer {
  private closed = false;
  private handle: { close(): void } | undefined;
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly storage: Storage,
    private readonly store: Store,
    private readonly handler: InformerHandler,
    private readonly logger: Logger,
  ) {}

  /** Resolves once the initial list has been handled. */
  async start(): Promise<void> {
    await this.listAndWatch();
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

  private enqueue(work: () => void | Promise<void>): void {
    this.queue = this.queue.then(work).catch((err: unknown) => {
      this.logger.error('controller handler failed', { prefix: this.store.prefix(undefined), err: String(err) });
    });
  }

  private async listAndWatch(): Promise<void> {
    const prefix = this.store.prefix(undefined);
    const { items, revision } = await this.store.list(undefined);
    const present = new Set<string>();
    for (const obj of items) {
      present.add(informerKey(obj));
      this.enqueue(() => this.handler.upsert(obj));
    }
    if (this.handler.resync) this.enqueue(() => this.handler.resync!(present));
    await this.queue;
    if (this.closed) return;
    this.handle = this.storage.watch(prefix, revision, {
      onEvents: (events) => {
        for (const ev of events) {
          const obj = this.store.decode(ev.kv);
          this.enqueue(() => (ev.type === 'delete' ? this.handler.remove(obj) : this.handler.upsert(obj)));
        }
      },
      onError: (err) => {
        this.logger.warn('watch ended, relisting', { prefix, err: err.message });
        this.relistLater();
      },
    });
  }

  private relistLater(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.listAndWatch().catch((err: unknown) => {
        this.logger.warn('relist failed', { err: String(err) });
        this.relistLater();
      });
    }, RELIST_DELAY_MS);
  }
}
