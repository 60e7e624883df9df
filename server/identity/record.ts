// What replicas on one etcd share, as the plaintext of the sealed record: the CA (serving
// certificates and client certificates), the token file, and the ServiceAccount signing keys,
// newest first: the first signs, every one verifies, so a rotation leaves earlier tokens valid.
import { createHash } from 'node:crypto';
import { isJsonObject } from '../../apimachinery/object.js';
import { parsePrivateKeyPem } from '../authn/service-account-token.js';
import { parseTokenFile } from '../authn/token-file.js';
import { type KeyPair, caUsable } from '../pki.js';

export interface ClusterIdentity {
  ca: KeyPair;
  /** PEM private keys, newest first. */
  serviceAccountKeys: string[];
  /** kube's token-auth-file CSV. */
  tokenFile: string;
}

export const encodeIdentity = (id: ClusterIdentity): string =>
  JSON.stringify({
    ca: { cert: id.ca.cert, key: id.ca.key },
    serviceAccountKeys: id.serviceAccountKeys,
    tokenFile: id.tokenFile,
  });

const isString = (v: unknown): v is string => typeof v === 'string';

/** The plaintext as an identity every part of which loads, or what is wrong with it. */
export function decodeIdentity(text: string, now = new Date()): ClusterIdentity | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (!isJsonObject(raw)) return 'not an object';
  const { ca, serviceAccountKeys, tokenFile } = raw;
  if (!isJsonObject(ca) || !isString(ca['cert']) || !isString(ca['key'])) return 'ca needs cert and key';
  const pair = { cert: ca['cert'], key: ca['key'] };
  if (!caUsable(pair, now)) return 'ca is not a usable CA (expired, not a CA, or not its key)';
  if (!Array.isArray(serviceAccountKeys) || serviceAccountKeys.length === 0 || !serviceAccountKeys.every(isString))
    return 'serviceAccountKeys must list at least one PEM key';
  for (const [i, pem] of serviceAccountKeys.entries()) {
    try {
      parsePrivateKeyPem(pem);
    } catch (err) {
      return `serviceAccountKeys[${i}]: ${(err as Error).message}`;
    }
  }
  if (!isString(tokenFile)) return 'tokenFile must be a string';
  try {
    if (parseTokenFile(tokenFile).records.length === 0) return 'tokenFile has no tokens';
  } catch (err) {
    return `tokenFile: ${(err as Error).message}`;
  }
  return { ca: pair, serviceAccountKeys, tokenFile };
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
