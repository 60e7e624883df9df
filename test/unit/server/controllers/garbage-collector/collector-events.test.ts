// The Warning Event kube's graph builder records for an owner reference across namespaces
// (OwnerRefInvalidNamespace): the Event as built, and the collector recording it through a fake
// recorder, wired as server/api.ts wires the collector: real Stores over embedded SQLite, a real
// catalog with a namespaced kind (ConfigMap) and a cluster-scoped one (Namespace).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ignoreNotFound } from '../../../../../apimachinery/errors.js';
import { type LogFields, type Logger, silentLogger } from '../../../../../apimachinery/log.js';
import type { KubeObject } from '../../../../../apimachinery/object.js';
import type { Storage } from '../../../../../storage/interface.js';
import { Catalog, type ResourceDescriptor, TYPED_PROFILE } from '../../../../../server/registry/catalog.js';
import { Store } from '../../../../../server/registry/store.js';
import type { KindInfo } from '../../../../../server/registry/strategy.js';
import { configMapKind, configMapStrategy } from '../../../../../server/registry/builtin/configmaps.js';
import { namespaceKind, namespaceStrategy } from '../../../../../server/registry/builtin/namespaces.js';
import { eventKind, eventStrategy } from '../../../../../server/registry/builtin/events.js';
import { GarbageCollector } from '../../../../../server/controllers/garbage-collector/collector.js';
import {
  type CoreEvent,
  epochNanos,
  invalidNamespaceOwnerRefEvent,
} from '../../../../../server/controllers/garbage-collector/events.js';
import { AdjustableClock, systemClock } from '../../../../../apimachinery/clock.js';
import { createSqliteFixture } from '../../../../helpers/sqlite-fixture.js';
import { eventually } from '../../../../helpers/eventually.js';

describe('invalidNamespaceOwnerRefEvent', () => {
  // 2026-01-02T03:04:05.123456789Z
  const at = 1767323045123456789n;
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u-1', controller: true };

  it('a namespaced dependent: the Event client-go would write, in its namespace', () => {
    const e = invalidNamespaceOwnerRefEvent(
      { uid: 'd-1', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'b', name: 'dep' },
      ref,
      at,
    );
    expect(e).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `dep.${at.toString(16)}`, namespace: 'b' },
      involvedObject: { kind: 'ConfigMap', namespace: 'b', name: 'dep', uid: 'd-1', apiVersion: 'v1' },
      reason: 'OwnerRefInvalidNamespace',
      message: 'ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: u-1] does not exist in namespace "b"',
      source: { component: 'garbage-collector-controller' },
      firstTimestamp: '2026-01-02T03:04:05Z',
      lastTimestamp: '2026-01-02T03:04:05Z',
      count: 1,
      type: 'Warning',
      reportingComponent: 'garbage-collector-controller',
      reportingInstance: '',
    });
  });

  it('a cluster-scoped dependent: the Event goes to "default", its reference has no namespace', () => {
    const e = invalidNamespaceOwnerRefEvent(
      { uid: 'd-2', apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'ns1' },
      ref,
      at,
    );
    expect(e.metadata.namespace).toBe('default');
    expect(e.involvedObject).toEqual({ kind: 'Namespace', name: 'ns1', uid: 'd-2', apiVersion: 'v1' });
    expect(e.message).toBe(
      'ownerRef [v1/ConfigMap, namespace: , name: owner, uid: u-1] does not exist in namespace ""',
    );
  });

  it("the time is the server clock's", () => {
    const clock = new AdjustableClock();
    clock.set({ mode: 'Frozen', atMicros: Date.UTC(2031, 4, 6, 7, 8, 9) * 1000 + 123_456 });
    const e = invalidNamespaceOwnerRefEvent(
      { uid: 'd', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'b', name: 'dep' },
      ref,
      epochNanos(clock),
    );
    const nanos = BigInt(Date.UTC(2031, 4, 6, 7, 8, 9)) * 1_000_000n + 123_456_000n;
    expect(e.metadata.name).toBe(`dep.${nanos.toString(16)}`);
    expect(e.firstTimestamp).toBe('2031-05-06T07:08:09Z');
  });
});

describe('GarbageCollector records OwnerRefInvalidNamespace', () => {
  let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
  let storage: Storage;
  let configMaps: Store;
  let namespaces: Store;
  let events: Store;
  let catalog: Catalog;

  const descriptor = (kind: KindInfo, store: Store): ResourceDescriptor => ({
    group: kind.group,
    version: 'v1',
    names: {
      plural: kind.resource,
      singular: kind.kind.toLowerCase(),
      kind: kind.kind,
      listKind: kind.listKind,
      shortNames: [],
      categories: [],
    },
    namespaced: kind.namespaced,
    verbs: ['create', 'delete', 'get', 'list', 'update', 'watch'],
    subresources: [],
    store,
    serving: TYPED_PROFILE,
    storageVersionHash: kind.resource,
  });

  beforeAll(async () => {
    fixture = await createSqliteFixture();
    storage = await fixture.open();
    configMaps = new Store(storage, configMapStrategy);
    namespaces = new Store(storage, namespaceStrategy);
    events = new Store(storage, eventStrategy);
    catalog = new Catalog();
    catalog.setResource('', 'configmaps', [descriptor(configMapKind, configMaps)]);
    catalog.setResource('', 'namespaces', [descriptor(namespaceKind, namespaces)]);
    catalog.setResource('', 'events', [descriptor(eventKind, events)]);
  });

  afterAll(async () => {
    for (const s of [configMaps, namespaces, events]) s.close();
    await fixture.teardown();
  });

  /** A collector with a recorder that keeps what it is given (and, with `store`, writes it as the server would). */
  async function collector(opts: { isLeader?: () => boolean; fail?: boolean; store?: boolean; logger?: Logger } = {}) {
    const recorded: CoreEvent[] = [];
    const gc = new GarbageCollector(catalog, opts.logger ?? silentLogger, {
      ...(opts.isLeader ? { isLeader: opts.isLeader } : {}),
      recordEvent: async (event) => {
        recorded.push(event);
        if (opts.fail) throw new Error('events are down');
        if (opts.store) await events.create(event.metadata.namespace, event, { dryRun: false });
      },
    });
    await gc.start();
    return { gc, recorded };
  }

  const create = (store: Store, namespace: string | undefined, obj: KubeObject) =>
    store.create(namespace, obj, { dryRun: false });
  const configMap = (namespace: string, name: string, meta: Partial<KubeObject['metadata']> = {}) =>
    create(configMaps, namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta } });
  const refTo = (owner: KubeObject) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
  });
  const reasonsFor = (recorded: CoreEvent[], uid: string) => recorded.filter((e) => e.involvedObject.uid === uid);

  it('a dependent in another namespace than its owner: one Warning Event about the dependent, which is then collected', async () => {
    const { gc, recorded } = await collector({ store: true });
    try {
      const owner = await configMap('ns-a', 'owner-1');
      const dep = await configMap('ns-b', 'dep-1', { ownerReferences: [refTo(owner)] });
      const [e] = await eventually('the event', async () =>
        reasonsFor(recorded, dep.metadata.uid!).length ? reasonsFor(recorded, dep.metadata.uid!) : undefined,
      );
      expect(e!.reason).toBe('OwnerRefInvalidNamespace');
      expect(e!.type).toBe('Warning');
      expect(e!.message).toBe(
        `ownerRef [v1/ConfigMap, namespace: ns-b, name: owner-1, uid: ${owner.metadata.uid}] does not exist in namespace "ns-b"`,
      );
      expect(e!.involvedObject).toEqual({
        kind: 'ConfigMap',
        namespace: 'ns-b',
        name: 'dep-1',
        uid: dep.metadata.uid,
        apiVersion: 'v1',
      });
      // The events store takes it as written (core/v1 validation), where kubectl describe finds it.
      const stored = await eventually('the stored event', () =>
        events.get('ns-b', e!.metadata.name).catch(ignoreNotFound),
      );
      expect(stored).toMatchObject({
        reason: 'OwnerRefInvalidNamespace',
        count: 1,
        source: { component: 'garbage-collector-controller' },
      });
      // As kube: the owner is absent where the dependent looks, so the dependent is collected; the owner stays.
      await eventually('dep-1 collected', async () =>
        (await configMaps.get('ns-b', 'dep-1').catch(ignoreNotFound)) ? undefined : true,
      );
      expect(await configMaps.get('ns-a', 'owner-1')).toBeDefined();
      expect(reasonsFor(recorded, dep.metadata.uid!)).toHaveLength(1);
    } finally {
      gc.close();
    }
  });

  it('a cluster-scoped dependent of a namespaced owner: the Event (in "default"), and the dependent is left alone', async () => {
    const { gc, recorded } = await collector({ store: true });
    try {
      const owner = await configMap('ns-a', 'owner-2');
      const dep = await create(namespaces, undefined, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'cluster-dep', ownerReferences: [refTo(owner)] },
      });
      const [e] = await eventually('the event', async () =>
        reasonsFor(recorded, dep.metadata.uid!).length ? reasonsFor(recorded, dep.metadata.uid!) : undefined,
      );
      expect(e!.metadata.namespace).toBe('default');
      expect(e!.involvedObject).toEqual({
        kind: 'Namespace',
        name: 'cluster-dep',
        uid: dep.metadata.uid,
        apiVersion: 'v1',
      });
      expect(e!.message).toBe(
        `ownerRef [v1/ConfigMap, namespace: , name: owner-2, uid: ${owner.metadata.uid}] does not exist in namespace ""`,
      );
      expect(
        await eventually('the stored event', () => events.get('default', e!.metadata.name).catch(ignoreNotFound)),
      ).toMatchObject({ reason: 'OwnerRefInvalidNamespace' });
      await eventually('the collector idle', async () => (gc.idle ? true : undefined));
      expect(await namespaces.get(undefined, 'cluster-dep')).toBeDefined();
    } finally {
      gc.close();
    }
  });

  it('an owner in the same namespace, or cluster-scoped: no Event', async () => {
    const { gc, recorded } = await collector();
    try {
      const owner = await configMap('ns-c', 'owner-3');
      const clusterOwner = await create(namespaces, undefined, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'cluster-owner' },
      });
      await configMap('ns-c', 'dep-3', { ownerReferences: [refTo(owner)] });
      await configMap('ns-d', 'dep-4', {
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Namespace', name: 'cluster-owner', uid: clusterOwner.metadata.uid! },
        ],
      });
      // A witness after them, through the same watch: once it is reported, the others were seen.
      const witnessOwner = await configMap('ns-c', 'owner-w');
      const witness = await configMap('ns-e', 'dep-w', { ownerReferences: [refTo(witnessOwner)] });
      await eventually('the witness event', async () =>
        reasonsFor(recorded, witness.metadata.uid!).length ? true : undefined,
      );
      // (A fresh collector also reports what earlier cases left behind, as kube's first lists would.)
      expect(
        recorded.map((e) => e.involvedObject.name).filter((n) => ['dep-3', 'dep-4', 'dep-w'].includes(n ?? '')),
      ).toEqual(['dep-w']);
    } finally {
      gc.close();
    }
  });

  it('only the leader records; a new leader reports what its graph holds, once', async () => {
    let leading = false;
    const { gc, recorded } = await collector({ isLeader: () => leading });
    try {
      const owner = await configMap('ns-f', 'owner-5');
      const dep = await configMap('ns-g', 'dep-5', { ownerReferences: [refTo(owner)] });
      // Observed while not leading: nothing recorded.
      await eventually('dep-5 observed', async () => (gc.observed(dep.metadata.uid!) ? true : undefined));
      expect(reasonsFor(recorded, dep.metadata.uid!)).toEqual([]);
      leading = true;
      gc.resync();
      expect(reasonsFor(recorded, dep.metadata.uid!).map((e) => e.reason)).toEqual(['OwnerRefInvalidNamespace']);
      gc.resync();
      expect(reasonsFor(recorded, dep.metadata.uid!)).toHaveLength(1);
    } finally {
      gc.close();
    }
  });

  it('a recorder that fails is logged, and the collector carries on', async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      ...silentLogger,
      warn: (msg: string, _fields?: LogFields) => warnings.push(msg),
      with: () => logger,
    };
    const { gc, recorded } = await collector({ fail: true, logger });
    try {
      const owner = await configMap('ns-h', 'owner-6');
      const dep = await configMap('ns-i', 'dep-6', { ownerReferences: [refTo(owner)] });
      await eventually('the attempt', async () => (reasonsFor(recorded, dep.metadata.uid!).length ? true : undefined));
      await eventually('the warning', async () =>
        warnings.includes('garbage collector could not record an event') ? true : undefined,
      );
      await eventually('dep-6 collected all the same', async () =>
        (await configMaps.get('ns-i', 'dep-6').catch(ignoreNotFound)) ? undefined : true,
      );
    } finally {
      gc.close();
    }
  });

  it('events are not observed (kube ignores them): an Event naming an owner is never collected', async () => {
    const { gc } = await collector();
    try {
      const e = invalidNamespaceOwnerRefEvent(
        { uid: 'x', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns-j', name: 'x' },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'x' },
        epochNanos(systemClock),
      );
      await create(events, 'ns-j', {
        ...e,
        metadata: {
          ...e.metadata,
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: 'gone-uid' }],
        },
      });
      // A dependent of a missing owner, created after it: once collected, the Event had its chance.
      await configMap('ns-j', 'dep-7', {
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: 'gone-uid' }],
      });
      await eventually('dep-7 collected', async () =>
        (await configMaps.get('ns-j', 'dep-7').catch(ignoreNotFound)) ? undefined : true,
      );
      await eventually('the collector idle', async () => (gc.idle ? true : undefined));
      expect(await events.get('ns-j', e.metadata.name)).toBeDefined();
    } finally {
      gc.close();
    }
  });
});
