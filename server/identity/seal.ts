// The cluster's shared identity at rest: sealed with a key derived from the cluster token, so that
// whoever reads etcd (a backup, a neighbour on a shared etcd) learns nothing and can forge nothing
// without the token.
//
// scrypt, not HKDF: the token is whatever the operator typed (k3s's tokens are often words), and
// HKDF assumes a uniformly random input, so a stolen record could be guessed against at hash speed.
// scrypt makes each guess cost 32 MiB and tens of milliseconds; a start pays it once. AES-256-GCM
// authenticates as it encrypts: a wrong token or an altered record fails to open instead of
// yielding other keys. The additional data binds a record to the etcd prefix and key it was
// written under, so a record copied into another cluster's prefix does not open there either.
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { isJsonObject } from '../../apimachinery/object.js';

/**
 * scrypt's cost, paid once per start: N = 2^15, r = 8, p = 1 is 32 MiB and about 0.1 s on this
 * machine (2^17 would be 0.4 s). k3s derives its key with PBKDF2-SHA1 at 4,096 rounds, far cheaper
 * to guess against; a token from `openssl rand -hex 32` leaves nothing to guess at all.
 */
const SCRYPT_PARAMS: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };
/** What a record may ask of a start: a planted record must not make every replica allocate gigabytes. */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** GCM's 96-bit nonce, random per seal: a record is rewritten a handful of times in its life. */
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const SEALED_KIND = 'MiniApiserverSealedIdentity';

interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** A record as stored: the KDF's parameters and salt, the nonce, the ciphertext with GCM's tag. */
export interface Sealed {
  kind: typeof SEALED_KIND;
  version: 1;
  kdf: { name: 'scrypt'; salt: string } & ScryptParams;
  nonce: string;
  ciphertext: string;
}

/** The token and salt's key, with what derived it (a record re-sealed keeps both). */
export interface SealingKey {
  key: Buffer;
  salt: Buffer;
  params: ScryptParams;
}

const scryptMemory = ({ N, r, p }: ScryptParams): number => 128 * N * r + 128 * r * p;

/** Why these parameters are refused, or undefined: N a power of two above 1, and a bounded cost. */
export function scryptParamsProblem(params: ScryptParams): string | undefined {
  const { N, r, p } = params;
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return 'N, r and p must be positive integers';
  if (N < 2 || (N & (N - 1)) !== 0) return `N must be a power of two above 1, not ${N}`;
  if (scryptMemory(params) > MAX_SCRYPT_MEMORY || p > 16)
    return `scrypt parameters N=${N} r=${r} p=${p} ask more than this server spends on a key`;
  return undefined;
}

export function deriveKey(
  token: string,
  salt: Buffer = randomBytes(SALT_BYTES),
  params = SCRYPT_PARAMS,
): Promise<SealingKey> {
  return new Promise((resolve, reject) => {
    // maxmem above the need: node refuses when 128*N*r reaches its default of 32 MiB exactly.
    scrypt(token, salt, KEY_BYTES, { ...params, maxmem: scryptMemory(params) * 2 }, (err, key) =>
      err ? reject(err) : resolve({ key, salt, params }),
    );
  });
}

export function seal(plaintext: string, k: SealingKey, aad: string): Sealed {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', k.key, nonce);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return {
    kind: SEALED_KIND,
    version: 1,
    kdf: { name: 'scrypt', salt: k.salt.toString('base64'), ...k.params },
    nonce: nonce.toString('base64'),
    ciphertext: data.toString('base64'),
  };
}

/** The plaintext, or undefined when the key (the token) or the additional data (where it lies) is not the sealer's, or the record was altered. */
export function open(sealed: Sealed, key: Buffer, aad: string): string | undefined {
  const data = Buffer.from(sealed.ciphertext, 'base64');
  if (data.length < TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.nonce, 'base64'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return undefined;
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A stored record's text as a Sealed envelope, or what is wrong with it. */
export function parseSealed(text: string): Sealed | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (!isJsonObject(raw) || raw['kind'] !== SEALED_KIND) return `not a ${SEALED_KIND}`;
  if (raw['version'] !== 1) return `version ${JSON.stringify(raw['version'])} is not one this server reads (1)`;
  const kdf = raw['kdf'];
  if (!isJsonObject(kdf) || kdf['name'] !== 'scrypt') return 'kdf must be scrypt';
  const { N, r, p, salt } = kdf;
  if (typeof N !== 'number' || typeof r !== 'number' || typeof p !== 'number') return 'kdf needs numbers N, r and p';
  const problem = scryptParamsProblem({ N, r, p });
  if (problem) return problem;
  const { nonce, ciphertext } = raw;
  for (const [name, v] of [
    ['kdf.salt', salt],
    ['nonce', nonce],
    ['ciphertext', ciphertext],
  ] as const) {
    if (typeof v !== 'string' || !BASE64.test(v)) return `${name} must be base64`;
  }
  if (Buffer.from(nonce as string, 'base64').length !== NONCE_BYTES) return `nonce must be ${NONCE_BYTES} bytes`;
  return {
    kind: SEALED_KIND,
    version: 1,
    kdf: { name: 'scrypt', salt: salt as string, N, r, p },
    nonce: nonce as string,
    ciphertext: ciphertext as string,
  };
}

/** The key to open `sealed` with this token: its own salt and parameters. */
export const keyFor = (token: string, sealed: Sealed): Promise<SealingKey> =>
  deriveKey(token, Buffer.from(sealed.kdf.salt, 'base64'), { N: sealed.kdf.N, r: sealed.kdf.r, p: sealed.kdf.p });
