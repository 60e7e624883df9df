// One of kube's CEL libraries as cel/ takes it: the declarations the checker resolves calls
// against and the implementations by overload id for the evaluator. (Kube's libraries declare no
// type identifiers: `kubernetes.Quantity` is a type calls return, not a name rules can write.)
import type { FunctionDecl } from '../decls.js';
import type { Impl } from '../functions.js';

export interface KubeLibrary {
  readonly functions: readonly FunctionDecl[];
  readonly impls: ReadonlyMap<string, Impl>;
}
