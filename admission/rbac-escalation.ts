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
  subjectsOf,
} from '../apimachinery/rbac/index.js';
import { deepEqual } from '../apimachinery/equality.js';
import type { AdmissionPlugin, Attributes } from './interface.js';

interface EscalationDeps {
  authorizer: Authorizer;
  /** What the user holds (and what roles hold), as the authorizer sees it. */
  sourceFor(user: UserInfo): RuleSource;
}

const ROLES = new Set(['roles', 'clusterroles']);
/** kube's fullAuthority: everything, resources and non-resource URLs. */
const FULL_AUTHORITY = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];
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
        throw forbidden(`${qualifiedString(a.resource)} ${goQuote(name)} is forbidden: ${message}`, {
          name,
          group: a.resource.group,
          kind: a.resource.name,
        });
      };
      const source = deps.sourceFor(user);
      if (ROLES.has(a.resource.name)) {
        if (
          roleEscalationAuthorized(deps.authorizer, user, {
            apiGroup: a.resource.group,
            resource: a.resource.name,
            namespace: a.namespace,
            name: a.name,
          })
        )
          return;
        // An aggregationRule lets the controller (the server) copy any role's rules into this
        // one: kube asks for full authority to set or keep one.
        const aggregates = (o: unknown): boolean => Boolean((o as ClusterRole | undefined)?.aggregationRule);
        if (a.resource.name === 'clusterroles' && (aggregates(a.object) || aggregates(a.oldObject))) {
          if (confirmNoEscalation(source, user, '', FULL_AUTHORITY) !== undefined)
            refuse('must have cluster-admin privileges to use the aggregationRule');
        }
        const message = confirmNoEscalation(source, user, a.namespace, rulesOf(a.object as ClusterRole));
        if (message !== undefined) refuse(message);
        return;
      }
      if (!BINDINGS.has(a.resource.name)) return;
      const binding = a.object as RoleBinding;
      // kube's IsOnlyMutatingGCFields, as far as grants go: an update that keeps who is bound to
      // what grants nothing new (roleRef is immutable; the subjects are what an update can add).
      const old = a.oldObject as RoleBinding | undefined;
      if (
        a.operation === 'UPDATE' &&
        old &&
        deepEqual(old.roleRef, binding.roleRef) &&
        deepEqual(subjectsOf(old), subjectsOf(binding))
      )
        return;
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
