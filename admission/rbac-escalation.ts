// kube's RBAC escalation prevention (pkg/registry/rbac/{role,clusterrole,rolebinding,
// clusterrolebinding}/policybased): a user may write a Role only with rules it already holds (or
// the `escalate` verb on it), and a binding only to a role whose rules it holds (or the `bind` verb
// on it). system:masters, and the server's own controllers, may write anything.
import { forbidden, qualifiedString } from '../apimachinery/errors.js';
import { goQuote } from '../apimachinery/quote.js';
import type { Authorizer } from '../apimachinery/authorization.js';
import type { UserInfo } from '../apimachinery/user.js';
import {
  type ClusterRole,
  RBAC_GROUP,
  type RoleBinding,
  type RuleSource,
  bindingAuthorized,
  confirmNoEscalation,
  escalationAllowed,
  roleEscalationAuthorized,
  roleReferenceRules,
  rulesOf,
} from '../apimachinery/rbac/index.js';
import type { AdmissionPlugin, Attributes } from './interface.js';

export interface EscalationDeps {
  authorizer: Authorizer;
  /** What the user holds (and what roles hold), as the authorizer sees it. */
  sourceFor(user: UserInfo): RuleSource;
}

const ROLES = new Set(['roles', 'clusterroles']);
const BINDINGS = new Set(['rolebindings', 'clusterrolebindings']);

export function rbacEscalationCheck(deps: EscalationDeps): AdmissionPlugin {
  return {
    name: 'RBACEscalationCheck',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    async validate(a: Attributes) {
      const user = a.userInfo;
      if (!user || a.resource.group !== RBAC_GROUP || !a.object || escalationAllowed(user)) return;
      const refuse = (message: string): never => {
        const name = a.object?.metadata.name ?? a.name;
        throw forbidden(`${qualifiedString(a.resource)} ${goQuote(name)} is forbidden: ${message}`, { name, group: a.resource.group, kind: a.resource.name });
      };
      const source = deps.sourceFor(user);
      if (ROLES.has(a.resource.name)) {
        if (roleEscalationAuthorized(deps.authorizer, user, { apiGroup: a.resource.group, resource: a.resource.name, namespace: a.namespace, name: a.name })) return;
        // kube's clusterrole policybased storage skips the check for an aggregated role's rules: the controller fills them.
        if (a.resource.name === 'clusterroles' && (a.object as ClusterRole).aggregationRule) return;
        const message = confirmNoEscalation(source, user, a.namespace, rulesOf(a.object as ClusterRole));
        if (message !== undefined) refuse(message);
        return;
      }
      if (!BINDINGS.has(a.resource.name)) return;
      const binding = a.object as RoleBinding;
      // An update that keeps the roleRef grants nothing new (kube checks only a changed roleRef).
      if (a.operation === 'UPDATE' && a.oldObject && JSON.stringify((a.oldObject as RoleBinding).roleRef) === JSON.stringify(binding.roleRef)) return;
      if (bindingAuthorized(deps.authorizer, user, binding.roleRef, a.namespace)) return;
      const referenced = roleReferenceRules(source, binding.roleRef, a.namespace);
      if ('error' in referenced) refuse(referenced.error);
      else {
        const message = confirmNoEscalation(source, user, a.namespace, referenced.rules);
        if (message !== undefined) refuse(message);
      }
    },
  };
}
