// kube's WithTimeoutForNonLongRunningRequests gives every request the one --request-timeout, so
// their deadlines fall in the order the requests arrived: they are kept in one Map (insertion
// order) under one timer, armed for the earliest. A node timer per request (its Timeout object,
// its list's insert and removal, the listener to clear it) was a few µs of every GET.

export class RequestTimeouts<K> {
  /** Each pending request's deadline (performance.now()), earliest first. */
  private readonly due = new Map<K, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly onTimeout: (key: K) => void,
  ) {}

  /** `key`'s time starts now; `onTimeout(key)` once it has passed, unless `done(key)` came first. */
  start(key: K): void {
    this.due.set(key, performance.now() + this.timeoutMs);
    if (this.timer === undefined) this.arm(this.timeoutMs);
  }

  done(key: K): void {
    this.due.delete(key);
  }

  // Unreferenced: a pending request's connection keeps the process up, never the timer itself.
  private arm(ms: number): void {
    this.timer = setTimeout(() => this.expire(), ms).unref();
  }

  private expire(): void {
    const now = performance.now();
    for (const [key, at] of this.due) {
      // Node's timers run on the loop's millisecond clock, and may fire a fraction early.
      if (at > now) return this.arm(Math.max(1, Math.ceil(at - now)));
      this.due.delete(key);
      this.onTimeout(key);
    }
    this.timer = undefined;
  }
}
