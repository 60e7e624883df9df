// Documents as wide or deep as the body limit (3 MiB) and the nesting limit (10,000) allow, shaped
// for the steps of a write that walk them before storage: the body's parse, unknown fields told to
// fieldValidation, ObjectMeta's cut of managedFields entries and its validation of labels and
// annotations, pruning of a free-form list, the field manager. Each is answered, /readyz is
// answered within the budget all along (`during`, see harness.ts), and, for bodies of a megabyte
// or more, at least one /readyz is answered while the write is in flight.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process.js';
import { FuzzServer, GROUP, type Outcome, call, installCRD, must, widget } from './harness.js';

const NS = 'fuzz-wide';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
const N = 200_000;
/** These requests take seconds of the server's time under load. */
const TIMEOUT_MS = 60_000;
/** Bodies this large hold the server long enough that /readyz is asked, and must be answered, meanwhile. */
const IN_FLIGHT_BYTES = 1_000_000;

const fuzz = new FuzzServer(async (s) => {
  await must(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await installCRD(s, 'widgets', 'Widget');
});
beforeAll(() => fuzz.start());
afterAll(() => fuzz.stop());

const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
/** `{ f0: v, f1: v, ... }`, n members. */
const members = (n: number, v: unknown): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, v]));

interface Case {
  name: string;
  path: string;
  body: () => string;
  status: number;
  /** What else the answer must say, as problems. */
  answer?: (o: Outcome) => string[];
}

// Duplicate keys once cost their path's text each (the depth): 10,000 of them 9,000 deep held the
// event loop minutes. kube reports the first 100 (sigs.k8s.io/json keeps 100 strict errors).
const DUPLICATES = 10_000;
const DUP_DEPTH = 9000;
const duplicated = (name: string): string => {
  const keys = Array.from({ length: DUPLICATES }, (_, i) => `"k${i}":1,"k${i}":2`).join(',');
  const free = `${'{"a":'.repeat(DUP_DEPTH)}{${keys}}${'}'.repeat(DUP_DEPTH)}`;
  return `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":{"free":${free}}}`;
};
const dupPath = (i: number): string => `spec.free.${Array<string>(DUP_DEPTH).fill('a').join('.')}.k${i}`;

const CASES: Case[] = [
  {
    name: `${N / 2} managedFields entries, each with an unknown field (fieldValidation=Ignore)`,
    path: `${WIDGETS}?fieldValidation=Ignore`,
    body: () => {
      const w = widget('unknown-in-entries');
      (w['metadata'] as Record<string, unknown>)['managedFields'] = Array.from({ length: N / 2 }, () => ({ x: 1 }));
      return JSON.stringify(w);
    },
    status: 201,
  },
  {
    name: `${N} empty managedFields entries`,
    path: WIDGETS,
    body: () => {
      const w = widget('empty-entries');
      (w['metadata'] as Record<string, unknown>)['managedFields'] = Array.from({ length: N }, () => ({}));
      return JSON.stringify(w);
    },
    status: 201,
  },
  {
    name: `a free-form list of ${N} numbers`,
    path: WIDGETS,
    body: () => JSON.stringify(widget('long-list', { s: 'ok', free: { l: Array<number>(N).fill(1) } })),
    status: 201,
  },
  {
    name: 'a free-form value nested 9,990 deep',
    path: WIDGETS,
    body: () =>
      `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"deep"},"spec":{"free":${nested(9990)}}}`,
    status: 201,
  },
  {
    // Float literals (which kube decodes as float64, not int64) cost the depth each when recorded
    // or looked up by path text: this body held the event loop minutes.
    name: 'a free-form value 9,000 deep ending in a list of 12,000 float literals',
    path: WIDGETS,
    body: () => {
      const floats = Array.from({ length: 12_000 }, (_, i) => (i % 2 ? '1.5' : '2.0')).join(',');
      const free = `${'{"a":'.repeat(9000)}[${floats}]${'}'.repeat(9000)}`;
      return `{"apiVersion":"${GROUP}/v1","kind":"Widget","metadata":{"name":"deep-floats"},"spec":{"free":${free}}}`;
    },
    status: 201,
  },
  {
    name: `a free-form value 9,000 deep with ${DUPLICATES} duplicated keys (fieldValidation=Strict)`,
    path: `${WIDGETS}?fieldValidation=Strict`,
    body: () => duplicated('dup-strict'),
    status: 400,
    answer: (o) => {
      const want = `Widget in version "v1" cannot be handled as a Widget: strict decoding error: ${Array.from({ length: 100 }, (_, i) => `duplicate field "${dupPath(i)}"`).join(', ')}`;
      const message: unknown = o.body ? JSON.parse(o.body).message : undefined;
      return message === want ? [] : [`message ${String(message).slice(0, 100)}…, not the first 100 duplicates`];
    },
  },
  {
    name: `a free-form value 9,000 deep with ${DUPLICATES} duplicated keys (fieldValidation=Warn)`,
    path: `${WIDGETS}?fieldValidation=Warn`,
    body: () => duplicated('dup-warn'),
    status: 201,
    // Each path is past the recorder's 4,096 runes: every warning is cut to 256 runes, 16 in all.
    answer: (o) => {
      const want = Array.from({ length: 16 }, (_, i) => `duplicate field "${dupPath(i)}"`.slice(0, 256));
      const got = [...(o.warning ?? '').matchAll(/299 - ("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]!) as string);
      return JSON.stringify(got) === JSON.stringify(want) ? [] : [`warnings ${got.length}, not the 16 first cut`];
    },
  },
  {
    name: `${N / 2} labels`,
    path: WIDGETS,
    body: () => JSON.stringify({ ...widget('labels'), metadata: { name: 'labels', labels: members(N / 2, 'v') } }),
    // Valid, and past the storage limit once the field manager has recorded them.
    status: 413,
  },
  {
    name: `${N / 2} annotations`,
    path: WIDGETS,
    body: () =>
      JSON.stringify({ ...widget('annotations'), metadata: { name: 'annotations', annotations: members(N / 2, 'v') } }),
    // Past the 256 KiB annotations take.
    status: 422,
  },
  {
    name: `${N} labels, the body's JSON broken at its end`,
    path: WIDGETS,
    body: () =>
      JSON.stringify({ ...widget('broken'), metadata: { name: 'broken', labels: members(N, 'v') } }).slice(0, -1),
    status: 400,
  },
  {
    name: 'a free-form list of 1,400,000 numbers (2.8 MB)',
    path: WIDGETS,
    body: () => JSON.stringify(widget('numbers', { free: { l: Array<number>(1_400_000).fill(1) } })),
    // Past the storage limit.
    status: 413,
  },
  {
    name: `${N / 2} unknown metadata fields of a ConfigMap (fieldValidation=Ignore)`,
    path: `${CONFIGMAPS}?fieldValidation=Ignore`,
    body: () => {
      const metadata: Record<string, unknown> = { name: 'unknown-meta' };
      for (let i = 0; i < N / 2; i++) metadata[`f${i}`] = 1;
      return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata });
    },
    status: 201,
  },
];

describe('wide and deep documents in one write', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: answered, /readyz answered all along', async (_name, c) => {
    const body = c.body();
    let got: Outcome | undefined;
    /** /readyz answered 200 after the write was sent and before its answer came. */
    let meanwhile = 0;
    const write = async (s: ServerProcess): Promise<Outcome> => {
      let done = false;
      const answer = call(s, c.path, { method: 'POST', body, timeoutMs: TIMEOUT_MS }).finally(() => (done = true));
      while (!done) if ((await call(s, '/readyz', { timeoutMs: TIMEOUT_MS })).status === 200 && !done) meanwhile++;
      return answer;
    };
    const answered = async (): Promise<string[]> => [
      ...(got?.status === c.status ? [] : [`answered ${got?.status}, not ${c.status}: ${got?.body.slice(0, 300)}`]),
      ...(got && c.answer ? c.answer(got) : []),
      ...(meanwhile > 0 || body.length < IN_FLIGHT_BYTES ? [] : ['no /readyz answered while the write was in flight']),
    ];
    await fuzz.check(async (s) => (got = await write(s)), { during: true, verify: answered });
  });
});
