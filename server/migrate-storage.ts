// `mini-apiserver migrate-storage <crd>`: rewrites every object of a CRD in its current storage
// version, then trims status.storedVersions to that version, so old versions can be removed from
// the CRD. It works through the API of a running server (the admin kubeconfig), as kube's
// storage version migrator does: an update that changes nothing but the stored version is written
// in the storage version, one that is already there is not written at all.
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { lazyRequire } from '../apimachinery/lazy-require.js';
import { parseJSON, stringifyJSON } from '../apimachinery/json.js';

// Only the migration reads YAML; a server start does not load the package.
const yaml = lazyRequire<typeof import('yaml')>('yaml');

interface Target {
  server: string;
  ca: string;
  token: string;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

interface ObjectRef {
  metadata: { name: string; namespace?: string; resourceVersion: string };
}

export interface MigrationResult {
  storageVersion: string;
  objects: number;
  storedVersions: string[];
}

/** The server, CA and token of a kubeconfig's current context. */
export function readKubeconfig(path: string): Target {
  const doc = yaml().parse(readFileSync(path, 'utf8')) as {
    'current-context'?: string;
    contexts?: { name: string; context: { cluster: string; user: string } }[];
    clusters?: { name: string; cluster: { server: string; 'certificate-authority-data'?: string } }[];
    users?: { name: string; user: { token?: string } }[];
  };
  const context = doc.contexts?.find((c) => c.name === doc['current-context'])?.context ?? doc.contexts?.[0]?.context;
  const cluster = doc.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const user = doc.users?.find((u) => u.name === context?.user)?.user;
  if (!cluster || !user?.token)
    throw new Error(`${path}: no cluster with a token-authenticated user in the current context`);
  return {
    server: cluster.server,
    ca: Buffer.from(cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8'),
    token: user.token,
  };
}

function call(t: Target, method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // parseJSON/stringifyJSON: objects are rewritten as read, integers beyond 2^53 included.
    const text = body === undefined ? undefined : stringifyJSON(body);
    const req = httpsRequest(t.server + path, {
      method,
      ca: t.ca || undefined,
      headers: {
        authorization: `Bearer ${t.token}`,
        ...(text ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } : {}),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        // Decoded once whole: a character split across chunks would not survive chunk-wise decoding.
        const data = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, body: data ? (parseJSON(data) as Record<string, unknown>) : {} });
        } catch {
          reject(new Error(`${method} ${path}: ${res.statusCode} with a body that is not JSON`));
        }
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

const failed = (what: string, a: Answer): Error => new Error(`${what}: ${a.status} ${String(a.body['message'] ?? '')}`);

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
