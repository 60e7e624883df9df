// Built-in kinds decoded as kube decodes them into their Go types: a field the type does not have
// is dropped, with kube's warning by default, refused under fieldValidation=Strict (400 for a body,
// 422 for a patch), dropped silently under Ignore; an apply configuration with such a field is
// refused by the structured merge, as in kube.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { CRDS_PATH, simpleCrd } from '../../helpers/crds.js';
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;
beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
});
afterAll(async () => server?.close());

const CMS = '/api/v1/namespaces/default/configmaps';
interface ConfigMap {
  metadata: Record<string, unknown>;
  data?: Record<string, string>;
}
const typo = (name: string): unknown => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, lables: { a: 'b' } },
  datta: { k: 'v' },
  data: { k: 'v' },
});
// Node joins repeated headers with ", ".
const warnings = (h: Record<string, string | string[] | undefined>): string[] =>
  [h['warning'] ?? []].flat().flatMap((w) => w.split(/, (?=299 )/));

describe('unknown fields of a built-in kind', () => {
  it('create: dropped, with a warning for each (the default, Warn)', async () => {
    const r = await call('POST', CMS, { body: typo('warned') });
    expect(r.status).toBe(201);
    // In document order, as kube's decoder meets them.
    expect(warnings(r.headers)).toEqual([
      '299 - "unknown field \\"metadata.lables\\""',
      '299 - "unknown field \\"datta\\""',
    ]);
    const stored = (await call('GET', `${CMS}/warned`)).json as ConfigMap;
    expect(stored).not.toHaveProperty('datta');
    expect(stored.metadata).not.toHaveProperty('lables');
    expect(stored.data).toEqual({ k: 'v' });
  });

  it("create with fieldValidation=Strict: kube's 400", async () => {
    const r = await call('POST', `${CMS}?fieldValidation=Strict`, { body: typo('strict') });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.lables", unknown field "datta"',
    });
    expect((await call('GET', `${CMS}/strict`)).status).toBe(404);
  });

  it('Ignore: dropped without a word', async () => {
    const r = await call('POST', `${CMS}?fieldValidation=Ignore`, { body: typo('ignored') });
    expect(r.status).toBe(201);
    expect(warnings(r.headers)).toEqual([]);
    expect((await call('GET', `${CMS}/ignored`)).json).not.toHaveProperty('datta');
  });

  it('update (PUT): dropped with a warning, said once', async () => {
    const current = (await call('GET', `${CMS}/warned`)).json as ConfigMap;
    const r = await call('PUT', `${CMS}/warned`, { body: { ...current, datta: 1 } });
    expect(r.status).toBe(200);
    expect(warnings(r.headers)).toEqual(['299 - "unknown field \\"datta\\""']);
    expect(r.json).not.toHaveProperty('datta');
  });

  it('merge patch: what the patched object has no field for is dropped; Strict refuses the patch with 422', async () => {
    const patch = (q: string) =>
      call('PATCH', `${CMS}/warned${q}`, { body: { dataa: { x: 'y' } }, contentType: 'application/merge-patch+json' });
    const warned = await patch('');
    expect(warned.status).toBe(200);
    expect(warnings(warned.headers)).toEqual(['299 - "unknown field \\"dataa\\""']);
    expect(warned.json).not.toHaveProperty('dataa');
    const strict = await patch('?fieldValidation=Strict');
    expect(strict.status).toBe(422);
    expect((strict.json as { message: string }).message).toContain('strict decoding error: unknown field "dataa"');
  });

  it('a Service: inside a list of ports, by index', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/services', {
      body: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { ports: [{ port: 80, targetPrt: 8080 }] },
      },
    });
    expect(r.status).toBe(201);
    expect(warnings(r.headers)).toEqual(['299 - "unknown field \\"spec.ports[0].targetPrt\\""']);
    expect((r.json as { spec: { ports: object[] } }).spec.ports[0]).not.toHaveProperty('targetPrt');
  });

  it('admissionregistration kinds too (their schema says what their Go types have)', async () => {
    const r = await call('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'typo' },
        spec: { policyName: 'p', validationActions: ['Deny'], polcyName: 'q' },
      },
    });
    expect(r.status).toBe(201);
    expect(warnings(r.headers)).toEqual(['299 - "unknown field \\"spec.polcyName\\""']);
    expect((r.json as { spec: object }).spec).not.toHaveProperty('polcyName');
  });

  it("server-side apply: a field the kind's schema lacks is kube's structured-merge refusal", async () => {
    const r = await call('PATCH', `${CMS}/applied?fieldManager=m`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, datta: { k: 'v' } },
      contentType: 'application/apply-patch+yaml',
    });
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toBe(
      // kube names the object as the configuration names it: here without a namespace.
      'failed to create typed patch object (/applied; /v1, Kind=ConfigMap): .datta: field not declared in schema',
    );
    expect((await call('GET', `${CMS}/applied`)).status).toBe(404);
  });
});

describe("a CRD's schemas, decoded into apiextensions/v1's Go types first", () => {
  /** A CRD whose `spec.list` schema is `{type: array, ...list}`, under a CEL rule. */
  const crd = (plural: string, list: Record<string, unknown>) =>
    simpleCrd('example.com', plural, {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'true' }],
          properties: { list: { type: 'array', ...list } },
        },
      },
    });
  const undecodable = (message: string): string =>
    `CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: ${message}`;
  const AT = 'Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.properties';
  let n = 0;
  const create = (list: Record<string, unknown>, query = '') =>
    call('POST', `${CRDS_PATH}${query}`, { body: crd(`decode${n++}s`, list) });

  it("a value of the wrong JSON type: kube's 400, Go's message (kubectl create's query too)", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ allOf: 5 }, `json: cannot unmarshal number into ${AT}.allOf of type []v1.JSONSchemaProps`],
      [
        { 'x-kubernetes-validations': 5 },
        `json: cannot unmarshal number into ${AT}.x-kubernetes-validations of type v1.ValidationRules`,
      ],
      [{ required: 5 }, `json: cannot unmarshal number into ${AT}.required of type []string`],
      [
        { items: { type: 'string', maxLength: 1.5 } },
        `json: cannot unmarshal number 1.5 into ${AT}.items of type int64`,
      ],
      [{ items: { type: 'string' }, additionalItems: 'x' }, 'boolean or JSON schema expected'],
    ];
    for (const [list, message] of cases) {
      for (const query of ['', '?fieldManager=kubectl-create&fieldValidation=Strict']) {
        const r = await create(list, query);
        expect(r.status, JSON.stringify(list)).toBe(400);
        expect(r.json).toMatchObject({ reason: 'BadRequest', message: undecodable(message) });
      }
    }
  });

  it('an int64 of the schema written as a float literal does not decode (the text says the value, not the literal)', async () => {
    const body = JSON.stringify(crd(`decode${n++}s`, { items: { type: 'string' }, minItems: 1 })).replace(
      '"minItems":1',
      '"minItems":1.0',
    );
    const r = await call('POST', CRDS_PATH, { raw: body, contentType: 'application/json' });
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toBe(
      undecodable(`json: cannot unmarshal number 1 into ${AT}.minItems of type int64`),
    );
  });

  it("null, and what JSONSchemaPropsOrArray ignores, are absent: an array without items is the validation's 422", async () => {
    for (const list of [{ items: null }, { items: 5 }, { items: 'x' }, { properties: null, items: true }]) {
      const r = await create(list);
      expect(r.status, JSON.stringify(list)).toBe(422);
      expect((r.json as { message: string }).message).toMatch(
        /spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[list\]\.items: Required value: must be specified$/,
      );
    }
    const r = await create({ items: { type: 'string' }, 'x-kubernetes-validations': null, allOf: null });
    expect(r.status).toBe(201);
    const list = (r.json as { spec: { versions: { schema: { openAPIV3Schema: JSONSchemaProps } }[] } }).spec
      .versions[0]!.schema.openAPIV3Schema.properties!['spec']!.properties!['list'];
    expect(list).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('server-side apply: a list field is refused by the structured merge; a custom unmarshaler by the decode', async () => {
    const apply = (list: Record<string, unknown>) => {
      const body = crd(`decode${n++}s`, list);
      const name = (body['metadata'] as { name: string }).name;
      return call('PATCH', `${CRDS_PATH}/${name}?fieldManager=m`, {
        body,
        contentType: 'application/apply-patch+yaml',
      });
    };
    const merge = await apply({ allOf: 5 });
    expect(merge.status).toBe(400);
    expect((merge.json as { message: string }).message).toMatch(
      /\.spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.spec\.properties\.list\.allOf: expected list, got 5$/,
    );
    const decoded = await apply({ additionalProperties: 5 });
    expect(decoded.status).toBe(400);
    expect((decoded.json as { message: string }).message).toBe(undecodable('boolean or JSON schema expected'));
  });

  it('random wrong-typed schema fields never make a 500', async () => {
    const FIELDS = [
      'type',
      'items',
      'properties',
      'additionalProperties',
      'allOf',
      'not',
      'required',
      'enum',
      'default',
      'maxLength',
      'minimum',
      'nullable',
      'x-kubernetes-validations',
      'x-kubernetes-list-type',
      'x-kubernetes-list-map-keys',
      'x-kubernetes-preserve-unknown-fields',
      'dependencies',
      'externalDocs',
      'pattern',
      'format',
    ];
    const WRONG: unknown[] = [
      5,
      1.5,
      'x',
      true,
      false,
      null,
      {},
      [],
      [5],
      [null],
      { type: 5 },
      [{ rule: 5 }],
      { x: null },
    ];
    let seed = 11;
    const pick = <T>(xs: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return xs[(seed >>> 16) % xs.length]!;
    };
    for (let i = 0; i < 150; i++) {
      const list: Record<string, unknown> = { items: { type: 'string' } };
      const nested: Record<string, unknown> = {};
      for (let j = 0; j < 2; j++) list[pick(FIELDS)] = structuredClone(pick(WRONG));
      for (let j = 0; j < 2; j++) nested[pick(FIELDS)] = structuredClone(pick(WRONG));
      if (pick([true, false])) list['items'] = nested;
      const r = await create(list);
      expect(r.status, JSON.stringify(list)).not.toBe(500);
    }
  });
});
