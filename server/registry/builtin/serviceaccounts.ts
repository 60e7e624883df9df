// core/v1 ServiceAccount: an identity with the secrets it may use; kube validates only its
// metadata (ValidateServiceAccount: a DNS subdomain name).
import { defineStrategy } from '../base-strategy.js';
import { serviceAccountSchema } from '../../../apimachinery/apis/builtin-schemas.js';
import { type BuiltinKind, storedKind } from './kind.js';
import type { ServedColumn } from '../catalog.js';
import { PRINTER_AGE } from './printer-columns.js';
import { objectMetaFieldLabels } from '../../../apimachinery/selectors/fields.js';
import type { KubeObject } from '../../../apimachinery/object.js';

const serviceAccountKind = {
  group: '',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  namespaced: true,
};

/** `kubectl get serviceaccounts`' SECRETS column. */
export const serviceAccountSecretCount = (obj: KubeObject): number =>
  Array.isArray(obj['secrets']) ? obj['secrets'].length : 0;

/** kube's serviceAccountColumnDefinitions. */
export const SERVICE_ACCOUNT_COLUMNS: ServedColumn[] = [
  {
    name: 'Secrets',
    type: 'string',
    description:
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a "kubernetes.io/enforce-mountable-secrets" annotation set to "true". The "kubernetes.io/enforce-mountable-secrets" annotation is deprecated since v1.32. Prefer separate namespaces to isolate access to mounted secrets. This field should not be used to find auto-generated service account token secrets for use outside of pods. Instead, tokens can be requested directly using the TokenRequest API, or service account token secrets can be manually created. More info: https://kubernetes.io/docs/concepts/configuration/secret',
    jsonPath: '.secrets',
    value: serviceAccountSecretCount,
  },
  PRINTER_AGE,
];

export const serviceAccountStrategy = defineStrategy(serviceAccountKind, {
  schemas: { v1: serviceAccountSchema },
  fieldLabels: objectMetaFieldLabels(serviceAccountKind.kind),
});

/** TokenRequest (`kubectl create token`) is served when the server signs tokens: its handler comes at install. */
export const SERVICE_ACCOUNTS: BuiltinKind = storedKind(serviceAccountStrategy, {
  singular: 'serviceaccount',
  goPackage: 'k8s.io/api/core/v1',
  shortNames: ['sa'],
  schema: serviceAccountSchema,
  printerColumns: SERVICE_ACCOUNT_COLUMNS,
});
