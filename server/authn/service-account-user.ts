// The user a ServiceAccount acts as, as kube's apiserver/pkg/authentication/serviceaccount/util.go
// names it: `system:serviceaccount:<ns>:<name>`, in `system:serviceaccounts` and
// `system:serviceaccounts:<ns>`. Token authentication and impersonation both map through here (the
// username and groups themselves are apimachinery/user.ts's, which RBAC and CEL's authorizer share).
import { isDNS1123Label, isDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import { SERVICE_ACCOUNT_USERNAME_PREFIX } from '../../apimachinery/user.js';

/** user.CredentialIDKey: which credential authenticated the request (audit). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

/**
 * kube's SplitUsername: the namespace and name of a ServiceAccount username, or undefined when the
 * name is not one (wrong prefix, not exactly two parts, an invalid namespace or name).
 */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  // ValidateNamespaceName is a DNS-1123 label, ValidateServiceAccountName a subdomain.
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}
