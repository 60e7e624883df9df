// kube's typed decoding of the built-in kinds: a field the kind's Go type does not have is dropped
// on the way in, as json.Unmarshal into the struct drops it, and reported (sigs.k8s.io/json's
// strict mode) so that fieldValidation can warn or refuse. The Go types' fields are their OpenAPI
// schemas' properties (openapi-gen writes one from the other), so the kind's schema says what is known.
import { isJsonObject, type JsonObject } from '../object.js';
import type { JSONSchemaProps } from './apiextensions.js';
import { META_DEFINITIONS, OBJECT_META } from './meta-schemas.js';

/**
 * A Go struct: its fields, and for each whether decoding looks inside it (a struct, or a list of
 * structs). Other values (scalars, maps, free-form JSON, Go types with their own unmarshalling such
 * as IntOrString and the JSONSchemaPropsOr* unions) are taken whole.
 */
interface Struct {
  readonly fields: Map<string, Inner | undefined>;
}
type Inner = { kind: 'struct' | 'list'; struct: Struct };

const DEFINITION_PREFIX = '#/definitions/';

interface Compilation {
  readonly definitions: Readonly<Record<string, JSONSchemaProps>>;
  readonly named: Map<string, Struct>;
}

function resolve(s: JSONSchemaProps, c: Compilation): { schema: JSONSchemaProps; name?: string } {
  if (s.$ref === undefined) return { schema: s };
  const name = s.$ref.startsWith(DEFINITION_PREFIX) ? s.$ref.slice(DEFINITION_PREFIX.length) : s.$ref;
  const schema = c.definitions[name];
  if (!schema) throw new Error(`no definition ${name} for $ref ${s.$ref}`);
  return { schema, name };
}

/** The struct a schema describes, or undefined when it is no struct (Go decodes it whole). */
function structOf(s: JSONSchemaProps, c: Compilation): Struct | undefined {
  const { schema, name } = resolve(s, c);
  if (name !== undefined) {
    const known = c.named.get(name);
    if (known) return known;
  }
  if (schema.properties === undefined || schema['x-kubernetes-preserve-unknown-fields'] === true) return undefined;
  // Registered before its fields are compiled, so a definition that reaches itself finds it.
  const struct: Struct = { fields: new Map() };
  if (name !== undefined) c.named.set(name, struct);
  for (const [key, property] of Object.entries(schema.properties)) struct.fields.set(key, innerOf(property, c));
  return struct;
}

function innerOf(property: JSONSchemaProps, c: Compilation): Inner | undefined {
  const { schema } = resolve(property, c);
  if (schema.type === 'array') {
    const items = schema.items && !Array.isArray(schema.items) ? structOf(schema.items, c) : undefined;
    return items && { kind: 'list', struct: items };
  }
  const struct = structOf(property, c);
  return struct && { kind: 'struct', struct };
}

const compiled = new WeakMap<JSONSchemaProps, Struct>();

/** A kind's root struct: its schema's properties, apiVersion and kind (TypeMeta, inline), and ObjectMeta. */
function rootOf(schema: JSONSchemaProps): Struct {
  let root = compiled.get(schema);
  if (root) return root;
  const c: Compilation = { definitions: { ...META_DEFINITIONS, ...schema.definitions }, named: new Map() };
  const fields = new Map(structOf(schema, c)?.fields);
  fields.set('apiVersion', undefined);
  fields.set('kind', undefined);
  fields.set('metadata', innerOf({ $ref: DEFINITION_PREFIX + OBJECT_META }, c));
  root = { fields };
  compiled.set(schema, root);
  return root;
}

/** A JSON object to check against a struct, or the elements of a list of structs. */
type Frame =
  | { kind: 'object'; value: JsonObject; struct: Struct; path: string; keys: string[]; next: number }
  | { kind: 'list'; items: unknown[]; struct: Struct; path: string; next: number };

const objectFrame = (value: JsonObject, struct: Struct, path: string): Frame => ({
  kind: 'object',
  value,
  struct,
  path,
  keys: Object.keys(value),
  next: 0,
});

/**
 * Drops from `obj` what its kind's Go type (described by `schema`, the kind's OpenAPI schema in
 * obj's version) has no field for, and returns those fields' paths in document order (`spec.foo`,
 * `spec.ports[0].bar`, `metadata.x`). Map values are not looked into: the served kinds' maps hold
 * strings, bytes and schemas whose unions decode themselves.
 */
export function dropUnknownFields(obj: JsonObject, schema: JSONSchemaProps | undefined): string[] {
  // No schema, no Go type: a custom resource, pruned by its CRD's schema instead.
  if (schema === undefined) return [];
  const dropped: string[] = [];
  // The walk goes only as deep as the structs nest (an unknown field's value is never entered),
  // but on a stack of its own, as every walk over request documents here.
  const stack: Frame[] = [objectFrame(obj, rootOf(schema), '')];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.kind === 'list') {
      if (frame.next >= frame.items.length) {
        stack.pop();
        continue;
      }
      const i = frame.next++;
      const item = frame.items[i];
      if (isJsonObject(item)) stack.push(objectFrame(item, frame.struct, `${frame.path}[${i}]`));
      continue;
    }
    if (frame.next >= frame.keys.length) {
      stack.pop();
      continue;
    }
    const key = frame.keys[frame.next++]!;
    const path = frame.path ? `${frame.path}.${key}` : key;
    // Own keys only: `__proto__` or `constructor` is no field of any kind.
    if (!frame.struct.fields.has(key)) {
      dropped.push(path);
      delete frame.value[key];
      continue;
    }
    const inner = frame.struct.fields.get(key);
    const value = frame.value[key];
    if (inner?.kind === 'list') {
      if (Array.isArray(value)) stack.push({ kind: 'list', items: value, struct: inner.struct, path, next: 0 });
    } else if (inner?.kind === 'struct' && isJsonObject(value)) {
      stack.push(objectFrame(value, inner.struct, path));
    }
  }
  return dropped;
}
