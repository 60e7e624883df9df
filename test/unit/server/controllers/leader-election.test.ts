// The leader election state machine (client-go's tryAcquireOrRenew and release) against a real
// Lease Store on SQLite, with an injected clock: acquire when absent, renew, wait while another
// holds an unexpired Lease, take over after expiry, release on stop, and a lost race (409) that
// is only retried on the next round.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AdmissionChain, type AdmissionPlugin } from '../../../../admission/interface.js';
import { silentLogger } from '../../../../apimachinery/log.js';
import type { KubeObject } from '../../../../apimachinery/object.js';
import type { Storage } from '../../../../storage/interface.js';
import {
  LeaderElector,
  type LeaderElectionConfig,
  resolveLeaderElectionTiming,
} from '../../../../server/controllers/leader-election.js';
import { formatMicroTime, parseMicroTimeMicros } from '../../../../apimachinery/validation/micro-time.js';
import { leaseStrategy } from '../../../../server/registry/builtin/leases.js';
import { Store } from '../../../../server/registry/store.js';
import { resolveServerOptions } from '../../../../server/options.js';
import { StartupError } from '../../../../server/startup/errors.js';
import { createSqliteFixture } from '../../../helpers/sqlite-fixture.js';

interface Spec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

const NS = 'kube-system';
const S = 1_000_000;
const START = 1_700_000_000_123_456;

let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
let storage: Storage;
beforeAll(async () => {
  fixture = await createSqliteFixture();
  storage = await fixture.open();
});
afterAll(async () => {
  await fixture.teardown();
});

let leaseN = 0;
const electors: LeaderElector[] = [];
afterEach(async () => {
  for (const e of electors.splice(0)) await e.stop();
});

/** A fresh Lease name per test, one clock shared by the candidates, and events per candidate. */
function setup(admission?: AdmissionChain) {
  const name = `lease-${++leaseN}`;
  const store = new Store(storage, leaseStrategy, admission);
  const clock = { now: START };
  const events: string[] = [];
  const candidate = (identity: string, extra: LeaderElectionConfig = {}): LeaderElector => {
    const e = new LeaderElector(store, silentLogger, {
      name,
      identity,
      clock: () => clock.now,
      onStartedLeading: () => events.push(`${identity} started`),
      onStoppedLeading: () => events.push(`${identity} stopped`),
      ...extra,
    });
    electors.push(e);
    return e;
  };
  const lease = async (): Promise<KubeObject & { spec: Spec }> =>
    (await store.get(NS, name)) as KubeObject & { spec: Spec };
  return { name, store, clock, events, candidate, lease };
}

describe('MicroTime', () => {
  it('is written in UTC with six fractional digits and read back exactly', () => {
    expect(formatMicroTime(START)).toBe('2023-11-14T22:13:20.123456Z');
    expect(formatMicroTime(START - 123_456)).toBe('2023-11-14T22:13:20.000000Z');
    expect(parseMicroTimeMicros(formatMicroTime(START))).toBe(START);
    expect(parseMicroTimeMicros('2023-11-14T22:13:20Z')).toBeUndefined();
  });
});

describe('timing', () => {
  it("defaults to client-go's 15 s / 10 s / 2 s, scaled for shorter leases", () => {
    expect(resolveLeaderElectionTiming({})).toEqual({
      leaseDurationSeconds: 15,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2000,
    });
    expect(resolveLeaderElectionTiming({ leaseDurationSeconds: 3 })).toEqual({
      leaseDurationSeconds: 3,
      renewDeadlineMs: 2000,
      retryPeriodMs: 400,
    });
  });
  it.each([
    { leaseDurationSeconds: 0 },
    { leaseDurationSeconds: 1.5 },
    { leaseDurationSeconds: 2, renewDeadlineMs: 2000 },
    { retryPeriodMs: 10_000 },
  ])('refuses %j', (t) => {
    expect(() => resolveLeaderElectionTiming(t)).toThrow();
  });
});

describe('the server option', () => {
  it("elects on etcd only: SQLite is one process's store", () => {
    expect(resolveServerOptions({ etcdServers: ['http://127.0.0.1:2379'] }).leaderElection).toEqual({
      leaseDurationSeconds: 15,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2000,
    });
    expect(
      resolveServerOptions({
        etcdServers: ['http://127.0.0.1:2379'],
        leaderElection: { leaseDurationSeconds: 3, identity: 'x' },
      }).leaderElection,
    ).toEqual({ leaseDurationSeconds: 3, renewDeadlineMs: 2000, retryPeriodMs: 400, identity: 'x' });
    expect(
      resolveServerOptions({ storage: 'memory', leaderElection: { leaseDurationSeconds: 3 } }).leaderElection,
    ).toBeUndefined();
    expect(() =>
      resolveServerOptions({ etcdServers: ['http://127.0.0.1:2379'], leaderElection: { leaseDurationSeconds: 0 } }),
    ).toThrow(StartupError);
  });
});

describe('LeaderElector', () => {
  it('acquires an absent Lease: holder, duration, MicroTimes with microseconds, no transition', async () => {
    const { candidate, lease, events } = setup();
    const a = candidate('a');
    await a.tick();
    expect(a.isLeader()).toBe(true);
    expect(events).toEqual(['a started']);
    expect((await lease()).spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2023-11-14T22:13:20.123456Z',
      renewTime: '2023-11-14T22:13:20.123456Z',
      leaseTransitions: 0,
    });
  });

  it('renews: a new renewTime and resourceVersion, the same acquireTime and transitions', async () => {
    const { candidate, lease, clock, events } = setup();
    const a = candidate('a');
    await a.tick();
    const before = await lease();
    clock.now += 2 * S + 7;
    await a.tick();
    const after = await lease();
    expect(after.metadata.resourceVersion).not.toBe(before.metadata.resourceVersion);
    expect(after.spec).toEqual({ ...before.spec, renewTime: formatMicroTime(clock.now) });
    expect(a.isLeader()).toBe(true);
    expect(events).toEqual(['a started']);
  });

  it('does not acquire a Lease another holds until it expires, then takes it over (transitions + 1)', async () => {
    const { candidate, lease, clock, events } = setup();
    const a = candidate('a');
    const b = candidate('b');
    await a.tick();
    // Exactly at renewTime + duration the Lease is still valid.
    clock.now += 15 * S;
    await b.tick();
    expect(b.isLeader()).toBe(false);
    expect((await lease()).spec.holderIdentity).toBe('a');

    clock.now += 1;
    await b.tick();
    expect(b.isLeader()).toBe(true);
    expect((await lease()).spec).toEqual({
      holderIdentity: 'b',
      leaseDurationSeconds: 15,
      acquireTime: formatMicroTime(clock.now),
      renewTime: formatMicroTime(clock.now),
      leaseTransitions: 1,
    });
    // a, whose renewals stalled, has stopped acting on its own clock already, and its next round
    // sees b's Lease and gives up leadership.
    expect(a.isLeader()).toBe(false);
    await a.tick();
    expect(a.isLeader()).toBe(false);
    expect(events).toEqual(['a started', 'b started', 'a stopped']);
  });

  it('stops acting once the renew deadline passes without a renewal; renewing again is a new start', async () => {
    const { candidate, clock, events } = setup();
    const a = candidate('a');
    await a.tick();
    clock.now += 10 * S - 1;
    expect(a.isLeader()).toBe(true);
    clock.now += 1;
    expect(a.isLeader()).toBe(false);
    // Still its Lease (not expired for others): renewed, and the controllers told to catch up.
    await a.tick();
    expect(a.isLeader()).toBe(true);
    expect(events).toEqual(['a started', 'a stopped', 'a started']);
  });

  it('releases on stop (holder cleared), so another acquires at once', async () => {
    const { candidate, lease, clock, events } = setup();
    const a = candidate('a');
    const b = candidate('b');
    await a.tick();
    clock.now += S;
    await a.stop();
    expect(a.isLeader()).toBe(false);
    expect((await lease()).spec).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: formatMicroTime(clock.now),
      renewTime: formatMicroTime(clock.now),
      leaseTransitions: 0,
    });
    clock.now += 1;
    await b.tick();
    expect(b.isLeader()).toBe(true);
    expect((await lease()).spec).toMatchObject({ holderIdentity: 'b', leaseDurationSeconds: 15, leaseTransitions: 1 });
    expect(events).toEqual(['a started', 'a stopped', 'b started']);
  });

  it('does not release a Lease it does not hold', async () => {
    const { candidate, lease } = setup();
    const a = candidate('a');
    const b = candidate('b');
    await a.tick();
    await b.tick();
    await b.stop();
    expect((await lease()).spec.holderIdentity).toBe('a');
  });

  it('a lost race is a 409 on that round only: no crash, no leadership, the next round reads again', async () => {
    // A real admission plugin that, once, lets candidate a renew between b's read and b's write.
    let interfere: (() => Promise<void>) | undefined;
    const plugin: AdmissionPlugin = {
      name: 'interleave',
      handles: (op) => op === 'UPDATE',
      async validate(attrs) {
        const spec = (attrs.object?.['spec'] ?? {}) as Spec;
        if (spec.holderIdentity !== 'b' || !interfere) return;
        const run = interfere;
        interfere = undefined;
        await run();
      },
    };
    const { candidate, lease, clock, events } = setup(new AdmissionChain([plugin]));
    const a = candidate('a');
    const b = candidate('b');
    await a.tick();
    clock.now += 16 * S;
    interfere = () => a.tryAcquireOrRenew().then(() => undefined);
    await expect(b.tryAcquireOrRenew()).rejects.toMatchObject({ code: 409 });

    // The same race inside a round (expired again, a renews first): logged, not thrown.
    interfere = () => a.tryAcquireOrRenew().then(() => undefined);
    clock.now += 16 * S;
    await b.tick();
    expect(interfere).toBeUndefined();
    expect(b.isLeader()).toBe(false);
    expect((await lease()).spec).toMatchObject({ holderIdentity: 'a', leaseTransitions: 0 });
    // The next round sees a's fresh renewal and waits.
    await b.tick();
    expect(b.isLeader()).toBe(false);
    expect(events).toEqual(['a started']);
  });

  it('two candidates racing for an absent or expired Lease: exactly one wins', async () => {
    const { candidate, lease, clock } = setup();
    const a = candidate('a');
    const b = candidate('b');
    await Promise.all([a.tick(), b.tick()]);
    expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1);
    const first = (await lease()).spec.holderIdentity;
    clock.now += 16 * S;
    await Promise.all([a.tick(), b.tick()]);
    expect([a.isLeader(), b.isLeader()].filter(Boolean)).toHaveLength(1);
    const spec = (await lease()).spec;
    expect(spec.holderIdentity).toBe(a.isLeader() ? 'a' : 'b');
    expect(spec.leaseTransitions).toBe(spec.holderIdentity === first ? 0 : 1);
  });
});
