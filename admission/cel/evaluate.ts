// Admission expressions evaluated as kube's admission/plugin/cel evaluates a set of them
// (condition.go ForInput, activation.go, composition.go): one activation for the set, each
// expression under the per-call limit its program carries, the set under a runtime budget that
// the expressions' costs and the variables they read are charged to, in order; past it the whole
// set fails with kube's out-of-budget text. Variables are evaluated when an expression first reads
// one, once per set, their cost charged to the expression that read them.
import { goQuote } from '../../apimachinery/quote.js';
import type { Activation } from '../../cel/eval.js';
import type { Authorizer } from '../../apimachinery/authorization.js';
import { AuthorizerValue, ResourceCheckValue } from '../../cel/kube/authz.js';
import type { Attributes } from '../interface.js';
import { OUT_OF_BUDGET } from '../../cel/kube/limits.js';
import { unescapeFieldName } from '../../cel/kube/schema-values.js';
import { CelError, fromJson, type JsonValue, type MapKey, MapValue, type Val, type Value } from '../../cel/values.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { CompilationResult } from './compile.js';

/**
 * `authorizer` for the request's user and `authorizer.requestResource` for its resource
 * (NewAuthorizerVal, NewResourceAuthorizerVal); none without an authorizer.
 */
export function authorization(a: Attributes, authorizer: Authorizer | undefined): Partial<Inputs> {
  if (authorizer === undefined) return {};
  const authz = new AuthorizerValue(a.userInfo ?? { name: '', groups: [] }, authorizer);
  return {
    authorizer: authz,
    requestResource: new ResourceCheckValue(authz, {
      group: a.resource.group,
      resource: a.resource.name,
      subresource: a.subresource,
      namespace: a.namespace,
      name: a.name,
    }),
  };
}

/** An object as expressions see it (objectToResolveVal: unstructured, null for none). */
export const objectValue = (o: KubeObject | JsonValue | undefined): Value => fromJson((o ?? null) as JsonValue);

/** An expression as compiled, with its source for kube's error texts. */
export interface Compiled {
  readonly expression: string;
  readonly result: CompilationResult;
}

/** What the expressions see (kube's evaluationActivation); a variable left out is unbound. */
export interface Inputs {
  readonly object: Value;
  readonly oldObject: Value;
  readonly request: Value;
  readonly namespaceObject: Value;
  /** Null without a param (kube binds `params` always). */
  readonly params: Value;
  readonly authorizer?: AuthorizerValue;
  readonly requestResource?: ResourceCheckValue;
}

/** One expression's outcome (kube's EvaluationResult): its value, or kube's error text. */
type Evaluation = { readonly value: Value; readonly error?: undefined } | { readonly error: string };

/** A set's outcomes (undefined where the set had no expression) and the budget left; or the error that ended it. */
type SetResult =
  | { readonly results: readonly (Evaluation | undefined)[]; readonly remaining: number; readonly error?: undefined }
  | { readonly error: string };

/** The cost of variables evaluated since the last expression finished (kube's compositionContext). */
interface CompositionCost {
  cost: number;
}

/**
 * `variables` (kube's lazy.MapValue): a field's variable runs when first read; its error, or its
 * failure to compile, is the value of every read.
 */
class LazyVariables extends MapValue {
  private readonly values = new Map<string, Val>();

  constructor(
    private readonly compiled: ReadonlyMap<string, CompilationResult>,
    private readonly activation: Activation,
    private readonly spent: CompositionCost,
  ) {
    super();
  }

  private evaluate(name: string, r: CompilationResult): Val {
    if (r.error !== undefined) return new CelError(`composited variable ${goQuote(name)} fails to compile: ${r.error}`);
    const out = r.program.eval(this.activation);
    this.spent.cost += out.cost;
    return out.value instanceof CelError
      ? new CelError(`composited variable ${goQuote(name)} fails to evaluate: ${out.value.message}`)
      : out.value;
  }

  override lookup(key: Value): Val | undefined {
    if (typeof key !== 'string') return new CelError('no such overload');
    const name = unescapeFieldName(key);
    const r = name === undefined ? undefined : this.compiled.get(name);
    if (name === undefined || r === undefined) return undefined;
    let v = this.values.get(name);
    if (v === undefined) {
      v = this.evaluate(name, r);
      this.values.set(name, v);
    }
    return v;
  }

  override get(key: Value): Value | undefined {
    const v = this.lookup(key);
    return v instanceof CelError ? undefined : v;
  }

  override has(key: Value): boolean {
    return typeof key === 'string' && this.compiled.has(unescapeFieldName(key) ?? '');
  }

  override get size(): number {
    return this.compiled.size;
  }

  override keys(): IterableIterator<MapKey> {
    return this.compiled.keys();
  }

  override *pairs(): IterableIterator<readonly [MapKey, Value]> {
    for (const k of this.compiled.keys()) {
      const v = this.get(k);
      if (v !== undefined) yield [k, v];
    }
  }
}

/** The activation: kube's names, `authorizer.requestResource` among them; `variables` when the set composes. */
function activation(
  inputs: Inputs,
  variables: ReadonlyMap<string, CompilationResult> | undefined,
  spent: CompositionCost,
): Activation {
  const bound = new Map<string, Value>([
    ['object', inputs.object],
    ['oldObject', inputs.oldObject],
    ['params', inputs.params],
    ['request', inputs.request],
    ['namespaceObject', inputs.namespaceObject],
  ]);
  if (inputs.authorizer !== undefined) bound.set('authorizer', inputs.authorizer);
  if (inputs.requestResource !== undefined) bound.set('authorizer.requestResource', inputs.requestResource);
  const a: Activation = { resolve: (name) => bound.get(name) };
  if (variables !== undefined) bound.set('variables', new LazyVariables(variables, a, spent));
  return a;
}

/**
 * ForInput: each expression in order under the budget (kube's runtimeCELCostBudget), with the
 * policy's compiled variables when it composes (undefined for a webhook's matchConditions).
 */
export function evaluateSet(
  expressions: readonly (Compiled | undefined)[],
  inputs: Inputs,
  variables: ReadonlyMap<string, CompilationResult> | undefined,
  budget: number,
): SetResult {
  const spent: CompositionCost = { cost: 0 };
  const act = activation(inputs, variables, spent);
  let remaining = budget;
  const results: (Evaluation | undefined)[] = [];
  for (const e of expressions) {
    if (e === undefined) {
      results.push(undefined);
      continue;
    }
    const r = e.result;
    if (r.error !== undefined) {
      results.push({ error: `compilation error: ${r.error}` });
      continue;
    }
    const out = r.program.eval(act);
    // The variables this expression read are charged first, then the expression itself.
    const composition = spent.cost;
    spent.cost = 0;
    if (composition > remaining) return { error: OUT_OF_BUDGET };
    remaining -= composition;
    if (out.cost > remaining) return { error: OUT_OF_BUDGET };
    remaining -= out.cost;
    results.push(
      out.value instanceof CelError
        ? { error: `expression '${e.expression}' resulted in error: ${out.value.message}` }
        : { value: out.value },
    );
  }
  return { results, remaining };
}
