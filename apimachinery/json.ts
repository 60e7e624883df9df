// JSON for objects that may hold integers beyond 2^53. kube keeps an integer that fits int64
// exactly; JS numbers round past 2^53, so the request decoder gives such integers as bigints (for
// custom resources, whose fields are free-form), and every place an object is stored, read back or
// written out goes through these two functions instead of JSON.parse/JSON.stringify.
//
// Both keep the built-ins' speed on the usual object: parseJSON hands text without a 16-digit run
// (the shortest unsafe integer) to JSON.parse, and stringifyJSON only takes its own, slower path
// when JSON.stringify meets a bigint or a document nested too deep for its recursion. Neither
// limits depth: what was accepted once (a patch can nest past the decoder's 10,000) reads back.
import { compareGoStrings } from './go-sort.js';
import { parseJsonExact } from './json-parse.js';
import { isJsonObject } from './object.js';

const LONG_DIGIT_RUN = /\d{16}/;

/** JSON.parse, with integers beyond 2^53 that fit int64 as exact bigints. */
export function parseJSON(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text);
  return parseJsonExact(text, { int64: true, maxDepth: Infinity }).value;
}

/**
 * JSON.stringify, writing bigints as JSON integers. JSON.stringify recurses and overflows the stack
 * past about 4,000 levels; kube accepts documents 10,000 deep, which then take the iterative path.
 */
export function stringifyJSON(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    const bigint = err instanceof TypeError && /BigInt/.test(err.message);
    if (!bigint && !(err instanceof RangeError)) throw err;
  }
  return stringifyIteratively(value) ?? 'null';
}

/**
 * JSON with every object's keys sorted, as Go marshals maps (stable bytes for hashes); same
 * depth-safety as stringifyJSON. An object whose keys are already in order is written as it is,
 * without a sorted copy: documents built in order cost what JSON.stringify costs.
 */
export function stringifySortedJSON(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (isJsonObject(v) ? inKeyOrder(v) : v));
  } catch (err) {
    const bigint = err instanceof TypeError && /BigInt/.test(err.message);
    if (!bigint && !(err instanceof RangeError)) throw err;
  }
  return stringifyIteratively(value, true) ?? 'null';
}

/** The object, or a copy with its keys sorted when they are not. */
function inKeyOrder(o: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(o);
  for (let i = 1; i < keys.length; i++)
    if (compareGoStrings(keys[i - 1]!, keys[i]!) > 0)
      return Object.fromEntries(keys.sort(compareGoStrings).map((k) => [k, o[k]]));
  return o;
}

/** Text to write as is, beside values still to be written, on stringifyIteratively's to-do stack. */
class Raw {
  constructor(readonly text: string) {}
}

/** JSON.stringify's text for a value that is not an array or object, bigints as integers. */
function leafJson(v: unknown): string | undefined {
  return typeof v === 'bigint' ? v.toString() : JSON.stringify(v);
}

/** Dropped from objects and null in arrays, as JSON.stringify does. */
const unwritable = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/**
 * JSON.stringify's rules for plain JSON values (undefined and functions dropped, toJSON called),
 * bigints as integers; an explicit stack instead of recursion, so any depth fits.
 */
function stringifyIteratively(root: unknown, sortKeys = false): string | undefined {
  const parts: string[] = [];
  const todo: Array<Raw | { value: unknown }> = [{ value: root }];
  while (todo.length > 0) {
    const task = todo.pop()!;
    if (task instanceof Raw) {
      parts.push(task.text);
      continue;
    }
    let v = task.value;
    if (typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function')
      v = (v as { toJSON(): unknown }).toJSON();
    if (typeof v !== 'object' || v === null) {
      const text = leafJson(v);
      if (text === undefined && parts.length === 0) return undefined;
      // Only a toJSON() that returns undefined gets here inside a container.
      parts.push(text ?? 'null');
      continue;
    }
    // Pushed in reverse: the stack hands them back in document order.
    if (Array.isArray(v)) {
      todo.push(new Raw(']'));
      for (let i = v.length - 1; i >= 0; i--) {
        const x: unknown = v[i];
        todo.push(unwritable(x) ? new Raw('null') : { value: x });
        if (i > 0) todo.push(new Raw(','));
      }
      todo.push(new Raw('['));
      continue;
    }
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => !unwritable(o[k]));
    if (sortKeys) keys.sort(compareGoStrings);
    todo.push(new Raw('}'));
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      todo.push({ value: o[k] });
      todo.push(new Raw(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`));
    }
    todo.push(new Raw('{'));
  }
  return parts.join('');
}

/**
 * The bracket of the first container, in the order Go's json.Marshal writes them (map keys
 * sorted), that nests deeper than `maxDepth` levels, if any. Iterative, so the walk itself cannot
 * overflow the stack on the documents it is there to refuse.
 */
export function deeperThan(value: unknown, maxDepth: number): '{' | '[' | undefined {
  // Nearly every document is within the limit: one pass without sorting any keys says so.
  if (!nestsDeeperThan(value, maxDepth)) return undefined;
  const isContainer = (x: unknown): boolean => typeof x === 'object' && x !== null;
  // Only containers are stacked (and their keys sorted): a map of 100,000 strings costs one pass.
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > maxDepth) return Array.isArray(v) ? '[' : '{';
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) if (isContainer(v[i])) stack.push([v[i], depth + 1]);
    } else {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o)
        .filter((k) => isContainer(o[k]))
        .sort(compareGoStrings);
      for (let i = keys.length - 1; i >= 0; i--) stack.push([o[keys[i]!], depth + 1]);
    }
  }
  return undefined;
}

/** Whether any container nests deeper than `maxDepth`, in no particular order: containers and their depths on two stacks. */
function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: object[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const v = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === 'object' && x !== null) {
          stack.push(x);
          depths.push(depth + 1);
        }
      }
    } else {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      for (let i = 0; i < keys.length; i++) {
        const x = o[keys[i]!];
        if (typeof x === 'object' && x !== null) {
          stack.push(x);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/** encoding/json's name for a JSON value's type in an UnmarshalTypeError. */
export function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return 'number';
  return typeof v;
}

/** The struct meta.Interpret decodes apiVersion and kind into, as Go prints its type. */
export const TYPE_META_STRUCT =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * meta.Interpret's error for a decoded document whose type meta does not decode: not an object
 * (null is one, empty), or an apiVersion or kind that is not a string, the first in document order
 * as encoding/json reports it. Undefined when it decodes.
 */
export function typeMetaError(v: unknown): string | undefined {
  const fail = (detail: string): string =>
    `couldn't get version/kind; json parse error: json: cannot unmarshal ${detail}`;
  if (v === null) return undefined;
  if (!isJsonObject(v)) return fail(`${jsonKind(v)} into Go value of type ${TYPE_META_STRUCT}`);
  const mistyped = (k: string): boolean => Object.hasOwn(v, k) && v[k] !== null && typeof v[k] !== 'string';
  const apiVersion = mistyped('apiVersion');
  const kind = mistyped('kind');
  if (!apiVersion && !kind) return undefined;
  // Both mistyped: the first in the document. The keys are listed only then (a body may have 200,000).
  const k =
    apiVersion && kind
      ? Object.keys(v).find((x) => x === 'apiVersion' || x === 'kind')!
      : apiVersion
        ? 'apiVersion'
        : 'kind';
  return fail(`${jsonKind(v[k])} into Go struct field .${k} of type string`);
}
