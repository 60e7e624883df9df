import { createHash, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactSign, decodeProtectedHeader } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ServiceAccountTokenAuthenticator,
  ServiceAccountTokenIssuer,
  defaultApiAudiences,
  keyIdFromPublicKey,
  loadPublicKeyFiles,
  loadSigningKeyFile,
  parsePrivateKeyPem,
  parsePublicKeysPem,
  serviceAccountClaims,
  signingAlgorithm,
  type LiveObject,
  type ServiceAccountTokenAuthenticatorOptions,
  type ServiceAccountTokenClaims,
} from '../../../../server/authn/service-account-token.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ec384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const ec521 = generateKeyPairSync('ec', { namedCurve: 'P-521' });
const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const NOW = new Date('2026-11-24T12:00:00Z');
const SA = { namespace: 'ns1', name: 'builder', uid: 'sa-uid-1' };

const pem = (k: KeyObject, type: 'pkcs8' | 'pkcs1' | 'sec1' | 'spki'): string =>
  k.export({ type, format: 'pem' } as never) as unknown as string;

function authenticator(
  over: Partial<ServiceAccountTokenAuthenticatorOptions> = {},
  objects: Record<string, LiveObject> = { 'ns1/builder': { uid: SA.uid } },
) {
  return new ServiceAccountTokenAuthenticator({
    issuers: [ISSUER],
    keys: [rsa.publicKey, ec256.publicKey],
    audiences: [ISSUER],
    serviceAccount: async (ns, name) => objects[`${ns}/${name}`],
    secret: async (ns, name) => objects[`secret:${ns}/${name}`],
    now: () => NOW,
    ...over,
  });
}

const claims = (over: Partial<ServiceAccountTokenClaims> = {}): ServiceAccountTokenClaims => ({
  ...serviceAccountClaims(SA, { audiences: [ISSUER], expirationSeconds: 3600, now: NOW, jti: 'jti-1' }),
  ...over,
});

const payloadOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

describe('keys', () => {
  it('kid is the base64url SHA-256 of the DER public key, for private and public halves alike', () => {
    const der = rsa.publicKey.export({ type: 'spki', format: 'der' });
    const want = createHash('sha256').update(der).digest('base64url');
    expect(keyIdFromPublicKey(rsa.publicKey)).toBe(want);
    expect(keyIdFromPublicKey(rsa.privateKey)).toBe(want);
    expect(want).not.toMatch(/[=+/]/);
  });

  it('signing algorithms by key type and curve', () => {
    expect(signingAlgorithm(rsa.privateKey)).toBe('RS256');
    expect(signingAlgorithm(ec256.privateKey)).toBe('ES256');
    expect(signingAlgorithm(ec384.privateKey)).toBe('ES384');
    expect(signingAlgorithm(ec521.privateKey)).toBe('ES512');
    const ed = generateKeyPairSync('ed25519');
    expect(() => signingAlgorithm(ed.privateKey)).toThrow(/unknown private key type ed25519/);
  });

  it('private keys in PKCS#1, SEC1 and PKCS#8', () => {
    expect(keyIdFromPublicKey(parsePrivateKeyPem(pem(rsa.privateKey, 'pkcs1')))).toBe(
      keyIdFromPublicKey(rsa.publicKey),
    );
    expect(keyIdFromPublicKey(parsePrivateKeyPem(pem(ec256.privateKey, 'sec1')))).toBe(
      keyIdFromPublicKey(ec256.publicKey),
    );
    expect(keyIdFromPublicKey(parsePrivateKeyPem(pem(ec256.privateKey, 'pkcs8')))).toBe(
      keyIdFromPublicKey(ec256.publicKey),
    );
    expect(() => parsePrivateKeyPem(pem(rsa.publicKey, 'spki'))).toThrow(
      'data does not contain a valid RSA or ECDSA private key',
    );
    expect(() => parsePrivateKeyPem('garbage')).toThrow('data does not contain a valid RSA or ECDSA private key');
  });

  it('public keys: every block, private halves included, others skipped', () => {
    const file = [
      pem(rsa.publicKey, 'spki'),
      pem(rsa.publicKey, 'pkcs1'),
      pem(ec256.privateKey, 'sec1'),
      '-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n',
    ].join('');
    const keys = parsePublicKeysPem(file);
    expect(keys.map(keyIdFromPublicKey)).toEqual([rsa, rsa, ec256].map((k) => keyIdFromPublicKey(k.publicKey)));
    expect(() => parsePublicKeysPem('nothing')).toThrow('data does not contain any valid RSA or ECDSA public keys');
  });

  describe('files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-keys-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    it('loads signing and verification key files', async () => {
      writeFileSync(join(dir, 'sa.key'), pem(ec256.privateKey, 'sec1'));
      writeFileSync(join(dir, 'sa.pub'), pem(rsa.publicKey, 'spki') + pem(ec256.publicKey, 'spki'));
      writeFileSync(join(dir, 'empty'), '');
      expect(keyIdFromPublicKey(await loadSigningKeyFile(join(dir, 'sa.key')))).toBe(
        keyIdFromPublicKey(ec256.publicKey),
      );
      expect((await loadPublicKeyFiles([join(dir, 'sa.pub'), join(dir, 'sa.key')])).length).toBe(3);
      await expect(loadPublicKeyFiles([join(dir, 'empty')])).rejects.toThrow(
        /failed to parse key file ".*empty": data does not contain any valid RSA or ECDSA public keys/,
      );
      await expect(loadSigningKeyFile(join(dir, 'sa.pub'))).rejects.toThrow(
        'failed to parse service-account-issuer-key-file: data does not contain a valid RSA or ECDSA private key',
      );
    });
  });
});

describe('ServiceAccountTokenIssuer', () => {
  it('signs kube-shaped tokens', async () => {
    const issuer = new ServiceAccountTokenIssuer(ISSUER, pem(rsa.privateKey, 'pkcs1'));
    const token = await issuer.generateToken(
      claims({
        'kubernetes.io': {
          namespace: 'ns1',
          serviceaccount: { name: 'builder', uid: SA.uid },
          secret: { name: 's', uid: 's-uid' },
        },
      }),
    );
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', kid: keyIdFromPublicKey(rsa.publicKey) });
    const payload = payloadOf(token);
    const now = NOW.getTime() / 1000;
    expect(payload).toEqual({
      aud: [ISSUER],
      exp: now + 3600,
      iat: now,
      iss: ISSUER,
      jti: 'jti-1',
      'kubernetes.io': {
        namespace: 'ns1',
        secret: { name: 's', uid: 's-uid' },
        serviceaccount: { name: 'builder', uid: SA.uid },
      },
      nbf: now,
      sub: 'system:serviceaccount:ns1:builder',
    });
    // Keys sorted, as go-jose writes them.
    expect(Object.keys(payload)).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
  });

  it('serviceAccountClaims makes a fresh jti each time', () => {
    const a = serviceAccountClaims(SA, { audiences: ['x'], expirationSeconds: 600, now: NOW });
    const b = serviceAccountClaims(SA, { audiences: ['x'], expirationSeconds: 600, now: NOW });
    expect(a.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.jti).not.toBe(b.jti);
  });

  for (const [name, pair] of [
    ['ES256', ec256],
    ['ES384', ec384],
    ['ES512', ec521],
  ] as const) {
    it(`${name} tokens verify`, async () => {
      const token = await new ServiceAccountTokenIssuer(ISSUER, pair.privateKey).generateToken(claims());
      expect(decodeProtectedHeader(token).alg).toBe(name);
      const out = await authenticator({ keys: [pair.publicKey] }).authenticateToken(token);
      expect(out.kind).toBe('user');
    });
  }
});

describe('ServiceAccountTokenAuthenticator', () => {
  const issuer = new ServiceAccountTokenIssuer(ISSUER, rsa.privateKey);
  const sign = (c: ServiceAccountTokenClaims, i = issuer): Promise<string> => i.generateToken(c);

  it('authenticates: user, uid, groups, credential id', async () => {
    const out = await authenticator().authenticateToken(await sign(claims()));
    expect(out).toEqual({
      kind: 'user',
      audiences: [ISSUER],
      user: {
        name: 'system:serviceaccount:ns1:builder',
        uid: SA.uid,
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1'],
        extra: { 'authentication.kubernetes.io/credential-id': ['JTI=jti-1'] },
      },
    });
  });

  it('no jti: no credential id', async () => {
    const c = claims();
    delete c.jti;
    const out = await authenticator().authenticateToken(await sign(c));
    expect(out.kind === 'user' && out.user.extra).toBeUndefined();
  });

  it('a token of any configured issuer is accepted (a second one too)', async () => {
    const second = new ServiceAccountTokenIssuer('https://old.example', rsa.privateKey);
    const out = await authenticator({ issuers: [ISSUER, 'https://old.example'] }).authenticateToken(
      await sign(claims(), second),
    );
    expect(out.kind).toBe('user');
  });

  it('not mine: other issuers, non-JWS tokens, unknown algorithms', async () => {
    const a = authenticator();
    const foreign = new ServiceAccountTokenIssuer('https://elsewhere', rsa.privateKey);
    expect(await a.authenticateToken(await sign(claims(), foreign))).toEqual({ kind: 'not-mine' });
    expect(await a.authenticateToken('abcdef')).toEqual({ kind: 'not-mine' });
    expect(await a.authenticateToken('a.b.c.d')).toEqual({ kind: 'not-mine' });
    expect(await a.authenticateToken(`x.${Buffer.from('{"iss":1}').toString('base64url')}.y`)).toEqual({
      kind: 'not-mine',
    });
    const hs = await new CompactSign(new TextEncoder().encode(JSON.stringify({ iss: ISSUER })))
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new Uint8Array(32));
    expect(await a.authenticateToken(hs)).toEqual({ kind: 'not-mine' });
  });

  const refused: {
    name: string;
    claims?: Partial<ServiceAccountTokenClaims>;
    objects?: Record<string, LiveObject>;
    opts?: Partial<ServiceAccountTokenAuthenticatorOptions>;
    reason: string;
  }[] = [
    {
      name: 'signed by an unknown key',
      opts: { keys: [other.publicKey] },
      reason: 'go-jose/go-jose: error in cryptographic primitive',
    },
    {
      name: 'several keys, none right: one message',
      opts: { keys: [other.publicKey, ec256.publicKey] },
      reason: 'go-jose/go-jose: error in cryptographic primitive',
    },
    { name: 'no keys', opts: { keys: [] }, reason: 'invalid signature, no keys found' },
    {
      name: 'expired past the leeway',
      claims: { exp: NOW.getTime() / 1000 - 61 },
      reason: 'service account token has expired',
    },
    {
      name: 'not valid yet past the leeway',
      claims: { nbf: NOW.getTime() / 1000 + 61 },
      reason: 'service account token is not valid yet',
    },
    {
      name: 'issued in the future',
      claims: { iat: NOW.getTime() / 1000 + 61 },
      reason: 'service account token is issued in the future',
    },
    {
      name: 'wrong audience',
      claims: { aud: ['https://vault', 'x'] },
      reason: `token audiences ["https://vault" "x"] is invalid for the target audiences ["${ISSUER}"]`,
    },
    { name: 'the ServiceAccount is gone', objects: {}, reason: 'serviceaccounts "builder" not found' },
    {
      name: 'recreated with another uid',
      objects: { 'ns1/builder': { uid: 'new' } },
      reason: `service account UID (new) does not match claim (${SA.uid})`,
    },
    {
      name: 'deleted more than the leeway ago',
      objects: { 'ns1/builder': { uid: SA.uid, deletionTimestamp: '2026-11-24T11:58:59Z' } },
      reason: 'service account ns1/builder has been deleted',
    },
    {
      name: 'bound secret gone',
      claims: {
        'kubernetes.io': {
          namespace: 'ns1',
          serviceaccount: { name: 'builder', uid: SA.uid },
          secret: { name: 's', uid: 's1' },
        },
      },
      reason: 'service account token has been invalidated',
    },
    {
      name: 'bound secret recreated',
      claims: {
        'kubernetes.io': {
          namespace: 'ns1',
          serviceaccount: { name: 'builder', uid: SA.uid },
          secret: { name: 's', uid: 's1' },
        },
      },
      objects: { 'ns1/builder': { uid: SA.uid }, 'secret:ns1/s': { uid: 's2' } },
      reason: 'secret UID (s2) does not match service account secret ref claim (s1)',
    },
    {
      name: 'bound secret deleted',
      claims: {
        'kubernetes.io': {
          namespace: 'ns1',
          serviceaccount: { name: 'builder', uid: SA.uid },
          secret: { name: 's', uid: 's1' },
        },
      },
      objects: {
        'ns1/builder': { uid: SA.uid },
        'secret:ns1/s': { uid: 's1', deletionTimestamp: '2026-11-24T11:00:00Z' },
      },
      reason: 'service account token has been invalidated',
    },
    {
      name: 'bound to a pod (none are served)',
      claims: {
        'kubernetes.io': {
          namespace: 'ns1',
          serviceaccount: { name: 'builder', uid: SA.uid },
          pod: { name: 'p', uid: 'p1' },
        },
      },
      reason: 'service account token has been invalidated',
    },
  ];
  for (const c of refused) {
    it(`refused: ${c.name}`, async () => {
      const a = authenticator(c.opts ?? {}, c.objects ?? { 'ns1/builder': { uid: SA.uid } });
      expect(await a.authenticateToken(await sign(claims(c.claims ?? {})))).toEqual({
        kind: 'error',
        reason: c.reason,
      });
    });
  }

  const accepted: {
    name: string;
    claims?: Partial<ServiceAccountTokenClaims>;
    objects?: Record<string, LiveObject>;
    opts?: Partial<ServiceAccountTokenAuthenticatorOptions>;
  }[] = [
    { name: 'expired within the leeway', claims: { exp: NOW.getTime() / 1000 - 59 } },
    { name: 'nbf within the leeway', claims: { nbf: NOW.getTime() / 1000 + 59, iat: NOW.getTime() / 1000 + 59 } },
    { name: 'no exp at all', claims: { exp: undefined } },
    { name: 'a token without aud is taken as meant for the API', claims: { aud: undefined } },
    { name: 'one of several audiences matches', claims: { aud: ['x', ISSUER] } },
    { name: 'any audience when none is configured', claims: { aud: ['x'] }, opts: { audiences: [] } },
    {
      name: 'deletion within the leeway',
      objects: { 'ns1/builder': { uid: SA.uid, deletionTimestamp: '2026-11-24T11:59:30Z' } },
    },
    {
      name: 'bound secret alive',
      claims: {
        'kubernetes.io': {
          namespace: 'ns1',
          serviceaccount: { name: 'builder', uid: SA.uid },
          secret: { name: 's', uid: 's1' },
        },
      },
      objects: { 'ns1/builder': { uid: SA.uid }, 'secret:ns1/s': { uid: 's1' } },
    },
  ];
  for (const c of accepted) {
    it(`accepted: ${c.name}`, async () => {
      const a = authenticator(c.opts ?? {}, c.objects ?? { 'ns1/builder': { uid: SA.uid } });
      const out = await a.authenticateToken(await sign(JSON.parse(JSON.stringify(claims(c.claims ?? {})))));
      expect(out.kind).toBe('user');
    });
  }

  it('the audiences answered are the intersection', async () => {
    const out = await authenticator({ audiences: ['a', 'b', 'c'] }).authenticateToken(
      await sign(claims({ aud: ['c', 'x', 'a'] })),
    );
    expect(out.kind === 'user' && out.audiences).toEqual(['c', 'a']);
  });

  it('the lookup failing is the refusal', async () => {
    const a = authenticator({
      serviceAccount: async () => {
        throw new Error('etcdserver: request timed out');
      },
    });
    expect(await a.authenticateToken(await sign(claims()))).toEqual({
      kind: 'error',
      reason: 'etcdserver: request timed out',
    });
  });

  it('claims of the wrong type are refused', async () => {
    const bad = await new CompactSign(new TextEncoder().encode(JSON.stringify({ iss: ISSUER, exp: 'soon' })))
      .setProtectedHeader({ alg: 'RS256' })
      .sign(rsa.privateKey);
    const out = await authenticator().authenticateToken(bad);
    expect(out.kind).toBe('error');
  });

  it('a public key given as its private half verifies', async () => {
    const out = await authenticator({ keys: [createPublicKey(rsa.privateKey)] }).authenticateToken(
      await sign(claims()),
    );
    expect(out.kind).toBe('user');
  });
});

describe('defaultApiAudiences', () => {
  it('the first issuer when unset', () => {
    expect(defaultApiAudiences(['a', 'b'], [])).toEqual(['a']);
    expect(defaultApiAudiences(['a'], ['x', 'y'])).toEqual(['x', 'y']);
    expect(defaultApiAudiences([], [])).toEqual([]);
  });
});
