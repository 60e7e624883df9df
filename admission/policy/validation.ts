// The compilers kube's ValidatingAdmissionPolicy validation (pkg/apis/admissionregistration/
// validation) compiles a policy's expressions with at write, for apimachinery's validation to
// call where kube does: matchConditions with the stateless compiler (no `variables`); the rest
// with the composited one when the policy has variables, so that each variable is declared to
// what follows it, else the stateless one; messageExpression without `authorizer`; return types
// bool (expression, matchConditions), string (messageExpression), string or null
// (auditAnnotations), any for a variable. An expression the stored policy already had compiles in
// kube's stored-expressions environment, a new one in the new-expressions one.
import type {
  PolicyExpressionCompiler,
  ValidatingAdmissionPolicy,
} from '../../apimachinery/admissionregistration/validation.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { BoolType, NullType, StringType } from '../../cel/types.js';
import { AdmissionCompiler, type Declarations, type EnvironmentType } from '../cel/compile.js';

const env = (stored: boolean): EnvironmentType => (stored ? 'StoredExpressions' : 'NewExpressions');

/** The compiler for one write of `policy` (the composited one holds its variables). */
export function policyExpressionCompiler(policy: ValidatingAdmissionPolicy): PolicyExpressionCompiler {
  const spec = isJsonObject(policy.spec) ? policy.spec : {};
  const params = spec.paramKind != null;
  const full: Declarations = { params, authorizer: true };
  const stateless = new AdmissionCompiler(false);
  const hasVariables = Array.isArray(spec.variables) && spec.variables.length > 0;
  const compiler = hasVariables ? new AdmissionCompiler(true) : stateless;
  return {
    matchCondition: (e, stored) => stateless.compile(e, full, env(stored), [BoolType]).error,
    variable: (name, e, stored) => compiler.compileVariable(name, e, full, env(stored)).error,
    validation: (e, stored) => compiler.compile(e, full, env(stored), [BoolType]).error,
    messageExpression: (e, stored) =>
      compiler.compile(e, { params, authorizer: false }, env(stored), [StringType]).error,
    auditAnnotation: (e, stored) => compiler.compile(e, full, env(stored), [StringType, NullType]).error,
  };
}
