// Variable and function declarations as cel-go's common/decls has them: a function is a name
// and its overloads, each global (`f(a, b)`) or receiver-style (`a.f(b)`, the receiver its
// first argument), each with the id the checked AST's reference map records.
import { type Type, typeOf, typeParamNames } from './types.js';

export interface VariableDecl {
  readonly name: string;
  readonly type: Type;
}

export interface OverloadDecl {
  readonly id: string;
  /** For a member overload, the receiver's type comes first. */
  readonly argTypes: readonly Type[];
  readonly resultType: Type;
  readonly isMember: boolean;
  /** The type parameters the signature mentions: the checker gives each a fresh variable per call. */
  readonly typeParams: readonly string[];
}

export interface FunctionDecl {
  readonly name: string;
  readonly overloads: readonly OverloadDecl[];
}

export const variable = (name: string, type: Type): VariableDecl => ({ name, type });

/** A type's name as an identifier denoting the type (decls.TypeVariable): `int` is `type(int)`. */
export const typeVariable = (t: Type): VariableDecl => variable(t.name, typeOf(t));

function makeOverload(id: string, argTypes: readonly Type[], resultType: Type, isMember: boolean): OverloadDecl {
  const params = new Set<string>();
  typeParamNames(resultType, params);
  for (const a of argTypes) typeParamNames(a, params);
  return { id, argTypes, resultType, isMember, typeParams: [...params] };
}

export const overload = (id: string, argTypes: readonly Type[], resultType: Type): OverloadDecl =>
  makeOverload(id, argTypes, resultType, false);
export const memberOverload = (id: string, argTypes: readonly Type[], resultType: Type): OverloadDecl =>
  makeOverload(id, argTypes, resultType, true);
export const func = (name: string, ...overloads: OverloadDecl[]): FunctionDecl => ({ name, overloads });

/** Two declarations of one function as one: later overloads are appended, a repeated id is kept once. */
export function mergeFunctions(a: FunctionDecl, b: FunctionDecl): FunctionDecl {
  const ids = new Set(a.overloads.map((o) => o.id));
  return { name: a.name, overloads: [...a.overloads, ...b.overloads.filter((o) => !ids.has(o.id))] };
}
