// Documents nested as deep as kube-apiserver's decoders accept (10,000 levels: Go's encoding/json
// scanner, go-yaml's max_flow_level and max_indents) through the real server: a custom resource
// that preserves unknown fields is created (JSON and YAML), read, listed, watched, replaced and
// patched (merge and JSON patch), through schema validation and CEL, without the call stack
// overflowing into a 500; one level more is kube's 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { type ApiResponse, type CallOptions, apiClient } from '../../helpers/api-client.js';
import { openWatch } from '../../helpers/watch-stream.js';

let s: ServerHandle;
let api: (method: string, path: string, o?: CallOptions) => Promise<ApiResponse>;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const THINGS = '/apis/deep.example.com/v1/namespaces/default/things';
const CHECKED = '/apis/deep.example.com/v1/namespaces/default/checkeds';
const MAX = 10000;

const crd = (plural: string, kind: string, spec: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.deep.example.com` },
  spec: {
    group: 'deep.example.com',
    scope: 'Namespaced',
    names: { plural, singular: kind.toLowerCase(), kind },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
      },
    ],
  },
});

/** `{"a":{"a":...1...}}`: `levels` nested objects. */
const nested = (levels: number, leaf = '1'): string => `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;

/** A Thing whose whole document nests `depth` containers deep (the object itself is the first). */
const thing = (name: string, depth: number, kind = 'Thing'): string =>
  `{"apiVersion":"deep.example.com/v1","kind":"${kind}","metadata":{"name":"${name}"},"spec":${nested(depth - 1)}}`;

/** How deep a parsed value nests, counted without recursion. */
function depthOf(v: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[v, 1]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    max = Math.max(max, d);
    for (const c of Object.values(x)) stack.push([c, d + 1]);
  }
  return max;
}

/** The leaf at the bottom of a chain of `a` members. */
function leafOf(v: unknown): unknown {
  let x = v;
  while (typeof x === 'object' && x !== null && 'a' in x) x = (x as { a: unknown }).a;
  return x;
}

/** The first event of a watch from resourceVersion 0 (the object as ADDED), as text. */
async function firstWatchEvent(path: string): Promise<string> {
  // Kept as text: the assertions are on the bytes the server wrote.
  const w = await openWatch(s, `${path}?watch=true&resourceVersion=0`, { decode: (line) => line });
  try {
    return (await w.next(1))[0]!;
  } finally {
    w.close();
  }
}

beforeAll(async () => {
  s = await startServer({ storage: 'memory' });
  api = apiClient(s);
  const specs = [
    crd('things', 'Thing', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
    // A rule that sees a deep value, and a string field a deep value fails. data is typed: kube's
    // CEL leaves an untyped property out of self's type, so has(self.data) would not compile.
    crd('checkeds', 'Checked', {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'has(self.data)' }],
      properties: { name: { type: 'string' }, data: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    }),
  ];
  for (const body of specs) expect((await api('POST', CRDS, { body })).status).toBe(201);
  for (const path of [THINGS, CHECKED]) {
    for (const deadline = Date.now() + 10_000; (await api('GET', path)).status !== 200; ) {
      if (Date.now() > deadline) throw new Error(`${path} is not served`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
});

afterAll(async () => {
  await s?.close();
});

describe(`a custom resource ${MAX} levels deep`, () => {
  it('is created from JSON, and read, listed and watched whole', async () => {
    const created = await api('POST', THINGS, { raw: thing('deep', MAX) });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    expect(depthOf(created.json)).toBe(MAX);

    const got = await api('GET', `${THINGS}/deep`);
    expect(got.status, got.text.slice(0, 300)).toBe(200);
    expect(depthOf(got.json)).toBe(MAX);
    expect(got.text).toContain(`"spec":${nested(MAX - 1)}`);

    const list = await api('GET', THINGS);
    expect(list.status, list.text.slice(0, 300)).toBe(200);
    expect(list.text).toContain(`"spec":${nested(MAX - 1)}`);

    const table = await api('GET', THINGS, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.status, table.text.slice(0, 300)).toBe(200);

    const event = await firstWatchEvent(THINGS);
    expect(event.startsWith('{"type":"ADDED"'), event.slice(0, 300)).toBe(true);
    expect(event).toContain(`"spec":${nested(MAX - 1)}`);
  });

  it('is replaced, and patched with a merge patch and a JSON patch of that depth', async () => {
    const current = await api('GET', `${THINGS}/deep`);
    const rv = (current.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const put = await api('PUT', `${THINGS}/deep`, {
      raw: `{"apiVersion":"deep.example.com/v1","kind":"Thing","metadata":{"name":"deep","resourceVersion":"${rv}"},"spec":${nested(MAX - 1, '2')}}`,
    });
    expect(put.status, put.text.slice(0, 300)).toBe(200);
    expect(leafOf((put.json as { spec: unknown }).spec)).toBe(2);

    // The patch document is itself 10,000 deep: {"spec":{"a":...}}.
    const merge = await api('PATCH', `${THINGS}/deep`, {
      raw: `{"spec":${nested(MAX - 1, '3')}}`,
      contentType: 'application/merge-patch+json',
    });
    expect(merge.status, merge.text.slice(0, 300)).toBe(200);
    expect(leafOf((merge.json as { spec: unknown }).spec)).toBe(3);
    expect(depthOf(merge.json)).toBe(MAX);

    // [{"op":...,"value":...}] holds a value 9,998 deep (all the patch may), as deep as spec.a is.
    const ops = `[{"op":"test","path":"/spec/a","value":${nested(MAX - 2, '3')}},{"op":"replace","path":"/spec/a","value":${nested(MAX - 2, '4')}}]`;
    const json = await api('PATCH', `${THINGS}/deep`, { raw: ops, contentType: 'application/json-patch+json' });
    expect(json.status, json.text.slice(0, 300)).toBe(200);
    expect(leafOf((json.json as { spec: unknown }).spec)).toBe(4);
    expect(depthOf(json.json)).toBe(MAX);
  });

  it('is created from YAML in flow style, and in block style as deep as its 3 MiB allow', async () => {
    const flow = [
      'apiVersion: deep.example.com/v1',
      'kind: Thing',
      'metadata:',
      '  name: flow',
      `spec: ${'{a: '.repeat(MAX - 2)}1${'}'.repeat(MAX - 2)}`,
    ].join('\n');
    const r = await api('POST', THINGS, { raw: flow, contentType: 'application/yaml' });
    expect(r.status, r.text.slice(0, 300)).toBe(201);
    expect(depthOf(r.json)).toBe(MAX - 1);

    // `- - - x` nests block sequences, one indentation level each.
    const block = [
      'apiVersion: deep.example.com/v1',
      'kind: Thing',
      'metadata:',
      '  name: block',
      'spec:',
      '  a:',
      `  ${'- '.repeat(MAX - 2)}x`,
    ].join('\n');
    const b = await api('POST', THINGS, { raw: block, contentType: 'application/yaml' });
    expect(b.status, b.text.slice(0, 300)).toBe(201);
    expect(depthOf(b.json)).toBe(MAX);
  });

  it('goes through schema validation and CEL without a 5xx', async () => {
    // The schema walks only as deep as it names fields; the value printed for a wrong type is %#v.
    const badType = await api('POST', CHECKED, {
      raw: `{"apiVersion":"deep.example.com/v1","kind":"Checked","metadata":{"name":"bad"},"spec":{"data":{},"name":${nested(MAX - 2)}}}`,
    });
    expect(badType.status, badType.text.slice(0, 300)).toBe(422);
    expect((badType.json as { message: string }).message).toBe(
      // A type error blocks the rules, as kube's hasBlockingErr: they are reported as not checked.
      'Checked.deep.example.com "bad" is invalid: [spec.name: Invalid value: "object": spec.name in body must be of type string: "object", <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]',
    );

    const withRule = await api('POST', CHECKED, {
      raw: `{"apiVersion":"deep.example.com/v1","kind":"Checked","metadata":{"name":"cel"},"spec":{"data":${nested(MAX - 2)}}}`,
    });
    expect(withRule.status, withRule.text.slice(0, 300)).toBeLessThan(500);
  });
});

describe('CRD schemas', () => {
  /** A CRD whose schema nests `levels` schemas in all: the root, then spec and a chain of `a` objects, then a string. */
  const deepSchemaCRD = (plural: string, levels: number): string => {
    const chain = levels - 2;
    const spec = `${'{"type":"object","properties":{"a":'.repeat(chain)}{"type":"string"}${'}}'.repeat(chain)}`;
    return JSON.stringify(crd(plural, plural.slice(0, 1).toUpperCase() + plural.slice(1, -1), {})).replace(
      '"spec":{}',
      `"spec":${spec}`,
    );
  };

  it('nesting 1,000 schemas deep are served: objects that deep are pruned, defaulted and validated', async () => {
    const created = await api('POST', CRDS, { raw: deepSchemaCRD('schemas', 1000) });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    const path = '/apis/deep.example.com/v1/namespaces/default/schemas';
    for (const deadline = Date.now() + 10_000; (await api('GET', path)).status !== 200; ) {
      if (Date.now() > deadline) throw new Error(`${path} is not served`);
      await new Promise((r) => setTimeout(r, 20));
    }
    // spec and 997 `a` objects below it, then the string.
    const r = await api('POST', path, {
      raw: `{"apiVersion":"deep.example.com/v1","kind":"Schema","metadata":{"name":"s"},"spec":${nested(998, '{"b":1}')}}`,
    });
    expect(r.status, r.text.slice(0, 300)).toBe(422);
    expect((r.json as { message: string }).message).toContain(`spec${'.a'.repeat(998)}: Invalid value: "object"`);
    const ok = await api('POST', path, {
      raw: `{"apiVersion":"deep.example.com/v1","kind":"Schema","metadata":{"name":"s"},"spec":${nested(998, '"x"')}}`,
    });
    expect(ok.status, ok.text.slice(0, 300)).toBe(201);
    expect((await api('GET', '/openapi/v2')).status).toBe(200);
  });

  it('nesting deeper is a 422 (kube has no such limit; this server’s schema walkers recurse)', async () => {
    const r = await api('POST', CRDS, { raw: deepSchemaCRD('deeperschemas', 1001) });
    expect(r.status, r.text.slice(0, 300)).toBe(422);
    expect((r.json as { message: string }).message).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "deeperschemas.deep.example.com" is invalid: spec.validation.openAPIV3Schema: Forbidden: must not nest schemas more than 1000 levels deep',
    );
  });
});

describe(`one level more than ${MAX}`, () => {
  it('is a 400 with the JSON decoder’s text', async () => {
    const r = await api('POST', THINGS, { raw: thing('over', MAX + 1) });
    expect(r.status).toBe(400);
    expect((r.json as { reason: string }).reason).toBe('BadRequest');
    // meta.Interpret's json.Unmarshal meets the depth first: transformDecodeError's unrecognized object.
    expect((r.json as { message: string }).message).toBe(
      "the object provided is unrecognized (must be of type Thing): couldn't get version/kind; json parse error: " +
        `invalid character '{' exceeded max depth (${thing('over', MAX + 1).slice(0, 30)} ...)`,
    );
  });

  it('is a 400 with go-yaml’s text for YAML flow collections and indentation', async () => {
    const flow = [
      'apiVersion: deep.example.com/v1',
      'kind: Thing',
      'metadata:',
      '  name: over',
      `spec: ${'['.repeat(MAX + 1)}${']'.repeat(MAX + 1)}`,
    ].join('\n');
    const r = await api('POST', THINGS, { raw: flow, contentType: 'application/yaml' });
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toMatch(/: yaml: line 5: exceeded max depth of 10000$/);

    const block = `${'- '.repeat(MAX + 1)}x`;
    const b = await api('POST', THINGS, { raw: block, contentType: 'application/yaml' });
    expect(b.status).toBe(400);
    expect((b.json as { message: string }).message).toMatch(/: yaml: exceeded max depth of 10000$/);
  });

  it('is a 400 when the YAML is within go-yaml’s limits but its JSON is not', async () => {
    // 5,000 indentation levels and 5,001 flow levels: 10,001 containers once converted.
    const yaml = `${'- '.repeat(5000)}${'['.repeat(5001)}${']'.repeat(5001)}`;
    const r = await api('POST', THINGS, { raw: yaml, contentType: 'application/yaml' });
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toMatch(
      /couldn't get version\/kind; json parse error: invalid character '\[' exceeded max depth$/,
    );
  });
});
