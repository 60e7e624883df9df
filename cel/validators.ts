// cel-go's AST validators (cel/validator.go), which an environment runs over a checked AST once
// the check has passed, each adding issues as the checker does: duration and timestamp literals
// evaluated, regex literals compiled, and list and map literals held to one element type. Kube's
// base environment enables all four (k8s.io/apiserver/pkg/cel/environment/base.go); libraries
// bring their own (the strings library's format() check, kube/strings-format.ts).
import { type CallExpr, type Expr, subExpressions } from './ast.js';
import { type CheckedAst, locationOfId } from './checker.js';
import { STANDARD_IMPLS, UNMETERED } from './functions.js';
import { compileRegex, RegexError } from './regex.js';
import type { Issues, Source } from './source.js';
import { formatType, isEquivalentType, type Type } from './types.js';
import { CelError, Uint, type Value } from './values.js';

/** Reports an issue at an expression, as the checker reports one. */
type Report = (exprId: number, message: string) => void;

/** An expression of the tree, and whether it sits inside a call of an exempt function. */
interface Visited {
  readonly expr: Expr;
  readonly exempted: boolean;
}

export interface AstValidator {
  /**
   * Functions whose list and map literals, at any depth, the homogeneity check skips (cel-go's
   * HomogeneousAggregateLiteralExemptFunctions, which a validator's Configure extends).
   */
  readonly exemptFunctions?: readonly string[];
  /** `nodes`: every expression of the tree, parents before children (one walk for all validators). */
  validate(ast: CheckedAst, nodes: readonly Visited[], report: Report): void;
}

/** The tree's expressions, parents before children, each marked when inside a call of an exempt function. */
function visit(root: Expr, exempt: ReadonlySet<string>): Visited[] {
  const out: Visited[] = [];
  const stack: Visited[] = [{ expr: root, exempted: false }];
  while (stack.length > 0) {
    const v = stack.pop()!;
    out.push(v);
    const e = v.expr;
    const exempted = v.exempted || (e.kind === 'call' && exempt.has(e.function));
    const subs = subExpressions(e);
    for (let i = subs.length - 1; i >= 0; i--) stack.push({ expr: subs[i]!, exempted });
  }
  return out;
}

const constantValue = (e: Expr): Value | undefined => {
  if (e.kind !== 'constant') return undefined;
  const k = e.value;
  return k.kind === 'null' ? null : k.kind === 'uint' ? new Uint(k.value) : k.value;
};

/**
 * cel-go's formatValidator: each call of `fn` whose first argument (the receiver not counted) is
 * a literal, checked by `valid`; "invalid <fn> argument" at the literal otherwise.
 */
function literalArgument(
  fn: string,
  valid: (call: CallExpr, literal: Value, ast: CheckedAst) => boolean,
): AstValidator {
  return {
    validate(ast, nodes, report) {
      for (const { expr: e } of nodes) {
        if (e.kind !== 'call' || e.function !== fn || e.args.length === 0) continue;
        const arg = e.args[0]!;
        const literal = constantValue(arg);
        if (literal !== undefined && !valid(e, literal, ast)) report(arg.id, `invalid ${fn} argument`);
      }
    },
  };
}

/** cel-go's evalCall: the call itself run on its literal; an error is an invalid argument. */
function evaluates(call: CallExpr, literal: Value, ast: CheckedAst): boolean {
  for (const id of ast.referenceMap.get(call.id)?.overloadIds ?? []) {
    const impl = STANDARD_IMPLS.get(id);
    if (impl !== undefined) return !(impl([literal], UNMETERED) instanceof CelError);
  }
  return true;
}

function compiles(_call: CallExpr, literal: Value): boolean {
  try {
    compileRegex(literal as string);
    return true;
  } catch (e) {
    if (e instanceof RegexError) return false;
    throw e;
  }
}

export const DURATION_LITERALS = literalArgument('duration', evaluates);
export const TIMESTAMP_LITERALS = literalArgument('timestamp', evaluates);
/** matches()'s first argument: the pattern of `s.matches(p)`, the string of `matches(s, p)`, as cel-go has it. */
export const REGEX_LITERALS = literalArgument('matches', compiles);

/** The type an element contributes: an optional entry's value type. */
const elementType = (ast: CheckedAst, e: Expr, optional: boolean): Type | undefined => {
  const t = ast.typeMap.get(e.id);
  return optional ? t?.params[0] : t;
};

/** cel-go's homogeneousAggregateLiteralValidator: one element type per list, one key and one value type per map. */
export const HOMOGENEOUS_AGGREGATE_LITERALS: AstValidator = {
  validate(ast, nodes, report) {
    const mismatch = (id: number, expected: Type, actual: Type): void =>
      report(id, `expected type '${formatType(expected)}' but found '${formatType(actual)}'`);
    for (const { expr: e, exempted } of nodes) {
      if (exempted) continue;
      if (e.kind === 'list') {
        let first: Type | undefined;
        for (const [i, el] of e.elements.entries()) {
          const t = elementType(ast, el, e.optionalIndices.includes(i));
          if (t === undefined) continue;
          if (first === undefined) first = t;
          else if (!isEquivalentType(first, t)) {
            mismatch(el.id, first, t);
            break;
          }
        }
      } else if (e.kind === 'struct' && e.messageName === '') {
        let key: Type | undefined;
        let value: Type | undefined;
        for (const en of e.entries) {
          if (en.key.kind !== 'mapKey') continue;
          const kt = ast.typeMap.get(en.key.key.id);
          const vt = elementType(ast, en.value, en.optionalEntry);
          if (kt === undefined || vt === undefined) continue;
          if (key === undefined || value === undefined) {
            key = kt;
            value = vt;
            continue;
          }
          if (!isEquivalentType(key, kt)) mismatch(en.key.key.id, key, kt);
          if (!isEquivalentType(value, vt)) mismatch(en.value.id, value, vt);
        }
      }
    }
  },
};

/**
 * Runs validators over a checked AST as cel-go's Env.Check does once the check has passed,
 * adding their issues to `issues`.
 */
export function validateAst(
  ast: CheckedAst,
  source: Source,
  issues: Issues,
  validators: readonly AstValidator[],
): void {
  const nodes = visit(ast.expr, new Set(validators.flatMap((v) => v.exemptFunctions ?? [])));
  const report: Report = (id, message) => issues.report(id, locationOfId(ast.sourceInfo, source, id), message);
  for (const v of validators) v.validate(ast, nodes, report);
}
