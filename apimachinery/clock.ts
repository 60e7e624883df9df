// The server's one clock: every time it writes or checks (creationTimestamp, deletionTimestamp,
// managedFields, conditions, Event times, token issue and expiry, audit stamps, Lease checks, the
// compaction schedule) is read from a Clock handed down from start-up, never from Date directly.
// Durations the server measures for itself (timeouts, retries, metrics latencies) stay on the
// process's timers: they are about real waiting, not about the API's time.
//
// Normally it is the system's clock. With the testing API (server/testing/) it can be frozen, set
// ahead or behind by an offset, and moved on demand: AdjustableClock.

/** Where the API's times come from. */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
  /** Microseconds since the epoch, for MicroTime (Leases, audit stamps). */
  nowMicros(): number;
  /**
   * Calls `fn` each time `intervalMs` of this clock's time has passed: a clock moved ahead by
   * several intervals calls it once, as Go's ticker drops the ticks its receiver missed. The timer
   * never keeps the process alive.
   */
  every(intervalMs: number, fn: () => void): Ticker;
}

interface Ticker {
  stop(): void;
}

/** The process's real time and timers, which an AdjustableClock reads and schedules on. */
export interface RealTime {
  nowMicros(): number;
  /** Runs `fn` after `ms` of real time; returns how to cancel it. */
  after(ms: number, fn: () => void): () => void;
}

const REAL_TIME: RealTime = {
  // performance's origin and offset: sub-millisecond, and monotonic within the process.
  nowMicros: () => Math.floor((performance.timeOrigin + performance.now()) * 1000),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export const systemClock: Clock = {
  now: () => Date.now(),
  nowMicros: REAL_TIME.nowMicros,
  every(intervalMs, fn) {
    const timer = setInterval(fn, intervalMs);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  },
};

/** How an AdjustableClock tells the time: the real one, stopped at an instant, or the real one shifted. */
export type ClockSetting =
  | { mode: 'Real' }
  | { mode: 'Frozen'; atMicros: number }
  | { mode: 'Offset'; offsetMicros: number };

/** The clock a setting shows at real time `realMicros`. */
export function clockMicros(setting: ClockSetting, realMicros: number): number {
  switch (setting.mode) {
    case 'Real':
      return realMicros;
    case 'Frozen':
      return setting.atMicros;
    case 'Offset':
      return realMicros + setting.offsetMicros;
  }
}

interface Timer {
  readonly intervalMs: number;
  readonly fn: () => void;
  /** This clock's time (ms) at which fn is next due. */
  due: number;
  cancel: (() => void) | undefined;
}

/**
 * A clock the testing API sets: real, frozen, or offset. Its tickers follow it: a frozen clock's
 * never fire until the clock is moved past their due time; moved ahead, the due ones fire at once;
 * moved back, each next fires an interval after the new time.
 */
export class AdjustableClock implements Clock {
  private setting: ClockSetting = { mode: 'Real' };
  private readonly timers = new Set<Timer>();

  constructor(private readonly real: RealTime = REAL_TIME) {}

  get current(): ClockSetting {
    return this.setting;
  }

  now(): number {
    return Math.floor(this.nowMicros() / 1000);
  }

  nowMicros(): number {
    return clockMicros(this.setting, this.real.nowMicros());
  }

  every(intervalMs: number, fn: () => void): Ticker {
    const timer: Timer = { intervalMs, fn, due: this.now() + intervalMs, cancel: undefined };
    this.timers.add(timer);
    this.plan(timer);
    return {
      stop: () => {
        timer.cancel?.();
        this.timers.delete(timer);
      },
    };
  }

  /** Switches to `setting`; tickers now due fire before this returns. */
  set(setting: ClockSetting): void {
    this.setting = setting;
    for (const timer of [...this.timers]) {
      if (this.timers.has(timer)) this.plan(timer);
    }
  }

  /** Fires `timer` if due, then arms a real timer for its next due time (none while frozen). */
  private plan(timer: Timer): void {
    timer.cancel?.();
    timer.cancel = undefined;
    // Moved back before its last tick: the next one is an interval from now, not from then.
    if (timer.due - this.now() > timer.intervalMs) timer.due = this.now() + timer.intervalMs;
    if (this.now() >= timer.due) {
      timer.due = this.now() + timer.intervalMs;
      timer.fn();
      // fn may have stopped it.
      if (!this.timers.has(timer)) return;
    }
    if (this.setting.mode === 'Frozen') return;
    timer.cancel = this.real.after(timer.due - this.now(), () => this.plan(timer));
  }
}
