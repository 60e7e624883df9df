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
  deduceAtom,
  errorOf,
  handleAtom,
  listItemToPathElement,
  messageOf,
  withPrefix,
  type ValidationError,
} from './typed-helpers.js';
import { goValueString, presentEntries } from './values.js';
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
  return isTask(step) ? yield* call(step) : step;
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
  return { errors: isTask(step) ? yield* call(step) : step, added };
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

/** SMD's validateScalar: null is fine for any scalar; `prefix` names the side in merges. */
export function validateScalar(kind: ScalarKind, v: unknown, prefix: string): ValidationError[] {
  if (v === undefined || v === null) return [];
  const t = typeof v;
  const isNumber = t === 'number' || t === 'bigint';
  switch (kind) {
    case 'numeric':
      return isNumber ? [] : errorOf(`${prefix}expected numeric (int or float), got ${goTypeName(v)}`);
    case 'string':
      return t === 'string' ? [] : errorOf(`${prefix}expected string, got ${goValueString(v)}`);
    case 'boolean':
      return t === 'boolean' ? [] : errorOf(`${prefix}expected boolean, got ${goValueString(v)}`);
    case 'untyped':
      return isNumber || t === 'string' || t === 'boolean'
        ? []
        : errorOf(`${prefix}expected any scalar, got ${goValueString(v)}`);
  }
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
  return handleAtom<Errors | Task<Errors>>(deduceAtom(type, value), {
    scalar: (kind) => validateScalar(kind, value, ''),
    list: (list) => {
      if (value === null || value === undefined) return [];
      if (!Array.isArray(value)) return errorOf(`expected list, got ${goValueString(value)}`);
      return validateListItems(list, value, walk, depth, list.relationship === 'atomic' ? undefined : path);
    },
    map: (map) => {
      if (value === null || value === undefined) return [];
      if (!isJsonObject(value)) return errorOf(`expected map, got ${goValueString(value)}`);
      return validateMapItems(map, value, walk, depth, map.relationship === 'atomic' ? undefined : path);
    },
    invalid: () => errorOf(INVALID_ATOM),
  });
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
  let i = 0;
  for (const [key, val] of presentEntries(m)) {
    if (i++ % PAUSE_EVERY === PAUSE_EVERY - 1) yield pause();
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
