// Apply conflicts: fields the applier would change that another manager owns. The messages are
// SMD's (merge/conflict.go) and kube's (managedfields/internal/conflict.go NewConflictError).
import { FieldSet, pathString, type Path } from './fieldpath.js';
import { goQuote } from '../quote.js';
import { compareGoStrings } from '../go-sort.js';
import { isJsonObject } from '../object.js';

/** One field another manager owns, which the apply would change. */
export interface Conflict {
  /** The other manager's identifier (for kube, the JSON manager identity). */
  manager: string;
  path: Path;
}

/**
 * The conflicts of a refused apply, managers in sorted order and each manager's fields in field
 * set order (Go's map order is random; this keeps messages stable). The message is SMD's.
 */
export class Conflicts extends Error {
  readonly conflicts: readonly Conflict[];

  constructor(conflicts: readonly Conflict[]) {
    super(smdConflictsMessage(conflicts));
    this.name = 'Conflicts';
    this.conflicts = conflicts;
  }

  /** Every conflicting field, whoever owns it. */
  toSet(): FieldSet {
    return FieldSet.of(...this.conflicts.map((c) => c.path));
  }
}

/** Conflicts from each manager's conflicting fields (SMD's ConflictsFromManagers), sorted. */
export function conflictsFromManagers(sets: ReadonlyMap<string, FieldSet>): Conflict[] {
  const out: Conflict[] = [];
  for (const manager of [...sets.keys()].sort(compareGoStrings))
    sets.get(manager)!.iterate((path) => out.push({ manager, path }));
  return out;
}

/** Paths grouped by manager, managers sorted, paths in the order given. */
function groupByManager(conflicts: readonly Conflict[]): Array<[string, Path[]]> {
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) {
    const paths = byManager.get(c.manager);
    if (paths) paths.push(c.path);
    else byManager.set(c.manager, [c.path]);
  }
  return [...byManager.entries()].sort((a, b) => compareGoStrings(a[0], b[0]));
}

/** SMD's Conflicts.Error: `conflict with "m": .a`, or grouped `conflicts with "m":\n- .a` lines. */
function smdConflictsMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1)
    return `conflict with ${goQuote(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  const lines: string[] = [];
  for (const [manager, paths] of groupByManager(conflicts)) {
    lines.push(`conflicts with ${goQuote(manager)}:`);
    for (const p of paths) lines.push(`- ${pathString(p)}`);
  }
  return lines.join('\n');
}

/** The parts of a managedFields entry a manager identifier carries. */
interface ManagerIdentity {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
  time?: string;
}

/**
 * How kube names a manager in conflict messages (printManager): `"name"`, plus
 * ` with subresource "status"`, plus ` using v1` for Update managers (and ` at <time>` if the
 * identity has a time). A string is decoded as kube's JSON manager identifier; one that is not
 * JSON is printed quoted as is.
 */
export function printManager(manager: string | ManagerIdentity): string {
  let id: ManagerIdentity;
  if (typeof manager === 'string') {
    let decoded: unknown;
    try {
      decoded = JSON.parse(manager);
    } catch {
      return goQuote(manager);
    }
    if (decoded !== null && !isJsonObject(decoded)) return goQuote(manager);
    id = identityFrom(decoded ?? {});
  } else {
    id = manager;
  }
  let text = goQuote(id.manager ?? '');
  if (id.subresource) text += ` with subresource ${goQuote(id.subresource)}`;
  if (id.operation === 'Update') {
    const apiVersion = id.apiVersion ?? '';
    if (!id.time) return `${text} using ${apiVersion}`;
    return `${text} using ${apiVersion} at ${rfc3339UTC(id.time)}`;
  }
  return text;
}

function identityFrom(o: { [key: string]: unknown }): ManagerIdentity {
  const str = (k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
  return {
    manager: str('manager'),
    operation: str('operation'),
    apiVersion: str('apiVersion'),
    subresource: str('subresource'),
    time: str('time'),
  };
}

/** Go's Time.UTC().Format(time.RFC3339): seconds precision, `Z`. */
function rfc3339UTC(time: string): string {
  const d = new Date(time);
  if (Number.isNaN(d.getTime())) return time;
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** kube's apply conflict message: `Apply failed with 1 conflict: conflict with "m" using v1: .spec.size`. */
export function applyConflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1)
    return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  const lines: string[] = [];
  for (const [manager, paths] of groupByManager(conflicts)) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const p of paths) lines.push(`- ${pathString(p)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** kube's details.causes (metav1.StatusCause): one per conflict, in the conflicts' order. */
export function applyConflictCauses(
  conflicts: readonly Conflict[],
): Array<{ reason: 'FieldManagerConflict'; message: string; field: string }> {
  return conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
}
