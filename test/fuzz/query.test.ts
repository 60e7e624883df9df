// Hostile query strings on get, list and watch of namespaces and custom resources: absurd limits,
// garbage and future continue tokens, unparsable resourceVersions, negative and huge timeouts,
// selectors that are huge, deeply parenthesised or unfinished, repeated and 100k parameters.
// Each case: no 5xx (kube's own 504 for a resourceVersion ahead of the store aside), the process
// lives, /readyz 200 within 1 s.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process.js';
import {
  FC_PARAMS,
  FuzzServer,
  GROUP,
  KUBE_RV_TOO_LARGE,
  type Outcome,
  call,
  installCRD,
  must,
  raw,
  requestBytes,
  widget,
} from './harness.js';

const NS = 'fuzz';
const fuzz = new FuzzServer(async (s) => {
  await must(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await installCRD(s, 'widgets', 'Widget');
  for (const name of ['w1', 'w2', 'w3'])
    await must(s, 'POST', `/apis/${GROUP}/v1/namespaces/${NS}/widgets`, {
      ...widget(name),
      metadata: { name, labels: { app: 'fuzz', n: name } },
    });
});
beforeAll(() => fuzz.start());
afterAll(() => fuzz.stop());

/** Where the queries go: lists (namespaced, across namespaces, cluster-scoped) and single objects. */
const LISTS = [
  '/api/v1/namespaces',
  `/apis/${GROUP}/v1/namespaces/${NS}/widgets`,
  `/apis/${GROUP}/v1/widgets`,
] as const;
const GETS = ['/api/v1/namespaces/fuzz', `/apis/${GROUP}/v1/namespaces/${NS}/widgets/w1`] as const;

/** A GET whose answer may be a stream: a 2xx ends the case at its headers (the socket is then cut). */
function get(s: ServerProcess, target: string): Promise<Outcome> {
  return raw(s, (sock) => void sock.write(requestBytes(s, 'GET', target)), { headersOnly: true });
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
const token = (o: Record<string, unknown>): string => b64(JSON.stringify({ v: 'meta.k8s.io/v1', ...o }));

const LIMITS = [
  '9223372036854775808',
  '9223372036854775807',
  '-9223372036854775809',
  '-1',
  '0',
  '1e3',
  '99999999999999999999',
  '1.5',
  '0x10',
  ' 1',
  'abc',
  '',
];
const CONTINUES: [string, string][] = [
  ['not base64', 'not base64!!'],
  ['base64 of garbage', b64('garbage\u0000\u00ff')],
  ['base64 of JSON that is no token', b64('{"a":1}')],
  ['base64 of a JSON array', b64('[1,2,3]')],
  ['a revision past int64', b64('{"v":"meta.k8s.io/v1","rv":9223372036854775808,"start":"w1"}')],
  ['a revision of 1e400', b64('{"v":"meta.k8s.io/v1","rv":1e400,"start":"w1"}')],
  ['a negative revision', token({ rv: -5, start: 'w1' })],
  ['a revision that is a string', token({ rv: '7', start: 'w1' })],
  ['a start climbing out with ../', token({ rv: 1, start: '../../namespaces/kube-system' })],
  ['a start of 100 KB', token({ rv: 1, start: 'x'.repeat(100_000) })],
  ['a start with NULs and invalid UTF-16', token({ rv: 1, start: '\u0000\ud800\u0000' })],
  ['an unknown version', b64('{"v":"meta.k8s.io/v999","rv":1,"start":"w1"}')],
  ['an empty object', b64('{}')],
  ['padding and whitespace', `${token({ rv: 1, start: 'w1' })}==\n `],
  ['a token nested 10,000 deep', b64(`{"v":${'['.repeat(10_000)}${']'.repeat(10_000)}}`)],
];
/** A revision far ahead of the store: kube waits 3 s for its cache, then answers 504 (see the slow cases). */
const FUTURE_RV = '99999999999';
const RESOURCE_VERSIONS = ['abc', '-1', '0', '1e3', '18446744073709551616', ' 1', '1 ', '0x1', ''];
const RV_MATCHES = ['Exact', 'NotOlderThan', 'garbage', ''];
const TIMEOUTS = ['-1', '0', '99999999999999999999', '9223372036854775807', '1e9', 'abc', '1.5'];
const LABEL_SELECTORS = [
  'a in (',
  'a in (b',
  'a notin ()',
  'a in ()',
  '!',
  '!!a',
  'a,,,b',
  'a==b==c',
  '=',
  'a!=',
  'a>',
  'a<1',
  'a>99999999999999999999',
  '(a)',
  `${'('.repeat(5000)}a${')'.repeat(5000)}`,
  `a in (${'('.repeat(5000)}`,
  `a in (${Array.from({ length: 2000 }, (_, i) => `v${i}`).join(',')})`,
  `${'k'.repeat(300)}=v`,
  `a=${'v'.repeat(12_000)}`,
  Array.from({ length: 2000 }, (_, i) => `k${i}`).join(','),
  'a=b\u0000c',
  'a=\ud800',
  'app in (fuzz),app notin (fuzz),!app,app',
];
const FIELD_SELECTORS = [
  'metadata.name=',
  'metadata.name==a==b',
  'metadata.name in (a)',
  '(',
  'spec.x=1',
  'metadata.namespace!=',
  `metadata.name=${'n'.repeat(12_000)}`,
  Array.from({ length: 2000 }, () => 'metadata.name=w1').join(','),
  `${'('.repeat(5000)}metadata.name=w1${')'.repeat(5000)}`,
  'metadata.name=w1\\',
  'metadata.name=w1\\,x',
];
const WATCH_VALUES = ['yes', '1', 't', 'TRUE', 'True', '', 'false', 'maybe'];

const q = (params: Record<string, string>): string => new URLSearchParams(params).toString();

describe('hostile query strings', () => {
  describe('limit', () => {
    for (const path of LISTS)
      for (const v of LIMITS) it(`${path}?limit=${v}`, () => fuzz.check((s) => get(s, `${path}?${q({ limit: v })}`)));
  });

  describe('continue', () => {
    for (const path of LISTS) {
      for (const [name, v] of CONTINUES) {
        it(`${path}: ${name}`, () => fuzz.check((s) => get(s, `${path}?${q({ limit: '1', continue: v })}`)));
      }
    }
    it('a real token, with resourceVersion and with a selector change', () =>
      fuzz.check(async (s) => {
        const first = await call(s, `${LISTS[1]}?limit=1`);
        const cont = (JSON.parse(first.body) as { metadata?: { continue?: string } }).metadata?.continue ?? 'missing';
        return get(
          s,
          `${LISTS[1]}?${q({ limit: '1', continue: cont, resourceVersion: '1', labelSelector: 'app=other' })}`,
        );
      }));
  });

  describe('resourceVersion and resourceVersionMatch', () => {
    // Every kind's get and list read options the same way: the custom resource's stand for all.
    for (const path of [LISTS[1], GETS[1]]) {
      for (const rv of RESOURCE_VERSIONS) {
        for (const match of RV_MATCHES) {
          const params = { resourceVersion: rv, ...(match ? { resourceVersionMatch: match } : {}) };
          it(`${path}?${q(params)}`, () =>
            fuzz.check((s) => get(s, `${path}?${q(params)}`), { allow: KUBE_RV_TOO_LARGE }));
        }
      }
    }
    for (const path of LISTS) {
      for (const rv of RESOURCE_VERSIONS) {
        it(`watch ${path}?resourceVersion=${rv}`, () =>
          fuzz.check((s) => get(s, `${path}?${q({ watch: 'true', resourceVersion: rv })}`), {
            allow: KUBE_RV_TOO_LARGE,
          }));
      }
    }
  });

  it('a revision from the future on get, list, watch and in a continue token (slow: run together)', async () => {
    // Each may take kube's 3 s wait for the cache; run at once, each still its own case, and
    // each probed for /readyz all along.
    const cases: Record<string, string> = {
      get: `${GETS[1]}?resourceVersion=${FUTURE_RV}`,
      'get, Exact': `${GETS[1]}?resourceVersion=${FUTURE_RV}&resourceVersionMatch=Exact`,
      list: `${LISTS[1]}?resourceVersion=${FUTURE_RV}`,
      'list, Exact': `${LISTS[1]}?resourceVersion=${FUTURE_RV}&resourceVersionMatch=Exact`,
      'list across namespaces, NotOlderThan': `${LISTS[2]}?resourceVersion=${FUTURE_RV}&resourceVersionMatch=NotOlderThan`,
      watch: `${LISTS[1]}?watch=true&resourceVersion=${FUTURE_RV}`,
      'watch, sendInitialEvents': `${LISTS[1]}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${FUTURE_RV}`,
      continue: `${LISTS[1]}?${q({ limit: '1', continue: token({ rv: Number(FUTURE_RV), start: 'w1\u0000' }) })}`,
      'namespaces list': `${LISTS[0]}?resourceVersion=${FUTURE_RV}`,
    };
    const names = Object.keys(cases);
    const problems = await Promise.all(
      names.map((n) => fuzz.problems((s) => get(s, cases[n]!), { allow: KUBE_RV_TOO_LARGE, during: true })),
    );
    expect(Object.fromEntries(names.map((n, i) => [n, problems[i]]))).toEqual(
      Object.fromEntries(names.map((n) => [n, []])),
    );
  });

  describe('timeoutSeconds', () => {
    for (const path of [LISTS[1], LISTS[2]]) {
      for (const t of TIMEOUTS) {
        it(`list ${path}?timeoutSeconds=${t}`, () => fuzz.check((s) => get(s, `${path}?${q({ timeoutSeconds: t })}`)));
        it(`watch ${path}?timeoutSeconds=${t}`, () =>
          fuzz.check((s) => get(s, `${path}?${q({ watch: 'true', timeoutSeconds: t })}`)));
      }
    }
  });

  describe('selectors', () => {
    for (const path of LISTS) {
      for (const sel of LABEL_SELECTORS) {
        const name = sel.length > 60 ? `${sel.slice(0, 30)}… (${sel.length} chars)` : sel;
        it(`${path}?labelSelector=${name}`, () => fuzz.check((s) => get(s, `${path}?${q({ labelSelector: sel })}`)));
      }
      for (const sel of FIELD_SELECTORS) {
        const name = sel.length > 60 ? `${sel.slice(0, 30)}… (${sel.length} chars)` : sel;
        it(`${path}?fieldSelector=${name}`, () => fuzz.check((s) => get(s, `${path}?${q({ fieldSelector: sel })}`)));
        if (path === LISTS[1])
          it(`watch ${path}?fieldSelector=${name}`, () =>
            fuzz.check((s) => get(s, `${path}?${q({ watch: 'true', fieldSelector: sel })}`)));
      }
      it(`${path}?labelSelector= of 1 MiB`, () =>
        fuzz.check((s) => get(s, `${path}?labelSelector=a%3D${'v'.repeat(1024 * 1024)}`)));
      it(`${path}?labelSelector=%ff%fe (not UTF-8)`, () =>
        fuzz.check((s) => get(s, `${path}?labelSelector=a%3D%ff%fe`)));
      it(`${path}?labelSelector=%zz (bad escape)`, () => fuzz.check((s) => get(s, `${path}?labelSelector=a%zz`)));
    }
  });

  describe('watch flags', () => {
    for (const path of LISTS) {
      for (const w of WATCH_VALUES)
        it(`${path}?watch=${w}`, () => fuzz.check((s) => get(s, `${path}?${q({ watch: w })}`)));
      it(`${path}?watch=true&watch=false&watch=yes`, () =>
        fuzz.check((s) => get(s, `${path}?watch=true&watch=false&watch=yes`)));
      it(`${path}: allowWatchBookmarks and sendInitialEvents garbage`, () =>
        fuzz.check((s) =>
          get(
            s,
            `${path}?${q({ watch: 'true', allowWatchBookmarks: 'maybe', sendInitialEvents: 'perhaps', resourceVersionMatch: 'Exact' })}`,
          ),
        ));
      it(`${path}: sendInitialEvents without resourceVersionMatch`, () =>
        fuzz.check((s) => get(s, `${path}?${q({ watch: 'true', sendInitialEvents: 'true' })}`)));
      it(`${path}: sendInitialEvents on a plain list`, () =>
        fuzz.check((s) =>
          get(
            s,
            `${path}?${q({ sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', resourceVersion: '' })}`,
          ),
        ));
    }
    it('legacy /watch/ path with garbage', () =>
      fuzz.check((s) => get(s, `/api/v1/watch/namespaces?${q({ resourceVersion: 'abc', timeoutSeconds: '-1' })}`)));
    it('legacy /watch/ path of one object that does not exist', () =>
      fuzz.check((s) => get(s, `/apis/${GROUP}/v1/watch/namespaces/${NS}/widgets/nope?timeoutSeconds=1`)));
  });

  describe('repeated and many parameters', () => {
    for (const path of LISTS) {
      it(`${path}: limit given three ways`, () => fuzz.check((s) => get(s, `${path}?limit=1&limit=2&limit=abc`)));
      it(`${path}: labelSelector repeated 1,000 times`, () =>
        fuzz.check((s) => get(s, `${path}?${Array(1000).fill('labelSelector=a%3Db').join('&')}`)));
      it(`${path}: 3,000 parameters`, () =>
        fuzz.check((s) => get(s, `${path}?${Array.from({ length: 3000 }, (_, i) => `p${i}=1`).join('&')}`)));
      it(`${path}: 100,000 parameters`, () =>
        fuzz.check((s) => get(s, `${path}?${Array(100_000).fill('a=1').join('&')}`)));
      it(`${path}: 100,000 bare ampersands`, () => fuzz.check((s) => get(s, `${path}?${'&'.repeat(100_000)}`)));
      it(`${path}: pretty, as and includeObject garbage`, () =>
        fuzz.check((s) => get(s, `${path}?${q({ pretty: 'very', includeObject: 'Sometimes', as: 'Table' })}`)));
    }
  });

  describe('write verbs with garbage options', () => {
    const widgets = LISTS[1];
    const body = JSON.stringify(widget('opt', { s: 'ok' }));
    const post = (query: string) => (s: ServerProcess) => call(s, `${widgets}?${query}`, { method: 'POST', body });
    it('dryRun=garbage', () => fuzz.check(post('dryRun=garbage')));
    it('dryRun=All&dryRun=All&dryRun=x', () => fuzz.check(post('dryRun=All&dryRun=All&dryRun=x')));
    it('fieldValidation=garbage', () => fuzz.check(post('fieldValidation=garbage')));
    it('fieldManager of 10 KB', () => fuzz.check(post(`fieldManager=${'m'.repeat(10_000)}`)));
    it('fieldManager with NULs', () => fuzz.check(post('fieldManager=%00%00')));
    for (const [name, query] of [
      ['propagationPolicy=garbage', 'propagationPolicy=garbage'],
      ['gracePeriodSeconds=-99999999999999999999', 'gracePeriodSeconds=-99999999999999999999'],
      ['gracePeriodSeconds=abc', 'gracePeriodSeconds=abc'],
      ['orphanDependents=maybe', 'orphanDependents=maybe'],
    ] as const) {
      it(`DELETE of an object that does not exist, ${name}`, () =>
        fuzz.check((s) => call(s, `${widgets}/nope?${query}`, { method: 'DELETE' })));
      it(`deletecollection with a selector matching nothing, ${name}`, () =>
        fuzz.check((s) => call(s, `${widgets}?labelSelector=none%3Dnone&${query}`, { method: 'DELETE' })));
    }
  });

  it('property: random values for the list and watch parameters', async () => {
    const KEYS = [
      'limit',
      'continue',
      'resourceVersion',
      'resourceVersionMatch',
      'timeoutSeconds',
      'labelSelector',
      'fieldSelector',
      'watch',
      'allowWatchBookmarks',
      'sendInitialEvents',
      'pretty',
    ];
    const value = fc.oneof(
      fc.string({ maxLength: 24 }),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom(
        'true',
        '1',
        '0',
        '-1',
        '9223372036854775808',
        '1e400',
        'Exact',
        'NotOlderThan',
        'a in (',
        'metadata.name=w1',
        '!a',
        'a,b',
        '',
      ),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
    );
    const params = fc.array(fc.tuple(fc.constantFrom(...KEYS), value), { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...LISTS, ...GETS), params, async (path, ps) => {
        const query = ps
          .map(([k, v]) => `${k}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, '\ufffd'))}`)
          .join('&');
        const problems = await fuzz.problems((s) => get(s, `${path}?${query}`), { allow: KUBE_RV_TOO_LARGE });
        if (problems.length) throw new Error(`${path}?${query}: ${problems.join('; ')}`);
      }),
      { ...FC_PARAMS, numRuns: 30 },
    );
  });
});
