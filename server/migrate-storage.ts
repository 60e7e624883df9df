// `mini-apiserver migrate-storage <crd>`: rewrites every object of a CRD in its current storage
// version, then trims status.storedVersions to that version, so old versions can be removed from
// the CRD. It works through the API of a running server (the admin kubeconfig), as kube's
// storage version migrator does: an update that changes nothing but the stored version is written
// in the storage version, one that is already there is not written at all.
import { type Target, call, failed } from './client/api-client.js';

interface ObjectRef {
  metadata: { name: string; namespace?: string; resourceVersion: string };
}

interface MigrationResult {
  storageVersion: string;
  objects: number;
  storedVersions: string[];
}

export async function migrateStorage(t: Target, crdName: string): Promise<MigrationResult> {
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`;
  const crdAnswer = await call(t, 'GET', crdPath);
  if (crdAnswer.status !== 200) throw failed(`reading ${crdName}`, crdAnswer);
  const spec = crdAnswer.body['spec'] as {
    group: string;
    scope: string;
    names: { plural: string };
    versions: { name: string; storage: boolean }[];
  };
  const storageVersion = spec.versions.find((v) => v.storage)!.name;
  const base = `/apis/${spec.group}/${storageVersion}`;

  let objects = 0;
  let cont = '';
  do {
    const page = await call(
      t,
      'GET',
      `${base}/${spec.names.plural}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
    );
    if (page.status !== 200) throw failed(`listing ${spec.names.plural}`, page);
    for (const item of page.body['items'] as ObjectRef[]) {
      await rewrite(
        t,
        `${base}${item.metadata.namespace ? `/namespaces/${item.metadata.namespace}` : ''}/${spec.names.plural}/${item.metadata.name}`,
        item,
      );
      objects++;
    }
    cont = String((page.body['metadata'] as { continue?: string }).continue ?? '');
  } while (cont);

  // Every object is now in the storage version: only it remains stored.
  for (;;) {
    const current = await call(t, 'GET', crdPath);
    if (current.status !== 200) throw failed(`reading ${crdName}`, current);
    const status = { ...(current.body['status'] as Record<string, unknown>), storedVersions: [storageVersion] };
    const put = await call(t, 'PUT', `${crdPath}/status`, { ...current.body, status });
    if (put.status === 200) break;
    if (put.status !== 409) throw failed(`updating ${crdName} status`, put);
  }
  return { storageVersion, objects, storedVersions: [storageVersion] };
}

/** PUT the object back unchanged; on a conflict read it again (someone else wrote it, in the storage version). */
async function rewrite(t: Target, path: string, obj: ObjectRef): Promise<void> {
  let current: unknown = obj;
  for (let attempt = 0; attempt < 5; attempt++) {
    const put = await call(t, 'PUT', path, current);
    if (put.status === 200 || put.status === 404) return;
    if (put.status !== 409) throw failed(`rewriting ${path}`, put);
    const again = await call(t, 'GET', path);
    if (again.status === 404) return;
    current = again.body;
  }
  throw new Error(`rewriting ${path}: it kept changing`);
}
