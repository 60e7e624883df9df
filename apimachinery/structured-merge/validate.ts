// Checks that a value fits its type (SMD's typed/validate.go): scalar kinds, list-map keys
// present, no duplicate list items unless allowed, no fields the schema does not declare. The same
// walk can also record what a create of the value adds (validateCreatedTask).
import {
  FieldSet,
  PathCursor,
  fieldElement,
  indexElement,
  pathElementKey,
  pathElementString,
  type PathElement,
} from './fieldpath.js';
import type { ListType, MapType, ScalarKind, TypeNode } from './schema.js';
import { PAUSE_EVERY, call, isTask, pause, runTask, type Task } from './trampoline.js';
import {
  INVALID_ATOM,
  errorOf,
  listItemToPathElement,
  messageOf,
  withPrefix,
  type ValidationError,
} from './typed-helpers.js';
import { goValueString, isScalar } from './values.js';
import { isJsonObject } from '../object.js';
import { appendAll } from '../append.js';

export interface ValidateOptions {
  /**
   * Accept sets and list-maps with repeated items. Objects already stored may have them (kube
   * reads live objects this way); an apply configuration may not.
   */
  allowDuplicates?: boolean;
  /** A container nesting deeper than this (the value itself is level 1) does not fit. */
  maxDepth?: number;
}

/** Every way `value` does not fit `type`; empty when it fits. */
export function validationErrors(type: TypeNode, value: unknown, options: ValidateOptions = {}): ValidationError[] {
  return runTask(validationErrorsTask(type, value, options));
}

/** validationErrors as a task, for runs that are sliced. */
export function* validationErrorsTask(
  type: TypeNode,
  value: unknown,
  options: ValidateOptions = {},
): Task<ValidationError[]> {
  const step = validateNode(type, value, walkOf(options, undefined), 1, undefined);
  // A leaf's answer may be the shared NONE: the caller gets an array of its own.
  return isTask(step) ? yield* call(step) : [...step];
}

/**
 * validationErrors, and what a create of `value` adds: when it fits, exactly compare's `added` for
 * an empty object against it (compare's errors are then none), found in validation's own walk
 * rather than a second one. Every node the comparison reaches is added; it goes below neither an
 * atomic value nor a list item repeated (a repeated item is added whole).
 */
export function* validateCreatedTask(
  type: TypeNode,
  value: { [key: string]: unknown },
  options: ValidateOptions = {},
): Task<{ errors: ValidationError[]; added: FieldSet }> {
  const added = new FieldSet();
  const step = validateNode(type, value, walkOf(options, added), 1, new PathCursor());
  return { errors: isTask(step) ? yield* call(step) : [...step], added };
}

/** A walk's options, and the set it adds a create's paths to (validateCreatedTask). */
interface Walk {
  allowDuplicates: boolean;
  maxDepth: number;
  added: FieldSet | undefined;
}

const walkOf = (options: ValidateOptions, added: FieldSet | undefined): Walk => ({
  allowDuplicates: options.allowDuplicates === true,
  maxDepth: options.maxDepth ?? Infinity,
  added,
});

/** Go's %T for a decoded JSON value, as SMD's numeric check prints it. */
function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  if (isJsonObject(v)) return 'map[string]interface {}';
  return '<nil>';
}

/**
 * No errors: one array for every leaf that fits, which no one may add to (frozen, so that a caller
 * that tried would fail at once).
 */
const NONE: ValidationError[] = Object.freeze([]) as unknown as ValidationError[];

/** SMD's validateScalar: null is fine for any scalar; `prefix` names the side in merges. */
export function validateScalar(kind: ScalarKind, v: unknown, prefix: string): ValidationError[] {
  if (v === undefined || v === null) return NONE;
  const t = typeof v;
  const isNumber = t === 'number' || t === 'bigint';
  switch (kind) {
    case 'numeric':
      return isNumber ? NONE : errorOf(`${prefix}expected numeric (int or float), got ${goTypeName(v)}`);
    case 'string':
      return t === 'string' ? NONE : errorOf(`${prefix}expected string, got ${goValueString(v)}`);
    case 'boolean':
      return t === 'boolean' ? NONE : errorOf(`${prefix}expected boolean, got ${goValueString(v)}`);
    case 'untyped':
      return isNumber || t === 'string' || t === 'boolean'
        ? NONE
        : errorOf(`${prefix}expected any scalar, got ${goValueString(v)}`);
  }
}

/**
 * Which of `type`'s atoms handles `value`: SMD's deduceAtom then handleAtom (the value's own kind
 * when the type has it, else the type's atoms map first), without the atom object deduceAtom
 * makes nor the handler's closures, at every node of every write.
 */
function atomFor(type: TypeNode, value: unknown): 'map' | 'scalar' | 'list' | undefined {
  if (value !== undefined && value !== null) {
    if (isScalar(value)) {
      if (type.scalar) return 'scalar';
    } else if (Array.isArray(value)) {
      if (type.list) return 'list';
    } else if (isJsonObject(value)) {
      if (type.map) return 'map';
    }
  }
  return type.map ? 'map' : type.scalar ? 'scalar' : type.list ? 'list' : undefined;
}

type Errors = ValidationError[];

/**
 * Errors at a node, `depth` levels down: directly for leaves, as a task for containers. With a
 * `path`, the node is added to the walk's set, and so is what lies below it that a comparison
 * reaches.
 */
function validateNode(
  type: TypeNode | undefined,
  value: unknown,
  walk: Walk,
  depth: number,
  path: PathCursor | undefined,
): Errors | Task<Errors> {
  if (path) path.insertInto(walk.added!);
  if (type === undefined) return errorOf(INVALID_ATOM);
  if (depth > walk.maxDepth && typeof value === 'object' && value !== null)
    return errorOf(`nests deeper than ${walk.maxDepth} levels`);
  switch (atomFor(type, value)) {
    case 'scalar':
      return validateScalar(type.scalar!, value, '');
    case 'list': {
      const list = type.list!;
      if (value === null || value === undefined) return NONE;
      if (!Array.isArray(value)) return errorOf(`expected list, got ${goValueString(value)}`);
      return validateListItems(list, value, walk, depth, list.relationship === 'atomic' ? undefined : path);
    }
    case 'map': {
      const map = type.map!;
      if (value === null || value === undefined) return NONE;
      if (!isJsonObject(value)) return errorOf(`expected map, got ${goValueString(value)}`);
      return validateMapItems(map, value, walk, depth, map.relationship === 'atomic' ? undefined : path);
    }
    default:
      return errorOf(INVALID_ATOM);
  }
}

/** The elements naming a keyed list's items, up to the first item without one (and its error). */
function itemElements(list: ListType, items: unknown[]): { elements: PathElement[]; failure?: string } {
  const elements: PathElement[] = [];
  for (let i = 0; i < items.length; i++) {
    try {
      elements.push(listItemToPathElement(list, items[i]));
    } catch (err) {
      return { elements, failure: `element ${i}: ${messageOf(err)}` };
    }
  }
  return { elements };
}

/** The keys of the elements that appear more than once. */
function repeatedKeys(elements: PathElement[]): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const pe of elements) {
    const key = pathElementKey(pe);
    if (seen.has(key)) repeated.add(key);
    else seen.add(key);
  }
  return repeated;
}

function* validateListItems(
  list: ListType,
  items: unknown[],
  walk: Walk,
  depth: number,
  path: PathCursor | undefined,
): Task<Errors> {
  const errs: Errors = [];
  const observed = new Set<string>();
  const keyed = list.relationship === 'atomic' ? undefined : itemElements(list, items);
  // Whether an item is repeated must be known before its first occurrence is walked.
  const repeated = path && keyed ? repeatedKeys(keyed.elements) : undefined;
  for (let i = 0; i < items.length; i++) {
    if (i % PAUSE_EVERY === PAUSE_EVERY - 1) yield pause();
    const child = items[i];
    let pe: PathElement;
    let childPath: PathCursor | undefined;
    if (keyed === undefined) {
      pe = indexElement(i);
    } else {
      if (i === keyed.elements.length) {
        // Without the item's name nothing below it can be reported; stop at this list.
        errs.push(...errorOf(keyed.failure!));
        return errs;
      }
      pe = keyed.elements[i]!;
      const key = pathElementKey(pe);
      if (observed.has(key) && !walk.allowDuplicates)
        errs.push(...errorOf(`duplicate entries for key ${pathElementString(pe)}`));
      observed.add(key);
      if (path) {
        childPath = path.child(pe);
        if (repeated!.has(key)) {
          childPath.insertInto(walk.added!);
          childPath = undefined;
        }
      }
    }
    const step = validateNode(list.elementType, child, walk, depth + 1, childPath);
    const below = isTask(step) ? ((yield step) as Errors) : step;
    if (below.length > 0) appendAll(errs, withPrefix(below, pathElementString(pe)));
  }
  return errs;
}

function* validateMapItems(
  map: MapType,
  m: { [key: string]: unknown },
  walk: Walk,
  depth: number,
  path: PathCursor | undefined,
): Task<Errors> {
  const errs: Errors = [];
  const keys = Object.keys(m);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const val = m[key];
    if (val === undefined) continue;
    if (i % PAUSE_EVERY === PAUSE_EVERY - 1) yield pause();
    const t = map.fields.get(key)?.type ?? map.elementType;
    if (t === undefined) {
      errs.push(...withPrefix(errorOf('field not declared in schema'), '.' + key));
      break;
    }
    const step = validateNode(t, val, walk, depth + 1, path?.child(fieldElement(key)));
    const below = isTask(step) ? ((yield step) as Errors) : step;
    if (below.length > 0) appendAll(errs, withPrefix(below, '.' + key));
  }
  return errs;
}
