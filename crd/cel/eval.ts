// x-kubernetes-validations at object write, as kube's schema/cel validation.go runs them: `self`
// bound to the value at the rule's level (oldSelf to the correlated old value on update),
// transition rules only with an old value (unless optionalOldSelf), failures with kube's texts,
// messageExpression, reason and fieldPath, a per-call cost limit and a per-request budget, and
// ratcheting (on update a rule without oldSelf that fails on an unchanged value is a warning).
// Beside kube's budget, a request has a budget for regex work (env.ts REGEX_WORK_BUDGET: kube's
// cost does not bound re2js's time on the event loop); running out of it fails as kube's does.
import { Optional } from '@marcbachmann/cel-js';
import {
  type FieldError,
  child,
  duplicate,
  forbidden,
  formatFieldError,
  index,
  internalField,
  invalid,
  key,
  required,
} from '../../apimachinery/field-errors.js';
import type { JSONSchemaProps, ValidationRule } from '../../apimachinery/apis/apiextensions.js';
import { REGEX_WORK_BUDGET, type RegexBudget, metered } from './env.js';
import { runtimeMessage } from './messages.js';
import { type Decl, toCel } from './types.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { isJsonObject } from '../../apimachinery/object.js';

/** celconfig.RuntimeCELCostBudget */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** celconfig.PerCallLimit (the admission policies' too) */
export const PER_CALL_LIMIT = 1_000_000;
/** celconfig.MaxEvaluatedMessageExpressionSizeBytes */
export const MAX_MESSAGE_EXPRESSION_BYTES = 5 * 1024;

type Program = (ctx?: Record<string, unknown>) => unknown;

export interface CompiledRule {
  rule: ValidationRule;
  program: Program;
  message?: Program;
  usesOldSelf: boolean;
  /** Static cost (× cardinality). */
  cost: number;
  /** Normalized fieldPath (kube's NormalizedRuleFieldPath). */
  fieldPath?: string;
}

export interface RuleNode {
  schema: JSONSchemaProps;
  decl: Decl;
  rules: CompiledRule[];
  props: Map<string, RuleNode>;
  items?: RuleNode;
  additional?: RuleNode;
}

export interface ValidateOptions {
  /** The request's remaining CEL cost budget (default celconfig.RuntimeCELCostBudget). */
  budget?: number;
  /** The per-rule call limit (default celconfig.PerCallLimit). */
  perCallLimit?: number;
  /** The request's regex work budget (default REGEX_WORK_BUDGET; not kube's: see env.ts). */
  regexWorkBudget?: number;
}

export interface ValidateResult {
  errors: FieldError[];
  warnings: string[];
  /** The budget left (negative: evaluation stopped). */
  remainingBudget: number;
  /** The regex work budget left. */
  remainingRegexWork: number;
}

/** Correlation of the new value with the old one, for ratcheting (kube's ratchetingOptions). */
interface Correlation {
  /** The old value at this node when correlatable. */
  current?: { old: unknown; value: unknown; eq?: boolean };
  parent?: { old: unknown; value: unknown; eq?: boolean };
}

function cachedEq(c: { old: unknown; value: unknown; eq?: boolean }): boolean {
  return (c.eq ??= deepEqual(c.value, c.old));
}

function ruleErrorString(r: ValidationRule): string {
  return r.message && r.message.length > 0 ? r.message.trim() : r.rule.trim();
}
function ruleMessageOrDefault(r: ValidationRule): string {
  return r.message && r.message.length > 0 ? r.message.trim() : `failed rule: ${ruleErrorString(r)}`;
}

function errorForReason(path: string, value: unknown, detail: string, reason: ValidationRule['reason']): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, value);
    default:
      return invalid(path, value, detail);
  }
}

/** kube prints a nil root path as `<nil>`. */
const shown = (path: string): string => path || '<nil>';

/** kube's error once a request's CEL runtime budget is spent (CRD rules and admission policies). */
export const OUT_OF_BUDGET =
  'validation failed due to running out of cost budget, no further validation rules will be run';

class Run {
  errors: FieldError[] = [];
  warnings: string[] = [];
  constructor(
    public remaining: number,
    readonly perCall: number,
    readonly update: boolean,
    /** Regex work left for the request, shared by its rules (and messageExpressions). */
    readonly regex: RegexBudget,
  ) {}

  /** Returns false when evaluation must stop (budget exhausted). */
  node(n: RuleNode, path: string, value: unknown, old: unknown, corr: Correlation): boolean {
    if (value === null || value === undefined) return true;
    if (old === null) old = undefined;
    if (n.rules.length && !this.rules(n, path, value, old, corr)) return false;

    if (isJsonObject(value)) {
      const oldObj = isJsonObject(old) ? old : undefined;
      for (const [name, c] of n.props) {
        if (!(name in value)) continue;
        const o = oldObj && Object.hasOwn(oldObj, name) ? oldObj[name] : undefined;
        if (
          !this.node(
            c,
            child(path, name),
            value[name],
            o,
            this.keyCorr(corr, o, value[name], oldObj !== undefined && name in oldObj),
          )
        )
          return false;
      }
      if (n.additional) {
        for (const k of Object.keys(value)) {
          const o = oldObj && Object.hasOwn(oldObj, k) ? oldObj[k] : undefined;
          if (
            !this.node(
              n.additional,
              key(path, k),
              value[k],
              o,
              this.keyCorr(corr, o, value[k], oldObj !== undefined && k in oldObj),
            )
          )
            return false;
        }
      }
    } else if (Array.isArray(value) && n.items) {
      const oldArr = Array.isArray(old) ? old : undefined;
      const keys =
        n.schema['x-kubernetes-list-type'] === 'map' ? (n.schema['x-kubernetes-list-map-keys'] ?? []) : undefined;
      const oldByKey = new Map<string, unknown>();
      if (keys && oldArr)
        for (const o of oldArr) if (isJsonObject(o)) oldByKey.set(stringifyJSON(keys.map((k) => o[k] ?? null)), o);
      for (let i = 0; i < value.length; i++) {
        const v = value[i];
        let o: unknown;
        let correlated = false;
        if (keys && isJsonObject(v)) {
          const k = stringifyJSON(keys.map((kk) => v[kk] ?? null));
          correlated = oldByKey.has(k);
          o = oldByKey.get(k);
        }
        const c: Correlation =
          corr.current === undefined
            ? corr
            : correlated
              ? { current: { old: o, value: v }, parent: corr.current }
              : { parent: corr.current };
        if (!this.node(n.items, index(path, i), v, o, c)) return false;
      }
    }
    return true;
  }

  private keyCorr(corr: Correlation, old: unknown, value: unknown, present: boolean): Correlation {
    if (corr.current === undefined) return corr;
    return present ? { current: { old, value }, parent: corr.current } : { parent: corr.current };
  }

  private shouldRatchet(corr: Correlation): boolean {
    if (!this.update) return false;
    if (corr.current) return cachedEq(corr.current);
    return corr.parent ? cachedEq(corr.parent) : false;
  }

  private rules(n: RuleNode, path: string, value: unknown, old: unknown, corr: Correlation): boolean {
    const type = n.schema.type ?? '';
    const field = shown(path);
    if (this.remaining <= 0) {
      this.errors.push(invalid(field, type, OUT_OF_BUDGET));
      return false;
    }
    const self = toCel(value, n.decl);
    const oldSelf = old === undefined ? undefined : toCel(old, n.decl);
    for (const r of n.rules) {
      const optional = r.rule.optionalOldSelf === true;
      if (r.usesOldSelf && old === undefined && !optional) continue;
      const activation: Record<string, unknown> = { self };
      if (optional) activation.oldSelf = oldSelf === undefined ? Optional.none() : Optional.of(oldSelf);
      else if (oldSelf !== undefined) activation.oldSelf = oldSelf;
      const limit = Math.min(this.perCall, this.remaining);
      const res = metered(limit, () => r.program(activation), this.regex);
      if (res.exceeded) {
        // Regex work the request's budget cannot cover was refused before it ran: as kube's budget.
        if (res.regexRefused || limit < this.perCall) {
          this.errors.push(invalid(field, type, OUT_OF_BUDGET));
        } else {
          this.errors.push(
            invalid(
              field,
              type,
              `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(r.rule)}`,
            ),
          );
        }
        this.remaining = -1;
        return false;
      }
      this.remaining -= res.cost;
      if (res.error !== undefined) {
        const m = runtimeMessage(res.error);
        if (m.startsWith('no such overload'))
          this.errors.push(
            invalid(
              field,
              type,
              `'${m}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(r.rule)}`,
            ),
          );
        else this.errors.push(invalid(field, type, `${m} evaluating rule: ${ruleErrorString(r.rule)}`));
        continue;
      }
      if (res.value === true) continue;

      const errPath = r.fieldPath ? (path ? `${path}.${r.fieldPath}`.replace(/\.\[/g, '[') : r.fieldPath) : path;
      const errField = shown(errPath);
      const add = (e: FieldError): void => {
        if (!r.usesOldSelf && this.shouldRatchet(corr)) this.warnings.push(formatFieldError(e));
        else this.errors.push(e);
      };
      let detail: string | undefined;
      if (r.message) {
        const limit2 = Math.min(this.perCall, this.remaining);
        const m = metered(limit2, () => r.message!(activation), this.regex);
        if (m.exceeded) {
          add(
            invalid(
              errField,
              type,
              m.regexRefused || limit2 < this.perCall
                ? 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run'
                : `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${r.rule.messageExpression}`,
            ),
          );
          this.remaining = -1;
          return false;
        }
        this.remaining -= m.cost;
        if (m.error === undefined && typeof m.value === 'string') {
          const s = m.value.trim();
          let bad: string | undefined;
          if (s.length > MAX_MESSAGE_EXPRESSION_BYTES)
            bad = `messageExpression beyond allowable length of ${MAX_MESSAGE_EXPRESSION_BYTES}`;
          else if (/[\n\r]/.test(s)) bad = 'messageExpression should not contain line breaks';
          else if (s === '') bad = 'messageExpression should evaluate to a non-empty string';
          if (bad) {
            add(invalid(errField, type, bad));
            this.remaining = -1;
            return false;
          }
          detail = s;
        }
      }
      detail ??= ruleMessageOrDefault(r.rule);
      const shownValue = type === 'object' || type === 'array' ? type : value;
      add(errorForReason(errField, shownValue, detail, r.rule.reason));
    }
    return true;
  }
}

/** The compiled rules of one schema (a CRD version), from compileSchemaRules. */
export class CompiledRules {
  constructor(private readonly root: RuleNode | undefined) {}

  /** True when the schema has no rule that compiled. */
  get empty(): boolean {
    return this.root === undefined;
  }

  /**
   * Runs the rules over an object (create: `old` undefined; update: the stored object).
   * Errors use field paths relative to the object (the root is printed `<nil>`, as kube).
   */
  validate(obj: unknown, old: unknown | undefined, opts: ValidateOptions = {}): ValidateResult {
    const run = new Run(
      opts.budget ?? RUNTIME_CEL_COST_BUDGET,
      opts.perCallLimit ?? PER_CALL_LIMIT,
      old !== undefined && old !== null,
      { remaining: opts.regexWorkBudget ?? REGEX_WORK_BUDGET },
    );
    if (this.root) {
      try {
        run.node(
          this.root,
          '',
          obj,
          old ?? undefined,
          old !== undefined && old !== null ? { current: { old, value: obj } } : {},
        );
      } catch (e) {
        // A value nested deeper than the converters' recursion reaches (the request decoder allows
        // 10,000 levels) overflows the stack: still a 422, in cel-go's words for too deep.
        const msg = e instanceof RangeError ? 'max recursion depth exceeded' : (e as Error).message;
        run.errors.push(internalField('<nil>', `internal error: ${msg}`));
      }
    }
    return {
      errors: run.errors,
      warnings: run.warnings,
      remainingBudget: run.remaining,
      remainingRegexWork: run.regex.remaining,
    };
  }
}
