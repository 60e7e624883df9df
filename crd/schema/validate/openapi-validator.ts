// kube-openapi's SchemaValidator (k8s.io/kube-openapi/pkg/validation/validate) over a compiled
// schema: per node the type, anyOf/oneOf/allOf/not, string, format, number, array, enum and
// object checks in kube-openapi's order; with an old object, errors at unchanged values dropped.
import { formatFieldError, goQuote } from '../../../apimachinery/field-errors.js';
import {
  type DPath,
  type ValidationContext,
  dchild,
  dindex,
  goBadValue,
  goDeepEqual,
  goEnumMatch,
  goFloat,
  goInt64,
  goIntString,
  goKind,
  isJSONInteger,
} from './go-values.js';
import { goJSON } from '../../../apimachinery/go-json.js';
import { type Node, additionalSchema } from './schema-node.js';
import { type Res, newRes, merge, fail, inBody, typeError, finalize } from './openapi-errors.js';
import type { Corr } from './ratcheting.js';

/**
 * One value against one schema node: its field path (errors name it) and its path in the decoded
 * document (go-values.ts reads its Go kind by it), the walk's context, and when ratcheting the old
 * value it correlates with.
 */
type Check<T = unknown> = (
  n: Node,
  data: T,
  path: string,
  dpath: DPath,
  ctx: ValidationContext,
  corr: Corr | null,
) => Res;

const schemaTypeInfo: Record<string, [string, string]> = {
  bool: ['boolean', ''],
  string: ['string', ''],
  int: ['integer', 'int64'],
  float: ['number', 'float64'],
  slice: ['array', ''],
  map: ['object', ''],
};

/**
 * One check passed: what checkType, and checkSchemaProps on a node without anyOf, oneOf, allOf or
 * not, answer at nearly every node of every write. Shared, so frozen: callers only merge it.
 */
const PASSED: Res = Object.freeze({ errs: Object.freeze([]) as unknown as Res['errs'], count: 1 });

/** kube-openapi's typeValidator. */
function checkType(n: Node, data: unknown, kind: string, path: string): Res {
  const info = schemaTypeInfo[kind]!;
  const schType = info[0];
  const fmt = info[1];
  const types = n.types;
  const isFloatInt = schType === 'number' && isJSONInteger(data as number) && types.includes('integer');
  const isIntFloat = schType === 'integer' && types.includes('number');
  if (
    kind !== 'string' &&
    kind !== 'slice' &&
    n.format !== '' &&
    !(types.includes(schType) || fmt === n.format || isFloatInt || isIntFloat)
  ) {
    return fail(typeError(path, n.format, fmt));
  }
  if (
    !(types.includes('number') || types.includes('integer')) &&
    n.format !== '' &&
    (kind === 'string' || kind === 'slice')
  )
    return PASSED;
  if (!(types.includes(schType) || isFloatInt || isIntFloat)) return fail(typeError(path, n.types.join(','), schType));
  return PASSED;
}

/** The enum check (basicCommonValidator). */
function checkEnum(n: Node, data: unknown, path: string, dpath: DPath, ctx: ValidationContext): Res | undefined {
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

const invalidString = (s: string, path: string, should: string): Res =>
  fail({ code: 'invalid', name: path, value: s, msg: inBody(path, should) });

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
  if (n.minLength !== undefined && runeCount(s) < n.minLength)
    return invalidString(s, path, `should be at least ${goIntString(n.minLength)} chars long`);
  if (n.pattern !== undefined) {
    if (n.patternError !== undefined)
      return invalidString(s, path, `should match '${n.pattern}, but pattern is invalid: ${n.patternError}'`);
    if (!n.patternRe!.matcher(s).find()) return invalidString(s, path, `should match '${n.pattern}'`);
  }
  return undefined;
}

/** kube-openapi's numberValidator: multipleOf, then minimum, then maximum, each with int64 or float64 rules. */
function checkNumber(
  n: Node,
  v: number | bigint,
  isInt: boolean,
  path: string,
  dpath: DPath,
  ctx: ValidationContext,
): Res {
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
          goBadValue(factor, undefined, () => true),
        );
      else {
        const f = Number(v);
        const mult = factor < 1 ? (1 / factor) * f : f / factor;
        if (!isJSONInteger(mult)) push(inBody(path, `should be a multiple of ${goFloat(factor)}`));
      }
    }
  }
  // The bound beyond which v fails (-1 below a minimum, 1 above a maximum), int64 or float64.
  const bound = (limit: number | undefined, exclusive: boolean | undefined, side: -1 | 1, word: string): void => {
    if (limit === undefined) return;
    const b = isInt ? goInt64(limit) : limit;
    const beyond = side < 0 ? (exclusive ? v <= b : v < b) : exclusive ? v >= b : v > b;
    if (beyond)
      push(
        inBody(path, `should be ${word} than ${exclusive ? '' : 'or equal to '}${isInt ? goIntString(b) : goFloat(b)}`),
      );
  };
  bound(n.minimum, n.exclusiveMinimum, -1, 'greater');
  bound(n.maximum, n.exclusiveMaximum, 1, 'less');
  res.count++;
  return res;
}

/** Renders the errors of an anyOf/oneOf branch for the explanation kube does not give. */
function explainBranch(label: string, r: Res): string {
  const text = finalize(r.errs).map(formatFieldError).join('; ');
  return `\n${label}: ${text}`;
}

/** kube-openapi's schemaPropsValidator: anyOf, oneOf, allOf, not. */
const checkSchemaProps: Check = (n, data, path, dpath, ctx, corr) => {
  if (n.anyOf.length === 0 && n.oneOf.length === 0 && n.allOf.length === 0 && !n.not) return PASSED;
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
};

/** minItems and maxItems, or minProperties and maxProperties: the same two errors over a count. */
function checkCount(
  res: Res,
  size: number,
  min: number | undefined,
  max: number | undefined,
  what: 'items' | 'properties',
  path: string,
): void {
  if (min !== undefined && size < min)
    res.errs.push({
      code: 'invalid',
      name: path,
      value: size,
      msg: inBody(path, `should have at least ${goIntString(min)} ${what}`),
    });
  if (max !== undefined && size > max)
    res.errs.push({
      code: 'tooMany',
      name: path,
      actual: size,
      max,
      msg: inBody(path, `should have at most ${goIntString(max)} ${what}`),
    });
}

/** kube-openapi's schemaSliceValidator. */
const checkSlice: Check<unknown[]> = (n, arr, path, dpath, ctx, corr) => {
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
  checkCount(res, arr.length, n.minItems, n.maxItems, 'items', path);
  if (n.uniqueItems) {
    const dup = arr.some((x, i) =>
      arr.slice(0, i).some((y, j) => goDeepEqual(x, dindex(dpath, i), ctx.isFloat, y, dindex(dpath, j), ctx.isFloat)),
    );
    if (dup)
      res.errs.push({ code: 'invalid', name: path, value: '', msg: inBody(path, "shouldn't contain duplicates") });
  }
  res.count++;
  return res;
};

const isTypeMetaField = (k: string): boolean => k === 'kind' || k === 'apiVersion';

/** The old value correlated with member `k`: the ratcheting validator does not correlate the root's kind and apiVersion. */
const corrFor = (corr: Corr | null, path: string, k: string): Corr | null =>
  corr && !(path === '' && isTypeMetaField(k)) ? corr.key(k) : null;

/** kube-openapi's objectValidator. */
const checkObject: Check<Record<string, unknown>> = (n, obj, path, dpath, ctx, corr) => {
  const res = newRes();
  const keys = Object.keys(obj);
  checkCount(res, keys.length, n.minProperties, n.maxProperties, 'properties', path);
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
          merge(res, validateEntry(extra, obj[k], `${path}.${k}`, dchild(dpath, k), ctx, corrFor(corr, path, k)));
      }
    }
  }
  for (const k of keys) {
    const p = n.properties.get(k);
    if (p)
      merge(res, validateEntry(p, obj[k], path ? `${path}.${k}` : k, dchild(dpath, k), ctx, corrFor(corr, path, k)));
  }
  for (const r of n.required) {
    if (!Object.hasOwn(obj, r))
      res.errs.push({ code: 'required', name: `${path}.${r}`, msg: inBody(`${path}.${r}`, 'is required') });
  }
  return res;
};

/** kube-openapi's SchemaValidator.Validate for one schema node. */
const validateNode: Check = (n, data, path, dpath, ctx, corr) => {
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
};

/**
 * A property, item or the root: the validator kube creates per field and index. When ratcheting,
 * its errors are dropped if the value equals the correlated old value.
 */
export const validateEntry: Check = (n, data, path, dpath, ctx, corr) => {
  const r = validateNode(n, data, path, dpath, ctx, corr);
  if (corr && r.errs.length > 0 && corr.deepEqual()) return { errs: [], count: r.count };
  return r;
};
