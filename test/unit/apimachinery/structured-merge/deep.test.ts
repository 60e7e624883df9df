// Objects nest as deep as kube's decoders accept (10,000 levels); the walks must not overflow the
// call stack on them (kube's SMD recurses on goroutine stacks that grow; ours use task stacks).
import { describe, expect, it } from 'vitest';
import {
  FieldSet,
  Updater,
  deducedType,
  fieldSetToFieldsV1,
  fieldsV1ToFieldSet,
  makePath,
} from '../../../../apimachinery/structured-merge/index.js';
import { validationErrors } from '../../../../apimachinery/structured-merge/typed.js';

const DEPTH = 10000;

/** `{"a":{"a":...leaf...}}`, `levels` objects deep, built without recursion. */
function nested(levels: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe('deep objects', () => {
  it('are created, updated, applied and recorded 10,000 levels deep', () => {
    const u = new Updater(deducedType);
    expect(validationErrors(deducedType, nested(DEPTH, 1))).toEqual([]);
    const created = u.update(null, nested(DEPTH, 1), 'v1', new Map(), 'creator');
    const leafPath = makePath(...Array.from({ length: DEPTH }, () => 'a'));
    expect(created.managers.get('creator')!.set.has(leafPath)).toBe(true);

    const updated = u.update(created.object, nested(DEPTH, 2), 'v1', created.managers, 'other');
    expect(updated.managers.get('other')!.set.size()).toBe(1);
    expect(() => u.apply(updated.object, nested(DEPTH, 3), 'v1', updated.managers, 'applier', false)).toThrow(
      'conflict with "other"',
    );

    const applied = u.apply(updated.object, nested(DEPTH, 3), 'v1', updated.managers, 'applier', true);
    expect(applied.managers.has('other')).toBe(false);
    const set = applied.managers.get('applier')!.set;
    expect(set.size()).toBe(DEPTH);
    expect(fieldsV1ToFieldSet(fieldSetToFieldsV1(set)).equals(set)).toBe(true);

    // Applying nothing prunes the leaf only the applier owned; the creator keeps the maps above it,
    // and the innermost map, emptied, is left as null (SMD's removal).
    const emptied = u.apply(applied.object, {}, 'v1', applied.managers, 'applier', false);
    expect(emptied.changed).toBe(true);
    expect(emptied.managers.has('applier')).toBe(false);
    expect(emptied.managers.has('creator')).toBe(true);
    let v: unknown = emptied.object;
    let levels = 0;
    while (typeof v === 'object' && v !== null) {
      v = (v as { a: unknown }).a;
      levels++;
    }
    expect([levels, v]).toEqual([DEPTH - 1, null]);
    expect(new FieldSet().union(set).difference(set).empty()).toBe(true);
  });
});
