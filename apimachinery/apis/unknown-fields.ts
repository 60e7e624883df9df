// kube's typed decoding of the built-in kinds: a field the kind's Go type does not have is dropped
// on the way in, as json.Unmarshal into the struct drops it, and reported (sigs.k8s.io/json's
// strict mode) so that fieldValidation can warn or refuse. The Go types' fields are their protobuf
// messages' (kube-protos.ts), which hold every field of the kinds served.
import type { Type } from 'protobufjs';
import { isJsonObject, type JsonObject } from '../object.js';
import { isJsonList, jsonFormOf, jsonKey, kubeProtos, protobufKind } from './kube-messages.js';

/** A JSON object to check against a message, or the elements of a repeated message field. */
type Frame =
  | { kind: 'object'; value: JsonObject; type: Type; path: string; keys: string[]; next: number; root: boolean }
  | { kind: 'list'; items: unknown[]; type: Type; path: string; next: number };

const fieldsByKey = new WeakMap<Type, Map<string, Type['fieldsArray'][number]>>();

function fieldsOf(type: Type): Map<string, Type['fieldsArray'][number]> {
  let byKey = fieldsByKey.get(type);
  if (!byKey) fieldsByKey.set(type, (byKey = new Map(type.fieldsArray.map((f) => [jsonKey(f), f]))));
  return byKey;
}

/** Messages whose JSON is not an object of their fields: Go marshals them its own way. */
function opaque(type: Type): boolean {
  if (jsonFormOf(type) !== undefined || isJsonList(type)) return true;
  const p = kubeProtos();
  return type === p.time || type === p.microTime || type === p.fieldsV1 || type === p.rawExtension;
}

const objectFrame = (value: JsonObject, type: Type, path: string, root = false): Frame => ({
  kind: 'object',
  value,
  type,
  path,
  keys: Object.keys(value),
  next: 0,
  root,
});

/**
 * Drops from `obj` what its kind's Go type has no field for, and returns those fields' paths in
 * document order (`spec.foo`, `spec.ports[0].bar`, `metadata.x`). Nothing for a kind without a
 * message (custom resources are pruned by their schema instead). Map values are not looked into:
 * the served kinds' maps hold strings and bytes.
 */
export function dropUnknownFields(obj: JsonObject): string[] {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return [];
  const message = protobufKind(apiVersion, kind);
  if (!message) return [];
  const dropped: string[] = [];
  // The walk goes only as deep as the messages nest (an unknown field's value is never entered),
  // but on a stack of its own, as every walk over request documents here.
  const stack: Frame[] = [objectFrame(obj, message, '', true)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.kind === 'list') {
      if (frame.next >= frame.items.length) {
        stack.pop();
        continue;
      }
      const i = frame.next++;
      const item = frame.items[i];
      if (isJsonObject(item)) stack.push(objectFrame(item, frame.type, `${frame.path}[${i}]`));
      continue;
    }
    if (frame.next >= frame.keys.length) {
      stack.pop();
      continue;
    }
    const key = frame.keys[frame.next++]!;
    const path = frame.path ? `${frame.path}.${key}` : key;
    const field = fieldsOf(frame.type).get(key);
    if (!field) {
      // apiVersion and kind are TypeMeta's, inline in every kind and in no message.
      if (frame.root && (key === 'apiVersion' || key === 'kind')) continue;
      dropped.push(path);
      delete frame.value[key];
      continue;
    }
    const type = field.resolvedType;
    if (field.map || !type || !('fieldsArray' in type) || opaque(type)) continue;
    const value = frame.value[key];
    if (field.repeated) {
      if (Array.isArray(value)) stack.push({ kind: 'list', items: value, type, path, next: 0 });
    } else if (isJsonObject(value)) {
      stack.push(objectFrame(value, type, path));
    }
  }
  return dropped;
}
