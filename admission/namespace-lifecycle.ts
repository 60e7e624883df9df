// kube's NamespaceLifecycle admission: a namespaced object can be created only in a namespace that
// exists and is not being terminated. The registry tells it how a namespace stands: from its watch
// cache, or from storage when the cache may be behind.
import { forbidden, notFound, qualifiedString } from '../apimachinery/errors.js';
import type { AdmissionPlugin } from './interface.js';

/** A namespace as the plugin needs to know it: absent, or whether it is terminating. `live` reads storage, not the cache. */
type NamespaceLookup = (name: string, opts: { live: boolean }) => Promise<{ terminating: boolean } | undefined>;

/** kube's forceLiveLookupTTL: for this long after a namespace's deletion, a cache saying it is active is not believed. */
const FORCE_LIVE_LOOKUP_MS = 30_000;

export function namespaceLifecycle(lookup: NamespaceLookup, now: () => number = Date.now): AdmissionPlugin {
  /** Namespaces whose deletion passed here, until when a create in them reads storage. */
  const deletedRecently = new Map<string, number>();
  return {
    name: 'NamespaceLifecycle',
    handles: (op) => op === 'CREATE' || op === 'DELETE',
    // The mutating phase, as in kube: it sees the object as the client sent it, before a name is
    // generated or anything validated.
    // It refuses; it never changes the object.
    mutates: () => false,
    async admit(a) {
      if (a.operation === 'DELETE') {
        if (a.resource.group === '' && a.resource.name === 'namespaces' && !a.subresource) {
          const t = now();
          for (const [name, until] of deletedRecently) if (until <= t) deletedRecently.delete(name);
          deletedRecently.set(a.name, t + FORCE_LIVE_LOOKUP_MS);
        }
        return;
      }
      if (!a.namespace) return;
      let ns = await lookup(a.namespace, { live: false });
      // Absent may be just created; active may be just deleted: storage has the last word.
      const doubtful = !ns || (!ns.terminating && (deletedRecently.get(a.namespace) ?? 0) > now());
      if (doubtful) ns = await lookup(a.namespace, { live: true });
      if (!ns) throw notFound({ group: '', name: 'namespaces' }, a.namespace);
      if (!ns.terminating) return;
      const name = a.object?.metadata.name ?? '';
      // apierrors.NewForbidden: the name is quoted after the resource, and left out when empty.
      const subject = name ? `${qualifiedString(a.resource)} "${name}"` : qualifiedString(a.resource);
      throw forbidden(
        `${subject} is forbidden: unable to create new content in namespace ${a.namespace} because it is being terminated`,
        {
          ...(name ? { name } : {}),
          ...(a.resource.group ? { group: a.resource.group } : {}),
          kind: a.resource.name,
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${a.namespace} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
    },
  };
}
