// metadata.managedFields on the wire and as the field manager works on it: one entry per manager,
// operation (and, for updates, version and subresource), keyed by kube's manager identifier.
// k8s.io/apimachinery/pkg/util/managedfields/internal/managedfields.go.
import { isJsonObject, type JsonValue } from '../object.js';
import type { FieldSet } from '../structured-merge/fieldpath.js';
import { fieldSetToFieldsV1Task, fieldsV1ToFieldSet } from '../structured-merge/fields-v1.js';
import { call, type Task } from '../structured-merge/trampoline.js';

type Operation = 'Apply' | 'Update';

/** metav1.ManagedFieldsEntry, its keys in Go's field order (the order kube writes them). */
interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: JsonValue;
  subresource?: string;
}

/** What one manager owns: SMD's VersionedSet. */
export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** The field manager's working form: sets and times by manager identifier. */
export interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
}

export const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

/** Who a manager is, in the form kube keys its sets by: the entry without fields or time (and without apiVersion for an applier). */
interface ManagerInfo {
  manager: string;
  operation: Operation;
  apiVersion?: string;
  subresource?: string;
}

/**
 * BuildManagerIdentifier: the JSON of the entry without fieldsType, fieldsV1 and time, and for an
 * applier without apiVersion, so one applier is one manager whatever version it applies in.
 */
export function managerIdentifier(info: ManagerInfo): string {
  const apiVersion = info.operation !== 'Apply' && info.apiVersion ? info.apiVersion : '';
  const subresource = info.subresource ?? '';
  // Kept as the parsed ones are: every write asks for its manager's, from the same few managers.
  const key = `${info.operation}${info.manager.length}:${info.manager}${apiVersion.length}:${apiVersion}${subresource}`;
  let id = identifiers.get(key);
  if (id === undefined) {
    const entry: ManagerInfo = { manager: info.manager, operation: info.operation };
    if (apiVersion) entry.apiVersion = apiVersion;
    if (subresource) entry.subresource = subresource;
    id = JSON.stringify(entry);
    if (identifiers.size >= MAX_PARSED_IDENTIFIERS) identifiers.clear();
    identifiers.set(key, id);
  }
  return id;
}

/** Identifiers by their parts: the operation (Apply or Update), manager and apiVersion length-prefixed, the subresource. */
const identifiers = new Map<string, string>();

/** Identifiers parsed, kept: a server sees few managers, and encodes their entries at every write. */
const parsedIdentifiers = new Map<string, Readonly<ManagerInfo>>();
const MAX_PARSED_IDENTIFIERS = 1024;

function parseManagerIdentifier(id: string): Readonly<ManagerInfo> {
  let info = parsedIdentifiers.get(id);
  if (info === undefined) {
    if (parsedIdentifiers.size >= MAX_PARSED_IDENTIFIERS) parsedIdentifiers.clear();
    info = JSON.parse(id) as ManagerInfo;
    parsedIdentifiers.set(id, info);
  }
  return info;
}

/** isResetManagedFields: an empty list, or one empty entry, asks for the managed fields to be reset. */
export function isResetRequest(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && isJsonObject(entries[0]) && Object.keys(entries[0]).length === 0;
}

/** DecodeManagedFields, with its error texts. */
export function decodeManagedFields(entries: readonly unknown[]): Managed {
  const managed = emptyManaged();
  entries.forEach((raw, i) => {
    const entry = (isJsonObject(raw) ? raw : {}) as ManagedFieldsEntry;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update')
      throw new Error('operation must be `Apply` or `Update`');
    if (!entry.apiVersion) throw new Error('apiVersion must not be empty');
    if (entry.fieldsType === undefined || entry.fieldsType === '')
      throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (entry.fieldsType !== 'FieldsV1')
      throw new Error(`invalid fieldsType "${entry.fieldsType}" in managed fields entry ${i}`);
    const id = managerIdentifier({
      manager: entry.manager ?? '',
      operation: entry.operation,
      apiVersion: entry.apiVersion,
      ...(entry.subresource ? { subresource: entry.subresource } : {}),
    });
    managed.fields.set(id, {
      set: fieldsV1ToFieldSet(entry.fieldsV1 ?? {}),
      apiVersion: entry.apiVersion,
      applied: entry.operation === 'Apply',
    });
    managed.times.set(id, entry.time);
  });
  return managed;
}

/** The managed fields of an object, or none when they do not decode (kube then falls back the same way). */
export function decodeOrEmpty(entries: unknown): Managed {
  if (!Array.isArray(entries)) return emptyManaged();
  try {
    return decodeManagedFields(entries);
  } catch {
    return emptyManaged();
  }
}

/** encodeManagedFields as a task, for runs that are sliced. */
export function* encodeManagedFieldsTask(managed: Managed): Task<ManagedFieldsEntry[] | undefined> {
  if (managed.fields.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, versioned] of managed.fields) {
    const info = parseManagerIdentifier(id);
    const entry: ManagedFieldsEntry = {
      manager: info.manager,
      operation: versioned.applied ? 'Apply' : info.operation,
      apiVersion: versioned.apiVersion,
    };
    const time = managed.times.get(id);
    if (time) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = (yield* call(fieldSetToFieldsV1Task(versioned.set))) as unknown as JsonValue;
    if (info.subresource) entry.subresource = info.subresource;
    if (!entry.manager) delete entry.manager;
    entries.push(entry);
  }
  const seconds = (t: string | undefined): number => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort(
    (p, q) =>
      cmp(p.operation ?? '', q.operation ?? '') ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager ?? '', q.manager ?? '') ||
      cmp(p.apiVersion ?? '', q.apiVersion ?? '') ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
}
