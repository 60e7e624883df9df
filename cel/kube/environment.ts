// Kube 1.33's CEL base environment (k8s.io/apiserver/pkg/cel/environment/base.go), which CRD
// validation rules, ValidatingAdmissionPolicy and matchConditions all extend: the standard and
// optional libraries, the two-variable comprehensions, and kube's libraries (URLs, regex, lists,
// authorization, quantity, strings v2, sets, IP, CIDR, format, semver v1). As kube's EnvSet it is
// two environments: one for new expressions, with what its compatibility version (1.32) has, and
// one for stored expressions, with everything. Declarations for the checker, the AST validators, a
// Library for the evaluator, and kube's runtime call costs; each built once.
import { KUBE_VERSION } from '../../apimachinery/kube-version.js';
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

/**
 * Which of kube's two environments an expression compiles in (environment.Type): a new one at
 * kube 1.33's DefaultCompatibilityVersion, 1.32, so without what 1.33 introduced (semver); a
 * stored one (an object already held it, or a plugin or an object write runs it) with everything,
 * so that a downgrade's or upgrade's server still runs what the other accepted.
 */
export type EnvironmentType = 'NewExpressions' | 'StoredExpressions';

/** The minor of kube's DefaultCompatibilityVersion: a binary's MinCompatibilityVersion, one minor back. */
const COMPATIBILITY_MINOR = Number(KUBE_VERSION.minor) - 1;

/**
 * base.go's libraries in its order, each with the 1.x minor that introduced it (IntroducedVersion).
 * Authz is declared for every use; only admission binds the `authorizer` that reaches it.
 * AuthzSelectors' feature gate, AuthorizeWithSelectors, is on by default in 1.33.
 */
const VERSIONED_LIBRARIES: readonly (readonly [KubeLibrary, number])[] = [
  [URLS_LIBRARY, 0],
  [REGEX_LIBRARY, 0],
  [LISTS_LIBRARY, 0],
  [AUTHZ_LIBRARY, 27],
  [QUANTITY_LIBRARY, 28],
  [STRINGS_LIBRARY, 29],
  [SETS_LIBRARY, 29],
  [IP_LIBRARY, 30],
  [CIDR_LIBRARY, 30],
  [FORMAT_LIBRARY, 31],
  [AUTHZ_SELECTORS_LIBRARY, 31],
  [SEMVER_LIBRARY, 33],
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

function build(libraries: readonly KubeLibrary[]): KubeEnvironment {
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

const environments = new Map<EnvironmentType, KubeEnvironment>();

/** Kube 1.33's base environment of the type. */
export function kubeEnvironment(type: EnvironmentType): KubeEnvironment {
  let env = environments.get(type);
  if (env === undefined) {
    const libraries = VERSIONED_LIBRARIES.filter(
      ([, introduced]) => type === 'StoredExpressions' || introduced <= COMPATIBILITY_MINOR,
    ).map(([library]) => library);
    environments.set(type, (env = build(libraries)));
  }
  return env;
}
