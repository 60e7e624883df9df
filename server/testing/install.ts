// The testing API, installed into the API only with --enable-testing-apis (ServerOptions.testing):
// testing.mini-apiserver.io/v1alpha1's Fault, Snapshot (with its restore subresource) and Clock,
// served like any built-in kind (one generic store each: discovery, OpenAPI, RBAC, audit), and the
// controllers acting on them. Without the flag none of this is loaded or run: the group is not
// served (404) and the request path is the one the server always has.
import { Counter, type Registry } from 'prom-client';
import { TESTING_GROUP } from '../../apimachinery/apis/testing.js';
import type { AdjustableClock } from '../../apimachinery/clock.js';
import type { Logger } from '../../apimachinery/log.js';
import type { Storage } from '../../storage/interface.js';
import { DEFAULT_LEASE_NAME, DEFAULT_LEASE_NAMESPACE } from '../controllers/leader-election.js';
import type { ApiHandler } from '../pipeline/types.js';
import type { Catalog } from '../registry/catalog.js';
import { type BuiltinKind, installBuiltinKinds } from '../registry/builtin/kind.js';
import { leaseKind } from '../registry/builtin/leases.js';
import { CLOCKS, FAULTS, SNAPSHOTS, TESTING_KINDS } from '../registry/builtin/testing.js';
import { objectKey } from '../registry/keys.js';
import type { Store } from '../registry/store.js';
import { ClockController } from './clock.js';
import { withFaults } from './fault-handler.js';
import { FaultEngine } from './faults.js';
import { SnapshotController, restoreHandler } from './snapshots.js';

export interface TestingDeps {
  catalog: Catalog;
  /** The stores of built-in kinds, as the API makes them (kind.ts builtinStores). */
  storeOf: (k: BuiltinKind) => Store;
  storage: Storage;
  /** The server's clock, which the Clock sets. */
  clock: AdjustableClock;
  /** /metrics' registry, for mini_apiserver_testing_fault_hits_total. */
  metrics: Registry;
  logger: Logger;
}

export interface Testing {
  /** The stored Clock in force and the Faults known, before the server's own first writes. */
  start(isLeader: () => boolean): Promise<void>;
  /** A new leader saves the Snapshots left unsaved. */
  resync(): void;
  /** `api` with the Faults acting on the client requests they match. */
  around(api: ApiHandler): ApiHandler;
  close(): void;
}

export function installTesting(deps: TestingDeps): Testing {
  const { catalog, storage, logger } = deps;
  const stores = { faults: deps.storeOf(FAULTS), snapshots: deps.storeOf(SNAPSHOTS), clocks: deps.storeOf(CLOCKS) };
  installBuiltinKinds(
    catalog,
    TESTING_KINDS,
    deps.storeOf,
    new Map([[SNAPSHOTS, { restore: restoreHandler(stores.snapshots, storage, deps.clock) }]]),
  );

  const hits = new Counter({
    name: 'mini_apiserver_testing_fault_hits_total',
    help: 'Client requests each Fault of testing.mini-apiserver.io acted on, by Fault and action.',
    labelNames: ['action', 'fault'] as const,
    registers: [deps.metrics],
  });
  const engine = new FaultEngine({ store: stores.faults, logger, hits });
  const clockController = new ClockController(stores.clocks, deps.clock, logger);
  let snapshots: SnapshotController | undefined;

  return {
    async start(isLeader) {
      await clockController.start();
      await engine.start();
      snapshots = new SnapshotController({
        store: stores.snapshots,
        storage,
        // Everything stored but the testing API's own objects (restoring a Fault's or a
        // Snapshot's past would undo what they record) and the controllers' leader Lease.
        scope: {
          prefix: '/registry/',
          exclude: [`/registry/${TESTING_GROUP}/`, objectKey(leaseKind, DEFAULT_LEASE_NAMESPACE, DEFAULT_LEASE_NAME)],
        },
        logger,
        isLeader,
      });
      await snapshots.start();
    },
    resync: () => snapshots?.resync(),
    around: (api) =>
      withFaults(api, {
        engine,
        async expireHistory() {
          const revision = await storage.currentRevision();
          await storage.compact(revision);
          for (const store of catalog.stores()) store.expireHistory(revision);
        },
      }),
    close() {
      engine.close();
      clockController.close();
      snapshots?.close();
    },
  };
}
