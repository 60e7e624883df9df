// Schema → CEL types, as kube's SchemaDeclType (k8s.io/apiserver/pkg/cel/common/schemas.go) builds
// them: objects with their (escaped) properties, maps from additionalProperties, lists, int vs
// double, int-or-string and schemaless preserve-unknown-fields as dyn. Each node also carries what
// the cost estimator needs: MaxElements (maxLength / maxItems / maxProperties, or kube's estimate
// from the 3 MiB request limit when unset) and MinSerializedSize.
//
// Values are converted from decoded JSON to what the CEL engine expects, driven by the same types:
// integers become BigInt (CEL int64), objects become instances of a per-type Map subclass, and
// strings of format byte, duration, date and date-time become bytes, durations and timestamps.
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { parseDuration, parseTimestamp } from './time.js';
import { itemsSchema } from '../schema/prune.js';

/** celconfig.MaxRequestSizeBytes */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

export type DeclKind =
  | 'object'
  | 'map'
  | 'list'
  | 'string'
  | 'bytes'
  | 'duration'
  | 'timestamp'
  | 'int'
  | 'double'
  | 'bool'
  | 'dyn';

export interface Decl {
  kind: DeclKind;
  /** The CEL type name used in the engine (`int`, `list<T1>`, `map<string, T2>`, `T1`, `dyn`). */
  celType: string;
  /** Object fields by CEL (escaped) name; `jsonName` is the property name in the object. */
  fields?: Map<string, { jsonName: string; decl: Decl }>;
  elem?: Decl;
  /** kube's DeclType.MaxElements. */
  maxElements: number;
  /** True when maxElements is kube's estimate because maxItems/maxLength/maxProperties is unset. */
  unbounded: boolean;
  minSerializedSize: number;
  /** Schema path for humans, `spec.items[*].name`. */
  path: string;
  /** Runtime class of object values. */
  ctor?: new (
    entries?: Iterable<readonly [string, unknown]>,
  ) => Map<string, unknown>;
  /** Type registrations this decl needs (objects, in dependency-free order). */
  schema: JSONSchemaProps;
}

// CEL reserved words kube escapes as __{word}__ (apiserver/pkg/cel/escaping.go).
const celReserved = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** kube's cel.Escape: the CEL name of a property, or undefined when it cannot be accessed. */
export function escapeName(name: string): string | undefined {
  if (celReserved.has(name)) return `__${name}__`;
  if (!/^[_a-zA-Z]/.test(name)) return undefined;
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === '_' && name[i + 1] === '_') {
      out += '__underscores__';
      i++;
    } else if (c === '.') out += '__dot__';
    else if (c === '-') out += '__dash__';
    else if (c === '/') out += '__slash__';
    else if (/[_a-zA-Z0-9]/.test(c)) out += c;
    else return undefined;
  }
  return out;
}

const estimateMaxStringLength = (): number => MAX_REQUEST_SIZE_BYTES - 2;
// apiserver/pkg/cel/limits.go: serialized sizes of durations, dates and date-times, quotes included.
const MAX_DURATION_SIZE_JSON = 32;
const MIN_DURATION_SIZE_JSON = 3;
const JSON_DATE_SIZE = 12;
const MIN_DATETIME_SIZE_JSON = 21;
const MAX_DATETIME_SIZE_JSON = 32;
const estimateMaxArrayItems = (minSize: number): number => Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize + 1));
const estimateMaxAdditionalProperties = (minSize: number): number =>
  Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize + 6));

/** Allocates unique CEL type names for the object types of one compilation. */
export class TypeNamer {
  private n = 0;
  readonly objects: Decl[] = [];
  next(): string {
    return `Object${this.n++}`;
  }
}

const isEmbedded = (s: JSONSchemaProps): boolean => s['x-kubernetes-embedded-resource'] === true;

/**
 * The CEL type of a schema node (kube's SchemaDeclType). `root` adds apiVersion, kind and
 * metadata.name/generateName as kube's WithTypeAndObjectMeta does for the resource root and for
 * every embedded resource.
 */
export function declFor(s: JSONSchemaProps, path: string, namer: TypeNamer, root = false): Decl {
  const dyn = (): Decl => ({
    kind: 'dyn',
    celType: 'dyn',
    maxElements: estimateMaxStringLength(),
    unbounded: true,
    minSerializedSize: 1,
    path,
    schema: s,
  });
  if (s['x-kubernetes-int-or-string']) return dyn();
  const type = s.type ?? '';
  switch (type) {
    case 'integer':
      return { kind: 'int', celType: 'int', maxElements: 0, unbounded: false, minSerializedSize: 1, path, schema: s };
    case 'number':
      return {
        kind: 'double',
        celType: 'double',
        maxElements: 0,
        unbounded: false,
        minSerializedSize: 1,
        path,
        schema: s,
      };
    case 'boolean':
      return { kind: 'bool', celType: 'bool', maxElements: 0, unbounded: false, minSerializedSize: 4, path, schema: s };
    case 'string': {
      const scalar = (kind: DeclKind, celType: string, maxElements: number, minSerializedSize: number): Decl => ({
        kind,
        celType,
        maxElements,
        unbounded: false,
        minSerializedSize,
        path,
        schema: s,
      });
      switch (s.format) {
        case 'byte':
          return {
            kind: 'bytes',
            celType: 'bytes',
            maxElements: s.maxLength ?? estimateMaxStringLength(),
            unbounded: s.maxLength === undefined,
            minSerializedSize: 2,
            path,
            schema: s,
          };
        case 'duration':
          return scalar('duration', 'google.protobuf.Duration', MAX_DURATION_SIZE_JSON, MIN_DURATION_SIZE_JSON);
        case 'date':
          return scalar('timestamp', 'google.protobuf.Timestamp', JSON_DATE_SIZE, JSON_DATE_SIZE);
        case 'date-time':
          return scalar('timestamp', 'google.protobuf.Timestamp', MAX_DATETIME_SIZE_JSON, MIN_DATETIME_SIZE_JSON);
      }
      const unbounded = s.maxLength === undefined;
      let max = s.maxLength ?? estimateMaxStringLength();
      if (unbounded && Array.isArray(s.enum) && s.enum.length > 0) {
        max = Math.max(...s.enum.map((v) => (typeof v === 'string' ? v.length : 0)));
        return {
          kind: 'string',
          celType: 'string',
          maxElements: max,
          unbounded: false,
          minSerializedSize: 2,
          path,
          schema: s,
        };
      }
      return { kind: 'string', celType: 'string', maxElements: max, unbounded, minSerializedSize: 2, path, schema: s };
    }
    case 'array': {
      const is = itemsSchema(s);
      if (!is) return dyn();
      const elem = declFor(is, `${path}[*]`, namer, isEmbedded(is));
      const unbounded = s.maxItems === undefined;
      const max = s.maxItems ?? estimateMaxArrayItems(elem.minSerializedSize);
      return {
        kind: 'list',
        celType: `list<${elem.celType}>`,
        elem,
        maxElements: max,
        unbounded,
        minSerializedSize: 2,
        path,
        schema: s,
      };
    }
    case 'object': {
      const props = s.properties ?? {};
      const hasProps = Object.keys(props).length > 0 || root;
      const ap = s.additionalProperties;
      if (!hasProps && ap && typeof ap === 'object') {
        const elem = declFor(ap, `${path}[*]`, namer, isEmbedded(ap));
        const unbounded = s.maxProperties === undefined;
        const max = s.maxProperties ?? estimateMaxAdditionalProperties(elem.minSerializedSize);
        return {
          kind: 'map',
          celType: `map<string, ${elem.celType}>`,
          elem,
          maxElements: max,
          unbounded,
          minSerializedSize: 2,
          path,
          schema: s,
        };
      }
      if (!hasProps && (s['x-kubernetes-preserve-unknown-fields'] || ap === true)) return dyn();
      const fields = new Map<string, { jsonName: string; decl: Decl }>();
      const required = new Set(s.required ?? []);
      let minSize = 2;
      for (const [name, prop] of Object.entries(props)) {
        const d = declFor(prop, path ? `${path}.${name}` : name, namer, isEmbedded(prop));
        const cel = escapeName(name);
        if (cel) fields.set(cel, { jsonName: name, decl: d });
        if (required.has(name) && prop.default === undefined) minSize += name.length + d.minSerializedSize + 4;
      }
      if (root) {
        const str = (p: string): Decl => ({
          kind: 'string',
          celType: 'string',
          maxElements: estimateMaxStringLength(),
          unbounded: true,
          minSerializedSize: 2,
          path: p,
          schema: { type: 'string' },
        });
        if (!fields.has('apiVersion')) fields.set('apiVersion', { jsonName: 'apiVersion', decl: str('apiVersion') });
        if (!fields.has('kind')) fields.set('kind', { jsonName: 'kind', decl: str('kind') });
        const metaName = namer.next();
        const metaFields = new Map<string, { jsonName: string; decl: Decl }>([
          ['name', { jsonName: 'name', decl: str('metadata.name') }],
          ['generateName', { jsonName: 'generateName', decl: str('metadata.generateName') }],
        ]);
        const meta: Decl = {
          kind: 'object',
          celType: metaName,
          fields: metaFields,
          maxElements: 0,
          unbounded: false,
          minSerializedSize: 2,
          path: 'metadata',
          schema: { type: 'object' },
          ctor: makeCtor(metaName),
        };
        namer.objects.push(meta);
        fields.set('metadata', { jsonName: 'metadata', decl: meta });
      }
      const name = namer.next();
      const d: Decl = {
        kind: 'object',
        celType: name,
        fields,
        maxElements: 0,
        unbounded: false,
        minSerializedSize: minSize,
        path,
        schema: s,
        ctor: makeCtor(name),
      };
      namer.objects.push(d);
      return d;
    }
    default:
      return dyn();
  }
}

function makeCtor(name: string): new () => Map<string, unknown> {
  // A named class per object type: the engine finds a value's CEL type by its constructor.
  return { [name]: class extends Map<string, unknown> {} }[name]!;
}

/** JSON → CEL value for `self`/`oldSelf`, as kube's UnstructuredToVal does, typed by `d`. */
export function toCel(v: unknown, d: Decl): unknown {
  if (v === null || v === undefined) return null;
  switch (d.kind) {
    case 'int':
      if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
      return v;
    case 'double':
      return typeof v === 'bigint' ? Number(v) : v;
    case 'string':
    case 'bool':
      return v;
    case 'bytes':
    case 'duration':
    case 'timestamp':
      return typeof v === 'string' ? formatted(v, d.kind, d.schema.format) : v;
    case 'list':
      return Array.isArray(v) ? v.map((x) => toCel(x, d.elem!)) : toDyn(v);
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) return toDyn(v);
      const m = new Map<string, unknown>();
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, toCel(x, d.elem!));
      return m;
    }
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) return toDyn(v);
      const o = v as Record<string, unknown>;
      const m = new d.ctor!();
      for (const [cel, f] of d.fields!) {
        if (Object.hasOwn(o, f.jsonName) && o[f.jsonName] !== undefined) m.set(cel, toCel(o[f.jsonName], f.decl));
      }
      return m;
    }
    default:
      return toDyn(v);
  }
}

/**
 * A string of format byte, duration, date or date-time as the CEL value kube's UnstructuredToVal
 * makes of it. Schema validation has refused malformed ones already; one that still does not
 * parse stays a string, and a rule using it fails with a type error, not a crash.
 */
function formatted(v: string, kind: DeclKind, format: string | undefined): unknown {
  try {
    if (kind === 'bytes') return new Uint8Array(Buffer.from(v, 'base64'));
    if (kind === 'duration') return parseDuration(v);
    return format === 'date' ? parseTimestamp(`${v}T00:00:00Z`) : parseTimestamp(v);
  } catch {
    return v;
  }
}

/** Untyped JSON → CEL: integral numbers are ints (as Go's JSON decoding into int64), others double. */
export function toDyn(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) && Number.isSafeInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toDyn);
  if (typeof v === 'object') {
    const m = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, toDyn(x));
    return m;
  }
  return v;
}
