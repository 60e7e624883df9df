// The admin's HTTPS client of a running server, for what the server's own tools do through its
// API: `migrate-storage`, and the library's provisioning (CRDs, webhook configurations) and typed
// testing helpers. One request, one JSON answer; kube's Status on failure.
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { lazyRequire } from '../../apimachinery/lazy-require.js';
import { parseJSON, stringifyJSON } from '../../apimachinery/json.js';

// Only these tools read YAML; a server start does not load the package.
const yaml = lazyRequire<typeof import('yaml')>('yaml');

/** Where the server is and how to be trusted by it. */
export interface Target {
  /** https://host:port */
  server: string;
  /** The CA that verifies the serving certificate (PEM); '' for the system's. */
  ca: string;
  token: string;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** The server, CA and token of a kubeconfig's current context: a file, or its YAML with `text`. */
export function readKubeconfig(path: string, text = readFileSync(path, 'utf8')): Target {
  const doc = yaml().parse(text) as {
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

/** One request: `body` as JSON (or as is, a string, with its `contentType`), the answer parsed. */
export function call(
  t: Target,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // parseJSON/stringifyJSON: objects are rewritten as read, integers beyond 2^53 included.
    const text = body === undefined ? undefined : typeof body === 'string' ? body : stringifyJSON(body);
    const req = httpsRequest(t.server + path, {
      method,
      ca: t.ca || undefined,
      headers: {
        authorization: `Bearer ${t.token}`,
        ...(text ? { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)) } : {}),
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

/** An answer that was not the one hoped for, as one line: `<what>: <code> <Status message>`. */
export const failed = (what: string, a: Answer): Error =>
  new Error(`${what}: ${a.status} ${String(a.body['message'] ?? '')}`);
