// One store observed for the garbage collector (kube's monitors): its objects listed, then its
// changes watched through the store's watch cache; a watch that ends is replaced by a fresh list,
// and whatever the list no longer holds is reported gone, so nothing is missed across a gap.
import type { Logger } from '../../../../apimachinery/log.js';
import type { KubeObject } from '../../../../apimachinery/object.js';
import type { Store } from '../../store.js';

export interface MonitorHandler {
  upsert(obj: KubeObject): void;
  /** The object is gone (its uid and last state). */
  remove(obj: KubeObject): void;
  /** After a (re)list: every uid of this store not in `present` is gone. */
  resync(present: Set<string>): void;
}

const RELIST_DELAY_MS = 500;

export class Monitor {
  private closed = false;
  private handle: { close(): void } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly store: Store,
    private readonly handler: MonitorHandler,
    private readonly logger: Logger,
  ) {}

  /**
   * Resolves once the first list has been fed to the handler, or has failed: then it is retried
   * in the background, so that a store that cannot be listed now delays its own kind only.
   */
  async start(): Promise<void> {
    try {
      await this.listAndWatch();
    } catch (err) {
      this.logger.warn('garbage collector list failed, retrying', { resource: this.store.kind.resource, err: String(err) });
      this.relistLater();
    }
  }

  close(): void {
    this.closed = true;
    this.handle?.close();
    if (this.timer) clearTimeout(this.timer);
  }

  private async listAndWatch(): Promise<void> {
    const { items, revision } = await this.store.list(undefined);
    if (this.closed) return;
    const present = new Set<string>();
    for (const obj of items) {
      present.add(obj.metadata.uid ?? '');
      this.handler.upsert(obj);
    }
    this.handler.resync(present);
    this.handle = this.store.watch(undefined, revision, {
      onEvents: (events) => {
        for (const ev of events) {
          if (ev.type === 'DELETED') this.handler.remove(ev.object);
          else this.handler.upsert(ev.object);
        }
      },
      onError: (err) => {
        if (this.closed) return;
        this.logger.warn('garbage collector watch ended, relisting', { resource: this.store.kind.resource, err: err.message });
        this.relistLater();
      },
    });
  }

  private relistLater(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.listAndWatch().catch((err: unknown) => {
        this.logger.warn('garbage collector relist failed', { resource: this.store.kind.resource, err: String(err) });
        this.relistLater();
      });
    }, RELIST_DELAY_MS);
  }
}
