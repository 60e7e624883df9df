// The HTTPS client benchmarks drive a server process with: keep-alive connections trusting the
// server's CA, the admin token, JSON in and out.
import { Agent, request as httpsRequest } from 'node:https';
import type { ServerProcess } from '../test/helpers/server-process.js';

export interface BenchClient {
  server: ServerProcess;
  /** Keep-alive connections for ordinary requests; destroy it when done. */
  agent: Agent;
  /** JSON bodies unless `contentType` says otherwise (a patch type). */
  call(method: string, path: string, body?: string, contentType?: string): Promise<{ status: number; body: string }>;
}

export function benchClient(server: ServerProcess): BenchClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: server.ca });
  const call = (
    method: string,
    path: string,
    body?: string,
    contentType = 'application/json',
  ): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { authorization: `Bearer ${server.token}`, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = contentType;
      const req = httpsRequest(`${server.url}${path}`, { method, agent, headers, timeout: 60_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.end(body);
    });
  return { server, agent, call };
}

/**
 * Creates a namespaced CRD with one served version `v1` whose `spec` has the given schema, and
 * resolves with its collection path in `namespace` once the server serves it.
 */
export function installCRD(
  c: BenchClient,
  group: string,
  plural: string,
  kind: string,
  spec: unknown,
  namespace: string,
): Promise<string> {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
        },
      ],
    },
  };
  return createCRD(c, crd, `/apis/${group}/v1/namespaces/${namespace}/${plural}`);
}

/** Creates `crd` and resolves with `path`, a collection it serves, once the server serves it. */
export async function createCRD(c: BenchClient, crd: { metadata: { name: string } }, path: string): Promise<string> {
  const r = await c.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(crd));
  if (r.status !== 201) throw new Error(`CRD ${crd.metadata.name}: ${r.status} ${r.body.slice(0, 300)}`);
  for (let i = 0; ; i++) {
    if ((await c.call('GET', path)).status === 200) return path;
    if (i > 400) throw new Error(`${crd.metadata.name} was never served`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
