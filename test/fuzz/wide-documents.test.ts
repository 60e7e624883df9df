// Documents as wide or deep as the body limit (3 MiB) and the nesting limit (10,000) allow, shaped
// for the steps of a write that walk them before storage: unknown fields told to fieldValidation,
// ObjectMeta's cut of managedFields entries, pruning of a free-form list, the field manager. Each
// is answered, and /readyz is answered within the budget all along (`during`, see harness.ts).
import { afterAll, beforeAll, describe, it } from 'vitest';
import { FuzzServer, GROUP, type Outcome, call, installCRD, must, widget } from './harness.js';

const NS = 'fuzz-wide';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
const N = 200_000;
/** These requests take seconds of the server's time under load. */
const TIMEOUT_MS = 60_000;

const fuzz = new FuzzServer(async (s) => {
  await must(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await installCRD(s, 'widgets', 'Widget');
});
beforeAll(() => fuzz.start());
afterAll(() => fuzz.stop());

const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

interface Case {
  name: string;
  path: string;
  body: () => string;
  status: number;
}

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
    const answered = async (): Promise<string[]> =>
      got?.status === c.status ? [] : [`answered ${got?.status}, not ${c.status}: ${got?.body.slice(0, 300)}`];
    await fuzz.check(async (s) => (got = await call(s, c.path, { method: 'POST', body, timeoutMs: TIMEOUT_MS })), {
      during: true,
      verify: answered,
    });
  });
});
