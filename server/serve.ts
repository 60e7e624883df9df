// The HTTPS front door: one node:https server, one plain function per request (no middleware
// stack on the hot path). It answers the public health and version paths itself, authenticates
// everything else, serves /metrics and the per-check health paths, and hands the rest to the API
// layer. It also owns the connection side of graceful shutdown.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { refuseUpgrade } from './endpoints/watch-websocket.js';
import { type ApiError, internalError, serviceUnavailable, unauthorized } from './errors.js';
import type { Logger } from './log.js';
import type { ApiHandler } from './pipeline/types.js';
import type { AuthResult } from './authn/bearer.js';
import { type HealthCheck, type HealthResponse, pingCheck, runHealth, runSingleCheck, shutdownCheck } from './health.js';
import { METRICS_CONTENT_TYPE, Metrics, requestKind } from './metrics.js';
import type { VersionInfo } from './version.js';
import type { KeyPair } from './pki.js';
import { hostPort } from './kubeconfig.js';
import { StartupError } from './options.js';

export interface FrontendDeps {
  tls: KeyPair;
  api: ApiHandler;
  authenticate(req: IncomingMessage): AuthResult;
  /** The storage backend's readiness check. */
  storageCheck: HealthCheck;
  version: VersionInfo;
  logger: Logger;
}

/** Go's strconv.ParseBool true values, which kube uses for ?watch. */
const TRUE_VALUES = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
/** The legacy /watch/ path prefix: /api/v1/watch/..., /apis/<group>/<version>/watch/... */
const WATCH_PATH = /^\/(?:api\/[^/]+|apis\/[^/]+\/[^/]+)\/watch(?:\/|$)/;

export function isWatchRequest(path: string, query: URLSearchParams | undefined): boolean {
  const watch = query?.get('watch');
  return (watch != null && TRUE_VALUES.has(watch)) || WATCH_PATH.test(path);
}

type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

const TEXT_HEADERS = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };

function send(res: ServerResponse, code: number, body: string, headers: Record<string, string>): void {
  if (res.headersSent) {
    // Mid-stream there is no status left to send: cut the connection so the client sees an error.
    res.destroy();
    return;
  }
  res.writeHead(code, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

export const sendStatus = (res: ServerResponse, err: ApiError): void =>
  send(res, err.code, JSON.stringify(err.status), { 'Content-Type': 'application/json' });

function listenError(err: NodeJS.ErrnoException, port: number, host: string): Error {
  switch (err.code) {
    case 'EADDRINUSE':
      return new StartupError(`port ${port} on ${host} is already in use`);
    case 'EACCES':
      return new StartupError(`permission denied to listen on port ${port} of ${host}`);
    case 'EADDRNOTAVAIL':
      return new StartupError(`address ${host} is not an address of this host`);
    default:
      return new StartupError(`cannot listen on ${hostPort(host, port)}: ${err.message}`);
  }
}

export class HttpsFrontend {
  readonly metrics = new Metrics();
  private readonly server: Server;
  private readonly versionBody: string;
  private readonly checks: Record<HealthEndpoint, HealthCheck[]>;
  /** In-flight responses, each marked long-running (a watch) or not. */
  private readonly inflight = new Map<ServerResponse, boolean>();
  private readonly sockets = new Set<Socket>();
  private shuttingDown = false;
  /** Settles when the listener and every connection have closed; set by stopAccepting. */
  private closed: Promise<void> | undefined;

  constructor(private readonly deps: FrontendDeps) {
    this.versionBody = JSON.stringify(deps.version, null, 2);
    const shutdown = shutdownCheck(() => this.shuttingDown);
    this.checks = {
      healthz: [pingCheck, deps.storageCheck],
      livez: [pingCheck],
      readyz: [pingCheck, deps.storageCheck, shutdown],
    };
    this.server = createServer({ cert: deps.tls.cert, key: deps.tls.key, minVersion: 'TLSv1.2', handshakeTimeout: 10_000 }, (req, res) =>
      this.onRequest(req, res),
    );
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server.on('tlsClientError', (err) => deps.logger.debug('TLS handshake error', { err: err.message }));
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(req, socket, head));
  }

  /** WebSocket upgrades (watches): authenticated here, everything else is the API's. */
  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', (err) => this.deps.logger.debug('upgraded connection error', { err: err.message }));
    const auth = this.deps.authenticate(req);
    if (auth.kind !== 'user') return refuseUpgrade(socket, unauthorized());
    if (this.shuttingDown) return refuseUpgrade(socket, serviceUnavailable('the server is shutting down'));
    this.deps.api.handleUpgrade(req, socket, head, auth.user).catch((err: unknown) => {
      this.deps.logger.error('upgrade failed', { uri: req.url, err: err instanceof Error ? err.stack : String(err) });
      socket.destroy();
    });
  }

  /** Resolves with the port bound (the ephemeral one for 0). */
  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => reject(listenError(err, port, host));
      this.server.once('error', onError);
      this.server.listen({ port, host }, () => {
        this.server.off('error', onError);
        this.server.on('error', (err) => this.deps.logger.error('server error', { err: err.message }));
        const addr = this.server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : port);
      });
    });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const start = performance.now();
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? undefined : new URLSearchParams(url.slice(q + 1));
    const longRunning = isWatchRequest(path, query);
    const kind = requestKind(method);
    const ctx: { user?: string } = {};
    this.metrics.started(kind, longRunning);
    this.inflight.set(res, longRunning);
    // As kube's WithCacheControl: API answers are per user and change; discovery may override.
    res.setHeader('Cache-Control', 'no-cache, private');
    if (this.shuttingDown) res.setHeader('Connection', 'close');
    res.once('close', () => {
      this.inflight.delete(res);
      this.metrics.finished(kind, longRunning, longRunning ? 'WATCH' : method, res.statusCode);
      this.deps.logger.debug('request', {
        verb: method,
        uri: url,
        code: res.statusCode,
        latencyMs: Math.round((performance.now() - start) * 1000) / 1000,
        user: ctx.user,
        userAgent: req.headers['user-agent'],
        srcIP: req.socket.remoteAddress,
      });
    });
    this.dispatch(req, res, path, query, ctx).catch((err: unknown) => {
      this.deps.logger.error('request failed', { verb: method, uri: url, err: err instanceof Error ? err.stack : String(err) });
      sendStatus(res, internalError(err));
    });
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams | undefined, ctx: { user?: string }): Promise<void> {
    const auth = this.deps.authenticate(req);
    if (auth.kind === 'invalid') return sendStatus(res, unauthorized());
    // Public, as kube's system:public-info-viewer role grants them to everyone.
    switch (path) {
      case '/version':
      case '/version/':
        return send(res, 200, this.versionBody, { 'Content-Type': 'application/json' });
      case '/healthz':
      case '/livez':
      case '/readyz':
        return this.serveHealth(res, path.slice(1) as HealthEndpoint, query ?? new URLSearchParams());
    }
    if (auth.kind === 'anonymous') return sendStatus(res, unauthorized());
    ctx.user = auth.user.name;
    if (path === '/metrics') return send(res, 200, this.metrics.render(), { 'Content-Type': METRICS_CONTENT_TYPE });
    const single = this.singleCheck(path);
    if (single) return this.writeHealth(res, await runSingleCheck(single));
    return this.deps.api.handle(req, res, auth.user);
  }

  private async serveHealth(res: ServerResponse, endpoint: HealthEndpoint, query: URLSearchParams): Promise<void> {
    const report = await runHealth(endpoint, this.checks[endpoint], query);
    if (report.code !== 200) {
      const failed = report.results.flatMap((r) => (r.status === 'failed' ? [`${r.name}: ${r.reason}`] : []));
      this.deps.logger.debug(`${endpoint} check failed`, { failed });
    }
    this.writeHealth(res, report);
  }

  private writeHealth(res: ServerResponse, r: HealthResponse): void {
    send(res, r.code, r.body, TEXT_HEADERS);
  }

  /** /livez/ping, /readyz/etcd, ...: one check, its failure reason shown (hence authenticated). */
  private singleCheck(path: string): HealthCheck | undefined {
    const m = /^\/(healthz|livez|readyz)\/([^/]+)$/.exec(path);
    return m ? this.checks[m[1] as HealthEndpoint].find((c) => c.name === m[2]) : undefined;
  }

  /**
   * Begins shutdown: /readyz fails, the listener closes, idle keep-alive connections close, and
   * every response from now on asks the client to close its connection.
   */
  stopAccepting(): void {
    if (this.closed) return;
    this.shuttingDown = true;
    this.closed = new Promise((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    for (const res of this.inflight.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
  }

  /** Waits, at most `timeoutMs`, for in-flight requests (watches too, if asked) to finish. */
  async drain(timeoutMs: number, includeLongRunning: boolean): Promise<void> {
    const busy = (): boolean => [...this.inflight.values()].some((long) => includeLongRunning || !long);
    const deadline = Date.now() + timeoutMs;
    while (busy() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    this.server.closeIdleConnections();
  }

  /** Cuts whatever connections remain; resolves once the server has fully closed. */
  async forceClose(): Promise<void> {
    this.stopAccepting();
    for (const socket of this.sockets) socket.destroy();
    await this.closed;
  }
}
