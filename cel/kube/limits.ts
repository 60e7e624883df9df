// kube's cost limits for CEL (k8s.io/apiserver/pkg/apis/cel/config.go: CRD validation rules and
// admission expressions alike) and the texts it refuses a CRD with (apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go and cel_validation.go), as of kube 1.34/1.35.
// A rule's estimated cost is its estimate times how many times it may run: once per element
// of every list and map above it.
import { MAX_UINT64 } from '../cost.js';
import { type KubeSchema, MAX_REQUEST_SIZE_BYTES, type SizedType } from './sizes.js';

/** Runtime cost limit of one evaluation of one rule (config.go PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000n;
/** Runtime cost budget of all rules on one custom resource, or of one set of a policy binding's expressions (config.go RuntimeCELCostBudget). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000n;
/** Runtime cost budget of a webhook's or a policy binding's matchConditions (config.go RuntimeCELCostBudgetMatchConditions). */
export const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000n;
/** Longest message a messageExpression may give, in bytes (config.go MaxEvaluatedMessageExpressionSizeBytes). */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;
/** What kube says once the runtime budget is spent (cel.ErrOutOfBudget's detail). */
export const OUT_OF_BUDGET =
  'validation failed due to running out of cost budget, no further validation rules will be run';
/** Largest estimated cost of one rule, cardinality included (validation.go StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000n;
/** Largest estimated cost of all of a CRD's rules (validation.go StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000n;

const mulGuard = (cost: bigint, n: bigint): bigint =>
  cost === 0n ? 0n : cost * n > MAX_UINT64 ? MAX_UINT64 : cost * n;

/**
 * The factor by which a schema multiplies its children's occurrences (extractMaxElements):
 * maxItems or maxProperties, undefined for an unbounded list or map, 1 for anything else.
 */
function childCardinalityFactor(s: KubeSchema): bigint | undefined {
  const bound = (n: number | undefined): bigint | undefined => (n === undefined ? undefined : BigInt(Math.max(0, n)));
  if (s.type === 'object') return s.additionalProperties !== undefined ? bound(s.maxProperties) : 1n;
  if (s.type === 'array') return bound(s.maxItems);
  return 1n;
}

/** A child's cardinality from its parent's (childContext): undefined once anything above is unbounded. */
export function childCardinality(parent: bigint | undefined, parentSchema: KubeSchema): bigint | undefined {
  if (parent === undefined) return undefined;
  const factor = childCardinalityFactor(parentSchema);
  return factor === undefined ? undefined : mulGuard(parent, factor);
}

/** How many values of this minimum size fit in one request, a comma each (compilation.go maxCardinality). */
const maxCardinality = (minSerializedSize: number): bigint =>
  BigInt(Math.trunc(MAX_REQUEST_SIZE_BYTES / (minSerializedSize + 1)));

/**
 * The cost kube compares with STATIC_ESTIMATED_COST_LIMIT (getExpressionCost): the rule's
 * estimated max times its schema's cardinality (from the root, 1), or, under an unbounded list
 * or map, times how many of its values fit in a request.
 */
export function ruleCost(estimatedMax: bigint, cardinality: bigint | undefined, ruleType: SizedType): bigint {
  return mulGuard(estimatedMax, cardinality ?? maxCardinality(ruleType.minSerializedSize));
}

/** Go's %.Nf: the exact decimal value of the double, rounded half to even (JS's toFixed rounds ties up). */
function goFixed(x: number, digits: number): string {
  const exact = x.toFixed(60); // factors here are ≥ 1, so 60 digits hold every binary fraction exactly
  const point = exact.indexOf('.');
  const kept = exact.slice(0, point + 1 + digits);
  const rest = exact.slice(point + 1 + digits);
  const tie = rest[0] === '5' && /^50*$/.test(rest);
  if (!tie) return x.toFixed(digits);
  const lastDigit = Number(kept[kept.length - 1]);
  return lastDigit % 2 === 0 ? kept : x.toFixed(digits);
}

/** kube's refusal text (getCostErrorMessage), e.g. costName `estimated rule cost`. */
export function costErrorMessage(costName: string, cost: bigint, limit: bigint): string {
  const exceed = Number(cost) / Number(limit);
  let factor: string;
  if (exceed > 100) factor = 'more than 100x';
  else if (exceed < 1.5)
    factor = `${goFixed(exceed, 6)}x`; // so that it never reads "by a factor of 1.0x"
  else factor = `${goFixed(exceed, 1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
