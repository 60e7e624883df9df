// A deduplicating work queue (kube's workqueue, reduced): a key is queued once however often it is
// added; a key added while it is being worked on runs again afterwards; failures come back after
// a per-key backoff. Keys are handed out in batches so that each tick's work is bounded.

const BASE_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 10_000;

export class WorkQueue {
  private readonly pending = new Set<string>();
  private readonly active = new Set<string>();
  /** Keys added while active: queued again when their work is done. */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly onReady: () => void) {}

  get length(): number {
    return this.pending.size;
  }

  /** Nothing queued, in progress or waiting for a retry. */
  get empty(): boolean {
    return this.pending.size === 0 && this.active.size === 0 && this.timers.size === 0;
  }

  add(key: string): void {
    if (this.closed) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.pending.has(key)) return;
    this.pending.add(key);
    this.onReady();
  }

  /** Up to `max` keys, now marked active until done() is called for each. */
  take(max: number): string[] {
    const out: string[] = [];
    for (const key of this.pending) {
      if (out.length >= max) break;
      this.pending.delete(key);
      this.active.add(key);
      out.push(key);
    }
    return out;
  }

  /** The key's work finished; `retry` brings it back after its backoff. */
  done(key: string, retry: boolean): void {
    this.active.delete(key);
    if (retry) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      this.later(key, Math.min(BASE_BACKOFF_MS * 2 ** n, MAX_BACKOFF_MS));
    } else {
      this.failures.delete(key);
    }
    if (this.dirty.delete(key)) this.add(key);
  }

  private later(key: string, ms: number): void {
    if (this.closed || this.timers.has(key)) return;
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    this.timers.set(key, t);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.pending.clear();
  }
}
