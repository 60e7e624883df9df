// kube's NamespaceLifecycle admission: a namespaced object can be created only in a namespace that
// exists and is not being terminated. The registry tells it how a namespace stands.
import { forbidden, notFound, qualifiedString } from '../apimachinery/errors.js';
import type { AdmissionPlugin } from './interface.js';

/** A namespace as the plugin needs to know it: absent, or whether it is terminating. */
export type NamespaceLookup = (name: string) => Promise<{ terminating: boolean } | undefined>;

export function namespaceLifecycle(lookup: NamespaceLookup): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    handles: (op) => op === 'CREATE',
    // The mutating phase, as in kube: it sees the object as the client sent it, before a name is
    // generated or anything validated.
    async admit(a) {
      if (!a.namespace) return;
      const ns = await lookup(a.namespace);
      if (!ns) throw notFound({ group: '', name: 'namespaces' }, a.namespace);
      if (!ns.terminating) return;
      const name = a.object?.metadata.name ?? '';
      // apierrors.NewForbidden: the name is quoted after the resource, and left out when empty.
      const subject = name ? `${qualifiedString(a.resource)} "${name}"` : qualifiedString(a.resource);
      throw forbidden(`${subject} is forbidden: unable to create new content in namespace ${a.namespace} because it is being terminated`, {
        ...(name ? { name } : {}),
        ...(a.resource.group ? { group: a.resource.group } : {}),
        kind: a.resource.name,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
      });
    },
  };
}
