// A webhook's caBundle as client-go reads it: Go's encoding/pem blocks, the CERTIFICATE ones that
// x509 parses trusted (x509.CertPool.AppendCertsFromPEM), and why a bundle cannot be used in
// client-go's words. The CRD conversion webhook and the admission webhooks check theirs with it.
import { X509Certificate } from 'node:crypto';
import { type PEMBlock, decodePEM, pemBlocks } from '../apimachinery/pem.js';

/** Why a webhook caBundle (base64 PEM) cannot be used, in client-go's words, if it cannot. */
export function caBundleError(caBundle: string): string | undefined {
  let data = Buffer.from(caBundle, 'base64').toString('latin1');
  if (data.length === 0) return undefined;
  if (certificateBlocks(data).some((b) => parsesAsCertificate(b.der))) return undefined;
  // client-go then walks the bundle again to say what was wrong with it.
  while (data.length > 0) {
    const [block, next] = decodePEM(data);
    if (!block) return 'unable to load root certificates: unable to parse bytes as PEM block';
    data = next;
    if (block.type !== 'CERTIFICATE' || block.hasHeaders) continue;
    return 'unable to load root certificates: failed to parse certificate: x509: malformed certificate';
  }
  return 'unable to load root certificates: no valid certificate authority data seen';
}

/** x509.CertPool.AppendCertsFromPEM on a latin1 PEM text: the certificates that parse (the rest skipped), and their PEM. */
export function certificatesIn(pem: string): { pems: string[]; certs: X509Certificate[] } {
  const certs: X509Certificate[] = [];
  for (const block of certificateBlocks(pem)) {
    try {
      certs.push(new X509Certificate(block.der));
    } catch {
      // client-go skips what it cannot parse once one certificate is good
    }
  }
  return { pems: certs.map((c) => c.toString()), certs };
}

/** The CERTIFICATE blocks without headers of a latin1 PEM text, as AppendCertsFromPEM takes them. */
const certificateBlocks = (data: string): PEMBlock[] =>
  pemBlocks(data).filter((b) => b.type === 'CERTIFICATE' && !b.hasHeaders);

function parsesAsCertificate(der: Buffer): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}
