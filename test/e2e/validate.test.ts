// `mini-apiserver validate`: the built binary on real files (its exact output and exit codes, and
// that it loads no server), then the same CRD and objects against a running server: validate()
// answers with the Status, warnings and object the server answers with, and the command prints
// what kubectl prints for the same files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goQuote } from '../../apimachinery/field-errors.js';
import { type Outcome, validate } from '../../server/validate/validate.js';
import { BIN, type CommandResult, type ServerProcess, run, startServerProcess } from '../helpers/server-process.js';
import { eventually } from '../helpers/eventually.js';
import { loadLog } from '../helpers/load-log.js';
import { CACHE_CRD, cache } from '../helpers/validate-cache.js';

const BAD_CRD = CACHE_CRD.replace('caches.cache.example.com', 'caches.bad.example.com')
  .replace('group: cache.example.com', 'group: bad.example.com')
  .replace('self.maxSize >= self.size', 'self.maxSize >= self.nope');

type Json = Record<string, unknown>;

/** Objects created on an empty server, each on its own. */
const CREATES: [string, Json][] = [
  ['valid: defaults, the status dropped', cache('good', { size: 3 }, { status: { ready: true } })],
  ['a schema error', cache('big', { size: 30, maxSize: 50 })],
  ['schema, enum and CEL errors', cache('many', { size: 0, maxSize: -1, engine: 'etcd' })],
  ['unknown fields', cache('unknown', { size: 3, foo: 1 }, { extra: 1, metadata: { name: 'unknown', bogus: 1 } })],
  ['a CEL message', cache('cel', { size: 3, maxSize: 2 })],
  ['a CEL messageExpression', cache('lucky', { size: 7 })],
  ['a bad name', cache('Bad_Name', { size: 3 })],
  ['no name', { apiVersion: 'cache.example.com/v1', kind: 'Cache', spec: { size: 3 } }],
  ['a deprecated version', cache('old-api', { anything: 1 }, {}, 'cache.example.com/v1beta1')],
  ['a resourceVersion', cache('rv', { size: 3 }, { metadata: { name: 'rv', resourceVersion: '12' } })],
  ['metadata that does not decode', cache('uid', { size: 3 }, { metadata: { name: 'uid', uid: 5 } })],
  ['another namespace', cache('elsewhere', { size: 3 }, { metadata: { name: 'elsewhere', namespace: 'team-a' } })],
];

/** [old, new]: the old object created, then the new one PUT over it. */
const UPDATES: [string, Json, Json][] = [
  [
    'a transition rule',
    cache('engine', { size: 3, engine: 'memcached' }),
    cache('engine', { size: 3, engine: 'redis' }),
  ],
  [
    'a valid update: the old status kept, a new generation',
    cache('grow', { size: 3 }, { status: { ready: true } }),
    cache('grow', { size: 4, engine: 'redis' }, { status: { ready: false } }),
  ],
];

const scratch = mkdtempSync(join(tmpdir(), 'validate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A file in the scratch dir, of YAML documents or JSON objects (JSON is YAML). */
function file(name: string, ...docs: (string | Json)[]): string {
  const path = join(scratch, name);
  writeFileSync(path, docs.map((d) => (typeof d === 'string' ? d : JSON.stringify(d))).join('\n---\n'));
  return path;
}

const validateBin = (args: readonly string[], input?: string): Promise<CommandResult> =>
  run(process.execPath, [BIN, 'validate', ...args], input === undefined ? {} : { input });

describe('mini-apiserver validate (the binary)', () => {
  const crd = file('crd.yaml', CACHE_CRD);

  it("prints kubectl's lines and exits 1 when an object is refused", async () => {
    const objects = file(
      'objects.yaml',
      cache('good', { size: 3 }),
      cache('bad', { size: 30, maxSize: 2, foo: 'x' }),
      cache('a', {}, {}, 'cache.example.com/v1alpha1'),
    );
    const r = await validateBin(['-f', crd, '-f', objects]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      'customresourcedefinition.apiextensions.k8s.io/caches.cache.example.com valid\ncache.cache.example.com/good valid\n',
      [
        'Warning: unknown field "spec.foo"',
        'The Cache "bad" is invalid: ',
        '* spec.size: Invalid value: 30: spec.size in body should be less than or equal to 10',
        '* spec: Invalid value: "object": maxSize must be >= size',
        `error: resource mapping not found for name: "a" namespace: "" from "${objects}": no matches for kind "Cache" in version "cache.example.com/v1alpha1"`,
        'ensure CRDs are installed first',
        '',
      ].join('\n'),
    ]);
  });

  it('exits 0 when all are accepted; -o yaml prints the objects pruned and defaulted', async () => {
    const objects = file('good.yaml', cache('one', { size: 3, foo: 1 }), cache('two', { size: 5, maxSize: 6 }));
    const plain = await validateBin(['-f', crd, '-f', objects]);
    expect([plain.code, plain.stdout, plain.stderr]).toEqual([
      0,
      [
        'customresourcedefinition.apiextensions.k8s.io/caches.cache.example.com valid',
        'cache.cache.example.com/one valid',
        'cache.cache.example.com/two valid',
        '',
      ].join('\n'),
      'Warning: unknown field "spec.foo"\n',
    ]);
    const yaml = await validateBin(['-f', crd, '-f', objects, '-o', 'yaml']);
    expect([yaml.code, yaml.stdout]).toEqual([
      0,
      `apiVersion: cache.example.com/v1
kind: Cache
metadata:
  generation: 1
  name: one
  namespace: default
spec:
  engine: redis
  maxSize: 10
  size: 3
---
apiVersion: cache.example.com/v1
kind: Cache
metadata:
  generation: 1
  name: two
  namespace: default
spec:
  engine: redis
  maxSize: 6
  size: 5
`,
    ]);
    const json = await validateBin(['-f', crd, '-f', objects, '--output=json']);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Json),
    ).toMatchObject([
      { metadata: { name: 'one' }, spec: { size: 3, maxSize: 10, engine: 'redis' } },
      { metadata: { name: 'two' }, spec: { size: 5, maxSize: 6, engine: 'redis' } },
    ]);
  });

  it('validates an update against --old (transition rules), reading objects from stdin', async () => {
    const old = file('old.yaml', cache('c', { size: 3, engine: 'memcached' }), cache('d', { size: 3 }));
    const input = `${JSON.stringify(cache('c', { size: 3, engine: 'redis' }))}\n---\n${JSON.stringify(cache('d', { size: 4 }))}`;
    const r = await validateBin(['-f', crd, '-f', '-', '--old', old], input);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      'customresourcedefinition.apiextensions.k8s.io/caches.cache.example.com valid\ncache.cache.example.com/d valid (update)\n',
      'The Cache "c" is invalid: spec.engine: Invalid value: "string": engine is immutable: was memcached\n',
    ]);
  });

  it("reports a bad CRD with kube's CRD error", async () => {
    const r = await validateBin(['-f', file('bad-crd.yaml', BAD_CRD)]);
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      `The CustomResourceDefinition "caches.bad.example.com" is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.maxSize >= self.nope", Message:"maxSize must be >= size", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:21: undefined field 'nope'
 | self.maxSize >= self.nope
 | ....................^
`,
    ]);
  });

  it.each([
    [[], 'mini-apiserver: validate: no objects: give -f FILE (or -f - for stdin) (see validate --help)\n'],
    [['-f', 'x', '--bogus'], 'mini-apiserver: validate: unknown flag: --bogus (see validate --help)\n'],
    [
      ['-f', join(scratch, 'missing.yaml')],
      `mini-apiserver: validate: ${join(scratch, 'missing.yaml')}: no such file or directory\n`,
    ],
    [
      ['-f', file('broken.yaml', 'kind: Cache\n---\nspec: [\n')],
      `mini-apiserver: validate: ${join(scratch, 'broken.yaml')}: line 4: `,
    ],
    [
      ['-f', file('untyped.yaml', '{metadata: {name: x}}')],
      `mini-apiserver: validate: ${join(scratch, 'untyped.yaml')}: line 1: the object has no kind\n`,
    ],
  ])('exits 2 with one line for a usage or input error: %j', async (args, line) => {
    const r = await validateBin(args);
    expect([r.code, r.stdout, r.stderr.split('\n').length]).toEqual([2, '', 2]);
    expect(r.stderr.startsWith(line)).toBe(true);
  });

  it('loads nothing a server needs', async () => {
    const { hook, log, read } = loadLog(mkdtempSync(join(scratch, 'loads-')));
    const r = await run(process.execPath, ['--require', hook, BIN, 'validate', '-f', crd], {
      env: { ...process.env, LOAD_LOG: log },
    });
    expect(r.code).toBe(0);
    const loaded = read();
    // The hook sees what validate does load: the YAML parser (the CEL is cel/, ours; RE2 loads at
    // the first regex, and this CRD has none).
    expect(loaded.has('yaml')).toBe(true);
    const server = ['better-sqlite3', 'etcd3', '@grpc/grpc-js', 'prom-client', 'ws', 'jose', '@peculiar/x509'];
    expect(server.filter((p) => loaded.has(p))).toEqual([]);
  });
});

describe('validate answers as a running server', () => {
  let server: ServerProcess;
  const collection = (apiVersion: string, namespace = 'default'): string =>
    `/apis/${apiVersion}/namespaces/${namespace}/caches`;
  const send = (method: string, path: string, body: unknown) =>
    server.request(path, { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const postCRD = (yaml: string) =>
    server.request('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      method: 'POST',
      body: yaml,
      headers: { 'content-type': 'application/yaml' },
    });
  /** The server's Warning header for these warnings. */
  const header = (warnings: readonly string[]): string | undefined =>
    warnings.length === 0 ? undefined : warnings.map((w) => `299 - ${goQuote(w)}`).join(', ');
  /** What the server answers that validate leaves out: made-up fields, and the field manager's. */
  const comparable = (obj: Json): Json => {
    const {
      uid: _u,
      creationTimestamp: _c,
      resourceVersion: _r,
      managedFields: _m,
      ...metadata
    } = obj['metadata'] as Json;
    return { ...obj, metadata };
  };
  const expectSameAnswer = (got: { status: number; headers: Record<string, unknown>; body: string }, want: Outcome) => {
    expect(header(want.warnings)).toBe(got.headers['warning']);
    if (want.result === 'valid') {
      expect(got.status).toBeLessThan(300);
      expect(want.object).toEqual(comparable(JSON.parse(got.body) as Json));
    } else if (want.result === 'invalid') {
      expect(want.status).toEqual(JSON.parse(got.body));
    } else expect.fail(`validate found no resource: ${want.message}`);
  };

  beforeAll(async () => {
    server = await startServerProcess();
    // The CRD every case uses, created as validate() says the server creates it.
    const [want] = (await validate({ crds: [CACHE_CRD], objects: [] })).crds;
    expectSameAnswer(await postCRD(CACHE_CRD), want!);
    await eventually('the CRD served', async () =>
      (await server.request(collection('cache.example.com/v1'))).status === 200 ? true : undefined,
    );
    expect((await server.kubectl(['create', 'namespace', 'team-a'])).code).toBe(0);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a bad CRD: the same Status', async () => {
    const [want] = (await validate({ crds: [BAD_CRD], objects: [] })).crds;
    const got = await postCRD(BAD_CRD);
    expect(got.status).toBe(422);
    expectSameAnswer(got, want!);
  });

  it.each(CREATES)('create, %s: the same Status, warnings and object', async (_name, obj) => {
    const [want] = (await validate({ crds: [CACHE_CRD], objects: [obj] })).objects;
    const apiVersion = String(obj['apiVersion']);
    const namespace = (obj['metadata'] as Json | undefined)?.['namespace'];
    expectSameAnswer(
      await send('POST', collection(apiVersion, typeof namespace === 'string' ? namespace : 'default'), obj),
      want!,
    );
  });

  it.each(UPDATES)('update, %s: the same Status, warnings and object', async (_name, old, next) => {
    const [want] = (await validate({ crds: [CACHE_CRD], objects: [next], oldObjects: [old] })).objects;
    const path = `${collection('cache.example.com/v1')}/${String((old['metadata'] as Json)['name'])}`;
    const created = await send('POST', collection('cache.example.com/v1'), old);
    expect(created.status, created.body).toBe(201);
    let stored = JSON.parse(created.body) as { metadata: Json };
    // A create drops the status: the old object's is written through /status, as a controller would.
    if (old['status'] !== undefined) {
      const written = await send('PUT', `${path}/status`, { ...stored, status: old['status'] });
      expect(written.status, written.body).toBe(200);
      stored = JSON.parse(written.body) as { metadata: Json };
    }
    const body = {
      ...next,
      metadata: { ...(next['metadata'] as Json), resourceVersion: stored.metadata['resourceVersion'] },
    };
    expectSameAnswer(await send('PUT', path, body), want!);
  });

  it('prints what kubectl prints for the same files', async () => {
    const crd = file('kubectl-crd.yaml', CACHE_CRD);
    const cases: [string[], string][] = [
      [['create', '--validate=warn'], file('k-invalid.yaml', cache('k-invalid', { size: 30, maxSize: 2, foo: 1 }))],
      [['create', '--validate=warn'], file('k-one.yaml', cache('k-one', { size: 7 }))],
      [['create'], file('k-rv.yaml', cache('k-rv', { size: 3 }, { metadata: { name: 'k-rv', resourceVersion: '3' } }))],
      [['create'], file('k-alpha.yaml', cache('k-alpha', {}, {}, 'cache.example.com/v1alpha1'))],
      [['create', '--validate=warn'], file('k-valid.yaml', cache('k-valid', { size: 2, foo: 1 }))],
    ];
    for (const [verb, path] of cases) {
      const ours = await validateBin(['-f', crd, '-f', path]);
      const kubectl = await server.kubectl([...verb, '-f', path]);
      expect([ours.code, ours.stderr], path).toEqual([kubectl.code, kubectl.stderr]);
    }
    // An update: kubectl apply over the old object, validate with --old.
    const old = file('k-old.yaml', cache('k-engine', { size: 3, engine: 'memcached' }));
    expect((await server.kubectl(['apply', '-f', old])).code).toBe(0);
    const next = file('k-new.yaml', cache('k-engine', { size: 3, engine: 'redis' }));
    const ours = await validateBin(['-f', crd, '-f', next, '--old', old]);
    const kubectl = await server.kubectl(['apply', '-f', next]);
    expect([ours.code, ours.stderr]).toEqual([kubectl.code, kubectl.stderr]);
  });
});
