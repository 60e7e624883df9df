import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../apimachinery/log.js';
import { StartupError } from '../../../server/startup/errors.js';
import {
  generateCa,
  generatePki,
  issueServingCert,
  loadOrCreatePki,
  loadTlsFiles,
  servingCertUsable,
  servingHosts,
} from '../../../server/pki.js';

const LOOPBACK = { ips: ['127.0.0.1', '::1'], dns: ['localhost'] };

describe('servingHosts', () => {
  it('covers loopback and a specific bind address', () => {
    expect(servingHosts('127.0.0.1')).toEqual(LOOPBACK);
    expect(servingHosts('10.1.2.3')).toEqual({ ips: ['127.0.0.1', '::1', '10.1.2.3'], dns: ['localhost'] });
    expect(servingHosts('::1')).toEqual(LOOPBACK);
  });

  it('adds the host name for a bind to every interface', () => {
    for (const any of ['0.0.0.0', '::']) {
      const hosts = servingHosts(any);
      expect(hosts.dns).toEqual(['localhost', hostname()]);
      expect(hosts.ips).not.toContain(any);
    }
  });
});

describe('generated certificates', () => {
  // EC keys are what keep a start without a data dir cheap (an RSA key pair costs far more to
  // generate): so the keys' type and curve, and the signatures', are what is checked here, not a time.
  it('issues a CA and a serving certificate for the hosts: ECDSA P-256 keys, signed with ECDSA SHA-256', async () => {
    const pki = await generatePki({ ips: ['127.0.0.1', '::1', '10.0.0.1'], dns: ['localhost', 'example.test'] });
    const ca = new X509Certificate(pki.caCert);
    const cert = new X509Certificate(pki.cert);
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(ca) && cert.verify(ca.publicKey)).toBe(true);
    for (const key of [ca.publicKey, cert.publicKey, createPrivateKey(pki.key)]) {
      expect(key.asymmetricKeyType).toBe('ec');
      expect(key.asymmetricKeyDetails).toMatchObject({ namedCurve: 'prime256v1' });
    }
    for (const pem of [pki.caCert, pki.cert])
      expect(new x509.X509Certificate(pem).signatureAlgorithm).toMatchObject({
        name: 'ECDSA',
        hash: { name: 'SHA-256' },
      });
    for (const ip of ['127.0.0.1', '::1', '10.0.0.1']) expect(cert.checkIP(ip)).toBe(ip);
    expect(cert.checkHost('example.test')).toBe('example.test');
    expect(cert.checkIP('10.0.0.2')).toBeUndefined();
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth
    expect(pki.key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('servingCertUsable checks issuer, names and remaining validity', async () => {
    const ca = await generateCa();
    const other = await generateCa();
    const leaf = await issueServingCert(ca, LOOPBACK);
    expect(servingCertUsable(leaf.cert, ca.cert, LOOPBACK)).toBe(true);
    expect(servingCertUsable(leaf.cert, other.cert, LOOPBACK)).toBe(false);
    expect(servingCertUsable(leaf.cert, ca.cert, { ips: [...LOOPBACK.ips, '10.9.9.9'], dns: LOOPBACK.dns })).toBe(
      false,
    );
    const inElevenMonths = new Date(Date.now() + 340 * 24 * 3600 * 1000);
    expect(servingCertUsable(leaf.cert, ca.cert, LOOPBACK, inElevenMonths)).toBe(false);
    expect(servingCertUsable('garbage', ca.cert, LOOPBACK)).toBe(false);
  });
});

describe('loadOrCreatePki', () => {
  const root = mkdtempSync(join(tmpdir(), 'pki-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const read = (dir: string): Record<string, string> =>
    Object.fromEntries(
      ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key'].map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
    );

  it('creates the files once, keys private, and reuses them byte for byte', async () => {
    const dir = join(root, 'a', 'pki');
    const first = await loadOrCreatePki(dir, LOOPBACK, silentLogger);
    const files = read(dir);
    expect(first).toEqual({ cert: files['apiserver.crt'], key: files['apiserver.key'], caCert: files['ca.crt'] });
    expect(statSync(join(dir, 'ca.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'apiserver.key')).mode & 0o777).toBe(0o600);
    const second = await loadOrCreatePki(dir, LOOPBACK, silentLogger);
    expect(second).toEqual(first);
    expect(read(dir)).toEqual(files);
  });

  it('re-issues only the serving certificate when a new bind address needs a name', async () => {
    const dir = join(root, 'b');
    const first = await loadOrCreatePki(dir, LOOPBACK, silentLogger);
    const wider = { ips: [...LOOPBACK.ips, '10.1.1.1'], dns: LOOPBACK.dns };
    const second = await loadOrCreatePki(dir, wider, silentLogger);
    expect(second.caCert).toBe(first.caCert);
    expect(second.cert).not.toBe(first.cert);
    expect(new X509Certificate(second.cert).checkIP('10.1.1.1')).toBe('10.1.1.1');
  });

  it('replaces a CA whose key is gone (and the certificate it signed)', async () => {
    const dir = join(root, 'c');
    const first = await loadOrCreatePki(dir, LOOPBACK, silentLogger);
    rmSync(join(dir, 'ca.key'));
    const second = await loadOrCreatePki(dir, LOOPBACK, silentLogger);
    expect(second.caCert).not.toBe(first.caCert);
    expect(servingCertUsable(second.cert, second.caCert, LOOPBACK)).toBe(true);
  });

  it('replaces a serving certificate whose key does not match', async () => {
    const dir = join(root, 'd');
    const first = await loadOrCreatePki(dir, LOOPBACK, silentLogger);
    writeFileSync(join(dir, 'apiserver.key'), (await generatePki(LOOPBACK)).key);
    const second = await loadOrCreatePki(dir, LOOPBACK, silentLogger);
    expect(second.caCert).toBe(first.caCert);
    expect(second.cert).not.toBe(first.cert);
  });

  it('fails in one line when the directory cannot be written', async () => {
    const file = join(root, 'plain-file');
    writeFileSync(file, '');
    await expect(loadOrCreatePki(join(file, 'pki'), LOOPBACK, silentLogger)).rejects.toThrow(StartupError);
  });
});

describe('loadTlsFiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tls-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the given pair and tells clients to trust the file', async () => {
    const pki = await generatePki(LOOPBACK);
    writeFileSync(join(dir, 'c.pem'), pki.cert);
    writeFileSync(join(dir, 'k.pem'), pki.key);
    expect(await loadTlsFiles(join(dir, 'c.pem'), join(dir, 'k.pem'))).toEqual({
      cert: pki.cert,
      key: pki.key,
      caCert: pki.cert,
    });
  });

  // Each names the flag to fix.
  it.each([
    [
      'a missing certificate',
      'missing.pem',
      'k.pem',
      /^--tls-cert-file: cannot read TLS certificate file .*missing\.pem: no such file/,
    ],
    [
      'a missing key',
      'c.pem',
      'missing.pem',
      /^--tls-private-key-file: cannot read TLS private key file .*missing\.pem: no such file/,
    ],
    [
      'a certificate that is not one',
      'junk.pem',
      'k.pem',
      /^--tls-cert-file: invalid TLS certificate file .*junk\.pem: /,
    ],
    [
      'a key that is not one',
      'c.pem',
      'junk.pem',
      /^--tls-private-key-file: invalid TLS private key file .*junk\.pem: /,
    ],
    [
      'a key of another certificate',
      'c.pem',
      'other.pem',
      /^--tls-private-key-file: TLS certificate .*c\.pem and key .*other\.pem do not/,
    ],
  ])('rejects %s in one line', async (_, cert, key, message) => {
    const pki = await generatePki(LOOPBACK);
    writeFileSync(join(dir, 'c.pem'), pki.cert);
    writeFileSync(join(dir, 'k.pem'), pki.key);
    writeFileSync(join(dir, 'junk.pem'), 'not PEM at all\n');
    writeFileSync(join(dir, 'other.pem'), (await generatePki(LOOPBACK)).key);
    const err = await loadTlsFiles(join(dir, cert), join(dir, key)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('\n');
  });
});
