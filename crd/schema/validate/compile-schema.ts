// Validation of a custom resource against its CRD version's openAPIV3Schema, as kube-apiserver does it:
//
//  1. kube-openapi's SchemaValidator (k8s.io/kube-openapi/pkg/validation/validate), fed the schema as
//     apiextensions-apiserver converts it (unsupported formats stripped, x-kubernetes-int-or-string
//     as type [integer, string]) and its errors turned into field errors as
//     kubeOpenAPIResultToFieldErrors does;
//  2. embedded resources (apiextensions-apiserver/pkg/apiserver/schema/objectmeta Validate):
//     apiVersion, kind and metadata of every x-kubernetes-embedded-resource;
//  3. list-type set/map uniqueness (pkg/apiserver/schema/listtype ValidateListSetsAndMaps).
//
// validateUpdate adds kube's validation ratcheting (CRDValidationRatcheting, GA in 1.33): schema
// errors at a position whose value is unchanged from the old object (correlated through object
// keys and x-kubernetes-list-type=map keys) are dropped; list-type errors are skipped altogether when
// the old object had some; embedded resources are validated as on create.
//
// Error order follows kube: the validators of one schema node run in kube-openapi's order (type,
// allOf/anyOf/oneOf/not, string, format, number, array, enum, object) and errors are de-duplicated by
// message. Where kube iterates a Go map (object keys, schema properties) its order is random; we use
// the order of the keys in the object.
import type { RE2JS } from 're2js';
import { re2 } from '../../../apimachinery/re2.js';
import {
  type FieldError,
  GoPrinted,
  child,
  duplicate,
  formatFieldError,
  goQuote,
  index,
  invalid,
  key,
  notSupported,
  required,
} from '../../../apimachinery/field-errors.js';
import { validateObjectMeta } from '../../../apimachinery/validation/object-meta.js';
import { isDNS1035Label, validatePathSegmentName } from '../../../apimachinery/validation/names.js';
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import { type FormatCheck, formatCheck } from '../../../apimachinery/validation/strfmt.js';
import {
  type FloatInfo,
  type GoKind,
  dchild,
  dindex,
  floatInfo,
  goBadValue,
  goDeepEqual,
  goEnumMatch,
  goFixed6,
  goFloat,
  goInt64,
  goIntString,
  goJSON,
  goKind,
  goSharpMap,
  isJSONInteger,
  plainFloat,
} from './go-values.js';
import { isJsonObject } from '../../../apimachinery/object.js';

export interface ValidateOptions {
  /** paths (kube field.Path text, e.g. "spec.size") whose JSON literal was a number written with a fraction or exponent, such as 1.0 */
  floatLiterals?: ReadonlySet<string>;
  /** Where the value sits, for messages (a schema default: `...properties[size].default`); the object root when absent. */
  rootPath?: string;
}

export interface CompiledSchema {
  validate(obj: unknown, opts?: ValidateOptions): FieldError[];
  validateUpdate(obj: unknown, old: unknown, opts?: ValidateOptions): FieldError[];
  /**
   * A write to the status subresource (statusStrategy.ValidateUpdate): the status alone against
   * the status schema, its messages naming paths from the status and its fields under `status`,
   * then list sets and maps over the whole object, ratcheted on the old one.
   */
  validateStatusUpdate(obj: unknown, old: unknown, opts?: ValidateOptions): FieldError[];
}

// ---------------------------------------------------------------------------------------------
// The compiled schema

interface Node {
  /** `type` as kube-openapi sees it: [type], or [integer, string] for x-kubernetes-int-or-string. */
  types: string[];
  /** The schema's own `type` (the structural type). */
  rawType: string;
  nullable: boolean;
  /** `format` if kube keeps it (a supported format), else ''. */
  format: string;
  formatCheck?: FormatCheck;
  enumValues?: unknown[];
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  patternRe?: RE2JS;
  patternError?: string;
  maximum?: number;
  exclusiveMaximum: boolean;
  minimum?: number;
  exclusiveMinimum: boolean;
  multipleOf?: number;
  maxItems?: number;
  minItems?: number;
  uniqueItems: boolean;
  items?: Node;
  tupleItems?: Node[];
  maxProperties?: number;
  minProperties?: number;
  required: string[];
  properties: Map<string, Node>;
  /** undefined when absent; a boolean for `true`/`false`; the schema otherwise. */
  additionalProperties?: Node | boolean;
  allOf: Node[];
  anyOf: Node[];
  oneOf: Node[];
  not?: Node;
  listType?: string;
  listMapKeys: string[];
  embedded: boolean;
  /** Whether this node or one below it (items, properties, additionalProperties) has a listType: listTypeErrors skips the rest. */
  listTypesWithin: boolean;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const schemaList = (v: unknown): Node[] => (Array.isArray(v) ? v.map(compileNode) : []);

function compileNode(raw: unknown): Node {
  const s = (isJsonObject(raw) ? raw : {}) as JSONSchemaProps & Record<string, unknown>;
  const rawType = typeof s.type === 'string' ? s.type : '';
  const types = s['x-kubernetes-int-or-string'] === true ? ['integer', 'string'] : rawType ? [rawType] : [];
  const check = typeof s.format === 'string' ? formatCheck(s.format) : undefined;
  const node: Node = {
    types,
    rawType,
    nullable: s.nullable === true,
    format: check ? (s.format as string) : '',
    exclusiveMaximum: s.exclusiveMaximum === true,
    exclusiveMinimum: s.exclusiveMinimum === true,
    uniqueItems: s.uniqueItems === true,
    required: Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [],
    properties: new Map(),
    allOf: schemaList(s.allOf),
    anyOf: schemaList(s.anyOf),
    oneOf: schemaList(s.oneOf),
    listMapKeys: Array.isArray(s['x-kubernetes-list-map-keys'])
      ? s['x-kubernetes-list-map-keys'].filter((k): k is string => typeof k === 'string')
      : [],
    embedded: s['x-kubernetes-embedded-resource'] === true,
    listTypesWithin: false,
  };
  if (check) node.formatCheck = check;
  if (Array.isArray(s.enum)) node.enumValues = s.enum;
  const set = <K extends keyof Node>(k: K, v: Node[K] | undefined): void => {
    if (v !== undefined) node[k] = v;
  };
  set('maxLength', num(s.maxLength));
  set('minLength', num(s.minLength));
  set('maximum', num(s.maximum));
  set('minimum', num(s.minimum));
  set('multipleOf', num(s.multipleOf));
  set('maxItems', num(s.maxItems));
  set('minItems', num(s.minItems));
  set('maxProperties', num(s.maxProperties));
  set('minProperties', num(s.minProperties));
  if (typeof s.pattern === 'string' && s.pattern !== '') {
    node.pattern = s.pattern;
    try {
      node.patternRe = re2().RE2JS.compile(s.pattern);
    } catch (e) {
      node.patternError = e instanceof Error ? e.message : String(e);
    }
  }
  if (Array.isArray(s.items)) node.tupleItems = s.items.map(compileNode);
  else if (isJsonObject(s.items)) node.items = compileNode(s.items);
  if (isJsonObject(s.properties))
    for (const [k, v] of Object.entries(s.properties)) node.properties.set(k, compileNode(v));
  if (typeof s.additionalProperties === 'boolean') node.additionalProperties = s.additionalProperties;
  else if (isJsonObject(s.additionalProperties)) node.additionalProperties = compileNode(s.additionalProperties);
  if (isJsonObject(s.not)) node.not = compileNode(s.not);
  if (typeof s['x-kubernetes-list-type'] === 'string') node.listType = s['x-kubernetes-list-type'];
  const extra = additionalSchema(node);
  node.listTypesWithin =
    node.listType !== undefined ||
    node.items?.listTypesWithin === true ||
    extra?.listTypesWithin === true ||
    [...node.properties.values()].some((p) => p.listTypesWithin);
  return node;
}

const additionalSchema = (n: Node): Node | undefined =>
  typeof n.additionalProperties === 'object' ? n.additionalProperties : undefined;

// ---------------------------------------------------------------------------------------------
// kube-openapi results

type Code = 'type' | 'required' | 'enum' | 'tooLong' | 'tooMany' | 'invalid' | 'composite';

/** An error as kube-openapi reports it: the path ("name"), the message, and what its conversion needs. */
interface OErr {
  code: Code;
  name: string;
  msg: string;
  value?: unknown;
  values?: string[];
  max?: number;
  actual?: number;
}

/** A kube-openapi Result: errors and MatchCount (which picks the reported anyOf/oneOf branch). */
interface Res {
  errs: OErr[];
  count: number;
}

const newRes = (): Res => ({ errs: [], count: 0 });
function merge(into: Res, from: Res | undefined): void {
  if (!from) return;
  for (const e of from.errs) into.errs.push(e);
  into.count += from.count;
}
const fail = (e: OErr): Res => ({ errs: [e], count: 0 });

interface Ctx {
  isFloat: FloatInfo;
}

/** `%s in body ...` */
const inBody = (name: string, text: string): string => `${name} in body ${text}`;

function typeError(name: string, typeName: string, value: string): OErr {
  return { code: 'type', name, value, msg: inBody(name, `must be of type ${typeName}: ${goQuote(value)}`) };
}

const schemaTypeInfo: Record<string, [string, string]> = {
  bool: ['boolean', ''],
  string: ['string', ''],
  int: ['integer', 'int64'],
  float: ['number', 'float64'],
  slice: ['array', ''],
  map: ['object', ''],
};

/** kube-openapi's typeValidator. */
function checkType(n: Node, data: unknown, kind: string, path: string): Res {
  const [schType, fmt] = schemaTypeInfo[kind]!;
  const has = (t: string): boolean => n.types.includes(t);
  const isFloatInt = schType === 'number' && isJSONInteger(data as number) && has('integer');
  const isIntFloat = schType === 'integer' && has('number');
  if (
    kind !== 'string' &&
    kind !== 'slice' &&
    n.format !== '' &&
    !(has(schType) || fmt === n.format || isFloatInt || isIntFloat)
  ) {
    return fail(typeError(path, n.format, fmt));
  }
  if (!(has('number') || has('integer')) && n.format !== '' && (kind === 'string' || kind === 'slice'))
    return { errs: [], count: 1 };
  if (!(has(schType) || isFloatInt || isIntFloat)) return fail(typeError(path, n.types.join(','), schType));
  return { errs: [], count: 1 };
}

/** The enum check (basicCommonValidator). */
function checkEnum(n: Node, data: unknown, path: string, dpath: string, ctx: Ctx): Res | undefined {
  const allowed = n.enumValues;
  if (!allowed || allowed.length === 0) return undefined;
  if (allowed.some((a) => goEnumMatch(data, dpath, ctx.isFloat, a))) return undefined;
  return fail({
    code: 'enum',
    name: path,
    value: goBadValue(data, dpath, ctx.isFloat),
    values: allowed.map((a) => (typeof a === 'string' ? a : goJSON(a))),
    msg: inBody(path, `should be one of ${goJSON(allowed)}`),
  });
}

function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** kube-openapi's stringValidator: the first of maxLength, minLength, pattern to fail. */
function checkString(n: Node, s: string, path: string): Res | undefined {
  if (n.maxLength !== undefined && runeCount(s) > n.maxLength) {
    return fail({
      code: 'tooLong',
      name: path,
      max: n.maxLength,
      msg: inBody(path, `should be at most ${goIntString(n.maxLength)} chars long`),
    });
  }
  if (n.minLength !== undefined && runeCount(s) < n.minLength) {
    return fail({
      code: 'invalid',
      name: path,
      value: s,
      msg: inBody(path, `should be at least ${goIntString(n.minLength)} chars long`),
    });
  }
  if (n.pattern !== undefined) {
    if (n.patternError !== undefined) {
      return fail({
        code: 'invalid',
        name: path,
        value: s,
        msg: inBody(path, `should match '${n.pattern}, but pattern is invalid: ${n.patternError}'`),
      });
    }
    if (!n.patternRe!.matcher(s).find())
      return fail({ code: 'invalid', name: path, value: s, msg: inBody(path, `should match '${n.pattern}'`) });
  }
  return undefined;
}

/** kube-openapi's numberValidator: multipleOf, then minimum, then maximum, each with int64 or float64 rules. */
function checkNumber(n: Node, v: number | bigint, isInt: boolean, path: string, dpath: string, ctx: Ctx): Res {
  const res = newRes();
  const bad = goBadValue(v, dpath, ctx.isFloat);
  const push = (msg: string, value: unknown = bad): void => {
    res.errs.push({ code: 'invalid', name: path, value, msg });
  };
  if (n.multipleOf !== undefined) {
    const intFactor = goInt64(n.multipleOf);
    // An int64 value is checked with the factor truncated to int64; a factor truncated to 0 makes
    // kube divide by zero (a panic, answered 500): we judge that case as a float instead.
    if (isInt && intFactor !== 0) {
      if (intFactor < 0)
        push(`factor MultipleOf declared for ${path} must be positive: ${goIntString(intFactor)}`, intFactor);
      else if (BigInt(v) % BigInt(intFactor) !== 0n)
        push(inBody(path, `should be a multiple of ${goIntString(intFactor)}`));
    } else {
      const factor = n.multipleOf;
      if (factor < 0)
        push(
          `factor MultipleOf declared for ${path} must be positive: ${goFloat(factor)}`,
          goBadValue(factor, '', () => true),
        );
      else {
        const f = Number(v);
        const mult = factor < 1 ? (1 / factor) * f : f / factor;
        if (!isJSONInteger(mult)) push(inBody(path, `should be a multiple of ${goFloat(factor)}`));
      }
    }
  }
  if (n.minimum !== undefined) {
    const ex = n.exclusiveMinimum;
    const bound = isInt ? goInt64(n.minimum) : n.minimum;
    if (ex ? v <= bound : v < bound) {
      push(
        inBody(
          path,
          `should be greater than ${ex ? '' : 'or equal to '}${isInt ? goIntString(bound) : goFloat(bound)}`,
        ),
      );
    }
  }
  if (n.maximum !== undefined) {
    const ex = n.exclusiveMaximum;
    const bound = isInt ? goInt64(n.maximum) : n.maximum;
    if (ex ? v >= bound : v > bound) {
      push(
        inBody(path, `should be less than ${ex ? '' : 'or equal to '}${isInt ? goIntString(bound) : goFloat(bound)}`),
      );
    }
  }
  res.count++;
  return res;
}

/** Renders the errors of an anyOf/oneOf branch for the explanation kube does not give. */
function explainBranch(label: string, r: Res): string {
  const text = finalize(r.errs).map(formatFieldError).join('; ');
  return `\n${label}: ${text}`;
}

/** kube-openapi's schemaPropsValidator: anyOf, oneOf, allOf, not. */
function checkSchemaProps(n: Node, data: unknown, path: string, dpath: string, ctx: Ctx, corr: Corr | null): Res {
  const main = newRes();
  if (n.anyOf.length > 0) {
    let best: Res | undefined;
    let firstSuccess: Res | undefined;
    const tried: Res[] = [];
    for (const b of n.anyOf) {
      const r = validateNode(b, data, path, dpath, ctx, corr);
      tried.push(r);
      if (r.errs.length === 0) {
        best = undefined;
        firstSuccess = r;
        break;
      }
      if (!best || r.count > best.count) best = r;
    }
    if (!firstSuccess) {
      const why = tried.map((r, i) => explainBranch(`anyOf[${i}]`, r)).join('');
      main.errs.push({
        code: 'composite',
        name: path,
        msg: `${goQuote(path)} must validate at least one schema (anyOf)${why}`,
      });
    }
    merge(main, best ?? firstSuccess);
  }
  if (n.oneOf.length > 0) {
    let best: Res | undefined;
    let firstSuccess: Res | undefined;
    const valid: number[] = [];
    const tried: Res[] = [];
    n.oneOf.forEach((b, i) => {
      const r = validateNode(b, data, path, dpath, ctx, corr);
      tried.push(r);
      if (r.errs.length === 0) {
        valid.push(i);
        best = undefined;
        firstSuccess ??= r;
        return;
      }
      if (valid.length === 0 && (!best || r.count > best.count)) best = r;
    });
    if (valid.length !== 1) {
      const why =
        valid.length === 0
          ? `Found none valid${tried.map((r, i) => explainBranch(`oneOf[${i}]`, r)).join('')}`
          : `Found ${valid.length} valid alternatives\nvalid: ${valid.map((i) => `oneOf[${i}]`).join(', ')}`;
      main.errs.push({
        code: 'composite',
        name: path,
        msg: `${goQuote(path)} must validate one and only one schema (oneOf). ${why}`,
      });
      merge(main, best);
    } else merge(main, firstSuccess);
  }
  if (n.allOf.length > 0) {
    let validated = 0;
    for (const b of n.allOf) {
      const r = validateNode(b, data, path, dpath, ctx, corr);
      if (r.errs.length === 0) validated++;
      merge(main, r);
    }
    if (validated !== n.allOf.length) {
      main.errs.push({
        code: 'composite',
        name: path,
        msg: `${goQuote(path)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}`,
      });
    }
  }
  if (n.not) {
    const r = validateNode(n.not, data, path, dpath, ctx, corr);
    if (r.errs.length === 0)
      main.errs.push({ code: 'composite', name: path, msg: `${goQuote(path)} must not validate the schema (not)` });
  }
  main.count++;
  return main;
}

/** kube-openapi's schemaSliceValidator. */
function checkSlice(n: Node, arr: unknown[], path: string, dpath: string, ctx: Ctx, corr: Corr | null): Res {
  const res = newRes();
  if (n.items) {
    for (let i = 0; i < arr.length; i++)
      merge(res, validateEntry(n.items, arr[i], `${path}[${i}]`, dindex(dpath, i), ctx, corr?.index(i) ?? null));
  } else if (n.tupleItems) {
    for (let i = 0; i < n.tupleItems.length && i < arr.length; i++) {
      merge(
        res,
        validateEntry(n.tupleItems[i]!, arr[i], `${path}[${i}]`, dindex(dpath, i), ctx, corr?.index(i) ?? null),
      );
    }
  }
  const size = arr.length;
  if (n.minItems !== undefined && size < n.minItems) {
    res.errs.push({
      code: 'invalid',
      name: path,
      value: size,
      msg: inBody(path, `should have at least ${goIntString(n.minItems)} items`),
    });
  }
  if (n.maxItems !== undefined && size > n.maxItems) {
    res.errs.push({
      code: 'tooMany',
      name: path,
      actual: size,
      max: n.maxItems,
      msg: inBody(path, `should have at most ${goIntString(n.maxItems)} items`),
    });
  }
  if (n.uniqueItems) {
    const dup = arr.some((x, i) =>
      arr.slice(0, i).some((y, j) => goDeepEqual(x, dindex(dpath, i), ctx.isFloat, y, dindex(dpath, j), ctx.isFloat)),
    );
    if (dup)
      res.errs.push({ code: 'invalid', name: path, value: '', msg: inBody(path, "shouldn't contain duplicates") });
  }
  res.count++;
  return res;
}

const isTypeMetaField = (k: string): boolean => k === 'kind' || k === 'apiVersion';

/** kube-openapi's objectValidator. */
function checkObject(
  n: Node,
  obj: Record<string, unknown>,
  path: string,
  dpath: string,
  ctx: Ctx,
  corr: Corr | null,
): Res {
  const res = newRes();
  const keys = Object.keys(obj);
  // The ratcheting validator does not correlate the root's kind and apiVersion.
  const corrFor = (k: string): Corr | null => (corr && !(path === '' && isTypeMetaField(k)) ? corr.key(k) : null);
  if (n.minProperties !== undefined && keys.length < n.minProperties) {
    res.errs.push({
      code: 'invalid',
      name: path,
      value: keys.length,
      msg: inBody(path, `should have at least ${goIntString(n.minProperties)} properties`),
    });
  }
  if (n.maxProperties !== undefined && keys.length > n.maxProperties) {
    res.errs.push({
      code: 'tooMany',
      name: path,
      actual: keys.length,
      max: n.maxProperties,
      msg: inBody(path, `should have at most ${goIntString(n.maxProperties)} properties`),
    });
  }
  if (n.additionalProperties === false) {
    for (const k of keys) {
      if (!n.properties.has(k))
        res.errs.push({ code: 'invalid', name: path, value: k, msg: `${path}.${k} in body is a forbidden property` });
    }
  } else {
    const extra = additionalSchema(n);
    if (extra) {
      for (const k of keys) {
        if (!n.properties.has(k))
          merge(res, validateEntry(extra, obj[k], `${path}.${k}`, dchild(dpath, k), ctx, corrFor(k)));
      }
    }
  }
  for (const k of keys) {
    const p = n.properties.get(k);
    if (p) merge(res, validateEntry(p, obj[k], path ? `${path}.${k}` : k, dchild(dpath, k), ctx, corrFor(k)));
  }
  for (const r of n.required) {
    if (!Object.hasOwn(obj, r))
      res.errs.push({ code: 'required', name: `${path}.${r}`, msg: inBody(`${path}.${r}`, 'is required') });
  }
  return res;
}

/** kube-openapi's SchemaValidator.Validate for one schema node. */
function validateNode(n: Node, data: unknown, path: string, dpath: string, ctx: Ctx, corr: Corr | null): Res {
  const res = newRes();
  if (data === null || data === undefined) {
    // Only the type and enum validators look at a null.
    if (n.types.length > 0 && !n.types.includes('null') && !n.nullable)
      merge(res, fail(typeError(path, n.types.join(','), 'null')));
    else res.count++;
    merge(res, checkEnum(n, null, path, dpath, ctx));
    return res;
  }
  const kind = goKind(data, dpath, ctx.isFloat);
  if (n.types.length > 0 || n.format !== '') {
    merge(res, checkType(n, data, kind, path));
    res.count++;
  }
  merge(res, checkSchemaProps(n, data, path, dpath, ctx, corr));
  res.count++;
  if (kind === 'string') {
    merge(res, checkString(n, data as string, path));
    res.count++;
    if (n.formatCheck) {
      if (!n.formatCheck(data as string)) merge(res, fail(typeError(path, n.format, data as string)));
      res.count++;
    }
  }
  if (kind === 'int' || kind === 'float') {
    merge(res, checkNumber(n, data as number | bigint, kind === 'int', path, dpath, ctx));
    res.count++;
  }
  if (kind === 'slice') {
    merge(res, checkSlice(n, data as unknown[], path, dpath, ctx, corr));
    res.count++;
  }
  merge(res, checkEnum(n, data, path, dpath, ctx));
  res.count++;
  if (kind === 'map') {
    merge(res, checkObject(n, data as Record<string, unknown>, path, dpath, ctx, corr));
    res.count++;
  }
  res.count++;
  return res;
}

/**
 * A property, item or the root: the validator kube creates per field and index. When ratcheting,
 * its errors are dropped if the value equals the correlated old value.
 */
function validateEntry(n: Node, data: unknown, path: string, dpath: string, ctx: Ctx, corr: Corr | null): Res {
  const r = validateNode(n, data, path, dpath, ctx, corr);
  if (corr && r.errs.length > 0 && corr.deepEqual()) return { errs: [], count: r.count };
  return r;
}

// ---------------------------------------------------------------------------------------------
// Ratcheting: old/new correlation (k8s.io/apiserver/pkg/cel/common CorrelatedObject)

const UNKEYED = Symbol('unkeyed');

/** The composite key of an x-kubernetes-list-type=map element (common.MapList key strategies). */
function mapListKey(n: Node, item: unknown, dpath: string, isFloat: FloatInfo): string | typeof UNKEYED {
  if (!isJsonObject(item)) return UNKEYED;
  if (n.listMapKeys.length === 1) {
    const k = n.listMapKeys[0]!;
    if (!Object.hasOwn(item, k)) return UNKEYED;
    const v = item[k];
    return scalarIdentity(v, goKind(v, dchild(dpath, k), isFloat)) ?? UNKEYED;
  }
  let out = 'm:';
  for (const k of n.listMapKeys) {
    if (!Object.hasOwn(item, k)) return UNKEYED;
    const v = item[k];
    switch (goKind(v, dchild(dpath, k), isFloat)) {
      case 'bool':
        out += `\0${String(v)}`;
        break;
      case 'int':
        out += `\0${goIntString(v as number)}`;
        break;
      case 'float':
        out += `\0${goFixed6(v as number)}`;
        break;
      case 'string':
        out += `\0${goQuote(v as string)}`;
        break;
      default:
        return UNKEYED;
    }
  }
  return out;
}

/** Lazily keyed old elements of a map-type list (first element wins for a key). */
class MapList {
  private keyed = new Map<string, unknown>();
  private next = 0;
  constructor(
    private readonly node: Node,
    private readonly items: unknown[],
  ) {}
  get(item: unknown, dpath: string, isFloat: FloatInfo): unknown {
    const n = this.node;
    if (n.rawType !== 'array' || n.listType !== 'map' || n.listMapKeys.length === 0 || this.items.length === 0)
      return undefined;
    const k = mapListKey(n, item, dpath, isFloat);
    if (k === UNKEYED) return undefined;
    if (this.keyed.has(k)) return this.keyed.get(k);
    while (this.next < this.items.length) {
      const old = this.items[this.next++];
      const ok = mapListKey(n, old, '', plainFloat);
      if (ok === UNKEYED) continue;
      if (!this.keyed.has(ok)) this.keyed.set(ok, old);
      if (ok === k) return old;
    }
    return undefined;
  }
}

class Corr {
  private readonly kids = new Map<string | number, Corr | null>();
  private equal: boolean | undefined;
  private mapList: MapList | undefined;
  constructor(
    readonly oldValue: unknown,
    readonly value: unknown,
    readonly node: Node,
    readonly dpath: string,
    readonly ctx: Ctx,
  ) {}

  key(field: string): Corr | null {
    const cached = this.kids.get(field);
    if (cached !== undefined) return cached;
    let res: Corr | null = null;
    const o = this.oldValue;
    const v = this.value;
    if (isJsonObject(o) && isJsonObject(v) && Object.hasOwn(o, field) && Object.hasOwn(v, field)) {
      const sub = this.node.properties.get(field) ?? additionalSchema(this.node);
      if (sub) res = new Corr(o[field], v[field], sub, dchild(this.dpath, field), this.ctx);
    }
    this.kids.set(field, res);
    return res;
  }

  index(i: number): Corr | null {
    const cached = this.kids.get(i);
    if (cached !== undefined) return cached;
    let res: Corr | null = null;
    const o = this.oldValue;
    const v = this.value;
    if (Array.isArray(v) && i < v.length && Array.isArray(o) && this.node.listType === 'map') {
      this.mapList ??= new MapList(this.node, o);
      const old = this.mapList.get(v[i], dindex(this.dpath, i), this.ctx.isFloat);
      if (old !== undefined && this.node.items)
        res = new Corr(old, v[i], this.node.items, dindex(this.dpath, i), this.ctx);
    }
    this.kids.set(i, res);
    return res;
  }

  /** CachedDeepEqual. */
  deepEqual(): boolean {
    this.equal ??= this.computeEqual();
    return this.equal;
  }

  private computeEqual(): boolean {
    const o = this.oldValue;
    const v = this.value;
    const oNil = o === null || o === undefined;
    const vNil = v === null || v === undefined;
    if (oNil || vNil) return oNil && vNil;
    if (Array.isArray(o) !== Array.isArray(v) || isJsonObject(o) !== isJsonObject(v)) return false;
    if (Array.isArray(o) && Array.isArray(v)) {
      if (o.length !== v.length) return false;
      for (let i = 0; i < v.length; i++) {
        const c = this.index(i);
        if (!c)
          return this.node.listType === 'map' ? false : goDeepEqual(o, '', plainFloat, v, this.dpath, this.ctx.isFloat);
        if (!c.deepEqual()) return false;
      }
      return true;
    }
    if (isJsonObject(o) && isJsonObject(v)) {
      const keys = Object.keys(v);
      if (Object.keys(o).length !== keys.length) return false;
      return keys.every((k) => this.key(k)?.deepEqual() === true);
    }
    return goDeepEqual(o, '', plainFloat, v, this.dpath, this.ctx.isFloat);
  }
}

// ---------------------------------------------------------------------------------------------
// kube-openapi errors to field errors (kubeOpenAPIResultToFieldErrors)

function toFieldError(e: OErr, fieldPath: string): FieldError {
  if (e.code === 'composite') return invalid(fieldPath || '<nil>', '', e.msg);
  const name = e.name === '' || e.name === '.' ? '' : e.name.replace(/^\./, '');
  const field = fieldPath && name ? `${fieldPath}.${name}` : fieldPath || name || '<nil>';
  switch (e.code) {
    case 'required':
      return required(field);
    case 'enum':
      return notSupported(field, e.value, e.values ?? []);
    case 'tooLong': {
      const max = e.max ?? -1;
      const detail =
        max >= 0 ? `may not be more than ${goIntString(max)} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
      return { type: 'FieldValueTooLong', field, detail };
    }
    case 'tooMany': {
      const max = e.max ?? -1;
      const detail =
        max >= 0 ? `must have at most ${goIntString(max)} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
      return { type: 'FieldValueTooMany', field, badValue: e.actual, detail };
    }
    case 'type':
      return { type: 'FieldValueTypeInvalid', field, badValue: e.value ?? '', detail: e.msg };
    default:
      return invalid(field, e.value ?? '', e.msg);
  }
}

/** A kube-openapi Result's errors, each message once, as field errors under `fieldPath` (kube's fldPath). */
function finalize(errs: readonly OErr[], fieldPath = ''): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errs) {
    if (seen.has(e.msg)) continue;
    seen.add(e.msg);
    out.push(toFieldError(e, fieldPath));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Embedded resources (schema/objectmeta Validate, isResourceRoot=false)

function embeddedErrors(
  x: unknown,
  n: Node | undefined,
  pth: string,
  dpath: string,
  ctx: Ctx,
  out: FieldError[],
): void {
  if (!n) return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => embeddedErrors(v, n.items, index(pth, i), dindex(dpath, i), ctx, out));
    return;
  }
  if (!isJsonObject(x)) return;
  if (n.embedded) embeddedResourceErrors(x, pth, dpath, ctx, out);
  for (const k of Object.keys(x)) {
    const p = n.properties.get(k);
    if (p) embeddedErrors(x[k], p, child(pth, k), dchild(dpath, k), ctx, out);
    else if (n.additionalProperties !== undefined)
      embeddedErrors(x[k], additionalSchema(n), key(pth, k), dchild(dpath, k), ctx, out);
  }
}

function embeddedResourceErrors(
  x: Record<string, unknown>,
  pth: string,
  dpath: string,
  ctx: Ctx,
  out: FieldError[],
): void {
  const apiVersionPath = child(pth, 'apiVersion');
  const kindPath = child(pth, 'kind');
  if (!Object.hasOwn(x, 'apiVersion')) out.push(required(apiVersionPath));
  if (!Object.hasOwn(x, 'kind')) out.push(required(kindPath));
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (k === 'apiVersion') {
      if (typeof v !== 'string')
        out.push(invalid(apiVersionPath, goBadValue(v, dchild(dpath, k), ctx.isFloat), 'must be a string'));
      else if (v === '') out.push(invalid(apiVersionPath, v, 'must not be empty'));
      else if (v !== '/' && v.split('/').length > 2)
        out.push(invalid(apiVersionPath, v, `unexpected GroupVersion string: ${v}`));
    } else if (k === 'kind') {
      if (typeof v !== 'string')
        out.push(invalid(kindPath, goBadValue(v, dchild(dpath, k), ctx.isFloat), 'must be a string'));
      else if (v === '') out.push(invalid(kindPath, v, 'must not be empty'));
      else {
        const msgs = isDNS1035Label(v.toLowerCase());
        if (msgs.length > 0)
          out.push(invalid(kindPath, v, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
      }
    } else if (k === 'metadata') {
      // kube decodes the metadata into an ObjectMeta (a decoding error is reported on
      // `metadata`) and validates it with a stand-in name when it has none.
      let meta: unknown = v ?? {};
      if (isJsonObject(meta)) {
        const name = meta['name'];
        if (name === undefined || name === null || name === '') meta = { ...meta, name: 'fakename' };
      }
      const ns = isJsonObject(meta) ? meta['namespace'] : undefined;
      out.push(
        ...validateObjectMeta(meta, {
          namespaced: typeof ns === 'string' && ns !== '',
          validateName: validatePathSegmentName,
          path: child(pth, 'metadata'),
        }),
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// x-kubernetes-list-type set and map (schema/listtype ValidateListSetsAndMaps)

const UNSPECIFIED = Symbol('unspecified');

/** The identity kube's set check gives a list element (Go interface equality, or JSON for compounds). */
function setKey(v: unknown, dpath: string, isFloat: FloatInfo): string {
  if (v === UNSPECIFIED) return 'u';
  const kind = goKind(v, dpath, isFloat);
  if (kind === 'nil') return 'n';
  return scalarIdentity(v, kind) ?? `j:${goJSON(v)}`;
}

/** A scalar's identity as Go's interface equality sees it (int 1 and float 1 differ); none for nil and compounds. */
function scalarIdentity(v: unknown, kind: GoKind): string | undefined {
  switch (kind) {
    case 'bool':
      return `b:${String(v)}`;
    case 'int':
      return `i:${goIntString(v as number)}`;
    case 'float':
      return `f:${String(v)}`;
    case 'string':
      return `s:${v as string}`;
    default:
      return undefined;
  }
}

/** Indices of the second occurrence of each repeated element. */
function nonUnique(keys: string[]): number[] {
  if (keys.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  keys.forEach((k, i) => {
    const times = seen.get(k);
    if (times === undefined) seen.set(k, 1);
    else {
      if (times === 1) out.push(i);
      seen.set(k, times + 1);
    }
  });
  return out;
}

function listTypeErrors(
  x: unknown,
  n: Node | undefined,
  pth: string,
  dpath: string,
  isFloat: FloatInfo,
  out: FieldError[],
): void {
  // A value whose schema has no list type anywhere has nothing to check (100,000 map keys, each a path).
  if (!n?.listTypesWithin) return;
  if (Array.isArray(x)) {
    listTypeArrayErrors(x, n, pth, dpath, isFloat, out);
    return;
  }
  if (!isJsonObject(x)) return;
  const extra = additionalSchema(n);
  if (extra) for (const k of Object.keys(x)) listTypeErrors(x[k], extra, key(pth, k), dchild(dpath, k), isFloat, out);
  for (const k of Object.keys(x)) {
    const p = n.properties.get(k);
    if (p) listTypeErrors(x[k], p, child(pth, k), dchild(dpath, k), isFloat, out);
  }
}

function listTypeArrayErrors(
  arr: unknown[],
  n: Node,
  pth: string,
  dpath: string,
  isFloat: FloatInfo,
  out: FieldError[],
): void {
  if (n.listType === 'set') {
    for (const i of nonUnique(arr.map((v, i) => setKey(v, dindex(dpath, i), isFloat)))) {
      out.push(duplicate(index(pth, i), goBadValue(arr[i], dindex(dpath, i), isFloat)));
    }
  } else if (n.listType === 'map') {
    out.push(...listMapErrors(arr, n, pth, dpath, isFloat));
  }
  if (n.items) arr.forEach((v, i) => listTypeErrors(v, n.items, index(pth, i), dindex(dpath, i), isFloat, out));
}

function listMapErrors(arr: unknown[], n: Node, pth: string, dpath: string, isFloat: FloatInfo): FieldError[] {
  for (let i = 0; i < arr.length; i++) {
    const x = arr[i];
    if (x !== null && x !== undefined && !isJsonObject(x)) {
      return [
        invalid(
          index(pth, i),
          goBadValue(x, dindex(dpath, i), isFloat),
          'must be an object for an array of list-type map',
        ),
      ];
    }
  }
  if (arr.length <= 1) return [];
  const itemPath = (i: number, k: string): string => dchild(dindex(dpath, i), k);
  if (n.listMapKeys.length === 1) {
    const k = n.listMapKeys[0]!;
    const keys = arr.map((x) => (isJsonObject(x) && Object.hasOwn(x, k) ? x[k] : UNSPECIFIED));
    return nonUnique(keys.map((v, i) => setKey(v, itemPath(i, k), isFloat))).map((i) =>
      duplicate(
        index(pth, i),
        new GoPrinted(
          keys[i] === UNSPECIFIED ? 'map[string]interface {}{}' : goSharpMap([[k, keys[i], itemPath(i, k)]], isFloat),
        ),
      ),
    );
  }
  const keys = arr.map((x, i) => {
    const entries = new Map<string, readonly [string, unknown, string]>();
    if (isJsonObject(x))
      for (const k of n.listMapKeys) if (Object.hasOwn(x, k)) entries.set(k, [k, x[k], itemPath(i, k)]);
    return [...entries.values()];
  });
  const json = keys.map((entries) => goJSON(Object.fromEntries(entries.map(([k, v]) => [k, v]))));
  return nonUnique(json).map((i) => duplicate(index(pth, i), new GoPrinted(goSharpMap(keys[i]!, isFloat))));
}

// ---------------------------------------------------------------------------------------------

/** Compiles a CRD version's openAPIV3Schema (expected structural) into a validator. */
export function compileSchema(schema: JSONSchemaProps): CompiledSchema {
  const root = compileNode(schema);
  const schemaErrors = (obj: unknown, at: string, ctx: Ctx, corr: Corr | null): FieldError[] =>
    finalize(validateEntry(root, obj, at, '', ctx, corr).errs);
  const embedded = (obj: unknown, at: string, ctx: Ctx): FieldError[] => {
    const out: FieldError[] = [];
    embeddedErrors(obj, root, at, '', ctx, out);
    return out;
  };
  const listTypes = (obj: unknown, at: string, isFloat: FloatInfo): FieldError[] => {
    const out: FieldError[] = [];
    if (isJsonObject(obj)) listTypeErrors(obj, root, at, '', isFloat, out);
    return out;
  };
  return {
    validate(obj, opts) {
      const at = opts?.rootPath ?? '';
      const ctx: Ctx = { isFloat: floatInfo(opts?.floatLiterals) };
      return [...schemaErrors(obj, at, ctx, null), ...embedded(obj, at, ctx), ...listTypes(obj, at, ctx.isFloat)];
    },
    validateUpdate(obj, old, opts) {
      const at = opts?.rootPath ?? '';
      const ctx: Ctx = { isFloat: floatInfo(opts?.floatLiterals) };
      const corr = new Corr(old, obj, root, '', ctx);
      const lists = listTypes(old, at, plainFloat).length > 0 ? [] : listTypes(obj, at, ctx.isFloat);
      return [...schemaErrors(obj, at, ctx, corr), ...embedded(obj, at, ctx), ...lists];
    },
    validateStatusUpdate(obj, old, opts) {
      const ctx: Ctx = { isFloat: floatInfo(opts?.floatLiterals) };
      const statusNode = root.properties.get('status');
      const out: FieldError[] = [];
      if (statusNode && isJsonObject(obj) && Object.hasOwn(obj, 'status')) {
        const oldStatus = isJsonObject(old) && Object.hasOwn(old, 'status') ? old['status'] : undefined;
        // Ratcheting correlates the old object's status, when it has one.
        const corr = oldStatus === undefined ? null : new Corr(oldStatus, obj['status'], statusNode, 'status', ctx);
        out.push(...finalize(validateEntry(statusNode, obj['status'], '', 'status', ctx, corr).errs, 'status'));
      }
      const lists = listTypes(old, '', plainFloat).length > 0 ? [] : listTypes(obj, '', ctx.isFloat);
      return [...out, ...lists];
    },
  };
}
