// What replicas on one etcd share, as the plaintext of the sealed record: the CA (serving
// certificates and client certificates), the token file, and the ServiceAccount signing keys,
// newest first: the first signs, every one verifies, so a rotation leaves earlier tokens valid.
// Decoding checks that every part parses; whether the CA can still sign is pki.ts's to say, where
// the identity is joined (shared-identity.ts).
import { type KeyObject, createHash, generateKeyPairSync } from 'node:crypto';
import { isJsonObject } from '../../apimachinery/object.js';
import { parsePrivateKeyPem } from '../authn/service-account-token.js';
import { parseTokenFile } from '../authn/token-file.js';

export interface ClusterIdentity {
  /** PEM certificate and private key. */
  ca: { cert: string; key: string };
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
export function decodeIdentity(text: string): ClusterIdentity | string {
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

export const pkcs8 = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();

/** A fresh signing key (ECDSA P-256, as a data dir's generated sa.key), PKCS#8 PEM. */
export const newServiceAccountKey = (): string => pkcs8(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
