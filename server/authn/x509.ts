// Client-certificate authentication as kube's request/x509 authenticator does it: a certificate that
// verifies against --client-ca-file names the user in its subject's CommonName and the groups in its
// Organization values. The TLS layer does the verifying (the server listens with `requestCert: true,
// rejectUnauthorized: false, ca: <client CA>`, so a bad certificate still reaches here, to be
// refused as kube refuses it: a 401, its reason logged, rather than a failed handshake).
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import * as x509 from '@peculiar/x509';
import type { UserInfo } from '../../apimachinery/user.js';
import { systemClock } from '../../apimachinery/clock.js';
import { CREDENTIAL_ID_KEY } from './service-account-user.js';

/** What is read of the connection: node's TLSSocket, or a stand-in in tests. */
export type PeerTls = Pick<TLSSocket, 'authorized' | 'authorizationError' | 'getPeerCertificate'>;

export type X509Outcome =
  /** No client certificate (or one without a CommonName): other authenticators decide. */
  { kind: 'none' } | { kind: 'user'; user: UserInfo } | { kind: 'invalid'; reason: string };

/** kube's columnSeparatedHex: upper-case hex bytes joined with ':'. */
const columnHex = (hex: string): string => (hex.toUpperCase().match(/../g) ?? []).join(':');

/** kube's certificateIdentifier: `SN=<decimal>, SKID=<hex>, AKID=<hex>`, for the log. */
export function certificateIdentifier(cert: x509.X509Certificate): string {
  const sn = BigInt(`0x${cert.serialNumber || '0'}`).toString(10);
  const skid = cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId ?? '';
  const akid = cert.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId ?? '';
  return `SN=${sn}, SKID=${columnHex(skid)}, AKID=${columnHex(akid)}`;
}

/** Go's time.RFC3339 formatting (whole seconds, UTC). */
const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** OpenSSL's verification error, worded as Go's x509.Certificate.Verify words its own. */
export function verifyErrorText(code: string, cert: x509.X509Certificate, now: Date): string {
  switch (code) {
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'CERT_SIGNATURE_FAILURE':
      return 'x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is after ${rfc3339(cert.notAfter)}`;
    case 'CERT_NOT_YET_VALID':
      return `x509: certificate has expired or is not yet valid: current time ${rfc3339(now)} is before ${rfc3339(cert.notBefore)}`;
    case 'INVALID_PURPOSE':
    case 'UNSUPPORTED_CERTIFICATE_PURPOSE':
      return 'x509: certificate specifies an incompatible key usage';
    default:
      return `x509: ${code}`;
  }
}

/** The user a verified leaf certificate names: CN, O values as groups, its SHA-256 as credential id. */
export function userFromCertificate(raw: Uint8Array): UserInfo | undefined {
  const cert = new x509.X509Certificate(raw);
  // Go's pkix.Name keeps the last CommonName and every Organization, in order.
  const cns = cert.subjectName.getField('CN');
  const name = cns[cns.length - 1] ?? '';
  if (name === '') return undefined;
  return {
    name,
    groups: cert.subjectName.getField('O'),
    extra: { [CREDENTIAL_ID_KEY]: [`X509SHA256=${createHash('sha256').update(raw).digest('hex')}`] },
  };
}

export class X509Authenticator {
  constructor(private readonly now: () => Date = () => new Date(systemClock.now())) {}

  /** The outcome for a connection's peer certificate. */
  authenticateSocket(socket: PeerTls): X509Outcome {
    const peer = socket.getPeerCertificate(true);
    // node gives an empty object when the client sent no certificate.
    const raw: unknown = (peer as { raw?: unknown } | undefined)?.raw;
    if (!(raw instanceof Uint8Array) || raw.length === 0) return { kind: 'none' };
    let cert: x509.X509Certificate;
    try {
      cert = new x509.X509Certificate(raw);
    } catch (err) {
      return { kind: 'invalid', reason: `x509: failed to parse certificate: ${(err as Error).message}` };
    }
    if (!socket.authorized) {
      const error: unknown = socket.authorizationError;
      const code =
        typeof error === 'string'
          ? error
          : ((error as { code?: string } | null)?.code ?? (error as Error | null)?.message ?? 'unknown error');
      return {
        kind: 'invalid',
        reason: `verifying certificate ${certificateIdentifier(cert)} failed: ${verifyErrorText(code, cert, this.now())}`,
      };
    }
    const user = userFromCertificate(raw);
    return user ? { kind: 'user', user } : { kind: 'none' };
  }

  /** The outcome for a request: only a TLS connection can carry a client certificate. */
  authenticate(req: IncomingMessage): X509Outcome {
    const socket = req.socket as Partial<TLSSocket>;
    if (socket.encrypted !== true || typeof socket.getPeerCertificate !== 'function') return { kind: 'none' };
    return this.authenticateSocket(socket as TLSSocket);
  }
}
