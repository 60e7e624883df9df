// Hostile paths, methods and headers: verbs the public paths do not take, the cluster-wide path of
// a namespaced resource (which must delete nothing), a cluster-scoped kind under a namespace's
// path (which must reach nothing: the escalations a Role in that namespace would allow),
// malformed and enormous URLs, megabyte headers, unknown methods, smuggling-shaped framing. Sent
// over raw TLS so that nothing is normalised on the way. Each case: no 5xx, the process lives,
// /readyz 200 within 1 s.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process.js';
import {
  FC_PARAMS,
  FuzzServer,
  GROUP,
  type Outcome,
  call,
  head,
  installCRD,
  must,
  raw,
  requestBytes,
  widget,
} from './harness.js';

const NAMESPACES = ['fuzz-a', 'fuzz-b'] as const;
const fuzz = new FuzzServer(async (s) => {
  for (const ns of NAMESPACES)
    await must(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await installCRD(s, 'widgets', 'Widget');
  for (const ns of NAMESPACES) await must(s, 'POST', `/apis/${GROUP}/v1/namespaces/${ns}/widgets`, widget(`w-${ns}`));
});
beforeAll(() => fuzz.start());
afterAll(() => fuzz.stop());

/** Sends these bytes as they are and reads the first answer. */
const send = (bytes: (s: ServerProcess) => Buffer, timeoutMs?: number) => (s: ServerProcess) =>
  raw(s, (sock) => void sock.write(bytes(s)), { headersOnly: true, ...(timeoutMs ? { timeoutMs } : {}) });

/** One request: method and target exactly as given, the admin token, no body. */
const plain = (method: string, target: string, headers: Record<string, string> = {}) =>
  send((s) => requestBytes(s, method, target, undefined, headers));

/** The namespaces and the widget in each still exist: what a stray delete would have taken. */
async function nothingDeleted(s: ServerProcess): Promise<string[]> {
  const gone: string[] = [];
  for (const ns of NAMESPACES) {
    for (const path of [`/api/v1/namespaces/${ns}`, `/apis/${GROUP}/v1/namespaces/${ns}/widgets/w-${ns}`]) {
      const r = await call(s, path);
      const terminating = /"phase":"Terminating"|"deletionTimestamp"/.test(r.body);
      if (r.status !== 200 || terminating)
        gone.push(`${path} is gone or going: ${r.status ?? r.note} ${r.body.slice(0, 120)}`);
    }
  }
  return gone;
}

describe('hostile methods on the public and discovery paths', () => {
  const cases: [string, string][] = [
    ['DELETE', '/healthz'],
    ['DELETE', '/livez'],
    ['POST', '/readyz'],
    ['PUT', '/readyz/ping'],
    ['PATCH', '/version'],
    ['POST', '/version/'],
    ['PUT', '/metrics'],
    ['DELETE', '/metrics'],
    ['POST', '/'],
    ['DELETE', '/api'],
    ['DELETE', '/apis'],
    ['POST', '/apis/apiextensions.k8s.io'],
    ['DELETE', `/apis/${GROUP}/v1`],
    ['POST', '/openapi/v2'],
    ['DELETE', '/openapi/v3'],
    ['PUT', `/openapi/v3/apis/${GROUP}/v1`],
  ];
  for (const [method, path] of cases) it(`${method} ${path}`, () => fuzz.check(plain(method, path)));
});

describe('deletes that must delete nothing', () => {
  const cases: [string, string][] = [
    ['the cluster-wide path of a namespaced resource', `/apis/${GROUP}/v1/widgets`],
    ['the cluster-wide path, with a selector matching everything', `/apis/${GROUP}/v1/widgets?labelSelector=`],
    ['the cluster-wide path, trailing slash', `/apis/${GROUP}/v1/widgets/`],
    ['the cluster-wide path with a name', `/apis/${GROUP}/v1/widgets/w-fuzz-a`],
    ['the collection of namespaces', '/api/v1/namespaces'],
    [
      'a namespace path climbing with ..',
      `/apis/${GROUP}/v1/namespaces/fuzz-zzz/widgets/../../fuzz-a/widgets/w-fuzz-a`,
    ],
    [
      'a namespace path climbing with %2e%2e',
      `/apis/${GROUP}/v1/namespaces/fuzz-zzz/widgets/%2e%2e/%2e%2e/fuzz-a/widgets/w-fuzz-a`,
    ],
    [
      'a name with an encoded slash',
      `/apis/${GROUP}/v1/namespaces/fuzz-zzz/widgets/..%2F..%2Ffuzz-a%2Fwidgets%2Fw-fuzz-a`,
    ],
    ['an empty namespace segment', `/apis/${GROUP}/v1/namespaces//widgets`],
    ['the legacy watch path', `/apis/${GROUP}/v1/watch/widgets`],
  ];
  for (const [name, path] of cases) {
    // kube answers 404 or 405 for these (asserted elsewhere); here: a 4xx, and both objects survive.
    it(`DELETE ${name}`, () => fuzz.check(plain('DELETE', path), { expect4xx: true, verify: nothingDeleted }));
  }
  it('DELETE the cluster-wide path with DeleteOptions in the body', () =>
    fuzz.check(
      (s) =>
        call(s, `/apis/${GROUP}/v1/widgets`, {
          method: 'DELETE',
          body: JSON.stringify({
            kind: 'DeleteOptions',
            apiVersion: 'v1',
            propagationPolicy: 'Foreground',
            gracePeriodSeconds: 0,
          }),
        }),
      { expect4xx: true, verify: nothingDeleted },
    ));
});

describe('a kind under a path of the other scope (escalations through a namespace)', () => {
  /** Nothing deleted, fuzz-b unlabelled, no namespace made: what a request routed as its namespace's would have done. */
  async function nothingChanged(s: ServerProcess): Promise<string[]> {
    const problems = await nothingDeleted(s);
    const b = await call(s, '/api/v1/namespaces/fuzz-b');
    if (b.body.includes('fuzz-owned')) problems.push(`fuzz-b was changed: ${b.body.slice(0, 200)}`);
    const c = await call(s, '/api/v1/namespaces/fuzz-c');
    if (c.status !== 404) problems.push(`fuzz-c exists: ${c.status ?? c.note}`);
    return problems;
  }
  const A = '/api/v1/namespaces/fuzz-a';
  const CRD_NAME = `customresourcedefinitions/widgets.${GROUP}`;
  const owned = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'fuzz-b', labels: { 'fuzz-owned': 'yes' } },
  });
  const created = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fuzz-c' } });
  const review = JSON.stringify({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user: 'x', resourceAttributes: { verb: 'delete', resource: 'namespaces' } },
  });
  const tokenRequest = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  // name, method, path, body, content type
  const cases: [string, string, string, string?, string?][] = [
    ['delete a namespace through another', 'DELETE', `${A}/namespaces/fuzz-b`],
    ['delete the namespaces through one', 'DELETE', `${A}/namespaces`],
    [
      'delete a namespace through another, on the watch path',
      'DELETE',
      '/api/v1/watch/namespaces/fuzz-a/namespaces/fuzz-b',
    ],
    ['delete the namespace named like its path', 'DELETE', `${A}/namespaces/fuzz-a`],
    ['patch a namespace through another', 'PATCH', `${A}/namespaces/fuzz-b`, owned, 'application/merge-patch+json'],
    [
      'apply a namespace through another',
      'PATCH',
      `${A}/namespaces/fuzz-b?fieldManager=fuzz`,
      owned,
      'application/apply-patch+yaml',
    ],
    ['replace a namespace through another', 'PUT', `${A}/namespaces/fuzz-b`, owned],
    ['finalize a namespace through another', 'PUT', `${A}/namespaces/fuzz-b/finalize`, owned],
    ['create a namespace through another', 'POST', `${A}/namespaces`, created],
    ['list the namespaces through one', 'GET', `${A}/namespaces`],
    ['watch the namespaces through one', 'GET', `${A}/namespaces?watch=true`],
    [
      'delete a CRD (and its objects) through a namespace',
      'DELETE',
      `/apis/apiextensions.k8s.io/v1/namespaces/fuzz-a/${CRD_NAME}`,
    ],
    [
      'a SubjectAccessReview through a namespace',
      'POST',
      '/apis/authorization.k8s.io/v1/namespaces/fuzz-a/subjectaccessreviews',
      review,
    ],
    ['a TokenRequest at the cluster path', 'POST', '/api/v1/serviceaccounts/default/token', tokenRequest],
  ];
  for (const [name, method, path, body, contentType] of cases) {
    const probe = (s: ServerProcess): Promise<Outcome> =>
      call(s, path, { method, ...(body !== undefined ? { body, contentType } : {}) });
    it(`${method} ${name}`, () => fuzz.check(probe, { expect4xx: true, verify: nothingChanged }));
  }
});

describe('malformed and enormous targets', () => {
  const targets: [string, string][] = [
    ['//', '//'],
    ['///', '///'],
    ['doubled slashes', '//api//v1//namespaces//fuzz-a'],
    ['%zz', '/api/v1/namespaces/%zz'],
    ['%', '/apis/%'],
    ['%00', '/api/v1/namespaces/%00'],
    ['invalid UTF-8 escapes', '/apis/%ff%fe/v1'],
    ['..', '/api/v1/namespaces/..'],
    ['%2e%2e', '/api/v1/namespaces/%2e%2e'],
    ['an encoded slash', '/api/v1/namespaces/a%2Fb'],
    ['a 10,000-character name', `/api/v1/namespaces/${'a'.repeat(10_000)}`],
    ['3,000 segments', `/api/v1/namespaces/${'x/'.repeat(3000)}`],
    ['a fragment', '/api/v1/namespaces#frag'],
    ['an empty query', '/api/v1/namespaces?'],
    ['no leading slash', 'api/v1/namespaces'],
    ['asterisk form', '*'],
    ['absolute form', 'https://evil.example.com/api/v1/namespaces'],
    ['authority form', '127.0.0.1:443'],
    ['a resource the core group lacks', '/api/v1/namespaces/fuzz-a/widgets'],
    ['an extra segment after a subresource', `/apis/${GROUP}/v1/namespaces/fuzz-a/widgets/w-fuzz-a/status/extra`],
    ['a subresource the CRD lacks', `/apis/${GROUP}/v1/namespaces/fuzz-a/widgets/w-fuzz-a/scale`],
    ['proxy', `/apis/${GROUP}/v1/namespaces/fuzz-a/widgets/w-fuzz-a/proxy/x`],
    ['an unknown version', `/apis/${GROUP}/v9/widgets`],
    ['a group only', `/apis/${GROUP}`],
    ['openapi v3 with a garbage hash', `/openapi/v3/apis/${GROUP}/v1?hash=garbage`],
    ['openapi v3 climbing', '/openapi/v3/..%2f..%2fetc%2fpasswd'],
    ['a namespace finalize of nothing', '/api/v1/namespaces/nope/finalize'],
    ['spaces and quotes, raw', '/api/v1/namespaces/a"b\'c<d>'],
  ];
  for (const [name, target] of targets) {
    it(`GET ${name}`, () => fuzz.check(plain('GET', target)));
    it(`PUT ${name}`, () => fuzz.check(plain('PUT', target, { 'Content-Length': '0' })));
  }
  it('a 1.1 MB URL', () => fuzz.check(plain('GET', `/api/v1/namespaces/${'a'.repeat(1_100_000)}`)));
  it('a 1.1 MB query', () => fuzz.check(plain('GET', `/api/v1/namespaces?x=${'a'.repeat(1_100_000)}`)));
});

describe('hostile headers', () => {
  const bigHeaders = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`X-Fuzz-${i}`, 'v'.repeat(1024)]));
  const cases: [string, Record<string, string>][] = [
    ['1,000 headers of 1 KiB (~1 MiB)', bigHeaders],
    ['one 1 MiB header', { 'X-Big': 'v'.repeat(1024 * 1024) }],
    ['a 12 KB bearer token', { Authorization: `Bearer ${'t'.repeat(12_000)}` }],
    ['Basic auth garbage', { Authorization: 'Basic !!!not-base64' }],
    ['an empty bearer token', { Authorization: 'Bearer ' }],
    ['two Authorization headers', { Authorization: 'Bearer a', authorization: 'Bearer b' }],
    ['impersonation of system:admin', { 'Impersonate-User': 'system:admin', 'Impersonate-Group': 'system:masters' }],
    ['impersonation with a garbage extra', { 'Impersonate-User': 'x', 'Impersonate-Extra-%zz': 'y' }],
    ['Accept as=Table garbage', { Accept: 'application/json;as=Table;v=v9;g=meta.k8s.io, application/json;as=Nope' }],
    ['Accept protobuf', { Accept: 'application/vnd.kubernetes.protobuf' }],
    ['Accept protobuf watch stream', { Accept: 'application/vnd.kubernetes.protobuf;stream=watch' }],
    ['Accept of 10 KB', { Accept: Array(1000).fill('application/x;q=0.1').join(',') }],
    ['Accept with broken parameters', { Accept: 'application/json;;;=;q=abc;as' }],
    ['Accept-Encoding garbage', { 'Accept-Encoding': 'gzip;q=NaN, br;q=-1, *;q=2' }],
    ['a Content-Type of 10 KB', { 'Content-Type': `application/json; ${'p=v;'.repeat(2000)}` }],
    ['a User-Agent of 10 KB', { 'User-Agent': 'u'.repeat(10_000) }],
    ['X-Forwarded-For garbage', { 'X-Forwarded-For': 'not an ip, ::::, 999.999.999.999' }],
    ['Audit-ID garbage', { 'Audit-ID': '\u00ff'.repeat(100) }],
    ['Expect: 100-continue', { Expect: '100-continue' }],
    ['Expect: something else', { Expect: 'the unexpected' }],
    [
      'Upgrade: websocket on a list, bad key',
      { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': '!!', 'Sec-WebSocket-Version': '99' },
    ],
    ['Upgrade: h2c', { Connection: 'Upgrade, HTTP2-Settings', Upgrade: 'h2c', 'HTTP2-Settings': 'AAMAAABkAAQAAP__' }],
    ['Connection: keep-alive, close, Upgrade', { Connection: 'keep-alive, close, Upgrade' }],
  ];
  for (const [name, headers] of cases) {
    it(`GET list: ${name}`, () => fuzz.check(plain('GET', `/apis/${GROUP}/v1/namespaces/fuzz-a/widgets`, headers)));
  }
  it('a websocket watch upgrade with garbage protocols', () =>
    fuzz.check(
      plain('GET', `/apis/${GROUP}/v1/namespaces/fuzz-a/widgets?watch=true`, {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Protocol': `base64.binary.k8s.io, ${'x'.repeat(5000)}, v4.channel.k8s.io`,
      }),
    ));
});

describe('unknown methods and broken framing', () => {
  const lines: [string, string][] = [
    ['FOO', 'FOO /api/v1/namespaces HTTP/1.1'],
    ['PROPFIND', 'PROPFIND /api/v1/namespaces HTTP/1.1'],
    ['TRACE', 'TRACE /api/v1/namespaces HTTP/1.1'],
    ['OPTIONS', 'OPTIONS /api/v1/namespaces HTTP/1.1'],
    ['M-SEARCH', 'M-SEARCH * HTTP/1.1'],
    ['CONNECT', 'CONNECT 127.0.0.1:1 HTTP/1.1'],
    ['lowercase get', 'get /api/v1/namespaces HTTP/1.1'],
    ['a 10,000-character method', `${'X'.repeat(10_000)} / HTTP/1.1`],
    ['HTTP/1.0', 'GET /api/v1/namespaces HTTP/1.0'],
    ['HTTP/2.0 in an HTTP/1 line', 'GET /api/v1/namespaces HTTP/2.0'],
    ['HTTP/9.9', 'GET /api/v1/namespaces HTTP/9.9'],
    ['no version', 'GET /api/v1/namespaces'],
    ['extra spaces', 'GET  /api/v1/namespaces  HTTP/1.1'],
    ['a NUL in the line', 'GET /api/v1/\u0000namespaces HTTP/1.1'],
  ];
  for (const [name, line] of lines) {
    // A CONNECT may also be dropped unanswered (what a node:http server does with no tunnel to offer): not a stall.
    const opts = name === 'CONNECT' ? { allowNoResponse: true } : {};
    it(name, () =>
      fuzz.check(
        send((s) =>
          Buffer.from(
            `${line}\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${s.token}\r\nConnection: close\r\n\r\n`,
            'latin1',
          ),
        ),
        opts,
      ),
    );
  }
  const post = `/apis/${GROUP}/v1/namespaces/fuzz-a/widgets`;
  const body = JSON.stringify(widget('framing'));
  const framed: [string, (s: ServerProcess) => Buffer][] = [
    [
      'two different Content-Lengths',
      (s) =>
        Buffer.concat([
          requestBytes(s, 'POST', post, undefined, { 'Content-Length': `${body.length}`, 'content-length': '3' }),
          Buffer.from(body),
        ]),
    ],
    [
      'Content-Length and chunked',
      (s) =>
        Buffer.concat([
          requestBytes(s, 'POST', post, undefined, { 'Content-Length': '5', 'Transfer-Encoding': 'chunked' }),
          Buffer.from('0\r\n\r\n'),
        ]),
    ],
    [
      'chunked, identity',
      (s) =>
        Buffer.concat([
          requestBytes(s, 'POST', post, undefined, { 'Transfer-Encoding': 'chunked, identity' }),
          Buffer.from('0\r\n\r\n'),
        ]),
    ],
    [
      'a chunk size that is not hex',
      (s) =>
        Buffer.concat([
          requestBytes(s, 'POST', post, undefined, { 'Transfer-Encoding': 'chunked' }),
          Buffer.from('zz\r\nabc\r\n0\r\n\r\n'),
        ]),
    ],
    [
      'a chunk size past 2^64',
      (s) =>
        Buffer.concat([
          requestBytes(s, 'POST', post, undefined, { 'Transfer-Encoding': 'chunked' }),
          Buffer.from('fffffffffffffffffffff\r\nabc\r\n'),
        ]),
    ],
    [
      'a negative Content-Length',
      (s) => Buffer.concat([requestBytes(s, 'POST', post, undefined, { 'Content-Length': '-1' }), Buffer.from(body)]),
    ],
    [
      'a Content-Length past 2^64',
      (s) =>
        Buffer.concat([
          requestBytes(s, 'POST', post, undefined, { 'Content-Length': '99999999999999999999999' }),
          Buffer.from(body),
        ]),
    ],
    [
      'a Content-Length of 1e3',
      (s) => Buffer.concat([requestBytes(s, 'POST', post, undefined, { 'Content-Length': '1e3' }), Buffer.from(body)]),
    ],
    [
      'a smuggled second request',
      (s) =>
        Buffer.concat([
          requestBytes(s, 'POST', post, undefined, { 'Content-Length': '4' }),
          Buffer.from(
            `{}\r\nDELETE /api/v1/namespaces/fuzz-a HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.token}\r\n\r\n`,
          ),
        ]),
    ],
    [
      'no Host header',
      (s) =>
        Buffer.from(`GET /api/v1/namespaces HTTP/1.1\r\nAuthorization: Bearer ${s.token}\r\nConnection: close\r\n\r\n`),
    ],
    [
      'two Host headers',
      (s) =>
        Buffer.from(
          `GET /api/v1/namespaces HTTP/1.1\r\nHost: a\r\nHost: b\r\nAuthorization: Bearer ${s.token}\r\nConnection: close\r\n\r\n`,
        ),
    ],
    [
      'a header without a colon',
      (s) =>
        Buffer.from(
          `GET /api/v1/namespaces HTTP/1.1\r\nHost: a\r\nno colon here\r\nAuthorization: Bearer ${s.token}\r\n\r\n`,
        ),
    ],
    [
      'obsolete line folding',
      (s) =>
        Buffer.from(
          `GET /api/v1/namespaces HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\nAuthorization: Bearer ${s.token}\r\n\r\n`,
        ),
    ],
    [
      'bare LF line ends',
      (s) =>
        Buffer.from(
          `GET /api/v1/namespaces HTTP/1.1\nHost: a\nAuthorization: Bearer ${s.token}\nConnection: close\n\n`,
        ),
    ],
    [
      'a NUL in a header value',
      (s) =>
        head('GET', '/api/v1/namespaces', {
          Authorization: `Bearer ${s.token}`,
          'X-A': 'a\u0000b',
          Connection: 'close',
        }),
    ],
    [
      'bytes past latin-1 in a header value',
      (s) =>
        Buffer.concat([
          head('GET', '/api/v1/namespaces', { Authorization: `Bearer ${s.token}`, Connection: 'close' }).subarray(
            0,
            -2,
          ),
          Buffer.from('X-U: \u00e9\u2603\r\n\r\n', 'utf8'),
        ]),
    ],
  ];
  for (const [name, bytes] of framed) it(name, () => fuzz.check(send(bytes), { verify: nothingDeleted }));
});

describe('properties', () => {
  it('random paths under /api and /apis, with every method but DELETE', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'namespaces',
        'fuzz-a',
        'widgets',
        'w-fuzz-a',
        GROUP,
        'v1',
        'status',
        'scale',
        'watch',
        'finalize',
        '..',
        '.',
        '',
        '%2F',
        '%zz',
        '%00',
        '~',
        '*',
      ),
      fc.string({ maxLength: 10 }).map(encodeURIComponent),
      fc
        .string({ unit: 'binary', maxLength: 6 })
        .map((x) => encodeURIComponent(x.replace(/[\ud800-\udfff]/g, '\ufffd'))),
    );
    const target = fc
      .tuple(
        fc.constantFrom('/api', '/apis', `/apis/${GROUP}`, '/api/v1', `/apis/${GROUP}/v1`, '/openapi/v3', ''),
        fc.array(segment, { maxLength: 7 }),
      )
      .map(([root, segs]) => `${root}/${segs.join('/')}`);
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'OPTIONS');
    await fc.assert(
      fc.asyncProperty(method, target, fc.constantFrom('', '{}', '{"a":', 'null'), async (m, t, b) => {
        const bytes = (s: ServerProcess): Buffer =>
          requestBytes(s, m, t, Buffer.from(b), {
            'Content-Type': m === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
          });
        const problems = await fuzz.problems(send(bytes));
        if (problems.length) throw new Error(`${m} ${t}: ${problems.join('; ')}`);
      }),
      { ...FC_PARAMS, numRuns: 40 },
    );
  });
});
