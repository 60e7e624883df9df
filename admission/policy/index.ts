// ValidatingAdmissionPolicy: the admission plugin, its compiled policies, matching, the compile
// checks of the policy kind's expressions at write, and the types the plugin reads the kinds as.
export {
  validatingAdmissionPolicy,
  isPolicyResource,
  denial,
  admissionRequest,
  type ValidatingAdmissionPolicyOptions,
  type ParamLookup,
} from './plugin.js';
export {
  compilePolicy,
  validatePolicy,
  type CompiledPolicy,
  type PolicyDecision,
  type ValidateResult,
} from './compile.js';
export {
  matches,
  ruleMatches,
  type EquivalentResources,
  type GroupVersionKind,
  type GroupVersionResource,
  type MatchRequest,
  type NamespaceGetter,
} from './matching.js';
export { policyExpressionCompiler } from './validation.js';
export * from './types.js';
export { typeCheckPolicy, type TypeCheckResolver } from './typechecking.js';
