// One of kube's CEL libraries as cel/ takes it: the declarations the checker resolves calls
// against, the implementations by overload id for the evaluator, and the types it registers as
// identifiers (cel.Types: only the IP and CIDR libraries do, so `net.IP` is a name and
// `kubernetes.Quantity` is not).
import type { FunctionDecl } from '../decls.js';
import type { Type } from '../types.js';
import type { Impl } from '../functions.js';
import type { AstValidator } from '../validators.js';

export interface KubeLibrary {
  readonly functions: readonly FunctionDecl[];
  readonly impls: ReadonlyMap<string, Impl>;
  readonly types?: readonly Type[];
  /** Checks the library adds to a compile (cel.ASTValidators). */
  readonly validators?: readonly AstValidator[];
  /** Functions whose constant patterns the library's program options compile when a program is built (cel.OptimizeRegex). */
  readonly regexConstants?: readonly string[];
}
