// Certificates for tests of client-certificate authentication: a CA, certificates it signs
// (client by default), with the subject, validity and key usages a case needs.
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { KeyPair } from '../../server/pki.js';

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
export const DAY = 24 * 3600 * 1000;

export interface Issued extends KeyPair {
  x: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

async function exportKey(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY') + '\n';
}

let serial = 1000;
export async function issue(opts: {
  subject: string;
  issuer?: Issued;
  ca?: boolean;
  notBefore?: Date;
  notAfter?: Date;
  eku?: string[];
}): Promise<Issued> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(opts.ca ?? false, undefined, true),
    new x509.KeyUsagesExtension(
      opts.ca
        ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature
        : x509.KeyUsageFlags.digitalSignature,
      true,
    ),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  if (!opts.ca) extensions.push(new x509.ExtendedKeyUsageExtension(opts.eku ?? [x509.ExtendedKeyUsage.clientAuth]));
  if (opts.issuer) extensions.push(await x509.AuthorityKeyIdentifierExtension.create(opts.issuer.x.publicKey));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(4, '0'),
    subject: opts.subject,
    issuer: opts.issuer ? opts.issuer.x.subject : opts.subject,
    notBefore: opts.notBefore ?? new Date(Date.now() - DAY),
    notAfter: opts.notAfter ?? new Date(Date.now() + DAY),
    publicKey: keys.publicKey,
    signingKey: (opts.issuer ?? { keys }).keys.privateKey,
    signingAlgorithm: EC,
    extensions,
  });
  return { cert: cert.toString('pem') + '\n', key: await exportKey(keys.privateKey), x: cert, keys };
}
