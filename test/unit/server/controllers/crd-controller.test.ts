// The CRD controller at its boundary, wired as server/api.ts wires it: a real Store for CRDs over
// embedded SQLite, a real catalog, custom resource stores from customResourceStrategy. What kube's
// naming, establishing and finalizer controllers write to a CRD's status, and what is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../apimachinery/log.js';
import { ignoreNotFound } from '../../../../apimachinery/errors.js';
import type { KubeObject } from '../../../../apimachinery/object.js';
import {
  CRD_CLEANUP_FINALIZER,
  type CRDCondition,
  type CRDNames,
  type CRDVersion,
  type CustomResourceDefinition,
} from '../../../../apimachinery/apis/apiextensions.js';
import type { Storage } from '../../../../storage/interface.js';
import { CUSTOM_RESOURCE_PROFILE, Catalog } from '../../../../server/registry/catalog.js';
import { Store } from '../../../../server/registry/store.js';
import { crdStrategy, setCondition } from '../../../../server/registry/builtin/crds.js';
import { CRDController, statusWriteOf } from '../../../../server/controllers/crd-controller.js';
import { customResourceStrategy } from '../../../../server/registry/builtin/custom-resources.js';
import { createSqliteFixture } from '../../../helpers/sqlite-fixture.js';
import { eventually } from '../../../helpers/eventually.js';

let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
let storage: Storage;
let crds: Store;
let catalog: Catalog;
let controller: CRDController;

beforeAll(async () => {
  fixture = await createSqliteFixture();
  storage = await fixture.open();
  crds = new Store(storage, crdStrategy);
  catalog = new Catalog();
  controller = new CRDController(crds, catalog, (crd) => new Store(storage, customResourceStrategy(crd)), silentLogger);
  await controller.start();
});

afterAll(async () => {
  controller.close();
  for (const store of catalog.stores()) store.close();
  crds.close();
  await fixture.teardown();
});

const SCHEMA = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } as const;

function crd(
  group: string,
  names: CRDNames,
  versions: CRDVersion[] = [{ name: 'v1', served: true, storage: true, schema: SCHEMA }],
): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}` },
    spec: { group, scope: 'Namespaced', names, versions },
  };
}

async function read(name: string): Promise<CustomResourceDefinition | undefined> {
  return (await crds.get(undefined, name).catch(ignoreNotFound)) as CustomResourceDefinition | undefined;
}

function deepFreeze(v: unknown): void {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
}

/** The conditions kube's controllers own, without lastTransitionTime (checked on its own). */
const conditions = (c: CustomResourceDefinition | undefined): Omit<CRDCondition, 'lastTransitionTime'>[] =>
  (c?.status?.conditions ?? []).map(({ lastTransitionTime: _t, ...rest }) => rest);

const condition = (c: CustomResourceDefinition | undefined, type: CRDCondition['type']): CRDCondition | undefined =>
  c?.status?.conditions?.find((x) => x.type === type);

/** Creates the CRD and waits until the controller has decided its names (NamesAccepted is set). */
async function install(def: CustomResourceDefinition): Promise<CustomResourceDefinition> {
  await crds.create(undefined, def, { dryRun: false });
  const name = def.metadata.name!;
  return eventually(`${name} names decided`, async () => {
    const c = await read(name);
    return condition(c, 'NamesAccepted') && condition(c, 'Established') ? c : undefined;
  });
}

const NAMES_ACCEPTED = {
  type: 'NamesAccepted',
  status: 'True',
  reason: 'NoConflicts',
  message: 'no conflicts found',
} as const;
const ESTABLISHED = {
  type: 'Established',
  status: 'True',
  reason: 'InitialNamesAccepted',
  message: 'the initial names have been accepted',
} as const;
const NOT_ESTABLISHED = {
  type: 'Established',
  status: 'False',
  reason: 'NotAccepted',
  message: 'not all names are accepted',
} as const;

describe('a new CRD', () => {
  it('becomes NamesAccepted and Established, with its requested names accepted', async () => {
    const created = await install(
      crd('shop.example.com', {
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
        categories: ['all'],
      }),
    );
    expect(conditions(created)).toEqual([NAMES_ACCEPTED, ESTABLISHED]);
    for (const c of created.status!.conditions!) expect(Date.parse(c.lastTransitionTime ?? '')).not.toBeNaN();
    expect(created.status!.acceptedNames).toEqual({
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wd'],
      kind: 'Widget',
      listKind: 'WidgetList',
      categories: ['all'],
    });
    expect(created.status!.storedVersions).toEqual(['v1']);
  });

  it('is served from the catalog once Established: every served version, none other', async () => {
    const def = crd('served.example.com', { plural: 'gears', singular: 'gear', kind: 'Gear' }, [
      { name: 'v1', served: true, storage: true, schema: SCHEMA, subresources: { status: {} } },
      { name: 'v2', served: true, storage: false, schema: SCHEMA },
      { name: 'v3', served: false, storage: false, schema: SCHEMA },
    ]);
    const created = await install(def);
    // The controller installs before it reports Established, so a client that saw it is served.
    expect(condition(created, 'Established')?.status).toBe('True');
    const v1 = catalog.lookup('served.example.com', 'v1', 'gears');
    expect(v1).toMatchObject({
      group: 'served.example.com',
      version: 'v1',
      names: { plural: 'gears', singular: 'gear', kind: 'Gear', listKind: 'GearList', shortNames: [], categories: [] },
      namespaced: true,
      subresources: ['status'],
      serving: CUSTOM_RESOURCE_PROFILE,
    });
    expect(v1!.storageVersionHash).not.toBe('');
    expect(v1!.store).toBe(controller.storeFor('gears.served.example.com'));
    expect(catalog.lookup('served.example.com', 'v2', 'gears')).toMatchObject({ version: 'v2', subresources: [] });
    expect(catalog.lookup('served.example.com', 'v3', 'gears')).toBeUndefined();
    // One store for the group-resource, whatever the version.
    expect(catalog.lookup('served.example.com', 'v2', 'gears')!.store).toBe(v1!.store);
  });

  it("keeps the catalog's descriptors through a status write, and replaces them when the spec changes", async () => {
    const def = crd('steady.example.com', { plural: 'bolts', singular: 'bolt', kind: 'Bolt' });
    await install(def);
    const before = catalog.lookup('steady.example.com', 'v1', 'bolts');
    await crds.update(
      undefined,
      def.metadata.name!,
      (c) => {
        (c as CustomResourceDefinition).status!.conditions!.push({
          type: 'NonStructuralSchema',
          status: 'False',
          reason: 'Written',
          message: 'by the test',
        });
        return c;
      },
      { subresource: 'status', dryRun: false },
    );
    // The informer hands the controller one event at a time: once the next CRD is served, the
    // status write has been handled.
    await install(crd('after.example.com', { plural: 'nuts', singular: 'nut', kind: 'Nut' }));
    expect(catalog.lookup('steady.example.com', 'v1', 'bolts')).toBe(before);

    await crds.update(
      undefined,
      def.metadata.name!,
      (c) => {
        (c as CustomResourceDefinition).spec.names.shortNames = ['bt'];
        return c;
      },
      { dryRun: false },
    );
    await eventually('the new short name served', async () =>
      catalog.lookup('steady.example.com', 'v1', 'bolts')?.names.shortNames.includes('bt') ? true : undefined,
    );
  });

  it("writes a status from the watch cache's CRD itself, leaving it as it was", async () => {
    const def = crd('derived.example.com', { plural: 'cogs', singular: 'cog', kind: 'Cog' });
    const name = def.metadata.name!;
    await install(def);
    // The cache's object at storage's newest revision (a read from storage answers with it then),
    // frozen: a status write that changed any of it would throw.
    const held = await eventually('the watch cache at the newest revision', async () => {
      const cached = await crds.get(undefined, name, { anyRevision: true });
      return cached === (await crds.get(undefined, name)) ? cached : undefined;
    });
    deepFreeze(held);
    const written = (await crds.update(
      undefined,
      name,
      (c) => {
        const next = statusWriteOf(c as CustomResourceDefinition);
        setCondition(
          next,
          { type: 'NonStructuralSchema', status: 'False', reason: 'Written', message: 'by the test' },
          '2026-11-29T00:00:00Z',
        );
        return next;
      },
      { subresource: 'status', dryRun: false, handedOver: true, derived: true },
    )) as CustomResourceDefinition;
    expect(condition(written, 'NonStructuralSchema')?.reason).toBe('Written');
    expect(written.spec).toBe(held['spec']);
    expect(Number(written.metadata.resourceVersion)).toBeGreaterThan(Number(held.metadata.resourceVersion));
  });

  it('the same names in another group are no conflict', async () => {
    const created = await install(
      crd('other.example.com', {
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
      }),
    );
    expect(conditions(created)).toEqual([NAMES_ACCEPTED, ESTABLISHED]);
    expect(catalog.lookup('other.example.com', 'v1', 'widgets')).toBeDefined();
  });
});

describe('a CRD whose names another CRD of its group accepted first', () => {
  const GROUP = 'clash.example.com';
  beforeAll(async () => {
    const first = await install(
      crd(GROUP, { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] }),
    );
    expect(conditions(first)).toEqual([NAMES_ACCEPTED, ESTABLISHED]);
  });

  // kube NamingConditionController: each failing name sets the reason; the message is checkName's.
  it.each<[string, CRDNames, Omit<CRDCondition, 'lastTransitionTime'>]>([
    [
      'kind',
      { plural: 'gadgets', singular: 'gadget', kind: 'Widget', listKind: 'GadgetList' },
      { type: 'NamesAccepted', status: 'False', reason: 'KindConflict', message: '"Widget" is already in use' },
    ],
    [
      'listKind',
      { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'WidgetList' },
      { type: 'NamesAccepted', status: 'False', reason: 'ListKindConflict', message: '"WidgetList" is already in use' },
    ],
    [
      'singular (against a plural)',
      { plural: 'sprockets', singular: 'widgets', kind: 'Sprocket' },
      { type: 'NamesAccepted', status: 'False', reason: 'SingularConflict', message: '"widgets" is already in use' },
    ],
    [
      'short name (against a singular)',
      { plural: 'cogs', singular: 'cog', kind: 'Cog', shortNames: ['widget'] },
      { type: 'NamesAccepted', status: 'False', reason: 'ShortNamesConflict', message: '"widget" is already in use' },
    ],
    // Both fail; the later check (listKind) is the one the condition reports.
    [
      'kind and listKind: the last conflict is reported',
      { plural: 'levers', singular: 'lever', kind: 'Widget' },
      { type: 'NamesAccepted', status: 'False', reason: 'ListKindConflict', message: '"WidgetList" is already in use' },
    ],
  ])(
    '%s: NamesAccepted False with kube reason and message, never Established nor served',
    async (_name, names, namesAccepted) => {
      const created = await install(crd(GROUP, names));
      expect(conditions(created)).toEqual([namesAccepted, NOT_ESTABLISHED]);
      expect(catalog.lookup(GROUP, 'v1', names.plural)).toBeUndefined();
      expect(controller.storeFor(`${names.plural}.${GROUP}`)).toBeUndefined();
    },
  );

  it('the first CRD keeps its names and stays served', async () => {
    const first = await read(`widgets.${GROUP}`);
    expect(conditions(first)).toEqual([NAMES_ACCEPTED, ESTABLISHED]);
    expect(catalog.lookup(GROUP, 'v1', 'widgets')?.names.kind).toBe('Widget');
  });
});

describe('deleting a CRD (the customresourcecleanup finalizer)', () => {
  const GROUP = 'gone.example.com';

  const cr = (kind: string, name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
    apiVersion: `${GROUP}/v1`,
    kind,
    metadata: { name, ...extra },
  });

  /** Every custom resource of the CRD in storage, read by a store of its own. */
  async function remaining(def: CustomResourceDefinition): Promise<string[]> {
    const store = new Store(storage, customResourceStrategy(def));
    try {
      return (await store.list(undefined)).items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    } finally {
      store.close();
    }
  }

  it('marks the CRD Terminating, deletes its custom resources, then the CRD, then its API', async () => {
    const def = crd(GROUP, { plural: 'crates', singular: 'crate', kind: 'Crate' });
    await install(def);
    const store = controller.storeFor(def.metadata.name!)!;
    await store.create('a', cr('Crate', 'one'), { dryRun: false });
    await store.create('b', cr('Crate', 'two'), { dryRun: false });
    expect(await remaining(def)).toEqual(['a/one', 'b/two']);

    const { deleted, obj } = await crds.delete(undefined, def.metadata.name!, { dryRun: false });
    // kube's CRD REST Delete: only marked, with the finalizer and the condition, no generation bump.
    expect(deleted).toBe(false);
    const marked = obj as CustomResourceDefinition;
    expect(marked.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect(marked.metadata.finalizers).toEqual([CRD_CLEANUP_FINALIZER]);
    expect(marked.metadata.generation).toBe(1);
    expect(condition(marked, 'Terminating')).toMatchObject({
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });

    await eventually('the CRD gone', async () => ((await read(def.metadata.name!)) === undefined ? true : undefined));
    expect(await remaining(def)).toEqual([]);
    expect(catalog.lookup(GROUP, 'v1', 'crates')).toBeUndefined();
    expect(controller.storeFor(def.metadata.name!)).toBeUndefined();
  });

  it('a custom resource with a finalizer of its own holds the CRD, still serving reads, until it lets go', async () => {
    const def = crd(GROUP, { plural: 'boxes', singular: 'box', kind: 'Box' });
    await install(def);
    const store = controller.storeFor(def.metadata.name!)!;
    await store.create('a', cr('Box', 'held', { finalizers: ['example.com/hold'] }), { dryRun: false });
    await store.create('a', cr('Box', 'free'), { dryRun: false });
    await crds.delete(undefined, def.metadata.name!, { dryRun: false });

    const waiting = await eventually('cleanup under way', async () => {
      const c = await read(def.metadata.name!);
      return condition(c, 'Terminating')?.reason === 'InstanceDeletionInProgress' ? c : undefined;
    });
    expect(condition(waiting, 'Terminating')).toMatchObject({
      status: 'True',
      message: 'CustomResource deletion is in progress',
    });
    await eventually('the free one deleted', async () => ((await remaining(def)).length === 1 ? true : undefined));
    // The held one is marked (the controller deletes one by one: it may come after the free one),
    // and the API stays for reads and deletes, not creates.
    const held = await eventually('the held one marked', async () => {
      const obj = await store.get('a', 'held');
      return obj.metadata.deletionTimestamp ? obj : undefined;
    });
    expect(held.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect(catalog.lookup(GROUP, 'v1', 'boxes')).toMatchObject({ terminating: true });
    expect(await read(def.metadata.name!)).toBeDefined();

    await store.update('a', 'held', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }), {
      dryRun: false,
    });
    await eventually('the CRD gone', async () => ((await read(def.metadata.name!)) === undefined ? true : undefined));
    expect(await remaining(def)).toEqual([]);
    expect(catalog.lookup(GROUP, 'v1', 'boxes')).toBeUndefined();
  });

  it('a CRD that never got its names goes without serving anything', async () => {
    await install(crd(GROUP, { plural: 'bins', singular: 'bin', kind: 'Bin' }));
    const loser = crd(GROUP, { plural: 'tubs', singular: 'tub', kind: 'Bin', listKind: 'TubList' });
    const created = await install(loser);
    expect(condition(created, 'NamesAccepted')?.status).toBe('False');
    await crds.delete(undefined, loser.metadata.name!, { dryRun: false });
    await eventually('the CRD gone', async () => ((await read(loser.metadata.name!)) === undefined ? true : undefined));
    expect(catalog.lookup(GROUP, 'v1', 'tubs')).toBeUndefined();
    // The winner is untouched.
    expect(catalog.lookup(GROUP, 'v1', 'bins')).toBeDefined();
  });

  it('another finalizer keeps the CRD after cleanup, which then records InstanceDeletionCompleted', async () => {
    const def = crd(GROUP, { plural: 'pallets', singular: 'pallet', kind: 'Pallet' });
    def.metadata.finalizers = ['example.com/keep'];
    await install(def);
    await controller.storeFor(def.metadata.name!)!.create('a', cr('Pallet', 'p'), { dryRun: false });
    await crds.delete(undefined, def.metadata.name!, { dryRun: false });
    const done = await eventually('cleanup finished', async () => {
      const c = await read(def.metadata.name!);
      return c?.metadata.finalizers?.includes(CRD_CLEANUP_FINALIZER) === false ? c : undefined;
    });
    expect(done.metadata.finalizers).toEqual(['example.com/keep']);
    expect(condition(done, 'Terminating')).toMatchObject({
      status: 'False',
      reason: 'InstanceDeletionCompleted',
      message: 'removed all instances',
    });
    expect(await remaining(def)).toEqual([]);
    // Releasing the last finalizer completes the delete.
    await crds.update(
      undefined,
      def.metadata.name!,
      (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }),
      { dryRun: false },
    );
    await eventually('the CRD gone', async () => ((await read(def.metadata.name!)) === undefined ? true : undefined));
    await eventually('its API gone', async () =>
      catalog.lookup(GROUP, 'v1', 'pallets') === undefined ? true : undefined,
    );
  });
});
