// What the field manager records for a write, and what it keeps when an object nests deeper than
// it tracks (256 levels, the object itself the first): the stored entries, unchanged.
import { describe, expect, it } from 'vitest';
import { FieldManager } from '../../../../apimachinery/managed-fields/field-manager.js';
import type { KubeObject } from '../../../../apimachinery/object.js';
import { deducedType } from '../../../../apimachinery/structured-merge/index.js';

const NOW = '2026-11-29T12:00:00Z';
const MAX = 256;

const manager = (): FieldManager =>
  new FieldManager({
    type: deducedType,
    apiVersion: 'v1',
    kind: 'Thing',
    subresource: '',
    resetFields: [],
    now: () => NOW,
  });

/** `{"a":{"a":...1}}`, `levels` objects deep. */
function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

/** A Thing whose whole document nests `depth` containers deep (the object and spec are two of them). */
function thing(depth: number, metadata: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Thing',
    metadata: { name: 'x', ...metadata },
    spec: nested(depth - 1),
  } as KubeObject;
}

/** An entry whose fieldsV1 nests `levels` objects deep below the entry's own. */
function entry(name: string, levels = 1): Record<string, unknown> {
  let fields: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) fields = { 'f:a': fields };
  return { manager: name, operation: 'Update', apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', fieldsV1: fields };
}

const LIVE_ENTRIES = [entry('before')];

/** The stored object an update writes over, with these entries. */
function live(depth = 3, managedFields: unknown = LIVE_ENTRIES): KubeObject {
  return thing(depth, { uid: 'u', managedFields });
}

/** The entry a create of thing(depth) records: every container of spec, and its leaf. */
function created(depth: number): unknown {
  let fields: Record<string, unknown> = {};
  for (let i = 0; i < depth - 1; i++) fields = { '.': {}, 'f:a': fields };
  return [
    {
      manager: 'writer',
      operation: 'Update',
      apiVersion: 'v1',
      time: NOW,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': fields },
    },
  ];
}

describe('FieldManager.update', () => {
  const cases: Array<[string, KubeObject, KubeObject | undefined, unknown]> = [
    // [name, the written object, the stored one, the managedFields written]
    ['a create records its writer', thing(4), undefined, created(4)],
    [`a create ${MAX} levels deep is tracked`, thing(MAX), undefined, created(MAX)],
    [`a create ${MAX + 1} levels deep is not`, thing(MAX + 1), undefined, undefined],
    [
      'a create whose given entries nest too deep is not',
      thing(3, { managedFields: [entry('given', MAX - 3)] }),
      undefined,
      undefined,
    ],
    [
      'a create with given entries just shallow enough uses them',
      thing(2, { managedFields: [entry('given', MAX - 5)] }),
      undefined,
      [entry('given', MAX - 5), ...(created(2) as unknown[])],
    ],
    ['an update too deep keeps the stored entries', thing(MAX + 1), live(), LIVE_ENTRIES],
    ['an update over a stored object too deep keeps its entries', thing(3), live(MAX + 1), LIVE_ENTRIES],
    [
      'an update too deep asking for a reset keeps the stored entries',
      thing(MAX + 1, { managedFields: [] }),
      live(),
      LIVE_ENTRIES,
    ],
    ['an update asking for a reset resets them', thing(3, { managedFields: [] }), live(), undefined],
    [
      'an update too deep over unreadable stored entries keeps them',
      thing(MAX + 1),
      live(3, [{ operation: 'Patch' }]),
      [{ operation: 'Patch' }],
    ],
    ['an update over unreadable stored entries drops them', thing(3), live(3, [{ operation: 'Patch' }]), undefined],
    ['an update of an untracked object too deep stays untracked', thing(MAX + 1), thing(3, { uid: 'u' }), undefined],
    [
      'an update too deep whose given entries nest too deep keeps the stored ones',
      thing(3, { managedFields: [entry('given', MAX)] }),
      live(),
      LIVE_ENTRIES,
    ],
  ];
  it.each(cases)('%s', (_name, obj, stored, want) => {
    manager().update(obj, stored, 'writer');
    expect(obj.metadata.managedFields).toEqual(want);
  });
});

describe("FieldManager.apply by kubectl keeps client-side apply's annotation in step", () => {
  const LAST = 'kubectl.kubernetes.io/last-applied-configuration';
  it.each<[string, Record<string, unknown>, string]>([
    // [name, the applied spec, the annotation written: encoding/json of the config without it]
    [
      'keys sorted',
      { b: 1, a: 2 },
      '{"apiVersion":"v1","kind":"Thing","metadata":{"annotations":{},"name":"x"},"spec":{"a":2,"b":1}}\n',
    ],
    [
      'HTML-safe strings',
      { s: '<a&b>' },
      '{"apiVersion":"v1","kind":"Thing","metadata":{"annotations":{},"name":"x"},"spec":{"s":"\\u003ca\\u0026b\\u003e"}}\n',
    ],
    [
      'int64 past 2^53',
      { n: 9007199254740993n },
      '{"apiVersion":"v1","kind":"Thing","metadata":{"annotations":{},"name":"x"},"spec":{"n":9007199254740993}}\n',
    ],
  ])('%s', (_name, spec, want) => {
    const stored = {
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: { name: 'x', uid: 'u', annotations: { [LAST]: '{}' } },
    } as KubeObject;
    const config = {
      apiVersion: 'v1',
      kind: 'Thing',
      metadata: { name: 'x', annotations: { [LAST]: 'old' } },
      spec,
    } as KubeObject;
    const applied = manager().apply(stored, config, 'kubectl', true);
    expect(applied.metadata.annotations?.[LAST]).toBe(want);
    // The applied configuration itself is left as it was.
    expect(config.metadata.annotations?.[LAST]).toBe('old');
  });
});

describe('an apply that creates', () => {
  const freeze = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) return;
    Object.freeze(v);
    for (const x of Object.values(v)) freeze(x);
  };

  it('records the applier alone, and only reads its configuration', () => {
    const config = thing(4, { labels: { a: 'b' } });
    freeze(config);
    const applied = manager().apply({ metadata: {} }, config, 'kubectl', false);
    expect(applied.metadata.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: NOW,
        fieldsType: 'FieldsV1',
        // Deduced maps' members are owned as members too ('.').
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
          'f:spec': { '.': {}, 'f:a': { '.': {}, 'f:a': { '.': {}, 'f:a': {} } } },
        },
      },
    ]);
  });

  it(`refuses a configuration deeper than ${MAX} levels`, () => {
    expect(() => manager().apply({ metadata: {} }, thing(MAX + 1), 'kubectl', false)).toThrow(
      `server-side apply takes objects nesting at most ${MAX} levels`,
    );
    expect(() => manager().apply({ metadata: {} }, thing(MAX), 'kubectl', false)).not.toThrow();
  });
});
