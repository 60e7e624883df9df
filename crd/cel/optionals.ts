// The parts of CEL's optional library (cel-go's OptionalTypes, which kube enables) the engine lacks:
// optional.ofNonZeroValue, equality of optionals, and the optMap/optFlatMap macros.
//
// The macros use the engine's documented custom-macro hooks (typeCheck/evaluate over the call's
// AST arguments), binding the variable the way its own cel.bind() does.
import { type Environment, Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { celEquals } from './env.js';

/** The engine's view of a CEL type during checking. */
interface CheckedType {
  kind: string;
  valueType?: CheckedType;
  toString(): string;
}

interface MacroNode {
  op: string;
  args: unknown;
}

interface Scope {
  forkWithVariable(name: string, type: CheckedType): Scope & { setIterValue(v: unknown, ev: unknown): Scope };
}

interface Checker {
  check(node: MacroNode, ctx: Scope): CheckedType;
  getType(name: string): CheckedType;
  registry: { getOptionalType(t: CheckedType): CheckedType };
  createError(code: string, message: string, node: MacroNode): Error;
}

interface Evaluator {
  run(node: MacroNode, ctx: Scope): unknown;
}

interface OptMacro {
  desc: string;
  flat: boolean;
  receiver: MacroNode;
  name: string;
  body: MacroNode;
  varType?: CheckedType;
  typeCheck(chk: Checker, m: OptMacro, ctx: Scope): CheckedType;
  evaluate(ev: Evaluator, m: OptMacro, ctx: Scope): unknown;
}

/** cel-go's zero values: what ofNonZeroValue() turns into optional.none(). */
export function isZeroValue(v: unknown): boolean {
  if (v === null || v === false || v === '' || v === 0 || v === 0n) return true;
  if (v instanceof UnsignedInt) return v.value === 0n;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  if (v instanceof Duration) return v.seconds === 0n && v.nanos === 0;
  if (v instanceof Date) return v.getTime() === 0;
  if (v instanceof Optional) return false;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

function optTypeCheck(chk: Checker, m: OptMacro, ctx: Scope): CheckedType {
  const recv = chk.check(m.receiver, ctx);
  if (recv.kind !== 'optional' && recv.kind !== 'dyn')
    throw chk.createError('optional_expected', `${m.desc} receiver must be optional, got '${recv}'`, m.receiver);
  // An unbound type parameter (optional.none(), an empty literal's elements) binds as dyn.
  const inner = recv.kind === 'optional' ? recv.valueType : undefined;
  m.varType = inner && inner.kind !== 'param' ? inner : chk.getType('dyn');
  const body = chk.check(m.body, ctx.forkWithVariable(m.name, m.varType));
  if (!m.flat) return chk.registry.getOptionalType(body);
  if (body.kind !== 'optional' && body.kind !== 'dyn')
    throw chk.createError('optional_expected', `${m.desc} must return an optional, got '${body}'`, m.body);
  return body.kind === 'optional' ? body : chk.getType('optional');
}

function optEvaluate(ev: Evaluator, m: OptMacro, ctx: Scope): unknown {
  const recv = ev.run(m.receiver, ctx);
  if (!(recv instanceof Optional)) throw new Error(`${m.desc} receiver must be optional`);
  if (!recv.hasValue()) return Optional.none();
  const out = ev.run(m.body, ctx.forkWithVariable(m.name, m.varType!).setIterValue(recv.value(), ev));
  if (!m.flat) return Optional.of(out);
  if (!(out instanceof Optional)) throw new Error(`${m.desc} must return an optional`);
  return out;
}

function optMacro(desc: string, flat: boolean) {
  return ({ args, receiver }: { args: MacroNode[]; receiver: MacroNode }): OptMacro => {
    const [v, body] = args as [MacroNode, MacroNode];
    if (v.op !== 'id' || typeof v.args !== 'string') throw new Error(`${desc} invalid variable argument`);
    return { desc, flat, receiver, name: v.args, body, typeCheck: optTypeCheck, evaluate: optEvaluate };
  };
}

export function registerOptionals(env: Environment): void {
  env.registerFunction('OptionalNamespace.ofNonZeroValue(A): optional<A>', (_ns: unknown, v: unknown) =>
    isZeroValue(v) ? Optional.none() : Optional.of(v),
  );
  env.registerOperator('optional<A> == optional<A>', (a: Optional, b: Optional) =>
    a.hasValue() && b.hasValue() ? celEquals(a.value(), b.value()) : a.hasValue() === b.hasValue(),
  );
  env.registerFunction('optional.optMap(ast, ast): optional<dyn>', optMacro('optMap(var, expr)', false) as never);
  env.registerFunction(
    'optional.optFlatMap(ast, ast): optional<dyn>',
    optMacro('optFlatMap(var, expr)', true) as never,
  );
}
