// admissionregistration.k8s.io/v1 MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
// ValidatingAdmissionPolicy (with a status subresource its controller writes) and
// ValidatingAdmissionPolicyBinding: all cluster-scoped, defaulted as admissionregistration/v1 and
// validated as pkg/apis/admissionregistration/validation (apimachinery/admissionregistration, with
// the CEL compiled at write as kube does: admission/policy/validation.ts for a policy's, admission/
// webhook/match-conditions.ts for a webhook's matchConditions), with kube's registry strategies
// (pkg/registry/admissionregistration/*/strategy.go) and printers.
//
// Not here: the authorization kube's policy and binding strategies add once an object is valid
// (the writer must be allowed to read the paramKind's resource / the paramRef's objects: it needs
// the authorizer and a resource resolver, which sit above the registry), and
// ManifestBasedAdmissionControlConfig's reserved `.static.k8s.io` name suffix.
import { SPEC_GENERATION, STATUS_RESET, defineStrategy, keepStoredStatus, statusUpdate } from '../base-strategy.js';
import {
  mutatingWebhookConfigurationSchema,
  validatingAdmissionPolicyBindingSchema,
  validatingAdmissionPolicySchema,
  validatingWebhookConfigurationSchema,
} from '../../../apimachinery/apis/builtin-schemas.js';
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import { type BuiltinKind, storedKind } from './kind.js';
import type { ServedColumn } from '../catalog.js';
import type { KindInfo, UpdateStrategy } from '../strategy.js';
import { PRINTER_AGE } from './printer-columns.js';
import { type KubeObject, isJsonObject } from '../../../apimachinery/object.js';
import { defaultMetaV1FieldLabels } from '../../../apimachinery/selectors/fields.js';
import { compareGoStrings } from '../../../apimachinery/go-sort.js';
import type { MetaLabelSelector } from '../../../apimachinery/selectors/labels.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { policyExpressionCompiler } from '../../../admission/policy/validation.js';
import { WEBHOOK_EXPRESSION_COMPILER } from '../../../admission/webhook/match-conditions.js';
import {
  ADMISSION_REGISTRATION_GROUP,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
  type WebhookConfiguration,
  defaultValidatingAdmissionPolicy,
  defaultValidatingAdmissionPolicyBinding,
  defaultWebhookConfiguration,
  NEW_POLICY_OPTIONS,
  policyUpdateOptions,
  STRICT_WEBHOOK_OPTIONS,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyStatus,
  validateWebhookConfiguration,
  validateWebhookConfigurationUpdate,
} from '../../../apimachinery/admissionregistration/validation.js';

export { ADMISSION_REGISTRATION_GROUP };

const clusterKind = (resource: string, kind: string): KindInfo => ({
  group: ADMISSION_REGISTRATION_GROUP,
  resource,
  kind,
  listKind: `${kind}List`,
  namespaced: false,
});

export const mutatingWebhookConfigurationKind = clusterKind(
  'mutatingwebhookconfigurations',
  'MutatingWebhookConfiguration',
);
export const validatingWebhookConfigurationKind = clusterKind(
  'validatingwebhookconfigurations',
  'ValidatingWebhookConfiguration',
);
export const validatingAdmissionPolicyKind = clusterKind('validatingadmissionpolicies', 'ValidatingAdmissionPolicy');
export const validatingAdmissionPolicyBindingKind = clusterKind(
  'validatingadmissionpolicybindings',
  'ValidatingAdmissionPolicyBinding',
);

/** kube's categories for the four (`kubectl get api-extensions`). */
const ADMISSION_REGISTRATION_CATEGORIES = ['api-extensions'] as const;

// The store hands strategies KubeObjects; these are the same objects seen as their kind.
const asConfig = (obj: KubeObject): WebhookConfiguration => obj as unknown as WebhookConfiguration;
const asPolicy = (obj: KubeObject): ValidatingAdmissionPolicy => obj as unknown as ValidatingAdmissionPolicy;
const asBinding = (obj: KubeObject): ValidatingAdmissionPolicyBinding =>
  obj as unknown as ValidatingAdmissionPolicyBinding;
const fields = (obj: KubeObject): Record<string, unknown> => obj as unknown as Record<string, unknown>;

/** The group's kinds are written in admissionregistration.k8s.io/v1 only. */
const v1 = (schema: JSONSchemaProps): Readonly<Record<string, JSONSchemaProps>> => ({
  [`${ADMISSION_REGISTRATION_GROUP}/v1`]: schema,
});

/** The parts both webhook configurations share: generation on any change of webhooks, no PUT without resourceVersion. */
function webhookConfigurationStrategy(kind: KindInfo, mutating: boolean) {
  return defineStrategy(kind, {
    schemas: v1(mutating ? mutatingWebhookConfigurationSchema : validatingWebhookConfigurationSchema),
    fieldLabels: defaultMetaV1FieldLabels,
    generation: SPEC_GENERATION,
    canonicalize: (obj) => defaultWebhookConfiguration(fields(obj), mutating),
    create: {
      validate: (obj) =>
        validateWebhookConfiguration(asConfig(obj), mutating, STRICT_WEBHOOK_OPTIONS, WEBHOOK_EXPRESSION_COMPILER),
    },
    update: {
      allowUnconditional: false,
      validate: (obj, old) =>
        validateWebhookConfigurationUpdate(asConfig(obj), asConfig(old), mutating, WEBHOOK_EXPRESSION_COMPILER),
    },
  });
}

export const mutatingWebhookConfigurationStrategy = webhookConfigurationStrategy(
  mutatingWebhookConfigurationKind,
  true,
);
export const validatingWebhookConfigurationStrategy = webhookConfigurationStrategy(
  validatingWebhookConfigurationKind,
  false,
);

/**
 * ValidateValidatingAdmissionPolicy (create, without old) and ValidateValidatingAdmissionPolicyUpdate:
 * the expressions compiled where kube compiles them; an update judges matchConditions only when it
 * changes them or paramKind.
 */
function validatePolicy(obj: KubeObject, old?: KubeObject): FieldError[] {
  const policy = asPolicy(obj);
  const opts = old === undefined ? NEW_POLICY_OPTIONS : policyUpdateOptions(policy, asPolicy(old));
  return validateValidatingAdmissionPolicy(policy, opts, policyExpressionCompiler(policy));
}

/** The policy's main resource: the stored status stays, whatever the client sent. */
const policyUpdate: UpdateStrategy = {
  allowUnconditional: false,
  prepare: keepStoredStatus,
  validate: (obj, old) => validatePolicy(obj, old),
  resetFields: STATUS_RESET,
};

export const validatingAdmissionPolicyStrategy = defineStrategy(validatingAdmissionPolicyKind, {
  schemas: v1(validatingAdmissionPolicySchema),
  fieldLabels: defaultMetaV1FieldLabels,
  generation: SPEC_GENERATION,
  canonicalize: (obj) => defaultValidatingAdmissionPolicy(fields(obj)),
  create: {
    // PrepareForCreate: an empty status (a Go struct, so written as `{}`), for the controller to fill.
    prepare: (obj) => {
      fields(obj)['status'] = {};
    },
    validate: (obj) => validatePolicy(obj),
  },
  update: policyUpdate,
  // The status strategy: the stored spec and metadata, the client's status, never a new generation.
  subresources: {
    status: statusUpdate(policyUpdate, (obj) => validateValidatingAdmissionPolicyStatus(asPolicy(obj)), [
      'spec',
      'metadata',
    ]),
  },
});

export const validatingAdmissionPolicyBindingStrategy = defineStrategy(validatingAdmissionPolicyBindingKind, {
  schemas: v1(validatingAdmissionPolicyBindingSchema),
  fieldLabels: defaultMetaV1FieldLabels,
  generation: SPEC_GENERATION,
  canonicalize: (obj) => defaultValidatingAdmissionPolicyBinding(fields(obj)),
  create: { validate: (obj) => validateValidatingAdmissionPolicyBinding(asBinding(obj)) },
  update: { allowUnconditional: false, validate: (obj) => validateValidatingAdmissionPolicyBinding(asBinding(obj)) },
});

// --- printing (pkg/printers/internalversion/printers.go)

const arrayLength = (v: unknown): number => (Array.isArray(v) ? v.length : 0);
const record = (v: unknown): Record<string, unknown> => (isJsonObject(v) ? v : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The WEBHOOKS cell: how many webhooks the configuration registers. */
export const webhookCount = (obj: KubeObject): number => arrayLength(obj['webhooks']);

/** The VALIDATIONS cell. */
export const validationCount = (obj: KubeObject): number => arrayLength(record(obj['spec'])['validations']);

/** The PARAMKIND cell: `apiVersion/kind`, or `<unset>`. */
export function policyParamKind(obj: KubeObject): string {
  const pk = record(obj['spec'])['paramKind'];
  if (pk == null) return '<unset>';
  const { apiVersion, kind } = record(pk);
  return `${text(apiVersion)}/${text(kind)}`;
}

/**
 * Go's String() of a metav1.LabelSelector (the gogo-protobuf generated one printers.go calls):
 * `&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{},}`.
 */
export function goLabelSelectorString(sel: MetaLabelSelector): string {
  const labels = record(sel.matchLabels);
  const keys = Object.keys(labels).sort(compareGoStrings);
  const labelText = keys.map((k) => `${k}: ${text(labels[k])},`).join('');
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  const exprText = exprs
    .map((raw) => {
      const e = record(raw);
      const values = Array.isArray(e['values']) ? (e['values'] as unknown[]).map(text) : [];
      return `LabelSelectorRequirement{Key:${text(e['key'])},Operator:${text(e['operator'])},Values:[${values.join(' ')}],},`;
    })
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labelText}},MatchExpressions:[]LabelSelectorRequirement{${exprText}},}`;
}

/** The PARAMREF cell: `namespace/name`, `*\/name` without a namespace, the selector, or `<unset>`. */
export function bindingParamRef(obj: KubeObject): string {
  const pr = record(obj['spec'])['paramRef'];
  if (pr == null) return '<unset>';
  const ref = record(pr);
  const name = text(ref['name']);
  if (name.length > 0) {
    const namespace = text(ref['namespace']);
    // kube cannot tell here whether the param is cluster-scoped: no namespace prints as `*`.
    return namespace !== '' ? `${namespace}/${name}` : `*/${name}`;
  }
  if (ref['selector'] != null) return goLabelSelectorString(record(ref['selector']) as MetaLabelSelector);
  return '<unset>';
}

/** The POLICYNAME cell. */
const bindingPolicyName = (obj: KubeObject): string => text(record(obj['spec'])['policyName']);

/** kube's mutatingWebhookColumnDefinitions and validatingWebhookColumnDefinitions after NAME. */
export const WEBHOOK_CONFIGURATION_COLUMNS: ServedColumn[] = [
  {
    name: 'Webhooks',
    type: 'integer',
    description: 'Webhooks indicates the number of webhooks registered in this configuration',
    jsonPath: '.webhooks',
    value: webhookCount,
  },
  PRINTER_AGE,
];
const MUTATING_WEBHOOK_CONFIGURATION_COLUMNS: ServedColumn[] = WEBHOOK_CONFIGURATION_COLUMNS;
const VALIDATING_WEBHOOK_CONFIGURATION_COLUMNS: ServedColumn[] = WEBHOOK_CONFIGURATION_COLUMNS;

/** kube's validatingAdmissionPolicy columns after NAME. */
export const VALIDATING_ADMISSION_POLICY_COLUMNS: ServedColumn[] = [
  {
    name: 'Validations',
    type: 'integer',
    description: 'Validations indicates the number of validation rules defined in this configuration',
    jsonPath: '.spec.validations',
    value: validationCount,
  },
  {
    name: 'ParamKind',
    type: 'string',
    description: 'ParamKind specifies the kind of resources used to parameterize this policy',
    jsonPath: '.spec.paramKind',
    value: policyParamKind,
  },
  PRINTER_AGE,
];

/** kube's validatingAdmissionPolicyBinding columns after NAME (their descriptions misspelled as kube spells them). */
export const VALIDATING_ADMISSION_POLICY_BINDING_COLUMNS: ServedColumn[] = [
  {
    name: 'PolicyName',
    type: 'string',
    description: 'PolicyName indicates the policy definition which the policy binding binded to',
    jsonPath: '.spec.policyName',
    value: bindingPolicyName,
  },
  {
    name: 'ParamRef',
    type: 'string',
    description: 'ParamRef indicates the param resource which sets the configration param',
    jsonPath: '.spec.paramRef',
    value: bindingParamRef,
  },
  PRINTER_AGE,
];

// kube's categories for the four (`kubectl get api-extensions`); dynamic admission never judges them.
const configuration = {
  categories: ADMISSION_REGISTRATION_CATEGORIES,
  admission: 'configuration',
  goPackage: 'k8s.io/api/admissionregistration/v1',
} as const;

export const MUTATING_WEBHOOK_CONFIGURATIONS: BuiltinKind = storedKind(mutatingWebhookConfigurationStrategy, {
  ...configuration,
  singular: 'mutatingwebhookconfiguration',
  schema: mutatingWebhookConfigurationSchema,
  printerColumns: MUTATING_WEBHOOK_CONFIGURATION_COLUMNS,
});
export const VALIDATING_WEBHOOK_CONFIGURATIONS: BuiltinKind = storedKind(validatingWebhookConfigurationStrategy, {
  ...configuration,
  singular: 'validatingwebhookconfiguration',
  schema: validatingWebhookConfigurationSchema,
  printerColumns: VALIDATING_WEBHOOK_CONFIGURATION_COLUMNS,
});
export const VALIDATING_ADMISSION_POLICIES: BuiltinKind = storedKind(validatingAdmissionPolicyStrategy, {
  ...configuration,
  singular: 'validatingadmissionpolicy',
  schema: validatingAdmissionPolicySchema,
  subresources: ['status'],
  printerColumns: VALIDATING_ADMISSION_POLICY_COLUMNS,
});
export const VALIDATING_ADMISSION_POLICY_BINDINGS: BuiltinKind = storedKind(validatingAdmissionPolicyBindingStrategy, {
  ...configuration,
  singular: 'validatingadmissionpolicybinding',
  schema: validatingAdmissionPolicyBindingSchema,
  printerColumns: VALIDATING_ADMISSION_POLICY_BINDING_COLUMNS,
});
