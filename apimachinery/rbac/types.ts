// The four kinds of rbac.authorization.k8s.io/v1 as they are stored and served, and the constants
// kube's RBAC code compares against.
import type { KubeObject } from '../object.js';
import type { MetaLabelSelector } from '../selectors/labels.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** rbacv1's wildcards (VerbAll, APIGroupAll, ResourceAll, NonResourceAll). */
export const VERB_ALL = '*';
export const API_GROUP_ALL = '*';
export const RESOURCE_ALL = '*';
export const NON_RESOURCE_ALL = '*';

export const USER_KIND = 'User';
export const GROUP_KIND = 'Group';
export const SERVICE_ACCOUNT_KIND = 'ServiceAccount';

/** The annotation bootstrap reconciliation honours: "false" keeps a role or binding as the cluster's admins left it. */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  /** rbac.authorization.k8s.io for User and Group; "" (absent) for ServiceAccount. */
  apiGroup?: string;
  name: string;
  /** A ServiceAccount's; a RoleBinding defaults it to the binding's namespace. */
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

interface AggregationRule {
  clusterRoleSelectors?: MetaLabelSelector[];
}

export interface Role extends KubeObject {
  rules?: PolicyRule[] | null;
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[] | null;
  aggregationRule?: AggregationRule | null;
}

export interface RoleBinding extends KubeObject {
  subjects?: Subject[] | null;
  roleRef: RoleRef;
}

export type ClusterRoleBinding = RoleBinding;

/** The rule lists of a stored role, whatever the client left out ("rules: null" is no rules). */
export const rulesOf = (role: Role | ClusterRole | undefined): PolicyRule[] =>
  Array.isArray(role?.rules) ? role.rules : [];
export const subjectsOf = (binding: RoleBinding): Subject[] =>
  Array.isArray(binding.subjects) ? binding.subjects : [];
