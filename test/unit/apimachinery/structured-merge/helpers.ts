// Test helpers: SMD's schema YAML as TypeNodes, SMD's path shorthands, and a runner for the
// operation tables of SMD's merge tests (internal/fixture).
import { parse } from 'yaml';
import { expect } from 'vitest';
import {
  Conflicts,
  FieldSet,
  Updater,
  deducedType,
  keyElement,
  makePath,
  pathString,
  untypedAtomicType,
  valueElement,
  type ListRelationship,
  type ManagedFields,
  type Path,
  type PathElement,
  type ScalarKind,
  type StructField,
  type TypeNode,
  type VersionedFieldSet,
} from '../../../../apimachinery/structured-merge/index.js';

// ---- SMD shorthands: _P, _KBF, _V, _NS ----

export const P = (...parts: Array<string | number | PathElement>): Path => makePath(...parts);
export const V = (v: unknown): PathElement => valueElement(v);
/** KeyByFields("name", "a", "port", 80). */
export const KBF = (...nameValues: unknown[]): PathElement => {
  const fields: Array<[string, unknown]> = [];
  for (let i = 0; i < nameValues.length; i += 2) fields.push([nameValues[i] as string, nameValues[i + 1]]);
  return keyElement(fields);
};
export const NS = (...paths: Path[]): FieldSet => FieldSet.of(...paths);

// ---- YAML objects written as in SMD's tests (indented by tabs) ----

/** Parses a YAML document after removing the indentation its first line has (FixTabsOrDie). */
export function yamlObject(text: string): unknown {
  const lines = text.split('\n');
  if (lines[0]!.trim() === '' && lines.length > 1) lines.shift();
  const indent = /^\s*/.exec(lines[0]!)![0];
  const body = lines.map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart())).join('\n');
  const v: unknown = parse(body);
  return v === undefined ? null : v;
}

// ---- SMD schema YAML ----

interface YamlTypeRef {
  namedType?: string;
  scalar?: string;
  list?: YamlList;
  map?: YamlMap;
  elementRelationship?: string;
}
interface YamlList {
  elementType?: YamlTypeRef;
  elementRelationship?: string;
  keys?: string[];
}
interface YamlMap {
  fields?: Array<{ name: string; type: YamlTypeRef; default?: unknown }>;
  elementType?: YamlTypeRef;
  elementRelationship?: string;
}
interface YamlTypeDef extends YamlTypeRef {
  name: string;
}

const BUILTIN: Record<string, TypeNode> = { __untyped_atomic_: untypedAtomicType, __untyped_deduced_: deducedType };

/** The type named `root` of an SMD schema written in SMD's YAML (`types: [...]`). */
export function smdSchema(text: string, root: string): TypeNode {
  const doc = parse(text) as { types: YamlTypeDef[] };
  const named = new Map<string, TypeNode>();
  for (const def of doc.types) if (!BUILTIN[def.name]) named.set(def.name, {});
  const fixups: Array<() => void> = [];

  const scalarKind = (s: string): ScalarKind => (s === 'numeric' || s === 'string' || s === 'boolean' ? s : 'untyped');
  const listRel = (rel: string | undefined, keys: string[] | undefined): ListRelationship =>
    rel === 'associative' ? (keys && keys.length > 0 ? 'map' : 'set') : 'atomic';

  const atom = (a: YamlTypeRef, into: TypeNode): void => {
    if (a.scalar) into.scalar = scalarKind(a.scalar);
    if (a.list) {
      const l = a.list;
      into.list = {
        elementType: ref(l.elementType),
        relationship: listRel(l.elementRelationship, l.keys),
        keys: l.keys ?? [],
      };
    }
    if (a.map) {
      const m = a.map;
      const fields = new Map<string, StructField>();
      for (const f of m.fields ?? [])
        fields.set(f.name, f.default === undefined ? { type: ref(f.type) } : { type: ref(f.type), default: f.default });
      into.map = {
        fields,
        elementType: m.elementType ? ref(m.elementType) : undefined,
        relationship: m.elementRelationship === 'atomic' ? 'atomic' : 'granular',
      };
    }
  };

  function ref(r: YamlTypeRef | undefined): TypeNode {
    if (r === undefined) return {};
    let base: TypeNode;
    if (r.namedType) {
      const n = BUILTIN[r.namedType] ?? named.get(r.namedType);
      if (!n) throw new Error(`unknown type ${r.namedType}`);
      base = n;
    } else {
      base = {};
      atom(r, base);
    }
    const rel = r.elementRelationship;
    if (rel === undefined) return base;
    // An override on the reference: a copy of the named type, filled once every type is.
    const copy: TypeNode = {};
    fixups.push(() => {
      if (base.map) copy.map = { ...base.map, relationship: rel === 'atomic' ? 'atomic' : 'granular' };
      if (base.list) copy.list = { ...base.list, relationship: listRel(rel, base.list.keys as string[]) };
    });
    return copy;
  }

  for (const def of doc.types) if (!BUILTIN[def.name]) atom(def, named.get(def.name)!);
  for (const f of fixups) f();
  const out = BUILTIN[root] ?? named.get(root);
  if (!out) throw new Error(`no type ${root}`);
  return out;
}

// ---- Operation tables (SMD's fixture.TestCase) ----

export type Op =
  | { apply: string; manager: string; apiVersion?: string; object: string; conflicts?: Array<[string, Path]> }
  | { forceApply: string; manager: string; apiVersion?: string; object: string }
  | { update: string; manager: string; apiVersion?: string; object: string }
  /** SMD's ChangeParser: the schema changes between writes (CRD schema edits). */
  | { changeType: TypeNode; apiVersion?: undefined };

export const apply = (manager: string, object: string, apiVersion = 'v1', conflicts?: Array<[string, Path]>): Op => ({
  apply: 'apply',
  manager,
  apiVersion,
  object,
  conflicts,
});
export const forceApply = (manager: string, object: string, apiVersion = 'v1'): Op => ({
  forceApply: 'forceApply',
  manager,
  apiVersion,
  object,
});
export const update = (manager: string, object: string, apiVersion = 'v1'): Op => ({
  update: 'update',
  manager,
  apiVersion,
  object,
});
export const changeType = (type: TypeNode): Op => ({ changeType: type });

export interface OpsCase {
  name: string;
  ops: Op[];
  /** Expected live object (YAML), compared ignoring key order but not list order. */
  object?: string;
  /** Expected managers: name -> [apiVersion, paths] (and `applied`, when the case pins it). */
  managed?: Record<string, { apiVersion: string; paths: Path[]; applied?: boolean }>;
}

export interface State {
  live: unknown;
  managers: Map<string, VersionedFieldSet>;
}

/** Runs a case's operations, checking expected conflicts on the way; returns the final state. */
export function runOps(type: TypeNode, ops: Op[], updater = new Updater(type)): State {
  let live: unknown = null;
  let managers: ManagedFields = new Map();
  for (const op of ops) {
    if ('changeType' in op) {
      updater = new Updater(op.changeType);
      continue;
    }
    const version = op.apiVersion ?? 'v1';
    const obj = yamlObject(op.object);
    if ('update' in op) {
      const r = updater.update(live, obj, version, managers, op.manager);
      live = r.object;
      managers = r.managers;
    } else if ('forceApply' in op) {
      const r = updater.apply(live, obj, version, managers, op.manager, true);
      live = r.object;
      managers = r.managers;
    } else {
      try {
        const r = updater.apply(live, obj, version, managers, op.manager, false);
        live = r.object;
        managers = r.managers;
        expect(op.conflicts ?? [], 'expected conflicts').toEqual([]);
      } catch (err) {
        if (!(err instanceof Conflicts) || op.conflicts === undefined) throw err;
        const got = err.conflicts.map((c) => `${c.manager} ${pathString(c.path)}`).sort();
        const want = op.conflicts.map(([m, p]) => `${m} ${pathString(p)}`).sort();
        expect(got).toEqual(want);
      }
    }
  }
  return { live, managers: new Map(managers) };
}

/** Runs a case and checks the final object and managers as SMD's fixture does. */
export function checkCase(type: TypeNode, tc: OpsCase, updater?: Updater): State {
  const state = runOps(type, tc.ops, updater);
  if (tc.object !== undefined) expect(state.live).toEqual(yamlObject(tc.object));
  if (tc.managed !== undefined) {
    expect([...state.managers.keys()].sort()).toEqual(Object.keys(tc.managed).sort());
    for (const [name, want] of Object.entries(tc.managed)) {
      const got = state.managers.get(name)!;
      expect(got.apiVersion, `apiVersion of ${name}`).toBe(want.apiVersion);
      expect(got.set.toString(), `fields of ${name}`).toBe(FieldSet.of(...want.paths).toString());
      expect(got.set.equals(FieldSet.of(...want.paths))).toBe(true);
      if (want.applied !== undefined) expect(got.applied, `applied of ${name}`).toBe(want.applied);
    }
  }
  for (const [name, entry] of state.managers) expect(entry.set.empty(), `empty set for ${name}`).toBe(false);
  return state;
}
