// One expression through cel-go's compile steps, as the admission expressions take it: the size and depth limits, the parse, the engine's AST preparation and the
// type check, each failure as kube's `compilation failed` issue text.
import type { Environment } from '@marcbachmann/cel-js';
import { type EngineNode, prepareAst } from './env.js';
import { TOO_DEEP_ISSUE, checkSource } from './limits.js';
import { compileIssue } from './messages.js';

/** A parsed program as the engine returns it: callable, with its AST and its type check. */
export type ParsedProgram = ((ctx?: Record<string, unknown>) => unknown) & {
  ast: unknown;
  check(): { valid: boolean; type?: string; error?: unknown };
};

/** The parsed, checked program and its type (undefined when the engine gives none), or the issue that stopped it. */
export type CheckedExpression =
  | { prog: ParsedProgram; type: string | undefined; issue?: undefined }
  | { issue: string; prog?: undefined; type?: undefined };

/**
 * checkSource's limits first (past them the engine's recursion would overflow), then env.parse,
 * prepareAst and the type check. A stack overflow the limits did not foresee is kube's
 * `max recursion depth exceeded`.
 */
export function parseAndCheck(env: Environment, src: string, knownFunctions: ReadonlySet<string>): CheckedExpression {
  try {
    const limits = checkSource(src);
    if (limits.issue !== undefined) return { issue: limits.issue };
    let p: ParsedProgram;
    try {
      p = env.parse(limits.engineSource) as unknown as ParsedProgram;
    } catch (e) {
      if (e instanceof RangeError) throw e;
      return { issue: compileIssue(e, src, knownFunctions) };
    }
    prepareAst(p.ast as EngineNode);
    const c = p.check();
    if (!c.valid) {
      if (c.error instanceof RangeError) throw c.error;
      return { issue: compileIssue(c.error, src, knownFunctions) };
    }
    return { prog: p, type: c.type };
  } catch (e) {
    if (e instanceof RangeError) return { issue: TOO_DEEP_ISSUE };
    throw e;
  }
}
