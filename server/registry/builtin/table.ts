// Every built-in kind this server serves, each described by its own module: the one table the API
// installs (kind.ts's installBuiltinKinds) and the other registries (RBAC's, dynamic admission's)
// take their stores from.
import type { BuiltinKind } from './kind.js';
import { NAMESPACES } from './namespaces.js';
import { CORE_EVENTS, EVENTS_V1 } from './events.js';
import { CUSTOM_RESOURCE_DEFINITIONS } from './crds.js';
import { CONFIG_MAPS } from './configmaps.js';
import { SERVICES } from './services.js';
import { SECRETS } from './secrets.js';
import { SERVICE_ACCOUNTS } from './serviceaccounts.js';
import { LEASES } from './leases.js';
import { CLUSTER_ROLES, CLUSTER_ROLE_BINDINGS, ROLES, ROLE_BINDINGS } from './rbac.js';
import {
  MUTATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
} from './admissionregistration.js';
import { ACCESS_REVIEWS, SELF_SUBJECT_REVIEWS } from './reviews.js';

export const BUILTIN_KINDS: readonly BuiltinKind[] = [
  MUTATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
  NAMESPACES,
  CORE_EVENTS,
  EVENTS_V1,
  CUSTOM_RESOURCE_DEFINITIONS,
  CONFIG_MAPS,
  SERVICES,
  SECRETS,
  SERVICE_ACCOUNTS,
  LEASES,
  ROLES,
  CLUSTER_ROLES,
  ROLE_BINDINGS,
  CLUSTER_ROLE_BINDINGS,
  ...ACCESS_REVIEWS,
  SELF_SUBJECT_REVIEWS,
];
