// Who owns which fields across writes (SMD's merge/update.go Updater).
//
// A non-apply write (create, update, patch) makes its manager own what it changed, and takes
// those fields from everyone else; it never conflicts. An apply merges the configuration into
// the object, makes the applier own exactly what the configuration sets, removes what the
// applier applied last time and nobody owns any more, and is refused with Conflicts when it would
// change a field someone else owns, unless forced (then it takes the field).
//
// One version at a time: entries keep their apiVersion, but objects are never converted, so
// every manager's fields are read against the same schema (what a CRD without conversion does).
import { compareTypedTask, excludeFields, type Comparison } from './compare-values.js';
import { Conflicts, conflictsFromManagers } from './conflicts.js';
import { FieldSet } from './fieldpath.js';
import { mergeValues } from './merge-values.js';
import { reconcileFieldSetWithSchema } from './reconcile-schema.js';
import { removeItems } from './remove-items.js';
import type { TypeNode } from './schema.js';
import { toFieldSet } from './to-field-set.js';
import { ValidationErrors } from './typed-helpers.js';
import { call, pause, runTask, type Task } from './trampoline.js';
import { validateCreatedTask, validationErrorsTask } from './validate.js';
import { isEmptyObject, valuesEqual } from './values.js';
import { isJsonObject } from '../object.js';

/** What one manager owns, and how it got it. */
export interface VersionedFieldSet {
  set: FieldSet;
  /** Whether the manager last wrote by apply. */
  applied: boolean;
  apiVersion: string;
}

/** Manager identifier to what it owns. Never contains empty sets after an update or apply. */
export type ManagedFields = ReadonlyMap<string, VersionedFieldSet>;

interface UpdaterOptions {
  /**
   * Fields this endpoint ignores (kube's reset fields, e.g. `.status` on a main resource with a
   * status subresource): nobody gains or loses them through writes here.
   */
  ignoredFields?: FieldSet;
  /** Objects nesting deeper than this (the object itself is level 1) do not fit the type. */
  maxDepth?: number;
}

interface UpdateResult {
  object: unknown;
  managers: Map<string, VersionedFieldSet>;
}

interface ApplyResult extends UpdateResult {
  /** False when the apply left the object as it was (then `object` is the live object). */
  changed: boolean;
}

/**
 * A value that does not fit the type, or a step that failed on one. `step` is kube's wording
 * (`failed to create typed patch object`, `failed to merge config`, ...); kube also names the
 * object after the word "object" (`(ns/name; gvk)`), which this layer does not know.
 */
export class StructuredMergeError extends Error {
  readonly step: string;
  override readonly cause: ValidationErrors;

  constructor(step: string, cause: ValidationErrors) {
    super(`${step}: ${cause.message}`);
    this.name = 'StructuredMergeError';
    this.step = step;
    this.cause = cause;
  }
}

/** Field ownership bookkeeping for objects of one type. */
export class Updater {
  constructor(
    readonly type: TypeNode,
    private readonly options: UpdaterOptions = {},
  ) {}

  /**
   * Records a non-apply write of `next` over `live` by `manager` (`live` is null on create).
   * Returns `next` and the new managers; the input map is left alone.
   */
  update(live: unknown, next: unknown, apiVersion: string, managers: ManagedFields, manager: string): UpdateResult {
    return runTask(this.updateTask(live, next, apiVersion, managers, manager));
  }

  /** update as a task, for runs that are sliced; `yield pause()` between steps lets them stop there. */
  *updateTask(
    live: unknown,
    next: unknown,
    apiVersion: string,
    managers: ManagedFields,
    manager: string,
  ): Task<UpdateResult> {
    yield* this.checkTask(live, true, 'failed to convert live object to smd typed');
    const compared = yield* call(this.changesTask(live, next));
    const reconciled = this.reconcile(managers);
    yield pause();
    const { managers: out, comparison } = yield* this.takeOwnershipTask(compared, reconciled, manager, true);
    const previous = out.get(manager)?.set ?? new FieldSet();
    let set = previous.difference(comparison.removed);
    yield pause();
    set = set.union(comparison.modified);
    yield pause();
    set = set.union(comparison.added);
    yield pause();
    if (this.options.ignoredFields) set = set.recursiveDifference(this.options.ignoredFields);
    if (set.empty()) out.delete(manager);
    else out.set(manager, { set, applied: false, apiVersion });
    return { object: next, managers: out };
  }

  /**
   * update's answer for a create (an empty live object) when no manager owns anything yet: the
   * manager owns what `next` adds, but the ignored fields, and takes nothing from anyone, so none
   * of update's steps over the managers' sets is needed. Throws as update does.
   */
  *createdTask(next: { [key: string]: unknown }): Task<FieldSet> {
    const options = { allowDuplicates: true, maxDepth: this.options.maxDepth };
    const { errors, added } = yield* call(validateCreatedTask(this.type, next, options));
    if (errors.length > 0)
      throw new StructuredMergeError('failed to convert new object to smd typed', new ValidationErrors(errors));
    return this.options.ignoredFields ? added.recursiveDifference(this.options.ignoredFields) : added;
  }

  /**
   * Applies `config` over `live` for `manager`. Throws Conflicts when another manager owns a
   * field the apply would change, unless `force`.
   */
  apply(
    live: unknown,
    config: unknown,
    apiVersion: string,
    managers: ManagedFields,
    manager: string,
    force: boolean,
  ): ApplyResult {
    this.check(live, true, 'failed to create typed live object');
    this.check(config, false, 'failed to create typed patch object');
    const working = new Map(this.reconcile(managers));
    let merged: unknown;
    try {
      merged = mergeValues(this.type, live, config);
    } catch (err) {
      throw wrap('failed to merge config', err);
    }
    const lastSet = working.get(manager);
    let set: FieldSet;
    try {
      set = toFieldSet(this.type, config);
    } catch (err) {
      throw wrap('failed to get field set', err);
    }
    if (this.options.ignoredFields) set = set.recursiveDifference(this.options.ignoredFields);
    working.set(manager, { set, applied: true, apiVersion });
    let pruned: unknown;
    try {
      pruned = this.prune(merged, working, lastSet);
    } catch (err) {
      throw wrap('failed to prune fields', err);
    }
    // What the apply changed is only taken from, or conflicts with, other managers: with none (an
    // apply that creates, or the sole applier again) the comparison has no one to act on.
    const others = [...working.keys()].some((name) => name !== manager);
    const out = others
      ? runTask(this.takeOwnershipTask(runTask(this.compareTask(live, pruned)), working, manager, force)).managers
      : withoutEmptySets(working);
    const changed = !valuesEqual(live, pruned);
    return { object: changed ? pruned : live, managers: out, changed };
  }

  /** Validates as kube's type converter does before any step; `step` is kube's wording. */
  private check(value: unknown, allowDuplicates: boolean, step: string): void {
    runTask(this.checkTask(value, allowDuplicates, step));
  }

  private *checkTask(value: unknown, allowDuplicates: boolean, step: string): Task<void> {
    const errs = yield* call(
      validationErrorsTask(this.type, value, { allowDuplicates, maxDepth: this.options.maxDepth }),
    );
    if (errs.length > 0) throw new StructuredMergeError(step, new ValidationErrors(errs));
  }

  /**
   * What a non-apply write of `next` changes of `live`, once `next` is checked. A create's (`live`
   * empty) is found in the check's own walk: all it can do is add.
   */
  private *changesTask(live: unknown, next: unknown): Task<Comparison> {
    const step = 'failed to convert new object to smd typed';
    if (isJsonObject(live) && isEmptyObject(live) && isJsonObject(next)) {
      const options = { allowDuplicates: true, maxDepth: this.options.maxDepth };
      const { errors, added } = yield* call(validateCreatedTask(this.type, next, options));
      if (errors.length > 0) throw new StructuredMergeError(step, new ValidationErrors(errors));
      return { added, modified: new FieldSet(), removed: new FieldSet() };
    }
    yield* this.checkTask(next, true, step);
    return yield* call(this.compareTask(live, next));
  }

  private *compareTask(live: unknown, next: unknown): Task<Comparison> {
    try {
      return yield* call(compareTypedTask(this.type, live, next));
    } catch (err) {
      throw wrap('failed to compare objects', err);
    }
  }

  /** Every manager's set adjusted to schema changes (atomic fields owned whole). */
  private reconcile(managers: ManagedFields): Map<string, VersionedFieldSet> {
    const out = new Map<string, VersionedFieldSet>();
    for (const [name, entry] of managers) {
      const set = reconcileFieldSetWithSchema(entry.set, this.type);
      out.set(name, set ? { ...entry, set } : entry);
    }
    return out;
  }

  /**
   * SMD's Updater.update: the others lose what the write (`compared`, the write against the live
   * object) changed and removed; when not forced, changing what another manager owns is a conflict.
   */
  private *takeOwnershipTask(
    compared: Comparison,
    managers: ManagedFields,
    manager: string,
    force: boolean,
  ): Task<{ managers: Map<string, VersionedFieldSet>; comparison: Comparison }> {
    yield pause();
    const comparison = excludeFields(compared, this.options.ignoredFields);
    yield pause();
    const changed = comparison.modified.union(comparison.added);
    yield pause();
    const conflicts = new Map<string, FieldSet>();
    for (const [name, entry] of managers) {
      if (name === manager) continue;
      const conflictSet = entry.set.intersection(changed);
      if (!conflictSet.empty()) conflicts.set(name, conflictSet);
    }
    if (!force && conflicts.size > 0) throw new Conflicts(conflictsFromManagers(conflicts));

    const out = new Map<string, VersionedFieldSet>();
    for (const [name, entry] of managers) {
      let set = entry.set;
      if (name !== manager) {
        const lost = conflicts.get(name);
        if (lost) set = set.difference(lost);
        if (!comparison.removed.empty()) set = set.difference(comparison.removed);
      }
      if (!set.empty()) out.set(name, set === entry.set ? entry : { ...entry, set });
    }
    return { managers: out, comparison };
  }

  /**
   * SMD's prune: drops fields, list and map items that the applier applied last time, did not
   * apply now, and nobody else owns.
   */
  private prune(merged: unknown, managers: ManagedFields, lastSet: VersionedFieldSet | undefined): unknown {
    if (lastSet === undefined || lastSet.set.empty()) return merged;
    const named = (s: FieldSet): FieldSet => s.ensureNamedFieldsAreMembers(this.type);
    let pruned = removeItems(this.type, merged, named(lastSet.set));

    // Put back whatever someone (the applier's new configuration included) still owns.
    let owned = new FieldSet();
    for (const entry of managers.values()) owned = owned.union(entry.set);
    const mergedSet = named(toFieldSet(this.type, merged));
    pruned = removeItems(
      this.type,
      merged,
      mergedSet.difference(named(toFieldSet(this.type, pruned)).union(named(owned))),
    );

    // Only remove what the applier did own: fields nobody owned, or updaters own, come back.
    const prunedSet = named(toFieldSet(this.type, pruned));
    return removeItems(this.type, merged, mergedSet.difference(prunedSet).intersection(named(lastSet.set)));
  }
}

/** The managers that own something, as takeOwnership leaves them. */
function withoutEmptySets(managers: ManagedFields): Map<string, VersionedFieldSet> {
  const out = new Map<string, VersionedFieldSet>();
  for (const [name, entry] of managers) if (!entry.set.empty()) out.set(name, entry);
  return out;
}

function wrap(step: string, err: unknown): unknown {
  return err instanceof ValidationErrors ? new StructuredMergeError(step, err) : err;
}
