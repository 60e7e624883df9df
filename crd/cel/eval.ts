// x-kubernetes-validations at object write, as kube-apiserver 1.33 runs them (apiextensions-apiserver
// pkg/apiserver/schema/cel/validation.go), on cel/'s evaluator: `self` (and `oldSelf`, correlated
// with the old object) as schema-typed values, transition rules only with an old value (unless
// optionalOldSelf), failures with kube's texts, messageExpression, reason and fieldPath, the
// per-call cost limit and the request's budget, and ratcheting (on update a rule without oldSelf
// that fails on an unchanged value is a warning). Beside kube's budget, a request has a budget for
// regex work (cel/regex.ts REGEX_WORK_BUDGET: kube's cost does not bound re2js's time on the event
// loop); running out of it fails as kube's budget does.
import type { JSONSchemaProps, ValidationRule } from '../../apimachinery/apis/apiextensions.js';
import {
  child,
  duplicate,
  type FieldError,
  forbidden,
  formatFieldError,
  goQuote,
  index,
  internalField,
  invalid,
  key,
  required,
} from '../../apimachinery/field-errors.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { type Activation, COST_LIMIT_EXCEEDED, type Program } from '../../cel/eval.js';
import {
  MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES,
  OUT_OF_BUDGET,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
} from '../../cel/kube/limits.js';
import { convertedElements, convertedProperty, schemaValue } from '../../cel/kube/schema-values.js';
import { trim } from '../../cel/kube/strings-text.js';
import { REGEX_WORK_BUDGET, type RegexBudget } from '../../cel/regex.js';
import { CelError, type JsonValue, OptionalValue, type Value } from '../../cel/values.js';
import type { Correlation } from '../schema/validate/compile-schema.js';

/** A rule compiled at CRD write (compile.ts). */
export interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program: Program;
  message?: Program;
  readonly usesOldSelf: boolean;
  /** Whether the messageExpression reads oldSelf: kube binds it on every update, whatever the rule reads. */
  messageUsesOldSelf?: boolean;
  /** kube's NormalizedRuleFieldPath. */
  fieldPath?: string;
}

/** The rules at a schema node and the nodes below it that have rules (kube's Validator). */
export interface RuleNode {
  readonly schema: JSONSchemaProps;
  /** The root of the resource or of an embedded one: kind, apiVersion and metadata.name are visible. */
  readonly isResourceRoot: boolean;
  rules: readonly CompiledRule[];
  readonly props: Map<string, RuleNode>;
  items?: RuleNode;
  additional?: RuleNode;
}

interface ValidateOptions {
  /** The request's remaining CEL cost budget (default celconfig.RuntimeCELCostBudget). */
  budget?: number;
  /** The per-rule call limit (default celconfig.PerCallLimit). */
  perCallLimit?: number;
  /** The request's regex work budget (default REGEX_WORK_BUDGET; not kube's: see cel/regex.ts). */
  regexWorkBudget?: number;
}

interface ValidateResult {
  errors: FieldError[];
  warnings: string[];
  /** The budget left (negative: evaluation stopped). */
  remainingBudget: number;
  /** The regex work budget left. */
  remainingRegexWork: number;
}

/**
 * kube's hasBlockingErr: schema errors that leave the object's shape unknown (a wrong type, a
 * value past a limit, a missing or unsupported one) stop the rules, which assume a valid object.
 */
export function rulesBlockedBy(schemaErrors: readonly FieldError[]): FieldError | undefined {
  const blocking = new Set([
    'FieldValueNotSupported',
    'FieldValueRequired',
    'FieldValueTooLong',
    'FieldValueTooMany',
    'FieldValueTypeInvalid',
  ]);
  if (!schemaErrors.some((e) => blocking.has(e.type))) return undefined;
  return invalid(
    '<nil>',
    null,
    'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  );
}

/** kube's ratchetingOptions: the node's correlation with the old object, or its nearest correlated ancestor's. */
interface Ratcheting {
  readonly current: Correlation | null;
  readonly parent: Correlation | null;
}
const NO_RATCHETING: Ratcheting = { current: null, parent: null };

function ratchetKey(r: Ratcheting, field: string): Ratcheting {
  if (r.current === null) return r;
  // The root's kind and apiVersion are not correlated (both sides convert to the same type).
  if (r.parent === null && (field === 'apiVersion' || field === 'kind')) return NO_RATCHETING;
  return { current: r.current.key(field), parent: r.current };
}

function ratchetIndex(r: Ratcheting, i: number): Ratcheting {
  return r.current === null ? r : { current: r.current.index(i), parent: r.current };
}

const shouldRatchet = (r: Ratcheting): boolean => (r.current ?? r.parent)?.deepEqual() ?? false;

const ruleErrorString = (r: ValidationRule): string => trim(r.message ? r.message : r.rule);
const ruleMessageOrDefault = (r: ValidationRule): string =>
  r.message ? trim(r.message) : `failed rule: ${ruleErrorString(r)}`;

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

/** A node's field path, made into text only for an error: most writes have none. */
interface Path {
  readonly parent: Path | undefined;
  /** A property, a map's key (`entry`), or a list's index. */
  readonly key: string | number;
  readonly entry: boolean;
}

/** A path as kube prints it (`<nil>` for the root). */
function pathText(p: Path | undefined): string {
  return shown(pathString(p));
}

function pathString(p: Path | undefined): string {
  if (p === undefined) return '';
  const parent = pathString(p.parent);
  if (typeof p.key === 'number') return index(parent, p.key);
  return p.entry ? key(parent, p.key) : child(parent, p.key);
}

/** kube's validationActivation: `self`, and `oldSelf` where the node's rules read it. */
class RuleActivation implements Activation {
  constructor(
    private readonly self: Value,
    private readonly oldSelf: Value | undefined,
  ) {}

  resolve(name: string): Value | undefined {
    return name === 'self' ? this.self : name === 'oldSelf' ? this.oldSelf : undefined;
  }
}

/** A messageExpression's result: the message, kube's error ending the rules, or nothing (the rule's message is used). */
type MessageResult = { readonly message: string } | { readonly stop: string } | Record<string, never>;

class Run {
  readonly errors: FieldError[] = [];
  readonly warnings: string[] = [];
  /** Each evaluation's limits, set before it (an object per rule is garbage every write makes). */
  private readonly limits: { costLimit: number; regexBudget: RegexBudget };

  constructor(
    public remaining: number,
    private readonly perCall: number,
    readonly regex: RegexBudget,
  ) {
    this.limits = { costLimit: 0, regexBudget: regex };
  }

  /**
   * Returns false when evaluation must stop (budget spent). `converted` is the value as the
   * parent node's `self` converted it, if it did: nested nodes share one conversion.
   */
  node(
    n: RuleNode,
    path: Path | undefined,
    value: unknown,
    old: Correlation | null,
    ratchet: Ratcheting,
    converted: Value | undefined,
  ): boolean {
    if (value === null || value === undefined) return true;
    let self = converted;
    if (n.rules.length > 0) {
      self ??= schemaValue(value as JsonValue, n.schema, n.isResourceRoot);
      if (!this.rules(n, path, self, old, ratchet)) return false;
    }
    if (isJsonObject(value)) {
      const additional = n.additional;
      for (const k of Object.keys(value)) {
        const sub = additional ?? n.props.get(k);
        if (sub === undefined) continue;
        const at: Path = { parent: path, key: k, entry: additional !== undefined };
        const shared = self === undefined ? undefined : convertedProperty(self, k, sub.schema);
        if (!this.node(sub, at, value[k], old?.key(k) ?? null, ratchetKey(ratchet, k), shared)) return false;
      }
    } else if (Array.isArray(value) && n.items !== undefined) {
      const items = n.items;
      const shared = self === undefined ? undefined : convertedElements(self, n.schema, items.schema);
      for (let i = 0; i < value.length; i++) {
        const at: Path = { parent: path, key: i, entry: false };
        if (!this.node(items, at, value[i], old?.index(i) ?? null, ratchetIndex(ratchet, i), shared?.[i])) return false;
      }
    }
    return true;
  }

  private rules(
    n: RuleNode,
    path: Path | undefined,
    self: Value,
    old: Correlation | null,
    ratchet: Ratcheting,
  ): boolean {
    const type = n.schema.type ?? '';
    if (this.remaining <= 0) {
      this.errors.push(invalid(pathText(path), type, OUT_OF_BUDGET));
      return false;
    }
    const oldJson = old?.oldValue ?? null;
    // kube binds oldSelf on every update; it is converted only where a rule or its message reads it.
    const oldSelf =
      oldJson !== null && n.rules.some((r) => r.usesOldSelf || r.messageUsesOldSelf === true)
        ? schemaValue(oldJson as JsonValue, n.schema, n.isResourceRoot)
        : undefined;
    const plain = new RuleActivation(self, oldSelf);
    let optional: RuleActivation | undefined;
    for (const r of n.rules) {
      // A rule that does not read oldSelf runs alike in either activation.
      const optionalOldSelf = r.usesOldSelf && r.rule.optionalOldSelf === true;
      // Transition rules run only on an update with an old value, unless optionalOldSelf.
      if (r.usesOldSelf && oldSelf === undefined && !optionalOldSelf) continue;
      const act = optionalOldSelf
        ? (optional ??= new RuleActivation(
            self,
            oldSelf === undefined ? OptionalValue.NONE : OptionalValue.of(oldSelf),
          ))
        : plain;
      const res = this.eval(r.program, act);
      if (res === undefined) {
        this.errors.push(invalid(pathText(path), type, OUT_OF_BUDGET));
        return false;
      }
      if (res instanceof CelError) {
        const m = res.message;
        const field = pathText(path);
        if (m.startsWith('no such overload'))
          this.errors.push(
            invalid(
              field,
              type,
              `'${m}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(r.rule)}`,
            ),
          );
        else if (m.startsWith(COST_LIMIT_EXCEEDED)) {
          this.errors.push(
            invalid(
              field,
              type,
              `'${m}': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(r.rule)}`,
            ),
          );
          return false;
        } else this.errors.push(invalid(field, type, `${m} evaluating rule: ${ruleErrorString(r.rule)}`));
        continue;
      }
      if (res === true) continue;

      const errField = r.fieldPath ? shown(child(pathString(path), r.fieldPath)) : pathText(path);
      const add = (e: FieldError): void => {
        if (!r.usesOldSelf && shouldRatchet(ratchet)) this.warnings.push(formatFieldError(e));
        else this.errors.push(e);
      };
      const m = r.message === undefined ? {} : this.message(r.message, r.rule.messageExpression!, plain);
      if ('stop' in m) {
        add(invalid(errField, type, m.stop));
        return false;
      }
      add(errorForReason(errField, type, 'message' in m ? m.message : ruleMessageOrDefault(r.rule), r.rule.reason));
    }
    return true;
  }

  /**
   * One evaluation under the per-call limit, charged to the budget: its value (an error
   * included), or undefined when it ran past the budget (or the regex work budget).
   */
  private eval(p: Program, a: Activation): Value | CelError | undefined {
    this.limits.costLimit = Math.min(this.perCall, this.remaining);
    const r = p.eval(a, this.limits);
    if (r.regexRefused || r.cost > this.remaining) return undefined;
    this.remaining -= r.cost;
    return r.value;
  }

  /** kube's evalMessageExpression. */
  private message(p: Program, src: string, a: Activation): MessageResult {
    const v = this.eval(p, a);
    if (v === undefined)
      return {
        stop: 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
      };
    if (v instanceof CelError && v.message.startsWith(COST_LIMIT_EXCEEDED))
      return {
        stop: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${goQuote(src)}`,
      };
    if (typeof v !== 'string') return {};
    const s = trim(v);
    // Too long, several lines or empty: the rule's own message instead.
    if (Buffer.byteLength(s, 'utf8') > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || s.includes('\n') || s === '')
      return {};
    return { message: s };
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
   * Runs the rules over an object; on an update, `correlation` is the new object's correlation
   * with the stored one (crd/schema CompiledSchema.correlate), for oldSelf and ratcheting.
   * Errors use field paths relative to the object (the root is printed `<nil>`, as kube).
   */
  validate(obj: unknown, correlation: Correlation | undefined, opts: ValidateOptions = {}): ValidateResult {
    const run = new Run(opts.budget ?? Number(RUNTIME_CEL_COST_BUDGET), opts.perCallLimit ?? Number(PER_CALL_LIMIT), {
      remaining: opts.regexWorkBudget ?? REGEX_WORK_BUDGET,
    });
    if (this.root) {
      const c = correlation ?? null;
      try {
        run.node(this.root, undefined, obj, c, { current: c, parent: null }, undefined);
      } catch (e) {
        // A value nested deeper than the converters' recursion reaches (the request decoder allows
        // 10,000 levels) overflows the stack: still a 422, in cel-go's words for too deep.
        if (!(e instanceof RangeError)) throw e;
        run.errors.push(internalField('<nil>', 'internal error: max recursion depth exceeded'));
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
