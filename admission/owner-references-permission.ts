// kube's OwnerReferencesPermissionEnforcement admission (plugin/pkg/admission/gc): changing an
// object's ownerReferences needs delete permission on the object (a create needs none: its writer
// could have not created it), and setting blockOwnerDeletion needs permission to update the
// OWNER's finalizers, because it can hold the owner's foreground deletion.
//
// Not in the server's chain yet: there is no authorizer (every authenticated user may do
// everything). It is the seam for when one exists: pass its decision function as `authorize`.
import { forbidden, qualifiedString } from '../apimachinery/errors.js';
import type { OwnerReference } from '../apimachinery/object.js';
import type { UserInfo } from '../apimachinery/user.js';
import type { AdmissionPlugin, Attributes } from './interface.js';

/** What is asked of the authorizer (kube's authorizer.AttributesRecord, the parts used here). */
export interface AuthorizationRecord {
  user: UserInfo | undefined;
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export type Authorize = (record: AuthorizationRecord) => Promise<{ allowed: boolean; reason: string }>;

/** The served resource of an owner reference's kind (kube's RESTMapper), when there is one. */
export type ResolveResource = (apiVersion: string, kind: string) => { group: string; resource: string; namespaced: boolean } | undefined;

const refsOf = (obj: Attributes['object']): OwnerReference[] => (Array.isArray(obj?.metadata.ownerReferences) ? obj.metadata.ownerReferences : []);

/** References that block where the old object's reference of the same uid did not (newBlockingOwnerDeletionRefs). */
function newBlockingRefs(a: Attributes): OwnerReference[] {
  const old = new Map(refsOf(a.oldObject).map((r) => [r.uid, r]));
  return refsOf(a.object).filter((r) => r.blockOwnerDeletion === true && old.get(r.uid)?.blockOwnerDeletion !== true);
}

export function ownerReferencesPermissionEnforcement(authorize: Authorize, resolve: ResolveResource): AdmissionPlugin {
  return {
    name: 'OwnerReferencesPermissionEnforcement',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    async validate(a) {
      const refs = refsOf(a.object);
      const changing = a.operation === 'CREATE' ? refs.length > 0 : JSON.stringify(refs) !== JSON.stringify(refsOf(a.oldObject));
      if (!changing) return;
      const deny = (why: string): never => {
        const name = a.name || (a.object?.metadata.name ?? '');
        const subject = name ? `${qualifiedString(a.resource)} "${name}"` : qualifiedString(a.resource);
        throw forbidden(`${subject} is forbidden: ${why}`, { ...(name ? { name } : {}), ...(a.resource.group ? { group: a.resource.group } : {}), kind: a.resource.name });
      };
      if (a.operation !== 'CREATE') {
        const d = await authorize({ user: a.userInfo, verb: 'delete', group: a.resource.group, resource: a.resource.name, subresource: a.subresource, namespace: a.namespace, name: a.name });
        // kube prints the authorizer's reason and its (nil) error with %v.
        if (!d.allowed) deny(`cannot set an ownerRef on a resource you can't delete: ${d.reason}, <nil>`);
      }
      const blocking = newBlockingRefs(a);
      if (blocking.length === 0) return;
      // One question first that settles every reference (finalizers of anything).
      const anything = await authorize({ user: a.userInfo, verb: 'update', group: '*', resource: '*', subresource: 'finalizers', namespace: '', name: '*' });
      if (anything.allowed) return;
      for (const ref of blocking) {
        const target = resolve(ref.apiVersion, ref.kind);
        if (!target) {
          deny(`cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: no matches for kind "${ref.kind}" in version "${ref.apiVersion}"`);
          return;
        }
        const d = await authorize({
          user: a.userInfo,
          verb: 'update',
          group: target.group,
          resource: target.resource,
          subresource: 'finalizers',
          namespace: target.namespaced ? a.namespace : '',
          name: ref.name,
        });
        if (!d.allowed) deny(`cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${d.reason}, <nil>`);
      }
    },
  };
}
