// rbac/v1's defaulting (pkg/apis/rbac/v1/defaults.go): clients may leave out the API group of a
// roleRef and of User and Group subjects, as `kubectl create rolebinding` does.
import { isJsonObject } from '../object.js';
import { GROUP_KIND, RBAC_GROUP, type RoleBinding, SERVICE_ACCOUNT_KIND, USER_KIND } from './types.js';

/** SetDefaults_RoleBinding / _ClusterRoleBinding and SetDefaults_Subject, in place. */
export function defaultBinding(binding: RoleBinding): void {
  const ref: unknown = binding.roleRef;
  if (!isJsonObject(ref)) binding.roleRef = { apiGroup: RBAC_GROUP, kind: '', name: '' };
  else if (!ref['apiGroup']) ref['apiGroup'] = RBAC_GROUP;
  if (!Array.isArray(binding.subjects)) return;
  for (const s of binding.subjects) {
    if (!isJsonObject(s) || s.apiGroup) continue;
    if (s.kind === USER_KIND || s.kind === GROUP_KIND) s.apiGroup = RBAC_GROUP;
    // A ServiceAccount's stays empty, which JSON leaves out.
    else if (s.kind === SERVICE_ACCOUNT_KIND && s.apiGroup === '') delete s.apiGroup;
  }
}
