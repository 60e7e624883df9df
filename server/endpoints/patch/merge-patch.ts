// JSON merge patch (RFC 7386) as kube-apiserver applies `application/merge-patch+json` to custom
// resources: gopkg.in/evanphx/json-patch.v4's MergePatch (v4.12), behind the PATCH handler's own
// decoding (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go, applyJSPatch).
import { badRequest } from '../../errors.js';
import type { JsonObject, JsonValue } from '../../registry/object.js';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets an own member, so that a key such as `__proto__` stays data and never touches the prototype. */
function setMember(obj: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * A copy of a patch value with the null members of its objects dropped (evanphx's pruneNulls), at
 * any depth, arrays included; null array elements themselves are kept (json-patch v4.12, the fix
 * kubernetes/kubernetes#98080 asked for).
 */
function pruned(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map((e) => (e === null ? null : pruned(e)));
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, e] of Object.entries(v)) if (e !== null) setMember(out, k, pruned(e));
  return out;
}

/**
 * evanphx's merge(cur, patch) for a present, non-null target value. Its quirk is kept: a non-object
 * patch value replacing an object is not pruned, while one replacing anything else is.
 */
function mergeValue(cur: JsonValue, patch: JsonValue): JsonValue {
  if (!isObject(cur)) return pruned(patch);
  if (!isObject(patch)) return structuredClone(patch);
  mergeMembers(cur, patch);
  return cur;
}

function mergeMembers(doc: JsonObject, patch: JsonObject): void {
  for (const [k, v] of Object.entries(patch)) {
    const cur = Object.hasOwn(doc, k) ? doc[k] : undefined;
    if (v === null) delete doc[k];
    else if (cur === undefined || cur === null) setMember(doc, k, pruned(v));
    else setMember(doc, k, mergeValue(cur, v));
  }
}

/**
 * RFC 7386 MergePatch(target, patch): objects merge member by member, a null member deletes, and
 * anything else (arrays included) replaces. Returns a new document; neither input is modified.
 */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (Array.isArray(patch)) return pruned(patch);
  if (!isObject(patch)) return patch;
  if (!isObject(target)) return pruned(patch);
  const doc = structuredClone(target);
  mergeMembers(doc, patch);
  return doc;
}

/** Go's name for a JSON value's kind in an UnmarshalTypeError. */
function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/**
 * A merge-patch request body applied to the current object, with kube's answers for bodies that are
 * not objects. kube first decodes the body into a map (fieldValidation defaults to Warn, which does
 * that), so an array or scalar is a 400 `error decoding patch: json: cannot unmarshal array into Go
 * value of type map[string]interface {}`; `null` passes that and json-patch rejects it with its
 * ErrBadJSONPatch, a 400 `Invalid JSON Patch`. (With fieldValidation=Ignore kube skips the first
 * step: an array would become the whole object and fail to decode as one.)
 */
export function applyMergePatch(original: JsonValue, patch: unknown): JsonValue {
  if (isObject(patch)) return mergePatch(original, patch);
  if (patch === null || patch === undefined) throw badRequest('Invalid JSON Patch');
  throw badRequest(`error decoding patch: json: cannot unmarshal ${goJsonKind(patch)} into Go value of type map[string]interface {}`);
}
