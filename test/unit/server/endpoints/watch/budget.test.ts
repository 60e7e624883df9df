// Which watchers are ended for falling behind, and in what order: each watcher against its own
// limits, all of them against one budget (the default one included), and what /metrics shows.
import { describe, expect, it } from 'vitest';
import {
  type Backlog,
  DEFAULT_WATCH_BUDGET_BYTES,
  MAX_PENDING_BYTES,
  MAX_PENDING_EVENTS,
  WatchBudget,
  WatchStats,
  overWatcherLimits,
  watchersToEnd,
} from '../../../../../server/endpoints/watch/budget.js';
import { type TrackedWatcher, WatchRegistry } from '../../../../../server/endpoints/watch/registry.js';
import { createLogger } from '../../../../../apimachinery/log.js';
import { Metrics } from '../../../../../server/metrics.js';

const MiB = 1024 * 1024;

describe('overWatcherLimits', () => {
  it.each<[Backlog, string | undefined]>([
    [{ events: 0, bytes: 0 }, undefined],
    [{ events: MAX_PENDING_EVENTS, bytes: MAX_PENDING_BYTES }, undefined],
    [{ events: MAX_PENDING_EVENTS + 1, bytes: 0 }, 'events'],
    [{ events: 1, bytes: MAX_PENDING_BYTES + 1 }, 'bytes'],
    [{ events: MAX_PENDING_EVENTS + 1, bytes: MAX_PENDING_BYTES + 1 }, 'events'],
  ])('%j -> %s', (backlog, want) => expect(overWatcherLimits(backlog)).toBe(want));

  it('uses kube cacher sizes: 100 events (maxWatchChanSizeWithoutIndex), 16 MiB, 256 MiB in all', () => {
    expect([MAX_PENDING_EVENTS, MAX_PENDING_BYTES, DEFAULT_WATCH_BUDGET_BYTES]).toEqual([100, 16 * MiB, 256 * MiB]);
  });
});

describe('watchersToEnd', () => {
  it.each<{ name: string; pending: [string, number][]; limit: number; want: string[] }>([
    {
      name: 'nothing within the budget',
      pending: [
        ['a', 10],
        ['b', 20],
      ],
      limit: 30,
      want: [],
    },
    {
      name: 'the furthest behind first, only as many as needed',
      pending: [
        ['a', 10],
        ['b', 30],
        ['c', 20],
      ],
      limit: 40,
      want: ['b'],
    },
    {
      name: 'several when one is not enough',
      pending: [
        ['a', 10],
        ['b', 30],
        ['c', 20],
      ],
      limit: 15,
      want: ['b', 'c'],
    },
    {
      name: 'all when even the least behind is over',
      pending: [
        ['a', 10],
        ['b', 30],
        ['c', 20],
      ],
      limit: 5,
      want: ['b', 'c', 'a'],
    },
    {
      name: 'the earlier listed among equals',
      pending: [
        ['a', 20],
        ['b', 20],
        ['c', 20],
      ],
      limit: 45,
      want: ['a'],
    },
    {
      name: 'a watcher with nothing pending is never needed',
      pending: [
        ['a', 0],
        ['b', 50],
      ],
      limit: 49,
      want: ['b'],
    },
  ])('$name', ({ pending, limit, want }) => {
    const total = pending.reduce((sum, [, bytes]) => sum + bytes, 0);
    expect(watchersToEnd(pending, total, limit)).toEqual(want);
  });
});

describe('WatchBudget', () => {
  it('keeps the sum as watchers grow, shrink and leave, and names whom to end', () => {
    const budget = new WatchBudget<string>(100);
    expect(budget.update('a', 40)).toEqual([]);
    expect(budget.update('b', 50)).toEqual([]);
    expect(budget.update('a', 10)).toEqual([]);
    expect(budget.total).toBe(60);
    expect(budget.update('c', 70)).toEqual(['c']);
    budget.remove('c');
    expect(budget.update('c', 45)).toEqual(['b']);
    budget.remove('b');
    budget.remove('b');
    expect(budget.total).toBe(55);
  });

  it('defaults to DEFAULT_WATCH_BUDGET_BYTES', () => {
    expect(new WatchBudget().limit).toBe(DEFAULT_WATCH_BUDGET_BYTES);
  });
});

/** A watcher whose backlog the test sets; ending it records it, as serveWatch would release it. */
function fakeWatcher(name: string, ended: string[], resource = 'widgets'): TrackedWatcher & { set(b: Backlog): void } {
  let backlog: Backlog = { events: 0, bytes: 0 };
  return {
    group: 'example.com',
    resource,
    backlog: () => backlog,
    terminate: () => void ended.push(name),
    set(b) {
      backlog = b;
    },
  };
}

/** Sixteen watchers 16 MiB behind each: the default budget exactly. */
const atDefaultBudget: [string, Backlog][] = Array.from({ length: 16 }, (_, i) => [
  `w${i}`,
  { events: 100, bytes: MAX_PENDING_BYTES },
]);

describe('WatchRegistry weighing watchers', () => {
  it.each<{ name: string; budgetBytes?: number; steps: [string, Backlog][]; ended: string[]; pending: number }>([
    {
      name: 'up to the default budget nobody is ended',
      steps: atDefaultBudget,
      ended: [],
      pending: DEFAULT_WATCH_BUDGET_BYTES,
    },
    {
      name: 'one byte over the default budget ends one of the furthest behind, not the one that tipped it',
      steps: [...atDefaultBudget, ['x', { events: 1, bytes: 1 }]],
      ended: ['w0'],
      pending: DEFAULT_WATCH_BUDGET_BYTES - MAX_PENDING_BYTES + 1,
    },
    {
      name: 'the furthest behind goes, not the one that tipped it',
      budgetBytes: 1000,
      steps: [
        ['a', { events: 5, bytes: 450 }],
        ['b', { events: 5, bytes: 400 }],
        ['c', { events: 1, bytes: 200 }],
      ],
      ended: ['a'],
      pending: 600,
    },
    {
      name: 'the one that tipped it when it is the furthest behind',
      budgetBytes: 1000,
      steps: [
        ['a', { events: 5, bytes: 400 }],
        ['b', { events: 5, bytes: 400 }],
        ['c', { events: 6, bytes: 401 }],
      ],
      ended: ['c'],
      pending: 800,
    },
    {
      name: 'a watcher growing past the budget ends the furthest behind, itself here',
      budgetBytes: 1000,
      steps: [
        ['a', { events: 1, bytes: 300 }],
        ['b', { events: 1, bytes: 250 }],
        ['c', { events: 1, bytes: 200 }],
        ['c', { events: 9, bytes: 700 }],
      ],
      ended: ['c'],
      pending: 550,
    },
    {
      name: 'a watcher over its own event limit, however little it weighs',
      steps: [
        ['a', { events: MAX_PENDING_EVENTS + 1, bytes: 1024 }],
        ['b', { events: 3, bytes: 1024 }],
      ],
      ended: ['a'],
      pending: 1024,
    },
    {
      name: 'a watcher over its own byte limit, within the budget',
      steps: [
        ['a', { events: 2, bytes: MAX_PENDING_BYTES + 1 }],
        ['b', { events: 3, bytes: 1024 }],
      ],
      ended: ['a'],
      pending: 1024,
    },
    {
      name: 'a watcher that caught up gives its share back',
      budgetBytes: 1000,
      steps: [
        ['a', { events: 90, bytes: 900 }],
        ['a', { events: 0, bytes: 0 }],
        ['b', { events: 90, bytes: 900 }],
      ],
      ended: [],
      pending: 900,
    },
  ])('$name', ({ budgetBytes, steps, ended, pending }) => {
    const stats = new WatchStats();
    const registry = new WatchRegistry(budgetBytes === undefined ? { stats } : { stats, budgetBytes });
    const gone: string[] = [];
    const watchers = new Map<string, ReturnType<typeof fakeWatcher>>();
    for (const [name, backlog] of steps) {
      const w = watchers.get(name) ?? fakeWatcher(name, gone);
      watchers.set(name, w);
      w.set(backlog);
      registry.charge(w);
    }
    expect(gone).toEqual(ended);
    expect(registry.pendingBytes).toBe(pending);
    expect(stats.pendingBytes).toBe(pending);
    expect(stats.terminatedWatchers()).toEqual(
      ended.length ? [{ group: 'example.com', resource: 'widgets', count: ended.length }] : [],
    );
  });

  it('honours a budget given to it, releases watchers that end, and logs each one ended once with its backlog', () => {
    const stats = new WatchStats();
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      level: 'info',
      write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    const registry = new WatchRegistry({ budgetBytes: 1000, logger, stats });
    const gone: string[] = [];
    const a = fakeWatcher('a', gone);
    const b = fakeWatcher('b', gone, 'gadgets');
    a.set({ events: 4, bytes: 600 });
    registry.charge(a);
    b.set({ events: 2, bytes: 300 });
    registry.charge(b);
    registry.release(b);
    expect(stats.pendingBytes).toBe(600);
    b.set({ events: 5, bytes: 500 });
    registry.charge(b);
    expect(gone).toEqual(['a']);
    expect(stats.pendingBytes).toBe(500);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'Forcing watcher close due to unresponsiveness',
        group: 'example.com',
        resource: 'widgets',
        reason: 'budget',
        pendingEvents: 4,
        pendingBytes: 600,
      }),
    ]);
    registry.release(a);
    registry.release(b);
    expect(stats.pendingBytes).toBe(0);
  });
});

describe('Metrics with watch figures', () => {
  it('shows kube terminated_watchers_total by group and resource, and the bytes pending', async () => {
    const stats = new WatchStats();
    const metrics = new Metrics({ watches: stats });
    const text = (): Promise<string> => metrics.render();
    expect(await text()).toContain('# TYPE apiserver_terminated_watchers_total counter\n');
    expect(await text()).toContain('\napiserver_watch_pending_bytes 0\n');
    stats.terminatedWatcher('', 'configmaps');
    stats.terminatedWatcher('example.com', 'widgets');
    stats.terminatedWatcher('example.com', 'widgets');
    stats.pendingBytes = 1234;
    expect(await text()).toContain(
      'apiserver_terminated_watchers_total{group="",resource="configmaps"} 1\napiserver_terminated_watchers_total{group="example.com",resource="widgets"} 2\n',
    );
    expect(await text()).toContain('# TYPE apiserver_watch_pending_bytes gauge\napiserver_watch_pending_bytes 1234\n');
  });
});
