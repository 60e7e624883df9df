// Integers beyond 2^53 in custom resources: kube keeps any integer that fits int64 exactly, where a
// JS number would round it. The value must come back digit for digit from GET, LIST, a watch and a
// server restart, be validated as an integer, and reach CEL rules as the exact int64.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { eventually } from '../../helpers/eventually.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const BASE = '/apis/int.example.com/v1/namespaces/default/counters';
const MAX = '9223372036854775807';
const BIG = '9007199254740993'; // 2^53 + 1: the first integer a double cannot hold

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'counters.int.example.com' },
  spec: {
    group: 'int.example.com',
    scope: 'Namespaced',
    names: { plural: 'counters', singular: 'counter', kind: 'Counter' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                'x-kubernetes-validations': [
                  { rule: `self.total == ${BIG} || self.total == ${MAX}`, message: 'total must be one of the two' },
                ],
                properties: {
                  total: { type: 'integer' },
                  limit: { type: 'integer', maximum: 1000 },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** A Counter as raw JSON text, so the big literals reach the server unrounded. */
const counter = (name: string, spec: string): string =>
  `{"apiVersion":"int.example.com/v1","kind":"Counter","metadata":{"name":"${name}"},"spec":${spec}}`;

let dataDir: string;
let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

async function start(): Promise<void> {
  server = await startServer({ storage: 'sqlite', dataDir });
  call = apiClient(server);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'int64-'));
  await start();
  expect((await call('POST', CRDS, { body: crd })).status).toBe(201);
  await eventually('counters served', async () => ((await call('GET', BASE)).status === 200 ? true : undefined));
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('integers beyond 2^53', () => {
  it('are stored and served digit for digit', async () => {
    const created = await call('POST', BASE, {
      raw: counter('a', `{"total":${BIG},"free":{"n":-${MAX},"list":[${MAX}, 1.5, 3]}}`),
    });
    expect(created.status).toBe(201);
    for (const text of [created.text, (await call('GET', `${BASE}/a`)).text, (await call('GET', BASE)).text]) {
      expect(text).toContain(`"total":${BIG}`);
      expect(text).toContain(`"free":{"n":-${MAX},"list":[${MAX},1.5,3]}`);
    }
  });

  it('reach a watch unrounded', async () => {
    const w = await call('GET', `${BASE}?watch=true&resourceVersion=0&timeoutSeconds=1`);
    expect(w.text).toContain(`"total":${BIG}`);
  });

  it('reach CEL rules as exact int64 values', async () => {
    // 2^53 + 2 rounds to the same double as 2^53 + 1 would not: the rule tells them apart.
    const off = await call('POST', BASE, { raw: counter('b', '{"total":9007199254740994}') });
    expect(off.status).toBe(422);
    expect((off.json as { message: string }).message).toContain(
      'spec: Invalid value: "object": total must be one of the two',
    );
    expect((await call('POST', BASE, { raw: counter('c', `{"total":${MAX}}`) })).status).toBe(201);
  });

  it('are validated as integers, with the value printed exactly', async () => {
    const r = await call('POST', BASE, { raw: counter('d', `{"total":${BIG},"limit":${MAX}}`) });
    expect(r.status).toBe(422);
    expect((r.json as { message: string }).message).toContain(
      `spec.limit: Invalid value: ${MAX}: spec.limit in body should be less than or equal to 1000`,
    );
  });

  it('survive a merge patch, a YAML body and a restart', async () => {
    const patched = await call('PATCH', `${BASE}/a`, {
      raw: `{"spec":{"free":{"m":${BIG}}}}`,
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status).toBe(200);
    expect(patched.text).toContain(`"m":${BIG}`);
    const yaml = `apiVersion: int.example.com/v1\nkind: Counter\nmetadata:\n  name: y\nspec:\n  total: ${MAX}\n  limit: 7\n`;
    const fromYaml = await call('POST', BASE, { raw: yaml, contentType: 'application/yaml' });
    expect(fromYaml.status).toBe(201);
    expect(fromYaml.text).toContain(`"total":${MAX},"limit":7`);

    await server.close();
    await start();
    const a = await call('GET', `${BASE}/a`);
    expect(a.text).toContain(`"total":${BIG}`);
    expect(a.text).toContain(`"n":-${MAX}`);
    expect((await call('GET', `${BASE}/y`)).text).toContain(`"total":${MAX}`);
  });
});
