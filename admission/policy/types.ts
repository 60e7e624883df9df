// ValidatingAdmissionPolicy and its binding as the plugin reads them: apimachinery/
// admissionregistration's types (THE admissionregistration.k8s.io/v1 types) as a stored object
// holds them (defaulted, so no JSON nulls), with the object metadata of a stored object and the
// spec a stored object always has.
import type * as v1 from '../../apimachinery/admissionregistration/validation.js';
import type { FAILURE_POLICIES, Stored } from '../../apimachinery/admissionregistration/validation.js';
import type { KubeObject } from '../../apimachinery/object.js';

export { ADMISSION_REGISTRATION_GROUP } from '../../apimachinery/admissionregistration/validation.js';

export type FailurePolicy = (typeof FAILURE_POLICIES)[number];

export type NamedRuleWithOperations = Stored<v1.NamedRuleWithOperations>;
export type MatchResources = Stored<v1.MatchResources>;
export type ParamKind = Stored<v1.ParamKind>;
export type ExpressionWarning = Stored<v1.ExpressionWarning>;

export interface ValidatingAdmissionPolicy extends KubeObject {
  spec: Stored<v1.ValidatingAdmissionPolicySpec>;
  status?: Stored<v1.ValidatingAdmissionPolicyStatus>;
}

export interface ValidatingAdmissionPolicyBinding extends KubeObject {
  spec: Stored<v1.ValidatingAdmissionPolicyBindingSpec>;
}
