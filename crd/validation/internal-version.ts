// The v1 object as kube's internal version sees it: read from untrusted JSON ('' and [] for what
// is absent or of the wrong type), with the schema, subresources and printer columns every version
// shares moved up to the spec, as kube's v1-to-internal conversion moves them.
import type { ResourceNames } from '../../apimachinery/apis/apiextensions.js';
import { isJsonObject } from '../../apimachinery/object.js';

export type Rec = Record<string, unknown>;

export type Names = ResourceNames;

export interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning: string | undefined;
  /** Whether the v1 object had a schema for this version (before hoisting). */
  schemaPresent: boolean;
  /** Per-version fields, cleared when hoisted to the spec. */
  schema: Rec | undefined;
  subresources: Rec | undefined;
  columns: unknown[];
}

export interface Conversion {
  strategy: string;
  clientConfig: Rec | undefined;
  reviewVersions: string[];
}

export interface Spec {
  group: string;
  scope: string;
  names: Names;
  versions: Version[];
  /** Kube's deprecated spec.version: the first version's name. */
  version: string;
  /** Hoisted per-version fields, when all versions agree. */
  validation: Rec | undefined;
  subresources: Rec | undefined;
  columns: unknown[];
  conversion: Conversion | undefined;
  preserveUnknownFields: boolean;
  /** spec.versions as sent, for the errors that print the whole list. */
  rawVersions: unknown[];
}

export const isAbsent = (v: unknown): boolean => v === undefined || v === null;
export const rec = (v: unknown): Rec | undefined => (isJsonObject(v) ? v : undefined);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const strings = (v: unknown): string[] => list(v).map(str);

/** Names from untrusted JSON, with '' and [] for what is absent or of the wrong type. */
export function readNames(v: unknown): Names {
  const n = rec(v) ?? {};
  return {
    plural: str(n['plural']),
    singular: str(n['singular']),
    kind: str(n['kind']),
    listKind: str(n['listKind']),
    shortNames: strings(n['shortNames']),
    categories: strings(n['categories']),
  };
}

export function readSpec(v: unknown): Spec {
  const s = rec(v) ?? {};
  const versions: Version[] = list(s['versions']).map((raw) => {
    const ver = rec(raw) ?? {};
    const schema = rec(ver['schema']);
    return {
      name: str(ver['name']),
      served: ver['served'] === true,
      storage: ver['storage'] === true,
      deprecated: ver['deprecated'] === true,
      deprecationWarning: typeof ver['deprecationWarning'] === 'string' ? ver['deprecationWarning'] : undefined,
      schemaPresent: rec(schema?.['openAPIV3Schema']) !== undefined,
      schema,
      subresources: rec(ver['subresources']),
      columns: list(ver['additionalPrinterColumns']),
    };
  });
  const spec: Spec = {
    group: str(s['group']),
    scope: str(s['scope']),
    names: readNames(s['names']),
    versions,
    version: versions[0]?.name ?? '',
    validation: undefined,
    subresources: undefined,
    columns: [],
    conversion: readConversion(s['conversion']),
    preserveUnknownFields: s['preserveUnknownFields'] === true,
    rawVersions: list(s['versions']),
  };
  hoistIdenticalVersionFields(spec);
  return spec;
}

/** Kube's v1-to-internal conversion moves fields all versions share up to the spec. */
function hoistIdenticalVersionFields(spec: Spec): void {
  const [first] = spec.versions;
  if (!first) return;
  if (spec.versions.every((v) => semanticEqual(v.schema, first.schema))) {
    spec.validation = first.schema;
    for (const v of spec.versions) v.schema = undefined;
  }
  if (spec.versions.every((v) => semanticEqual(v.subresources, first.subresources))) {
    spec.subresources = first.subresources;
    for (const v of spec.versions) v.subresources = undefined;
  }
  if (spec.versions.every((v) => semanticEqual(v.columns, first.columns))) {
    spec.columns = first.columns;
    for (const v of spec.versions) v.columns = [];
  }
}

function readConversion(v: unknown): Conversion | undefined {
  const c = rec(v);
  if (!c) return undefined;
  const webhook = rec(c['webhook']);
  return {
    strategy: str(c['strategy']),
    clientConfig: rec(webhook?.['clientConfig']),
    reviewVersions: strings(webhook?.['conversionReviewVersions']),
  };
}

/**
 * Go's semantic equality on decoded JSON: null and absent are the same, and so are an empty list
 * and an absent one (Go compares nil and empty slices equal); an empty object is not absent.
 * Schemas carry defaults and examples of any depth: pairs wait on a stack, not the call stack.
 */
function semanticEqual(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown => (isAbsent(v) || (Array.isArray(v) && v.length === 0) ? undefined : v);
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const y = norm(pending.pop());
    const x = norm(pending.pop());
    // The same value: a version is compared with the first, itself included.
    if (x === y) continue;
    if (x === undefined || y === undefined) return false;
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push(x[i], y[i]);
      continue;
    }
    const rx = rec(x);
    const ry = rec(y);
    if (!rx || !ry) return false;
    for (const k of Object.keys(rx)) pending.push(rx[k], ry[k]);
    for (const k of Object.keys(ry)) if (!Object.hasOwn(rx, k)) pending.push(rx[k], ry[k]);
  }
  return true;
}
