// The admission chain and what the generic store hands it: mutating then validating plugins, for
// create, update, patch-like read-modify-write, status writes and delete, with kube's attributes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdmissionPlugin, AdmissionChain, type Attributes, type Operation } from '../../../admission/interface.js';
import { namespaceLifecycle } from '../../../admission/namespace-lifecycle.js';
import { forbidden } from '../../../apimachinery/errors.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import { plainEventStrategy as eventStrategy } from '../../helpers/plain-events.js';
import { Store } from '../../../server/registry/store.js';
import type { Storage } from '../../../storage/interface.js';
import { apiError } from '../../helpers/api-error.js';
import { createSqliteFixture } from '../../helpers/sqlite-fixture.js';

/** A plugin that records what each phase saw, copied at the time. */
/** The attributes' data, without the store's decoding for patched objects (a function). */
function dataOf(a: Attributes): Attributes {
  const { defaultPatched: _decoding, ...data } = a;
  return structuredClone(data);
}

function recorder(
  ops: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE'],
): AdmissionPlugin & { seen: string[]; attrs: Attributes[] } {
  const seen: string[] = [];
  const attrs: Attributes[] = [];
  return {
    name: 'Recorder',
    seen,
    attrs,
    handles: (op) => ops.includes(op),
    async admit(a) {
      seen.push(`admit ${a.operation}`);
      attrs.push(dataOf(a));
      if (a.object) a.object.metadata.labels = { ...a.object.metadata.labels, admitted: 'yes' };
    },
    async validate(a) {
      seen.push(`validate ${a.operation}`);
      attrs.push(dataOf(a));
    },
  };
}

describe('AdmissionChain', () => {
  it('runs every mutating plugin in order, then every validating one, only for the operations each handles', async () => {
    const order: string[] = [];
    const plugin = (name: string, ops: Operation[]): AdmissionPlugin => ({
      name,
      handles: (op) => ops.includes(op),
      admit: async () => void order.push(`${name}.admit`),
      validate: async () => void order.push(`${name}.validate`),
    });
    const chain = new AdmissionChain([
      plugin('a', ['CREATE']),
      plugin('b', ['CREATE', 'DELETE']),
      plugin('c', ['DELETE']),
    ]);
    const attrs = { operation: 'CREATE' } as Attributes;
    await chain.admit(attrs);
    await chain.validate(attrs);
    expect(order).toEqual(['a.admit', 'b.admit', 'a.validate', 'b.validate']);
  });

  it('stops at the first plugin that refuses', async () => {
    const refuse: AdmissionPlugin = {
      name: 'no',
      handles: () => true,
      admit: async () => Promise.reject(forbidden('no')),
    };
    const after = recorder();
    const chain = new AdmissionChain([refuse, after]);
    await expect(chain.admit({ operation: 'UPDATE' } as Attributes)).rejects.toMatchObject({ code: 403 });
    expect(after.seen).toEqual([]);
  });
});

describe('NamespaceLifecycle', () => {
  const states: Record<string, { terminating: boolean }> = {
    live: { terminating: false },
    going: { terminating: true },
  };
  const plugin = namespaceLifecycle(async (name) => states[name]);
  // What the cache says and what storage says, apart; every lookup recorded.
  const split = (cache: Record<string, { terminating: boolean }>, stored: Record<string, { terminating: boolean }>) => {
    const lookups: string[] = [];
    let clock = 1_000_000;
    const p = namespaceLifecycle(
      async (name, { live }) => {
        lookups.push(`${live ? 'storage' : 'cache'} ${name}`);
        return (live ? stored : cache)[name];
      },
      () => clock,
    );
    return { plugin: p, lookups, advance: (ms: number) => (clock += ms) };
  };
  const deleteNamespace = (name: string): Attributes =>
    ({
      operation: 'DELETE',
      namespace: '',
      name,
      resource: { group: '', name: 'namespaces' },
      subresource: '',
    }) as Attributes;
  const create = (namespace: string, name = 'e'): Attributes =>
    ({
      operation: 'CREATE',
      namespace,
      name,
      resource: { group: '', name: 'events' },
      object: { metadata: { name } },
    }) as Attributes;

  it.each<[string, Attributes, number | undefined, string | undefined]>([
    ['an existing namespace', create('live'), undefined, undefined],
    ['a cluster-scoped object', create(''), undefined, undefined],
    ['a missing namespace', create('nope'), 404, 'namespaces "nope" not found'],
    [
      'a terminating namespace',
      create('going'),
      403,
      'events "e" is forbidden: unable to create new content in namespace going because it is being terminated',
    ],
    [
      'a terminating namespace, name still to generate',
      create('going', ''),
      403,
      'events is forbidden: unable to create new content in namespace going because it is being terminated',
    ],
  ])('%s', async (_name, attrs, code, message) => {
    const result = await plugin.admit!(attrs).then(
      () => undefined,
      (err: unknown) => err,
    );
    if (code === undefined) expect(result).toBeUndefined();
    else
      expect(
        apiError(() => {
          throw result;
        }).status,
      ).toMatchObject({ code, message });
  });

  it('handles creates, and deletes to note deleted namespaces', () => {
    expect((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as Operation[]).filter((op) => plugin.handles(op))).toEqual([
      'CREATE',
      'DELETE',
    ]);
  });

  it('reads the cache, and storage when the cache has not seen a namespace yet', async () => {
    const s = split({ old: { terminating: false } }, { old: { terminating: false }, fresh: { terminating: false } });
    await s.plugin.admit!(create('old'));
    await s.plugin.admit!(create('fresh'));
    await expect(s.plugin.admit!(create('nowhere'))).rejects.toMatchObject({ status: { code: 404 } });
    expect(s.lookups).toEqual(['cache old', 'cache fresh', 'storage fresh', 'cache nowhere', 'storage nowhere']);
  });

  it("for 30 s after a namespace's deletion, believes storage over a cache that still shows it active (kube's forceLiveLookup)", async () => {
    const s = split(
      { going: { terminating: false }, other: { terminating: false } },
      { going: { terminating: true }, other: { terminating: false } },
    );
    await s.plugin.admit!(create('going'));
    await s.plugin.admit!(deleteNamespace('going'));
    await expect(s.plugin.admit!(create('going'))).rejects.toMatchObject({ status: { code: 403 } });
    // Another namespace, or a deletion seen long enough ago, is read from the cache alone.
    await s.plugin.admit!(create('other'));
    s.advance(30_000);
    await s.plugin.admit!(create('going'));
    expect(s.lookups).toEqual(['cache going', 'cache going', 'storage going', 'cache other', 'cache going']);
  });
});

describe('the store runs admission for every write', () => {
  let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
  let storage: Storage;
  beforeAll(async () => {
    fixture = await createSqliteFixture();
    storage = await fixture.open();
  });
  afterAll(async () => fixture.teardown());

  const USER = { name: 'bob', groups: ['system:authenticated'] };
  const event = (name: string): KubeObject =>
    ({ apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: {} }) as KubeObject;

  it('create: mutating sees the object as sent (before a name is generated), validating sees it prepared', async () => {
    const r = recorder();
    const store = new Store(storage, eventStrategy, new AdmissionChain([r]));
    const created = await store.create(
      'ns1',
      { ...event(''), metadata: { generateName: 'e-' } },
      { dryRun: false, user: USER },
    );
    expect(r.seen).toEqual(['admit CREATE', 'validate CREATE']);
    const [admit, validate] = r.attrs;
    expect(admit).toMatchObject({
      operation: 'CREATE',
      namespace: 'ns1',
      name: '',
      kind: { group: '', name: 'Event' },
      resource: { group: '', name: 'events' },
      subresource: '',
      dryRun: false,
      userInfo: USER,
      oldObject: undefined,
    });
    expect(admit!.object!.metadata.uid).toBeUndefined();
    expect(validate).toMatchObject({
      name: created.metadata.name,
      object: { metadata: { uid: created.metadata.uid } },
    });
    // What the mutating phase changed is stored.
    expect(created.metadata.labels).toEqual({ admitted: 'yes' });
  });

  it('update and status-style writes: the old and new object, the subresource, dry run', async () => {
    const r = recorder();
    const store = new Store(storage, eventStrategy, new AdmissionChain([r]));
    await store.create('ns1', event('u'), { dryRun: false });
    r.seen.length = 0;
    r.attrs.length = 0;
    await store.update('ns1', 'u', (cur) => ({ ...cur, reason: 'Changed' }), {
      dryRun: true,
      subresource: 'status',
      user: USER,
    });
    expect(r.seen).toEqual(['admit UPDATE', 'validate UPDATE']);
    expect(r.attrs[0]).toMatchObject({
      operation: 'UPDATE',
      name: 'u',
      namespace: 'ns1',
      subresource: 'status',
      dryRun: true,
      userInfo: USER,
      object: { reason: 'Changed' },
    });
    expect(r.attrs[0]!.oldObject!.metadata.name).toBe('u');
    expect((r.attrs[0]!.oldObject as Record<string, unknown>)['reason']).toBeUndefined();
  });

  it('delete: validating only, with the stored object as the old one', async () => {
    const r = recorder();
    const store = new Store(storage, eventStrategy, new AdmissionChain([r]));
    await store.create('ns1', event('d'), { dryRun: false });
    r.seen.length = 0;
    r.attrs.length = 0;
    await store.delete('ns1', 'd', { dryRun: false, user: USER });
    expect(r.seen).toEqual(['validate DELETE']);
    expect(r.attrs[0]).toMatchObject({
      operation: 'DELETE',
      name: 'd',
      namespace: 'ns1',
      object: undefined,
      userInfo: USER,
      oldObject: { metadata: { name: 'd' } },
    });
  });

  it('a refusal in the validating phase writes nothing', async () => {
    const refuse: AdmissionPlugin = {
      name: 'no',
      handles: (op) => op === 'DELETE',
      validate: async () => Promise.reject(forbidden('kept')),
    };
    const store = new Store(storage, eventStrategy, new AdmissionChain([refuse]));
    await store.create('ns1', event('kept'), { dryRun: false });
    await expect(store.delete('ns1', 'kept', { dryRun: false })).rejects.toMatchObject({ code: 403 });
    expect((await store.get('ns1', 'kept')).metadata.name).toBe('kept');
  });
});
