// x-kubernetes-validations at CRD write, as kube-apiserver 1.33 checks them (apiextensions-apiserver
// pkg/apis/apiextensions/validation: ValidateCustomResourceDefinitionOpenAPISchema, CELSchemaContext;
// pkg/apiserver/schema/cel/compilation.go), on cel/: every rule at every level compiled against
// `self` (and `oldSelf`) typed from the schema, messageExpression compiled (must be a string),
// reason and fieldPath checked, each expression's static cost (a rule's × how often it may run)
// against 10,000,000 and the schema's total against 100,000,000, with kube's texts and paths.
// The result also holds the programs the object writes run (eval.ts).
import { hash } from 'node:crypto';
import type { JSONSchemaProps, ValidationRule } from '../../apimachinery/apis/apiextensions.js';
import {
  child,
  type FieldError,
  forbidden,
  GoPrinted,
  goQuote,
  internalField,
  invalid,
  notSupported,
  required,
} from '../../apimachinery/field-errors.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import { isJsonObject, setOwn } from '../../apimachinery/object.js';
import { type CheckerEnv, outputType } from '../../cel/checker.js';
import { estimateCost, MAX_UINT64 } from '../../cel/cost.js';
import { type Program, ProgramError, program } from '../../cel/eval.js';
import { KUBE_COST_OPTIONS, KubeCostEstimator } from '../../cel/kube/cost.js';
import { type EnvironmentType, kubeEnvironment } from '../../cel/kube/environment.js';
import { escapeFieldName } from '../../cel/kube/escaping.js';
import {
  childCardinality,
  costErrorMessage,
  ruleCost,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from '../../cel/kube/limits.js';
import {
  celVisible,
  generateSelfTypeName,
  ruleVariables,
  SchemaTypeProvider,
  type SchemaDeclType,
  schemaDeclType,
  usesOldSelf,
} from '../../cel/kube/schema-types.js';
import {
  additionalPropertiesOf,
  itemsOf,
  SchemaSizeEstimator,
  type SizedType,
  schemaSizes,
  withTypeAndObjectMeta,
} from '../../cel/kube/sizes.js';
import { call, pause, runTask, type Task } from '../../apimachinery/structured-merge/trampoline.js';
import { CompiledRules, type CompiledRule, type RuleNode } from './eval.js';

const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const NEWLINE = /[\n\r]+/;

/** Go's %#v of an apiextensions.ValidationRule, as kube prints it as the bad value. */
export function goValidationRule(r: ValidationRule): GoPrinted {
  const reason =
    r.reason === undefined
      ? '(*apiextensions.FieldValueErrorReason)(nil)'
      : '(*apiextensions.FieldValueErrorReason)(0xc000000000)';
  const oos = r.optionalOldSelf === undefined ? '(*bool)(nil)' : '(*bool)(0xc000000000)';
  return new GoPrinted(
    `apiextensions.ValidationRule{Rule:${goQuote(r.rule ?? '')}, Message:${goQuote(r.message ?? '')}, MessageExpression:${goQuote(r.messageExpression ?? '')}, Reason:${reason}, FieldPath:${goQuote(r.fieldPath ?? '')}, OptionalOldSelf:${oos}}`,
  );
}

/** kube's unescapeSingleQuote: the escapes a quoted fieldPath segment may use; undefined for any other. */
function unescapeSingleQuote(s: string): string | undefined {
  const escapes: Readonly<Record<string, string>> = {
    a: '\x07',
    b: '\b',
    f: '\f',
    n: '\n',
    r: '\r',
    t: '\t',
    v: '\v',
    "'": "'",
    '\\': '\\',
  };
  let ok = true;
  const out = s.replace(/\\./g, (m) => {
    const e = escapes[m[1]!];
    if (e === undefined) ok = false;
    return e ?? '';
  });
  return ok ? out : undefined;
}

/**
 * kube's ValidFieldPath: a rule's fieldPath (`.a.b`, `['x.y']`) resolved through the schema's
 * properties and additionalProperties, normalized as field.Path prints it (`a.b`, `a[k]`), or
 * undefined when the schema has no such field.
 */
export function validFieldPath(path: string, schema: JSONSchemaProps): string | undefined {
  // kube's scanner: `.`, `[`, `]` alone, a single-quoted string whole, anything else up to a delimiter.
  const toks = path.match(/'(?:[^'\\]|\\.)*'|[.[\]]|[^.[\]']+/g) ?? [];
  let out = '';
  let s: JSONSchemaProps | undefined = schema;
  const append = (name: string): boolean => {
    if (s?.properties !== undefined) {
      const p: JSONSchemaProps | undefined = s.properties[name];
      if (p === undefined) return false;
      out = child(out, name);
      s = p;
      return true;
    }
    const ap = s === undefined ? undefined : additionalPropertiesOf(s);
    if (ap === undefined) return false;
    out = `${out}[${name}]`;
    s = ap;
    return true;
  };
  for (let i = 0; i < toks.length; ) {
    const t = toks[i++]!;
    if (t === '.') {
      const name = toks[i++];
      if (name === undefined || !append(name)) return undefined;
    } else if (t === '[') {
      const q = toks[i++];
      if (q === undefined || q.length < 2 || !q.startsWith("'") || !q.endsWith("'")) return undefined;
      const name = unescapeSingleQuote(q.slice(1, -1));
      if (name === undefined || !append(name) || toks[i++] !== ']') return undefined;
    } else return undefined;
  }
  return out;
}

/** Kube's checks of a rule's own fields (SchemaErrors: they stop the CEL checks of the schema above). */
function ruleFieldErrors(r: ValidationRule, p: string, s: JSONSchemaProps): FieldError[] {
  const errs: FieldError[] = [];
  const rule = (r.rule ?? '').trim();
  const message = r.message ?? '';
  const msg = message.trim();
  if (rule === '') errs.push(required(`${p}.rule`, 'rule is not specified'));
  else if (message.length > 0 && msg === '')
    errs.push(invalid(`${p}.message`, message, 'message must be non-empty if specified'));
  else if (NEWLINE.test(msg)) errs.push(invalid(`${p}.message`, message, 'message must not contain line breaks'));
  else if (NEWLINE.test(rule) && msg === '')
    errs.push(required(`${p}.message`, 'message must be specified if rule contains line breaks'));
  if (r.messageExpression !== undefined && r.messageExpression.length > 0 && r.messageExpression.trim() === '')
    errs.push(required(`${p}.messageExpression`, 'messageExpression must be non-empty if specified'));
  if (r.reason !== undefined && !SUPPORTED_REASONS.includes(r.reason))
    errs.push(notSupported(`${p}.reason`, r.reason, SUPPORTED_REASONS));
  const fp = r.fieldPath ?? '';
  if (fp.length > 0 && fp.trim() === '')
    errs.push(invalid(`${p}.fieldPath`, fp, 'fieldPath must be non-empty if specified'));
  if (NEWLINE.test(fp)) errs.push(invalid(`${p}.fieldPath`, fp, 'fieldPath must not contain line breaks'));
  if (fp.length > 0 && validFieldPath(fp, s) === undefined)
    errs.push(invalid(`${p}.fieldPath`, fp, 'fieldPath must be a valid path'));
  return errs;
}

/**
 * kube's checks of every rule's own fields where it compiles no CEL (a schema that is not
 * structural or whose defaults are invalid: kube's nil CELSchemaContext), at each node its
 * ValidateCustomResourceDefinitionOpenAPISchema walks, junctors included, in its order.
 */
export function ruleFieldErrorsOf(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  // The CRD's decode leaves only well-typed schemas; a node or list of another shape is passed by
  // rather than thrown on (a 500), should one ever get here.
  const walk = (s: JSONSchemaProps, p: string): void => {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) return;
    const ap = additionalPropertiesOf(s);
    if (ap !== undefined) walk(ap, child(p, 'additionalProperties'));
    for (const name of Object.keys(s.properties ?? {}).sort())
      walk(s.properties![name]!, `${child(p, 'properties')}[${name}]`);
    if (s.not !== undefined) walk(s.not, child(p, 'not'));
    for (const junctor of ['allOf', 'oneOf', 'anyOf'] as const) {
      const subs = s[junctor];
      if (Array.isArray(subs)) subs.forEach((sub, i) => walk(sub, `${child(p, junctor)}[${i}]`));
    }
    for (const name of Object.keys(s.definitions ?? {}).sort())
      walk(s.definitions![name]!, `${child(p, 'definitions')}[${name}]`);
    if (Array.isArray(s.items)) s.items.forEach((sub, i) => walk(sub, `${child(p, 'items')}[${i}]`));
    else if (s.items !== undefined) walk(s.items, child(p, 'items'));
    for (const name of Object.keys(s.dependencies ?? {}).sort()) {
      // A list, or Go's zero value (null), has no schema to walk.
      const dep = s.dependencies![name];
      if (dep && !Array.isArray(dep)) walk(dep, `${child(p, 'dependencies')}[${name}]`);
    }
    const rules = s['x-kubernetes-validations'];
    if (Array.isArray(rules))
      rules.forEach((r, i) => {
        if (isJsonObject(r)) errs.push(...ruleFieldErrors(r, `${child(p, 'x-kubernetes-validations')}[${i}]`, s));
      });
  };
  walk(schema, path);
  return errs;
}

/** One expression compiled: its program and estimated cost, or where it failed. */
type Expression =
  | { readonly program: Program; readonly usesOldSelf: boolean; readonly maxCost: bigint; readonly failed?: undefined }
  | { readonly failed: 'compile' | 'type' | 'program'; readonly detail: string };

function compileExpression(
  text: string,
  type: EnvironmentType,
  env: CheckerEnv,
  resultKind: 'bool' | 'string',
  estimator: KubeCostEstimator,
): Expression {
  const kube = kubeEnvironment(type);
  const c = kube.compile(text, env);
  if (c.issues !== undefined) return { failed: 'compile', detail: c.issues.toDisplayString() };
  if (outputType(c.ast).kind !== resultKind) return { failed: 'type', detail: '' };
  let p: Program;
  try {
    p = program(c.ast, kube.programOptions);
  } catch (e) {
    if (e instanceof ProgramError) return { failed: 'program', detail: e.message };
    throw e;
  }
  return {
    program: p,
    usesOldSelf: usesOldSelf(c.ast),
    maxCost: estimateCost(c.ast, estimator, KUBE_COST_OPTIONS).max,
  };
}

/** What kube's validation reads of one rule's CompilationResult. */
interface RuleResult {
  compiled?: CompiledRule;
  error?: string;
  usesOldSelf: boolean;
  maxCost: bigint;
  messageError?: string;
  messageMaxCost?: bigint;
}

/**
 * How one compilation picks each expression's environment: kube's preexistingExpressions at a CRD
 * write (an expression the stored CRD had compiles in StoredExpressions, any other in
 * NewExpressions), every one in StoredExpressions for an object write (`preexisting` undefined).
 */
interface EnvChoice {
  readonly preexisting: PreexistingExpressions | undefined;
  /** Set when some expression compiles differently in the two environments: the result then depends on `preexisting`. */
  dependsOnPreexisting: boolean;
}

/**
 * An expression compiled in the environment kube gives it. At a CRD write it is tried in
 * NewExpressions first (a subset of StoredExpressions: what compiles there compiles alike in
 * both), and in StoredExpressions only when that fails, so a compilation whose expressions all
 * compile in both is known to hold for any `preexisting`, and is kept for the object writes.
 */
function compileIn(
  choice: EnvChoice,
  text: string,
  stored: ReadonlySet<string> | undefined,
  envOf: (type: EnvironmentType) => CheckerEnv,
  resultKind: 'bool' | 'string',
  estimator: KubeCostEstimator,
): Expression {
  const as = (type: EnvironmentType) => compileExpression(text, type, envOf(type), resultKind, estimator);
  if (choice.preexisting === undefined) return as('StoredExpressions');
  const asNew = as('NewExpressions');
  if (asNew.failed === undefined) return asNew;
  const asStored = as('StoredExpressions');
  if (asStored.failed !== asNew.failed || asStored.detail !== asNew.detail) choice.dependsOnPreexisting = true;
  return stored?.has(text) === true ? asStored : asNew;
}

/** kube's compileRule (the rule was checked non-empty already); `envOf` gives the checker environment of a type. */
function compileRule(
  r: ValidationRule,
  envOf: (type: EnvironmentType) => CheckerEnv,
  estimator: KubeCostEstimator,
  s: JSONSchemaProps,
  choice: EnvChoice,
): RuleResult {
  const e = compileIn(choice, r.rule, choice.preexisting?.rules, envOf, 'bool', estimator);
  if (e.failed !== undefined) {
    const error =
      e.failed === 'compile'
        ? `compilation failed: ${e.detail}`
        : e.failed === 'type'
          ? 'cel expression must evaluate to a bool'
          : `program instantiation failed: ${e.detail}`;
    return { error, usesOldSelf: false, maxCost: 0n };
  }
  const out: RuleResult = { usesOldSelf: e.usesOldSelf, maxCost: e.maxCost };
  const compiled: CompiledRule = { rule: r, program: e.program, usesOldSelf: e.usesOldSelf };
  if (r.messageExpression) {
    const m = compileIn(
      choice,
      r.messageExpression,
      choice.preexisting?.messageExpressions,
      envOf,
      'string',
      estimator,
    );
    if (m.failed !== undefined) {
      out.messageError =
        m.failed === 'compile'
          ? `messageExpression compilation failed: ${m.detail}`
          : m.failed === 'type'
            ? 'messageExpression must evaluate to a string'
            : `messageExpression instantiation failed: ${m.detail}`;
      // kube returns here: the rule keeps no fieldPath.
      return { ...out, compiled };
    }
    compiled.message = m.program;
    compiled.messageUsesOldSelf = m.usesOldSelf;
    out.messageMaxCost = m.maxCost;
  }
  if (r.fieldPath) compiled.fieldPath = validFieldPath(r.fieldPath, s);
  return { ...out, compiled };
}

/** An expression's estimated cost as kube counts it toward the schema's total (a rule's × how often it may run). */
export interface ExpressionCost {
  /** The rule's or messageExpression's field path. */
  readonly path: string;
  readonly cost: bigint;
}

/** What compileSchemaRules gives: kube's errors, the programs, and the costs kube's limits apply to. */
export interface SchemaRules {
  readonly errors: FieldError[];
  readonly rules: CompiledRules;
  /** Every compiled expression's cost, in kube's order. */
  readonly costs: readonly ExpressionCost[];
  /** The schema's total (kube's TotalCost, saturating at 2^64 - 1). */
  readonly total: bigint;
}

/** Every rule and messageExpression a stored CRD holds, in any version, at any depth (kube's preexistingExpressions). */
export interface PreexistingExpressions {
  readonly rules: ReadonlySet<string>;
  readonly messageExpressions: ReadonlySet<string>;
}

export interface CompileOptions {
  /**
   * At CRD write, what the stored CRD held (empty sets on create): those expressions compile in
   * kube's stored-expressions environment, any other in the new-expressions one. Undefined: all
   * are stored, as when an object write runs the CRD's rules.
   */
  readonly preexisting?: PreexistingExpressions;
  /**
   * On a CRD update, a version whose schema did not change: a rule over the per-expression limit
   * is not refused again (kube's suppressPerExpressionCost); the schema's total still is.
   */
  readonly suppressPerExpressionCost?: boolean;
  /**
   * Every program planned before the result is given, each a step (a program is otherwise planned
   * when first run): for a caller about to run them all, as an object write does in one step.
   */
  readonly plan?: boolean;
}

/**
 * A CEL error as the walk finds it, its paths relative to the schema's root: an expression over
 * the per-expression limit (which an unchanged schema does not report), and the uncorrelatable
 * list's path the oldSelf error names.
 */
interface CelError {
  readonly error: FieldError;
  readonly perExpressionCost?: true;
  readonly uncorrelatable?: string;
}

/**
 * What compiling a schema finds, whatever its path and options: field paths relative to the
 * schema's root. Kept per schema content, so that a CRD's versions of one schema, a CRD written
 * again, and its custom resources' writes (which need only the programs) compile it once.
 */
interface Compilation extends Found {
  readonly rules: CompiledRules;
}

/** What the walk finds besides the programs. */
interface Found {
  /** Errors of the rules' own fields, reported before any CEL error (kube's SchemaErrors). */
  readonly schemaErrors: FieldError[];
  readonly celErrors: CelError[];
  readonly costs: ExpressionCost[];
  /** kube's TotalCost: the sum, and the four most expensive expressions of at least 1% of the limit. */
  total: bigint;
  readonly expensive: ExpressionCost[];
  /** Every program of the rules (messageExpressions' included), for CompileOptions.plan. */
  readonly programs: Program[];
}

interface Ctx extends Found {
  /** The nodes with a rule at or below them (withRules): the walk enters no other. */
  readonly withRules: ReadonlySet<JSONSchemaProps>;
  readonly choice: EnvChoice;
}

/** kube's TotalCost keeps the expressions of at least 1% of the CRD's limit as the most expensive. */
const EXPENSIVE = STATIC_ESTIMATED_CRD_COST_LIMIT / 100n;

function observe(ctx: Ctx, path: string, cost: bigint): void {
  ctx.costs.push({ path, cost });
  const sum = ctx.total + cost;
  ctx.total = sum > MAX_UINT64 ? MAX_UINT64 : sum;
  if (cost < EXPENSIVE) return;
  ctx.expensive.push({ path, cost });
  ctx.expensive.sort((a, b) => (a.cost > b.cost ? -1 : a.cost < b.cost ? 1 : 0));
  if (ctx.expensive.length > 4) ctx.expensive.length = 4;
}

/** One schema node on kube's walk (ValidateCustomResourceDefinitionOpenAPISchema with its CELSchemaContext). */
interface Walk {
  readonly schema: JSONSchemaProps;
  /**
   * The schema of the node's CEL type as its parent's type gives it (kube's typeInfo accessors):
   * a resource root's metadata is just name and generateName; undefined when the parent's type
   * does not reach it (the node then has no validator at run time, and its rules are typed from
   * its own schema at CRD write).
   */
  readonly typed: JSONSchemaProps | undefined;
  /** The root of the resource or of an embedded one. */
  readonly isResourceRoot: boolean;
  readonly path: string;
  /** How often the node may occur (product of maxItems/maxProperties above it); undefined when unbounded. */
  readonly cardinality: bigint | undefined;
  /** The list above whose items oldSelf cannot be correlated, if any. */
  readonly uncorrelatable: string | undefined;
}

const isEmbedded = (s: JSONSchemaProps): boolean => s['x-kubernetes-embedded-resource'] === true;

/** The schema's children the walk enters: additionalProperties, properties, items. */
function children(s: JSONSchemaProps): JSONSchemaProps[] {
  const out = Object.values(s.properties ?? {});
  const ap = additionalPropertiesOf(s);
  if (ap !== undefined) out.push(ap);
  const items = itemsOf(s);
  if (items !== undefined) out.push(items);
  return out;
}

/**
 * The nodes with an x-kubernetes-validations rule at or below them, found in one walk without
 * recursion (children before their parent; a node two parents share is decided once): a subtree
 * without rules has nothing to type, size or compile (most of a large schema; 57 of the
 * real-world corpus's 172 schemas have no rule at all).
 */
function withRules(schema: JSONSchemaProps): Set<JSONSchemaProps> {
  const marked = new Set<JSONSchemaProps>();
  const decided = new Set<JSONSchemaProps>();
  const stack: Array<[JSONSchemaProps, boolean]> = [[schema, false]];
  while (stack.length > 0) {
    const [s, childrenDecided] = stack.pop()!;
    if (decided.has(s)) continue;
    const below = children(s);
    if (!childrenDecided) {
      stack.push([s, true]);
      for (const c of below) if (!decided.has(c)) stack.push([c, false]);
      continue;
    }
    decided.add(s);
    if ((s['x-kubernetes-validations']?.length ?? 0) > 0 || below.some((c) => marked.has(c))) marked.add(s);
  }
  return marked;
}
const reachable = (typed: JSONSchemaProps | undefined): JSONSchemaProps | undefined =>
  typed !== undefined && celVisible(typed) ? typed : undefined;

/** The node's rules checked and compiled (kube's rule loop over Compile's results), children first. */
function* compileNode(ctx: Ctx, w: Walk): Task<{ node: RuleNode | undefined; schemaErrors: number }> {
  const s = w.schema;
  const base = w.typed !== undefined && w.isResourceRoot ? withTypeAndObjectMeta(w.typed) : w.typed;
  const cardinality = childCardinality(w.cardinality, s);
  const node: RuleNode = { schema: s, isResourceRoot: w.isResourceRoot, rules: [], props: new Map() };
  let schemaErrors = 0;
  function* visit(
    sub: JSONSchemaProps,
    at: string,
    typed: JSONSchemaProps | undefined,
    uncorrelatable?: string,
  ): Task<RuleNode | undefined> {
    if (!ctx.withRules.has(sub)) return undefined;
    const r = yield* call(
      compileNode(ctx, {
        schema: sub,
        typed,
        isResourceRoot: isEmbedded(sub),
        path: at,
        cardinality,
        uncorrelatable: w.uncorrelatable ?? uncorrelatable,
      }),
    );
    schemaErrors += r.schemaErrors;
    return typed === undefined ? undefined : r.node;
  }

  const ap = additionalPropertiesOf(s);
  if (ap !== undefined)
    node.additional = yield* visit(
      ap,
      child(w.path, 'additionalProperties'),
      reachable(base && additionalPropertiesOf(base)),
    );
  for (const name of Object.keys(s.properties ?? {}).sort()) {
    const ps = s.properties![name]!;
    if (!ctx.withRules.has(ps)) continue;
    // An unescapable name is no field of the parent's type: kube types it from its own schema.
    const typed = escapeFieldName(name) === undefined ? ps : base?.properties?.[name];
    const n = yield* visit(ps, `${child(w.path, 'properties')}[${name}]`, reachable(typed));
    if (n !== undefined) node.props.set(name, n);
  }
  const items = itemsOf(s);
  if (items !== undefined) {
    // Only x-kubernetes-list-type=map items correlate with old ones.
    const uncorrelatable = s['x-kubernetes-list-type'] === 'map' ? undefined : w.path;
    node.items = yield* visit(items, child(w.path, 'items'), reachable(base && itemsOf(base)), uncorrelatable);
  }

  const rules = s['x-kubernetes-validations'] ?? [];
  const rulesPath = child(w.path, 'x-kubernetes-validations');
  rules.forEach((r, i) => {
    const errs = ruleFieldErrors(r, `${rulesPath}[${i}]`, s);
    ctx.schemaErrors.push(...errs);
    schemaErrors += errs.length;
  });
  // Schema errors here or below: kube checks no CEL of this node.
  if (rules.length > 0 && schemaErrors === 0) node.rules = yield* call(compileRules(ctx, w, rules));
  const used =
    node.rules.length > 0 || node.props.size > 0 || node.items !== undefined || node.additional !== undefined;
  return { node: used ? node : undefined, schemaErrors };
}

/**
 * Schema keywords nothing a rule's compile reads (its type and sizes, cel/kube/schema-types.ts and
 * sizes.ts, and fieldPath's resolution read the rest): nodes that differ only in these compile
 * alike (the real-world corpus: 264 distinct compiles of its 1,199 rules, not 337).
 */
const UNREAD_KEYWORDS = new Set(['description', 'title', 'example', 'examples', 'externalDocs']);

/**
 * The schema without UNREAD_KEYWORDS at any node CEL types (properties, additionalProperties,
 * items); anything else verbatim, values (default, enum) whatever keys they hold.
 */
function typedPart(s: JSONSchemaProps): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (UNREAD_KEYWORDS.has(k)) continue;
    if (k === 'properties' && isJsonObject(v)) {
      const props: Record<string, unknown> = {};
      for (const [name, p] of Object.entries(v)) setOwn(props, name, isJsonObject(p) ? typedPart(p) : p);
      setOwn(out, k, props);
    } else setOwn(out, k, (k === 'items' || k === 'additionalProperties') && isJsonObject(v) ? typedPart(v) : v);
  }
  return out;
}

/** A rule node's schema by what its compile reads (a digest: keys as long as the schema would cost their hashing at each look-up). */
const schemaKey = (s: JSONSchemaProps, isResourceRoot: boolean): string =>
  `${isResourceRoot ? 'root' : 'node'}:${hash('sha256', stringifyJSON(typedPart(s)), 'base64')}`;

/**
 * Rules compiled at any node of any CRD, by the content of the schema that types them: one type's
 * rules recur across a project's kinds and versions whose schemas differ elsewhere (the real-world
 * corpus compiles 536 rules at CRD create, 287 of them distinct so).
 */
const ruleCache = new Map<string, { result: RuleResult; dependsOnPreexisting: boolean }>();
const RULE_CACHE_SIZE = 4096;

/** compileRule's result for `r` typed by the schema of `typeKey` (none: compiled at once), from ruleCache when it has one. */
function compiledRule(
  typeKey: string | undefined,
  r: ValidationRule,
  choice: EnvChoice,
  compile: () => RuleResult,
): RuleResult {
  if (typeKey === undefined) return compile();
  // Which environment each expression compiles in is part of the result (see compileIn).
  const pre = choice.preexisting;
  const stored =
    pre === undefined
      ? '*'
      : `${Number(pre.rules.has(r.rule))}${Number(r.messageExpression !== undefined && pre.messageExpressions.has(r.messageExpression))}`;
  const key = `${typeKey}\u0000${stored}\u0000${JSON.stringify(r)}`;
  const hit = kept(ruleCache, key);
  if (hit !== undefined) {
    if (hit.dependsOnPreexisting) choice.dependsOnPreexisting = true;
    const { result } = hit;
    return result.compiled === undefined ? result : { ...result, compiled: { ...result.compiled, rule: r } };
  }
  const before = choice.dependsOnPreexisting;
  choice.dependsOnPreexisting = false;
  const result = compile();
  const dependsOnPreexisting = choice.dependsOnPreexisting;
  choice.dependsOnPreexisting ||= before;
  keep(ruleCache, RULE_CACHE_SIZE, key, { result, dependsOnPreexisting });
  return result;
}

/**
 * The sizes of `self` typed by `s`, and its type when it was made here; undefined where the schema
 * gives CEL no type. Kept by the schema's key (schemaKey): a node whose rules were all compiled
 * before (ruleCache) is then neither typed nor sized again, two walks of its whole subtree.
 */
function selfType(
  typeKey: string | undefined,
  s: JSONSchemaProps,
  isResourceRoot: boolean,
): { readonly sizes: SizedType; readonly decl?: SchemaDeclType } | undefined {
  const known = typeKey === undefined ? undefined : kept(typeSizes, typeKey);
  if (known !== undefined) return known ?? undefined;
  const decl = schemaDeclType(s, isResourceRoot, generateSelfTypeName());
  const sizes = decl === undefined ? undefined : schemaSizes(s, isResourceRoot);
  if (typeKey !== undefined) keep(typeSizes, TYPE_SIZES_KEPT, typeKey, sizes === undefined ? null : { sizes });
  return sizes === undefined ? undefined : { sizes, decl };
}

/** Sizes by schemaKey; null where the schema gives CEL no type. */
const typeSizes = new Map<string, { readonly sizes: SizedType } | null>();
const TYPE_SIZES_KEPT = 1024;

const uncorrelatableDetail = (list: string): string =>
  `oldSelf cannot be used on the uncorrelatable portion of the schema within ${list}`;

/** A node's rules, each its own step: a sliced run gives way between them. */
function* compileRules(ctx: Ctx, w: Walk, rules: readonly ValidationRule[]): Task<CompiledRule[]> {
  const rulesPath = child(w.path, 'x-kubernetes-validations');
  const typeSchema = w.typed ?? w.schema;
  // The type and sizes of `self` are the schema's alone (the node's cardinality is applied below).
  const typeKey = typeSchema === w.schema ? schemaKey(typeSchema, w.isResourceRoot) : undefined;
  const self = selfType(typeKey, typeSchema, w.isResourceRoot);
  if (self === undefined) {
    ctx.celErrors.push({
      error: internalField(
        rulesPath,
        'internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations',
      ),
    });
    return [];
  }
  const { sizes } = self;
  // Made on the first rule compiled here: the others may all have been compiled before.
  let decl = self.decl;
  let provider: SchemaTypeProvider | undefined;
  const envs = new Map<string, CheckerEnv>();
  const envFor = (optionalOldSelf: boolean, type: EnvironmentType): CheckerEnv => {
    const key = `${type}/${optionalOldSelf}`;
    let env = envs.get(key);
    if (env === undefined) {
      // Defined: a schema of this content was typed before (selfType).
      decl ??= schemaDeclType(typeSchema, w.isResourceRoot, generateSelfTypeName())!;
      envs.set(
        key,
        (env = kubeEnvironment(type)
          .checkerEnv((provider ??= new SchemaTypeProvider(decl)))
          .addIdents(...ruleVariables(decl.type, optionalOldSelf))),
      );
    }
    return env;
  };
  const estimator = new KubeCostEstimator(new SchemaSizeEstimator(sizes));
  const out: CompiledRule[] = [];
  for (const [i, r] of rules.entries()) {
    if (i > 0) yield pause();
    const p = `${rulesPath}[${i}]`;
    const envOf = (type: EnvironmentType) => envFor(r.optionalOldSelf === true, type);
    const cr = compiledRule(typeKey, r, ctx.choice, () => compileRule(r, envOf, estimator, w.schema, ctx.choice));
    const cost = ruleCost(cr.maxCost, w.cardinality, sizes);
    if (cost > STATIC_ESTIMATED_COST_LIMIT)
      ctx.celErrors.push({
        error: forbidden(`${p}.rule`, costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)),
        perExpressionCost: true,
      });
    observe(ctx, `${p}.rule`, cost);
    if (cr.error !== undefined) ctx.celErrors.push({ error: invalid(`${p}.rule`, goValidationRule(r), cr.error) });
    if (cr.messageError !== undefined)
      ctx.celErrors.push({ error: invalid(`${p}.messageExpression`, goValidationRule(r), cr.messageError) });
    else if (cr.messageMaxCost !== undefined) {
      // A messageExpression's cost is not multiplied by how often it may run (kube's own choice).
      if (cr.messageMaxCost > STATIC_ESTIMATED_COST_LIMIT)
        ctx.celErrors.push({
          error: forbidden(
            `${p}.messageExpression`,
            costErrorMessage('estimated messageExpression cost', cr.messageMaxCost, STATIC_ESTIMATED_COST_LIMIT),
          ),
          perExpressionCost: true,
        });
      observe(ctx, `${p}.messageExpression`, cr.messageMaxCost);
    }
    if (cr.usesOldSelf) {
      if (w.uncorrelatable !== undefined)
        ctx.celErrors.push({
          error: invalid(`${p}.rule`, r.rule, uncorrelatableDetail(w.uncorrelatable)),
          uncorrelatable: w.uncorrelatable,
        });
    } else if (r.optionalOldSelf !== undefined)
      ctx.celErrors.push({
        error: invalid(`${p}.optionalOldSelf`, r.optionalOldSelf, 'may not be set if oldSelf is not used in rule'),
      });
    if (cr.compiled !== undefined) {
      out.push(cr.compiled);
      ctx.programs.push(cr.compiled.program);
      if (cr.compiled.message !== undefined) ctx.programs.push(cr.compiled.message);
    }
  }
  return out;
}

/**
 * Compiles every x-kubernetes-validations rule of a version's openAPIV3Schema (expected
 * structural). `path` is the schema's field path (`spec.versions[0].schema.openAPIV3Schema`).
 */
export function compileSchemaRules(schema: JSONSchemaProps, path: string, options: CompileOptions = {}): SchemaRules {
  return runTask(compileSchemaRulesTask(schema, path, options));
}

/**
 * compileSchemaRules as a task, each rule a step: a request runs it sliced (a CRD may hold
 * thousands of rules, seconds of compiling), so that it gives the event loop turns between rules.
 */
export function* compileSchemaRulesTask(
  schema: JSONSchemaProps,
  path: string,
  options: CompileOptions = {},
): Task<SchemaRules> {
  const marked = withRules(schema);
  // Without a rule there is nothing to compile, nor worth keeping.
  if (!marked.has(schema)) return { errors: [], rules: new CompiledRules(undefined), costs: [], total: 0n };
  // stringifyJSON: a schema's defaults and examples may nest deeper than JSON.stringify recurses.
  const content = stringifyJSON(schema);
  // A compilation whose expressions compile alike in both environments holds for any
  // `preexisting` (kept by content alone); one that does not, only for its own.
  const pre = options.preexisting;
  let c = kept(cache, content);
  if (c === undefined) {
    // Built on a miss only: a key as long as the schema's text costs its hashing at every look-up.
    const forOptions = `${content}\u0000${pre === undefined ? '*' : JSON.stringify([[...pre.rules].sort(), [...pre.messageExpressions].sort()])}`;
    c = kept(cache, forOptions);
    if (c === undefined) {
      const choice: EnvChoice = { preexisting: pre, dependsOnPreexisting: false };
      c = yield* call(compile(schema, marked, choice));
      keep(cache, CACHE_SIZE, pre !== undefined && !choice.dependsOnPreexisting ? content : forOptions, c);
    }
  }
  if (options.plan === true) for (const p of c.programs) if (p.plan()) yield pause();
  return atPath(c, path, options);
}

const CACHE_SIZE = 256;
const cache = new Map<string, Compilation>();

/** A least-recently-used cache's entry, made the most recent. */
function kept<T>(lru: Map<string, T>, key: string): T | undefined {
  const c = lru.get(key);
  if (c !== undefined) {
    lru.delete(key);
    lru.set(key, c);
  }
  return c;
}

function keep<T>(lru: Map<string, T>, size: number, key: string, c: T): void {
  lru.set(key, c);
  if (lru.size > size) lru.delete(lru.keys().next().value!);
}

function* compile(schema: JSONSchemaProps, marked: ReadonlySet<JSONSchemaProps>, choice: EnvChoice): Task<Compilation> {
  const ctx: Ctx = {
    withRules: marked,
    choice,
    schemaErrors: [],
    celErrors: [],
    costs: [],
    total: 0n,
    expensive: [],
    programs: [],
  };
  const { node } = yield* call(
    compileNode(ctx, {
      schema,
      typed: schema,
      isResourceRoot: true,
      path: '',
      cardinality: 1n,
      uncorrelatable: undefined,
    }),
  );
  const { schemaErrors, celErrors, costs, total, expensive, programs } = ctx;
  return { schemaErrors, celErrors, costs, total, expensive, programs, rules: new CompiledRules(node) };
}

/** A path the walk made from the root `''`, under the schema's own path. */
const under = (path: string, relative: string): string => (relative === '' ? path : child(path, relative));

/** A compilation's result for the schema at `path`, in kube's order: rule fields, CEL, the schema's total. */
function atPath(c: Compilation, path: string, options: CompileOptions): SchemaRules {
  const rebased = (e: FieldError): FieldError => ({ ...e, field: under(path, e.field) });
  const errors = c.schemaErrors.map(rebased);
  for (const e of c.celErrors) {
    if (e.perExpressionCost && options.suppressPerExpressionCost === true) continue;
    const error = rebased(e.error);
    if (e.uncorrelatable !== undefined) error.detail = uncorrelatableDetail(under(path, e.uncorrelatable));
    errors.push(error);
  }
  if (c.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of c.expensive)
      errors.push(
        forbidden(
          under(path, e.path),
          'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
        ),
      );
    errors.push(
      forbidden(
        path,
        costErrorMessage(
          'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
          c.total,
          STATIC_ESTIMATED_CRD_COST_LIMIT,
        ),
      ),
    );
  }
  return {
    errors,
    rules: c.rules,
    costs: c.costs.map((e) => ({ path: under(path, e.path), cost: e.cost })),
    total: c.total,
  };
}
