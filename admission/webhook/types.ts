// admissionregistration.k8s.io/v1's MutatingWebhookConfiguration and ValidatingWebhookConfiguration,
// as far as dispatching reads them, with the defaults kube's v1 defaulting gives a field left out
// (configurations reach us as stored objects, which may not have been defaulted).
import type { MetaLabelSelector } from '../../apimachinery/selectors/labels.js';
import type { WebhookClientConfig } from '../../webhook/client.js';

export const ADMISSION_GROUP = 'admissionregistration.k8s.io';
export const MUTATING_CONFIGURATION_KIND = 'MutatingWebhookConfiguration';
export const VALIDATING_CONFIGURATION_KIND = 'ValidatingWebhookConfiguration';

export type OperationType = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*';
export type ScopeType = 'Cluster' | 'Namespaced' | '*';

/** v1.RuleWithOperations. */
export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  /** `pods`, `pods/status`, `*`, `*\/scale`, `pods/*`. */
  resources?: string[];
  /** Default `*`. */
  scope?: string;
}

/** v1.MatchCondition: a CEL expression that must evaluate to true for the webhook to be called. */
export interface MatchCondition {
  name: string;
  expression: string;
}

/** What v1.MutatingWebhook and v1.ValidatingWebhook share. */
export interface WebhookSpec {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  /** Default Fail. */
  failurePolicy?: string;
  /** Default Equivalent. */
  matchPolicy?: string;
  /** Default {} (everything). */
  namespaceSelector?: MetaLabelSelector;
  /** Default {} (everything). */
  objectSelector?: MetaLabelSelector;
  /** Required by validation; absent, a dry-run request fails calling the webhook. */
  sideEffects?: string;
  /** Default 10, at most 30. */
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
}

export interface MutatingWebhookSpec extends WebhookSpec {
  /** Default Never. */
  reinvocationPolicy?: string;
}

export type ValidatingWebhookSpec = WebhookSpec;

/** kube's v1 defaults and limits. */
export const DEFAULT_TIMEOUT_SECONDS = 10;
export const MAX_TIMEOUT_SECONDS = 30;
