// Every built-in kind is described twice, as kube describes it: its OpenAPI schema (builtin-schemas.ts,
// from which field ownership, patch metadata and known fields are derived) and its protobuf message
// (kube-protos.ts, the wire). They must agree: the same fields under the same JSON names, of matching
// kinds, all the way down.
import { describe, expect, it } from 'vitest';
import type { FieldBase, Type } from 'protobufjs';
import type { JSONSchemaProps } from '../../../../../apimachinery/apis/apiextensions.js';
import { META_DEFINITIONS, OBJECT_META } from '../../../../../apimachinery/apis/meta-schemas.js';
import { isJsonList, jsonFields, jsonFormOf, kubeProtos } from '../../../../../apimachinery/apis/kube-messages.js';
import { protobufKind } from '../../../../../server/codecs/messages.js';
import type { BuiltinKind } from '../../../../../server/registry/builtin/kind.js';
import { BUILTIN_KINDS } from '../../../../../server/registry/builtin/table.js';

const DEFINITION_PREFIX = '#/definitions/';

/** A schema node with its `$ref` followed (the siblings kube puts beside a $ref say nothing of the type). */
function resolve(s: JSONSchemaProps, definitions: Record<string, JSONSchemaProps>): JSONSchemaProps {
  if (s.$ref === undefined) return s;
  const name = s.$ref.slice(DEFINITION_PREFIX.length);
  const def = definitions[name];
  if (!def) throw new Error(`no definition ${name}`);
  return def;
}

const SCALARS: Record<string, { type: string; format?: string }> = {
  string: { type: 'string' },
  bytes: { type: 'string', format: 'byte' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  bool: { type: 'boolean' },
  double: { type: 'number', format: 'double' },
};

/** Where schema and message disagree, as `path: what`; empty when they agree. */
function disagreements(schema: JSONSchemaProps, message: Type, definitions: Record<string, JSONSchemaProps>): string[] {
  const out: string[] = [];
  // Recursive types (JSONSchemaProps) are compared once per pair.
  const compared = new Map<JSONSchemaProps, Set<Type>>();

  /** One value: a message field's element (its type name) against the schema of that element. */
  const value = (node: JSONSchemaProps, protoType: string, resolved: Type | null, path: string): void => {
    const s = resolve(node, definitions);
    if (!resolved) {
      const want = SCALARS[protoType];
      if (!want) return void out.push(`${path}: unknown scalar ${protoType}`);
      // Go's []byte is a base64 string, its ints name their width.
      if (s.type !== want.type || (want.format !== undefined && s.format !== want.format))
        out.push(`${path}: ${protoType} but schema ${s.type}/${s.format}`);
      return;
    }
    const p = kubeProtos();
    if (resolved === p.time || resolved === p.microTime) {
      if (s.type !== 'string' || s.format !== 'date-time') out.push(`${path}: a time but schema ${s.type}/${s.format}`);
      return;
    }
    const form = jsonFormOf(resolved);
    if (form === 'intOrString') {
      if (s.type !== 'string' || s.format !== 'int-or-string') out.push(`${path}: IntOrString but schema ${s.type}`);
      return;
    }
    if (form !== undefined || resolved === p.rawExtension || resolved === p.fieldsV1) {
      // Go types with their own JSON (raw JSON, the JSONSchemaPropsOr* unions): any value, no fields.
      if (s.properties !== undefined) out.push(`${path}: free-form in protobuf, fields in the schema`);
      return;
    }
    if (isJsonList(resolved)) {
      if (s.type !== 'array') out.push(`${path}: a list but schema ${s.type}`);
      return;
    }
    struct(s, resolved, path);
  };

  const struct = (s: JSONSchemaProps, type: Type, path: string): void => {
    // The schema leaves it open (the access reviews' spec and status): nothing to compare.
    if (s['x-kubernetes-preserve-unknown-fields'] === true && s.properties === undefined) return;
    const types = compared.get(s) ?? new Set<Type>();
    if (types.has(type)) return;
    compared.set(s, types.add(type));
    if (s.type !== 'object' || s.properties === undefined)
      return void out.push(`${path}: a message but schema ${s.type}`);
    // A message Go embeds (json:",inline") lends its fields to its parent's object.
    const fields = jsonFields(type);
    const properties = s.properties;
    for (const name of fields.keys())
      if (!Object.hasOwn(properties, name)) out.push(`${path}.${name}: not in the schema`);
    for (const name of Object.keys(properties)) if (!fields.has(name)) out.push(`${path}.${name}: not in the message`);
    for (const [name, f] of fields) {
      const property = properties[name];
      if (property) field(property, f, `${path}.${name}`);
    }
  };

  const field = (node: JSONSchemaProps, f: FieldBase, path: string): void => {
    const s = resolve(node, definitions);
    const resolved = f.resolvedType && 'fieldsArray' in f.resolvedType ? (f.resolvedType as Type) : null;
    if (f.map) {
      const additional = s.additionalProperties;
      if (s.type !== 'object' || typeof additional !== 'object')
        return void out.push(`${path}: a map but schema ${s.type}`);
      // A map field's type is its values' type.
      return value(additional, f.type, resolved, `${path}{}`);
    }
    if (f.repeated) {
      if (s.type !== 'array' || !s.items || Array.isArray(s.items))
        return void out.push(`${path}: repeated but schema ${s.type}`);
      return value(s.items, f.type, resolved, `${path}[]`);
    }
    value(s, f.type, resolved, path);
  };

  // The kind's message holds ObjectMeta at metadata; apiVersion and kind are TypeMeta's, in no message.
  const root: JSONSchemaProps = {
    ...schema,
    properties: { ...schema.properties, metadata: { $ref: DEFINITION_PREFIX + OBJECT_META } },
  };
  struct(root, message, '');
  return out;
}

const apiVersionOf = (k: BuiltinKind): string => (k.group ? `${k.group}/${k.version}` : k.version);

describe('each built-in kind: its protobuf message and its OpenAPI schema agree', () => {
  it.each(BUILTIN_KINDS.map((k) => [`${k.names.plural}.${k.group || 'core'}`, k] as const))('%s', (_name, k) => {
    const message = protobufKind(apiVersionOf(k), k.names.kind);
    expect(message, 'a protobuf message').toBeDefined();
    const definitions = { ...META_DEFINITIONS, ...k.schema.definitions };
    expect(disagreements(k.schema, message!, definitions)).toEqual([]);
    // A stored kind's list is its items under ListMeta.
    if (k.strategy) {
      const list = protobufKind(apiVersionOf(k), k.names.listKind);
      expect(list?.fields['items']?.resolvedType).toBe(message);
    }
  });

  it('catches a field one of them lacks, a renamed field and a kind of field that differs', () => {
    const message = protobufKind('v1', 'ConfigMap')!;
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        binaryData: { type: 'object', additionalProperties: { type: 'string' } },
        immutable: { type: 'string' },
        extra: { type: 'string' },
      },
    };
    expect(disagreements(schema, message, META_DEFINITIONS)).toEqual([
      '.data: not in the schema',
      '.extra: not in the message',
      '.immutable: bool but schema string/undefined',
      '.binaryData{}: bytes but schema string/undefined',
    ]);
  });
});
