// kube's OwnerReferencesPermissionEnforcement admission (plugin/pkg/admission/gc): changing an
// object's ownerReferences needs delete permission on the object (a create needs none: its writer
// could have not created it), and setting blockOwnerDeletion needs permission to update the
// OWNER's finalizers, because it can hold the owner's foreground deletion.
//
// Writes by the server's own controllers (no user) are not checked, as kube's loopback client is
// system:masters.
import { forbidden, qualifiedString } from '../apimachinery/errors.js';
import type { OwnerReference } from '../apimachinery/object.js';
import type { Authorizer } from '../apimachinery/authorization.js';
import type { AdmissionPlugin, Attributes } from './interface.js';

/** The served resource of an owner reference's kind (kube's RESTMapper), when there is one. */
type ResolveResource = (
  apiVersion: string,
  kind: string,
) => { group: string; resource: string; namespaced: boolean } | undefined;

const refsOf = (obj: Attributes['object']): OwnerReference[] =>
  Array.isArray(obj?.metadata.ownerReferences) ? obj.metadata.ownerReferences : [];

/** References that block where the old object's reference of the same uid did not (newBlockingOwnerDeletionRefs). */
function newBlockingRefs(a: Attributes): OwnerReference[] {
  const old = new Map(refsOf(a.oldObject).map((r) => [r.uid, r]));
  return refsOf(a.object).filter((r) => r.blockOwnerDeletion === true && old.get(r.uid)?.blockOwnerDeletion !== true);
}

export function ownerReferencesPermissionEnforcement(
  authorizer: Authorizer,
  resolve: ResolveResource,
): AdmissionPlugin {
  return {
    name: 'OwnerReferencesPermissionEnforcement',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    async validate(a) {
      const user = a.userInfo;
      if (!user) return;
      const authorize = (
        verb: string,
        apiGroup: string,
        resource: string,
        subresource: string,
        namespace: string,
        name: string,
      ): { allowed: boolean; reason: string } => {
        const r = authorizer.authorize({
          user,
          verb,
          resourceRequest: true,
          apiGroup,
          apiVersion: '',
          resource,
          subresource,
          namespace,
          name,
          path: '',
        });
        return { allowed: r.decision === 'allow', reason: r.reason };
      };
      const refs = refsOf(a.object);
      const changing =
        a.operation === 'CREATE' ? refs.length > 0 : JSON.stringify(refs) !== JSON.stringify(refsOf(a.oldObject));
      if (!changing) return;
      const deny = (why: string): never => {
        const name = a.name || (a.object?.metadata.name ?? '');
        const subject = name ? `${qualifiedString(a.resource)} "${name}"` : qualifiedString(a.resource);
        throw forbidden(`${subject} is forbidden: ${why}`, {
          ...(name ? { name } : {}),
          ...(a.resource.group ? { group: a.resource.group } : {}),
          kind: a.resource.name,
        });
      };
      if (a.operation !== 'CREATE') {
        const d = authorize('delete', a.resource.group, a.resource.name, a.subresource, a.namespace, a.name);
        // kube prints the authorizer's reason and its (nil) error with %v.
        if (!d.allowed) deny(`cannot set an ownerRef on a resource you can't delete: ${d.reason}, <nil>`);
      }
      const blocking = newBlockingRefs(a);
      if (blocking.length === 0) return;
      // One question first that settles every reference (finalizers of anything).
      const anything = authorize('update', '*', '*', 'finalizers', '', '*');
      if (anything.allowed) return;
      for (const ref of blocking) {
        const target = resolve(ref.apiVersion, ref.kind);
        if (!target) {
          deny(
            `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: no matches for kind "${ref.kind}" in version "${ref.apiVersion}"`,
          );
          return;
        }
        const d = authorize(
          'update',
          target.group,
          target.resource,
          'finalizers',
          target.namespaced ? a.namespace : '',
          ref.name,
        );
        if (!d.allowed)
          deny(
            `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${d.reason}, <nil>`,
          );
      }
    },
  };
}
