// ServiceAccount tokens as kube issues and checks them (pkg/serviceaccount/jwt.go, claims.go): a JWS
// signed with --service-account-signing-key-file, `kid` the base64url SHA-256 of the DER public key,
// the public claims iss/sub/aud/iat/nbf/exp/jti and the private `kubernetes.io` claim naming the
// namespace, the ServiceAccount and a bound Secret. Verification tries every --service-account-key-file
// key, checks issuer, audiences and times (one minute of leeway, go-jose's), then that the
// ServiceAccount (and bound Secret) still exist with the uid the token names.
import { aggregateErrors } from '../../apimachinery/errors.js';
import { createHash, createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { goQuote } from '../../apimachinery/quote.js';
import { type UserInfo, makeServiceAccountGroupNames, makeServiceAccountUsername } from '../../apimachinery/user.js';
import { CREDENTIAL_ID_KEY } from './service-account-user.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { systemClock } from '../../apimachinery/clock.js';
import { type PEMBlock, pemBlocks } from '../../apimachinery/pem.js';

let joseLoaded: Promise<typeof import('jose')> | undefined;
/** jose (an ES module of some fifty files), imported with the first token signed or verified, not at start-up. */
const jose = (): Promise<typeof import('jose')> => (joseLoaded ??= import('jose'));

/** go-jose's jwt.DefaultLeeway. */
const LEEWAY_SECONDS = 60;
/** The algorithms kube's JWT authenticator parses tokens with. */
const ALLOWED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

type SigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

// ---- keys --------------------------------------------------------------------------------------

const isRsaOrEc = (k: KeyObject): boolean => k.asymmetricKeyType === 'rsa' || k.asymmetricKeyType === 'ec';

/** The PEM block types keyutil reads private keys from, and their DER encodings. */
const PRIVATE_KEY_DER: Readonly<Record<string, 'pkcs1' | 'sec1' | 'pkcs8'>> = {
  'RSA PRIVATE KEY': 'pkcs1',
  'EC PRIVATE KEY': 'sec1',
  'PRIVATE KEY': 'pkcs8',
};
const PUBLIC_KEY_DER: Readonly<Record<string, 'spki' | 'pkcs1'>> = { 'PUBLIC KEY': 'spki', 'RSA PUBLIC KEY': 'pkcs1' };

const privateKeyOf = (block: PEMBlock): KeyObject | undefined => {
  const type = PRIVATE_KEY_DER[block.type];
  return type && createPrivateKey({ key: block.der, format: 'der', type });
};

/** keyutil.ParsePrivateKeyPEM: the first RSA or ECDSA private key (PKCS#1, SEC1 or PKCS#8) of a PEM file. */
export function parsePrivateKeyPem(pem: string): KeyObject {
  for (const block of pemBlocks(pem)) {
    try {
      const key = privateKeyOf(block);
      if (key && isRsaOrEc(key)) return key;
    } catch {
      // As kube: a block that does not parse is skipped.
    }
  }
  throw new Error('data does not contain a valid RSA or ECDSA private key');
}

/** keyutil.ParsePublicKeysPEM: every RSA or ECDSA public key of a PEM file, the public half of private keys included. */
export function parsePublicKeysPem(pem: string): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const block of pemBlocks(pem)) {
    try {
      const type = PUBLIC_KEY_DER[block.type];
      const privateKey = type ? undefined : privateKeyOf(block);
      const key = type
        ? createPublicKey({ key: block.der, format: 'der', type })
        : privateKey && createPublicKey(privateKey);
      if (key && isRsaOrEc(key)) keys.push(key);
    } catch {
      // Skipped, as kube skips blocks it cannot read.
    }
  }
  if (keys.length === 0) throw new Error('data does not contain any valid RSA or ECDSA public keys');
  return keys;
}

/** `--service-account-key-file`s: all their public keys, named in the error when one has none. */
export async function loadPublicKeyFiles(paths: readonly string[]): Promise<KeyObject[]> {
  const keys: KeyObject[] = [];
  for (const path of paths) {
    try {
      keys.push(...parsePublicKeysPem(readFileSync(path, 'utf8')));
    } catch (err) {
      throw new Error(`failed to parse key file ${goQuote(path)}: ${(err as Error).message}`);
    }
  }
  return keys;
}

/** `--service-account-signing-key-file`. */
export async function loadSigningKeyFile(path: string): Promise<KeyObject> {
  try {
    return parsePrivateKeyPem(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`failed to parse service-account-issuer-key-file: ${(err as Error).message}`);
  }
}

/** kube's keyIDFromPublicKey: base64url (unpadded) SHA-256 of the PKIX DER public key. */
export function keyIdFromPublicKey(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

/** The algorithm kube signs with for a key: RS256, or ES256/384/512 by curve. */
export function signingAlgorithm(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    switch (key.asymmetricKeyDetails?.namedCurve) {
      case 'prime256v1':
        return 'ES256';
      case 'secp384r1':
        return 'ES384';
      case 'secp521r1':
        return 'ES512';
    }
  }
  throw new Error(
    `unknown private key type ${key.asymmetricKeyType ?? ''}, must be *rsa.PrivateKey, *ecdsa.PrivateKey`,
  );
}

// ---- claims ------------------------------------------------------------------------------------

interface ObjectRef {
  name: string;
  uid: string;
}

/** The private `kubernetes.io` claim. */
interface KubernetesClaim {
  namespace?: string;
  serviceaccount?: ObjectRef;
  secret?: ObjectRef;
  pod?: ObjectRef;
  node?: ObjectRef;
  warnafter?: number;
}

export interface ServiceAccountTokenClaims {
  iss?: string;
  sub?: string;
  aud?: string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
  'kubernetes.io'?: KubernetesClaim;
}

interface ServiceAccountIdentity {
  namespace: string;
  name: string;
  uid: string;
}

/**
 * kube's token.Claims: sub, aud, iat = nbf = now, exp = now + expirationSeconds, a fresh jti, and the
 * private claim with the ServiceAccount and, for a Secret-bound token, the Secret.
 */
export function serviceAccountClaims(
  sa: ServiceAccountIdentity,
  opts: { audiences: readonly string[]; expirationSeconds: number; secret?: ObjectRef; now: Date; jti?: string },
): ServiceAccountTokenClaims {
  const now = Math.floor(opts.now.getTime() / 1000);
  const k8s: KubernetesClaim = { namespace: sa.namespace, serviceaccount: { name: sa.name, uid: sa.uid } };
  if (opts.secret) k8s.secret = { name: opts.secret.name, uid: opts.secret.uid };
  return {
    aud: [...opts.audiences],
    exp: now + opts.expirationSeconds,
    iat: now,
    jti: opts.jti ?? randomUUID(),
    'kubernetes.io': k8s,
    nbf: now,
    sub: makeServiceAccountUsername(sa.namespace, sa.name),
  };
}

/** JSON with object keys sorted, as go-jose's claim merging through map[string]interface{} writes them. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isJsonObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** What signs a TokenRequest's token: an issuer, or whichever one a rotation made current. */
export interface TokenSigner {
  generateToken(claims: ServiceAccountTokenClaims): Promise<string>;
}

/** Signs ServiceAccount tokens with the first --service-account-issuer as `iss`. */
export class ServiceAccountTokenIssuer implements TokenSigner {
  readonly keyId: string;
  readonly algorithm: SigningAlgorithm;
  private readonly key: KeyObject;

  constructor(
    readonly issuer: string,
    signingKey: KeyObject | string,
  ) {
    this.key = typeof signingKey === 'string' ? parsePrivateKeyPem(signingKey) : signingKey;
    this.algorithm = signingAlgorithm(this.key);
    this.keyId = keyIdFromPublicKey(this.key);
  }

  /** The compact JWS of `claims`, `iss` set to the issuer. */
  async generateToken(claims: ServiceAccountTokenClaims): Promise<string> {
    const payload = new TextEncoder().encode(sortedJson({ ...claims, iss: this.issuer }));
    const { CompactSign } = await jose();
    return new CompactSign(payload).setProtectedHeader({ alg: this.algorithm, kid: this.keyId }).sign(this.key);
  }
}

// ---- authentication ----------------------------------------------------------------------------

/** What the integrator's lookup knows of a live object; undefined when it does not exist. */
export interface LiveObject {
  uid: string;
  /** RFC 3339, when the object is being deleted. */
  deletionTimestamp?: string;
}

export type ObjectLookup = (namespace: string, name: string) => Promise<LiveObject | undefined>;

type TokenAuthOutcome =
  /** Not a token of these issuers (or not a JWS): other authenticators decide. */
  | { kind: 'not-mine' }
  | { kind: 'user'; user: UserInfo; audiences: string[] }
  /** Ours and refused: a 401, with kube's reason for the log. */
  | { kind: 'error'; reason: string };

export interface ServiceAccountTokenAuthenticatorOptions {
  /** --service-account-issuer values: a token from any of them is accepted. */
  issuers: readonly string[];
  /** --service-account-key-file keys (public, or private ones whose public half is used). */
  keys: readonly KeyObject[];
  /** --api-audiences (default: the first issuer). A token must name one of them; one naming none is taken as meant for them. */
  audiences: readonly string[];
  serviceAccount: ObjectLookup;
  /** Secrets, for Secret-bound tokens; without it such a token is refused. */
  secret?: ObjectLookup;
  now?: () => Date;
}

/** Go's `%q` of a []string: `["a" "b"]`. */
const quoteList = (list: readonly string[]): string => `[${list.map(goQuote).join(' ')}]`;

/** The payload's `iss`, read before any signature check as kube's hasCorrectIssuer does. */
function unverifiedIssuer(token: string): string | undefined {
  if (token.trim().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3 || !/^[A-Za-z0-9_-]*$/.test(parts[1]!) || parts[1]!.length % 4 === 1) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return isJsonObject(claims) && typeof claims.iss === 'string' ? claims.iss : undefined;
  } catch {
    return undefined;
  }
}

class ClaimsError extends Error {}

function numericDate(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number')
    throw new ClaimsError(
      `json: cannot unmarshal ${typeof v} into Go struct field Claims.${name} of type jwt.NumericDate`,
    );
  return Math.trunc(v);
}

function objectRef(v: unknown): ObjectRef | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isJsonObject(v))
    throw new ClaimsError('json: cannot unmarshal into Go struct field kubernetes.io of type serviceaccount.ref');
  return { name: typeof v.name === 'string' ? v.name : '', uid: typeof v.uid === 'string' ? v.uid : '' };
}

/** The claims as go-jose and kube's privateClaims decode them; wrong types are an error. */
function decodeClaims(payload: Uint8Array): ServiceAccountTokenClaims {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(payload));
  } catch (err) {
    throw new ClaimsError(`invalid character in claims: ${(err as Error).message}`);
  }
  if (!isJsonObject(raw)) throw new ClaimsError('json: cannot unmarshal claims into Go value of type jwt.Claims');
  const str = (v: unknown, name: string): string | undefined => {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string')
      throw new ClaimsError(`json: cannot unmarshal ${typeof v} into Go struct field Claims.${name} of type string`);
    return v;
  };
  let aud: string[] | undefined;
  if (typeof raw.aud === 'string') aud = [raw.aud];
  else if (Array.isArray(raw.aud) && raw.aud.every((a): a is string => typeof a === 'string')) aud = raw.aud;
  else if (raw.aud !== undefined && raw.aud !== null)
    throw new ClaimsError('go-jose/go-jose/jwt: expected string or array value to unmarshal to Audience');
  const claims: ServiceAccountTokenClaims = {};
  const iss = str(raw.iss, 'iss');
  const sub = str(raw.sub, 'sub');
  const jti = str(raw.jti, 'jti');
  const exp = numericDate(raw.exp, 'exp');
  const nbf = numericDate(raw.nbf, 'nbf');
  const iat = numericDate(raw.iat, 'iat');
  if (iss !== undefined) claims.iss = iss;
  if (sub !== undefined) claims.sub = sub;
  if (aud !== undefined) claims.aud = aud;
  if (jti !== undefined) claims.jti = jti;
  if (exp !== undefined) claims.exp = exp;
  if (nbf !== undefined) claims.nbf = nbf;
  if (iat !== undefined) claims.iat = iat;
  const k = raw['kubernetes.io'];
  if (k !== undefined && k !== null) {
    if (!isJsonObject(k))
      throw new ClaimsError(
        'json: cannot unmarshal into Go struct field privateClaims.kubernetes.io of type serviceaccount.kubernetes',
      );
    const k8s: KubernetesClaim = {};
    if (typeof k.namespace === 'string') k8s.namespace = k.namespace;
    for (const field of ['serviceaccount', 'secret', 'pod', 'node'] as const) {
      const ref = objectRef(k[field]);
      if (ref) k8s[field] = ref;
    }
    const warnafter = numericDate(k.warnafter, 'warnafter');
    if (warnafter !== undefined) k8s.warnafter = warnafter;
    claims['kubernetes.io'] = k8s;
  }
  return claims;
}

const INVALIDATED = 'service account token has been invalidated';

/**
 * kube's JWT token authenticator with the ServiceAccount validator: a token whose payload names
 * another issuer, or that is no JWS, is not ours; one that is ours is either the ServiceAccount's
 * user or refused with kube's reason.
 */
export class ServiceAccountTokenAuthenticator {
  private readonly issuers: Set<string>;
  private keys: { key: KeyObject; kid: string }[] = [];
  private readonly now: () => Date;

  constructor(private readonly opts: ServiceAccountTokenAuthenticatorOptions) {
    this.issuers = new Set(opts.issuers);
    this.setKeys(opts.keys);
    this.now = opts.now ?? (() => new Date(systemClock.now()));
  }

  /** The verifying keys from now on (a rotation of the shared identity adds one). */
  setKeys(keys: readonly KeyObject[]): void {
    this.keys = keys.map((key) => ({ key, kid: keyIdFromPublicKey(key) }));
  }

  async authenticateToken(token: string): Promise<TokenAuthOutcome> {
    const iss = unverifiedIssuer(token);
    if (iss === undefined || !this.issuers.has(iss)) return { kind: 'not-mine' };
    const { compactVerify, decodeProtectedHeader } = await jose();
    let kid: string | undefined;
    try {
      const header = decodeProtectedHeader(token);
      if (typeof header.alg !== 'string' || !ALLOWED_ALGORITHMS.includes(header.alg)) return { kind: 'not-mine' };
      kid = typeof header.kid === 'string' ? header.kid : undefined;
    } catch {
      return { kind: 'not-mine' };
    }
    if (this.keys.length === 0) return { kind: 'error', reason: 'invalid signature, no keys found' };
    // The key the kid names first; kube tries them all.
    const ordered = [...this.keys.filter((k) => k.kid === kid), ...this.keys.filter((k) => k.kid !== kid)];
    const errors: string[] = [];
    let claims: ServiceAccountTokenClaims | undefined;
    for (const { key } of ordered) {
      let payload: Uint8Array;
      try {
        payload = (await compactVerify(token, key, { algorithms: ALLOWED_ALGORITHMS })).payload;
      } catch {
        errors.push('go-jose/go-jose: error in cryptographic primitive');
        continue;
      }
      try {
        claims = decodeClaims(payload);
        break;
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    if (!claims) return { kind: 'error', reason: aggregateErrors(errors) };
    if (claims.iss === undefined || !this.issuers.has(claims.iss))
      return { kind: 'error', reason: `token issuer ${goQuote(claims.iss ?? '')} is invalid` };

    const apiAudiences = [...this.opts.audiences];
    const tokenAudiences = claims.aud && claims.aud.length > 0 ? claims.aud : apiAudiences;
    const audiences = tokenAudiences.filter((a) => apiAudiences.includes(a));
    if (audiences.length === 0 && apiAudiences.length > 0) {
      return {
        kind: 'error',
        reason: `token audiences ${quoteList(tokenAudiences)} is invalid for the target audiences ${quoteList(apiAudiences)}`,
      };
    }
    const reason = await this.validate(claims);
    if (typeof reason === 'string') return { kind: 'error', reason };
    return { kind: 'user', user: reason, audiences };
  }

  /** kube's claims.go validator: times, then the live objects. A string is the refusal. */
  private async validate(claims: ServiceAccountTokenClaims): Promise<string | UserInfo> {
    const nowMs = this.now().getTime();
    const leewayMs = LEEWAY_SECONDS * 1000;
    if (claims.nbf !== undefined && nowMs + leewayMs < claims.nbf * 1000)
      return 'service account token is not valid yet';
    if (claims.exp !== undefined && nowMs - leewayMs > claims.exp * 1000) return 'service account token has expired';
    if (claims.iat !== undefined && nowMs + leewayMs < claims.iat * 1000)
      return 'service account token is issued in the future';

    // Objects deleted before now - leeway are gone; a moment's grace covers a delete in flight.
    const deletedBefore = (o: LiveObject): boolean =>
      o.deletionTimestamp !== undefined && Date.parse(o.deletionTimestamp) < nowMs - leewayMs;
    const k8s = claims['kubernetes.io'] ?? {};
    const namespace = k8s.namespace ?? '';
    const saRef = k8s.serviceaccount ?? { name: '', uid: '' };
    let sa: LiveObject | undefined;
    try {
      sa = await this.opts.serviceAccount(namespace, saRef.name);
    } catch (err) {
      return (err as Error).message;
    }
    if (!sa) return `serviceaccounts ${goQuote(saRef.name)} not found`;
    if (sa.uid !== saRef.uid) return `service account UID (${sa.uid}) does not match claim (${saRef.uid})`;
    if (deletedBefore(sa)) return `service account ${namespace}/${saRef.name} has been deleted`;

    if (k8s.secret) {
      let secret: LiveObject | undefined;
      try {
        secret = this.opts.secret ? await this.opts.secret(namespace, k8s.secret.name) : undefined;
      } catch {
        secret = undefined;
      }
      if (!secret) return INVALIDATED;
      if (secret.uid !== k8s.secret.uid)
        return `secret UID (${secret.uid}) does not match service account secret ref claim (${k8s.secret.uid})`;
      if (deletedBefore(secret)) return INVALIDATED;
    }
    // No Pods or Nodes are served here, so a token bound to one is bound to something that is gone.
    if (k8s.pod || k8s.node) return INVALIDATED;

    const user: UserInfo = {
      name: makeServiceAccountUsername(namespace, saRef.name),
      uid: saRef.uid,
      groups: makeServiceAccountGroupNames(namespace),
    };
    if (claims.jti) user.extra = { [CREDENTIAL_ID_KEY]: [`JTI=${claims.jti}`] };
    return user;
  }
}

/** --api-audiences as kube completes it: when unset, the first --service-account-issuer. */
export function defaultApiAudiences(issuers: readonly string[], apiAudiences: readonly string[]): string[] {
  if (apiAudiences.length > 0) return [...apiAudiences];
  return issuers.length > 0 ? [issuers[0]!] : [];
}
