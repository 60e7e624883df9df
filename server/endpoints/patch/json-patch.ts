// JSON patch (RFC 6902) as kube-apiserver applies `application/json-patch+json`: the PATCH handler's
// decoding and limits (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go, applyJSPatch)
// around gopkg.in/evanphx/json-patch.v4 (vendor/gopkg.in/evanphx/json-patch.v4/patch.go).
//
// kube's answers:
//   - a body that does not decode as a list of operations: 400 BadRequest
//     `error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp`
//     (fieldValidation defaults to Warn, which decodes strictly into that type first);
//   - more than 10000 operations: 413 RequestEntityTooLarge
//     `Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001`;
//   - any operation that fails (a failed `test`, a missing path...): 422 Invalid with the fixed
//     message `the server rejected our request due to an error in our request` and empty details.
//     kube builds it with NewGenericServerResponse, which drops json-patch's own text, so the reason
//     (kept here in JsonPatchError, worded as json-patch words it) never reaches the client.
//
// json-patch v4 departs from RFC 6902 in ways kube inherits, and so does this:
//   - `replace` of a missing object member adds it; `copy` from a missing object member copies null;
//     `test` treats a missing member as null; an operation without `value` uses null;
//   - negative array indices count from the end (-1 is the last element; for `add`, the end);
//     indices are Go's strconv.Atoi (`+1` and `01` are accepted);
//   - a path's first segment is never looked at (`a/b` means `/b`), and `~` escapes other than ~0/~1
//     are left as they are;
//   - the empty path (the whole document) works only for `replace` (object or array values) and `test`.
//   - copies may add at most JSONPatchMaxCopyBytes (3 MiB) in total.
import { ApiError, badRequest, patchRejected } from '../../../apimachinery/errors.js';
import { type JsonObject, type JsonValue, cloneJson, isJsonObject, setOwn } from '../../../apimachinery/object.js';
import { deepEqual } from '../../../apimachinery/equality.js';
import { jsonKind, stringifyJSON } from '../../../apimachinery/json.js';

/** maxJSONPatchOperations in kube's patch handler. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;
/** The server's default JSONPatchMaxCopyBytes, which kube sets as json-patch's AccumulatedCopySizeLimit. */
const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

/** One operation as decoded: `op`, `path` and `from` are strings when present. */
export type JsonPatchOperation = Readonly<JsonObject>;

/** Why json-patch refused an operation, in json-patch's words (for logs and tests). */
export class JsonPatchError extends Error {
  override name = 'JsonPatchError';
}

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

/** Go's strconv.Atoi, with its error text. */
function atoi(key: string): number {
  if (!/^[+-]?\d+$/.test(key)) throw new JsonPatchError(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  return Number(key);
}

type Container = JsonObject | JsonValue[];

/** json-patch's containers: an object never fails a lookup (a missing member reads as undefined). */
function get(c: Container, key: string): JsonValue | undefined {
  if (!Array.isArray(c)) return Object.hasOwn(c, key) ? c[key] : undefined;
  let i = atoi(key);
  if (i < 0) {
    if (i < -c.length) throw new JsonPatchError(`Unable to access invalid index: ${i}: ${INVALID_INDEX}`);
    i += c.length;
  }
  if (i >= c.length) throw new JsonPatchError(`Unable to access invalid index: ${i}: ${INVALID_INDEX}`);
  return c[i];
}

/** `replace`'s write; the index was checked by get() first. */
function set(c: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(c)) return setOwn(c, key, value);
  const i = atoi(key);
  c[i < 0 ? i + c.length : i] = value;
}

function add(c: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(c)) return setOwn(c, key, value);
  if (key === '-') {
    c.push(value);
    return;
  }
  let i: number;
  try {
    i = atoi(key);
  } catch (err) {
    throw new JsonPatchError(`value was not a proper array index: '${key}': ${(err as Error).message}`);
  }
  const size = c.length + 1;
  if (i >= size || i < -size) throw new JsonPatchError(`Unable to access invalid index: ${i}: ${INVALID_INDEX}`);
  if (i < 0) i += size;
  c.splice(i, 0, value);
}

function remove(c: Container, key: string): void {
  if (!Array.isArray(c)) {
    if (!Object.hasOwn(c, key)) throw new JsonPatchError(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete c[key];
    return;
  }
  let i = atoi(key);
  if (i >= c.length || i < -c.length)
    throw new JsonPatchError(`Unable to access invalid index: ${i}: ${INVALID_INDEX}`);
  if (i < 0) i += c.length;
  c.splice(i, 1);
}

/** RFC 6901 unescaping in one pass, so `~01` is `~1`. */
const unescapeToken = (token: string): string => token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));

/** json-patch's findObject: the container holding the path's last token, or undefined. */
function findParent(root: JsonValue, path: string): { container: Container; key: string } | undefined {
  const tokens = path.split('/');
  if (tokens.length < 2) return undefined;
  if (!isJsonObject(root) && !Array.isArray(root)) return undefined;
  let container: Container = root;
  for (const token of tokens.slice(1, -1)) {
    let next: JsonValue | undefined;
    try {
      next = get(container, unescapeToken(token));
    } catch {
      return undefined;
    }
    if (!isJsonObject(next) && !Array.isArray(next)) return undefined;
    container = next;
  }
  return { container, key: unescapeToken(tokens[tokens.length - 1]!) };
}

/** A string member of an operation; the decoder has already refused other types. */
function member(op: JsonPatchOperation, name: string): string | undefined {
  const v = Object.hasOwn(op, name) ? op[name] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** The operation's `value`: undefined when absent (json-patch then adds null, and `test` differs). */
function operationValue(op: JsonPatchOperation): JsonValue | undefined {
  return Object.hasOwn(op, 'value') ? op['value'] : undefined;
}

/** Wraps a container error the way json-patch does. */
function wrapped<T>(prefix: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof JsonPatchError) throw new JsonPatchError(`${prefix}: ${err.message}`);
    throw err;
  }
}

/** Holds the document, which a `replace` of the empty path swaps whole. */
interface State {
  root: JsonValue;
  copiedBytes: number;
}

/** add, remove and copy word a missing path more briefly than the others do. */
const BRIEF_PATH_ERROR = new Set(['add', 'remove', 'copy']);

function requirePath(op: JsonPatchOperation, verb: string): string {
  const path = member(op, 'path');
  if (path !== undefined) return path;
  const cause = BRIEF_PATH_ERROR.has(verb) ? MISSING : `operation missing path field: ${MISSING}`;
  throw new JsonPatchError(`${verb} operation failed to decode path: ${cause}`);
}

function requireFrom(op: JsonPatchOperation, verb: string): string {
  const from = member(op, 'from');
  if (from === undefined)
    throw new JsonPatchError(`${verb} operation failed to decode from: operation, missing from field: ${MISSING}`);
  return from;
}

function opAdd(s: State, op: JsonPatchOperation): void {
  const path = requirePath(op, 'add');
  const at = findParent(s.root, path);
  if (!at) throw new JsonPatchError(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrapped(`error in add for path: '${path}'`, () => add(at.container, at.key, cloneJson(operationValue(op) ?? null)));
}

function opRemove(s: State, op: JsonPatchOperation): void {
  const path = requirePath(op, 'remove');
  const at = findParent(s.root, path);
  if (!at) throw new JsonPatchError(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrapped(`error in remove for path: '${path}'`, () => remove(at.container, at.key));
}

function opReplace(s: State, op: JsonPatchOperation): void {
  const path = requirePath(op, 'replace');
  const value = operationValue(op);
  if (path === '') {
    // Go's %w of a nil error prints "%!w(<nil>)".
    if (!isJsonObject(value) && !Array.isArray(value))
      throw new JsonPatchError('replace operation value must be object or array: %!w(<nil>)');
    s.root = cloneJson(value);
    return;
  }
  const at = findParent(s.root, path);
  if (!at) throw new JsonPatchError(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
  try {
    get(at.container, at.key);
  } catch {
    throw new JsonPatchError(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
  }
  // json-patch's own wording ("remove") for a failed replace.
  wrapped(`error in remove for path: '${path}'`, () => set(at.container, at.key, cloneJson(value ?? null)));
}

function opMove(s: State, op: JsonPatchOperation): void {
  const from = requireFrom(op, 'move');
  const src = findParent(s.root, from);
  if (!src) throw new JsonPatchError(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const value = wrapped(`error in move for path: '${src.key}'`, () => get(src.container, src.key));
  wrapped(`error in move for path: '${src.key}'`, () => remove(src.container, src.key));
  const path = requirePath(op, 'move');
  const dst = findParent(s.root, path);
  if (!dst)
    throw new JsonPatchError(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  wrapped(`error in move for path: '${path}'`, () => add(dst.container, dst.key, value ?? null));
}

function opTest(s: State, op: JsonPatchOperation): void {
  const path = requirePath(op, 'test');
  const expected = operationValue(op);
  const failed = (): JsonPatchError => new JsonPatchError(`testing value ${path} failed: test failed`);
  if (path === '') {
    if (expected === undefined || !deepEqual(s.root, expected)) throw failed();
    return;
  }
  const at = findParent(s.root, path);
  if (!at) throw new JsonPatchError(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
  const actual = wrapped(`error in test for path: '${path}'`, () => get(at.container, at.key));
  // A missing member and null are the same to json-patch, and either matches an absent value.
  if (actual === undefined || actual === null) {
    if (expected === undefined || expected === null) return;
    throw failed();
  }
  if (expected === undefined || !deepEqual(actual, expected)) throw failed();
}

function opCopy(s: State, op: JsonPatchOperation, copyLimit: number): void {
  const from = requireFrom(op, 'copy');
  const src = findParent(s.root, from);
  if (!src) throw new JsonPatchError(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const value = wrapped(`error in copy for from: '${from}'`, () => get(src.container, src.key));
  const path = requirePath(op, 'copy');
  const dst = findParent(s.root, path);
  if (!dst)
    throw new JsonPatchError(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  // json-patch counts the encoded size of each copied value (nothing for a null).
  if (value !== undefined && value !== null) s.copiedBytes += Buffer.byteLength(stringifyJSON(value), 'utf8');
  if (s.copiedBytes > copyLimit) {
    throw new JsonPatchError(
      `Unable to complete the copy, the accumulated size increase of copy is ${s.copiedBytes}, exceeding the limit ${copyLimit}`,
    );
  }
  wrapped('error while adding value during copy', () => add(dst.container, dst.key, cloneJson(value ?? null)));
}

/**
 * Applies decoded operations in order to a copy of `doc` and returns it (json-patch's Apply).
 * Throws JsonPatchError, naming the first operation that failed; `doc` is never modified.
 */
export function applyJsonPatchOperations(
  doc: JsonValue,
  ops: readonly JsonPatchOperation[],
  copyLimit = MAX_JSON_PATCH_COPY_BYTES,
): JsonValue {
  const state: State = { root: cloneJson(doc), copiedBytes: 0 };
  for (const op of ops) {
    const kind = member(op, 'op') ?? 'unknown';
    switch (kind) {
      case 'add':
        opAdd(state, op);
        break;
      case 'remove':
        opRemove(state, op);
        break;
      case 'replace':
        opReplace(state, op);
        break;
      case 'move':
        opMove(state, op);
        break;
      case 'test':
        opTest(state, op);
        break;
      case 'copy':
        opCopy(state, op, copyLimit);
        break;
      default:
        throw new JsonPatchError(`Unexpected kind: ${kind}`);
    }
  }
  return state.root;
}

/**
 * The handler's strict decode into []jsonPatchOp{op, path, from string; value any}: Go reports the
 * first value of the wrong type, in document order. `null` decodes to no operations, and a null
 * element to an operation without fields.
 */
export function decodeJsonPatch(patch: unknown): JsonPatchOperation[] {
  const fail = (detail: string): never => {
    throw badRequest(`error decoding patch: json: cannot unmarshal ${detail}`);
  };
  if (patch === null) return [];
  if (!Array.isArray(patch)) return fail(`${jsonKind(patch)} into Go value of type []handlers.jsonPatchOp`);
  return patch.map((element: unknown): JsonPatchOperation => {
    if (element === null) return {};
    if (!isJsonObject(element)) return fail(`${jsonKind(element)} into Go value of type handlers.jsonPatchOp`);
    for (const [k, v] of Object.entries(element)) {
      if ((k === 'op' || k === 'path' || k === 'from') && v !== null && typeof v !== 'string') {
        fail(`${jsonKind(v)} into Go struct field jsonPatchOp.${k} of type string`);
      }
    }
    return element;
  });
}

/** kube's 413 for a patch with too many operations. */
function tooManyOperations(count: number): ApiError {
  const message = `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${count}`;
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'RequestEntityTooLarge',
    code: 413,
  });
}

/**
 * A json-patch request body applied to the current object, with kube's checks and status codes
 * (400 undecodable, 413 too many operations, 422 an operation failed). Returns the patched document;
 * whether it is still a valid object is the caller's to check.
 */
export function applyJsonPatch(doc: JsonValue, patch: unknown): JsonValue {
  const ops = decodeJsonPatch(patch);
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) throw tooManyOperations(ops.length);
  try {
    return applyJsonPatchOperations(doc, ops);
  } catch (err) {
    if (err instanceof JsonPatchError) throw patchRejected();
    throw err;
  }
}
