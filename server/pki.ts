// The serving PKI: a CA and a serving certificate signed by it, generated on first start into
// DATA_DIR/pki (kubeadm's file names) and reused afterwards, so a kubeconfig keeps working across
// restarts. ECDSA P-256 through webcrypto: a CA and a leaf take a few milliseconds, which is what
// lets a test start a server with fresh in-memory credentials.
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { chmodSync, readFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type * as X509 from '@peculiar/x509';
import { StartupError, flagError, fsReason } from './startup/errors.js';
import { writeFileAtomic } from './startup/write-file-atomic.js';
import type { Logger } from '../apimachinery/log.js';
import { mkdirAll } from '../apimachinery/mkdir-all.js';

/**
 * @peculiar/x509, loaded only when certificates are made: a start that reuses its PKI (or is given
 * one) never needs it, and loading it costs about a tenth of a second.
 */
let x509Module: Promise<typeof X509> | undefined;
function loadX509(): Promise<typeof X509> {
  x509Module ??= import('@peculiar/x509').then((m) => {
    m.cryptoProvider.set(webcrypto);
    return m;
  });
  return x509Module;
}

const EC: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY_MS = 24 * 3600 * 1000;
const CA_DAYS = 3650;
const SERVING_DAYS = 365;
/** Re-issue a serving certificate this close to expiry rather than let it lapse while running. */
const RENEW_BEFORE_DAYS = 30;
/** Tolerates clients whose clock is a little behind ours. */
const BACKDATE_MS = 5 * 60 * 1000;

export interface KeyPair {
  cert: string;
  key: string;
}

export interface ServingTls extends KeyPair {
  /** What clients should trust: written into the kubeconfig and returned by startServer. */
  caCert: string;
}

/** The names a serving certificate must carry. */
export interface ServingHosts {
  ips: string[];
  dns: string[];
}

const isUnspecified = (ip: string): boolean => ip === '0.0.0.0' || ip === '::';

/** Loopback always; the bind address itself; for a bind to every interface, the host's names. */
export function servingHosts(bindAddress: string): ServingHosts {
  const ips = ['127.0.0.1', '::1'];
  const dns = ['localhost'];
  if (isUnspecified(bindAddress)) {
    dns.push(hostname());
    for (const addrs of Object.values(networkInterfaces())) {
      for (const a of addrs ?? []) if (!a.internal) ips.push(a.address.replace(/%.*$/, ''));
    }
  } else {
    ips.push(bindAddress);
  }
  return { ips: [...new Set(ips)], dns: [...new Set(dns)] };
}

const serial = (): string => {
  const b = randomBytes(16);
  b[0]! &= 0x7f; // a positive INTEGER, as RFC 5280 asks
  return b.toString('hex');
};

async function exportKey(key: webcrypto.CryptoKey): Promise<string> {
  const x509 = await loadX509();
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

export async function generateCa(now = new Date()): Promise<KeyPair> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=mini-apiserver-ca',
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + CA_DAYS * DAY_MS),
    keys,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: (await exportKey(keys.privateKey)) + '\n' };
}

async function importSigningKey(pem: string): Promise<webcrypto.CryptoKey> {
  // Through node's parser so SEC1 ("EC PRIVATE KEY") files work as well as PKCS#8 ones.
  const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return webcrypto.subtle.importKey('pkcs8', der, EC, false, ['sign']);
}

export async function issueServingCert(ca: KeyPair, hosts: ServingHosts, now = new Date()): Promise<KeyPair> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.cert);
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=mini-apiserver',
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + SERVING_DAYS * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: await importSigningKey(ca.key),
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...hosts.dns.map((value) => ({ type: 'dns' as const, value })),
        ...hosts.ips.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: (await exportKey(keys.privateKey)) + '\n' };
}

/** Whether a serving certificate can be kept: issued by `caCert`, names every host, not near expiry. */
export function servingCertUsable(certPem: string, caCertPem: string, hosts: ServingHosts, now = new Date()): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(caCertPem);
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
    if (new Date(cert.validTo).getTime() - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS) return false;
    return (
      hosts.ips.every((ip) => cert.checkIP(ip) !== undefined) && hosts.dns.every((h) => cert.checkHost(h) !== undefined)
    );
  } catch {
    return false;
  }
}

/** Whether a CA pair can be kept: a CA certificate, not expired, with its own key. */
export const caUsable = (ca: KeyPair, now: Date): boolean => {
  try {
    const cert = new X509Certificate(ca.cert);
    return (
      cert.ca && new Date(cert.validTo).getTime() > now.getTime() && cert.checkPrivateKey(createPrivateKey(ca.key))
    );
  } catch {
    return false;
  }
};

/**
 * A start-up file's text, or undefined when there is none. Synchronous, as the start's other calls
 * on the data dir (startup/write-file-atomic.ts): a few small local files, one after the other,
 * where each call through the thread pool and back cost more CPU than the read and, on a busy
 * machine, a wait for a core at each step.
 */
export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StartupError(`cannot read ${path}: ${fsReason(err)}`);
  }
}

/** DIR's file names, kubeadm's. */
const pkiPaths = (dir: string) => ({
  caCert: join(dir, 'ca.crt'),
  caKey: join(dir, 'ca.key'),
  cert: join(dir, 'apiserver.crt'),
  key: join(dir, 'apiserver.key'),
});

async function ensurePkiDir(dir: string): Promise<void> {
  try {
    mkdirAll(dir, 0o700);
    chmodSync(dir, 0o700);
  } catch (err) {
    throw new StartupError(`cannot create ${dir}: ${fsReason(err)}`);
  }
}

/** DIR/ca.crt and ca.key, when both are there and usable. */
export async function readCa(dir: string, now = new Date()): Promise<KeyPair | undefined> {
  const paths = pkiPaths(dir);
  const [cert, key] = await Promise.all([readIfExists(paths.caCert), readIfExists(paths.caKey)]);
  return cert !== undefined && key !== undefined && caUsable({ cert, key }, now) ? { cert, key } : undefined;
}

/** Writes the CA into DIR, key first: a crash in between leaves a certificate without its key, which is replaced. */
export async function writeCa(dir: string, ca: KeyPair): Promise<void> {
  await ensurePkiDir(dir);
  const paths = pkiPaths(dir);
  await writeFileAtomic(paths.caKey, ca.key, 0o600);
  await writeFileAtomic(paths.caCert, ca.cert, 0o600);
}

/** DIR/apiserver.crt and apiserver.key: kept when `ca` issued them for every host and not near expiry, else issued anew. */
export async function loadOrIssueServingCert(
  dir: string,
  ca: KeyPair,
  hosts: ServingHosts,
  logger: Logger,
): Promise<ServingTls> {
  await ensurePkiDir(dir);
  const paths = pkiPaths(dir);
  const now = new Date();
  const [cert, key] = await Promise.all([readIfExists(paths.cert), readIfExists(paths.key)]);
  if (cert !== undefined && key !== undefined && servingCertUsable(cert, ca.cert, hosts, now) && keyMatches(cert, key))
    return { cert, key, caCert: ca.cert };
  const serving = await issueServingCert(ca, hosts, now);
  await writeFileAtomic(paths.key, serving.key, 0o600);
  await writeFileAtomic(paths.cert, serving.cert, 0o600);
  logger.info('issued serving certificate', { cert: paths.cert, ips: hosts.ips, dns: hosts.dns });
  return { ...serving, caCert: ca.cert };
}

/** DIR/ca.crt, ca.key, apiserver.crt, apiserver.key: reused when sound, (re)generated when not. */
export async function loadOrCreatePki(dir: string, hosts: ServingHosts, logger: Logger): Promise<ServingTls> {
  await ensurePkiDir(dir);
  const paths = pkiPaths(dir);
  let ca = await readCa(dir);
  if (!ca) {
    if ((await readIfExists(paths.caCert)) !== undefined || (await readIfExists(paths.caKey)) !== undefined)
      logger.warn('CA in data dir is missing, invalid or expired: generating a new one', { dir });
    ca = await generateCa();
    await writeCa(dir, ca);
  }
  return loadOrIssueServingCert(dir, ca, hosts, logger);
}

const keyMatches = (certPem: string, keyPem: string): boolean => {
  try {
    return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
};

/** A throw-away CA and serving certificate, for a server without a data dir. */
export async function generatePki(hosts: ServingHosts): Promise<ServingTls> {
  const ca = await generateCa();
  return { ...(await issueServingCert(ca, hosts)), caCert: ca.cert };
}

/**
 * Operator-supplied --tls-cert-file/--tls-private-key-file. Clients are told to trust every
 * certificate in the file: a chain that includes its root verifies against that root, and a lone
 * certificate is pinned (kubectl and curl accept a leaf found among their trusted certificates).
 */
export async function loadTlsFiles(certFile: string, keyFile: string): Promise<ServingTls> {
  const read = (path: string, flag: string, what: string): string => {
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      throw flagError(flag, `cannot read ${what} ${path}: ${fsReason(err)}`);
    }
  };
  // One after the other: when both fail, the certificate's error is the one reported, every time.
  const cert = read(certFile, 'tls-cert-file', 'TLS certificate file');
  const key = read(keyFile, 'tls-private-key-file', 'TLS private key file');
  try {
    new X509Certificate(cert);
  } catch (err) {
    throw flagError('tls-cert-file', `invalid TLS certificate file ${certFile}: ${oneLine(err)}`);
  }
  try {
    createPrivateKey(key);
  } catch (err) {
    throw flagError('tls-private-key-file', `invalid TLS private key file ${keyFile}: ${oneLine(err)}`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw flagError(
      'tls-private-key-file',
      `TLS certificate ${certFile} and key ${keyFile} do not belong together: ${oneLine(err)}`,
    );
  }
  return { cert, key, caCert: cert };
}

const oneLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
