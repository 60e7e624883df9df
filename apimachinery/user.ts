// Who made a request, as authentication found it (kube's user.Info): authorization, admission
// and audit read it.

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  /** Extra attributes an authenticator vouches for (a ServiceAccount token's pod and node; Impersonate-Extra-*). */
  extra?: Record<string, string[]>;
}

/** kube's well-known users and groups (k8s.io/apiserver/pkg/authentication/user). */
export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ANONYMOUS_USER = 'system:anonymous';

/** serviceaccount.ServiceAccountUsernamePrefix: the user names ServiceAccounts act as. */
export const SERVICE_ACCOUNT_USERNAME_PREFIX = 'system:serviceaccount:';

/** serviceaccount.MakeUsername: `system:serviceaccount:<namespace>:<name>`. */
export const makeServiceAccountUsername = (namespace: string, name: string): string =>
  `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:${name}`;

const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
const SERVICE_ACCOUNT_GROUP_PREFIX = 'system:serviceaccounts:';

/** serviceaccount.MakeGroupNames: the groups every ServiceAccount of a namespace is in. */
export const makeServiceAccountGroupNames = (namespace: string): string[] => [
  ALL_SERVICE_ACCOUNTS_GROUP,
  `${SERVICE_ACCOUNT_GROUP_PREFIX}${namespace}`,
];
