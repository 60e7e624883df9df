// Hostile bodies for create, update and patch of a namespace, a CRD, a custom resource and its
// status: malformed, truncated, deep, huge, not UTF-8, duplicate keys, absurd numbers, YAML bombs
// and tags, protobuf garbage, every patch type with garbage, JSON patches with absurd paths. Each
// case: no 5xx, the process lives, /readyz 200 within 1 s (see harness.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process.js';
import {
  BODY_LIMIT,
  BOGUS_PATCH_TYPES,
  DEPTHS,
  type Hostile,
  MALFORMED,
  METADATA_SHAPES,
  MIB,
  NUMBERS,
  PATCH_TYPES,
  bigString,
  billionLaughs,
  deepArray,
  deepMixed,
  deepObject,
  invalidUtf8,
  jsonPatchCases,
  mergePatchCases,
  protobufCases,
  yamlCases,
} from './corpus.js';
import {
  CRDS,
  FC_PARAMS,
  FuzzServer,
  GROUP,
  type Outcome,
  call,
  installCRD,
  must,
  raw,
  requestBytes,
  widget,
} from './harness.js';

const NS = 'fuzz';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;

const fuzz = new FuzzServer(async (s) => {
  await must(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await must(s, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'fuzz-victim' },
  });
  await installCRD(s, 'widgets', 'Widget');
  // The CRD that CRD updates and patches aim at, so that breaking it leaves widgets served.
  await installCRD(s, 'victims', 'Victim');
  for (const name of ['w1', 'p1', 'p2', 'p3', 'p4', 'prop'])
    await must(s, 'POST', WIDGETS, widget(name, { s: 'ok', n: 1, items: ['a', 'b'], free: { a: 1 } }));
});
beforeAll(() => fuzz.start());
afterAll(() => fuzz.stop());

/** A JSON text with one hole where a hostile value goes: [before, after]. */
type Envelope = readonly [string, string];

interface Target {
  name: string;
  /** POST here; absent for a subresource. */
  collection?: string;
  /** PUT and PATCH here. */
  item: string;
  /** Where a hostile value goes in a create and in an update; more holes for typed fields. */
  create: Envelope;
  update: Envelope;
  typed?: Record<string, Envelope>;
}

const CRD_SPEC = (example: string): string =>
  `"spec":{"group":"${GROUP}","scope":"Namespaced","names":{"plural":"victims","singular":"victim","kind":"Victim"},` +
  `"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"example":${example}`;
const [crdBefore, crdAfter] = CRD_SPEC('\u0001').split('\u0001') as [string, string];
const cr = (name: string): string => `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{${name}},`;

const TARGETS: readonly Target[] = [
  {
    name: 'namespace',
    collection: '/api/v1/namespaces',
    item: '/api/v1/namespaces/fuzz-victim',
    create: ['{"apiVersion":"v1","kind":"Namespace","metadata":{"generateName":"fz-"},"spec":{"x":', '}}'],
    update: ['{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fuzz-victim"},"spec":{"x":', '}}'],
  },
  {
    name: 'CRD',
    collection: CRDS,
    item: `${CRDS}/victims.${GROUP}`,
    create: [
      `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"victims.${GROUP}"},${crdBefore}`,
      `${crdAfter}}}]}}`,
    ],
    update: [
      `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"victims.${GROUP}"},${crdBefore}`,
      `${crdAfter}}}]}}`,
    ],
  },
  {
    name: 'custom resource',
    collection: WIDGETS,
    item: `${WIDGETS}/w1`,
    create: [`${cr('"generateName":"fz-"')}"spec":{"s":"ok","free":`, '}}'],
    update: [`${cr('"name":"w1"')}"spec":{"s":"ok","free":`, '}}'],
    typed: {
      'the integer spec.n': [`${cr('"name":"w1"')}"spec":{"n":`, '}}'],
      'the number spec.f': [`${cr('"name":"w1"')}"spec":{"f":`, '}}'],
      'the CEL-checked string spec.s': [`${cr('"name":"w1"')}"spec":{"s":`, '}}'],
      'metadata.generation': [
        `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"w1","generation":`,
        '},"spec":{"s":"x"}}',
      ],
    },
  },
  {
    name: 'custom resource status',
    item: `${WIDGETS}/w1/status`,
    create: ['', ''],
    update: [`${cr('"name":"w1"')}"spec":{"s":"ok"},"status":{"x":`, '}}'],
  },
];

/** Hostile JSON values, spliced into a target's hole. */
function injected(): Hostile[] {
  const v = (name: string, data: string | Buffer): Hostile => ({ name, data });
  const utf8Value = (bytes: number[]): Buffer =>
    Buffer.concat([Buffer.from('"x'), Buffer.from(bytes), Buffer.from('y"')]);
  return [
    ...DEPTHS.flatMap((n) => [
      v(`arrays ${n} deep`, deepArray(n)),
      v(`objects ${n} deep`, deepObject(n)),
      v(`arrays ${n} deep, unclosed`, deepArray(n, false)),
    ]),
    v('arrays and objects 50,000 deep', deepMixed(50_000)),
    v('a string just over 3 MiB', bigString(BODY_LIMIT + 1)),
    v('a string just under 3 MiB', bigString(BODY_LIMIT - 4096)),
    v('an array of 100,000 numbers', `[${Array(100_000).fill('0').join(',')}]`),
    v('an object of 20,000 keys', `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":0`).join(',')}}`),
    v('a 256 KiB key', `{"${'k'.repeat(MIB / 4)}":1}`),
    v('10,000 duplicate keys', `{${Array(10_000).fill('"a":1').join(',')}}`),
    v('duplicate keys of different types', '{"a":1,"a":"x","a":{"b":[]},"a":null}'),
    v('a 0xff byte in a string', utf8Value([0xff])),
    v('an overlong encoding in a string', utf8Value([0xc0, 0xaf])),
    v('a UTF-8 surrogate in a string', utf8Value([0xed, 0xa0, 0x80])),
    v('a lone surrogate escape', '"\\ud800"'),
    v('a truncated value', '{"a":[1,2'),
    v('a bare word', 'undefined'),
    ...NUMBERS.map((n) => v(`the number ${n.length > 40 ? `${n.slice(0, 12)}… (${n.length} chars)` : n}`, n)),
  ];
}

/** Whole bodies: nothing of the target's shape survives. */
function whole(): Hostile[] {
  const valid = JSON.stringify(widget('w1'));
  return [
    ...MALFORMED.map((m, i) => ({ name: `malformed #${i}: ${JSON.stringify(m.slice(0, 40))}`, data: m })),
    ...[0.25, 0.5, 0.9].map((f) => ({
      name: `a valid body truncated at ${f * 100}%`,
      data: valid.slice(0, Math.floor(valid.length * f)),
    })),
    { name: 'a valid body minus its last byte', data: valid.slice(0, -1) },
    { name: 'YAML sent as JSON', data: `apiVersion: ${GROUP}/v1\nkind: Widget\nmetadata:\n  name: y\n` },
    ...DEPTHS.flatMap((n) => [
      { name: `[ × ${n}, unclosed`, data: deepArray(n, false) },
      { name: `{ × ${n}, unclosed`, data: deepObject(n, false) },
      { name: `[ × ${n}, closed`, data: deepArray(n) },
      { name: `{"a": × ${n}, closed`, data: deepObject(n) },
    ]),
    { name: 'just over 3 MiB of spaces then {}', data: ' '.repeat(BODY_LIMIT) + '{}' },
    {
      name: 'duplicate apiVersion, kind and metadata',
      data: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"},"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"s":"ok"}}`,
    },
    ...invalidUtf8(),
    { name: 'an unsupported content type', data: valid, type: 'application/x-www-form-urlencoded' },
    { name: 'a content type with garbage parameters', data: valid, type: 'application/json; charset=utf-16; ;;=;' },
  ];
}

const splice = ([before, after]: Envelope, data: string | Buffer): string | Buffer =>
  typeof data === 'string' ? before + data + after : Buffer.concat([Buffer.from(before), data, Buffer.from(after)]);

const size = (data: string | Buffer): number => (typeof data === 'string' ? Buffer.byteLength(data) : data.length);

/**
 * Sends one body: strings through the shared request helper, raw bytes over a TLS socket. A body
 * over the limit goes raw too: the server may answer 413 and close while the client still writes,
 * and node's HTTP client then reports EPIPE instead of the answer it already has.
 */
function send(
  s: ServerProcess,
  method: string,
  path: string,
  data: string | Buffer,
  type = 'application/json',
): Promise<Outcome> {
  if (typeof data === 'string' && size(data) <= BODY_LIMIT)
    return call(s, path, { method, body: data, contentType: type, timeoutMs: 20_000 });
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  return raw(s, (sock) => void sock.write(requestBytes(s, method, path, bytes, { 'Content-Type': type })), {
    timeoutMs: 20_000,
  });
}

/**
 * One case; a body over kube's 3 MiB must be refused (413), whatever it holds. Its answer may
 * reach a client still writing after a reset instead (the server closes the refused upload's
 * connection while the client writes; on a loaded machine the client can lose the 413 it had not
 * read yet): then the case still requires a live, ready server, but no answer.
 */
const attack = (method: string, path: string, data: string | Buffer, type?: string): Promise<void> =>
  fuzz.check((s) => send(s, method, path, data, type), {
    expect4xx: size(data) > BODY_LIMIT,
    allowNoResponse: size(data) > BODY_LIMIT,
  });

const WHOLE = whole();
/** YAML and protobuf bodies go through one decoder for every kind: sent to a built-in kind and to a custom resource. */
const YAML_AND_PROTOBUF = [
  ...yamlCases('apiVersion: v1\nkind: Namespace\nmetadata: {name: yaml-ns}\n'),
  ...protobufCases(),
];
const INJECTED = injected();
/** The garbage every patch type gets on every target. */
const PATCH_GARBAGE: Hostile[] = [
  { name: '[ × 100,000', data: deepArray(100_000, false) },
  { name: 'invalid UTF-8', data: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) },
  { name: 'just over 3 MiB', data: `{"spec":{"free":{"x":${bigString(BODY_LIMIT + 1)}}}}` },
  { name: 'billion laughs', data: billionLaughs() },
];
/** More garbage, for every patch type and some that are none, on the custom resource. */
const MORE_PATCH_GARBAGE: Hostile[] = [
  { name: 'empty', data: '' },
  { name: '{', data: '{' },
  { name: 'null', data: 'null' },
  { name: '[1]', data: '[1]' },
  { name: '"x"', data: '"x"' },
  { name: '{"a": × 100,000, closed', data: deepObject(100_000) },
  { name: 'YAML flow sequences 100,000 deep', data: deepArray(100_000) },
];

for (const t of TARGETS) {
  describe(`${t.name}: hostile bodies`, () => {
    if (t.collection) {
      const collection = t.collection;
      // The decoders see every whole body on create; update shares them.
      describe('create', () => {
        // One decoder reads every body, with protobuf for built-in kinds only: a namespace and a
        // custom resource see them all, a CRD the deep, huge and not-UTF-8 ones.
        const whole =
          t.name === 'CRD' ? WHOLE.filter((h) => /×|3 MiB|UTF|byte|surrogate|encoding|sequence/.test(h.name)) : WHOLE;
        for (const h of whole) it(`whole body: ${h.name}`, () => attack('POST', collection, h.data, h.type));
        if (t.name !== 'CRD')
          for (const h of YAML_AND_PROTOBUF)
            it(`whole body: ${h.name}`, () => attack('POST', collection, h.data, h.type));
        // A CRD create of a valid body ends in 409 after all the checks; its update gets the values below.
        if (t.name !== 'CRD')
          for (const h of INJECTED) it(`value: ${h.name}`, () => attack('POST', collection, splice(t.create, h.data)));
      });
    }
    // A namespace update decodes as its create does, and a status update as the object's update:
    // neither has more to check in a value.
    if (t.name !== 'namespace' && t.name !== 'custom resource status') {
      describe('update', () => {
        for (const h of INJECTED) it(`value: ${h.name}`, () => attack('PUT', t.item, splice(t.update, h.data)));
      });
    }
    for (const [field, envelope] of Object.entries(t.typed ?? {})) {
      describe(`update, ${field}`, () => {
        for (const n of NUMBERS) it(`${n.slice(0, 40)}`, () => attack('PUT', t.item, splice(envelope, n)));
        if (field.includes('spec.s')) {
          it('a 2 MiB string', () => attack('PUT', t.item, splice(envelope, bigString(2 * MIB))));
          it('a string starting with forbidden', () =>
            attack('PUT', t.item, splice(envelope, `"forbidden${'x'.repeat(100_000)}"`)));
          it('an object 10,000 deep', () => attack('PUT', t.item, splice(envelope, deepObject(10_000))));
        }
      });
    }

    describe('patch', () => {
      // Each group patches its own object where it can, so that what one group's accepted
      // patches leave behind (a 3 MiB field, 100,000 keys) does not slow the next.
      const item = (n: string): string => (t.name === 'custom resource' ? `${WIDGETS}/${n}` : t.item);
      for (const type of Object.values(PATCH_TYPES))
        for (const g of PATCH_GARBAGE) it(`${type}: ${g.name}`, () => attack('PATCH', item('p1'), g.data, type));
      if (t.name === 'custom resource') {
        for (const type of [PATCH_TYPES.json, PATCH_TYPES.merge, ...BOGUS_PATCH_TYPES.slice(0, 4)]) {
          for (const g of MORE_PATCH_GARBAGE)
            it(`${type || '(no content type)'}: ${g.name}`, () => attack('PATCH', item('p1'), g.data, type));
        }
      }
      // JSON patch is applied to a built-in kind and a custom resource alike; a namespace and a custom resource get it.
      if (t.name === 'namespace' || t.name === 'custom resource')
        for (const p of jsonPatchCases())
          it(`JSON patch: ${p.name}`, () => attack('PATCH', item('p2'), p.data, PATCH_TYPES.json));
      if (t.name !== 'custom resource status')
        for (const p of mergePatchCases()) {
          it(`merge patch: ${p.name}`, () => attack('PATCH', item('p3'), p.data, PATCH_TYPES.merge));
          // Namespaces take strategic merge patches; custom resources refuse them (415) before reading them.
          if (t.name === 'namespace')
            it(`strategic merge patch: ${p.name}`, () => attack('PATCH', item('p3'), p.data, PATCH_TYPES.strategic));
        }
      if (t.name === 'custom resource') {
        // A merge patch merges into what the last one left (100,000 keys...): clear it first.
        const clear = (s: ServerProcess): Promise<Outcome> =>
          call(s, item('p4'), { method: 'PATCH', body: '{"spec":{"free":null}}', contentType: PATCH_TYPES.merge });
        for (const h of INJECTED) {
          const data = splice(['{"spec":{"free":', '}}'], h.data);
          it(`merge patch value: ${h.name}`, () =>
            fuzz.check(async (s) => (await clear(s), send(s, 'PATCH', item('p4'), data, PATCH_TYPES.merge)), {
              expect4xx: size(data) > BODY_LIMIT,
            }));
        }
      }
    });
  });
}

describe('metadata of the wrong shape', () => {
  const targets = [
    {
      name: 'namespace',
      collection: '/api/v1/namespaces',
      item: '/api/v1/namespaces/fuzz-victim',
      body: { apiVersion: 'v1', kind: 'Namespace' },
    },
    {
      name: 'custom resource',
      collection: WIDGETS,
      item: `${WIDGETS}/p1`,
      body: { apiVersion: `${GROUP}/v1`, kind: 'Widget' },
    },
  ];
  for (const t of targets) {
    for (const shape of METADATA_SHAPES) {
      const metadata = { name: 'shaped', ...(shape as Record<string, unknown>) };
      it(`${t.name} create: ${JSON.stringify(shape)}`, () =>
        attack('POST', t.collection, JSON.stringify({ ...t.body, metadata })));
      for (const type of t.name === 'namespace' ? [PATCH_TYPES.merge, PATCH_TYPES.strategic] : [PATCH_TYPES.merge]) {
        it(`${t.name} ${type}: ${JSON.stringify(shape)}`, () =>
          attack('PATCH', t.item, JSON.stringify({ metadata: shape }), type));
      }
    }
  }
});

/**
 * Access reviews, TokenRequest and computed subresources take their bodies as they come (no store
 * decodes them): a value of the wrong type was once a 500, or a substring match on groups.
 */
describe('reviews and computed subresources with badly typed bodies', () => {
  const AUTHZ = '/apis/authorization.k8s.io/v1';
  const cases: [string, string, unknown][] = [
    [
      'SubjectAccessReview, groups a string',
      `${AUTHZ}/subjectaccessreviews`,
      {
        kind: 'SubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        spec: { user: 'x', groups: 'system:masters', resourceAttributes: { verb: 'get', resource: 'secrets' } },
      },
    ],
    [
      'SubjectAccessReview, groups of numbers',
      `${AUTHZ}/subjectaccessreviews`,
      { kind: 'SubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: { user: 'x', groups: [1, 2] } },
    ],
    [
      'SubjectAccessReview, extra not a map',
      `${AUTHZ}/subjectaccessreviews`,
      {
        kind: 'SubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        spec: { user: 'x', extra: ['a'], resourceAttributes: {} },
      },
    ],
    [
      'SelfSubjectAccessReview, a numeric path',
      `${AUTHZ}/selfsubjectaccessreviews`,
      {
        kind: 'SelfSubjectAccessReview',
        apiVersion: 'authorization.k8s.io/v1',
        spec: { nonResourceAttributes: { verb: 'get', path: 5 } },
      },
    ],
    [
      'SelfSubjectAccessReview, spec an array',
      `${AUTHZ}/selfsubjectaccessreviews`,
      { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec: [] },
    ],
    [
      'SelfSubjectRulesReview, a numeric namespace',
      `${AUTHZ}/selfsubjectrulesreviews`,
      { kind: 'SelfSubjectRulesReview', apiVersion: 'authorization.k8s.io/v1', spec: { namespace: 7 } },
    ],
    [
      'TokenRequest, expirationSeconds a string',
      `/api/v1/namespaces/${NS}/serviceaccounts/default/token`,
      { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: { expirationSeconds: 'x' } },
    ],
    ['an inherited property as a subresource', `/api/v1/namespaces/${NS}/serviceaccounts/default/constructor`, {}],
    ['__proto__ as a subresource', `/api/v1/namespaces/${NS}/serviceaccounts/default/__proto__`, {}],
  ];
  for (const [name, path, body] of cases) {
    it(name, () => fuzz.check((s) => send(s, 'POST', path, JSON.stringify(body)), { expect4xx: true }));
  }
});

describe('properties', () => {
  const valid = JSON.stringify(widget('new', { s: 'ok', n: 1, f: 1.5, items: ['a'], free: { a: [1, { b: null }] } }));

  it('random bytes as a custom resource body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (bytes) => {
        const problems = await fuzz.problems((s) => send(s, 'POST', WIDGETS, Buffer.from(bytes)));
        if (problems.length) throw new Error(problems.join('; '));
      }),
      { ...FC_PARAMS, numRuns: 20 },
    );
  });

  it('a valid body with one byte changed, inserted or removed', async () => {
    const edit = fc.record({
      at: fc.nat({ max: valid.length - 1 }),
      byte: fc.integer({ min: 0, max: 255 }),
      how: fc.constantFrom('set', 'insert', 'remove'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 3 }), async (edits) => {
        let b = Buffer.from(valid);
        for (const e of edits) {
          const at = Math.min(e.at, b.length - 1);
          if (e.how === 'set') b[at] = e.byte;
          else if (e.how === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from([e.byte]), b.subarray(at)]);
          else b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
        }
        const problems = await fuzz.problems((s) => send(s, 'POST', WIDGETS, b));
        if (problems.length) throw new Error(problems.join('; '));
      }),
      { ...FC_PARAMS, numRuns: 20 },
    );
  });

  it('any JSON value as a custom resource spec, and under its free-form field', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), fc.boolean(), async (value, underFree) => {
        const spec = underFree ? { s: 'ok', free: value } : value;
        const body = JSON.stringify({
          apiVersion: `${GROUP}/v1`,
          kind: 'Widget',
          metadata: { generateName: 'prop-' },
          spec,
        });
        const problems = await fuzz.problems((s) => send(s, 'POST', WIDGETS, body));
        if (problems.length) throw new Error(problems.join('; '));
      }),
      { ...FC_PARAMS, numRuns: 20 },
    );
  });

  it('random JSON patch operations on a custom resource', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'spec',
        'free',
        'items',
        'metadata',
        'labels',
        '-',
        '0',
        '-1',
        '99999999999999999999',
        '~0',
        '~1',
        '~2',
        '',
      ),
      fc.string({ maxLength: 8 }),
    );
    const path = fc.oneof(
      fc.array(segment, { maxLength: 6 }).map((s) => (s.length ? `/${s.join('/')}` : '')),
      fc.string({ maxLength: 12 }),
    );
    const op = fc.record(
      {
        op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
        path,
        from: path,
        value: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: ['op'] },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 6 }), async (ops) => {
        const problems = await fuzz.problems((s) =>
          send(s, 'PATCH', `${WIDGETS}/prop`, JSON.stringify(ops), PATCH_TYPES.json),
        );
        if (problems.length) throw new Error(problems.join('; '));
      }),
      { ...FC_PARAMS, numRuns: 20 },
    );
  });

  it('any JSON value as a merge patch of a namespace and of a CRD', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 5 }),
        fc.constantFrom('/api/v1/namespaces/fuzz-victim', `${CRDS}/victims.${GROUP}`),
        async (value, path) => {
          const problems = await fuzz.problems((s) => send(s, 'PATCH', path, JSON.stringify(value), PATCH_TYPES.merge));
          if (problems.length) throw new Error(problems.join('; '));
        },
      ),
      { ...FC_PARAMS, numRuns: 20 },
    );
  });
});
