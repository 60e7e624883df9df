// Schema → CEL types for the admission policies' engine (crd/cel/admission.ts), as kube's
// SchemaDeclType (k8s.io/apiserver/pkg/cel/common/schemas.go) builds them: objects with their
// (escaped) properties, maps from additionalProperties, lists, int vs double, int-or-string and
// schemaless preserve-unknown-fields as dyn; and untyped JSON as that engine's values (toDyn).
// The CRD rules' types are cel/kube/schema-types.ts.
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { itemsSchema } from '../schema/prune.js';

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
function escapeName(name: string): string | undefined {
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
  const scalar = (kind: DeclKind, celType: string): Decl => ({ kind, celType, path, schema: s });
  if (s['x-kubernetes-int-or-string']) return scalar('dyn', 'dyn');
  switch (s.type ?? '') {
    case 'integer':
      return scalar('int', 'int');
    case 'number':
      return scalar('double', 'double');
    case 'boolean':
      return scalar('bool', 'bool');
    case 'string':
      switch (s.format) {
        case 'byte':
          return scalar('bytes', 'bytes');
        case 'duration':
          return scalar('duration', 'google.protobuf.Duration');
        case 'date':
        case 'date-time':
          return scalar('timestamp', 'google.protobuf.Timestamp');
        default:
          return scalar('string', 'string');
      }
    case 'array': {
      const is = itemsSchema(s);
      if (!is) return scalar('dyn', 'dyn');
      const elem = declFor(is, `${path}[*]`, namer, isEmbedded(is));
      return { kind: 'list', celType: `list<${elem.celType}>`, elem, path, schema: s };
    }
    case 'object': {
      const props = s.properties ?? {};
      const hasProps = Object.keys(props).length > 0 || root;
      const ap = s.additionalProperties;
      if (!hasProps && ap && typeof ap === 'object') {
        const elem = declFor(ap, `${path}[*]`, namer, isEmbedded(ap));
        return { kind: 'map', celType: `map<string, ${elem.celType}>`, elem, path, schema: s };
      }
      if (!hasProps && (s['x-kubernetes-preserve-unknown-fields'] || ap === true)) return scalar('dyn', 'dyn');
      const fields = new Map<string, { jsonName: string; decl: Decl }>();
      for (const [name, prop] of Object.entries(props)) {
        const d = declFor(prop, path ? `${path}.${name}` : name, namer, isEmbedded(prop));
        const cel = escapeName(name);
        if (cel) fields.set(cel, { jsonName: name, decl: d });
      }
      if (root) {
        const str = (p: string): Decl => ({ kind: 'string', celType: 'string', path: p, schema: { type: 'string' } });
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
          path: 'metadata',
          schema: { type: 'object' },
          ctor: makeCtor(metaName),
        };
        namer.objects.push(meta);
        fields.set('metadata', { jsonName: 'metadata', decl: meta });
      }
      const name = namer.next();
      const d: Decl = { kind: 'object', celType: name, fields, path, schema: s, ctor: makeCtor(name) };
      namer.objects.push(d);
      return d;
    }
    default:
      return scalar('dyn', 'dyn');
  }
}

function makeCtor(name: string): new () => Map<string, unknown> {
  // A named class per object type: the engine finds a value's CEL type by its constructor.
  return { [name]: class extends Map<string, unknown> {} }[name]!;
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
