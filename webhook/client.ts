// The HTTPS client kube's webhooks share (k8s.io/apiserver/pkg/util/webhook and client-go's rest
// client as its client manager configures it): CRD conversion webhooks and the dynamic admission
// webhooks call through it.
//
//   - The endpoint comes from a clientConfig: a `url` (https only), or a `service`, turned into
//     kube's https://<name>.<namespace>.svc:<port><path>. kube-apiserver resolves a Service through
//     its endpoints; we have no Services, so the name is dialled through DNS unless the caller
//     passes `serviceResolver`. TLS is verified against `<name>.<namespace>.svc` either way, as kube
//     does. The caBundle is the only set of trusted roots (the system's when there is none).
//   - The deadline covers the whole call, connection included, and travels as `?timeout=<Go
//     duration>` in the URL as the rest client sends it.
//   - Redirects are never followed; the answer is read up to a size cap.
//   - Failures are Go's texts (net, crypto/x509, url.Error, client-go's rest.Result), so they read
//     as they would from kube-apiserver.
//
// This layer imports apimachinery only.
import type { X509Certificate } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { isIP } from 'node:net';
import { posix } from 'node:path';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import { goQuote } from '../apimachinery/field-errors.js';
import { isJsonObject, type JsonObject } from '../apimachinery/object.js';
import { TYPE_META_STRUCT, parseJSON, typeMetaError } from '../apimachinery/json.js';
import { certificatesIn } from './ca-bundle.js';

/** Ours, not kube's (its client reads any size): a bigger webhook answer fails rather than exhaust memory. */
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/** admissionregistration/v1 and apiextensions/v1 WebhookClientConfig. */
export interface WebhookClientConfig {
  url?: string;
  caBundle?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
}

export interface ServiceRef {
  namespace: string;
  name: string;
  port: number;
}

export interface EndpointOptions {
  /**
   * Where to dial a `clientConfig.service` (kube's ServiceResolver). Without it the name
   * `<name>.<namespace>.svc` is looked up in DNS. May throw: its message becomes the dial error.
   */
  serviceResolver?: (service: ServiceRef) => { host: string; port: number };
  /**
   * Why a caBundle cannot be used, in client-go's words (ca-bundle.ts caBundleError), or
   * undefined when it can. Without it every bundle is taken and unparsable certificates skipped.
   */
  caBundleError?: (caBundle: string) => string | undefined;
}

/** Where and how to call a webhook; `display` is the URL as Go prints it in errors. */
export interface WebhookEndpoint {
  display: string;
  hostHeader: string;
  path: string;
  /** The name the certificate must carry (and the SNI name unless it is an IP address). */
  serverName: string;
  dial: () => { host: string; port: number };
  /** PEM certificates to trust instead of the system's. */
  ca?: string[] | undefined;
  caCerts: X509Certificate[];
}

/** A failed call, as a plain Go error: its message is kube's text. */
export class WebhookCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookCallError';
  }
}

/** The raw answer of a webhook. */
export interface HttpResult {
  status: number;
  contentType: string;
  body: Buffer;
}

// ---------------------------------------------------------------------------------------------
// Reading the answer: client-go's Result.Into, up to the decoded document.

const MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES = 2048;

/**
 * Result.Into up to the JSON document: a non-2xx status fails with client-go's text (a Status
 * body's message, else apierrors' generic one), an empty body fails, and the body must decode as
 * JSON whose apiVersion and kind are strings. `null` decodes as `{}`. Throws WebhookCallError.
 */
export function decodeResponse(res: HttpResult): JsonObject {
  if (res.status < 200 || res.status > 206) throw new WebhookCallError(unexpectedResponseError(res));
  // The webhook client's only serializer has no media type, so it decodes any content type.
  const contentType = res.contentType || 'application/json';
  if (res.body.length === 0)
    throw new WebhookCallError(`0-length response with status code: ${res.status} and content type: ${contentType}`);
  let parsed: unknown;
  try {
    parsed = parseJSON(res.body.toString('utf8'));
  } catch (err) {
    const text = res.body.toString('utf8').trimStart();
    // Only `{` goes to the JSON serializer; anything else to the YAML one, which reads text as a string.
    if (!text.startsWith('{'))
      throw new WebhookCallError(
        `couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type ${TYPE_META_STRUCT}`,
      );
    const why = /end of JSON input|Unterminated/i.test((err as Error).message)
      ? 'unexpected end of JSON input'
      : (err as Error).message;
    throw new WebhookCallError(`couldn't get version/kind; json parse error: ${why}`);
  }
  if (parsed === null) return {};
  const why = typeMetaError(parsed);
  if (why !== undefined) throw new WebhookCallError(why);
  // typeMetaError refuses everything but an object.
  return parsed as JsonObject;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A non-2xx answer: a Status body's message, else apierrors.NewGenericServerResponse's text. */
function unexpectedResponseError(res: HttpResult): string {
  try {
    const body: unknown = JSON.parse(res.body.toString('utf8'));
    if (
      isJsonObject(body) &&
      body['kind'] === 'Status' &&
      ['', 'v1'].includes(str(body['apiVersion'])) &&
      body['status'] === 'Failure'
    ) {
      return str(body['message']);
    }
  } catch {
    // not a Status
  }
  const mediaType = res.contentType.split(';')[0]!.trim().toLowerCase();
  const serverMessage = mediaType.startsWith('text/')
    ? res.body.subarray(0, MAX_UNSTRUCTURED_RESPONSE_TEXT_BYTES).toString('utf8').trim()
    : 'unknown';
  switch (res.status) {
    case 409:
      return 'the server reported a conflict';
    case 404:
      return 'the server could not find the requested resource';
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
    case 415:
      return serverMessage;
    case 406:
      return serverMessage === '' || serverMessage === 'unknown'
        ? 'the server was unable to respond with a content type that the client supports'
        : serverMessage;
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
  }
  if (res.status >= 500)
    return `an error on the server (${goQuote(serverMessage)}) has prevented the request from succeeding`;
  return `the server responded with the status code ${res.status} but did not return more information`;
}

// ---------------------------------------------------------------------------------------------
// The endpoint: kube's webhook client config (k8s.io/apiserver/pkg/util/webhook/client.go).

/** Go's time.Duration.String() for a whole number of milliseconds. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = ((ms % 60_000) / 1000).toFixed(3).replace(/\.?0+$/, '');
  return `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${s}s`;
}

/** path.Join(base, ""): cleaned, without a trailing slash, "/" for nothing. */
function cleanPath(p: string): string {
  const joined = posix.normalize(`/${p}`);
  return joined.length > 1 ? joined.replace(/\/+$/, '') : '/';
}

/** The request path with the rest client's query: the URL's own parameters plus `timeout`, sorted as url.Values.Encode. */
function requestPath(path: string, query: URLSearchParams, timeoutMs: number): string {
  const params = [...query.entries(), ['timeout', goDuration(timeoutMs)] as [string, string]];
  params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `${cleanPath(path)}?${new URLSearchParams(params).toString()}`;
}

/**
 * Where and how to call the webhook `cc` describes, for calls with a `timeoutMs` deadline (which the
 * request path carries as `?timeout=`), or why it cannot be called: no url or service, both, a url
 * that does not parse or is not https, a caBundle `opts.caBundleError` refuses.
 */
export function webhookEndpoint(
  cc: WebhookClientConfig | undefined,
  timeoutMs: number,
  opts: EndpointOptions = {},
): WebhookEndpoint | { error: string } {
  if (!cc) return { error: 'webhook configuration must have either service or URL' };
  let ca: string[] | undefined;
  let caCerts: X509Certificate[] = [];
  if (cc.caBundle) {
    const why = opts.caBundleError?.(cc.caBundle);
    if (why) return { error: why };
    ({ pems: ca, certs: caCerts } = certificatesIn(Buffer.from(cc.caBundle, 'base64').toString('latin1')));
  }
  const hasURL = cc.url !== undefined && cc.url !== '';
  if (hasURL && !cc.service) {
    let u: URL;
    try {
      u = new URL(cc.url!);
    } catch (err) {
      return { error: `Unparsable URL: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (u.protocol !== 'https:')
      return { error: `unsupported scheme ${goQuote(u.protocol.slice(0, -1))}: the webhook client speaks https only` };
    // Go keeps the authority as written (an explicit :443 stays); WHATWG URL would drop it.
    const authority = (/^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(cc.url!)?.[1] ?? u.host).replace(/^.*@/, '');
    const path = requestPath(u.pathname, u.searchParams, timeoutMs);
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = u.port ? Number(u.port) : 443;
    return {
      display: `https://${authority}${path}`,
      hostHeader: authority,
      path,
      serverName: host,
      dial: () => ({ host, port }),
      ca,
      caCerts,
    };
  }
  if (cc.service && !hasURL) {
    const svc = cc.service;
    const port = svc.port ?? 443;
    const serverName = `${svc.name}.${svc.namespace}.svc`;
    const authority = `${serverName}:${port}`;
    const path = requestPath(svc.path ?? '', new URLSearchParams(), timeoutMs);
    const resolver = opts.serviceResolver;
    const dial = resolver
      ? () => resolver({ namespace: svc.namespace, name: svc.name, port })
      : () => ({ host: serverName, port });
    return { display: `https://${authority}${path}`, hostHeader: authority, path, serverName, dial, ca, caCerts };
  }
  return { error: 'webhook configuration must have either service or URL' };
}

// ---------------------------------------------------------------------------------------------
// The HTTPS call. The TLS connection is made and verified before a byte of the review is written;
// the certificate checks are Go's (crypto/x509 Verify: validity, host name, then chain), so their
// messages can be too.

/**
 * Connections a call left open, verified, by where they go and whom they trust: client-go's
 * transport keeps idle connections too (25 per host, 90 s), and a webhook called for every write
 * would otherwise pay a TLS handshake each time.
 */
const idleConnections = new Map<string, TLSSocket[]>();
const MAX_IDLE_PER_ENDPOINT = 25;
const IDLE_TIMEOUT_MS = 90_000;

/** Each kept connection's own listeners, taken off again when a call takes it. */
const idleListeners = new WeakMap<TLSSocket, { onError: () => void; onClose: () => void }>();

const poolKey = (ep: WebhookEndpoint, dialed: { host: string; port: number }): string =>
  JSON.stringify([dialed.host, dialed.port, ep.serverName, ep.ca ?? null]);

function takeIdle(key: string): TLSSocket | undefined {
  const sockets = idleConnections.get(key);
  while (sockets && sockets.length > 0) {
    const socket = sockets.pop()!;
    if (sockets.length === 0) idleConnections.delete(key);
    const listeners = idleListeners.get(socket);
    if (listeners) {
      socket.off('error', listeners.onError);
      socket.off('close', listeners.onClose);
    }
    socket.setTimeout(0);
    socket.removeAllListeners('timeout');
    if (!socket.destroyed && socket.writable) {
      socket.ref();
      return socket;
    }
  }
  return undefined;
}

function keepIdle(key: string, socket: TLSSocket): void {
  const sockets = idleConnections.get(key) ?? [];
  if (socket.destroyed || sockets.length >= MAX_IDLE_PER_ENDPOINT) return void socket.destroy();
  // The call's own error listeners go; an idle connection that breaks, or stays unused, is dropped.
  socket.removeAllListeners('error');
  const onError = (): void => void socket.destroy();
  const onClose = (): void => {
    const list = idleConnections.get(key);
    const i = list?.indexOf(socket) ?? -1;
    if (list && i >= 0) list.splice(i, 1);
    if (list?.length === 0) idleConnections.delete(key);
  };
  socket.on('error', onError);
  socket.once('close', onClose);
  idleListeners.set(socket, { onError, onClose });
  socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
  // An idle connection never keeps the process alive (a library user's server closed, a test done).
  socket.unref();
  sockets.push(socket);
  idleConnections.set(key, sockets);
}

/**
 * POSTs `body` (JSON) to `ep`; the answer, whatever its status, or a WebhookCallError in Go's
 * words: the url.Error of a failed dial, handshake or certificate check (`Post "<url>": ...`), the
 * deadline (`context deadline exceeded`), client-go's wording for a body that broke off or passed
 * `maxBytes`. Redirects are not followed (kube's webhook client refuses them): a 3xx is an answer.
 * A kept connection that turns out closed before any answer is retried once on a new one, as Go's
 * transport retries a request on a connection the server had already closed.
 */
export function postWebhook(
  ep: WebhookEndpoint,
  body: string,
  timeoutMs: number,
  maxBytes: number,
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    let socket: TLSSocket | undefined;
    let settled = false;
    let readingBody = false;
    // Whether the request is all written (its 'finish'); and what waits for that.
    let written = false;
    let whenWritten: (() => void) | undefined;
    let dialed = { host: '', port: 0 };
    const finish = (err: string | undefined, result?: HttpResult, keep?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err === undefined && keep && socket) {
        // An answer can end before the request is all written (a webhook that answers before it
        // reads). The connection is kept only after: node's end of that request then takes its
        // listeners off the connection, which would take those of a call already using it.
        const kept = socket;
        if (written) keepIdle(keep, kept);
        else whenWritten = () => process.nextTick(() => keepIdle(keep, kept));
      } else socket?.destroy();
      if (err === undefined) resolve(result!);
      else reject(new WebhookCallError(err));
    };
    // url.Error while the request is under way; client-go's wording once the body is being read.
    const fail = (why: string): void =>
      finish(
        readingBody
          ? `unexpected error when reading response body. Please retry. Original error: ${why}`
          : `Post ${goQuote(ep.display)}: ${why}`,
      );
    const timer = setTimeout(() => fail('context deadline exceeded'), timeoutMs);

    const send = (tlsSocket: TLSSocket, key: string, reused: boolean): void => {
      socket = tlsSocket;
      const req = httpRequest({
        createConnection: () => tlsSocket,
        method: 'POST',
        path: ep.path,
        headers: {
          Host: ep.hostHeader,
          'Content-Type': 'application/json',
          Accept: 'application/json, */*',
          'User-Agent': 'mini-apiserver',
          'Content-Length': Buffer.byteLength(body),
          Connection: 'keep-alive',
        },
      });
      // Go retries a request on a kept connection only if none of it was written: a review the
      // webhook may have received is not sent twice.
      written = false;
      req.on('finish', () => {
        written = true;
        whenWritten?.();
      });
      req.on('error', (err) => {
        if (reused && !written && !readingBody && !settled) {
          tlsSocket.destroy();
          return connectFresh(key);
        }
        fail(readingBody ? 'unexpected EOF' : netErrorText(err, dialed));
      });
      req.on('response', (res) => {
        readingBody = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) fail(`http: response body too large (more than ${maxBytes} bytes)`);
          else chunks.push(chunk);
        });
        res.on('end', () => {
          const reusable = String(res.headers.connection ?? '').toLowerCase() !== 'close';
          finish(
            undefined,
            {
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              body: Buffer.concat(chunks),
            },
            reusable ? key : undefined,
          );
        });
        res.on('error', () => fail('unexpected EOF'));
        res.on('close', () => fail('unexpected EOF')); // closed before 'end'
      });
      req.end(body);
    };

    const connectFresh = (key: string): void => {
      const tlsSocket = tlsConnect({
        host: dialed.host,
        port: dialed.port,
        ...(isIP(ep.serverName) ? {} : { servername: ep.serverName }),
        ...(ep.ca ? { ca: ep.ca } : {}),
        // Verified below, before anything is sent, so that the failure can be told in Go's words.
        rejectUnauthorized: false,
        ALPNProtocols: ['http/1.1'],
      });
      socket = tlsSocket;
      tlsSocket.on('error', (err) => fail(netErrorText(err, dialed)));
      tlsSocket.once('secureConnect', () => {
        const why = verifyPeer(tlsSocket, ep);
        if (why) return fail(`tls: failed to verify certificate: ${why}`);
        send(tlsSocket, key, false);
      });
    };

    try {
      dialed = ep.dial();
      const key = poolKey(ep, dialed);
      const kept = takeIdle(key);
      if (kept) {
        kept.once('error', () => {}); // the request reports it
        send(kept, key, true);
      } else {
        connectFresh(key);
      }
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    }
  });
}

const hostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** A socket error as Go's net package words it. */
function netErrorText(err: unknown, dialed: { host: string; port: number }): string {
  if (err instanceof AggregateError && err.errors.length > 0) return netErrorText(err.errors[0], dialed);
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };
  const addr = hostPort(e.address ?? dialed.host, e.port ?? dialed.port);
  switch (e.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${addr}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${addr}: connect: network is unreachable`;
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: connect: connection timed out`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${e.hostname ?? dialed.host}: no such host`;
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${e.hostname ?? dialed.host}: server misbehaving`;
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
      return 'http: server gave HTTP response to HTTPS client';
    case 'EPIPE':
      return 'write: broken pipe';
    case 'ECONNRESET':
      // The peer hung up (after or during the handshake) without answering: Go reads EOF.
      return /hang up|disconnected before secure/.test(e.message) ? 'EOF' : 'read: connection reset by peer';
  }
  return e.message ?? String(err);
}

const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The first value of an attribute in a subject as node prints it (`C=..\nO=..\nCN=..`). */
function attribute(subject: string, name: string): string | undefined {
  for (const line of subject.split('\n')) if (line.startsWith(`${name}=`)) return line.slice(name.length + 1);
  return undefined;
}

/** Go's net.IP.String(): IPv6 compressed (WHATWG URL canonicalizes it the same way). */
function canonicalIP(ip: string): string {
  if (!ip.includes(':')) return ip;
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip;
  }
}

/** Why the peer's certificate is not good for `ep`, as crypto/x509 says it; undefined when it is. */
function verifyPeer(socket: TLSSocket, ep: WebhookEndpoint): string | undefined {
  const peer = socket.getPeerX509Certificate();
  if (!peer) return 'x509: certificate signed by unknown authority';
  const now = new Date();
  const notBefore = new Date(peer.validFrom);
  const notAfter = new Date(peer.validTo);
  if (now < notBefore)
    return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is before ${rfc3339(notBefore)}`;
  if (now > notAfter)
    return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is after ${rfc3339(notAfter)}`;
  // Go ignores the Common Name (node would fall back to it without DNS names).
  const nameOk = isIP(ep.serverName)
    ? peer.checkIP(ep.serverName) !== undefined
    : peer.checkHost(ep.serverName, { subject: 'never' }) !== undefined;
  if (!nameOk) {
    return hostnameError(ep.serverName, peer);
  }
  if (!socket.authorized) {
    if (String(socket.authorizationError) === 'INVALID_PURPOSE')
      return 'x509: certificate specifies an incompatible key usage';
    return unknownAuthorityError(peer, ep.caCerts);
  }
  return undefined;
}

/** x509.HostnameError. */
function hostnameError(host: string, cert: X509Certificate): string {
  const sans = (cert.subjectAltName ?? '').split(', ').filter(Boolean);
  const cn = attribute(cert.subject, 'CN');
  if (cert.subjectAltName === undefined && cn !== undefined && cn.toLowerCase() === host.toLowerCase()) {
    return 'x509: certificate relies on legacy Common Name field, use SANs instead';
  }
  let valid: string;
  if (isIP(host)) {
    const ips = sans.filter((s) => s.startsWith('IP Address:')).map((s) => canonicalIP(s.slice('IP Address:'.length)));
    if (ips.length === 0) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    valid = ips.join(', ');
  } else {
    valid = sans
      .filter((s) => s.startsWith('DNS:'))
      .map((s) => s.slice(4))
      .join(', ');
  }
  if (!valid) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${valid}, not ${host}`;
}

/**
 * x509.UnknownAuthorityError, with Go's hint when a trusted certificate has the issuer's name but
 * did not sign the leaf (for instance a regenerated CA).
 */
function unknownAuthorityError(leaf: X509Certificate, roots: X509Certificate[]): string {
  const base = 'x509: certificate signed by unknown authority';
  const candidate = roots.find((c) => c.subject === leaf.issuer);
  if (!candidate) return base;
  let signed = false;
  try {
    signed = leaf.verify(candidate.publicKey);
  } catch {
    signed = false;
  }
  if (signed) return base;
  const keyType = candidate.publicKey.asymmetricKeyType;
  const hint =
    keyType === 'rsa'
      ? 'crypto/rsa: verification error'
      : keyType === 'ed25519'
        ? 'x509: Ed25519 verification failure'
        : 'x509: ECDSA verification failure';
  const name =
    attribute(candidate.subject, 'CN') ||
    attribute(candidate.subject, 'O') ||
    `serial:${BigInt(`0x${candidate.serialNumber}`).toString()}`;
  return `${base} (possibly because of ${goQuote(hint)} while trying to verify candidate authority certificate ${goQuote(name)})`;
}
