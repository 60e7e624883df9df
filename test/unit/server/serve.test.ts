// The HTTPS front door with a fake API layer: routing of public and authenticated paths, the
// Status bodies, metrics, health, and the connection side of graceful shutdown.
import type { Duplex } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TokenAuthenticator } from '../../../server/authn/bearer.js';
import type { HealthCheck } from '../../../server/health.js';
import { silentLogger } from '../../../apimachinery/log.js';
import type { UserInfo } from '../../../apimachinery/user.js';
import { generatePki, servingHosts, type ServingTls } from '../../../server/pki.js';
import { HttpsFrontend, bindSecurePort } from '../../../server/serve.js';
import { authorizerChain } from '../../../server/authz/authorizer.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from '../../../server/authz/bootstrap-policy.js';
import { rbacAuthorizer } from '../../../apimachinery/rbac/authorizer.js';
import { versionInfo } from '../../../server/version.js';
import { request } from '../../helpers/server-process.js';
import { timerFired } from '../../helpers/timer-fired.js';

const TOKEN = 'secret-token';

/** kube's RBAC over its bootstrap policy alone: anonymous may read health and version, nothing else. */
const BOOTSTRAP_RBAC = authorizerChain([
  rbacAuthorizer({
    clusterRoleBindings: () => bootstrapClusterRoleBindings(),
    roleBindings: () => [],
    clusterRole: (name) => bootstrapClusterRoles().find((r) => r.metadata.name === name),
    role: () => undefined,
  }),
]);
const ADMIN: UserInfo = { name: 'admin', uid: 'u1', groups: ['system:masters'] };

let tls: ServingTls;
beforeAll(async () => {
  tls = await generatePki(servingHosts('127.0.0.1'));
});

type Handler = (req: IncomingMessage, res: ServerResponse, user: UserInfo) => Promise<void>;

interface Started {
  frontend: HttpsFrontend;
  url: string;
  seen: { path: string | undefined; user: UserInfo; authorization: string | undefined }[];
}

const running: HttpsFrontend[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((f) => f.forceClose()));
});

async function start(handler?: Handler, storageUp = true, anonymous = true): Promise<Started> {
  const seen: Started['seen'] = [];
  const api = {
    handle: async (req: IncomingMessage, res: ServerResponse, user: UserInfo) => {
      seen.push({ path: req.url, user, authorization: req.headers.authorization });
      if (handler) return handler(req, res, user);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"kind":"Fake"}');
    },
    // The frontend's own part of an upgrade is authentication; what follows is the API's.
    handleUpgrade: async (_req: IncomingMessage, socket: Duplex) => void socket.destroy(),
  };
  const storageCheck: HealthCheck = {
    name: 'sqlite',
    check: async () => {
      if (!storageUp) throw new Error('database is closed');
    },
  };
  const authenticator = new TokenAuthenticator([{ token: TOKEN, user: ADMIN }]);
  const securePort = await bindSecurePort(0, '127.0.0.1');
  const frontend = new HttpsFrontend({
    securePort,
    tls,
    api,
    access: { authenticate: (req) => authenticator.authenticate(req), anonymous, authorizer: BOOTSTRAP_RBAC },
    storageCheck,
    version: versionInfo('0.1.0', new Date(0)),
    logger: silentLogger,
  });
  running.push(frontend);
  return { frontend, url: `https://127.0.0.1:${securePort.port}`, seen };
}

const get = (url: string, token?: string) =>
  request(url, { ca: tls.caCert, ...(token === undefined ? {} : { token }) });

describe('public paths', () => {
  it.each(['/healthz', '/livez', '/readyz'])('%s answers ok without a token', async (path) => {
    const { url } = await start();
    const r = await get(url + path);
    expect(r.status).toBe(200);
    expect(r.body).toBe('ok');
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });

  it('/version answers version.Info without a token', async () => {
    const { url } = await start();
    for (const path of ['/version', '/version/']) {
      const r = await get(url + path);
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe('application/json');
      expect(JSON.parse(r.body)).toMatchObject({ major: '1', minor: '33', gitVersion: 'v1.33.0+mini-apiserver.0.1.0' });
    }
  });

  it('/readyz?verbose lists the checks', async () => {
    const { url } = await start();
    const r = await get(`${url}/readyz?verbose`);
    expect(r.body).toBe('[+]ping ok\n[+]sqlite ok\n[+]shutdown ok\nreadyz check passed\n');
  });

  it('/readyz is 500 while storage is down; /livez stays ok', async () => {
    const { url } = await start(undefined, false);
    const r = await get(`${url}/readyz`);
    expect(r.status).toBe(500);
    expect(r.body).toBe('[+]ping ok\n[-]sqlite failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n');
    expect((await get(`${url}/livez`)).status).toBe(200);
    expect((await get(`${url}/healthz`)).status).toBe(500);
  });
});

describe('authentication', () => {
  const unauthorized = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Unauthorized',
    reason: 'Unauthorized',
    code: 401,
  };

  it.each(['/api', '/metrics', '/readyz/sqlite', '/'])(
    '%s without a token: 403 for system:anonymous, which RBAC grants health and version only',
    async (path) => {
      const { url, seen } = await start();
      const r = await get(url + path);
      expect(r.status).toBe(403);
      expect(r.headers['content-type']).toBe('application/json');
      expect(JSON.parse(r.body)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `forbidden: User "system:anonymous" cannot get path "${path}"`,
        reason: 'Forbidden',
        details: {},
        code: 403,
      });
      expect(seen).toEqual([]);
    },
  );

  it('anyone may GET /healthz, no other verb (RBAC grants system:anonymous only get)', async () => {
    const { url } = await start();
    const del = await request(`${url}/healthz`, { method: 'DELETE', ca: tls.caCert });
    expect(del.status).toBe(403);
    expect(JSON.parse(del.body)).toMatchObject({
      reason: 'Forbidden',
      message: 'forbidden: User "system:anonymous" cannot delete path "/healthz"',
    });
  });

  it('a resource without a token: 403 naming the resource, as kube words it', async () => {
    const { url } = await start();
    const r = await get(`${url}/apis/example.com/v1/namespaces/default/widgets/w1`);
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({
      message:
        'widgets.example.com "w1" is forbidden: User "system:anonymous" cannot get resource "widgets" in API group "example.com" in the namespace "default"',
      details: { name: 'w1', group: 'example.com', kind: 'widgets' },
    });
  });

  it.each(['/api', '/healthz', '/version'])(
    '%s without a token and --anonymous-auth=false: 401 Status',
    async (path) => {
      const { url, seen } = await start(undefined, true, false);
      const r = await get(url + path);
      expect(r.status).toBe(401);
      expect(JSON.parse(r.body)).toEqual(unauthorized);
      expect(seen).toEqual([]);
    },
  );

  it.each(['/api', '/healthz', '/version'])('%s with a wrong token: 401, public paths too (as kube)', async (path) => {
    const { url } = await start();
    const r = await get(url + path, 'wrong');
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toEqual(unauthorized);
  });

  it('hands authenticated requests to the API with the user, credential removed', async () => {
    const { url, seen } = await start();
    const r = await get(`${url}/api/v1/namespaces?limit=1`, TOKEN);
    expect(r.status).toBe(200);
    expect(r.body).toBe('{"kind":"Fake"}');
    expect(seen).toEqual([{ path: '/api/v1/namespaces?limit=1', user: ADMIN, authorization: undefined }]);
  });

  it('a failing API handler still answers a Status', async () => {
    const { url } = await start(async () => {
      throw new Error('kaput');
    });
    const r = await get(`${url}/api`, TOKEN);
    expect(r.status).toBe(500);
    expect(JSON.parse(r.body)).toMatchObject({
      kind: 'Status',
      reason: 'InternalError',
      message: 'Internal error occurred: kaput',
      code: 500,
    });
  });
});

describe('authenticated non-API paths', () => {
  it("/metrics counts requests with kube's labels (an anonymous refusal without its path)", async () => {
    const { url } = await start();
    await get(`${url}/api`, TOKEN);
    await get(`${url}/api`);
    await request(`${url}/api/v1/namespaces`, { ca: tls.caCert, token: TOKEN, method: 'POST', body: '{}' });
    const r = await get(`${url}/metrics`, TOKEN);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(r.body).toContain(
      'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/api",verb="GET",version=""} 1\n',
    );
    expect(r.body).toContain(
      'apiserver_request_total{code="403",component="apiserver",dry_run="",group="",resource="",scope="",subresource="",verb="GET",version=""} 1\n',
    );
    expect(r.body).toContain(
      'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="namespaces",scope="resource",subresource="",verb="POST",version="v1"} 1\n',
    );
    expect(r.body).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 1\n'); // this very request
    expect(r.body).toContain(
      'apiserver_request_duration_seconds_bucket{le="60",component="apiserver",dry_run="",group="",resource="namespaces",scope="resource",subresource="",verb="POST",version="v1"} 1\n',
    );
    expect(r.body).toContain('process_start_time_seconds ');
    expect(r.body).toContain('nodejs_heap_size_used_bytes ');
  });

  it('/metrics counts each server apart', async () => {
    const a = await start();
    const b = await start();
    await get(`${a.url}/api`, TOKEN);
    await get(`${a.url}/api`, TOKEN);
    await get(`${b.url}/api`, TOKEN);
    const line = (n: number): string =>
      `apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/api",verb="GET",version=""} ${n}\n`;
    expect((await get(`${a.url}/metrics`, TOKEN)).body).toContain(line(2));
    expect((await get(`${b.url}/metrics`, TOKEN)).body).toContain(line(1));
  });

  it('GETs of one URL, the line parsed once and shared, and of a URL too long to keep: each counted under its labels', async () => {
    const { url, seen } = await start();
    const pods = '/api/v1/namespaces/ns/pods?labelSelector=app%3Dweb';
    const long = `/api/v1/namespaces/ns/configmaps/${'x'.repeat(2100)}`;
    for (let i = 0; i < 3; i++) {
      expect((await get(`${url}${pods}`, TOKEN)).status).toBe(200);
      expect((await get(`${url}${long}`, TOKEN)).status).toBe(200);
    }
    expect(seen.map((s) => s.path)).toEqual([pods, long, pods, long, pods, long]);
    const body = (await get(`${url}/metrics`, TOKEN)).body;
    expect(body).toContain(
      'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 3\n',
    );
    expect(body).toContain(
      'apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="GET",version="v1"} 3\n',
    );
  });

  it('/readyz/<check> gives the reason; an unknown check goes to the API', async () => {
    const { url, seen } = await start(undefined, false);
    expect(await get(`${url}/readyz/ping`, TOKEN)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(`${url}/readyz/sqlite`, TOKEN)).toMatchObject({
      status: 500,
      body: 'internal server error: database is closed\n',
    });
    await get(`${url}/readyz/nope`, TOKEN);
    expect(seen.map((s) => s.path)).toEqual(['/readyz/nope']);
  });
});

describe('graceful shutdown', () => {
  it('lets an in-flight request finish, refuses new connections, fails /readyz meanwhile', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const { frontend, url } = await start(async (_req, res) => {
      entered();
      await released;
      res.writeHead(200);
      res.end('done');
    });
    const slow = get(`${url}/api/slow`, TOKEN);
    await inside;
    frontend.stopAccepting();
    await expect(get(`${url}/readyz`)).rejects.toThrow(/ECONNREFUSED/);
    const drained = frontend.drain(5000, false);
    setTimeout(release, 100);
    await drained;
    const r = await slow;
    expect(r).toMatchObject({ status: 200, body: 'done' });
    expect(r.headers.connection).toBe('close');
    await frontend.forceClose();
  });

  it('does not wait for watches past the bound, and cuts them on forceClose', async () => {
    const { frontend, url } = await start(async (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"type":"ADDED"}\n');
    });
    let open = true;
    let opened!: () => void;
    const inFlight = new Promise<void>((r) => (opened = r));
    const watch = new Promise<{ first: string; ended: string }>((resolve, reject) => {
      const req = httpsRequest(
        `${url}/api/v1/namespaces?watch=true`,
        { ca: tls.caCert, headers: { authorization: `Bearer ${TOKEN}` }, agent: false },
        (res) => {
          let first = '';
          const end = (ended: string) => {
            open = false;
            resolve({ first, ended });
          };
          res.once('data', (c: Buffer) => {
            first = c.toString();
            opened();
          });
          res.on('error', () => end('error'));
          res.on('end', () => end('end'));
          res.on('close', () => end('close'));
        },
      );
      req.on('error', reject);
      req.end();
    });
    await inFlight; // the server holds the watch
    frontend.stopAccepting();
    // Watches do not hold the first drain: given ten minutes, it is over while the watch is open.
    await frontend.drain(600_000, false);
    expect(open).toBe(true);
    // The second waits for them, up to its bound: past a timer of half the bound set first (timers
    // on one loop fire in expiry order), and it gives up with the watch still open.
    const halfway = timerFired(100);
    await frontend.drain(200, true);
    expect(halfway()).toBe(true);
    expect(open).toBe(true);
    await frontend.forceClose();
    const w = await watch;
    expect(w.first).toBe('{"type":"ADDED"}\n');
    expect(['error', 'close', 'end']).toContain(w.ended);
  });
});

describe('TLS', () => {
  /** The protocol and cipher suite a TLS client offering `opts` gets, or the handshake's error. */
  const negotiated = (url: string, opts: ConnectionOptions): Promise<string> =>
    new Promise((resolve) => {
      const { hostname, port } = new URL(url);
      const socket = tlsConnect({ host: hostname, port: Number(port), ca: tls.caCert, ...opts }, () => {
        resolve(`${socket.getProtocol()} ${socket.getCipher().standardName}`);
        socket.end();
      });
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });

  it("negotiates Go's cipher suites in Go's order, as kube-apiserver does", async () => {
    const { url } = await start();
    // OpenSSL's clients put AES-256-GCM first; Go's server takes AES-128-GCM.
    expect(await negotiated(url, {})).toBe('TLSv1.3 TLS_AES_128_GCM_SHA256');
    expect(await negotiated(url, { maxVersion: 'TLSv1.2' })).toBe('TLSv1.2 TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256');
    // A client without AES hardware says so by putting ChaCha20 first.
    expect(
      await negotiated(url, { ciphers: 'TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384' }),
    ).toBe('TLSv1.3 TLS_CHACHA20_POLY1305_SHA256');
    // CBC with SHA-256 MACs is not among Go's defaults.
    expect(await negotiated(url, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA256' })).toMatch(
      /HANDSHAKE_FAILURE|handshake failure/i,
    );
  });

  it('resumes TLS 1.2 sessions', async () => {
    const { url } = await start();
    const { hostname, port } = new URL(url);
    const connect = (session?: Buffer): Promise<{ reused: boolean; session: Buffer | undefined }> =>
      new Promise((resolve, reject) => {
        const socket = tlsConnect(
          {
            host: hostname,
            port: Number(port),
            ca: tls.caCert,
            maxVersion: 'TLSv1.2',
            ...(session ? { session } : {}),
          },
          () => {
            resolve({ reused: socket.isSessionReused(), session: socket.getSession() });
            socket.end();
          },
        );
        socket.on('error', reject);
      });
    const first = await connect();
    expect(first.reused).toBe(false);
    expect((await connect(first.session)).reused).toBe(true);
  });
});
