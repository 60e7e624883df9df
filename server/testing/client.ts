// Typed helpers over the testing API, for tests in TypeScript: `server.testing` of a server
// started with `startServer({ testing: true })`, or testingClient() against any server run with
// --enable-testing-apis. Each call resolves once the server acts on what it asked: a Fault in
// force, a Snapshot saved, the Clock set. Other languages use the API itself (README).
import {
  CLOCK_NAME,
  type ClockSpec,
  type FaultSpec,
  type FaultStatusFields,
  type SnapshotRestoreStatus,
  type SnapshotStatus,
  TESTING_API_VERSION,
} from '../../apimachinery/apis/testing.js';
import { ApiError, type Status } from '../../apimachinery/errors.js';
import { formatMicroTime } from '../../apimachinery/validation/micro-time.js';
import { goDuration } from '../../webhook/client.js';
import { type Answer, type Target, call } from '../client/api-client.js';
import { goDurationMs, rfc3339Micros } from '../registry/builtin/testing.js';

export type { ClockSpec, FaultSpec, FaultStatusFields, SnapshotRestoreStatus, SnapshotStatus, Target };
export type {
  FaultAction,
  FaultMatch,
  FaultStatus,
  SnapshotCondition,
} from '../../apimachinery/apis/testing.js';

export interface TestingClient {
  readonly faults: Faults;
  readonly snapshots: Snapshots;
  readonly clock: ClockControl;
}

export interface Faults {
  /** Creates the Fault; resolves once the server acts on it. `await using` deletes it after. */
  inject(name: string, spec: FaultSpec): Promise<InjectedFault>;
  /** The requests it acted on so far. */
  hits(name: string): Promise<number>;
  remove(name: string): Promise<void>;
  /** Deletes every Fault. */
  clear(): Promise<void>;
}

export interface InjectedFault extends AsyncDisposable {
  readonly name: string;
  hits(): Promise<number>;
  remove(): Promise<void>;
}

export interface Snapshots {
  /** Saves every object under `name` (replacing nothing: the name must be new); resolves once saved. */
  save(name: string): Promise<SnapshotStatus>;
  /** Puts back what `name` saved, as new resourceVersions every watch sees. */
  restore(name: string): Promise<SnapshotRestoreStatus>;
  remove(name: string): Promise<void>;
}

export interface ClockControl {
  /** Stops the server's clock at `at`. */
  freeze(at: Date | string): Promise<void>;
  /** Moves the clock on by `ms` (back when negative): a frozen one stays frozen, a real one becomes offset. */
  advance(ms: number): Promise<void>;
  /** Real time shifted by `ms`. */
  offset(ms: number): Promise<void>;
  /** Back to real time. */
  reset(): Promise<void>;
}

const BASE = `/apis/${TESTING_API_VERSION}`;
/** How long a helper waits for the server to act before it says it did not. */
const ACT_WITHIN_MS = 30_000;
const POLL_MS = 5;

interface Obj {
  metadata: { name: string; generation?: number; resourceVersion?: string };
  spec?: unknown;
  status?: { observedGeneration?: number } & Record<string, unknown>;
}

/** The Status a failed request answered, as the ApiError the server built. */
function apiError(what: string, a: Answer): ApiError {
  if (a.body['kind'] === 'Status') return new ApiError(a.body as unknown as Status);
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${what}: the server answered ${a.status}`,
    reason: '',
    code: a.status,
  });
}

/** A Go duration (`-1h30m0s`) of `ms`. */
const signedGoDuration = (ms: number): string => (ms < 0 ? `-${goDuration(-ms)}` : goDuration(ms));

export function testingClient(target: Target): TestingClient {
  const request = async (what: string, method: string, path: string, body?: unknown, ok = [200, 201]) => {
    const a = await call(target, method, path, body);
    if (!ok.includes(a.status)) throw apiError(what, a);
    return a;
  };
  /** Polls `path` until `done` holds of it. */
  const until = async (what: string, path: string, done: (o: Obj) => boolean): Promise<Obj> => {
    const deadline = Date.now() + ACT_WITHIN_MS;
    for (;;) {
      const o = (await request(what, 'GET', path)).body as unknown as Obj;
      if (done(o)) return o;
      if (Date.now() > deadline) throw new Error(`${what}: the server did not act within ${ACT_WITHIN_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };
  const inForce = (o: Obj): boolean => (o.status?.observedGeneration ?? 0) >= (o.metadata.generation ?? 1);

  const faults: Faults = {
    async inject(name, spec) {
      const what = `injecting Fault ${name}`;
      await request(what, 'POST', `${BASE}/faults`, {
        apiVersion: TESTING_API_VERSION,
        kind: 'Fault',
        metadata: { name },
        spec,
      });
      await until(what, `${BASE}/faults/${name}`, inForce);
      return {
        name,
        hits: () => faults.hits(name),
        remove: () => faults.remove(name),
        [Symbol.asyncDispose]: () => faults.remove(name),
      };
    },
    async hits(name) {
      const o = (await request(`reading Fault ${name}`, 'GET', `${BASE}/faults/${name}`)).body as unknown as Obj;
      return (o.status as FaultStatusFields | undefined)?.hits ?? 0;
    },
    async remove(name) {
      await request(`deleting Fault ${name}`, 'DELETE', `${BASE}/faults/${name}`, undefined, [200, 404]);
    },
    async clear() {
      await request('deleting every Fault', 'DELETE', `${BASE}/faults`);
    },
  };

  const ready = (o: Obj): boolean => {
    const cond = (o.status as SnapshotStatus | undefined)?.conditions?.find((c) => c.type === 'Ready');
    if (cond?.status === 'False') throw new Error(`saving Snapshot ${o.metadata.name}: ${cond.message ?? cond.reason}`);
    return cond?.status === 'True';
  };
  const snapshots: Snapshots = {
    async save(name) {
      const what = `saving Snapshot ${name}`;
      await request(what, 'POST', `${BASE}/snapshots`, {
        apiVersion: TESTING_API_VERSION,
        kind: 'Snapshot',
        metadata: { name },
        spec: {},
      });
      return (await until(what, `${BASE}/snapshots/${name}`, ready)).status as SnapshotStatus;
    },
    async restore(name) {
      const a = await request(`restoring Snapshot ${name}`, 'POST', `${BASE}/snapshots/${name}/restore`, {
        apiVersion: TESTING_API_VERSION,
        kind: 'SnapshotRestore',
      });
      return a.body['status'] as SnapshotRestoreStatus;
    },
    async remove(name) {
      await request(`deleting Snapshot ${name}`, 'DELETE', `${BASE}/snapshots/${name}`, undefined, [200, 404]);
    },
  };

  const clockPath = `${BASE}/clocks/${CLOCK_NAME}`;
  /** Sets the Clock to what `next` makes of its spec now (none: real), and waits until it is in force. */
  const setClock = async (next: (current: ClockSpec | undefined) => ClockSpec): Promise<void> => {
    const what = 'setting the Clock';
    for (;;) {
      const got = await request(what, 'GET', clockPath, undefined, [200, 404]);
      const current = got.status === 200 ? (got.body as unknown as Obj & { spec: ClockSpec }) : undefined;
      const body = {
        apiVersion: TESTING_API_VERSION,
        kind: 'Clock',
        metadata: current
          ? { name: CLOCK_NAME, resourceVersion: current.metadata.resourceVersion }
          : { name: CLOCK_NAME },
        spec: next(current?.spec),
      };
      const a = current
        ? await call(target, 'PUT', clockPath, body)
        : await call(target, 'POST', `${BASE}/clocks`, body);
      // Someone else set it meanwhile: start again from what they set.
      if (a.status === 409) continue;
      if (a.status !== 200 && a.status !== 201) throw apiError(what, a);
      await until(what, clockPath, inForce);
      return;
    }
  };
  const clock: ClockControl = {
    freeze: (at) => setClock(() => ({ mode: 'Frozen', time: typeof at === 'string' ? at : at.toISOString() })),
    offset: (ms) => setClock(() => ({ mode: 'Offset', offset: signedGoDuration(ms) })),
    reset: () => setClock(() => ({ mode: 'Real' })),
    advance: (ms) =>
      setClock((current) => {
        if (current?.mode === 'Frozen' && current.time !== undefined) {
          const at = rfc3339Micros(current.time);
          if (at !== undefined) return { mode: 'Frozen', time: formatMicroTime(at + ms * 1000) };
        }
        const had = current?.mode === 'Offset' && current.offset !== undefined ? goDurationMs(current.offset) : 0;
        return { mode: 'Offset', offset: signedGoDuration((typeof had === 'number' ? had : 0) + ms) };
      }),
  };

  return { faults, snapshots, clock };
}
