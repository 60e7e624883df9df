// MutatingWebhookConfiguration's and ValidatingWebhookConfiguration's webhooks as dispatching reads
// them: apimachinery/admissionregistration's types (THE admissionregistration.k8s.io/v1 types) as
// a stored configuration holds them (defaulted, so no JSON nulls), with what validation guarantees
// of a stored webhook: a name, a clientConfig, matchConditions with names and expressions.
import type * as v1 from '../../apimachinery/admissionregistration/validation.js';
import type { Stored } from '../../apimachinery/admissionregistration/validation.js';
import type { WebhookClientConfig } from '../../webhook/client.js';

export {
  ADMISSION_REGISTRATION_GROUP as ADMISSION_GROUP,
  DEFAULT_WEBHOOK_TIMEOUT_SECONDS as DEFAULT_TIMEOUT_SECONDS,
  MAX_WEBHOOK_TIMEOUT_SECONDS as MAX_TIMEOUT_SECONDS,
} from '../../apimachinery/admissionregistration/validation.js';

/** v1.RuleWithOperations. */
export type RuleWithOperations = Stored<v1.RuleWithOperations>;

/** v1.MatchCondition: a CEL expression that must evaluate to true for the webhook to be called. */
export type MatchCondition = Required<Stored<v1.MatchCondition>>;

/** v1.MutatingWebhook or v1.ValidatingWebhook (reinvocationPolicy is the mutating one's only). */
export type WebhookSpec = Omit<Stored<v1.Webhook>, 'name' | 'clientConfig' | 'matchConditions'> & {
  name: string;
  clientConfig: WebhookClientConfig;
  matchConditions?: MatchCondition[];
};

export type MutatingWebhookSpec = WebhookSpec;
