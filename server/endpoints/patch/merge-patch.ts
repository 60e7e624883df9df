// JSON merge patch (RFC 7386) as kube-apiserver applies `application/merge-patch+json` to custom
// resources: gopkg.in/evanphx/json-patch.v4's MergePatch (v4.12), behind the PATCH handler's own
// decoding (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go, applyJSPatch).
import { badRequest } from '../../../apimachinery/errors.js';
import { type JsonObject, type JsonValue, cloneJson, isJsonObject, setOwn } from '../../../apimachinery/object.js';

// Documents may nest 10,000 deep (kube's decoder limit): the walks below keep their work on
// explicit stacks, not on the call stack.

/**
 * A copy of a patch value with the null members of its objects dropped (evanphx's pruneNulls), at
 * any depth, arrays included; null array elements themselves are kept (json-patch v4.12, the fix
 * kubernetes/kubernetes#98080 asked for).
 */
function pruned(v: JsonValue): JsonValue {
  return cloneJson(v, (_key, member) => member !== null);
}

/**
 * evanphx's merge(doc, patch) of two objects, in place in `doc`. Its quirk is kept: a non-object
 * patch value replacing an object is not pruned, while one replacing anything else is.
 */
function mergeMembers(doc: JsonObject, patch: JsonObject): void {
  const pending: Array<[JsonObject, JsonObject]> = [[doc, patch]];
  while (pending.length > 0) {
    const [d, p] = pending.pop()!;
    for (const [k, v] of Object.entries(p)) {
      const cur = Object.hasOwn(d, k) ? d[k] : undefined;
      if (v === null) delete d[k];
      else if (cur === undefined || cur === null || !isJsonObject(cur)) setOwn(d, k, pruned(v));
      else if (!isJsonObject(v)) setOwn(d, k, cloneJson(v));
      else pending.push([cur, v]);
    }
  }
}

/**
 * RFC 7386 MergePatch(target, patch): objects merge member by member, a null member deletes, and
 * anything else (arrays included) replaces. Returns a new document; neither input is modified.
 */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (Array.isArray(patch)) return pruned(patch);
  if (!isJsonObject(patch)) return patch;
  if (!isJsonObject(target)) return pruned(patch);
  const doc = cloneJson(target);
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
  if (isJsonObject(patch)) return mergePatch(original, patch);
  if (patch === null || patch === undefined) throw badRequest('Invalid JSON Patch');
  throw badRequest(
    `error decoding patch: json: cannot unmarshal ${goJsonKind(patch)} into Go value of type map[string]interface {}`,
  );
}
