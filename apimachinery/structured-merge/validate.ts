// Checks that a value fits its type (SMD's typed/validate.go): scalar kinds, list-map keys
// present, no duplicate list items unless allowed, no fields the schema does not declare.
import { indexElement, pathElementKey, pathElementString, type PathElement } from './fieldpath.js';
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
  const step = validateNode(type, value, options.allowDuplicates === true);
  return isTask(step) ? yield* call(step) : step;
}

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

/** Errors at a node: directly for leaves, as a task for containers. */
function validateNode(type: TypeNode | undefined, value: unknown, allowDuplicates: boolean): Errors | Task<Errors> {
  if (type === undefined) return errorOf(INVALID_ATOM);
  return handleAtom<Errors | Task<Errors>>(deduceAtom(type, value), {
    scalar: (kind) => validateScalar(kind, value, ''),
    list: (list) => {
      if (value === null || value === undefined) return [];
      if (!Array.isArray(value)) return errorOf(`expected list, got ${goValueString(value)}`);
      return validateListItems(list, value, allowDuplicates);
    },
    map: (map) => {
      if (value === null || value === undefined) return [];
      if (!isJsonObject(value)) return errorOf(`expected map, got ${goValueString(value)}`);
      return validateMapItems(map, value, allowDuplicates);
    },
    invalid: () => errorOf(INVALID_ATOM),
  });
}

function* validateListItems(list: ListType, items: unknown[], allowDuplicates: boolean): Task<Errors> {
  const errs: Errors = [];
  const observed = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    if (i % PAUSE_EVERY === PAUSE_EVERY - 1) yield pause();
    const child = items[i];
    let pe: PathElement;
    if (list.relationship === 'atomic') {
      pe = indexElement(i);
    } else {
      try {
        pe = listItemToPathElement(list, child);
      } catch (err) {
        // Without the item's name nothing below it can be reported; stop at this list.
        errs.push(...errorOf(`element ${i}: ${messageOf(err)}`));
        return errs;
      }
      const key = pathElementKey(pe);
      if (observed.has(key) && !allowDuplicates)
        errs.push(...errorOf(`duplicate entries for key ${pathElementString(pe)}`));
      observed.add(key);
    }
    const step = validateNode(list.elementType, child, allowDuplicates);
    const below = isTask(step) ? ((yield step) as Errors) : step;
    if (below.length > 0) appendAll(errs, withPrefix(below, pathElementString(pe)));
  }
  return errs;
}

function* validateMapItems(map: MapType, m: { [key: string]: unknown }, allowDuplicates: boolean): Task<Errors> {
  const errs: Errors = [];
  let i = 0;
  for (const [key, val] of presentEntries(m)) {
    if (i++ % PAUSE_EVERY === PAUSE_EVERY - 1) yield pause();
    const t = map.fields.get(key)?.type ?? map.elementType;
    if (t === undefined) {
      errs.push(...withPrefix(errorOf('field not declared in schema'), '.' + key));
      break;
    }
    const step = validateNode(t, val, allowDuplicates);
    const below = isTask(step) ? ((yield step) as Errors) : step;
    if (below.length > 0) appendAll(errs, withPrefix(below, '.' + key));
  }
  return errs;
}
