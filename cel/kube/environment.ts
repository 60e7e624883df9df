// Kube's CEL environment for CRD validation rules as of kube 1.33 (k8s.io/apiserver/pkg/cel/
// environment/base.go at compatibility version 1.33): the standard and optional libraries, the
// two-variable comprehensions, and kube's libraries (URLs, regex, lists, quantity, strings v2,
// sets, IP, CIDR, format, semver v1). Declarations for the checker, the AST validators, a Library
// for the evaluator, and kube's runtime call costs; built once. Admission expressions get the
// authorization libraries besides (base.go declares them for every use, but only admission binds
// the `authorizer` that reaches them).
import {
  type CheckedAst,
  type CheckerEnv,
  check,
  KUBE_CHECKER_OPTIONS,
  standardEnv,
  type TypeProvider,
} from '../checker.js';
import { TWO_VAR_COMPREHENSION_FUNCTIONS } from '../comprehensions.js';
import { type FunctionDecl, typeVariable } from '../decls.js';
import { KUBE_PROGRAM_OPTIONS, Library, type ProgramOptions } from '../eval.js';
import type { Impl } from '../functions.js';
import { KUBE_PARSER_OPTIONS, type ParseResult, parse } from '../parser.js';
import { type Issues, Source } from '../source.js';
import {
  type AstValidator,
  DURATION_LITERALS,
  HOMOGENEOUS_AGGREGATE_LITERALS,
  REGEX_LITERALS,
  TIMESTAMP_LITERALS,
  validateAst,
} from '../validators.js';
import { AUTHZ_LIBRARY, AUTHZ_SELECTORS_LIBRARY } from './authz.js';
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

/** A compiled expression, or the issues that stopped it. */
export type Compiled =
  | { readonly ast: CheckedAst; readonly issues?: undefined }
  | { readonly ast?: undefined; readonly issues: Issues };

export interface KubeEnvironment {
  /** Every function of the environment's kube libraries, beyond the standard and optional ones. */
  readonly functions: readonly FunctionDecl[];
  /** The implementations, the standard ones included. */
  readonly library: Library;
  /** Kube's runtime settings: has() free, kube's call costs. A per-call limit is the caller's to add. */
  readonly programOptions: ProgramOptions;
  /** The checks a compile runs once the type check passes: the base environment's, then the libraries'. */
  readonly validators: readonly AstValidator[];
  /** A checker environment with all of it declared; the caller adds its variables, their object types through `provider`. */
  checkerEnv(provider?: TypeProvider): CheckerEnv;
  /** cel-go's Env.Compile: parse with kube's options, check against `env`, then the validators. */
  compile(text: string, env: CheckerEnv): Compiled;
}

/**
 * Kube's base environment's validators (base.go: HomogeneousAggregateLiterals from 1.0, the
 * literal checks from 1.29), in the order cel-go registers them.
 */
const BASE_VALIDATORS: readonly AstValidator[] = [
  HOMOGENEOUS_AGGREGATE_LITERALS,
  DURATION_LITERALS,
  TIMESTAMP_LITERALS,
  REGEX_LITERALS,
];

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
  const validators = [...BASE_VALIDATORS, ...libraries.flatMap((l) => l.validators ?? [])];
  const declared = standardEnv(KUBE_CHECKER_OPTIONS)
    .addIdents(...types.map(typeVariable))
    .addFunctions(...TWO_VAR_COMPREHENSION_FUNCTIONS, ...functions);
  const regexConstants = [
    ...(KUBE_PROGRAM_OPTIONS.regexConstants ?? []),
    ...libraries.flatMap((l) => l.regexConstants ?? []),
  ];
  return {
    functions,
    library,
    programOptions: { ...KUBE_PROGRAM_OPTIONS, library, callCost: kubeCallCost, regexConstants },
    validators,
    checkerEnv: (provider) => declared.extend({ provider }),
    compile(text, env) {
      const { parsed, source } = parseOnce(text);
      if (parsed.issues.length > 0) return { issues: parsed.issues };
      const checked = check(parsed.ast, source, env);
      if (checked.issues.length > 0) return { issues: checked.issues };
      validateAst(checked.ast, source, checked.issues, validators);
      return checked.issues.length > 0 ? { issues: checked.issues } : { ast: checked.ast };
    },
  };
}

/**
 * Parses kept by text: a parse depends on the text alone (kube's options), and the ASTs are
 * immutable. The same rules recur across a CRD's versions and across CRDs (the real-world
 * corpus: 1,199 expressions, 183 distinct texts), and parsing was a quarter of compiling them.
 */
const parses = new Map<string, { readonly parsed: ParseResult; readonly source: Source }>();
/** Bounds: the texts rules are (long ones are rare and would keep large trees). */
const PARSES_KEPT = 4096;
const PARSE_KEPT_TEXT = 4096;

function parseOnce(text: string): { readonly parsed: ParseResult; readonly source: Source } {
  let p = parses.get(text);
  if (p === undefined) {
    p = { parsed: parse(text, KUBE_PARSER_OPTIONS), source: new Source(text) };
    if (text.length <= PARSE_KEPT_TEXT) {
      parses.set(text, p);
      if (parses.size > PARSES_KEPT) parses.delete(parses.keys().next().value!);
    }
  }
  return p;
}

let crd: KubeEnvironment | undefined;

/** Kube 1.33's environment for CRD validation rules. */
export function kubeCrdEnvironment(): KubeEnvironment {
  return (crd ??= kubeEnvironment(KUBE_CRD_LIBRARIES));
}

/**
 * Which of kube's two environments an admission expression compiles in (environment.Type): new
 * expressions get the libraries of kube 1.33's compatibility version, 1.32, so no semver
 * (introduced at 1.33); stored ones, those an object already held or the plugins run, get all.
 */
export type EnvironmentType = 'NewExpressions' | 'StoredExpressions';

const ADMISSION_NEW_LIBRARIES: readonly KubeLibrary[] = [
  ...KUBE_CRD_LIBRARIES.filter((l) => l !== SEMVER_LIBRARY),
  AUTHZ_LIBRARY,
  AUTHZ_SELECTORS_LIBRARY,
];
const admission = new Map<EnvironmentType, KubeEnvironment>();

/** Kube 1.33's environment for admission expressions (ValidatingAdmissionPolicy, matchConditions). */
export function kubeAdmissionEnvironment(type: EnvironmentType): KubeEnvironment {
  let env = admission.get(type);
  if (env === undefined) {
    env = kubeEnvironment(
      type === 'NewExpressions' ? ADMISSION_NEW_LIBRARIES : [...ADMISSION_NEW_LIBRARIES, SEMVER_LIBRARY],
    );
    admission.set(type, env);
  }
  return env;
}
