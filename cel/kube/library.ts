// One of kube's CEL libraries as cel/ takes it: the declarations the checker resolves calls
// against, the type names it brings, and the implementations by overload id for the evaluator.
import type { FunctionDecl, VariableDecl } from '../decls.js';
import type { Impl } from '../functions.js';

export interface KubeLibrary {
  readonly functions: readonly FunctionDecl[];
  readonly impls: ReadonlyMap<string, Impl>;
  /** Type names usable as identifiers (a library's object types). */
  readonly types?: readonly VariableDecl[];
}
