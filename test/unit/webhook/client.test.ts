// The HTTPS client kube's webhooks share: endpoints from a clientConfig, and calls against real
// HTTPS servers (redirects, size cap, deadline, dial errors) with Go's texts.
import { once } from 'node:events';
import type { RequestListener, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type WebhookEndpoint,
  WebhookCallError,
  decodeResponse,
  goDuration,
  postWebhook,
  webhookEndpoint,
} from '../../../webhook/client.js';
import { caBundleError } from '../../../webhook/ca-bundle.js';
import { generatePki, type ServingTls } from '../../../server/pki.js';

let pki: ServingTls;
let caBundle: string;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  pki = await generatePki({ ips: ['127.0.0.1'], dns: ['localhost', 'hook.webhooks.svc'] });
  caBundle = Buffer.from(pki.caCert).toString('base64');
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** An HTTPS server for `handler`; `onSocket` is told of each connection it accepts. */
async function serve(
  handler: RequestListener,
  onConnection?: () => void,
  onSocket?: (socket: Socket) => void,
): Promise<number> {
  const server = createHttpsServer({ cert: pki.cert, key: pki.key }, handler);
  if (onConnection) server.on('secureConnection', onConnection);
  if (onSocket) server.on('connection', onSocket);
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function endpoint(
  cc: Parameters<typeof webhookEndpoint>[0],
  timeoutMs = 10_000,
  opts: Parameters<typeof webhookEndpoint>[2] = {},
): WebhookEndpoint {
  const ep = webhookEndpoint(cc, timeoutMs, opts);
  if ('error' in ep) throw new Error(ep.error);
  return ep;
}

async function callError(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookCallError);
    return (err as Error).message;
  }
  throw new Error('expected the call to fail');
}

describe('webhookEndpoint', () => {
  it.each([
    [
      { url: 'https://hook.example.com/validate' },
      10_000,
      'https://hook.example.com/validate?timeout=10s',
      'hook.example.com',
      'hook.example.com',
    ],
    [
      { url: 'https://hook.example.com:443/a/../b/?x=1' },
      1_500,
      'https://hook.example.com:443/b?timeout=1.5s&x=1',
      'hook.example.com:443',
      'hook.example.com',
    ],
    [{ url: 'https://[::1]:8443' }, 30_000, 'https://[::1]:8443/?timeout=30s', '[::1]:8443', '::1'],
    [
      { service: { namespace: 'webhooks', name: 'hook', path: '/mutate' } },
      10_000,
      'https://hook.webhooks.svc:443/mutate?timeout=10s',
      'hook.webhooks.svc:443',
      'hook.webhooks.svc',
    ],
    [
      { service: { namespace: 'webhooks', name: 'hook', port: 8443 } },
      10_000,
      'https://hook.webhooks.svc:8443/?timeout=10s',
      'hook.webhooks.svc:8443',
      'hook.webhooks.svc',
    ],
  ])('%j', (cc, timeoutMs, display, hostHeader, serverName) => {
    expect(endpoint(cc, timeoutMs)).toMatchObject({ display, hostHeader, serverName });
  });

  it.each([
    [undefined, 'webhook configuration must have either service or URL'],
    [{}, 'webhook configuration must have either service or URL'],
    [
      { url: 'https://a.example.com', service: { namespace: 'n', name: 's' } },
      'webhook configuration must have either service or URL',
    ],
    [{ url: 'http://a.example.com' }, 'unsupported scheme "http": the webhook client speaks https only'],
    [
      { url: 'https://a.example.com', caBundle: Buffer.from('junk').toString('base64') },
      'unable to load root certificates: unable to parse bytes as PEM block',
    ],
  ])('%j: %s', (cc, error) => {
    expect(webhookEndpoint(cc, 10_000, { caBundleError })).toEqual({ error });
  });

  it.each([
    [0, '0s'],
    [500, '500ms'],
    [10_000, '10s'],
    [90_000, '1m30s'],
  ])('goDuration(%i) = %s', (ms, want) => {
    expect(goDuration(ms)).toBe(want);
  });
});

describe('postWebhook', () => {
  it('POSTs JSON with the path, Host and the answer whatever its status', async () => {
    let seen: { method?: string; url?: string; host?: string; type?: string; body?: string } = {};
    const port = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen = {
          method: req.method,
          url: req.url,
          host: req.headers.host,
          type: req.headers['content-type'],
          body: Buffer.concat(chunks).toString(),
        };
        res.writeHead(418, { 'Content-Type': 'text/plain' });
        res.end('teapot');
      });
    });
    const res = await postWebhook(endpoint({ url: `https://127.0.0.1:${port}/x`, caBundle }), '{"a":1}', 5000, 1024);
    expect(seen).toEqual({
      method: 'POST',
      url: '/x?timeout=10s',
      host: `127.0.0.1:${port}`,
      type: 'application/json',
      body: '{"a":1}',
    });
    expect(res.status).toBe(418);
    expect(res.body.toString()).toBe('teapot');
    expect(() => decodeResponse(res)).toThrow(
      'the server responded with the status code 418 but did not return more information',
    );
  });

  it('keeps the connection for the next call, and makes a new one once the webhook closed it', async () => {
    let connections = 0;
    let calls = 0;
    const port = await serve(
      (req, res) => {
        req.resume();
        calls++;
        // The 10th answer says the webhook closes the connection after it.
        req.on('end', () => (calls === 10 ? res.writeHead(200, { Connection: 'close' }) : undefined, res.end('{}')));
      },
      () => connections++,
    );
    const ep = endpoint({ url: `https://127.0.0.1:${port}/x`, caBundle });
    for (let i = 0; i < 20; i++) expect((await postWebhook(ep, '{}', 5000, 1024)).status).toBe(200);
    expect(connections).toBe(2);
  });

  it('keeps a connection for the next call only once its request is all written, answered early or not', async () => {
    // The webhook answers before it has read the review (node's server reads the rest after): the
    // answer ends while the review is still being written. A call that took the connection then
    // would share it with the first one's request, whose end later took the second's listeners.
    let calls = 0;
    const port = await serve((_req, res) => {
      calls++;
      res.end('{}');
    });
    const ep = endpoint({ url: `https://127.0.0.1:${port}/x`, caBundle });
    const big = JSON.stringify({ pad: 'x'.repeat(8 << 20) });
    expect((await postWebhook(ep, big, 5000, 1024)).status).toBe(200);
    expect((await postWebhook(ep, '{}', 5000, 1024)).status).toBe(200);
    expect(calls).toBe(2);
  });

  it('does not follow a redirect', async () => {
    let followed = 0;
    const target = await serve((_req, res) => {
      followed++;
      res.end('{}');
    });
    const port = await serve((_req, res) => {
      res.writeHead(302, { Location: `https://127.0.0.1:${target}/` });
      res.end();
    });
    const res = await postWebhook(endpoint({ url: `https://127.0.0.1:${port}/`, caBundle }), '{}', 5000, 1024);
    expect(res.status).toBe(302);
    expect(followed).toBe(0);
  });

  it('gives up at the deadline of the call, and drops the connection', async () => {
    // The server never answers. The call's own 300 ms deadline ends it (the endpoint's 1 s only
    // travels in the URL) with Go's text, and the client closes the connection: the server sees
    // it go while its handler, if the request reached it, still holds the answer.
    let accepted!: (socket: Socket) => void;
    const connection = new Promise<Socket>((resolve) => (accepted = resolve));
    const unanswered: ServerResponse[] = [];
    const port = await serve((_req, res) => void unanswered.push(res), undefined, accepted);
    const ep = endpoint({ url: `https://127.0.0.1:${port}/slow`, caBundle }, 1000);
    expect(await callError(postWebhook(ep, '{}', 300, 1024))).toBe(
      `Post "https://127.0.0.1:${port}/slow?timeout=1s": context deadline exceeded`,
    );
    const socket = await connection;
    if (!socket.closed) await once(socket, 'close');
    expect(unanswered.map((res) => res.headersSent)).not.toContain(true);
  });

  it('reads no more than the size cap', async () => {
    const port = await serve((_req, res) => res.end('x'.repeat(10_000)));
    expect(
      await callError(postWebhook(endpoint({ url: `https://127.0.0.1:${port}/`, caBundle }), '{}', 5000, 1000)),
    ).toBe(
      'unexpected error when reading response body. Please retry. Original error: http: response body too large (more than 1000 bytes)',
    );
  });

  it('dials a service through the resolver, verifying the service name', async () => {
    const port = await serve((_req, res) => res.end('{"ok":true}'));
    const ep = endpoint({ service: { namespace: 'webhooks', name: 'hook', port: 443 }, caBundle }, 10_000, {
      serviceResolver: () => ({ host: '127.0.0.1', port }),
    });
    const res = await postWebhook(ep, '{}', 5000, 1024);
    expect(decodeResponse(res)).toEqual({ ok: true });
  });

  it("fails a dial in Go's words", async () => {
    const server = createTcpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(
      await callError(postWebhook(endpoint({ url: `https://127.0.0.1:${port}/`, caBundle }), '{}', 5000, 1024)),
    ).toBe(`Post "https://127.0.0.1:${port}/?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`);
  });

  it('refuses a certificate not for the name dialled', async () => {
    const port = await serve((_req, res) => res.end('{}'));
    const ep = endpoint({ service: { namespace: 'other', name: 'hook', port: 443 }, caBundle }, 10_000, {
      serviceResolver: () => ({ host: '127.0.0.1', port }),
    });
    expect(await callError(postWebhook(ep, '{}', 5000, 1024))).toBe(
      'Post "https://hook.other.svc:443/?timeout=10s": tls: failed to verify certificate: x509: certificate is valid for localhost, hook.webhooks.svc, not hook.other.svc',
    );
  });
});

describe('decodeResponse', () => {
  const res = (body: string, status = 200, contentType = 'application/json') => ({
    status,
    contentType,
    body: Buffer.from(body),
  });
  it.each([
    ['null', {}],
    ['{"kind":"X","a":[1]}', { kind: 'X', a: [1] }],
  ])('%s', (body, want) => {
    expect(decodeResponse(res(body))).toEqual(want);
  });
  it.each([
    [res(''), '0-length response with status code: 200 and content type: application/json'],
    [
      res('[1]'),
      'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    ],
    [
      res('{"kind":1}'),
      "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string",
    ],
    [res('{"kind":"Status","apiVersion":"v1","status":"Failure","message":"nope"}', 403), 'nope'],
    [res('', 503), 'the server is currently unable to handle the request'],
  ])('%j fails: %s', (r, want) => {
    expect(() => decodeResponse(r)).toThrow(want);
  });
});
