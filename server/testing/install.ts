// The testing API, installed into the API only with --enable-testing-apis (ServerOptions.testing):
// testing.mini-apiserver.io/v1alpha1's Fault, Snapshot (with its restore subresource) and Clock,
// served like any built-in kind (one generic store each: discovery, OpenAPI, RBAC, audit), and the
// controllers acting on them. Without the flag none of this is loaded or run: the group is not
// served (404) and the request path is the one the server always has.
import { Counter, type Registry } from 'prom-client';
import {
  TESTING_GROUP,
  TESTING_VERSION,
  clockSchema,
  faultSchema,
  snapshotSchema,
} from '../../apimachinery/apis/testing.js';
import type { AdjustableClock } from '../../apimachinery/clock.js';
import type { Logger } from '../../apimachinery/log.js';
import type { AdmissionChain } from '../../admission/interface.js';
import type { Storage } from '../../storage/interface.js';
import type { ApiHandler } from '../pipeline/types.js';
import { type Catalog, builtinDescriptor } from '../registry/catalog.js';
import { objectKey } from '../registry/keys.js';
import { Store } from '../registry/store.js';
import { leaseKind } from '../registry/builtin/leases.js';
import { DEFAULT_LEASE_NAME, DEFAULT_LEASE_NAMESPACE } from '../registry/builtin/leader-election.js';
import { clock, clockKind, fault, faultKind, snapshot, snapshotKind } from '../registry/builtin/testing.js';
import { ClockController } from './clock.js';
import { withFaults } from './fault-handler.js';
import { FaultEngine } from './faults.js';
import { SnapshotController, restoreHandler } from './snapshots.js';

export interface TestingDeps {
  catalog: Catalog;
  storage: Storage;
  admission: AdmissionChain;
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
  const { catalog, storage, admission, logger } = deps;
  const stores = {
    faults: new Store(storage, fault.strategy, admission, deps.clock),
    snapshots: new Store(storage, snapshot.strategy, admission, deps.clock),
    clocks: new Store(storage, clock.strategy, admission, deps.clock),
  };
  const names = (resource: string, singular: string, kind: string, shortNames: string[]) => ({
    plural: resource,
    singular,
    kind,
    listKind: `${kind}List`,
    shortNames,
    categories: [],
  });
  catalog.setResource(TESTING_GROUP, faultKind.resource, [
    builtinDescriptor(
      faultKind,
      TESTING_VERSION,
      'fault',
      {
        schema: faultSchema,
        names: names('faults', 'fault', 'Fault', []),
        subresources: ['status'],
        printerColumns: fault.columns,
      },
      stores.faults,
    ),
  ]);
  catalog.setResource(TESTING_GROUP, snapshotKind.resource, [
    builtinDescriptor(
      snapshotKind,
      TESTING_VERSION,
      'snapshot',
      {
        schema: snapshotSchema,
        names: names('snapshots', 'snapshot', 'Snapshot', []),
        subresources: ['restore', 'status'],
        creates: { restore: restoreHandler(stores.snapshots, storage, deps.clock) },
        printerColumns: snapshot.columns,
      },
      stores.snapshots,
    ),
  ]);
  catalog.setResource(TESTING_GROUP, clockKind.resource, [
    builtinDescriptor(
      clockKind,
      TESTING_VERSION,
      'clock',
      {
        schema: clockSchema,
        names: names('clocks', 'clock', 'Clock', []),
        subresources: ['status'],
        printerColumns: clock.columns,
      },
      stores.clocks,
    ),
  ]);

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
