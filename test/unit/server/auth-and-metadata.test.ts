// Small pure pieces of the serving layer: bearer parsing, kubeconfig, version info, metrics text.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { TokenAuthenticator, bearerToken } from '../../../server/authn/bearer.js';
import { clientHost, hostPort, renderKubeconfig } from '../../../server/kubeconfig.js';
import { requestKind } from '../../../server/pipeline/max-inflight.js';
import { versionInfo } from '../../../server/version.js';

describe('bearerToken (kube bearertoken rules)', () => {
  it.each<[string | undefined, string | undefined]>([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['  Bearer abc  ', 'abc'],
    ['Bearer abc extra', 'abc'],
    ['Bearer  abc', undefined], // two spaces: an empty token, so no credentials
    ['Bearer', undefined],
    ['Bearer ', undefined],
    ['Basic YWxpY2U6cHc=', undefined],
    ['Bearers abc', undefined],
    ['Bear abc', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j -> %j', (header, want) => expect(bearerToken(header)).toBe(want));
});

describe('TokenAuthenticator', () => {
  const auth = new TokenAuthenticator([{ token: 'good', user: { name: 'alice', groups: ['dev'] } }]);
  const req = (authorization?: string): IncomingMessage =>
    ({ headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

  it('tells anonymous, known and unknown tokens apart, and strips a used credential', () => {
    expect(auth.authenticate(req())).toEqual({ kind: 'anonymous' });
    expect(auth.authenticate(req('Basic x'))).toEqual({ kind: 'anonymous' });
    expect(auth.authenticate(req('Bearer bad'))).toEqual({ kind: 'invalid' });
    const r = req('Bearer good');
    expect(auth.authenticate(r)).toEqual({ kind: 'user', user: { name: 'alice', groups: ['dev'] } });
    expect(r.headers.authorization).toBeUndefined();
  });
});

describe('kubeconfig', () => {
  it.each([
    ['127.0.0.1', 6443, '127.0.0.1:6443'],
    ['0.0.0.0', 1, '127.0.0.1:1'],
    ['::', 2, '127.0.0.1:2'],
    ['::1', 3, '[::1]:3'],
    ['10.0.0.5', 4, '10.0.0.5:4'],
  ])('a bind to %s:%d is reached at %s', (bind, port, want) => expect(hostPort(clientHost(bind), port)).toBe(want));

  it('has one cluster, user and current context', () => {
    const doc = parseYaml(
      renderKubeconfig({ server: 'https://127.0.0.1:6443', caCert: 'PEM\n', token: 'tok', userName: 'admin' }),
    );
    expect(doc).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'mini-apiserver',
          cluster: {
            server: 'https://127.0.0.1:6443',
            'certificate-authority-data': Buffer.from('PEM\n').toString('base64'),
          },
        },
      ],
      users: [{ name: 'admin', user: { token: 'tok' } }],
      contexts: [{ name: 'mini-apiserver', context: { cluster: 'mini-apiserver', user: 'admin' } }],
      'current-context': 'mini-apiserver',
      preferences: {},
    });
  });
});

describe('versionInfo', () => {
  it('is kube version.Info with a semver gitVersion kubectl accepts', () => {
    const v = versionInfo('0.1.0', new Date('2025-01-02T03:04:05.678Z'));
    expect(Object.keys(v)).toEqual([
      'major',
      'minor',
      'gitVersion',
      'gitCommit',
      'gitTreeState',
      'buildDate',
      'goVersion',
      'compiler',
      'platform',
    ]);
    expect(v).toMatchObject({
      major: '1',
      minor: '33',
      gitVersion: 'v1.33.0+mini-apiserver.0.1.0',
      buildDate: '2025-01-02T03:04:05Z',
    });
    expect(v.gitVersion).toMatch(/^v\d+\.\d+\.\d+(\+[0-9A-Za-z.-]+)?$/);
    expect(v.platform).toMatch(/^[a-z0-9]+\/[a-z0-9]+$/);
  });
});

describe('Metrics', () => {
  // The metrics themselves: test/unit/server/metrics*.test.ts.

  // By kube verb, as maxinflight.go's nonMutatingRequestVerbs: a POST to a non-resource path mutates.
  it.each([
    ['get', 'readOnly'],
    ['list', 'readOnly'],
    ['watch', 'readOnly'],
    ['head', 'mutating'],
    ['create', 'mutating'],
    ['update', 'mutating'],
    ['patch', 'mutating'],
    ['delete', 'mutating'],
    ['deletecollection', 'mutating'],
    ['post', 'mutating'],
  ])('%s is %s', (verb, kind) => expect(requestKind(verb)).toBe(kind));
});
