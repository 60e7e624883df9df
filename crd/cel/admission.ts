// CEL for admission control, as k8s.io/apiserver/pkg/admission/plugin/cel compiles and runs it for
// ValidatingAdmissionPolicy (and matchConditions): free-standing expressions over `object`,
// `oldObject`, `request`, `params`, `namespaceObject`, `authorizer` (and
// `authorizer.requestResource`) and `variables`, with kube's compile texts, its return-type check,
// the per-call cost limit, and lazily evaluated composited variables (cel/composition.go) whose
// cost is accumulated apart from the expression that first reads them.
//
// Types: `object`, `oldObject`, `params`, `request` and `namespaceObject` are declared `dyn` (kube
// types request and namespaceObject; a misspelt field of those is a runtime error here, a compile
// error there). `variables` is an object type whose fields have the checked types of the variables
// before it, as kube's CompositionEnv declares them.
//
// The authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go): path, group, resource,
// subresource, namespace, name, check, allowed, reason, errored, error and serviceAccount; a check
// costs 350,000 as kube charges it. Not here: fieldSelector/labelSelector (a 1.31+ feature gate).
import type { Environment } from '@marcbachmann/cel-js';
import type { Authorizer, AuthorizationAttributes } from '../../apimachinery/authorization.js';
import type { UserInfo } from '../../apimachinery/user.js';
import {
  CostLimitExceeded,
  type RegexBudget,
  baseEnv,
  celEquals,
  charge,
  functionNamesOf,
  meter,
  metered,
} from './env.js';
import { checkRange } from './core.js';
import { parseAndCheck } from './check.js';
import { runtimeMessage } from './messages.js';
import { TypeNamer, declFor, toDyn } from './types.js';
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';

/** celconfig.RuntimeCELCostBudgetMatchConditions */
export const ADMISSION_MATCH_CONDITIONS_BUDGET = 10_000_000;
/** library authz: the cost of one authorization check. */
export const AUTHZ_CHECK_COST = 350_000;

// ---------------------------------------------------------------------------------------------
// Authorizer values

/** The `authorizer` variable: who asks (the request's user, or a service account) and whom to ask. */
export class AuthorizerValue {
  constructor(
    readonly user: UserInfo,
    readonly authz: Authorizer,
    /** The request's resource, for `authorizer.requestResource`. */
    readonly requestResource?: {
      group: string;
      version: string;
      resource: string;
      subresource: string;
      namespace: string;
      name: string;
    },
  ) {}
}
export class PathCheckValue {
  constructor(
    readonly auth: AuthorizerValue,
    readonly path: string,
  ) {}
}
export class GroupCheckValue {
  constructor(
    readonly auth: AuthorizerValue,
    readonly group: string,
  ) {}
}
export class ResourceCheckValue {
  constructor(
    readonly auth: AuthorizerValue,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
    readonly version = '*',
  ) {}
  with(f: Partial<Pick<ResourceCheckValue, 'subresource' | 'namespace' | 'name'>>): ResourceCheckValue {
    return new ResourceCheckValue(
      this.auth,
      this.group,
      this.resource,
      f.subresource ?? this.subresource,
      f.namespace ?? this.namespace,
      f.name ?? this.name,
      this.version,
    );
  }
}
export class DecisionValue {
  constructor(
    readonly decision: 'allow' | 'deny' | 'no-opinion',
    readonly reason: string,
    readonly error: string,
  ) {}
}

function authorize(auth: AuthorizerValue, attrs: Omit<AuthorizationAttributes, 'user'>): DecisionValue {
  charge(AUTHZ_CHECK_COST - 1);
  try {
    const r = auth.authz.authorize({ ...attrs, user: auth.user });
    return new DecisionValue(r.decision, r.reason, '');
  } catch (e) {
    return new DecisionValue('no-opinion', '', e instanceof Error ? e.message : String(e));
  }
}

/** serviceaccount.UserInfo(namespace, name, "") */
function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
  };
}

const AUTHORIZER = 'kubernetes.authorization.Authorizer';
const PATH_CHECK = 'kubernetes.authorization.PathCheck';
const GROUP_CHECK = 'kubernetes.authorization.GroupCheck';
const RESOURCE_CHECK = 'kubernetes.authorization.ResourceCheck';
const DECISION = 'kubernetes.authorization.Decision';

/** The authorizer's runtime class: a Map so that `authorizer.requestResource` is a field. */
class AuthorizerMap extends Map<string, unknown> {
  constructor(readonly value: AuthorizerValue) {
    super();
    const rr = value.requestResource;
    if (rr)
      this.set(
        'requestResource',
        new ResourceCheckValue(value, rr.group, rr.resource, rr.subresource, rr.namespace, rr.name, rr.version),
      );
  }
}

function registerAuthz(env: Environment): void {
  const fn = (sig: string, f: (...args: never[]) => unknown): void => {
    env.registerFunction(sig, f as (...args: unknown[]) => unknown);
  };
  env.registerType(PATH_CHECK, PathCheckValue);
  env.registerType(GROUP_CHECK, GroupCheckValue);
  env.registerType(RESOURCE_CHECK, ResourceCheckValue);
  env.registerType(DECISION, DecisionValue);
  env.registerType(AUTHORIZER, { ctor: AuthorizerMap, fields: { requestResource: RESOURCE_CHECK } } as never);
  fn(`${AUTHORIZER}.path(string): ${PATH_CHECK}`, (a: AuthorizerMap, p: string) => new PathCheckValue(a.value, p));
  fn(`${AUTHORIZER}.group(string): ${GROUP_CHECK}`, (a: AuthorizerMap, g: string) => new GroupCheckValue(a.value, g));
  fn(
    `${AUTHORIZER}.serviceAccount(string, string): ${AUTHORIZER}`,
    (a: AuthorizerMap, ns: string, name: string) =>
      new AuthorizerMap(new AuthorizerValue(serviceAccountUser(ns, name), a.value.authz)),
  );
  fn(
    `${GROUP_CHECK}.resource(string): ${RESOURCE_CHECK}`,
    (g: GroupCheckValue, r: string) => new ResourceCheckValue(g.auth, g.group, r),
  );
  fn(`${RESOURCE_CHECK}.subresource(string): ${RESOURCE_CHECK}`, (r: ResourceCheckValue, s: string) =>
    r.with({ subresource: s }),
  );
  fn(`${RESOURCE_CHECK}.namespace(string): ${RESOURCE_CHECK}`, (r: ResourceCheckValue, s: string) =>
    r.with({ namespace: s }),
  );
  fn(`${RESOURCE_CHECK}.name(string): ${RESOURCE_CHECK}`, (r: ResourceCheckValue, s: string) => r.with({ name: s }));
  fn(`${RESOURCE_CHECK}.check(string): ${DECISION}`, (r: ResourceCheckValue, verb: string) =>
    authorize(r.auth, {
      verb,
      resourceRequest: true,
      apiGroup: r.group,
      apiVersion: r.version,
      resource: r.resource,
      subresource: r.subresource,
      namespace: r.namespace,
      name: r.name,
      path: '',
    }),
  );
  fn(`${PATH_CHECK}.check(string): ${DECISION}`, (p: PathCheckValue, verb: string) =>
    authorize(p.auth, {
      verb,
      resourceRequest: false,
      apiGroup: '',
      apiVersion: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      path: p.path,
    }),
  );
  fn(`${DECISION}.allowed(): bool`, (d: DecisionValue) => d.decision === 'allow');
  fn(`${DECISION}.reason(): string`, (d: DecisionValue) => d.reason);
  fn(`${DECISION}.errored(): bool`, (d: DecisionValue) => d.error !== '');
  fn(`${DECISION}.error(): string`, (d: DecisionValue) => d.error);
}

let admissionBase: Environment | undefined;
function admissionEnv(): Environment {
  if (!admissionBase) {
    admissionBase = baseEnv().clone();
    registerAuthz(admissionBase);
  }
  return admissionBase;
}

// ---------------------------------------------------------------------------------------------
// Compiling

/** What a set of expressions may refer to (kube's OptionalVariableDeclarations + composition). */
export interface AdmissionDeclarations {
  /** `params` declared (the policy has a paramKind). */
  params: boolean;
  /** `authorizer` and `authorizer.requestResource` declared (not for messageExpression). */
  authorizer: boolean;
  /**
   * The composited variables visible, in order, with their checked types; undefined: `variables`
   * not declared at all (kube's stateless compiler, as for a policy without variables at write).
   */
  variables?: readonly { name: string; type: string }[];
}

export interface AdmissionProgram {
  /** The checked type, in the engine's spelling (`bool`, `string`, `list<int>`, `dyn`). */
  type: string;
  run: (activation: Record<string, unknown>) => unknown;
}

/** A compile result: a program, or kube's text (`compilation failed: ERROR: ...`, `must evaluate to bool`). */
export type AdmissionCompileResult =
  | { program: AdmissionProgram; error?: undefined }
  | { program?: undefined; error: string };

/** The runtime class of `variables`: fields evaluate on first read (kube's lazy.MapValue). */
export class LazyVariables extends Map<string, unknown> {
  private readonly evaluators = new Map<string, () => unknown>();
  define(name: string, f: () => unknown): void {
    this.evaluators.set(name, f);
  }
  override get(name: string): unknown {
    if (super.has(name)) {
      const v = super.get(name);
      if (v instanceof VariableError) throw new Error(v.message);
      return v;
    }
    const f = this.evaluators.get(name);
    if (!f) return undefined;
    let v: unknown;
    try {
      v = f();
    } catch (e) {
      const err = new VariableError(e instanceof Error ? e.message : String(e));
      super.set(name, err);
      throw new Error(err.message);
    }
    super.set(name, v);
    return v;
  }
  override has(name: string): boolean {
    return this.evaluators.has(name);
  }
}
class VariableError {
  constructor(readonly message: string) {}
}

const VARIABLES_TYPE = 'kubernetes.variables';
const envCache = new Map<string, Environment>();

function envFor(decls: AdmissionDeclarations): Environment {
  const vars = decls.variables;
  const key = JSON.stringify([decls.params, decls.authorizer, vars ?? null]);
  let env = envCache.get(key);
  if (env) return env;
  env = admissionEnv().clone();
  for (const v of ['object', 'oldObject', 'request', 'namespaceObject']) env.registerVariable(v, 'dyn');
  if (decls.params) env.registerVariable('params', 'dyn');
  if (decls.authorizer) env.registerVariable('authorizer', AUTHORIZER);
  if (vars) {
    const fields: Record<string, string> = {};
    for (const v of vars) fields[v.name] = v.type;
    env.registerType(VARIABLES_TYPE, { ctor: LazyVariables, fields } as never);
    env.registerVariable('variables', VARIABLES_TYPE);
  }
  if (envCache.size > 256) envCache.clear();
  envCache.set(key, env);
  return env;
}

/** cel-go's type names, as kube prints a wrong return type (`must evaluate to bool`). */
const returnTypeNames: Record<string, string> = { bool: 'bool', string: 'string', null: 'null_type' };

/**
 * Compiles one expression as kube's plugin/cel compiler does: kube's size and depth limits,
 * parse and type-check with the declared variables, then the return type (`returnTypes`: engine
 * type names; empty for any).
 */
export function compileAdmissionExpression(
  src: string,
  decls: AdmissionDeclarations,
  returnTypes: readonly string[] = [],
): AdmissionCompileResult {
  const env = envFor(decls);
  const checked = parseAndCheck(env, src, functionNamesOf(admissionEnv()));
  if (checked.issue !== undefined) return { error: `compilation failed: ${checked.issue}` };
  const p = checked.prog;
  const type = checked.type ?? 'dyn';
  if (returnTypes.length > 0 && !returnTypes.includes(type) && type !== 'dyn') {
    const names = returnTypes.map((t) => returnTypeNames[t] ?? t);
    return {
      error: names.length === 1 ? `must evaluate to ${names[0]}` : `must evaluate to one of [${names.join(' ')}]`,
    };
  }
  return { program: { type, run: (activation) => p(activation) } };
}

// ---------------------------------------------------------------------------------------------
// Running

export interface AdmissionRunResult {
  value?: unknown;
  /** cel-go's words for a runtime error (`no such key: x`, `operation cancelled: actual cost limit exceeded`). */
  error?: string;
  cost: number;
  /** Stopped by the per-call limit or the regex work budget. */
  exceeded: boolean;
  /** Stopped by the request's regex work budget (env.ts REGEX_WORK_BUDGET): answered as out of budget. */
  regexRefused: boolean;
}

/**
 * Runs a program under its own meter (`limit`: the per-call limit). Safe to call while another
 * evaluation is metered (a lazy variable read from inside an expression): the outer meter is
 * put back as it was, so the variable's cost is not the expression's, as in kube.
 */
export function runAdmissionProgram(
  p: AdmissionProgram,
  activation: Record<string, unknown>,
  limit: number,
  regex?: RegexBudget,
): AdmissionRunResult {
  const saved = { ...meter };
  const nested = meter.active;
  const r = metered(
    limit,
    () => {
      // The root node is evaluated outside the engine's run(), so its range is checked here.
      const v = p.run(activation);
      checkRange(v);
      return v;
    },
    regex,
  );
  if (nested) Object.assign(meter, saved);
  if (r.error !== undefined) {
    const msg = r.error instanceof CostLimitExceeded ? r.error.message : runtimeMessage(r.error);
    return { error: msg, cost: r.cost, exceeded: r.exceeded, regexRefused: r.regexRefused };
  }
  return { value: r.value, cost: r.cost, exceeded: false, regexRefused: false };
}

/** JSON (a decoded object, int64-exact numbers as bigint) → CEL, as kube's unstructured values. */
export function admissionValue(v: unknown): unknown {
  return toDyn(v);
}

/** The `authorizer` value for a request. */
export function authorizerValue(a: AuthorizerValue): unknown {
  return new AuthorizerMap(a);
}

/** A CEL value back to JSON-ish JS (for audit annotation values and tests). */
export function fromCel(v: unknown): unknown {
  if (typeof v === 'bigint') return v;
  if (Array.isArray(v)) return v.map(fromCel);
  if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), fromCel(x)]));
  return v;
}

// ---------------------------------------------------------------------------------------------
// Type checking against schemas (kube's validating/typechecking.go, for status.typeChecking)

/** The ObjectMeta fields a resource's published schema carries (kube resolves the full ObjectMeta). */
const OBJECT_META_SCHEMA: JSONSchemaProps = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    generateName: { type: 'string' },
    namespace: { type: 'string' },
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    generation: { type: 'integer' },
    creationTimestamp: { type: 'string', format: 'date-time' },
    deletionTimestamp: { type: 'string', format: 'date-time' },
    deletionGracePeriodSeconds: { type: 'integer' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' } },
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          name: { type: 'string' },
          uid: { type: 'string' },
          controller: { type: 'boolean' },
          blockOwnerDeletion: { type: 'boolean' },
        },
      },
    },
    managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  },
};

function resourceSchema(s: JSONSchemaProps): JSONSchemaProps {
  return {
    ...s,
    type: 'object',
    properties: {
      ...(s.properties ?? {}),
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: OBJECT_META_SCHEMA,
    },
  };
}

/**
 * Type-checks expressions as kube's typeCheckingCompiler does: `object`/`oldObject` typed by a
 * resource's schema (with ObjectMeta), `params` by the paramKind's (or dyn), the variables composed
 * in that environment, no return type enforced. Returns, per expression, cel-go's issues text or
 * undefined.
 */
export function typeCheckAdmissionExpressions(
  expressions: readonly string[],
  variables: readonly { name: string; expression: string }[],
  hasParams: boolean,
  schemas: { object?: JSONSchemaProps; params?: JSONSchemaProps },
): (string | undefined)[] {
  const namer = new TypeNamer();
  const objectDecl = schemas.object ? declFor(resourceSchema(schemas.object), '', namer, false) : undefined;
  const paramsDecl =
    hasParams && schemas.params ? declFor(resourceSchema(schemas.params), '', namer, false) : undefined;
  const typed = admissionEnv().clone();
  for (const d of namer.objects) {
    const fields: Record<string, string> = {};
    for (const [name, f] of d.fields!) fields[name] = f.decl.celType;
    typed.registerType(d.celType, { ctor: d.ctor!, fields });
    typed.registerOperator(`${d.celType} == ${d.celType}`, (a: unknown, b: unknown) => celEquals(a, b));
  }
  for (const v of ['request', 'namespaceObject']) typed.registerVariable(v, 'dyn');
  typed.registerVariable('object', objectDecl?.celType ?? 'dyn');
  typed.registerVariable('oldObject', objectDecl?.celType ?? 'dyn');
  if (hasParams) typed.registerVariable('params', paramsDecl?.celType ?? 'dyn');
  typed.registerVariable('authorizer', AUTHORIZER);
  const known = functionNamesOf(admissionEnv());
  const check = (env: Environment, src: string): { type?: string; issue?: string } => {
    const checked = parseAndCheck(env, src, known);
    return checked.issue !== undefined ? { issue: checked.issue } : { type: checked.type ?? 'dyn' };
  };
  const withVariables = (vars: readonly { name: string; type: string }[]): Environment => {
    const env = typed.clone();
    const fields: Record<string, string> = {};
    for (const v of vars) fields[v.name] = v.type;
    env.registerType(VARIABLES_TYPE, { ctor: LazyVariables, fields } as never);
    env.registerVariable('variables', VARIABLES_TYPE);
    return env;
  };
  const vars: { name: string; type: string }[] = [];
  for (const v of variables) vars.push({ name: v.name, type: check(withVariables(vars), v.expression).type ?? 'dyn' });
  const env = withVariables(vars);
  return expressions.map((e) => check(env, e).issue);
}
