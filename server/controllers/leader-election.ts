// Leader election over a coordination.k8s.io/v1 Lease, as client-go's leaderelection package runs
// it for kube-controller-manager: several API servers share one etcd, and only the one holding
// the Lease runs the controllers that act on the cluster (the garbage collector, namespace
// deletion). The Lease is read and written through its Store directly (no HTTP, no admission
// bypass): every write is an update carrying the resourceVersion read, so two candidates racing
// for an expired Lease cannot both win.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { ApiError, ignoreNotFound } from '../../apimachinery/errors.js';
import type { Logger } from '../../apimachinery/log.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { Store } from '../registry/store.js';
import { systemClock } from '../../apimachinery/clock.js';
import { type LeaseSpec, specOf } from '../registry/builtin/leases.js';
import { type MicroClock, formatMicroTime, parseMicroTimeMicros } from '../../apimachinery/validation/micro-time.js';

export interface LeaderElectionConfig {
  /** Default `kube-system`, where kube-controller-manager keeps its Lease. */
  namespace?: string;
  /** Default `mini-apiserver-controllers`. */
  name?: string;
  /** Unique per process (default hostname_uuid, as kube-controller-manager's). */
  identity?: string;
  /** How long a Lease stays valid after its renewTime (default 15, client-go's). */
  leaseDurationSeconds?: number;
  /** How long the leader keeps acting without a successful renewal (default 2/3 of the duration: 10 s). */
  renewDeadlineMs?: number;
  /** How often to try to acquire or renew (default 2/15 of the duration: 2 s). */
  retryPeriodMs?: number;
  /** The server's clock (Lease times and expiry), in microseconds; default the system's. */
  clock?: MicroClock;
  /** Called on each change of leadership (errors are logged, not thrown). */
  onStartedLeading?: () => void;
  onStoppedLeading?: () => void;
}

export const DEFAULT_LEASE_NAMESPACE = 'kube-system';
export const DEFAULT_LEASE_NAME = 'mini-apiserver-controllers';
const DEFAULT_LEASE_DURATION_S = 15;
/** A release must not hold up shutdown when storage is away: the Lease then simply expires. */
const RELEASE_TIMEOUT_MS = 2000;

export type LeaderElectionTiming = Required<
  Pick<LeaderElectionConfig, 'leaseDurationSeconds' | 'renewDeadlineMs' | 'retryPeriodMs'>
>;

/** The timing with client-go's defaults scaled to the duration; throws on an impossible one. */
export function resolveLeaderElectionTiming(
  config: Pick<LeaderElectionConfig, 'leaseDurationSeconds' | 'renewDeadlineMs' | 'retryPeriodMs'>,
): LeaderElectionTiming {
  const leaseDurationSeconds = config.leaseDurationSeconds ?? DEFAULT_LEASE_DURATION_S;
  // An int32 in the Lease's spec.
  if (!Number.isInteger(leaseDurationSeconds) || leaseDurationSeconds < 1)
    throw new Error(`leaseDurationSeconds must be a positive integer, not ${leaseDurationSeconds}`);
  const renewDeadlineMs = config.renewDeadlineMs ?? (leaseDurationSeconds * 1000 * 2) / 3;
  const retryPeriodMs = config.retryPeriodMs ?? (leaseDurationSeconds * 1000 * 2) / 15;
  // client-go's own checks: renewing must be possible before the deadline, and the deadline
  // must pass before others may take the Lease, or two leaders would overlap.
  if (!(retryPeriodMs > 0 && retryPeriodMs < renewDeadlineMs && renewDeadlineMs < leaseDurationSeconds * 1000)) {
    throw new Error('leader election needs 0 < retryPeriodMs < renewDeadlineMs < leaseDurationSeconds');
  }
  return { leaseDurationSeconds, renewDeadlineMs, retryPeriodMs };
}

export class LeaderElector {
  readonly identity: string;
  readonly namespace: string;
  readonly name: string;
  private readonly durationS: number;
  private readonly renewDeadlineUs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: MicroClock;
  private leading = false;
  /** When we last wrote the Lease as its holder (our clock). */
  private lastRenewUs = 0;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly leases: Store,
    private readonly logger: Logger,
    private readonly config: LeaderElectionConfig = {},
  ) {
    this.identity = config.identity ?? `${hostname()}_${randomUUID()}`;
    this.namespace = config.namespace ?? DEFAULT_LEASE_NAMESPACE;
    this.name = config.name ?? DEFAULT_LEASE_NAME;
    const timing = resolveLeaderElectionTiming(config);
    this.durationS = timing.leaseDurationSeconds;
    this.retryPeriodMs = timing.retryPeriodMs;
    this.renewDeadlineUs = timing.renewDeadlineMs * 1000;
    this.clock = config.clock ?? (() => systemClock.nowMicros());
  }

  /**
   * Whether this process may act now: it holds the Lease and renewed it within the renew
   * deadline. Checked against the clock, not only the last tick, so a stalled event loop that
   * missed its renewals stops acting before another candidate can take over.
   */
  isLeader(): boolean {
    return this.leading && this.clock() - this.lastRenewUs < this.renewDeadlineUs;
  }

  /** One attempt now (awaited, so a lone server leads as soon as it starts), then one per retry period. */
  async start(): Promise<void> {
    await this.tick();
    this.scheduleNext();
  }

  private scheduleNext(): void {
    if (this.stopped) return;
    // client-go's wait.JitterUntil with factor 1.2: replicas do not tick in lockstep.
    const delay = this.retryPeriodMs * (1 + Math.random() * 0.2);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tick().finally(() => this.scheduleNext());
    }, delay);
  }

  /** One acquire-or-renew round and the leadership change it implies; never throws. */
  async tick(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    this.inFlight = this.round().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    // A leader whose renewals lapsed (a stalled loop, storage away) has stopped acting already:
    // say so, so that renewing again counts as a new start and its callback catches up.
    if (this.leading && !this.isLeader()) this.setLeading(false);
    let held: boolean;
    try {
      held = await this.tryAcquireOrRenew();
    } catch (err) {
      // A conflict (another candidate wrote first) or storage away: the next round re-reads.
      // Leadership survives until the renew deadline, as client-go's renew loop allows.
      const conflict = err instanceof ApiError && err.code === 409;
      this.logger[conflict ? 'debug' : 'warn']('leader election: could not acquire or renew the lease', {
        lease: `${this.namespace}/${this.name}`,
        err: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    if (this.stopped) return;
    this.setLeading(held);
  }

  /**
   * client-go's tryAcquireOrRenew: true when we hold the Lease after this call. A Lease held by
   * another and not yet expired answers false; a lost race throws the store's 409.
   */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock();
    const nowTime = formatMicroTime(now);
    const current = await this.leases.get(this.namespace, this.name).catch(ignoreNotFound);
    if (!current) {
      const lease: KubeObject = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.name, namespace: this.namespace },
        spec: {
          holderIdentity: this.identity,
          leaseDurationSeconds: this.durationS,
          acquireTime: nowTime,
          renewTime: nowTime,
          leaseTransitions: 0,
        },
      };
      try {
        await this.leases.create(this.namespace, lease, { dryRun: false });
      } catch (err) {
        // Another candidate created it first: it leads; we look again next round.
        if (err instanceof ApiError && err.code === 409) return false;
        throw err;
      }
      this.lastRenewUs = now;
      return true;
    }
    const spec = specOf(current);
    const holder = spec.holderIdentity ?? '';
    if (holder !== this.identity && holder !== '' && !this.expired(spec, now)) return false;
    const ours = holder === this.identity;
    const next: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.durationS,
      // A takeover (from another holder, or from a released Lease) is a transition.
      acquireTime: ours && spec.acquireTime ? spec.acquireTime : nowTime,
      renewTime: nowTime,
      leaseTransitions: ours ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
    };
    await this.writeSpec(current, next);
    this.lastRenewUs = now;
    return true;
  }

  /**
   * Expired when renewTime + leaseDurationSeconds has passed on our clock. (client-go measures
   * from when it last saw the record change, to be immune to clock skew between hosts; replicas
   * of this server compare wall clocks, which NTP keeps far closer than the 15 s duration.)
   */
  private expired(spec: LeaseSpec, now: number): boolean {
    const renewed = parseMicroTimeMicros(spec.renewTime);
    if (renewed === undefined) return true;
    return renewed + (spec.leaseDurationSeconds ?? this.durationS) * 1e6 < now;
  }

  /** An update of the Lease as read: the resourceVersion makes a concurrent write a 409. */
  private async writeSpec(read: KubeObject, spec: LeaseSpec): Promise<void> {
    const rv = read.metadata.resourceVersion;
    await this.leases.update(
      this.namespace,
      this.name,
      (cur) => ({ ...cur, metadata: { ...cur.metadata, resourceVersion: rv }, spec }),
      { dryRun: false },
    );
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.logger.info(leading ? 'leader election: became the leader' : 'leader election: stopped leading', {
      lease: `${this.namespace}/${this.name}`,
      identity: this.identity,
    });
    const callback = leading ? this.config.onStartedLeading : this.config.onStoppedLeading;
    try {
      callback?.();
    } catch (err) {
      this.logger.error('leader election callback failed', { err: err instanceof Error ? err.message : String(err) });
    }
  }

  /**
   * Stops campaigning; a leader releases the Lease (client-go's ReleaseOnCancel: holder cleared,
   * duration 1 s) so that a successor takes over at its next round instead of after expiry.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inFlight;
    this.setLeading(false);
    // Released whenever the stored holder is us, even if a round that acquired it raced this stop.
    let timeout: NodeJS.Timeout | undefined;
    const release = this.release().catch((err: unknown) => {
      this.logger.warn('leader election: could not release the lease; it will expire', {
        err: err instanceof Error ? err.message : String(err),
      });
    });
    await Promise.race([release, new Promise<void>((r) => (timeout = setTimeout(r, RELEASE_TIMEOUT_MS)))]);
    clearTimeout(timeout);
  }

  private async release(): Promise<void> {
    const current = await this.leases.get(this.namespace, this.name).catch(ignoreNotFound);
    if (!current) return;
    const spec = specOf(current);
    // Someone else holds it now (we had lost it without noticing): theirs to keep.
    if (spec.holderIdentity !== this.identity) return;
    const nowTime = formatMicroTime(this.clock());
    await this.writeSpec(current, {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: nowTime,
      renewTime: nowTime,
      leaseTransitions: spec.leaseTransitions ?? 0,
    });
  }
}
