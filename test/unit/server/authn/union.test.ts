import { generateKeyPairSync } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserInfo } from '../../../../apimachinery/user.js';
import { BEARER_PROTOCOL_PREFIX, TokenAuthenticator } from '../../../../server/authn/bearer.js';
import { impersonate, stripImpersonationHeaders } from '../../../../server/authn/impersonation.js';
import {
  ServiceAccountTokenAuthenticator,
  ServiceAccountTokenIssuer,
  serviceAccountClaims,
} from '../../../../server/authn/service-account-token.js';
import { UnionAuthenticator, withAuthenticatedGroup } from '../../../../server/authn/union.js';
import type { X509Authenticator, X509Outcome } from '../../../../server/authn/x509.js';

const ISSUER = 'https://kubernetes.default.svc';
const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const issuer = new ServiceAccountTokenIssuer(ISSUER, keys.privateKey);
const admin: UserInfo = { name: 'admin', uid: 'a1', groups: ['system:masters'] };
const tokens = new TokenAuthenticator([
  { token: 'admin-token', user: admin },
  { token: 'has space', user: { name: 'spacey', groups: [] } },
  { token: 'anon-token', user: { name: 'system:anonymous', groups: [] } },
  { token: 'authd-token', user: { name: 'carol', groups: ['system:authenticated', 'x'] } },
]);
const serviceAccounts = new ServiceAccountTokenAuthenticator({
  issuers: [ISSUER],
  keys: [keys.publicKey],
  audiences: [ISSUER],
  serviceAccount: async (ns, name) => (ns === 'ns1' && name === 'builder' ? { uid: 'sa-uid' } : undefined),
});

const saToken = (uid = 'sa-uid', exp = 3600): Promise<string> =>
  issuer.generateToken(
    serviceAccountClaims(
      { namespace: 'ns1', name: 'builder', uid },
      { audiences: [ISSUER], expirationSeconds: exp, now: new Date(), jti: 'j1' },
    ),
  );

const fakeX509 = (outcome: X509Outcome): X509Authenticator =>
  ({ authenticate: () => outcome }) as unknown as X509Authenticator;

const req = (headers: Record<string, string>): IncomingMessage =>
  ({ headers: { ...headers }, socket: {} }) as unknown as IncomingMessage;
const ws = (protocols: string): Record<string, string> => ({
  upgrade: 'websocket',
  connection: 'Upgrade',
  'sec-websocket-protocol': protocols,
});
const proto = (token: string): string => BEARER_PROTOCOL_PREFIX + Buffer.from(token).toString('base64url');

describe('withAuthenticatedGroup', () => {
  it.each<[UserInfo, string[]]>([
    [{ name: 'a', groups: [] }, ['system:authenticated']],
    [{ name: 'a', groups: ['x'] }, ['x', 'system:authenticated']],
    [{ name: 'a', groups: ['system:authenticated', 'x'] }, ['system:authenticated', 'x']],
    [{ name: 'a', groups: ['system:unauthenticated'] }, ['system:unauthenticated']],
    [{ name: 'system:anonymous', groups: [] }, []],
  ])('%j', (user, groups) => expect(withAuthenticatedGroup(user).groups).toEqual(groups));

  it('does not change the shared user', () => {
    withAuthenticatedGroup(admin);
    expect(admin.groups).toEqual(['system:masters']);
  });
});

describe('UnionAuthenticator', () => {
  const union = new UnionAuthenticator({ tokens, serviceAccounts });

  it('no credentials: anonymous', async () => {
    expect(await union.authenticate(req({}))).toEqual({ kind: 'anonymous' });
  });

  it('a token-file token: its user plus system:authenticated; the header is removed', async () => {
    const r = req({ authorization: 'Bearer admin-token' });
    expect(await union.authenticate(r)).toEqual({
      kind: 'user',
      user: { name: 'admin', uid: 'a1', groups: ['system:masters', 'system:authenticated'] },
    });
    expect(r.headers.authorization).toBeUndefined();
  });

  it('a ServiceAccount token', async () => {
    const r = req({ authorization: `Bearer ${await saToken()}` });
    expect(await union.authenticate(r)).toEqual({
      kind: 'user',
      user: {
        name: 'system:serviceaccount:ns1:builder',
        uid: 'sa-uid',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': ['JTI=j1'] },
      },
    });
    expect(r.headers.authorization).toBeUndefined();
  });

  it('system:authenticated is not added twice, nor to system:anonymous', async () => {
    const carol = await union.authenticate(req({ authorization: 'Bearer authd-token' }));
    expect(carol.kind === 'user' && carol.user.groups).toEqual(['system:authenticated', 'x']);
    const anon = await union.authenticate(req({ authorization: 'Bearer anon-token' }));
    expect(anon.kind === 'user' && anon.user.groups).toEqual([]);
  });

  it('an unknown token: invalid bearer token', async () => {
    const r = req({ authorization: 'Bearer nope' });
    expect(await union.authenticate(r)).toEqual({ kind: 'invalid', reason: 'invalid bearer token' });
    expect(r.headers.authorization).toBe('Bearer nope');
  });

  it('a refused ServiceAccount token: its reason', async () => {
    expect(await union.authenticate(req({ authorization: `Bearer ${await saToken('old-uid')}` }))).toEqual({
      kind: 'invalid',
      reason: 'service account UID (sa-uid) does not match claim (old-uid)',
    });
  });

  it('WebSocket subprotocol tokens: token file and ServiceAccount; the token protocol is removed', async () => {
    const r1 = req(ws(`${proto('admin-token')}, v4.channel.k8s.io`));
    expect((await union.authenticate(r1)).kind).toBe('user');
    expect(r1.headers['sec-websocket-protocol']).toBe('v4.channel.k8s.io');
    const r2 = req(ws(`${proto(await saToken())}, v4.channel.k8s.io`));
    const out = await union.authenticate(r2);
    expect(out.kind === 'user' && out.user.name).toBe('system:serviceaccount:ns1:builder');
    expect(r2.headers['sec-websocket-protocol']).toBe('v4.channel.k8s.io');
    // A token with a space, which only the subprotocol can carry.
    const r3 = req(ws(`${proto('has space')}, v4.channel.k8s.io`));
    expect((await union.authenticate(r3)).kind).toBe('user');
  });

  it("WebSocket errors: kube's reasons", async () => {
    expect(await union.authenticate(req(ws(proto('admin-token'))))).toEqual({
      kind: 'invalid',
      reason: 'missing additional subprotocol',
    });
    expect(await union.authenticate(req(ws(`${proto('nope')}, x`)))).toEqual({
      kind: 'invalid',
      reason: 'invalid token',
    });
  });

  it('a bad header token and a good subprotocol token: the subprotocol wins (first success)', async () => {
    const out = await union.authenticate(req({ authorization: 'Bearer nope', ...ws(`${proto('admin-token')}, x`) }));
    expect(out.kind === 'user' && out.user.name).toBe('admin');
  });

  it('the header is tried before the subprotocol', async () => {
    const out = await union.authenticate(
      req({ authorization: `Bearer ${await saToken()}`, ...ws(`${proto('admin-token')}, x`) }),
    );
    expect(out.kind === 'user' && out.user.name).toBe('system:serviceaccount:ns1:builder');
  });

  it('a client certificate comes first; a refused one is overridden by a good token', async () => {
    const cert = new UnionAuthenticator({
      tokens,
      serviceAccounts,
      x509: fakeX509({ kind: 'user', user: { name: 'cn', groups: ['o'] } }),
    });
    const out = await cert.authenticate(req({ authorization: 'Bearer admin-token' }));
    expect(out).toEqual({ kind: 'user', user: { name: 'cn', groups: ['o', 'system:authenticated'] } });

    const bad = new UnionAuthenticator({
      tokens,
      serviceAccounts,
      x509: fakeX509({ kind: 'invalid', reason: 'x509: certificate signed by unknown authority' }),
    });
    expect((await bad.authenticate(req({ authorization: 'Bearer admin-token' }))).kind).toBe('user');
    expect(await bad.authenticate(req({}))).toEqual({
      kind: 'invalid',
      reason: 'x509: certificate signed by unknown authority',
    });
    expect(await bad.authenticate(req({ authorization: 'Bearer nope' }))).toEqual({
      kind: 'invalid',
      reason: '[x509: certificate signed by unknown authority, invalid bearer token]',
    });
  });

  it('without a token file, ServiceAccount tokens still work; without either, any token is invalid', async () => {
    const saOnly = new UnionAuthenticator({ serviceAccounts });
    expect((await saOnly.authenticate(req({ authorization: `Bearer ${await saToken()}` }))).kind).toBe('user');
    const none = new UnionAuthenticator({});
    expect(await none.authenticate(req({ authorization: 'Bearer admin-token' }))).toEqual({
      kind: 'invalid',
      reason: 'invalid bearer token',
    });
  });

  it('logs the reason', async () => {
    const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
    const logger = {
      debug: () => {},
      info: () => {},
      warn: (msg: string, fields?: Record<string, unknown>) => lines.push({ msg, fields }),
      error: () => {},
      enabled: () => true,
      with: () => logger,
    };
    await new UnionAuthenticator({ tokens, logger }).authenticate(req({ authorization: 'Bearer nope' }));
    expect(lines).toEqual([{ msg: 'Unable to authenticate the request', fields: { err: 'invalid bearer token' } }]);
  });
});

// Authentication and impersonation together over a real node:http server: node's headersDistinct
// keeps repeated Impersonate-Group headers apart.
describe('over HTTP with impersonation', () => {
  let server: Server;
  let port: number;
  const union = new UnionAuthenticator({ tokens, serviceAccounts });
  const seen: { user?: UserInfo; error?: string; rest?: string[] }[] = [];

  beforeAll(async () => {
    server = createServer((r, res) => {
      void (async () => {
        const auth = await union.authenticate(r);
        if (auth.kind !== 'user') {
          seen.push({ error: auth.kind });
        } else {
          const out = impersonate(auth.user, r.headersDistinct, (a) => ({
            decision: a.resource === 'groups' && a.name === 'system:masters' ? 'no-opinion' : 'allow',
            reason: '',
          }));
          if (out.kind === 'user') {
            stripImpersonationHeaders(r);
            seen.push({ user: out.user, rest: Object.keys(r.headers).filter((h) => h.startsWith('impersonate')) });
          } else seen.push({ error: out.kind === 'forbidden' ? out.error.message : out.kind });
        }
        res.end();
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const send = (headers: [string, string][]): Promise<void> =>
    new Promise((resolve, reject) => {
      // A raw header list (to repeat a header) gets no Host added by node.
      const raw = [['Host', `127.0.0.1:${port}`], ...headers].flat();
      const r = request({ host: '127.0.0.1', port, path: '/api', headers: raw, agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      r.on('error', reject);
      r.end();
    });

  it('repeated groups stay apart; the headers are gone afterwards', async () => {
    seen.length = 0;
    await send([
      ['Authorization', 'Bearer admin-token'],
      ['Impersonate-User', 'bob'],
      ['Impersonate-Group', 'a, b'],
      ['Impersonate-Group', 'c'],
      ['Impersonate-Extra-Scopes', 'view'],
    ]);
    expect(seen).toEqual([
      { user: { name: 'bob', groups: ['a, b', 'c', 'system:authenticated'], extra: { scopes: ['view'] } }, rest: [] },
    ]);
  });

  it('a refused group', async () => {
    seen.length = 0;
    await send([
      ['Authorization', `Bearer ${await saToken()}`],
      ['Impersonate-User', 'bob'],
      ['Impersonate-Group', 'system:masters'],
    ]);
    expect(seen).toEqual([
      {
        error:
          'groups "system:masters" is forbidden: User "system:serviceaccount:ns1:builder" cannot impersonate resource "groups" in API group "" at the cluster scope',
      },
    ]);
  });
});
