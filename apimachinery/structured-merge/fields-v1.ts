// FieldsV1: the JSON form of a field set that managedFields entries carry.
//
// Each key is a path element (`f:<name>`, `k:<key object>`, `v:<value>`, `i:<index>`) mapping to
// the set below it; `".": {}` marks an element that is in the set itself and also has children.
// Keys are written in SMD's PathElement order with `.` first, as kube emits them; JS keeps string
// keys in insertion order (none of these look like array indices), so the object built here
// serialises in that order.
import { JsonSyntaxError, parseJsonExact } from '../json-parse.js';
import {
  FieldSet,
  comparePathElements,
  keyElement,
  sortKeyFields,
  type KeyField,
  type PathElement,
} from './fieldpath.js';
import { PAUSE_EVERY, call, pause, runTask, type Task } from './trampoline.js';
import { goJSON, goJSONString } from '../go-json.js';
import { isJsonObject } from '../object.js';

/** A FieldsV1 value: every key maps to another FieldsV1 (the leaves are `{}`). */
interface FieldsV1 {
  [key: string]: FieldsV1;
}

/** A malformed FieldsV1 value or path element; the message follows SMD's. */
export class FieldsV1Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldsV1Error';
  }
}

/** A path element as a FieldsV1 key (SMD's SerializePathElement). Field names are written raw. */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return 'f:' + pe.name;
    case 'key':
      return (
        'k:{' + pe.key.map(([name, v]) => goJSONString(name, 'jsoniter') + ':' + goJSON(v, 'jsoniter')).join(',') + '}'
      );
    case 'value':
      return 'v:' + goJSON(pe.value, 'jsoniter');
    case 'index':
      return 'i:' + String(pe.index);
  }
}

/**
 * Parses a FieldsV1 key (SMD's DeserializePathElement). Returns undefined for a well-formed key of
 * a type this version does not know (`r:...`), which SMD drops; throws FieldsV1Error otherwise.
 */
export function deserializePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new FieldsV1Error('key must be 2 characters long:');
  if (s[1] !== ':') throw new FieldsV1Error(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { kind: 'field', name: body };
    case 'v':
      return { kind: 'value', value: parseEmbeddedJSON(body) };
    case 'k': {
      const v = parseEmbeddedJSON(body);
      if (v === null) return keyElement([]);
      if (!isJsonObject(v)) throw new FieldsV1Error(`ReadObjectCB: expect { or n, but found ${describeJSON(v)}`);
      const fields: KeyField[] = Object.keys(v).map((k) => [k, v[k]] as const);
      return { kind: 'key', key: sortKeyFields(fields) };
    }
    case 'i':
      return { kind: 'index', index: parseGoInt(body) };
    default:
      return undefined;
  }
}

/** One JSON value, with nothing but whitespace after it; integers past 2^53 as bigints. */
function parseEmbeddedJSON(text: string): unknown {
  try {
    return parseJsonExact(text, { int64: true }).value;
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new FieldsV1Error(err.message);
    throw err;
  }
}

function describeJSON(v: unknown): string {
  return Array.isArray(v) ? '[' : typeof v === 'string' ? '"' : String(v);
}

/** Go's strconv.Atoi: optional sign, decimal digits, within int64. */
function parseGoInt(text: string): number {
  if (!/^[+-]?\d+$/.test(text))
    throw new FieldsV1Error(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = BigInt(text);
  if (n > 0x7fffffffffffffffn || n < -0x8000000000000000n)
    throw new FieldsV1Error(`strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  return Number(n);
}

/** Encodes a set as a FieldsV1 object, keys in the order kube writes them. */
export function fieldSetToFieldsV1(set: FieldSet): FieldsV1 {
  return runTask(fieldSetToFieldsV1Task(set));
}

/** fieldSetToFieldsV1 as a task, for runs that are sliced. */
export function fieldSetToFieldsV1Task(set: FieldSet): Task<FieldsV1> {
  return emit(set, false);
}

/** Encodes a set as FieldsV1 JSON text, byte for byte as SMD's Set.ToJSON writes it. */
export function fieldSetToFieldsV1JSON(set: FieldSet): string {
  return writeFieldsV1(fieldSetToFieldsV1(set));
}

function writeFieldsV1(v: FieldsV1): string {
  return runTask(writeTask(v));
}

function* writeTask(v: FieldsV1): Task<string> {
  const parts: string[] = [];
  for (const k of Object.keys(v)) parts.push(goJSONString(k, 'jsoniter') + ':' + (yield* call(writeTask(v[k]!))));
  return '{' + parts.join(',') + '}';
}

function* emit(set: FieldSet, includeSelf: boolean): Task<FieldsV1> {
  const out: FieldsV1 = {};
  const members = set.members;
  const children = set.children;
  if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = {};
  let mi = 0;
  let ci = 0;
  while (mi < members.length || ci < children.length) {
    if ((mi + ci) % PAUSE_EVERY === PAUSE_EVERY - 1) yield pause();
    const m = members[mi];
    const c = children[ci];
    const order = m === undefined ? 1 : c === undefined ? -1 : comparePathElements(m, c.element);
    if (order < 0) {
      out[serializePathElement(m!)] = {};
      mi++;
    } else if (order > 0) {
      out[serializePathElement(c!.element)] = yield* call(emit(c!.set, false));
      ci++;
    } else {
      // Both a member and a parent: the child object starts with ".".
      out[serializePathElement(c!.element)] = yield* call(emit(c!.set, true));
      mi++;
      ci++;
    }
  }
  return out;
}

/**
 * Decodes a FieldsV1 value (already parsed from JSON) into a set, as SMD's Set.FromJSON reads
 * it: unknown key types are dropped, `null` stands for an empty object, anything else that is
 * not an object is an error.
 */
export function fieldsV1ToFieldSet(value: unknown): FieldSet {
  if (value === null || value === undefined) return new FieldSet();
  if (!isJsonObject(value)) throw new FieldsV1Error(`ReadMapCB: expect { or n, but found ${describeJSON(value)}`);
  return runTask(readLevel(value)).children ?? new FieldSet();
}

/**
 * Parses FieldsV1 JSON text (SMD's Set.FromJSON). Unlike Go's decoder this has no depth limit:
 * the fields of an object 10,000 deep nest one level deeper than that, and must read back.
 */
export function parseFieldsV1(text: string): FieldSet {
  let value: unknown;
  try {
    value = parseJsonExact(text, { int64: true, maxDepth: Infinity }).value;
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new FieldsV1Error(err.message);
    throw err;
  }
  return fieldsV1ToFieldSet(value);
}

/**
 * Reads one object level: the set of what is below it, and whether the element it belongs to is
 * itself a member (it has ".", or nothing below it at all).
 */
function* readLevel(obj: { [key: string]: unknown }): Task<{ children: FieldSet | undefined; isMember: boolean }> {
  let children: FieldSet | undefined;
  let isMember = false;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (key === '.') {
      isMember = true;
      continue;
    }
    let pe: PathElement | undefined;
    try {
      pe = deserializePathElement(key);
    } catch (err) {
      if (err instanceof FieldsV1Error) throw new FieldsV1Error(`parsing key as path element: ${err.message}`);
      throw err;
    }
    if (pe === undefined) continue;
    if (v !== null && !isJsonObject(v))
      throw new FieldsV1Error(`ReadMapCB: expect { or n, but found ${describeJSON(v)}`);
    const below = v === null ? { children: undefined, isMember: true } : yield* call(readLevel(v));
    if (below.isMember) (children ??= new FieldSet()).addMember(pe);
    if (below.children) (children ??= new FieldSet()).replaceChild(pe, below.children);
  }
  if (children === undefined) isMember = true;
  return { children, isMember };
}
