// kube's field manager (k8s.io/apimachinery/pkg/util/managedfields/internal): metadata.managedFields
// kept for every write, and server-side apply. kube builds it as a chain of managers; here each
// link is a step of `update` or `apply`, in the chain's order:
//   versionCheck, lastAppliedUpdater, lastAppliedManager (kubectl's client-side apply migration),
//   skipNonApplied (tracking starts at creation or at the first apply), capManagers (at most 10
//   Update entries), buildManagerInfo (the manager identifier), managedFieldsUpdater (times),
//   stripMeta (nobody owns apiVersion, kind, metadata.name, ...), then the structured merge.
import { applyConflict, badRequest } from '../errors.js';
import { deeperThan } from '../json.js';
import { gvkString, unstructuredGVK } from '../versions.js';
import { type KubeObject, type JsonValue, isJsonObject } from '../object.js';
import { goJSON } from '../go-json.js';
import {
  type Conflict,
  Conflicts,
  FieldSet,
  STRIPPED_META_FIELDS,
  StructuredMergeError,
  type TypeNode,
  Updater,
  ValidationErrors,
  applyConflictCauses,
  applyConflictMessage,
  call,
  compare,
  makePath,
  pause,
  runTask,
  stripMetaFields,
  toFieldSet,
  type Task,
} from '../structured-merge/index.js';
import {
  type Managed,
  type VersionedSet,
  decodeManagedFields,
  decodeOrEmpty,
  emptyManaged,
  encodeManagedFieldsTask,
  isResetRequest,
  managerIdentifier,
} from './entries.js';

/** The kubectl annotation client-side apply keeps its last configuration in. */
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** DefaultMaxUpdateManagers. */
const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';
const BEFORE_FIRST_APPLY = 'before-first-apply';
/** managedFieldsUpdater's placeholder for the write in progress. */
const CURRENT_OPERATION = 'current-operation';

/**
 * The structured merge's path work grows with the square of an object's depth: a document 10,000
 * levels deep (which this server accepts) would hold the event loop for seconds. Objects deeper
 * than this keep the managed fields they had, and cannot be applied. kube has no such bound; real
 * objects nest a few dozen levels.
 */
const MAX_TRACKED_DEPTH = 256;
/** The same bound for metadata.managedFields, two levels below the object. */
const ENTRIES_MAX_DEPTH = MAX_TRACKED_DEPTH - 2;
const tooDeepToApply = (): Error =>
  badRequest(`server-side apply takes objects nesting at most ${MAX_TRACKED_DEPTH} levels`);

interface FieldManagerScope {
  /** The kind's structure in the request's version. */
  type: TypeNode;
  /** The request's group/version (`v1`, `cache.example.com/v1`). */
  apiVersion: string;
  kind: string;
  /** '' for the main resource. */
  subresource: string;
  /** Top-level fields this endpoint resets, which its writers never own (kube's reset fields). */
  resetFields: readonly string[];
  /** metav1.Time now, for each entry's `time`: the server's clock. */
  now: () => string;
}

export class FieldManager {
  private readonly updater: Updater;
  private readonly now: () => string;

  constructor(private readonly scope: FieldManagerScope) {
    this.updater = new Updater(scope.type, {
      ignoredFields: FieldSet.of(...scope.resetFields.map((f) => makePath(f))),
      maxDepth: MAX_TRACKED_DEPTH,
    });
    this.now = scope.now;
  }

  /**
   * A create, update or patch by `manager`: records what it changed in `obj.metadata.managedFields`
   * (UpdateNoErrors: when that fails, the stored object's entries stay as they were).
   */
  update(obj: KubeObject, live: KubeObject | undefined, manager: string): void {
    runTask(this.updateTask(obj, live, manager));
  }

  /** update as a task: a request's write runs it sliced (runTaskSliced), giving other clients turns. */
  *updateTask(obj: KubeObject, live: KubeObject | undefined, manager: string): Task<void> {
    // An object too deep to track keeps the stored entries. The structured merge's walks find it
    // (the Updater's maxDepth) in all but the entries, which they never see: checked here, first.
    if (
      deeperThan(obj.metadata.managedFields, ENTRIES_MAX_DEPTH) ||
      deeperThan(live?.metadata.managedFields, ENTRIES_MAX_DEPTH)
    ) {
      keepLiveManagedFields(obj, live);
      return;
    }
    yield pause();
    const managed = this.decodeLiveOrNew(obj, live);
    delete obj.metadata.managedFields;
    // Tracking starts when an object is created, or at its first apply: an existing object
    // without entries stays without (unless it is too deep to track, and its entries stay).
    if (managed.fields.size === 0 && live?.metadata.uid) {
      const kept = live.metadata.managedFields !== undefined;
      if (kept && (deeperThan(obj, MAX_TRACKED_DEPTH) || deeperThan(live, MAX_TRACKED_DEPTH)))
        keepLiveManagedFields(obj, live);
      return;
    }
    yield pause();
    try {
      if (live === undefined && managed.fields.size === 0)
        yield* this.recordCreateTask(obj, managed, manager || 'unknown');
      else yield* this.recordUpdateTask(live ? withoutManagedFields(live) : {}, obj, managed, manager || 'unknown');
      yield pause();
      yield* setManagedFieldsTask(obj, managed);
    } catch (err) {
      if (!(err instanceof ValidationErrors || err instanceof StructuredMergeError)) throw err;
      keepLiveManagedFields(obj, live);
    }
  }

  /**
   * A server-side apply of `config` by `manager` over `live` (an empty object when creating):
   * the merged object with its managedFields, or kube's 409 when it would take fields other
   * managers own and `force` is not set.
   */
  apply(live: KubeObject, config: KubeObject, manager: string, force: boolean): KubeObject {
    if (config.apiVersion !== this.scope.apiVersion || config.kind !== this.scope.kind) {
      throw badRequest(`invalid object type: ${gvkString(unstructuredGVK(config))}`);
    }
    if (config.metadata.managedFields !== undefined) throw badRequest('metadata.managedFields must be nil');
    // The configuration's depth: only when the merge's typed check of it fails (toApplyError).
    if (deeperThan(live, MAX_TRACKED_DEPTH)) throw tooDeepToApply();
    let managed = decodeOrEmpty(live.metadata.managedFields);
    let current: KubeObject = withoutManagedFields(live);
    if (managed.fields.size === 0) {
      // Whatever the object holds before its first apply belongs to "before-first-apply": nothing,
      // in an apply that creates (its empty object's metadata is stripped).
      managed = emptyManaged();
      if (Object.keys(current).length > 1 || Object.keys(current.metadata).length > 0)
        runTask(this.recordUpdateTask({}, current, managed, BEFORE_FIRST_APPLY));
    }
    const id = managerIdentifier({
      manager,
      operation: 'Apply',
      ...(this.scope.subresource ? { subresource: this.scope.subresource } : {}),
    });
    let result: { object: KubeObject; fields: Map<string, VersionedSet>; changed: boolean };
    try {
      result = this.mergeApplied(current, config, managed, id, force);
    } catch (err) {
      if (!(err instanceof Conflicts)) throw toApplyError(err, config);
      // kubectl's migration from client-side apply: conflicts on fields its last-applied
      // configuration set, with the values still live, are the applier's own.
      const allowed = manager === 'kubectl' ? this.lastAppliedFields(current) : undefined;
      const remaining = allowed ? err.conflicts.filter((c) => !allowed.has(c.path)) : err.conflicts;
      if (remaining.length > 0) throw conflictError(remaining);
      result = this.mergeApplied(current, config, managed, id, true);
    }
    managed.fields = result.fields;
    if (result.changed) managed.times.set(id, this.now());
    current = result.changed ? result.object : current;
    if (manager === 'kubectl' && current.metadata.annotations?.[LAST_APPLIED_ANNOTATION]) {
      current.metadata.annotations = {
        ...current.metadata.annotations,
        [LAST_APPLIED_ANNOTATION]: lastAppliedOf(config),
      };
    }
    runTask(setManagedFieldsTask(current, managed));
    return current;
  }

  /** decodeLiveOrNew: a subresource write or an unreadable list keeps the stored entries; `[]` resets them. */
  private decodeLiveOrNew(obj: KubeObject, live: KubeObject | undefined): Managed {
    if (this.scope.subresource) return decodeOrEmpty(live?.metadata.managedFields);
    const given = obj.metadata.managedFields;
    if (isResetRequest(given)) return emptyManaged();
    let managed: Managed | undefined;
    try {
      managed = Array.isArray(given) ? decodeManagedFields(given) : undefined;
    } catch {
      managed = undefined;
    }
    return managed && managed.fields.size > 0 ? managed : decodeOrEmpty(live?.metadata.managedFields);
  }

  /** One non-apply write through the chain, into `managed`. */
  private *recordUpdateTask(live: unknown, next: KubeObject, managed: Managed, manager: string): Task<void> {
    const id = managerIdentifier({
      manager,
      operation: 'Update',
      apiVersion: this.scope.apiVersion,
      ...(this.scope.subresource ? { subresource: this.scope.subresource } : {}),
    });
    const { managers } = yield* call(
      this.updater.updateTask(live, next, this.scope.apiVersion, managed.fields, CURRENT_OPERATION),
    );
    yield pause();
    const fields = stripMetaFields(managers, CURRENT_OPERATION);
    const taken = fields.get(CURRENT_OPERATION);
    if (taken) {
      // The write changed something: it is this manager's, at this time.
      fields.delete(CURRENT_OPERATION);
      const previous = fields.get(id);
      fields.set(id, previous ? { ...taken, set: taken.set.union(previous.set) } : taken);
      managed.times.set(id, this.now());
    }
    managed.fields = fields;
    capUpdateManagers(managed);
  }

  /**
   * recordUpdateTask's answer for a create whose request names no managers (every create but a
   * copy of another object's entries): its manager owns what it adds, but the stripped fields,
   * and there is no one to take fields from, nor more than one entry to cap.
   */
  private *recordCreateTask(next: KubeObject, managed: Managed, manager: string): Task<void> {
    const added = yield* call(this.updater.createdTask(next));
    yield pause();
    const set = added.difference(STRIPPED_META_FIELDS);
    if (set.empty()) return;
    const id = managerIdentifier({
      manager,
      operation: 'Update',
      apiVersion: this.scope.apiVersion,
      ...(this.scope.subresource ? { subresource: this.scope.subresource } : {}),
    });
    managed.fields.set(id, { set, applied: false, apiVersion: this.scope.apiVersion });
    managed.times.set(id, this.now());
  }

  private mergeApplied(
    live: KubeObject,
    config: KubeObject,
    managed: Managed,
    id: string,
    force: boolean,
  ): { object: KubeObject; fields: Map<string, VersionedSet>; changed: boolean } {
    const result = this.updater.apply(live, config, this.scope.apiVersion, managed.fields, id, force);
    const fields = stripMetaFields(result.managers, id);
    return { object: result.object as KubeObject, fields, changed: result.changed };
  }

  /** allowedConflictsFromLastApplied: what the last-applied annotation set and the object still holds. */
  private lastAppliedFields(live: KubeObject): FieldSet | undefined {
    const text = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
    if (!text) return undefined;
    try {
      const lastApplied: unknown = JSON.parse(text);
      if (!isJsonObject(lastApplied) || lastApplied['apiVersion'] !== this.scope.apiVersion) return undefined;
      const set = toFieldSet(this.scope.type, lastApplied);
      const diff = compare(this.scope.type, lastApplied, live);
      return set.difference(diff.modified).difference(diff.added).difference(diff.removed);
    } catch {
      return undefined;
    }
  }
}

/** UpdateNoErrors' fallback: the stored object's entries, unchanged. */
function keepLiveManagedFields(obj: KubeObject, live: KubeObject | undefined): void {
  if (live?.metadata.managedFields !== undefined) obj.metadata.managedFields = live.metadata.managedFields;
  else delete obj.metadata.managedFields;
}

/** The object without its managedFields: a shallow copy (the structured merge never mutates its inputs). */
function withoutManagedFields(obj: KubeObject): KubeObject {
  const { managedFields: _managedFields, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function* setManagedFieldsTask(obj: KubeObject, managed: Managed): Task<void> {
  const entries = yield* call(encodeManagedFieldsTask(managed));
  if (entries) obj.metadata.managedFields = entries as unknown as JsonValue[];
  else delete obj.metadata.managedFields;
}

/**
 * capUpdateManagers: past 10 Update entries, the oldest are merged, per version, into an
 * "ancient-changes" entry (the first of a version only becomes the bucket when a second joins it).
 */
function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.fields].filter(([, v]) => !v.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  const seconds = (id: string): number => {
    const t = managed.times.get(id);
    return t ? Math.floor(Date.parse(t) / 1000) : 0;
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i]!;
    const entry = managed.fields.get(id)!;
    const time = managed.times.get(id);
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: entry.apiVersion });
    const first = firstOfVersion.get(entry.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(entry.apiVersion, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      managed.fields.set(bucket, managed.fields.get(first)!);
      managed.fields.delete(first);
    }
    managed.fields.set(bucket, { ...entry, set: entry.set.union(managed.fields.get(bucket)!.set) });
    managed.fields.delete(id);
    managed.times.set(bucket, time);
    length--;
  }
}

/**
 * buildLastApplied: the applied configuration without the annotation, as unstructured JSON encodes
 * it (encoding/json: sorted keys, HTML-safe strings, a newline).
 */
function lastAppliedOf(config: KubeObject): string {
  const annotations = config.metadata.annotations;
  if (!annotations) return `${goJSON(config)}\n`;
  const { [LAST_APPLIED_ANNOTATION]: _dropped, ...rest } = annotations;
  return `${goJSON({ ...config, metadata: { ...config.metadata, annotations: rest } })}\n`;
}

function conflictError(conflicts: readonly Conflict[]): Error {
  return applyConflict(applyConflictCauses(conflicts), applyConflictMessage(conflicts));
}

/**
 * A value the kind's structure cannot walk (a string where a list is, a keyed item without its
 * key): kube's message naming the object (objectGVKNN), as a 400 (kube's is a 500).
 */
function toApplyError(err: unknown, config: KubeObject): unknown {
  // Only a configuration that fails the typed check can be too deep (one that passes had every
  // container entered within the bound), so its depth is looked at only then, and answered first.
  if (err instanceof StructuredMergeError && deeperThan(config, MAX_TRACKED_DEPTH)) return tooDeepToApply();
  const where = `${config.metadata.namespace ?? ''}/${config.metadata.name ?? ''}; ${gvkString(unstructuredGVK(config))}`;
  if (err instanceof StructuredMergeError) return badRequest(`${err.step} (${where}): ${err.cause.message}`);
  if (err instanceof ValidationErrors) return badRequest(err.message);
  return err;
}
