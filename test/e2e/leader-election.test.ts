// Leader election by real clients against our server: two electors compete, one leads, the leader
// stops renewing and the other takes over once the lease has expired.
//
// (a) Debian's python3-kubernetes (ConfigMapLock) run by /usr/bin/python3 against the built binary.
//     `make test` installs it (scripts/ensure-python-kubernetes.sh); when it is missing the test
//     FAILS saying so, never skips.
// (b) A coordination.k8s.io/v1 Lease elector written here as client-go's leaderelection does it
//     (tryAcquireOrRenew), on the built binary over SQLite and an in-process server on a real etcd.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ServerHandle, startServer } from '../../server/index.js';
import { apiClient } from '../helpers/api-client.js';
import { type EtcdProcess, startEtcd } from '../helpers/etcd.js';
import type { LeaseSpec } from '../../server/registry/builtin/leases.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// (a) python3-kubernetes
// ---------------------------------------------------------------------------------------------

/** Debian's interpreter: `python3` on PATH may be a pyenv one that cannot see dist-packages. */
const PYTHON = '/usr/bin/python3';
// The shortest whole seconds its electionconfig accepts: retry >= 1, renew > 1.2 x retry, lease > renew.
const PY_LEASE_S = 3;
const PY_RENEW_DEADLINE_S = 2;
const PY_RETRY_S = 1;

/** One candidate: prints `candidate`, `started leading`, `stopped leading` lines with its identity. */
const ELECTOR_PY = `
import sys
from kubernetes import config
from kubernetes.leaderelection import leaderelection, electionconfig
from kubernetes.leaderelection.resourcelock.configmaplock import ConfigMapLock

kubeconfig, name, namespace, identity = sys.argv[1:5]
lease, renew, retry = (int(v) for v in sys.argv[5:8])
config.load_kube_config(config_file=kubeconfig)

def started():
    print("started leading " + identity, flush=True)

def stopped():
    print("stopped leading " + identity, flush=True)

print("candidate " + identity, flush=True)
lock = ConfigMapLock(name, namespace, identity)
cfg = electionconfig.Config(lock=lock, lease_duration=lease, renew_deadline=renew, retry_period=retry,
                            onstarted_leading=started, onstopped_leading=stopped)
leaderelection.LeaderElection(cfg).run()
`;

/** Why the Python client cannot run here, or undefined when it can. */
function pythonClientProblem(): string | undefined {
  const r = spawnSync(
    PYTHON,
    ['-c', 'import kubernetes.leaderelection.leaderelection, kubernetes.leaderelection.resourcelock.configmaplock'],
    { encoding: 'utf8' },
  );
  if (r.error)
    return `${PYTHON} cannot run (${r.error.message}): install Debian's python3 and python3-kubernetes (make test does so as root via scripts/ensure-python-kubernetes.sh)`;
  if (r.status !== 0) {
    return `${PYTHON} cannot import kubernetes.leaderelection (${r.stderr.trim().split('\n').pop() ?? ''}): install python3-kubernetes (make test does so as root via scripts/ensure-python-kubernetes.sh; or apt-get install python3-kubernetes)`;
  }
  return undefined;
}

interface PyElector {
  identity: string;
  child: ChildProcess;
  /** Lines printed so far, each with the time it arrived. */
  lines: { at: number; text: string }[];
  stderr(): string;
  exited: Promise<void>;
}

function startPyElector(script: string, kubeconfig: string, lockName: string, identity: string): PyElector {
  const args = [
    script,
    kubeconfig,
    lockName,
    'default',
    identity,
    String(PY_LEASE_S),
    String(PY_RENEW_DEADLINE_S),
    String(PY_RETRY_S),
  ];
  const child = spawn(PYTHON, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: PyElector['lines'] = [];
  let err = '';
  let partial = '';
  child.stdout!.on('data', (c: Buffer) => {
    const parts = (partial + c.toString()).split('\n');
    partial = parts.pop()!;
    for (const text of parts) lines.push({ at: Date.now(), text });
  });
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return { identity, child, lines, stderr: () => err, exited };
}

const leads = (e: PyElector): number | undefined => e.lines.find((l) => l.text === `started leading ${e.identity}`)?.at;

async function waitUntil<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined,
  diagnostics: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${diagnostics()}`);
    await sleep(50);
  }
}

describe('python3-kubernetes leader election (ConfigMapLock) against the built binary', () => {
  let server: ServerProcess | undefined;
  let dir: string | undefined;
  const electors: PyElector[] = [];

  afterAll(async () => {
    for (const e of electors) {
      e.child.kill('SIGKILL');
      await e.exited;
    }
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('one of two Python electors leads; after SIGKILL of the leader the other leads within the lease duration', {
    timeout: 60_000,
  }, async () => {
    const problem = pythonClientProblem();
    if (problem) expect.fail(problem);

    server = await startServerProcess();
    // The Python client trusts the server through the kubeconfig's embedded CA.
    const kubeconfig = parseYaml(readFileSync(server.kubeconfigPath, 'utf8')) as {
      clusters: { cluster: Record<string, string> }[];
    };
    expect(kubeconfig.clusters[0]!.cluster['certificate-authority-data']).toBeTruthy();

    dir = mkdtempSync(join(tmpdir(), 'leader-election-py-'));
    const script = join(dir, 'elector.py');
    writeFileSync(script, ELECTOR_PY);
    const lockName = `py-lock-${randomUUID().slice(0, 8)}`;
    const diag = (): string =>
      electors
        .map(
          (e) =>
            `--- ${e.identity} stdout:\n${e.lines.map((l) => l.text).join('\n')}\n--- stderr (tail):\n${e.stderr().slice(-3000)}`,
        )
        .join('\n');

    electors.push(startPyElector(script, server.kubeconfigPath, lockName, 'py-a'));
    electors.push(startPyElector(script, server.kubeconfigPath, lockName, 'py-b'));
    const [a, b] = electors as [PyElector, PyElector];

    const leader = await waitUntil(
      'a Python elector to lead',
      30_000,
      () => (leads(a) !== undefined ? a : leads(b) !== undefined ? b : undefined),
      diag,
    );
    const follower = leader === a ? b : a;
    // Both are up and competing: the follower has printed its start line, and stays a follower while
    // the leader renews (well past one lease duration).
    await waitUntil(
      'the follower to start',
      15_000,
      () => follower.lines.find((l) => l.text.startsWith('candidate')),
      diag,
    );
    await sleep((PY_LEASE_S + 2) * 1000);
    expect(leads(follower), diag()).toBeUndefined();

    const cm = await server.request(`/api/v1/namespaces/default/configmaps/${lockName}`);
    expect(cm.status).toBe(200);
    const record = (o: string): { holderIdentity: string } =>
      JSON.parse(
        (JSON.parse(o) as { metadata: { annotations: Record<string, string> } }).metadata.annotations[
          'control-plane.alpha.kubernetes.io/leader'
        ]!,
      ) as { holderIdentity: string };
    expect(record(cm.body).holderIdentity).toBe(leader.identity);

    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    await leader.exited;

    // The follower counts the lease from when it last saw the record change (up to one retry after
    // the last renewal) and notices expiry at its next retry: lease + 2 retries, + 1 s for requests.
    const bound = (PY_LEASE_S + 2 * PY_RETRY_S + 1) * 1000;
    const tookOver = await waitUntil('the follower to take over', bound + 10_000, () => leads(follower), diag);
    const after = tookOver - killedAt;
    expect(after, `took over ${after} ms after the kill\n${diag()}`).toBeLessThanOrEqual(bound);
    // And not before the lease could have expired: it waited for it, it did not grab a held lock.
    expect(after, `took over ${after} ms after the kill\n${diag()}`).toBeGreaterThanOrEqual(
      (PY_LEASE_S - PY_RETRY_S - 0.5) * 1000,
    );

    const cm2 = await server.request(`/api/v1/namespaces/default/configmaps/${lockName}`);
    expect(record(cm2.body).holderIdentity).toBe(follower.identity);
  });
});

// ---------------------------------------------------------------------------------------------
// (b) a client-go style Lease elector
// ---------------------------------------------------------------------------------------------

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; json: unknown }>;

interface Lease {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string };
  spec: LeaseSpec;
}

/** metav1.MicroTime as Go writes it: RFC 3339 in UTC with exactly six fractional digits. */
function microTimeNow(): string {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  const seconds = new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19);
  return `${seconds}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
}

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';

/**
 * client-go's LeaderElector with a LeaseLock, reduced to what the protocol needs: tryAcquireOrRenew
 * (GET; CREATE when absent; else UPDATE with the observed resourceVersion, unless someone else holds
 * an unexpired lease), a follower's retry loop and a leader's renew loop bounded by renewDeadline.
 * Expiry is judged as client-go judges it: by the local time the record was last seen to change,
 * not by the renewTime written by another clock.
 */
class LeaseElector {
  private observed: { raw: string; spec: LeaseSpec; at: number } | undefined;
  private lease: Lease | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  leading = false;
  /** Local times this elector became and stopped being leader. */
  readonly events: { at: number; what: 'started' | 'stopped' }[] = [];
  /** Status of every write this elector sent. */
  readonly writes: number[] = [];
  /** The Status reason of the last failed write (AlreadyExists, Conflict). */
  lastFailure: string | undefined;

  constructor(
    private readonly call: Call,
    readonly identity: string,
    private readonly name: string,
    private readonly leaseDurationS: number,
    private readonly renewDeadlineMs: number,
    private readonly retryMs: number,
  ) {}

  private isLeader(): boolean {
    return this.observed?.spec.holderIdentity === this.identity;
  }

  private leaseValid(now: number): boolean {
    return this.observed !== undefined && this.observed.at + this.leaseDurationS * 1000 > now;
  }

  /** GET the lease and note when its record changed: the first half of tryAcquireOrRenew. */
  async observe(): Promise<'found' | 'absent' | 'error'> {
    const r = await this.call('GET', `${LEASES}/${this.name}`);
    if (r.status === 404) {
      this.lease = undefined;
      return 'absent';
    }
    if (r.status !== 200) return 'error';
    const lease = r.json as Lease;
    this.lease = lease;
    const raw = JSON.stringify(lease.spec);
    if (this.observed?.raw !== raw) this.observed = { raw, spec: lease.spec, at: Date.now() };
    return 'found';
  }

  /** The second half: CREATE or UPDATE (resourceVersion precondition) when allowed; the status, or undefined when it must wait. */
  async write(): Promise<number | undefined> {
    const now = microTimeNow();
    const record: LeaseSpec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseDurationS,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    if (this.lease === undefined) {
      const r = await this.call('POST', LEASES, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.name },
        spec: record,
      });
      this.record(r);
      if (r.status === 201) this.adopt(r.json as Lease);
      return r.status;
    }
    const old = this.observed!.spec;
    if (old.holderIdentity && this.leaseValid(Date.now()) && !this.isLeader()) return undefined;
    if (this.isLeader()) {
      record.acquireTime = old.acquireTime;
      record.leaseTransitions = old.leaseTransitions ?? 0;
    } else {
      record.leaseTransitions = (old.leaseTransitions ?? 0) + 1;
    }
    const body: Lease = { ...this.lease, spec: record };
    const r = await this.call('PUT', `${LEASES}/${this.name}`, body);
    this.record(r);
    if (r.status === 200) this.adopt(r.json as Lease);
    return r.status;
  }

  private record(r: { status: number; json: unknown }): void {
    this.writes.push(r.status);
    if (r.status >= 300) this.lastFailure = (r.json as { reason?: string } | undefined)?.reason;
  }

  private adopt(lease: Lease): void {
    this.lease = lease;
    this.observed = { raw: JSON.stringify(lease.spec), spec: lease.spec, at: Date.now() };
  }

  async tryAcquireOrRenew(): Promise<boolean> {
    const seen = await this.observe();
    if (seen === 'error') return false;
    const status = await this.write();
    return status === 200 || status === 201;
  }

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  /** Stops renewing, as a crashed leader does: no release of the lease. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      // acquire: retry until this elector holds the lease.
      if (!(await this.tryAcquireOrRenew())) {
        await sleep(this.retryMs);
        continue;
      }
      this.leading = true;
      this.events.push({ at: Date.now(), what: 'started' });
      // renew: every retry period; give up when no renewal succeeded within renewDeadline.
      let lastRenew = Date.now();
      while (this.running) {
        await sleep(this.retryMs);
        if (!this.running) break;
        if (await this.tryAcquireOrRenew()) lastRenew = Date.now();
        else if (Date.now() - lastRenew > this.renewDeadlineMs) break;
      }
      this.leading = false;
      this.events.push({ at: Date.now(), what: 'stopped' });
    }
  }
}

interface Backend {
  name: string;
  start(): Promise<{ call: Call; stop(): Promise<void> }>;
}

let etcd: EtcdProcess | undefined;

const BACKENDS: Backend[] = [
  {
    name: 'the built binary on SQLite',
    start: async () => {
      const server = await startServerProcess();
      const call: Call = async (method, path, body) => {
        const r = await server.request(path, {
          method,
          ...(body === undefined
            ? {}
            : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        });
        return { status: r.status, json: r.body ? (JSON.parse(r.body) as unknown) : undefined };
      };
      return { call, stop: async () => void (await server.stop()) };
    },
  },
  {
    name: 'an in-process server on etcd',
    start: async () => {
      etcd ??= await startEtcd();
      const server: ServerHandle = await startServer({
        storage: 'etcd',
        etcdServers: [etcd.endpoint],
        etcdPrefix: `/${randomUUID()}`,
      });
      const client = apiClient(server);
      const call: Call = async (method, path, body) => {
        const r = await client(method, path, body === undefined ? {} : { body });
        return { status: r.status, json: r.json };
      };
      return { call, stop: () => server.close() };
    },
  },
];

afterAll(async () => {
  await etcd?.destroy();
});

// The shortest a Lease takes (leaseDurationSeconds > 0), within client-go's rules: lease > renew
// deadline > 1.2 x retry.
const LEASE_S = 1;
const RENEW_DEADLINE_MS = 750;
const RETRY_MS = 250;

describe.each(BACKENDS)('client-go style Lease elector on $name', ({ start }) => {
  let backend: { call: Call; stop(): Promise<void> };
  const electors: LeaseElector[] = [];
  const elector = (identity: string, name: string): LeaseElector => {
    const e = new LeaseElector(backend.call, identity, name, LEASE_S, RENEW_DEADLINE_MS, RETRY_MS);
    electors.push(e);
    return e;
  };
  const getLease = async (name: string): Promise<Lease> => {
    const r = await backend.call('GET', `${LEASES}/${name}`);
    expect(r.status).toBe(200);
    return r.json as Lease;
  };

  beforeAll(async () => {
    backend = await start();
  });
  afterAll(async () => {
    await Promise.all(electors.map((e) => e.stop()));
    await backend?.stop();
  });

  it('one of two electors leads; when it stops renewing the other acquires after expiry, leaseTransitions + 1', {
    timeout: 30_000,
  }, async () => {
    const name = `lock-${randomUUID().slice(0, 8)}`;
    const a = elector('ts-a', name);
    const b = elector('ts-b', name);
    a.start();
    b.start();
    const deadline = Date.now() + 10_000;
    while (!a.leading && !b.leading) {
      if (Date.now() > deadline) throw new Error('no elector became leader');
      await sleep(20);
    }
    const [leader, follower] = a.leading ? [a, b] : [b, a];

    // Past two lease durations of renewals the leader still holds it and the follower never led.
    await sleep(2 * LEASE_S * 1000);
    expect([leader.leading, follower.leading]).toEqual([true, false]);
    const held = await getLease(name);
    expect(held.spec).toMatchObject({
      holderIdentity: leader.identity,
      leaseDurationSeconds: LEASE_S,
      leaseTransitions: 0,
    });
    // Times kept as written: MicroTimes with six fractional digits; acquireTime unchanged by renewals.
    expect(held.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(held.spec.acquireTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(held.spec.renewTime! > held.spec.acquireTime!).toBe(true);
    // Renewals kept succeeding; the follower wrote at most once, a CREATE that lost the first race
    // (409), and since then only read the held lease.
    expect(leader.writes.every((s) => s === 200 || s === 201)).toBe(true);
    expect(follower.writes.length).toBeLessThanOrEqual(1);
    expect(follower.writes.every((s) => s === 409)).toBe(true);

    const stoppedAt = Date.now();
    await leader.stop();
    while (!follower.leading) {
      if (Date.now() - stoppedAt > LEASE_S * 1000 + 3000) throw new Error('the follower did not take over');
      await sleep(20);
    }
    const after = follower.events[0]!.at - stoppedAt;
    // After expiry (the follower's clock starts at the last change it saw, up to a retry before the
    // stop), and within the lease duration + two retries + request slack.
    expect(after).toBeGreaterThanOrEqual(LEASE_S * 1000 - 2 * RETRY_MS);
    expect(after).toBeLessThanOrEqual(LEASE_S * 1000 + 2 * RETRY_MS + 1000);

    const taken = await getLease(name);
    expect(taken.spec).toMatchObject({ holderIdentity: follower.identity, leaseTransitions: 1 });
    expect(taken.spec.acquireTime! > held.spec.renewTime!).toBe(true);
    await follower.stop();
  });

  it('concurrent acquire attempts: exactly one wins, the other gets 409 Conflict', async () => {
    const name = `race-${randomUUID().slice(0, 8)}`;
    const a = elector('race-a', name);
    const b = elector('race-b', name);

    // Both find no lease and both CREATE: one 201, one 409 AlreadyExists.
    expect(await Promise.all([a.observe(), b.observe()])).toEqual(['absent', 'absent']);
    const created = await Promise.all([a.write(), b.write()]);
    expect([...created].sort()).toEqual([201, 409]);
    const first = created[0] === 201 ? a : b;
    expect((first === a ? b : a).lastFailure).toBe('AlreadyExists');
    const lease = await getLease(name);
    expect(lease.spec).toMatchObject({ holderIdentity: first.identity, leaseTransitions: 0 });

    // The holder stops renewing. After expiry, a third and fourth candidate both see the same expired
    // record (same resourceVersion) and both UPDATE with it: one 200, the other 409 Conflict.
    const c = elector('race-c', name);
    const d = elector('race-d', name);
    expect(await Promise.all([c.observe(), d.observe()])).toEqual(['found', 'found']);
    await sleep(LEASE_S * 1000 + 100);
    expect(await Promise.all([c.observe(), d.observe()])).toEqual(['found', 'found']);
    const updated = await Promise.all([c.write(), d.write()]);
    expect([...updated].sort()).toEqual([200, 409]);
    const winner = updated[0] === 200 ? c : d;
    const loser = winner === c ? d : c;
    expect(loser.lastFailure).toBe('Conflict');
    const after = await getLease(name);
    expect(after.spec).toMatchObject({ holderIdentity: winner.identity, leaseTransitions: 1 });
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(lease.metadata.resourceVersion));

    // The loser's next round sees the winner's fresh lease and waits instead of writing.
    expect(await loser.observe()).toBe('found');
    expect(await loser.write()).toBeUndefined();
  });
});
