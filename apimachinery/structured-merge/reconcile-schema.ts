// Bringing a manager's field set in line with a schema that changed since it was recorded
// (SMD's typed/reconcile_schema.go): a list or map that became atomic is then owned whole, so
// whoever owned parts of it now owns the field itself and nothing below it.
import { FieldSet, PathCursor, type PathElement } from './fieldpath.js';
import { isUntypedDeducedMap, type TypeNode } from './schema.js';
import { call, runTask, type Task } from './trampoline.js';

/** The reconciled set, or undefined when nothing needed to change. */
export function reconcileFieldSetWithSchema(set: FieldSet, type: TypeNode): FieldSet | undefined {
  const changes = { toRemove: new FieldSet(), toAdd: new FieldSet() };
  runTask(visit(set, type, new PathCursor(), false, changes));
  if (changes.toRemove.empty() && changes.toAdd.empty()) return undefined;
  return set.recursiveDifference(changes.toRemove).union(changes.toAdd);
}

interface Changes {
  toRemove: FieldSet;
  toAdd: FieldSet;
}

/**
 * `set` is what is owned below `path` (undefined if nothing); `isAtomic` says the path itself is
 * owned with nothing below it, which is already how an atomic field is owned.
 */
function* visit(
  set: FieldSet | undefined,
  type: TypeNode,
  path: PathCursor,
  isAtomic: boolean,
  changes: Changes,
): Task<void> {
  if (type.map) {
    const map = type.map;
    // Deduced maps (preserve-unknown-fields without properties) carry no atomic/granular marks.
    if (isUntypedDeducedMap(map)) return;
    if (!isAtomic && map.relationship === 'atomic') {
      if (set !== undefined && set.size() > 0) collapse(path, changes);
      return;
    }
    if (set)
      yield* visitChildren(set, path, changes, (pe) =>
        pe.kind === 'field' ? (map.fields.get(pe.name)?.type ?? map.elementType) : map.elementType,
      );
    return;
  }
  if (type.scalar) return;
  if (type.list) {
    const list = type.list;
    if (!isAtomic && list.relationship === 'atomic') {
      collapse(path, changes);
      return;
    }
    if (set) yield* visitChildren(set, path, changes, () => list.elementType);
  }
}

/** Own the field as a whole: drop it and everything below, then add it back alone. */
function collapse(path: PathCursor, changes: Changes): void {
  path.insertInto(changes.toRemove);
  path.insertInto(changes.toAdd);
}

function* visitChildren(
  set: FieldSet,
  path: PathCursor,
  changes: Changes,
  typeOf: (pe: PathElement) => TypeNode | undefined,
): Task<void> {
  const handle = function* (pe: PathElement, isMember: boolean): Task<void> {
    const t = typeOf(pe);
    // Fields the schema no longer has are left alone.
    if (t === undefined) return;
    const below = set.child(pe);
    yield* call(visit(below, t, path.child(pe), isMember && below === undefined, changes));
  };
  for (const c of set.children) if (!set.hasMember(c.element)) yield* handle(c.element, false);
  for (const m of set.members) yield* handle(m, true);
}
