// The HTTPS front door: one node:https server, one plain function per request (no middleware
// stack on the hot path). It parses each request's info once, answers the public health and
// version paths itself, authenticates everything else, applies kube's in-flight limits and
// request timeout, serves /metrics and the per-check health paths, and hands the rest to the API
// layer. It owns the connection limits (header size, header and idle timeouts) and the
// connection side of graceful shutdown. Nothing a client does to its connection may throw out of
// here: every listener that runs after a socket may have gone reads only what it captured before.
import { constants as cryptoConstants } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { refuseUpgrade } from './endpoints/watch/websocket.js';
import { writeStatus } from './endpoints/respond.js';
import {
  ApiError,
  internalError,
  serviceUnavailable,
  timeout,
  toApiError,
  unauthorized,
} from '../apimachinery/errors.js';
import type { Logger } from '../apimachinery/log.js';
import type { ApiHandler } from './pipeline/types.js';
import { type AccessDeps, type Identity, authorizeRequest, identify } from './pipeline/access.js';
import { requestAttributes } from './authz/authorizer.js';
import type { AuthorizationAttributes } from '../apimachinery/authorization.js';
import { AUDIT_ID_HEADER, type AuditRecorder, type Auditor, auditIDFrom, sourceIPs } from './audit/event.js';
import { setAuditRecorder } from './audit/context.js';
import {
  type HealthCheck,
  type HealthResponse,
  pingCheck,
  runHealth,
  runSingleCheck,
  shutdownCheck,
} from './health.js';
import { METRICS_CONTENT_TYPE, Metrics, type TrackedRequest } from './metrics.js';
import { type RequestLabels, requestLabels } from './metrics/request-labels.js';
import { type RequestInfo, isLongRunning, parseRequestInfo } from './request/request-info.js';
import { MaxInflight, requestKind } from './pipeline/max-inflight.js';
import { LoopSaturation } from './pipeline/saturation.js';
import { RequestTimeouts } from './pipeline/request-timeouts.js';
import type { VersionInfo } from './version.js';
import type { KeyPair } from './pki.js';
import { hostPort } from './kubeconfig.js';
import { DEFAULT_SERVING_LIMITS, type ServingLimits } from './options.js';
import { flagError } from './startup/errors.js';

interface FrontendDeps {
  /** The listener bindSecurePort made, which the frontend serves on. */
  securePort: SecurePort;
  /** The serving certificate, and the CA client certificates are verified against (--client-ca-file). */
  tls: KeyPair & { clientCA?: string };
  api: ApiHandler;
  /** Authentication, impersonation and authorization. */
  access: AccessDeps;
  /** --audit-policy-file and its backend; absent: nothing is audited. */
  auditor?: Auditor;
  /** The storage backend's readiness check. */
  storageCheck: HealthCheck;
  version: VersionInfo;
  logger: Logger;
  /** What /metrics shows; made here if not given (given, it can time storage calls from the start). */
  metrics?: Metrics;
}

/**
 * The cipher suites kube-apiserver offers without --tls-cipher-suites (Go's crypto/tls defaults),
 * in Go's order, the server's choosing: TLS 1.3's AES-128-GCM where OpenSSL would take an OpenSSL
 * client's first choice, AES-256-GCM; for TLS 1.2, ECDHE with an AEAD, then ECDHE with CBC, no RSA
 * key exchange. ChaCha20 goes first for a client that puts it first (one without AES hardware), as
 * Go's server does.
 */
const GO_CIPHER_PREFERENCE = {
  ciphers: [
    'TLS_AES_128_GCM_SHA256',
    'TLS_AES_256_GCM_SHA384',
    'TLS_CHACHA20_POLY1305_SHA256',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384',
    'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305',
    'ECDHE-RSA-CHACHA20-POLY1305',
    'ECDHE-ECDSA-AES128-SHA',
    'ECDHE-RSA-AES128-SHA',
    'ECDHE-ECDSA-AES256-SHA',
    'ECDHE-RSA-AES256-SHA',
  ].join(':'),
  honorCipherOrder: true,
  secureOptions: cryptoConstants.SSL_OP_PRIORITIZE_CHACHA,
};

/** kube's Retry-After for a request refused by the in-flight limits. */
const RETRY_AFTER_S = '1';
/**
 * How long the rest of a refused upload is read and dropped: cut while the client still writes, its
 * kernel may drop the answer it has not read yet (a reset instead of the 413). Long enough for a
 * client on a busy machine to finish a 3 MiB upload.
 */
const LINGER_MS = 5000;

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

/**
 * An answer on a raw connection the HTTP parser gave up on (Go's net/http answers these the same
 * way): closed after the answer. The parser keeps failing on what the client still sends, which is
 * so dropped (onClientError) until the client closes too, or LINGER_MS passes: closing at once
 * would reset the answer away.
 */
function answerAndClose(socket: Duplex, code: number): void {
  const text = `${code} ${STATUS_CODES[code] ?? ''}`;
  socket.end(
    `HTTP/1.1 ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: ${text.length}\r\n\r\n${text}`,
  );
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * After an answer sent before the request's body was read (a 413, a 401): the rest of the body is
 * read and dropped, as Go's server does, so that the connection carries on with the client's next
 * request, which the answer's keep-alive promised. A body still coming after LINGER_MS costs the
 * connection.
 */
function dropRestOfBody(req: IncomingMessage): void {
  const socket = req.socket;
  if (!socket || socket.destroyed) return;
  const cut = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  req.once('end', () => clearTimeout(cut));
  req.resume();
}

/** Whether the client sent a certificate in its TLS handshake (one the authenticator then refused, for a 401). */
function presentedCertificate(req: IncomingMessage): boolean {
  const socket = req.socket as TLSSocket;
  return typeof socket.getPeerCertificate === 'function' && Object.keys(socket.getPeerCertificate()).length > 0;
}

/** kube's tooManyRequests: Go's http.Error, plain text, with Retry-After. */
function tooManyRequests(res: ServerResponse): void {
  send(res, 429, 'Too many requests, please try again later.\n', { ...TEXT_HEADERS, 'Retry-After': RETRY_AFTER_S });
}

/** What a request's method and URL tell every layer after this one, parsed once. */
interface RequestLine {
  path: string;
  query: URLSearchParams;
  info: RequestInfo | ApiError;
  /** Its metric labels, kept with a GET's line (they follow from it alone: only a PATCH's Content-Type counts). */
  labels?: RequestLabels;
}

/** The path, query and kube request info of a request. */
function parseRequest(method: string, url: string): RequestLine {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  try {
    return { path, query, info: parseRequestInfo(method, path, query) };
  } catch (err) {
    return { path, query, info: toApiError(err) };
  }
}

/**
 * How many URLs' GET lines are kept: clients GET the same few URLs again and again (an informer's
 * relist, a controller's reads, probes). Past this many the whole map is dropped and starts over.
 */
const MAX_GET_LINES = 1024;
/** Longer URLs are parsed each time: kept, a client's megabyte-long URLs would hold a gigabyte. */
const MAX_KEPT_URL_LENGTH = 2048;

/** What a request's stages learn for its end (the response's close): who it was, and the in-flight slot to give back. */
interface RequestContext {
  user?: string;
  release?: () => void;
  /** The answer is done with (sent, or its client gone): a slot taken after this is given back at once. */
  closed?: boolean;
}

/** The paths anyone may GET, as kube's system:public-info-viewer role grants them. */
const PUBLIC_PATHS = new Set(['/version', '/version/', '/healthz', '/livez', '/readyz']);

function listenError(err: NodeJS.ErrnoException, port: number, host: string): Error {
  switch (err.code) {
    case 'EADDRINUSE':
      return flagError('secure-port', `port ${port} on ${host} is already in use`);
    case 'EACCES':
      return flagError('secure-port', `permission denied to listen on port ${port} of ${host}`);
    case 'EADDRNOTAVAIL':
      return flagError('bind-address', `address ${host} is not an address of this host`);
    default:
      return flagError('secure-port', `cannot listen on ${hostPort(host, port)}: ${err.message}`);
  }
}

/** The secure port, bound and with the connection limits, before its certificate and handler exist. */
interface SecurePort {
  readonly server: Server;
  /** The port bound (the ephemeral one for 0). */
  readonly port: number;
  readonly limits: ServingLimits;
}

/**
 * Binds the secure port: first at start-up, so a port in use or not permitted ends the start
 * before any key is generated or storage dialled. The server has no certificate until an
 * HttpsFrontend takes it, so no handshake, hence no request, completes before the server is whole.
 */
export function bindSecurePort(
  port: number,
  host: string,
  o: { limits?: ServingLimits; clientCertificates?: boolean } = {},
): Promise<SecurePort> {
  const limits = o.limits ?? DEFAULT_SERVING_LIMITS;
  const server = createServer({
    // Asked for, never required: a certificate authenticates (x509), its absence lets tokens do.
    ...(o.clientCertificates ? { requestCert: true, rejectUnauthorized: false } : {}),
    minVersion: 'TLSv1.2',
    handshakeTimeout: 10_000,
    maxHeaderSize: limits.maxHeaderBytes,
    // node counts it from the connection's first byte (the first request) or the last
    // response (later ones), so a connection that never sends a full request is cut too.
    headersTimeout: limits.readHeaderTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    // Ours is kube's --request-timeout with its 504 (onRequest); node's own would answer 408.
    requestTimeout: 0,
    // How often node looks for connections past headersTimeout (its default, 30 s, would let
    // a slowloris connection live almost twice as long).
    connectionsCheckingInterval: Math.min(1000, limits.readHeaderTimeoutMs),
  });
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => reject(listenError(err, port, host));
    server.once('error', onError);
    server.listen({ port, host }, () => {
      server.off('error', onError);
      const addr = server.address();
      resolve({ server, port: typeof addr === 'object' && addr ? addr.port : port, limits });
    });
  });
}

export class HttpsFrontend {
  readonly metrics: Metrics;
  private readonly server: Server;
  private readonly versionBody: string;
  private readonly checks: Record<HealthEndpoint, HealthCheck[]>;
  /** In-flight responses, each marked long-running (a watch) or not. */
  private readonly inflight = new Map<ServerResponse, boolean>();
  private readonly limits: ServingLimits;
  private readonly maxInflight: MaxInflight;
  private readonly saturation: LoopSaturation;
  /** kube's request timeout of every request but the long-running ones. */
  private readonly timeouts: RequestTimeouts<ServerResponse>;
  private readonly sockets = new Set<Socket>();
  /**
   * GET lines by URL, parsed once and shared by every GET of the URL: their query and info are
   * read-only, as every layer already treats them (nothing after parseRequestInfo writes either).
   */
  private readonly getLines = new Map<string, RequestLine>();
  /**
   * A client that goes away mid-request makes its request and response emit errors: they are its,
   * not ours. One listener each for every request (`this` is the stream), not a closure per request.
   */
  private readonly onRequestError: (this: IncomingMessage, err: Error) => void;
  private readonly onResponseError: (this: ServerResponse, err: Error) => void;
  private shuttingDown = false;
  /** Settles when the listener and every connection have closed; set by stopAccepting. */
  private closed: Promise<void> | undefined;

  constructor(private readonly deps: FrontendDeps) {
    this.metrics = deps.metrics ?? new Metrics();
    const logger = deps.logger;
    this.onRequestError = function (err) {
      logger.debug('request stream error', { uri: this.url, err: err.message });
    };
    this.onResponseError = function (err) {
      logger.debug('response stream error', { uri: this.req.url, err: err.message });
    };
    this.versionBody = JSON.stringify(deps.version, null, 2);
    const shutdown = shutdownCheck(() => this.shuttingDown);
    this.checks = {
      healthz: [pingCheck, deps.storageCheck],
      livez: [pingCheck],
      readyz: [pingCheck, deps.storageCheck, shutdown],
    };
    this.limits = deps.securePort.limits;
    this.saturation = new LoopSaturation(this.limits.maxEventLoopUtilization);
    this.maxInflight = new MaxInflight(this.limits.inflight, () => this.saturation.saturated());
    this.timeouts = new RequestTimeouts(this.limits.requestTimeoutMs, (res) => this.timedOut(res.req, res));
    this.server = deps.securePort.server;
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => this.onRequest(req, res));
    this.server.on('error', (err) => deps.logger.error('server error', { err: err.message }));
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // Node's HTTP parser reads a TLS socket straight from its native stream, and pauses itself
    // when a request arrives while answers are still queued (an answer over the socket's 16 KiB
    // buffer, or pipelined requests). The TLS layer still hands it the rest of what it has already
    // decrypted, which a paused parser refuses (HPE_PAUSED): a 400 or a reset for a request that
    // was fine. A 'data' listener makes node feed the parser from the socket's stream events
    // instead, which honour the pause; the listener itself has nothing to do.
    this.server.on('secureConnection', (socket: TLSSocket) => socket.on('data', () => {}));
    this.server.on('tlsClientError', (err) => deps.logger.debug('TLS handshake error', { err: err.message }));
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => this.onClientError(err, socket));
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.onUpgrade(req, socket, head),
    );
    // Last: from here handshakes complete and requests arrive.
    this.server.setSecureContext({
      cert: deps.tls.cert,
      key: deps.tls.key,
      minVersion: 'TLSv1.2',
      ...GO_CIPHER_PREFERENCE,
      ...(deps.tls.clientCA ? { ca: deps.tls.clientCA } : {}),
    });
  }

  /** WebSocket upgrades (watches): authenticated here, everything else is the API's. */
  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', (err) => this.deps.logger.debug('upgraded connection error', { err: err.message }));
    const method = req.method ?? 'GET';
    const line = parseRequest(method, req.url ?? '/');
    const { query, info } = line;
    const ctx: { user?: string } = {};
    // In /metrics as any request, until the connection closes: 101 once upgraded (kube's hijacked
    // connections report code 0, kubernetes#107949), else the refusal's code.
    const tracked = this.track(req, method, line, ctx);
    const longRunning = tracked.longRunning;
    const auditID = auditIDFrom(req.headers['audit-id']);
    let rec: AuditRecorder | undefined;
    // Set when the 101 or a refusal is written; unset, the client left before either.
    let code: number | undefined;
    socket.once('close', () => {
      this.metrics.finished(tracked, code ?? 0, code !== undefined);
      rec?.complete(code);
    });
    const refuse = (err: ApiError): void => {
      code = err.code;
      // An answer like any other, which kube's httplog logs at V(3): the client's, not a server error.
      this.deps.logger.debug('upgrade refused', { uri: req.url, code });
      rec?.responseObject(err.status);
      refuseUpgrade(socket, err, { [AUDIT_ID_HEADER]: auditID });
    };
    // As a request: authenticated, audited, impersonated and authorized in kube's filter order.
    const upgrade = async (): Promise<void> => {
      const identity = await identify(req, this.deps.access);
      const user = identity.user;
      if (user) ctx.user = user.name;
      const attributes = user && !(info instanceof ApiError) ? requestAttributes(user, info) : undefined;
      if (this.deps.auditor) rec = this.beginAudit(this.deps.auditor, req, identity, attributes, longRunning, auditID);
      if (identity.error) return refuse(identity.error);
      if (this.shuttingDown) return refuse(serviceUnavailable('the server is shutting down'));
      if (info instanceof ApiError || !user || !attributes)
        return refuse(info instanceof ApiError ? info : unauthorized());
      const { result, error } = authorizeRequest(attributes, this.deps.access.authorizer);
      rec?.authorized(result);
      if (error) return refuse(error);
      await this.deps.api.handleUpgrade(req, socket, head, user, { info, query }, () => {
        code = 101;
        rec?.responseStarted(101);
      });
    };
    upgrade().catch((err: unknown) => {
      const apiError = toApiError(err);
      // Only what is no Status is the server's error (kube's ErrorToAPIStatus logs it).
      if (!(err instanceof ApiError))
        this.deps.logger.error('upgrade failed', { uri: req.url, err: err instanceof Error ? err.stack : String(err) });
      // Past the 101 the socket speaks WebSocket: no HTTP answer can follow.
      if (code === 101) socket.destroy();
      else refuse(apiError);
    });
  }

  /** The HTTP parser refused a request (headers too large or too slow, malformed): answer as Go does. */
  private onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
    this.deps.logger.debug('bad request from client', { err: err.code ?? err.message });
    if (socket.destroyed || err.code === 'ECONNRESET') return void socket.destroy();
    // Answered and closing already (here, or by node after a `Connection: close` answer): what the
    // client still sends fails to parse again and again, and is dropped until the close.
    if (socket.writableEnded) return;
    const code = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    answerAndClose(socket, code);
  }

  /**
   * The request in /metrics from its start: its kind and whether it is long-running, from its
   * request info.
   */
  private track(req: IncomingMessage, method: string, line: RequestLine, ctx: { user?: string }): TrackedRequest {
    const { query, info, labels } = line;
    const verb = info instanceof ApiError ? method.toLowerCase() : info.verb;
    const longRunning = !(info instanceof ApiError) && isLongRunning(info);
    return this.metrics.started({
      labels: labels ?? requestLabels({ method, query, contentType: req.headers['content-type'], info }),
      info,
      kind: requestKind(verb),
      longRunning,
      user: () => ctx.user,
    });
  }

  /** A GET's line, parsed at the URL's first GET (kept when kube's request info could read it and the URL is short). */
  private getLine(url: string): RequestLine {
    const kept = this.getLines.get(url);
    if (kept) return kept;
    const line = parseRequest('GET', url);
    if (line.info instanceof ApiError || url.length > MAX_KEPT_URL_LENGTH) return line;
    line.labels = requestLabels({ method: 'GET', query: line.query, contentType: undefined, info: line.info });
    if (this.getLines.size >= MAX_GET_LINES) this.getLines.clear();
    this.getLines.set(url, line);
    return line;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    // Read now: once the connection is gone, req.socket is null.
    const srcIP = req.socket.remoteAddress;
    const line = method === 'GET' ? this.getLine(url) : parseRequest(method, url);
    const { path, query, info } = line;
    const ctx: RequestContext = {};
    const tracked = this.track(req, method, line, ctx);
    const longRunning = tracked.longRunning;
    this.inflight.set(res, longRunning);
    req.on('error', this.onRequestError);
    res.on('error', this.onResponseError);
    // As kube's WithCacheControl: API answers are per user and change; discovery may override.
    res.setHeader('Cache-Control', 'no-cache, private');
    // kube's WithAuditInit: the client's Audit-ID, else a new one, echoed whether or not anything audits.
    const auditID = auditIDFrom(req.headers['audit-id']);
    res.setHeader(AUDIT_ID_HEADER, auditID);
    if (this.shuttingDown) res.setHeader('Connection', 'close');
    if (!longRunning) this.timeouts.start(res);
    res.once('close', () => {
      // Answered before its body was all read (a 413, a 401): the rest is read and dropped.
      if (res.writableFinished && !req.complete) dropRestOfBody(req);
      ctx.closed = true;
      if (!longRunning) this.timeouts.done(res);
      ctx.release?.();
      this.inflight.delete(res);
      this.metrics.finished(tracked, res.statusCode, res.headersSent);
      if (this.deps.logger.enabled('debug'))
        this.deps.logger.debug('request', {
          verb: method,
          uri: url,
          code: res.statusCode,
          latencyMs: Math.round((performance.now() - tracked.start) * 1000) / 1000,
          user: ctx.user,
          userAgent: req.headers['user-agent'],
          srcIP,
        });
    });
    this.dispatch(req, res, path, query, info, longRunning, ctx, auditID).catch((err: unknown) => {
      this.deps.logger.error('request failed', {
        verb: method,
        uri: url,
        err: err instanceof Error ? err.stack : String(err),
      });
      writeStatus(res, internalError(err));
    });
  }

  /** kube's WithTimeoutForNonLongRunningRequests: a 504 if nothing was sent yet, else the connection is cut. */
  private timedOut(req: IncomingMessage, res: ServerResponse): void {
    if (res.headersSent) return void res.destroy();
    this.deps.logger.info('request timed out', {
      verb: req.method,
      uri: req.url,
      timeoutMs: this.limits.requestTimeoutMs,
    });
    res.setHeader('Connection', 'close');
    writeStatus(res, timeout('Timeout: request did not complete within the allotted timeout'));
  }

  private async dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
    info: RequestInfo | ApiError,
    longRunning: boolean,
    ctx: RequestContext,
    auditID: string,
  ): Promise<void> {
    // kube's order: authentication, audit, impersonation, the in-flight limit, then authorization,
    // so a request refused for load costs no authorization decision.
    const identifying = identify(req, this.deps.access);
    const identity = identifying instanceof Promise ? await identifying : identifying;
    const user = identity.user;
    if (user) ctx.user = user.name;
    const attributes = user && !(info instanceof ApiError) ? requestAttributes(user, info) : undefined;
    const rec =
      this.deps.auditor && this.audit(this.deps.auditor, req, res, identity, attributes, longRunning, auditID);
    if (identity.error) return writeStatus(res, identity.error);
    if (info instanceof ApiError || !user || !attributes)
      return writeStatus(res, info instanceof ApiError ? info : unauthorized());
    // Health probes are exempt from the in-flight limits, as kube's "probes" flow schema exempts them.
    const probe = PUBLIC_PATHS.has(path);
    const release = longRunning || probe ? () => {} : this.maxInflight.acquire(requestKind(info.verb), user);
    if (!release) return tooManyRequests(res);
    // A client that left while it was being authenticated took its close with it.
    if (ctx.closed) return release();
    ctx.release = release;
    const { result, error } = authorizeRequest(attributes, this.deps.access.authorizer);
    rec?.authorized(result);
    if (error) return writeStatus(res, error);
    if (probe) {
      if (path.startsWith('/version')) return send(res, 200, this.versionBody, { 'Content-Type': 'application/json' });
      return this.serveHealth(res, path.slice(1) as HealthEndpoint, query);
    }
    if (path === '/metrics')
      return send(res, 200, await this.metrics.render(this.maxInflight.dropped), {
        'Content-Type': METRICS_CONTENT_TYPE,
      });
    const single = this.singleCheck(path);
    if (single) return this.writeHealth(res, await runSingleCheck(single));
    return this.deps.api.handle(req, res, user, { info, query });
  }

  /**
   * kube's WithAudit (and WithFailedAuthenticationAudit for a 401): the policy's level for this
   * request, its events as the response starts and completes. Requests whose path kube's request
   * info could not parse are refused before anything is known to audit.
   */
  private audit(
    auditor: Auditor,
    req: IncomingMessage,
    res: ServerResponse,
    identity: Identity,
    attributes: AuthorizationAttributes | undefined,
    longRunning: boolean,
    auditID: string,
  ): AuditRecorder | undefined {
    const rec = this.beginAudit(auditor, req, identity, attributes, longRunning, auditID);
    if (!rec) return undefined;
    setAuditRecorder(res, rec);
    res.once('close', () => rec.complete(res.headersSent ? res.statusCode : undefined));
    return rec;
  }

  /** The audit events a request (or an upgrade) begins with; its recorder when the policy audits it. */
  private beginAudit(
    auditor: Auditor,
    req: IncomingMessage,
    identity: Identity,
    attributes: AuthorizationAttributes | undefined,
    longRunning: boolean,
    auditID: string,
  ): AuditRecorder | undefined {
    const forwarded = req.headers['x-forwarded-for'];
    const realIp = req.headers['x-real-ip'];
    const input = {
      requestURI: req.url ?? '/',
      sourceIPs: sourceIPs({
        xForwardedFor: Array.isArray(forwarded) ? forwarded.join(',') : forwarded,
        xRealIp: Array.isArray(realIp) ? realIp[0] : realIp,
        remoteAddress: req.socket.remoteAddress,
      }),
      userAgent: req.headers['user-agent'],
      auditID,
      longRunning,
    };
    if (identity.error?.code === 401) {
      const attrs = {
        user: { name: '', groups: [] },
        verb: (req.method ?? '').toLowerCase(),
        resourceRequest: false,
        apiGroup: '',
        apiVersion: '',
        resource: '',
        subresource: '',
        namespace: '',
        name: '',
        path: req.url ?? '/',
      };
      auditor.failedAuthentication(
        { ...input, attrs },
        { bearer: req.headers.authorization !== undefined, x509: presentedCertificate(req) },
      );
      return undefined;
    }
    if (!attributes || !identity.user) return undefined;
    const rec = auditor.begin({ ...input, attrs: { ...attributes, user: identity.requester ?? identity.user } });
    if (!rec.enabled) return undefined;
    if (identity.requester) rec.impersonated(identity.user);
    return rec;
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
    this.saturation.stop();
    for (const socket of this.sockets) socket.destroy();
    await this.closed;
  }
}
