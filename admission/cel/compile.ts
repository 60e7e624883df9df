// Admission expressions compiled as kube's admission/plugin/cel compiles them (compile.go,
// composition.go; policy/validating/typechecking.go for typed objects): kube 1.33's environment
// (cel/kube/environment.ts) with `object`, `oldObject` (dyn), `request` and `namespaceObject` (kube's
// hand-built types), `params` (dyn) with a paramKind, `authorizer` and `authorizer.requestResource`
// where the expression may check authorization, and `variables` for a policy with variables, whose
// fields are the types of the variables compiled before (composition). Each result is a program
// under kube's per-call cost limit, or kube's detail of why not: `compilation failed: ERROR: ...`
// with cel-go's texts, or `must evaluate to bool but got int` for the wrong type.
import { type CheckedAst, type CheckerEnv, outputType } from '../../cel/checker.js';
import { variable } from '../../cel/decls.js';
import { type Program, ProgramError, program } from '../../cel/eval.js';
import { AUTHORIZER_TYPE, RESOURCE_CHECK_TYPE } from '../../cel/kube/authz.js';
import { type EnvironmentType, kubeEnvironment } from '../../cel/kube/environment.js';
import { PER_CALL_LIMIT } from '../../cel/kube/limits.js';
import { type SchemaDeclType, SchemaTypeProvider } from '../../cel/kube/schema-types.js';
import {
  BoolType,
  DynType,
  IntType,
  isExactType,
  listType,
  mapType,
  objectType,
  StringType,
  TimestampType,
  type Type,
  typeString,
} from '../../cel/types.js';

export type { EnvironmentType } from '../../cel/kube/environment.js';

/** kube's OptionalVariableDeclarations: whether `params` and `authorizer` are declared. */
export interface Declarations {
  readonly params: boolean;
  readonly authorizer: boolean;
}

/** The types an expression may evaluate to (kube's ReturnTypes); `any` accepts every type. */
export type ReturnTypes = readonly Type[] | 'any';

/** A compiled expression: its program and type, or kube's detail (an ErrorTypeInvalid error's). */
export type CompilationResult =
  | { readonly program: Program; readonly outputType: Type; readonly error?: undefined }
  | { readonly program?: undefined; readonly outputType?: undefined; readonly error: string };

// ---------------------------------------------------------------------------------------------
// Kube's declared types (BuildRequestType, BuildNamespaceType)

const simple = (type: Type): SchemaDeclType => ({ type });
const STRING = simple(StringType);
const STRINGS: SchemaDeclType = { type: listType(StringType), elem: STRING };
const object = (name: string, fields: Record<string, SchemaDeclType>): SchemaDeclType => ({
  type: objectType(name),
  fields: new Map(Object.entries(fields)),
});

const GVK = object('kubernetes.GroupVersionKind', { group: STRING, version: STRING, kind: STRING });
const GVR = object('kubernetes.GroupVersionResource', { group: STRING, version: STRING, resource: STRING });
const USER_INFO = object('kubernetes.UserInfo', {
  username: STRING,
  uid: STRING,
  groups: STRINGS,
  extra: { type: mapType(StringType, STRINGS.type), elem: STRINGS },
});

/** `request`: the AdmissionRequest without uid, object and oldObject. */
const REQUEST = object('kubernetes.AdmissionRequest', {
  kind: GVK,
  resource: GVR,
  subResource: STRING,
  requestKind: GVK,
  requestResource: GVR,
  requestSubResource: STRING,
  name: STRING,
  namespace: STRING,
  operation: STRING,
  userInfo: USER_INFO,
  dryRun: simple(BoolType),
  options: simple(DynType),
});

const STRING_MAP: SchemaDeclType = { type: mapType(StringType, StringType), elem: STRING };
const NAMESPACE_CONDITION = object('kubernetes.NamespaceCondition', {
  status: STRING,
  type: STRING,
  lastTransitionTime: simple(TimestampType),
  message: STRING,
  reason: STRING,
});

/** `namespaceObject`; kube spells the uid field `UID`, which the JSON never has. */
const NAMESPACE = object('kubernetes.Namespace', {
  metadata: object('kubernetes.NamespaceMetadata', {
    name: STRING,
    generateName: STRING,
    namespace: STRING,
    labels: STRING_MAP,
    annotations: STRING_MAP,
    UID: STRING,
    creationTimestamp: simple(TimestampType),
    deletionGracePeriodSeconds: simple(IntType),
    deletionTimestamp: simple(TimestampType),
    generation: simple(IntType),
    resourceVersion: STRING,
    finalizers: STRINGS,
  }),
  spec: object('kubernetes.NamespaceSpec', { finalizers: STRINGS }),
  status: object('kubernetes.NamespaceStatus', {
    conditions: { type: listType(NAMESPACE_CONDITION.type), elem: NAMESPACE_CONDITION },
    phase: STRING,
  }),
});

/** composition.go's VariablesTypeName. */
const VARIABLES_TYPE_NAME = 'kubernetes.variables';

/**
 * The type a variable is declared with (convertCelTypeToDeclType): primitives as they are, lists
 * and maps by their parameters, anything else (objects, optionals, kube's own types) dyn.
 */
export function variableType(t: Type | undefined): Type {
  if (t === undefined || t.nullable) return DynType;
  switch (t.kind) {
    case 'any':
    case 'bool':
    case 'bytes':
    case 'double':
    case 'duration':
    case 'int':
    case 'null_type':
    case 'string':
    case 'timestamp':
    case 'uint':
      return t;
    case 'list':
      return listType(variableType(t.params[0]));
    case 'map':
      return mapType(variableType(t.params[0]), variableType(t.params[1]));
    default:
      return DynType;
  }
}

// ---------------------------------------------------------------------------------------------
// Compiling

/** Typed `object`, `oldObject` and `params`, as kube's TypeChecker declares them for one matched kind. */
interface TypeOverwrite {
  readonly object: SchemaDeclType;
  /** Undefined: the paramKind's schema was not found, and `params` is not declared at all. */
  readonly params: SchemaDeclType | undefined;
}

/** kube's compile (parse, check, the AST validators): its checked AST, or its issues as cel-go prints them. */
function checkSource(
  src: string,
  env: CheckerEnv,
  type: EnvironmentType,
): { ast: CheckedAst; issues?: undefined } | { issues: string } {
  const c = kubeEnvironment(type).compile(src, env);
  return c.issues !== undefined ? { issues: c.issues.toDisplayString() } : { ast: c.ast };
}

/** `must evaluate to bool but got int`, or undefined when the type is one of those asked for. */
function returnTypeError(got: Type, want: ReturnTypes): string | undefined {
  if (want === 'any' || want.some((t) => isExactType(got, t))) return undefined;
  const wanted = want.length === 1 ? typeString(want[0]!) : `one of [${want.map(typeString).join(' ')}]`;
  return `must evaluate to ${wanted} but got ${typeString(got)}`;
}

/**
 * kube's compiler for one policy or webhook, as its plugins and validation build one: stateless
 * (no `variables`), or composited, where each compiled variable adds a field to `variables`.
 * With a TypeOverwrite it is kube's type-checking compiler instead.
 */
export class AdmissionCompiler {
  private readonly envs = new Map<string, CheckerEnv>();
  /** `variables`' fields; the provider reads the live map, so later expressions see earlier variables. */
  private readonly variableFields: Map<string, SchemaDeclType> | undefined;
  /** The compiled variables by name, a later one of a name replacing the earlier (kube's map). */
  readonly variables = new Map<string, CompilationResult>();

  constructor(
    composition: boolean,
    private readonly types?: TypeOverwrite,
  ) {
    this.variableFields = composition ? new Map() : undefined;
  }

  private env(decls: Declarations, type: EnvironmentType): CheckerEnv {
    const key = `${decls.params}/${decls.authorizer}/${type}`;
    let env = this.envs.get(key);
    if (env !== undefined) return env;
    const roots = [REQUEST, NAMESPACE];
    if (this.variableFields !== undefined)
      roots.push({ type: objectType(VARIABLES_TYPE_NAME), fields: this.variableFields });
    const t = this.types;
    if (t !== undefined) roots.push(t.object, ...(t.params === undefined ? [] : [t.params]));
    env = kubeEnvironment(type).checkerEnv(new SchemaTypeProvider(...roots));
    const objectDecl = t?.object.type ?? DynType;
    env.addIdents(
      variable('object', objectDecl),
      variable('oldObject', objectDecl),
      variable('namespaceObject', NAMESPACE.type),
      variable('request', REQUEST.type),
    );
    if (t !== undefined ? t.params !== undefined : decls.params)
      env.addIdents(variable('params', t?.params?.type ?? DynType));
    if (decls.authorizer) {
      env.addIdents(variable('authorizer', AUTHORIZER_TYPE));
      // The type checker declares `authorizer` for its functions only.
      if (t === undefined) env.addIdents(variable('authorizer.requestResource', RESOURCE_CHECK_TYPE));
    }
    if (this.variableFields !== undefined) env.addIdents(variable('variables', objectType(VARIABLES_TYPE_NAME)));
    this.envs.set(key, env);
    return env;
  }

  /** CompileCELExpression: kube's issues, or a program when the type is one of `returnTypes`. */
  compile(src: string, decls: Declarations, type: EnvironmentType, returnTypes: ReturnTypes): CompilationResult {
    const c = checkSource(src, this.env(decls, type), type);
    if (c.issues !== undefined) return { error: `compilation failed: ${c.issues}` };
    const out = outputType(c.ast);
    const wrongType = returnTypeError(out, returnTypes);
    if (wrongType !== undefined) return { error: wrongType };
    const env = kubeEnvironment(type);
    try {
      return { program: program(c.ast, { ...env.programOptions, costLimit: Number(PER_CALL_LIMIT) }), outputType: out };
    } catch (e) {
      // cel-go's Program() refusing (a constant regex or conversion that fails): kube's text.
      if (e instanceof ProgramError) return { error: `program instantiation failed: ${e.message}` };
      throw e;
    }
  }

  /** CompileAndStoreVariable: compiled whatever its type, then declared as a field of `variables`. */
  compileVariable(name: string, src: string, decls: Declarations, type: EnvironmentType): CompilationResult {
    const result = this.compile(src, decls, type, 'any');
    this.variableFields?.set(name, simple(variableType(result.outputType)));
    this.variables.set(name, result);
    return result;
  }

  /**
   * The type-checking compiler's check (typeCheckingCompiler): cel-go's issues without kube's
   * prefix, undefined when there are none; a variable is declared with the type it checks to.
   */
  typeCheck(src: string, variableName?: string): string | undefined {
    const c = checkSource(src, this.env({ params: true, authorizer: true }, 'StoredExpressions'), 'StoredExpressions');
    if (variableName !== undefined)
      this.variableFields?.set(
        variableName,
        simple(variableType(c.issues === undefined ? outputType(c.ast) : undefined)),
      );
    return c.issues;
  }
}
