import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ServiceAccountTokenAuthenticator,
  ServiceAccountTokenIssuer,
  type LiveObject,
} from '../../../../server/authn/service-account-token.js';
import {
  decodeTokenRequest,
  issueTokenRequest,
  prepareTokenRequest,
  validateTokenRequest,
  type TokenRequest,
  type TokenRequestContext,
} from '../../../../server/authn/token-request.js';

const ISSUER = 'https://kubernetes.default.svc';
const SA = { metadata: { name: 'builder', namespace: 'ns1', uid: 'sa-uid' } };
const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const issuer = new ServiceAccountTokenIssuer(ISSUER, keys.privateKey);

const ctx = (
  over: Partial<TokenRequestContext> = {},
  secrets: Record<string, LiveObject> = { s1: { uid: 'secret-uid' } },
): TokenRequestContext => ({
  namespace: 'ns1',
  name: 'builder',
  serviceAccount: SA,
  apiAudiences: [ISSUER],
  secret: async (_ns, name) => secrets[name],
  ...over,
});

const body = (spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'authentication.k8s.io/v1',
  kind: 'TokenRequest',
  metadata,
  spec,
});

describe('decodeTokenRequest / validateTokenRequest', () => {
  it('defaults expirationSeconds to 3600 and audiences to none', () => {
    const req = decodeTokenRequest({}) as TokenRequest;
    expect(req.spec).toEqual({ audiences: [], expirationSeconds: 3600 });
    expect(validateTokenRequest(req)).toEqual([]);
  });

  it.each([
    [599, 'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes'],
    [0, 'spec.expirationSeconds: Invalid value: 0: may not specify a duration less than 10 minutes'],
    [-5, 'spec.expirationSeconds: Invalid value: -5: may not specify a duration less than 10 minutes'],
    [
      2 ** 32 + 1,
      'spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
    ],
  ])('expirationSeconds %d is invalid', async (exp, message) => {
    const out = await prepareTokenRequest(body({ expirationSeconds: exp }), ctx());
    expect(out.kind).toBe('error');
    if (out.kind !== 'error') return;
    expect(out.error.status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: `TokenRequest.authentication.k8s.io "" is invalid: ${message}`,
      details: { group: 'authentication.k8s.io', kind: 'TokenRequest' },
    });
  });

  it.each([600, 2 ** 32])('expirationSeconds %d is valid', async (exp) => {
    expect((await prepareTokenRequest(body({ expirationSeconds: exp }), ctx())).kind).toBe('ok');
  });

  it('type errors are 400s', async () => {
    const out = await prepareTokenRequest(body({ expirationSeconds: 'an hour' }), ctx());
    expect(out.kind === 'error' && out.error.status.code).toBe(400);
    const aud = await prepareTokenRequest(body({ audiences: 'x' }), ctx());
    expect(aud.kind === 'error' && aud.error.status.code).toBe(400);
  });
});

describe('prepareTokenRequest', () => {
  const errors: { name: string; body: unknown; ctx?: Partial<TokenRequestContext>; code: number; message: string }[] = [
    {
      name: 'name mismatch',
      body: body({}, { name: 'other' }),
      code: 422,
      message:
        'TokenRequest.authentication.k8s.io "builder" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
    },
    {
      name: 'namespace mismatch',
      body: body({}, { namespace: 'ns2' }),
      code: 422,
      message:
        'TokenRequest.authentication.k8s.io "builder" is invalid: metadata.namespace: Invalid value: "ns2": must match the service account namespace if specified',
    },
    {
      name: 'no such ServiceAccount',
      body: body(),
      ctx: { serviceAccount: undefined },
      code: 404,
      message: 'serviceaccounts "builder" not found',
    },
    {
      name: 'bound to a ConfigMap',
      body: body({ boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'c' } }),
      code: 400,
      message: 'cannot bind token to object of type /v1, Kind=ConfigMap',
    },
    {
      name: 'bound to a grouped kind',
      body: body({ boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'd' } }),
      code: 400,
      message: 'cannot bind token to object of type apps/v1, Kind=Deployment',
    },
    {
      name: 'bound to a missing Secret',
      body: body({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'nope' } }),
      code: 404,
      message: 'secrets "nope" not found',
    },
    {
      name: 'bound to a Pod (none served)',
      body: body({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } }),
      code: 404,
      message: 'pods "p" not found',
    },
    {
      name: 'bound Secret uid mismatch',
      body: body({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's1', uid: 'old' } }),
      code: 409,
      message:
        'Operation cannot be fulfilled on Secret "s1": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated',
    },
  ];
  for (const c of errors) {
    it(c.name, async () => {
      const out = await prepareTokenRequest(c.body, ctx(c.ctx ?? {}));
      expect(out.kind).toBe('error');
      if (out.kind === 'error') expect(out.error.status).toMatchObject({ code: c.code, message: c.message });
    });
  }

  it('defaults audiences to the API audiences and fills name and namespace', async () => {
    const out = await prepareTokenRequest(body(), ctx({ apiAudiences: ['a', 'b'] }));
    expect(out.kind === 'ok' && out.request.spec.audiences).toEqual(['a', 'b']);
    expect(out.kind === 'ok' && out.request.metadata).toMatchObject({ name: 'builder', namespace: 'ns1' });
  });

  it("clamps to the maximum expiration with kube's warning", async () => {
    const out = await prepareTokenRequest(body({ expirationSeconds: 100000 }), ctx({ maxExpirationSeconds: 86400 }));
    expect(out.kind === 'ok' && out.request.spec.expirationSeconds).toBe(86400);
    expect(out.kind === 'ok' && out.warnings).toEqual([
      'requested expiration of 100000 seconds shortened to 86400 seconds',
    ]);
  });
});

describe('issueTokenRequest', () => {
  const now = new Date('2026-11-24T12:00:00.750Z');

  it('answers the token and its expiry; the token authenticates as the ServiceAccount', async () => {
    const prepared = await prepareTokenRequest(body({ audiences: [ISSUER], expirationSeconds: 1200 }), ctx());
    if (prepared.kind !== 'ok') throw new Error('not ok');
    const out = await issueTokenRequest(prepared, issuer, now);
    expect(out).toMatchObject({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { name: 'builder', namespace: 'ns1', creationTimestamp: '2026-11-24T12:00:00Z' },
      spec: { audiences: [ISSUER], expirationSeconds: 1200 },
      status: { expirationTimestamp: '2026-11-24T12:20:00Z' },
    });
    const payload = JSON.parse(Buffer.from(out.status!.token.split('.')[1]!, 'base64url').toString('utf8'));
    expect(payload).toMatchObject({
      iss: ISSUER,
      sub: 'system:serviceaccount:ns1:builder',
      aud: [ISSUER],
      exp: Date.parse('2026-11-24T12:20:00Z') / 1000,
    });
    const authn = new ServiceAccountTokenAuthenticator({
      issuers: [ISSUER],
      keys: [keys.publicKey],
      audiences: [ISSUER],
      serviceAccount: async () => ({ uid: 'sa-uid' }),
      now: () => now,
    });
    const result = await authn.authenticateToken(out.status!.token);
    expect(result.kind === 'user' && result.user.name).toBe('system:serviceaccount:ns1:builder');
  });

  it('a Secret-bound token names the Secret, and dies with it', async () => {
    const prepared = await prepareTokenRequest(
      body({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's1', uid: 'secret-uid' } }),
      ctx(),
    );
    if (prepared.kind !== 'ok') throw new Error('not ok');
    const out = await issueTokenRequest(prepared, issuer, now);
    expect(out.spec.boundObjectRef).toEqual({ kind: 'Secret', apiVersion: 'v1', name: 's1', uid: 'secret-uid' });
    const payload = JSON.parse(Buffer.from(out.status!.token.split('.')[1]!, 'base64url').toString('utf8'));
    expect(payload['kubernetes.io']).toEqual({
      namespace: 'ns1',
      secret: { name: 's1', uid: 'secret-uid' },
      serviceaccount: { name: 'builder', uid: 'sa-uid' },
    });
    const authn = (secret: LiveObject | undefined) =>
      new ServiceAccountTokenAuthenticator({
        issuers: [ISSUER],
        keys: [keys.publicKey],
        audiences: [ISSUER],
        serviceAccount: async () => ({ uid: 'sa-uid' }),
        secret: async () => secret,
        now: () => now,
      });
    expect((await authn({ uid: 'secret-uid' }).authenticateToken(out.status!.token)).kind).toBe('user');
    expect(await authn(undefined).authenticateToken(out.status!.token)).toEqual({
      kind: 'error',
      reason: 'service account token has been invalidated',
    });
  });
});
