// Hostile Accept headers on every write verb, and objects naming another namespace than their URL,
// against the real binary: no 5xx, the process lives, /readyz 200 within 1 s (see harness.ts); and a
// write refused for its Accept header (406) must leave the object as it was.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process.js';
import { FuzzServer, GROUP, type Outcome, call, installCRD, must, widget } from './harness.js';

const NS = 'fuzz-wp';
const TARGETS = [
  {
    name: 'configmap',
    collection: `/api/v1/namespaces/${NS}/configmaps`,
    body: (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } }),
  },
  { name: 'widget', collection: `/apis/${GROUP}/v1/namespaces/${NS}/widgets`, body: (name: string) => widget(name) },
] as const;

const fuzz = new FuzzServer(async (s) => {
  await must(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await installCRD(s, 'widgets', 'Widget');
  for (const t of TARGETS) await must(s, 'POST', t.collection, t.body('victim'));
});
beforeAll(() => fuzz.start());
afterAll(() => fuzz.stop());

/** Accept headers no resource endpoint can satisfy. */
const UNSATISFIABLE = [
  'text/html',
  '*/json',
  'application',
  'application/yaml;stream=watch',
  'application/json;as=Table;g=meta.k8s.io;v=v9',
  'application/json;as=Secret;g=;v=v1',
  'application/json;sv=v1',
  `${'x/y;q=0.5,'.repeat(2000)}a/b`,
  'application/xml;as=Table;g=meta.k8s.io;v=v1',
];

/** Whether the object is still as it was: a 406 wrote nothing. */
const unchanged =
  (path: string, before: () => string) =>
  async (s: ServerProcess): Promise<string[]> => {
    const now = await call(s, path);
    return now.body === before() ? [] : [`${path} changed: ${now.status} ${now.body.slice(0, 200)}`];
  };

/** A write of one verb with the given Accept header. */
interface Write {
  verb: string;
  send(s: ServerProcess, accept: string): Promise<Outcome>;
}

const writes = (t: (typeof TARGETS)[number]): Write[] => [
  {
    verb: 'POST',
    send: (s, accept) =>
      call(s, t.collection, { method: 'POST', headers: { accept }, body: JSON.stringify(t.body('created-by-406')) }),
  },
  {
    verb: 'PUT',
    send: (s, accept) =>
      call(s, `${t.collection}/victim`, { method: 'PUT', headers: { accept }, body: JSON.stringify(t.body('victim')) }),
  },
  {
    verb: 'merge PATCH',
    send: (s, accept) =>
      call(s, `${t.collection}/victim`, {
        method: 'PATCH',
        headers: { accept },
        contentType: 'application/merge-patch+json',
        body: '{"metadata":{"labels":{"x":"y"}}}',
      }),
  },
  {
    verb: 'apply',
    send: (s, accept) =>
      call(s, `${t.collection}/victim?fieldManager=fuzz&force=true`, {
        method: 'PATCH',
        headers: { accept },
        contentType: 'application/apply-patch+yaml',
        body: JSON.stringify(t.body('victim')),
      }),
  },
  { verb: 'DELETE', send: (s, accept) => call(s, `${t.collection}/victim`, { method: 'DELETE', headers: { accept } }) },
  { verb: 'DELETE collection', send: (s, accept) => call(s, t.collection, { method: 'DELETE', headers: { accept } }) },
];

describe('writes with an Accept nothing satisfies: 406, nothing written', () => {
  for (const t of TARGETS) {
    for (const w of writes(t)) {
      for (const accept of UNSATISFIABLE) {
        it(`${t.name} ${w.verb} Accept: ${accept.slice(0, 60)}`, async () => {
          let before = '';
          const snapshot = async (s: ServerProcess): Promise<void> => {
            before = (await call(s, `${t.collection}/victim`)).body;
          };
          await fuzz.check(
            async (s) => {
              await snapshot(s);
              return w.send(s, accept);
            },
            {
              verify: async (s) => [
                ...(await unchanged(`${t.collection}/victim`, () => before)(s)),
                ...((await call(s, `${t.collection}/created-by-406`)).status === 404
                  ? []
                  : ['created-by-406 was created']),
              ],
            },
          );
        });
      }
    }
  }
});

describe('objects naming another namespace than their URL', () => {
  for (const t of TARGETS) {
    const elsewhere = (name: string) => {
      const body = t.body(name) as { metadata: Record<string, unknown> };
      return JSON.stringify({ ...body, metadata: { ...body.metadata, namespace: 'kube-system' } });
    };
    const cases: Array<[string, (s: ServerProcess) => Promise<Outcome>]> = [
      ['POST', (s) => call(s, t.collection, { method: 'POST', body: elsewhere('moved') })],
      ['PUT', (s) => call(s, `${t.collection}/victim`, { method: 'PUT', body: elsewhere('victim') })],
      [
        'merge PATCH',
        (s) =>
          call(s, `${t.collection}/victim`, {
            method: 'PATCH',
            contentType: 'application/merge-patch+json',
            body: '{"metadata":{"namespace":"kube-system"}}',
          }),
      ],
      [
        'JSON PATCH',
        (s) =>
          call(s, `${t.collection}/victim`, {
            method: 'PATCH',
            contentType: 'application/json-patch+json',
            body: '[{"op":"add","path":"/metadata/namespace","value":"kube-system"}]',
          }),
      ],
      [
        'apply',
        (s) =>
          call(s, `${t.collection}/victim?fieldManager=fuzz&force=true`, {
            method: 'PATCH',
            contentType: 'application/apply-patch+yaml',
            body: elsewhere('victim'),
          }),
      ],
    ];
    for (const [verb, send] of cases) {
      it(`${t.name} ${verb}`, () =>
        fuzz.check(send, {
          expect4xx: true,
          verify: async (s) =>
            (await call(s, `${t.collection.replace(`/namespaces/${NS}/`, '/namespaces/kube-system/')}/victim`))
              .status === 404
              ? []
              : ['stored in kube-system'],
        }));
    }
  }
});
