// The bearer token a WebSocket client passes as the subprotocol
// base64url.bearer.authorization.k8s.io.<token>, as kube's websocket ProtocolAuthenticator reads
// it, beside the Authorization header, and the subprotocol the server then echoes.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  BEARER_PROTOCOL_PREFIX,
  TokenAuthenticator,
  isWebSocketRequest,
  protocolToken,
} from '../../../server/authn/bearer.js';
import { chooseProtocol } from '../../../server/endpoints/watch/websocket.js';

const encode = (token: string): string => BEARER_PROTOCOL_PREFIX + Buffer.from(token).toString('base64url');

describe('isWebSocketRequest (wsstream.IsWebSocketRequest)', () => {
  it.each<[IncomingHttpHeaders, boolean]>([
    [{ upgrade: 'websocket', connection: 'Upgrade' }, true],
    [{ upgrade: 'WebSocket', connection: 'keep-alive, Upgrade' }, true],
    [{ upgrade: 'websocket', connection: 'upgrade,keep-alive' }, true],
    [{ upgrade: 'websocket', connection: 'keep-alive' }, false],
    [{ upgrade: 'websocket' }, false],
    [{ upgrade: 'h2c', connection: 'Upgrade' }, false],
    [{ connection: 'Upgrade' }, false],
  ])('%j -> %s', (headers, want) => expect(isWebSocketRequest(headers)).toBe(want));
});

describe('protocolToken', () => {
  it.each<{ name: string; header: string | string[] | undefined; want: ReturnType<typeof protocolToken> }>([
    { name: 'no header', header: undefined, want: { kind: 'none' } },
    { name: 'no token subprotocol', header: 'v4.channel.k8s.io, base64.channel.k8s.io', want: { kind: 'none' } },
    {
      name: 'a token first',
      header: `${encode('s3cret')}, base64.binary.k8s.io`,
      want: { kind: 'token', token: 's3cret', protocols: ['base64.binary.k8s.io'] },
    },
    {
      name: 'a token last',
      header: `a, b,${encode('s3cret')}`,
      want: { kind: 'token', token: 's3cret', protocols: ['a', 'b'] },
    },
    {
      name: 'over several header lines',
      header: ['a', encode('s3cret')],
      want: { kind: 'token', token: 's3cret', protocols: ['a'] },
    },
    { name: 'an empty token is no token', header: `${BEARER_PROTOCOL_PREFIX}, a`, want: { kind: 'none' } },
    {
      name: 'a token alone',
      header: encode('s3cret'),
      want: { kind: 'error', reason: 'missing additional subprotocol' },
    },
    {
      name: 'two tokens',
      header: `${encode('a')}, ${encode('b')}, c`,
      want: { kind: 'error', reason: 'multiple base64.bearer.authorization tokens specified' },
    },
    {
      name: 'padding (RawURLEncoding has none)',
      header: `${BEARER_PROTOCOL_PREFIX}YQ==, c`,
      want: { kind: 'error', reason: 'invalid base64.bearer.authorization token encoding' },
    },
    {
      name: 'the standard alphabet',
      header: `${BEARER_PROTOCOL_PREFIX}a+b/, c`,
      want: { kind: 'error', reason: 'invalid base64.bearer.authorization token encoding' },
    },
    {
      name: 'a dangling character',
      header: `${BEARER_PROTOCOL_PREFIX}YWJjZ, c`,
      want: { kind: 'error', reason: 'invalid base64.bearer.authorization token encoding' },
    },
    {
      name: 'not UTF-8',
      header: `${BEARER_PROTOCOL_PREFIX}${Buffer.from([0xff, 0xfe]).toString('base64url')}, c`,
      want: { kind: 'error', reason: 'invalid base64.bearer.authorization token' },
    },
  ])('$name', ({ header, want }) => expect(protocolToken(header)).toEqual(want));
});

describe('TokenAuthenticator with the WebSocket subprotocol', () => {
  const auth = new TokenAuthenticator([{ token: 'good', user: { name: 'alice', groups: ['dev'] } }]);
  const alice = { kind: 'user', user: { name: 'alice', groups: ['dev'] } };
  const upgrade = (protocol: string, authorization?: string): IncomingMessage =>
    ({
      headers: {
        upgrade: 'websocket',
        connection: 'Upgrade',
        'sec-websocket-protocol': protocol,
        ...(authorization ? { authorization } : {}),
      },
    }) as IncomingMessage;

  it('accepts a known token and removes its subprotocol, leaving the others to echo', () => {
    const req = upgrade(`${encode('good')}, base64.binary.k8s.io`);
    expect(auth.authenticate(req)).toEqual(alice);
    expect(req.headers['sec-websocket-protocol']).toBe('base64.binary.k8s.io');
  });

  it.each([
    ['an unknown token', `${encode('bad')}, base64.binary.k8s.io`],
    ['a token without another subprotocol', encode('good')],
    ['a malformed token', `${BEARER_PROTOCOL_PREFIX}!!, base64.binary.k8s.io`],
  ])('refuses %s, the header left as it was', (_name, protocol) => {
    const req = upgrade(protocol);
    expect(auth.authenticate(req)).toEqual({ kind: 'invalid' });
    expect(req.headers['sec-websocket-protocol']).toBe(protocol);
  });

  it('reads the subprotocol of upgrades only', () => {
    const req = { headers: { 'sec-websocket-protocol': `${encode('good')}, a` } } as IncomingMessage;
    expect(auth.authenticate(req)).toEqual({ kind: 'anonymous' });
  });

  it('tries the Authorization header first, and either known token wins, as kube unions its authenticators', () => {
    const both = upgrade(`${encode('bad')}, a`, 'Bearer good');
    expect(auth.authenticate(both)).toEqual(alice);
    expect(both.headers.authorization).toBeUndefined();
    expect(auth.authenticate(upgrade(`${encode('good')}, a`, 'Bearer bad'))).toEqual(alice);
    expect(auth.authenticate(upgrade('a', 'Bearer bad'))).toEqual({ kind: 'invalid' });
    expect(auth.authenticate(upgrade('a'))).toEqual({ kind: 'anonymous' });
  });
});

describe('chooseProtocol', () => {
  it.each<[string[], string | false]>([
    [['base64.binary.k8s.io'], 'base64.binary.k8s.io'],
    [['a', 'b'], 'a'],
    [[encode('good'), 'b'], 'b'],
    [[encode('good')], false],
    [[], false],
  ])('%j -> %j', (protocols, want) => expect(chooseProtocol(new Set(protocols))).toBe(want));
});
