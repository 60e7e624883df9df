// The server's clock: what each setting shows, and how tickers follow a clock that is frozen,
// offset and moved, on a fake real time so that nothing here waits.
import { describe, expect, it } from 'vitest';
import { AdjustableClock, type ClockSetting, type RealTime, clockMicros } from '../../../apimachinery/clock.js';
import { formatTimestamp, nowTimestamp } from '../../../apimachinery/object.js';

/** Real time that moves only when told, with the timers it was asked for. */
function fakeRealTime(startMicros: number): RealTime & { advance(ms: number): void; pending(): number } {
  let now = startMicros;
  let timers: { at: number; fn: () => void }[] = [];
  return {
    nowMicros: () => now,
    after(ms, fn) {
      const timer = { at: now + ms * 1000, fn };
      timers.push(timer);
      return () => {
        timers = timers.filter((t) => t !== timer);
      };
    },
    advance(ms) {
      now += ms * 1000;
      for (;;) {
        const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)[0];
        if (!due) return;
        timers = timers.filter((t) => t !== due);
        due.fn();
      }
    },
    pending: () => timers.length,
  };
}

const T0 = Date.UTC(2030, 0, 1) * 1000;

describe('clockMicros', () => {
  it.each<[string, ClockSetting, number]>([
    ['real: the real time', { mode: 'Real' }, T0],
    ['frozen: its instant, whatever the real time', { mode: 'Frozen', atMicros: 42 }, 42],
    ['offset ahead', { mode: 'Offset', offsetMicros: 3_600_000_000 }, T0 + 3_600_000_000],
    ['offset behind', { mode: 'Offset', offsetMicros: -1_000_000 }, T0 - 1_000_000],
  ])('%s', (_name, setting, want) => {
    expect(clockMicros(setting, T0)).toBe(want);
  });
});

describe('AdjustableClock', () => {
  it('reads as its setting, in milliseconds and microseconds', () => {
    const real = fakeRealTime(T0 + 1_500);
    const clock = new AdjustableClock(real);
    expect(clock.nowMicros()).toBe(T0 + 1_500);
    expect(clock.now()).toBe(Math.floor((T0 + 1_500) / 1000));
    clock.set({ mode: 'Frozen', atMicros: T0 + 7_000_123 });
    real.advance(60_000);
    expect(clock.nowMicros()).toBe(T0 + 7_000_123);
    expect(nowTimestamp(clock)).toBe('2030-01-01T00:00:07Z');
  });

  it('a ticker follows real time while the clock is real or offset', () => {
    const real = fakeRealTime(T0);
    const clock = new AdjustableClock(real);
    let ticks = 0;
    clock.every(1000, () => ticks++);
    real.advance(999);
    expect(ticks).toBe(0);
    real.advance(1);
    expect(ticks).toBe(1);
    clock.set({ mode: 'Offset', offsetMicros: 10_000_000 });
    // Ten seconds ahead: due at once, then every second again.
    expect(ticks).toBe(2);
    real.advance(1000);
    expect(ticks).toBe(3);
  });

  it('a frozen clock never ticks until it is moved past the due time, and then once', () => {
    const real = fakeRealTime(T0);
    const clock = new AdjustableClock(real);
    let ticks = 0;
    clock.every(1000, () => ticks++);
    clock.set({ mode: 'Frozen', atMicros: T0 });
    expect(real.pending()).toBe(0);
    real.advance(3_600_000);
    expect(ticks).toBe(0);
    clock.set({ mode: 'Frozen', atMicros: T0 + 999_000 });
    expect(ticks).toBe(0);
    // Five intervals at once: one tick, as Go's ticker drops what its receiver missed.
    clock.set({ mode: 'Frozen', atMicros: T0 + 5_000_000 });
    expect(ticks).toBe(1);
    clock.set({ mode: 'Frozen', atMicros: T0 + 5_500_000 });
    expect(ticks).toBe(1);
    clock.set({ mode: 'Frozen', atMicros: T0 + 6_000_000 });
    expect(ticks).toBe(2);
  });

  it('moved back, a ticker fires an interval after the new time, not after the old one', () => {
    const real = fakeRealTime(T0);
    const clock = new AdjustableClock(real);
    let ticks = 0;
    clock.every(1000, () => ticks++);
    clock.set({ mode: 'Frozen', atMicros: T0 + 3_600_000_000 });
    expect(ticks).toBe(1);
    clock.set({ mode: 'Frozen', atMicros: T0 });
    clock.set({ mode: 'Frozen', atMicros: T0 + 999_000 });
    expect(ticks).toBe(1);
    clock.set({ mode: 'Frozen', atMicros: T0 + 1_000_000 });
    expect(ticks).toBe(2);
  });

  it('a stopped ticker neither fires nor keeps a timer', () => {
    const real = fakeRealTime(T0);
    const clock = new AdjustableClock(real);
    let ticks = 0;
    const ticker = clock.every(1000, () => ticks++);
    ticker.stop();
    expect(real.pending()).toBe(0);
    clock.set({ mode: 'Offset', offsetMicros: 5_000_000 });
    real.advance(10_000);
    expect(ticks).toBe(0);
  });

  it('a ticker that stops itself when it fires is not armed again', () => {
    const real = fakeRealTime(T0);
    const clock = new AdjustableClock(real);
    let ticks = 0;
    const ticker = clock.every(1000, () => {
      ticks++;
      ticker.stop();
    });
    clock.set({ mode: 'Offset', offsetMicros: 2_000_000 });
    expect(ticks).toBe(1);
    expect(real.pending()).toBe(0);
  });
});

describe('formatTimestamp', () => {
  it.each([
    [Date.UTC(2024, 4, 1, 10, 5, 0, 999), '2024-05-01T10:05:00Z'],
    [Date.UTC(1999, 11, 31, 23, 59, 59), '1999-12-31T23:59:59Z'],
  ])('%s', (ms, want) => {
    expect(formatTimestamp(ms)).toBe(want);
  });
});
