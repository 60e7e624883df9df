// kube's NamespaceLifecycle admission: a namespaced object can be created only in a namespace that
// exists and is not being terminated.
import { type ApiError, forbidden, notFound, qualifiedString } from '../server/errors.js';
import { isTerminating } from '../server/registry/builtin/namespaces.js';
import type { KubeObject } from '../server/registry/object.js';
import { qualifiedResource } from '../server/registry/strategy.js';
import type { CreateHook, Store } from '../server/registry/store.js';

export function namespaceLifecycle(namespaces: Store): CreateHook {
  return async (obj: KubeObject, namespace: string | undefined, store: Store) => {
    if (!store.kind.namespaced || !namespace) return;
    let ns: KubeObject;
    try {
      ns = await namespaces.get(undefined, namespace);
    } catch (err) {
      if ((err as ApiError).code === 404) throw notFound({ group: '', name: 'namespaces' }, namespace);
      throw err;
    }
    if (isTerminating(ns)) {
      const resource = qualifiedResource(store.kind);
      const name = obj.metadata.name ?? '';
      // apierrors.NewForbidden: the name is quoted after the resource, and left out when empty.
      const subject = name ? `${qualifiedString(resource)} "${name}"` : qualifiedString(resource);
      throw forbidden(
        `${subject} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        {
          ...(name ? { name } : {}),
          ...(resource.group ? { group: resource.group } : {}),
          kind: resource.name,
          causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
        },
      );
    }
  };
}
