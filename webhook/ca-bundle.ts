// A webhook's caBundle as client-go reads it: Go's encoding/pem blocks, the CERTIFICATE ones that
// x509 parses trusted (x509.CertPool.AppendCertsFromPEM), and why a bundle cannot be used in
// client-go's words. The CRD conversion webhook and the admission webhooks check theirs with it.
import { X509Certificate } from 'node:crypto';

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
function certificateBlocks(data: string): PEMBlock[] {
  const blocks: PEMBlock[] = [];
  for (let rest = data; rest.length > 0; ) {
    const [block, next] = decodePEM(rest);
    if (!block) break;
    if (block.type === 'CERTIFICATE' && !block.hasHeaders) blocks.push(block);
    rest = next;
  }
  return blocks;
}

function parsesAsCertificate(der: Buffer): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}

interface PEMBlock {
  type: string;
  hasHeaders: boolean;
  der: Buffer;
}

/** Go's encoding/pem.Decode on a latin1 string: the next block and what follows it. */
function decodePEM(data: string): [PEMBlock | undefined, string] {
  const getLine = (s: string): [string, string] => {
    const nl = s.indexOf('\n');
    const line = nl < 0 ? s : s.slice(0, nl);
    return [line.replace(/[ \t\r]+$/, ''), nl < 0 ? '' : s.slice(nl + 1)];
  };
  let rest = data;
  for (;;) {
    if (rest.startsWith('-----BEGIN ')) rest = rest.slice('-----BEGIN '.length);
    else {
      const at = rest.indexOf('\n-----BEGIN ');
      if (at < 0) return [undefined, data];
      rest = rest.slice(at + '\n-----BEGIN '.length);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith('-----')) continue;
    const type = typeLine.slice(0, -5);
    let hasHeaders = false;
    for (;;) {
      if (rest.length === 0) return [undefined, data];
      const [line, next] = getLine(rest);
      if (!line.includes(':')) break;
      hasHeaders = true;
      rest = next;
    }
    let endIndex: number;
    let trailerIndex: number;
    if (!hasHeaders && rest.startsWith('-----END ')) [endIndex, trailerIndex] = [0, '-----END '.length];
    else {
      endIndex = rest.indexOf('\n-----END ');
      trailerIndex = endIndex + '\n-----END '.length;
    }
    if (endIndex < 0) continue;
    const trailer = rest.slice(trailerIndex, trailerIndex + type.length + 5);
    if (trailer !== `${type}-----` || getLine(rest.slice(trailerIndex + trailer.length))[0].length !== 0) continue;
    const body = rest
      .slice(0, endIndex)
      .replace(/[ \t]/g, '')
      .replace(/[\r\n]/g, '');
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(body)) continue;
    // The rest of the END line goes with the block.
    const [, after] = getLine(rest.slice(trailerIndex));
    return [{ type, hasHeaders, der: Buffer.from(body, 'base64') }, after];
  }
}
