// x-kubernetes-validations at CRD write, as kube-apiserver checks them
// (apiextensions-apiserver pkg/apis/apiextensions/validation ValidateCustomResourceDefinitionOpenAPISchema
// and pkg/apiserver/schema/cel/compilation.go): every rule at every level compiled and
// type-checked against `self` typed from the schema, messageExpression compiled (must be a
// string), reason and fieldPath checked, the static cost estimated per expression (limit
// 10,000,000 × cardinality) and per schema (100,000,000), with kube's messages and paths.
import type { Environment } from '@marcbachmann/cel-js';
import {
  type FieldError,
  GoPrinted,
  child,
  forbidden,
  goQuote,
  invalid,
  notSupported,
  required,
} from '../../apimachinery/field-errors.js';
import type { JSONSchemaProps, ValidationRule } from '../../apimachinery/apis/apiextensions.js';
import { boundsHint, costErrorMessage, estimateCost, maxCardinality } from './cost.js';
import { baseEnv, celEquals, type EngineNode, functionNamesOf, unrenamed, walk } from './env.js';
import { CompiledRules, type CompiledRule, type RuleNode } from './eval.js';
import { TOO_DEEP_ISSUE } from './limits.js';
import { type ParsedProgram, parseAndCheck } from './check.js';
import { compileIssue } from './messages.js';
import { RegexError, compileRegex } from '../../cel/regex.js';
import { type Decl, TypeNamer, declFor } from './types.js';
import { stringifyJSON } from '../../apimachinery/json.js';

/** apiextensions validation.StaticEstimatedCostLimit */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** apiextensions validation.StaticEstimatedCRDCostLimit */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

const supportedReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const newline = /[\n\r]+/;

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

interface Ctx {
  errors: FieldError[];
  namer: TypeNamer;
  typesEnv: Environment;
  knownFunctions: Set<string>;
  total: number;
  expensive: { path: string; cost: number }[];
}

function itemsOf(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return s.items && !Array.isArray(s.items) ? s.items : undefined;
}

/** kube's ValidFieldPath: the normalized path, or an error for a path the schema does not have. */
export function validFieldPath(path: string, schema: JSONSchemaProps): string | undefined {
  const toks = path.match(/'(?:[^'\\]|\\.)*'|[.[\]]|[^.[\]']+/g) ?? [];
  let out = '';
  let s: JSONSchemaProps | undefined = schema;
  let i = 0;
  const append = (name: string): boolean => {
    if (!s) return false;
    if (s.properties) {
      const p: JSONSchemaProps | undefined = s.properties[name];
      if (!p) return false;
      out = out ? `${out}.${name}` : name;
      s = p;
      return true;
    }
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      out = `${out}[${name}]`;
      s = s.additionalProperties;
      return true;
    }
    return false;
  };
  if (toks.length === 0) return undefined;
  while (i < toks.length) {
    const t = toks[i++]!;
    if (t === '.') {
      const name = toks[i++];
      if (name === undefined || !append(name)) return undefined;
    } else if (t === '[') {
      const q = toks[i++];
      if (!q || q.length < 2 || !q.startsWith("'") || !q.endsWith("'")) return undefined;
      const name = q.slice(1, -1).replace(/\\(.)/g, '$1');
      if (!append(name) || toks[i++] !== ']') return undefined;
    } else return undefined;
  }
  return out;
}

function usesOldSelf(ast: EngineNode): boolean {
  let found = false;
  walk(ast, (n) => {
    if (n.op === 'id' && n.args === 'oldSelf') found = true;
  });
  return found;
}

type Parsed = ParsedProgram;

/** A regex literal argument: what cel-go's ValidateRegexLiterals checks and its regex optimizations compile. */
interface RegexLiteral {
  node: EngineNode;
  pattern: string;
  /** The call's name as written (matches, find, findAll). */
  fn: string;
  /** cel-go's ValidateRegexLiterals looks at the first argument of matches() (the pattern of `s.matches(p)`, the string of `matches(s, p)`). */
  validated: boolean;
  /** The interpreter's regex optimizations compile the pattern argument of matches, find and findAll. */
  planned: boolean;
}

function regexLiterals(ast: EngineNode): RegexLiteral[] {
  const out: RegexLiteral[] = [];
  walk(ast, (n) => {
    if (n.op !== 'call' && n.op !== 'rcall') return;
    const a = n.args as unknown[];
    const fn = unrenamed[a[0] as string] ?? (a[0] as string);
    if (fn !== 'matches' && fn !== 'find' && fn !== 'findAll') return;
    const args = (n.op === 'rcall' ? a[2] : a[1]) as EngineNode[];
    // Arguments as cel-go's interpreter sees them: the receiver first.
    const all = n.op === 'rcall' ? [a[1] as EngineNode, ...args] : args;
    all.forEach((x, i) => {
      if (x.op !== 'value' || typeof x.args !== 'string') return;
      const validated = fn === 'matches' && x === args[0];
      const planned = i === 1;
      if (validated || planned) out.push({ node: x, pattern: x.args, fn, validated, planned });
    });
  });
  return out.sort((x, y) => x.node.pos - y.node.pos);
}

/** Go's regexp.Compile error for a pattern, or undefined when it compiles. */
function regexError(pattern: string): string | undefined {
  try {
    compileRegex(pattern);
    return undefined;
  } catch (e) {
    if (e instanceof RegexError) return e.message;
    throw e;
  }
}

/** A compiled expression, or kube's text for why not: `compilation failed: ...` issues or `program instantiation failed: ...`. */
interface Compiled {
  prog?: Parsed;
  type?: string;
  issue?: string;
  /** Set instead of issue when the program cannot be built (a regex literal that does not compile). */
  program?: string;
}

function compileExpr(env: Environment, src: string, known: Set<string>): Compiled {
  const checked = parseAndCheck(env, src, known);
  if (checked.issue !== undefined) return { issue: checked.issue };
  const { prog: p, type } = checked;
  try {
    const literals = regexLiterals(p.ast as EngineNode);
    const invalid = literals.filter((l) => l.validated && regexError(l.pattern) !== undefined);
    if (invalid.length > 0) {
      return {
        issue: invalid
          .map((l) => compileIssue({ message: `invalid ${l.fn} argument`, node: l.node }, src, known))
          .join('\n'),
      };
    }
    for (const l of literals) {
      const err = l.planned ? regexError(l.pattern) : undefined;
      if (err !== undefined) return { prog: p, type, program: err };
    }
    return { prog: p, type };
  } catch (e) {
    // Anything deep enough to overflow the stack that the limits did not foresee.
    if (e instanceof RangeError) return { issue: TOO_DEEP_ISSUE };
    throw e;
  }
}

function ruleEnvs(ctx: Ctx, decl: Decl): { plain: Environment; optional: () => Environment } {
  const plain = ctx.typesEnv.clone();
  plain.registerVariable('self', decl.celType);
  plain.registerVariable('oldSelf', decl.celType);
  let opt: Environment | undefined;
  return {
    plain,
    optional: () => {
      if (!opt) {
        opt = ctx.typesEnv.clone();
        opt.registerVariable('self', decl.celType);
        opt.registerVariable('oldSelf', `optional<${decl.celType}>`);
      }
      return opt;
    },
  };
}

/** Rules at one schema node; `cardinality` is undefined under an unbounded list or map. */
function compileNode(
  ctx: Ctx,
  s: JSONSchemaProps,
  decl: Decl,
  path: string,
  cardinality: number | undefined,
  unboundedAncestors: Decl[],
  correlatable: string | undefined,
): RuleNode | undefined {
  const node: RuleNode = { schema: s, decl, rules: [], props: new Map() };
  const rules = s['x-kubernetes-validations'] ?? [];
  const rulesPath = child(path, 'x-kubernetes-validations');
  let schemaErrs = 0;
  rules.forEach((r, i) => {
    const p = `${rulesPath}[${i}]`;
    const errs: FieldError[] = [];
    const rule = typeof r.rule === 'string' ? r.rule : '';
    const msg = typeof r.message === 'string' ? r.message : '';
    if (rule.trim() === '') errs.push(required(`${p}.rule`, 'rule is not specified'));
    else if (msg.length > 0 && msg.trim() === '')
      errs.push(invalid(`${p}.message`, msg, 'message must be non-empty if specified'));
    else if (newline.test(msg.trim())) errs.push(invalid(`${p}.message`, msg, 'message must not contain line breaks'));
    else if (newline.test(rule.trim()) && msg.trim() === '')
      errs.push(required(`${p}.message`, 'message must be specified if rule contains line breaks'));
    if (r.messageExpression !== undefined && r.messageExpression.length > 0 && r.messageExpression.trim() === '')
      errs.push(required(`${p}.messageExpression`, 'messageExpression must be non-empty if specified'));
    if (r.reason !== undefined && !supportedReasons.includes(r.reason))
      errs.push(notSupported(`${p}.reason`, r.reason, supportedReasons));
    if (r.fieldPath !== undefined && r.fieldPath.length > 0 && r.fieldPath.trim() === '')
      errs.push(invalid(`${p}.fieldPath`, r.fieldPath, 'fieldPath must be non-empty if specified'));
    if (r.fieldPath !== undefined && newline.test(r.fieldPath))
      errs.push(invalid(`${p}.fieldPath`, r.fieldPath, 'fieldPath must not contain line breaks'));
    if (r.fieldPath !== undefined && r.fieldPath.length > 0 && validFieldPath(r.fieldPath, s) === undefined)
      errs.push(invalid(`${p}.fieldPath`, r.fieldPath, 'fieldPath must be a valid path'));
    schemaErrs += errs.length;
    ctx.errors.push(...errs);
  });

  if (rules.length > 0 && schemaErrs === 0) {
    const envs = ruleEnvs(ctx, decl);
    const card = cardinality ?? maxCardinality(decl.minSerializedSize);
    rules.forEach((r, i) => {
      const p = `${rulesPath}[${i}]`;
      if (r.rule.trim() === '') return;
      const env = r.optionalOldSelf ? envs.optional() : envs.plain;
      const c = compileExpr(env, r.rule, ctx.knownFunctions);
      if (c.issue !== undefined) {
        ctx.errors.push(invalid(`${p}.rule`, goValidationRule(r), `compilation failed: ${c.issue}`));
        return;
      }
      if (c.type !== 'bool') {
        ctx.errors.push(invalid(`${p}.rule`, goValidationRule(r), 'cel expression must evaluate to a bool'));
        return;
      }
      if (c.program !== undefined) {
        ctx.errors.push(invalid(`${p}.rule`, goValidationRule(r), `program instantiation failed: ${c.program}`));
        return;
      }
      const ast = c.prog!.ast as EngineNode;
      const est = estimateCost(ast, decl);
      const cost = Math.min(est.cost * card, Number.MAX_SAFE_INTEGER);
      if (cost > STATIC_ESTIMATED_COST_LIMIT) {
        const hint = boundsHint([...(cardinality === undefined ? unboundedAncestors : []), ...est.unbounded]);
        ctx.errors.push(
          forbidden(`${p}.rule`, costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT) + hint),
        );
      }
      observe(ctx, `${p}.rule`, cost);
      const compiled: CompiledRule = { rule: r, program: c.prog!, usesOldSelf: usesOldSelf(ast), cost };
      if (r.messageExpression) {
        const m = compileExpr(env, r.messageExpression, ctx.knownFunctions);
        if (m.issue !== undefined)
          ctx.errors.push(
            invalid(`${p}.messageExpression`, goValidationRule(r), `messageExpression compilation failed: ${m.issue}`),
          );
        else if (m.type !== 'string')
          ctx.errors.push(
            invalid(`${p}.messageExpression`, goValidationRule(r), 'messageExpression must evaluate to a string'),
          );
        else if (m.program !== undefined)
          ctx.errors.push(
            invalid(
              `${p}.messageExpression`,
              goValidationRule(r),
              `messageExpression instantiation failed: ${m.program}`,
            ),
          );
        else {
          const mc = Math.min(estimateCost(m.prog!.ast as EngineNode, decl).cost * card, Number.MAX_SAFE_INTEGER);
          if (mc > STATIC_ESTIMATED_COST_LIMIT)
            ctx.errors.push(
              forbidden(
                `${p}.messageExpression`,
                costErrorMessage('estimated messageExpression cost', mc, STATIC_ESTIMATED_COST_LIMIT),
              ),
            );
          observe(ctx, `${p}.messageExpression`, mc);
          compiled.message = m.prog!;
        }
      }
      if (compiled.usesOldSelf && correlatable !== undefined) {
        ctx.errors.push(
          invalid(
            `${p}.rule`,
            r.rule,
            `oldSelf cannot be used on the uncorrelatable portion of the schema within ${correlatable}`,
          ),
        );
      } else if (!compiled.usesOldSelf && r.optionalOldSelf !== undefined) {
        ctx.errors.push(
          invalid(`${p}.optionalOldSelf`, r.optionalOldSelf, 'may not be set if oldSelf is not used in rule'),
        );
      }
      if (r.fieldPath) compiled.fieldPath = validFieldPath(r.fieldPath, s);
      node.rules.push(compiled);
    });
  }

  // Children, as kube's CELSchemaContext: properties ×1, items ×maxItems, additionalProperties ×maxProperties.
  if (decl.kind === 'object' && s.properties) {
    for (const name of Object.keys(s.properties).sort()) {
      const f = [...decl.fields!.values()].find((x) => x.jsonName === name);
      if (!f) continue;
      const c = compileNode(
        ctx,
        s.properties[name]!,
        f.decl,
        `${child(path, 'properties')}[${name}]`,
        cardinality,
        unboundedAncestors,
        correlatable,
      );
      if (c) node.props.set(name, c);
    }
  }
  const is = itemsOf(s);
  if (decl.kind === 'list' && is) {
    const listType = s['x-kubernetes-list-type'];
    const corr = correlatable ?? (listType === 'map' ? undefined : path);
    const c = compileNode(
      ctx,
      is,
      decl.elem!,
      child(path, 'items'),
      s.maxItems !== undefined && cardinality !== undefined ? cardinality * s.maxItems : undefined,
      s.maxItems === undefined ? [...unboundedAncestors, decl] : unboundedAncestors,
      corr,
    );
    if (c) node.items = c;
  }
  const ap = s.additionalProperties;
  if (decl.kind === 'map' && ap && typeof ap === 'object') {
    const c = compileNode(
      ctx,
      ap,
      decl.elem!,
      child(path, 'additionalProperties'),
      s.maxProperties !== undefined && cardinality !== undefined ? cardinality * s.maxProperties : undefined,
      s.maxProperties === undefined ? [...unboundedAncestors, decl] : unboundedAncestors,
      correlatable,
    );
    if (c) node.additional = c;
  }
  return node.rules.length || node.props.size || node.items || node.additional ? node : undefined;
}

function observe(ctx: Ctx, path: string, cost: number): void {
  ctx.total = Math.min(ctx.total + cost, Number.MAX_SAFE_INTEGER);
  if (cost > STATIC_ESTIMATED_CRD_COST_LIMIT / 100) {
    ctx.expensive.push({ path, cost });
    ctx.expensive.sort((a, b) => b.cost - a.cost);
    if (ctx.expensive.length > 4) ctx.expensive.length = 4;
  }
}

/**
 * Compiles every x-kubernetes-validations rule of a version's openAPIV3Schema.
 * `path` is the schema's field path (`spec.versions[0].schema.openAPIV3Schema`).
 */
export function compileSchemaRules(
  schema: JSONSchemaProps,
  path: string,
): { errors: FieldError[]; rules: CompiledRules } {
  // Compiled per schema: an unchanged version of an updated CRD is not recompiled.
  // stringifyJSON: a schema's defaults and examples may nest deeper than JSON.stringify recurses.
  const cacheKey = `${path}\u0000${stringifyJSON(schema)}`;
  const hit = cache.get(cacheKey);
  if (hit) {
    cache.delete(cacheKey);
    cache.set(cacheKey, hit);
    return { errors: [...hit.errors], rules: hit.rules };
  }
  const result = compileUncached(schema, path);
  cache.set(cacheKey, result);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return { errors: [...result.errors], rules: result.rules };
}

const CACHE_SIZE = 256;
const cache = new Map<string, { errors: FieldError[]; rules: CompiledRules }>();

function compileUncached(schema: JSONSchemaProps, path: string): { errors: FieldError[]; rules: CompiledRules } {
  const namer = new TypeNamer();
  const rootDecl = declFor(schema, '', namer, true);
  const typesEnv = baseEnv().clone();
  for (const d of namer.objects) {
    const fields: Record<string, string> = {};
    for (const [name, f] of d.fields!) fields[name] = f.decl.celType;
    typesEnv.registerType(d.celType, { ctor: d.ctor!, fields });
    typesEnv.registerOperator(`${d.celType} == ${d.celType}`, (a: unknown, b: unknown) => celEquals(a, b));
  }
  const ctx: Ctx = { errors: [], namer, typesEnv, knownFunctions: functionNamesOf(baseEnv()), total: 0, expensive: [] };
  const root = compileNode(ctx, schema, rootDecl, path, 1, [], undefined);
  if (ctx.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const e of ctx.expensive)
      ctx.errors.push(
        forbidden(
          e.path,
          'contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema',
        ),
      );
    ctx.errors.push(
      forbidden(
        path,
        costErrorMessage(
          'x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema',
          ctx.total,
          STATIC_ESTIMATED_CRD_COST_LIMIT,
        ),
      ),
    );
  }
  return { errors: ctx.errors, rules: new CompiledRules(root) };
}
