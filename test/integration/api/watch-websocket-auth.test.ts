// A WebSocket watch authenticated by the subprotocol base64url.bearer.authorization.k8s.io.<token>
// (how browsers, which cannot set headers, and kube's WebSocket clients pass a token), with a real
// ws client against an in-process server; the Authorization header works as before.
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { eventually } from '../../helpers/eventually.js';

let server: ServerHandle;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
});

afterAll(async () => {
  await server?.close();
});

const PATH = '/api/v1/namespaces?watch=true';
const tokenProtocol = (token: string): string =>
  `base64url.bearer.authorization.k8s.io.${Buffer.from(token).toString('base64url')}`;

/** Opens a watch; resolves with the socket once open, or with the HTTP status of a refusal. */
function open(
  protocols: string[],
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket; names: string[] } | { status: number }> {
  const ws = new WebSocket(`${server.url.replace('https', 'wss')}${PATH}`, protocols, { ca: server.caCert, headers });
  const names: string[] = [];
  ws.on('message', (data: Buffer) =>
    names.push((JSON.parse(data.toString()) as { object: { metadata: { name: string } } }).object.metadata.name),
  );
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, names }));
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.once('error', reject);
  });
}

async function sees(opened: Awaited<ReturnType<typeof open>>, name: string): Promise<void> {
  if (!('ws' in opened)) throw new Error(`refused with ${opened.status}`);
  await apiClient(server)('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  await eventually(`the watch sees ${name}`, async () => (opened.names.includes(name) ? true : undefined));
  opened.ws.close();
}

describe('WebSocket watch authentication', () => {
  it('accepts a valid token subprotocol and echoes the other subprotocol, never the token', async () => {
    const opened = await open([tokenProtocol(server.token), 'base64.binary.k8s.io']);
    expect('ws' in opened && opened.ws.protocol).toBe('base64.binary.k8s.io');
    await sees(opened, 'over-token-protocol');
  });

  it('accepts the token subprotocol in any position', async () => {
    const opened = await open(['base64.binary.k8s.io', tokenProtocol(server.token)]);
    expect('ws' in opened && opened.ws.protocol).toBe('base64.binary.k8s.io');
    await sees(opened, 'over-token-protocol-last');
  });

  it.each([
    ['an unknown token', [tokenProtocol('not-a-token'), 'base64.binary.k8s.io']],
    ['a token that is not base64url', ['base64url.bearer.authorization.k8s.io.not+base64url', 'base64.binary.k8s.io']],
    ['a token without another subprotocol to echo', [tokenProtocol('unused')]],
    ['two tokens', [tokenProtocol('a'), tokenProtocol('b'), 'base64.binary.k8s.io']],
  ])('answers 401 to %s', async (_name, protocols) => {
    expect(await open(protocols)).toEqual({ status: 401 });
  });

  it('answers 403 without any credential (system:anonymous may not watch), and still takes the Authorization header', async () => {
    expect(await open([])).toEqual({ status: 403 });
    const opened = await open([], { authorization: `Bearer ${server.token}` });
    expect('ws' in opened && opened.ws.protocol).toBe('');
    await sees(opened, 'over-authorization-header');
  });
});

describe('WebSocket watches in /metrics', () => {
  const count = async (code: number): Promise<number> => {
    const text = (await apiClient(server)('GET', '/metrics')).text;
    // A refusal of someone unauthenticated or anonymous (both below) does not let the path choose
    // label values (metrics.ts trustedLabels): the resource is left out.
    const resource =
      code >= 400
        ? 'resource="",scope="cluster",subresource="",verb="WATCH",version=""'
        : 'resource="namespaces",scope="cluster",subresource="",verb="WATCH",version="v1"';
    const line = text
      .split('\n')
      .find((l) =>
        l.startsWith(`apiserver_request_total{code="${code}",component="apiserver",dry_run="",group="",${resource}}`),
      );
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it('counts each upgraded watch once it closes (101) and each refusal with its code, as apiserver_request_total WATCH', async () => {
    const before = { 101: await count(101), 401: await count(401), 403: await count(403) };
    await sees(await open([tokenProtocol(server.token), 'base64.binary.k8s.io']), 'counted-watch');
    expect(await open([tokenProtocol('not-a-token'), 'base64.binary.k8s.io'])).toEqual({ status: 401 });
    expect(await open([])).toEqual({ status: 403 });
    await eventually('the closed watch counted', async () =>
      (await count(101)) === before[101] + 1 ? true : undefined,
    );
    expect(await count(401)).toBe(before[401] + 1);
    expect(await count(403)).toBe(before[403] + 1);
  });
});
