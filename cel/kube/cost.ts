// The call costs kube's CEL libraries declare (k8s.io/apiserver/pkg/cel/library/cost.go): the
// static estimate (CostEstimator.EstimateCallCost) and the runtime cost (CallCost,
// `kubeCallCost`), matched by function name first, as kube matches them, and for some by
// overload id. Kube 1.33's estimator checks `target != nil` before costing the global parsers
// (quantity, isQuantity, semver, isSemver, ip, isIP, cidr, isCIDR, ip.isCanonical), but the
// cel-go it builds with, v0.23.2, hands every call a target, an empty one for a global call: so
// they cost their argument's traversal (kube 1.35 writes it `len(args) >= 1`; only 1.34, on
// cel-go v0.26, charged them CEL's default of 1).
import type { CallCost, CallPrice } from '../eval.js';
import { actualSize, MapValue, ObjectValue, type Val } from '../values.js';
import { FormatValue } from './format.js';
import { SETS_COST_FACTORS } from './sets.js';
import {
  type AstNode,
  add,
  type CallEstimate,
  type CostEstimate,
  type CostEstimator,
  type CostOptions,
  fixed,
  listElementNode,
  MAX_UINT64,
  multiply,
  multiplyByCostFactor,
  REGEX_STRING_LENGTH_COST_FACTOR,
  type SizeEstimate,
  STRING_TRAVERSAL_COST_FACTOR,
  sizeEstimate,
  LIST_CREATE_BASE_COST,
  STRUCT_CREATE_BASE_COST,
} from '../cost.js';

/** k8s.io/apiserver/pkg/cel/limits.go. */
const MAX_FORMAT_SIZE = 64;
const MAX_NAME_FORMAT_REGEX_SIZE = 128;

const ONE = fixed(1n);
const TRAVERSAL = STRING_TRAVERSAL_COST_FACTOR;

/** An authorization check is priced so that an expression can afford about two. */
const AUTHZ_CHECK_COST = 350_000n;

/** Types whose equality kube prices at 1 (O(1) comparisons): opaque IP and CIDR, and these object types. */
const UNIT_EQUALITY_OPAQUE = new Set(['net.IP', 'net.CIDR']);
const UNIT_EQUALITY_STRUCTS = new Set([
  'kubernetes.Quantity',
  'kubernetes.Semver',
  'kubernetes.authorization.Authorizer',
  'kubernetes.authorization.PathCheck',
  'kubernetes.authorization.GroupCheck',
  'kubernetes.authorization.ResourceCheck',
  'kubernetes.authorization.Decision',
]);

/** Parsing a label or field selector: a traversal, plus a struct and a list per requirement (one per 2 characters at most). */
function selectorCost(length: SizeEstimate): CostEstimate {
  const parse = multiplyByCostFactor(length, TRAVERSAL);
  const requirements = multiplyByCostFactor(length, 0.5);
  const perRequirement = multiplyByCostFactor(requirements, Number(LIST_CREATE_BASE_COST + STRUCT_CREATE_BASE_COST));
  return add(add(fixed(LIST_CREATE_BASE_COST), parse), perRequirement);
}

/** Go's uint64(math.Ceil(a / b)) for the replace estimate. */
const ceilDiv = (a: bigint, b: bigint): bigint => {
  const q = Math.ceil(Number(a) / Number(b));
  return q >= 2 ** 64 ? MAX_UINT64 : BigInt(q);
};

/** The result size of `s.replace(old, new)`: from fewest to most replacements of the extreme lengths. */
function replaceResultSize(sz: SizeEstimate, toReplace: SizeEstimate, replaceWith: SizeEstimate): SizeEstimate {
  let countMax: bigint;
  let retainedMax = 0n;
  if (toReplace.min === 0n) {
    // Replacing "" surrounds every character.
    countMax = sz.max < MAX_UINT64 ? sz.max + 1n : sz.max;
    retainedMax = sz.max;
  } else if (replaceWith.max <= toReplace.min) {
    countMax = 0n;
    retainedMax = sz.max;
  } else {
    countMax = ceilDiv(sz.max, toReplace.min);
  }
  let countMin: bigint;
  let retainedMin = 0n;
  if (toReplace.max === 0n) {
    countMin = sz.min < MAX_UINT64 ? sz.min + 1n : sz.min;
    retainedMin = sz.min;
  } else if (toReplace.max <= replaceWith.min) {
    countMin = 0n;
    retainedMin = sz.min;
  } else {
    countMin = ceilDiv(sz.min, toReplace.max);
  }
  return add(multiply({ min: countMin, max: countMax }, replaceWith), { min: retainedMin, max: retainedMax });
}

/** Functions kube prices at a constant 1, estimated and at run time alike (accessors, quantity arithmetic). */
const UNIT_COST_FUNCTIONS: ReadonlySet<string> = new Set([
  'format.named',
  'sign',
  'asInteger',
  'isInteger',
  'asApproximateFloat',
  'isGreaterThan',
  'isLessThan',
  'compareTo',
  'add',
  'sub',
  'major',
  'minor',
  'patch',
  'getScheme',
  'getHostname',
  'getHost',
  'getPort',
  'getEscapedPath',
  'getQuery',
]);

/** kube's library cost estimator; sizes it cannot see come from `sizes` (the CRD's schema, for rules). */
export class KubeCostEstimator implements CostEstimator {
  constructor(private readonly sizes?: Pick<CostEstimator, 'estimateSize'>) {}

  estimateSize(node: AstNode): SizeEstimate | undefined {
    return this.sizes?.estimateSize(node);
  }

  estimateCallCost(
    fn: string,
    overloadId: string,
    target: AstNode | undefined,
    args: readonly AstNode[],
  ): CallEstimate | undefined {
    const size = (n: AstNode): SizeEstimate => sizeEstimate(this, n);
    if (UNIT_COST_FUNCTIONS.has(fn)) return ONE;
    switch (fn) {
      case 'check':
        return fixed(AUTHZ_CHECK_COST);
      case 'serviceAccount':
      case 'path':
      case 'group':
      case 'resource':
      case 'subresource':
      case 'namespace':
      case 'name':
      case 'allowed':
      case 'reason':
      case 'error':
      case 'errored':
        return ONE;
      case 'fieldSelector':
      case 'labelSelector':
        if (args.length === 1) return selectorCost(size(args[0]!));
        break;
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf':
        if (target !== undefined) {
          const el = listElementNode(target);
          // A string target (indexOf, lastIndexOf): one traversal.
          if (el === undefined) return multiplyByCostFactor(size(target), TRAVERSAL);
          // One comparison per element; strings and bytes add their traversal.
          const elCost =
            el.type.kind === 'string' || el.type.kind === 'bytes'
              ? add(ONE, multiplyByCostFactor(size(el), TRAVERSAL))
              : ONE;
          return multiply(size(target), elCost);
        }
        break;
      case 'url':
      case 'jsonpatch.escapeKey':
        if (args.length === 1) {
          const sz = size(args[0]!);
          return { ...multiplyByCostFactor(sz, TRAVERSAL), resultSize: sz };
        }
        break;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (target !== undefined) {
          const sz = size(target);
          return { ...multiplyByCostFactor(sz, TRAVERSAL), resultSize: sz };
        }
        break;
      case 'replace':
        if (target !== undefined && args.length >= 2) {
          const sz = size(target);
          // The traversal plus building the result.
          return {
            ...multiplyByCostFactor(sz, 2 * TRAVERSAL),
            resultSize: replaceResultSize(sz, size(args[0]!), size(args[1]!)),
          };
        }
        break;
      case 'split':
        if (target !== undefined) {
          const sz = size(target);
          // At worst every character is an item (separator ""), unless a literal limit says fewer.
          let max = sz.max;
          const limit = args[1]?.expr;
          if (limit?.kind === 'constant' && limit.value.kind === 'int') max = BigInt.asUintN(64, limit.value.value);
          return { ...multiplyByCostFactor(sz, 2 * TRAVERSAL), resultSize: { min: 0n, max } };
        }
        break;
      case 'join':
        if (target !== undefined) {
          const listSize = size(target);
          const el = listElementNode(target);
          let sz: SizeEstimate = el === undefined ? fixed(0n) : multiply(listSize, size(el));
          if (args.length > 0) {
            const separators = {
              min: listSize.min > 0n ? listSize.min - 1n : 0n,
              max: listSize.max > 0n ? listSize.max - 1n : 0n,
            };
            sz = add(sz, multiply(size(args[0]!), separators));
          }
          return { ...multiplyByCostFactor(sz, TRAVERSAL), resultSize: sz };
        }
        break;
      case 'find':
      case 'findAll':
        if (target !== undefined && args.length >= 1) {
          const sz = size(target);
          // As cel-go prices matches(): (length + 1) × regex length / 4.
          const strCost = multiplyByCostFactor(add(sz, ONE), TRAVERSAL);
          const regexCost = multiplyByCostFactor(size(args[0]!), REGEX_STRING_LENGTH_COST_FACTOR);
          return { ...multiply(strCost, regexCost), resultSize: { min: 0n, max: sz.max } };
        }
        break;
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
        if (args.length >= 1) return multiplyByCostFactor(size(args[0]!), TRAVERSAL);
        break;
      case 'ip':
        // A CIDR's ip() reads a field.
        if (overloadId === 'cidr_ip') return ONE;
        if (args.length >= 1) return multiplyByCostFactor(size(args[0]!), TRAVERSAL);
        break;
      case 'ip.isCanonical':
        if (args.length >= 1) return multiplyByCostFactor(size(args[0]!), 2 * TRAVERSAL);
        break;
      case 'masked':
      case 'prefixLength':
      case 'family':
      case 'isUnspecified':
      case 'isLoopback':
      case 'isLinkLocalMulticast':
      case 'isLinkLocalUnicast':
      case 'isGlobalUnicast':
        return ONE;
      case 'containsIP':
        if (target !== undefined && args.length >= 1) {
          // Comparing two 4- or 16-byte addresses, plus parsing a string argument.
          const bytes = { min: 4n, max: 16n };
          const cmp = multiplyByCostFactor(add(bytes, bytes), TRAVERSAL);
          return overloadId === 'cidr_contains_ip_string'
            ? add(cmp, multiplyByCostFactor(size(args[0]!), TRAVERSAL))
            : cmp;
        }
        break;
      case 'containsCIDR':
        if (target !== undefined && args.length >= 1) {
          // As containsIP, plus masking the base CIDR and comparing prefix lengths.
          const bytes = { min: 4n, max: 16n };
          let cost = multiplyByCostFactor(add(bytes, bytes), TRAVERSAL);
          cost = add(add(cost, multiplyByCostFactor(bytes, TRAVERSAL)), ONE);
          return overloadId === 'cidr_contains_cidr_string'
            ? add(cost, multiplyByCostFactor(size(args[0]!), TRAVERSAL))
            : cost;
        }
        break;
      case 'quantity':
      case 'isQuantity':
      case 'semver':
      case 'isSemver':
        if (args.length >= 1) return multiplyByCostFactor(size(args[0]!), TRAVERSAL);
        break;
      case 'validate':
        // A named format's regex is at most MAX_NAME_FORMAT_REGEX_SIZE long.
        if (target !== undefined && args.length >= 1)
          return multiplyByCostFactor(
            multiplyByCostFactor(size(args[0]!), TRAVERSAL),
            MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR,
          );
        break;
      case '_==_':
        if (args.length === 2) return equalityCost(args[0]!, args[1]!);
        break;
    }
    return undefined;
  }
}

/** Equality of kube's own types; others are left to cel-go. */
function equalityCost(lhs: AstNode, rhs: AstNode): CallEstimate | undefined {
  const t = lhs.type;
  if (t.kind !== rhs.type.kind || t.name !== rhs.type.name) return undefined;
  if (t.kind === 'opaque') return UNIT_EQUALITY_OPAQUE.has(t.name) ? ONE : undefined;
  if (t.kind !== 'struct') return undefined;
  if (UNIT_EQUALITY_STRUCTS.has(t.name)) return ONE;
  if (t.name === 'kubernetes.NamedFormat')
    return multiplyByCostFactor({ min: 1n, max: BigInt(MAX_FORMAT_SIZE) }, TRAVERSAL);
  if (t.name === 'kubernetes.URL') {
    // kube unions the right side's size with itself (it reads rhs twice), so only rhs counts.
    return multiplyByCostFactor({ min: 1n, max: rhs.computedSize?.max ?? 1n }, TRAVERSAL);
  }
  return undefined;
}

/**
 * kube's estimator options (environment/base.go): has() costs 0, as before cel-go v0.17.7,
 * so that rules accepted then are accepted still.
 */
export const KUBE_COST_OPTIONS: CostOptions = { presenceTestHasCost: false };

// ---------------------------------------------------------------------------------------------
// Runtime: CostEstimator.CallCost

const utf8 = new TextEncoder();

/** kube's traversalCost: strings and bytes by byte length × 0.1 (truncated), lists and maps by their members, anything else 1. */
function traversalCost(v: Val): number {
  if (typeof v === 'string') return Math.trunc(utf8.encode(v).length * TRAVERSAL);
  if (v instanceof Uint8Array) return Math.trunc(v.length * TRAVERSAL);
  if (Array.isArray(v)) return v.reduce((sum: number, x: Val) => sum + traversalCost(x), 0);
  if (v instanceof MapValue) {
    let sum = 0;
    for (const [k, x] of v.pairs()) sum += traversalCost(k) + traversalCost(x);
    return sum;
  }
  return 1;
}

const traversal = (v: Val, factor = 1): number => Math.ceil(actualSize(v) * factor * TRAVERSAL);

/** Parsing a selector at run time: the estimate's formula on the selector's actual length. */
const selectorRuntimeCost = (length: number): number => Number(selectorCost(fixed(BigInt(length))).max);

/** The regex-by-string product cel-go and kube charge for matching. */
const regexCost = (s: Val, regexSize: number): number =>
  Math.ceil((1 + actualSize(s)) * TRAVERSAL) * Math.ceil(regexSize * REGEX_STRING_LENGTH_COST_FACTOR);

/** A call that costs 1. */
const ONE_CALL: CallPrice = () => 1;

/** kube's own types compare in O(1) (URLs and formats included, as kube prices them). */
const OWN_TYPES_EQUALITY: CallPrice = Object.assign(
  (args: readonly Val[]) => (args[0] instanceof ObjectValue ? 1 : undefined),
  { ownValuesOnly: true as const },
);

/**
 * How a call to one of kube's functions is priced at run time (undefined: cel-go's default),
 * chosen when the call is planned. The sets extension's own trackers come first, as cel-go
 * consults overload trackers before kube's CallCost.
 */
export const kubeCallCost: CallCost = (fn, overloadId, argCount) => {
  const setsFactor = SETS_COST_FACTORS.get(overloadId);
  if (setsFactor !== undefined)
    return (args) => 1 + Math.trunc(actualSize(args[0]!) * actualSize(args[1]!) * setsFactor);
  if (UNIT_COST_FUNCTIONS.has(fn)) return ONE_CALL;
  switch (fn) {
    case 'check': {
      const cost = Number(AUTHZ_CHECK_COST);
      return () => cost;
    }
    case 'serviceAccount':
    case 'path':
    case 'group':
    case 'resource':
    case 'subresource':
    case 'namespace':
    case 'name':
    case 'allowed':
    case 'reason':
    case 'error':
    case 'errored':
      return ONE_CALL;
    case 'fieldSelector':
    case 'labelSelector':
      return argCount >= 2 ? (args) => selectorRuntimeCost(actualSize(args[1]!)) : undefined;
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
      return argCount > 0 ? (args) => traversalCost(args[0]!) : () => 0;
    case 'url':
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
    case 'jsonpatch.escapeKey':
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
    case 'quantity':
    case 'isQuantity':
    case 'semver':
    case 'isSemver':
      return argCount >= 1 ? (args) => traversal(args[0]!) : undefined;
    case 'replace':
    case 'split':
    case 'ip.isCanonical':
      return argCount >= 1 ? (args) => traversal(args[0]!, 2) : undefined;
    case 'join':
      return argCount >= 1 ? (_, result) => traversal(result, 2) : undefined;
    case 'find':
    case 'findAll':
      return argCount >= 2 ? (args) => regexCost(args[0]!, actualSize(args[1]!)) : undefined;
    case 'ip':
      // The CIDR's ip() reads a field; ip(string) parses.
      if (argCount < 1) return undefined;
      return overloadId === 'cidr_ip' ? ONE_CALL : (args) => traversal(args[0]!);
    case 'masked':
    case 'prefixLength':
    case 'family':
    case 'isUnspecified':
    case 'isLoopback':
    case 'isLinkLocalMulticast':
    case 'isLinkLocalUnicast':
    case 'isGlobalUnicast':
      return ONE_CALL;
    case 'containsIP':
    case 'containsCIDR': {
      if (argCount < 2) return undefined;
      const stringArg = overloadId === 'cidr_contains_ip_string' || overloadId === 'cidr_contains_cidr_string';
      return (args) => {
        const cidrSize = actualSize(args[0]!);
        // Comparing bytes up to the prefix, read twice; containsCIDR also masks, and a string argument is parsed first.
        let cost = Math.ceil((cidrSize + cidrSize) * TRAVERSAL);
        if (fn === 'containsCIDR') cost += Math.ceil(cidrSize * TRAVERSAL) + 1;
        if (stringArg) cost += traversal(args[1]!);
        return cost;
      };
    }
    case 'validate':
      if (argCount < 2) return undefined;
      return (args) => {
        const format = args[0];
        return format instanceof FormatValue ? regexCost(args[1]!, format.maxRegexSize) : undefined;
      };
    case '_==_':
      return argCount === 2 ? OWN_TYPES_EQUALITY : undefined;
  }
  return undefined;
};
