// The front door under clients that misbehave, against an in-process server with small limits:
// kube's in-flight limits (429 with Retry-After, system:masters and watches exempt), the request
// timeout (504 with kube's Status), slow and idle connections cut, 1 MiB of headers accepted and
// more answered 431, aborted uploads that once crashed the process, the per-scope verb table, and
// query values kube refuses with a 400 (or its 504 for a resourceVersion not reached).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { encodeContinue } from '../../../server/registry/continue-token.js';
import { apiClient } from '../../helpers/api-client.js';
import { installCrd, simpleCrd } from '../../helpers/crds.js';
import { eventually } from '../../helpers/eventually.js';
import { request } from '../../helpers/server-process.js';

const ADMIN_TOKEN = 'admin-token';
const BOB_TOKEN = 'bob-token';
// The watch cache's wait for a resourceVersion it has not reached (kube's 3 s), shortened; and the
// request timeout above it, so that the 504 test meets the cache's 504, not the timeout's. (On
// 'memory' storage the cache is never behind for long, so a second is plenty for its other reads.)
const FRESHNESS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 3000;

const CRD = simpleCrd('limits.example.com', 'gadgets', {
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
});
const CLUSTER_PATH = '/apis/limits.example.com/v1/gadgets';
const nsPath = (ns: string): string => `/apis/limits.example.com/v1/namespaces/${ns}/gadgets`;

let server: ServerHandle;
let dir: string;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'limits-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${ADMIN_TOKEN},admin,1,"system:masters"\n${BOB_TOKEN},bob,2\n`);
  server = await startServer({
    storage: 'memory',
    tokenAuthFile: tokens,
    maxRequestsInflight: 1,
    maxMutatingRequestsInflight: 1,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    watchCacheFreshnessTimeoutMs: FRESHNESS_TIMEOUT_MS,
    readHeaderTimeoutMs: 1000,
    idleTimeoutMs: 1000,
    // The counts under test, not the loop: this test's own work shares the server's event loop.
    maxEventLoopUtilization: 1,
    // Nor authorization: bob is any user, who may do what the admin does.
    authorizationModes: ['AlwaysAllow'],
  });
  api = apiClient(server);
  await installCrd(api, CRD);
  for (const ns of ['a', 'b']) {
    expect((await api('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
    expect(
      (
        await api('POST', nsPath(ns), {
          body: { apiVersion: 'limits.example.com/v1', kind: 'Gadget', metadata: { name: 'g' } },
        })
      ).status,
    ).toBe(201);
  }
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function tlsConnect(): Promise<TLSSocket> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: url.hostname, port: Number(url.port), ca: server.caCert, servername: 'localhost' },
      () => resolve(socket),
    );
    socket.on('error', reject);
  });
}

/** Everything the server sends until it closes the connection (or `ms` pass). */
function readAll(socket: TLSSocket, ms = 20_000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve({ text, closed: false }), ms);
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });
}

/** A request whose body never comes: it holds its in-flight slot until the request timeout. */
async function stalledWrite(
  token: string,
): Promise<{ socket: TLSSocket; answer: Promise<{ text: string; closed: boolean }> }> {
  const socket = await tlsConnect();
  const answer = readAll(socket);
  socket.write(
    `POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
  );
  return { socket, answer };
}

const as = (token: string, method: string, path: string, body?: string) =>
  request(server.url + path, {
    method,
    ca: server.caCert,
    token,
    ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
    timeoutMs: 20_000,
  });

describe('in-flight limits and the request timeout', () => {
  it('refuses a mutating request beyond the limit with kube 429; masters and reads still served; the stalled one gets kube 504', async () => {
    const stalled = await stalledWrite(BOB_TOKEN);
    await eventually('the stalled write holds the slot', async () => {
      const r = await as(BOB_TOKEN, 'POST', '/api/v1/namespaces', '{"metadata":{"name":"x1"}}');
      return r.status === 429 ? r : undefined;
    }).then((r) => {
      expect(r.headers['retry-after']).toBe('1');
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(r.body).toBe('Too many requests, please try again later.\n');
    });
    expect((await as(ADMIN_TOKEN, 'GET', '/metrics')).body).toMatch(
      /\napiserver_dropped_requests_total\{request_kind="mutating"\} [1-9]\d*\n/,
    );
    // system:masters is always served, and reads have their own limit.
    expect((await as(ADMIN_TOKEN, 'POST', '/api/v1/namespaces', '{"metadata":{"name":"by-admin"}}')).status).toBe(201);
    expect((await as(BOB_TOKEN, 'GET', '/api/v1/namespaces')).status).toBe(200);

    const { text, closed } = await stalled.answer;
    expect(closed).toBe(true);
    expect(text).toMatch(/^HTTP\/1\.1 504 /);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within the allotted timeout',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    // The slot is free again.
    expect((await as(BOB_TOKEN, 'POST', '/api/v1/namespaces', '{"metadata":{"name":"x2"}}')).status).toBe(201);
  });

  it('gives back the slot of a request whose client left while its ServiceAccount token was being checked', async () => {
    // A ServiceAccount token is checked asynchronously; a client that goes in that time must not
    // keep its in-flight slot (the limit is 1 here), or every later request would be refused 429.
    expect(
      (await api('POST', '/api/v1/namespaces/a/serviceaccounts', { body: { metadata: { name: 'gone' } } })).status,
    ).toBe(201);
    const issued = await api('POST', '/api/v1/namespaces/a/serviceaccounts/gone/token', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    });
    expect(issued.status).toBe(201);
    const token = String((issued.json as { status: { token: string } }).status.token);
    for (let i = 0; i < 40; i++) {
      const socket = await tlsConnect();
      socket.on('error', () => {});
      socket.end(
        `POST /api/v1/namespaces/a/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      );
      socket.destroy();
    }
    // The server has seen every connection go once a request on a new one is answered after them.
    let last = '';
    const created = await eventually('a create once the 40 clients are gone', async () => {
      const body = JSON.stringify({ metadata: { generateName: 'after-' } });
      const r = await as(token, 'POST', '/api/v1/namespaces/a/configmaps', body).catch((err: Error) => ({
        status: 0,
        body: err.message,
      }));
      last = `${r.status} ${r.body}`;
      return r.status === 201 ? r : undefined;
    }).catch(() => undefined);
    expect(created?.status, last).toBe(201);
  });

  it('counts ?watch=yes as a watch: no in-flight slot, no request timeout, a long-running request in /metrics', async () => {
    const socket = await tlsConnect();
    const seen = readAll(socket, REQUEST_TIMEOUT_MS + 1000);
    socket.write(`GET /api/v1/namespaces?watch=yes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BOB_TOKEN}\r\n\r\n`);
    await eventually('the watch is open', async () => {
      const metrics = await as(ADMIN_TOKEN, 'GET', '/metrics');
      return metrics.body.includes(
        'apiserver_longrunning_requests{component="apiserver",group="",resource="namespaces",scope="cluster",subresource="",verb="WATCH",version="v1"} 1\n',
      )
        ? true
        : undefined;
    });
    // The one read-only slot is not the watch's.
    expect((await as(BOB_TOKEN, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
    const { text, closed } = await seen;
    expect(closed).toBe(false); // outlived the request timeout
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text).toContain('"type":"ADDED"');
    socket.destroy();
  });
});

describe('connection limits', () => {
  it('cuts a connection that trickles its headers (slowloris)', async () => {
    const socket = await tlsConnect();
    const done = readAll(socket);
    socket.write('GET /readyz HTTP/1.1\r\nHost: x\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('X'), 200);
    const { closed } = await done;
    clearInterval(trickle);
    expect(closed).toBe(true);
  });

  it('closes a TLS connection that never sends a request, and one left idle after a response', async () => {
    const silent = await tlsConnect();
    const idle = await tlsConnect();
    const idleDone = readAll(idle);
    idle.write('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await readAll(silent)).closed).toBe(true);
    const { text, closed } = await idleDone;
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(closed).toBe(true);
  });

  it('takes a request line and headers up to 1 MiB (long selectors and continue tokens), and answers 431 beyond', async () => {
    const long = await api('GET', `/api/v1/namespaces?labelSelector=a%20notin%20(${'x,'.repeat(150_000)}y)`);
    expect(long.status, long.text.slice(0, 300)).toBe(200);
    const socket = await tlsConnect();
    const answer = readAll(socket);
    // Sent as a client sends a long request, paced by the connection, stopping once answered (a
    // client still flooding a closed connection may lose the answer to its own reset).
    const request = `GET /api/v1/namespaces?x=${'a'.repeat(1_100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`;
    let answered = false;
    socket.once('data', () => (answered = true));
    for (let at = 0; at < request.length && !answered && socket.writable; at += 64 * 1024) {
      if (!socket.write(request.slice(at, at + 64 * 1024))) {
        // Whichever comes first; the other's listener goes too (one per pause would pile up).
        await new Promise<void>((r) => {
          const go = (): void => {
            socket.off('drain', go);
            socket.off('close', go);
            r();
          };
          socket.once('drain', go);
          socket.once('close', go);
        });
      }
    }
    const { text, closed } = await answer;
    expect(text, `closed: ${closed}`).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large/);
  });

  it('answers a chunked upload past the body limit with kube 413 (not a reset), then closes the connection', async () => {
    const socket = await tlsConnect();
    const answer = readAll(socket);
    socket.write(
      `POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = 'a'.repeat(64 * 1024);
    for (let i = 0; i < 64 && socket.writable; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const { text, closed } = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toContain('"message":"Request entity too large: limit is 3145728"');
    expect(closed).toBe(true);
  });

  it('survives uploads aborted past the body limit, chunked or not', async () => {
    const chunked = await tlsConnect();
    chunked.write(
      `POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = 'a'.repeat(64 * 1024);
    for (let i = 0; i < 64; i++) chunked.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    await new Promise((r) => setTimeout(r, 100));
    chunked.destroy();

    const sized = await tlsConnect();
    sized.on('error', () => {});
    sized.write(
      `POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${8 * 1024 * 1024}\r\n\r\n`,
    );
    sized.write('b'.repeat(4 * 1024 * 1024));
    sized.destroy();

    const mid = await tlsConnect();
    mid.write(
      `PUT /api/v1/namespaces/a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"metadata":`,
    );
    mid.destroy();

    await new Promise((r) => setTimeout(r, 300));
    expect((await api('GET', '/readyz')).status).toBe(200);
    expect((await api('GET', '/api/v1/namespaces/a')).status).toBe(200);
  });
});

describe('verbs per scope', () => {
  it('serves only list and watch on the cluster-wide path of a namespaced custom resource: DELETE there is a 404 and deletes nothing', async () => {
    const del = await api('DELETE', CLUSTER_PATH);
    expect(del.status).toBe(404);
    expect(del.json).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
      code: 404,
    });
    expect(
      (
        await api('POST', CLUSTER_PATH, {
          body: { apiVersion: 'limits.example.com/v1', kind: 'Gadget', metadata: { name: 'x', namespace: 'a' } },
        })
      ).status,
    ).toBe(404);
    expect((await api('GET', `${CLUSTER_PATH}/g`)).status).toBe(404);
    expect((await api('DELETE', `${CLUSTER_PATH}/g`)).status).toBe(404);
    // The /watch/ path names the verb: only GET serves it.
    expect((await api('DELETE', '/apis/limits.example.com/v1/watch/gadgets')).status).toBe(405);
    expect((await api('DELETE', '/apis/limits.example.com/v1/watch/namespaces/a/gadgets')).status).toBe(405);
    for (const ns of ['a', 'b']) expect((await api('GET', `${nsPath(ns)}/g`)).status).toBe(200);
    const listed = await api('GET', CLUSTER_PATH);
    expect((listed.json as { items: unknown[] }).items).toHaveLength(2);
  });

  it('answers another method on the collection path of a namespaced built-in kind with 405, as go-restful', async () => {
    const del = await api('DELETE', '/api/v1/events');
    expect(del.status).toBe(405);
    expect((await api('POST', '/api/v1/events', { body: { metadata: { name: 'e', namespace: 'a' } } })).status).toBe(
      405,
    );
    expect((await api('GET', '/api/v1/events/e')).status).toBe(404);
    expect((await api('GET', '/api/v1/events')).status).toBe(200);
  });
});

describe('query values kube refuses', () => {
  it('limit beyond int64 is a 400 with strconv text; a huge int64 limit lists everything', async () => {
    const over = await api('GET', `${CLUSTER_PATH}?limit=9223372036854775808`);
    expect(over.status).toBe(400);
    expect(over.json).toMatchObject({
      reason: 'BadRequest',
      message: 'strconv.ParseInt: parsing "9223372036854775808": value out of range',
    });
    const huge = await api('GET', `${CLUSTER_PATH}?limit=4611686018427387904`);
    expect(huge.status).toBe(200);
    expect((huge.json as { items: unknown[]; metadata: { continue?: string } }).items).toHaveLength(2);
    expect((huge.json as { metadata: { continue?: string } }).metadata.continue).toBeUndefined();
  });

  it('a continue token naming a revision never reached is a 400, not a storage error', async () => {
    const token = encodeContinue(
      10_000_000,
      '/registry/limits.example.com/gadgets/a/g',
      '/registry/limits.example.com/gadgets/',
    );
    const r = await api('GET', `${CLUSTER_PATH}?limit=1&continue=${token}`);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      reason: 'BadRequest',
      message: 'invalid continue token: resource version 10000000 has not been reached yet',
    });
  });

  it('a list at an exact future resourceVersion is kube\'s 504 "Too large resource version"', async () => {
    const r = await api('GET', `${CLUSTER_PATH}?resourceVersionMatch=Exact&resourceVersion=10000000`);
    expect(r.status).toBe(504);
    expect(r.json).toMatchObject({
      reason: 'Timeout',
      details: { causes: [{ reason: 'ResourceVersionTooLarge' }], retryAfterSeconds: 1 },
    });
  });

  it("a GET checks its resourceVersion: malformed is a 400, future is kube's 504", async () => {
    const bad = await api('GET', `${nsPath('a')}/g?resourceVersion=abc`);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      reason: 'BadRequest',
      message: 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    });
    const future = await api('GET', `${nsPath('a')}/g?resourceVersion=10000000`);
    expect(future.status).toBe(504);
    expect(future.json).toMatchObject({
      reason: 'Timeout',
      message: expect.stringMatching(/^Timeout: Too large resource version: 10000000, current: \d+$/),
    });
    const current = (await api('GET', `${nsPath('a')}/g`)).json as { metadata: { resourceVersion: string } };
    expect((await api('GET', `${nsPath('a')}/g?resourceVersion=${current.metadata.resourceVersion}`)).status).toBe(200);
  });
});
