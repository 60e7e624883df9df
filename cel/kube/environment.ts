// Kube's CEL environment for CRD validation rules as of kube 1.33 (k8s.io/apiserver/pkg/cel/
// environment/base.go at compatibility version 1.33): the standard and optional libraries, the
// two-variable comprehensions, and kube's libraries (URLs, regex, lists, quantity, strings v2,
// sets, IP, CIDR, format, semver v1). The authorization libraries are for admission policies,
// not CRD rules, and are not here. Declarations for the checker, a Library for the evaluator,
// and kube's runtime call costs; built once.
import { type CheckerEnv, KUBE_CHECKER_OPTIONS, standardEnv } from '../checker.js';
import { TWO_VAR_COMPREHENSION_FUNCTIONS } from '../comprehensions.js';
import { type FunctionDecl, typeVariable } from '../decls.js';
import { KUBE_PROGRAM_OPTIONS, Library, type ProgramOptions } from '../eval.js';
import type { Impl } from '../functions.js';
import { CIDR_LIBRARY } from './cidr.js';
import { kubeCallCost } from './cost.js';
import { FORMAT_LIBRARY } from './format.js';
import { IP_LIBRARY } from './ip.js';
import type { KubeLibrary } from './library.js';
import { LISTS_LIBRARY } from './lists.js';
import { QUANTITY_LIBRARY } from './quantity.js';
import { REGEX_LIBRARY } from './regex.js';
import { SEMVER_LIBRARY } from './semver.js';
import { SETS_LIBRARY } from './sets.js';
import { STRINGS_LIBRARY } from './strings.js';
import { URLS_LIBRARY } from './urls.js';

/** In base.go's order. */
export const KUBE_CRD_LIBRARIES: readonly KubeLibrary[] = [
  URLS_LIBRARY,
  REGEX_LIBRARY,
  LISTS_LIBRARY,
  QUANTITY_LIBRARY,
  STRINGS_LIBRARY,
  SETS_LIBRARY,
  IP_LIBRARY,
  CIDR_LIBRARY,
  FORMAT_LIBRARY,
  SEMVER_LIBRARY,
];

export interface KubeEnvironment {
  /** Every function kube's CRD rules may call, beyond the standard and optional libraries. */
  readonly functions: readonly FunctionDecl[];
  /** The implementations, the standard ones included. */
  readonly library: Library;
  /** Kube's runtime settings: has() free, kube's call costs. A per-call limit is the caller's to add. */
  readonly programOptions: ProgramOptions;
  /** A checker environment with all of it declared; the caller adds `self` and its types. */
  checkerEnv(): CheckerEnv;
}

/** Builds a library set into one environment (tests build smaller ones). */
export function kubeEnvironment(libraries: readonly KubeLibrary[]): KubeEnvironment {
  const functions = libraries.flatMap((l) => l.functions);
  const impls = new Map<string, Impl>(libraries.flatMap((l) => [...l.impls]));
  const types = libraries.flatMap((l) => l.types ?? []);
  const library = new Library(
    functions,
    impls,
    types.map((t) => t.name),
  );
  return {
    functions,
    library,
    programOptions: { ...KUBE_PROGRAM_OPTIONS, library, callCost: kubeCallCost },
    checkerEnv: () =>
      standardEnv(KUBE_CHECKER_OPTIONS)
        .addIdents(...types.map(typeVariable))
        .addFunctions(...TWO_VAR_COMPREHENSION_FUNCTIONS, ...functions),
  };
}

let crd: KubeEnvironment | undefined;

/** Kube 1.33's environment for CRD validation rules. */
export function kubeCrdEnvironment(): KubeEnvironment {
  return (crd ??= kubeEnvironment(KUBE_CRD_LIBRARIES));
}
