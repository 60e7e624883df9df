// The API core driven by the real kubectl binaries users have, 1.27 and 1.33 (they speak
// differently: OpenAPI v2 vs v3, legacy vs aggregated discovery, JSON vs protobuf bodies; see
// ../shared/research/kubectl-wire). One server process for the file, shared by both versions, one
// after the other: each in a namespace of its own (its kubeconfig context's, test/helpers/kubectl.ts
// kubectlScope), with CRDs of its own (API groups named after it); a version's `caches` CRD is
// deleted after its tests, as the other version's short names (cc, cache) must not find two.
//
// Where each version's kubectl comes from (test/helpers/kubectl.ts findKubectl), the first that applies:
//   $KUBECTL_1_27 / $KUBECTL_1_33: that path, and nothing else;
//   $KUBECTL_DIR/kubectl.<version>, KUBECTL_DIR being /usr/lib/google-cloud-sdk/bin unless set
//     (where the Google Cloud SDK's `kubectl` package puts kubectl.1.27 ... kubectl.1.33);
//   `kubectl` on PATH, if its client version is that version.
// A candidate counts when it is an executable file whose `kubectl version --client` reports the
// version. A version not found FAILS its first test ("the kubectl <version> binary ..."), which
// says what was looked at and how to get it; that version's other tests are then skipped (they
// cannot run), so a missing kubectl fails the run, never passes it with nothing run.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { eventually } from '../helpers/eventually.js';
import { kubectlScope, kubectlsFor } from '../helpers/kubectl.js';

const VERSIONS = ['1.27', '1.33'];

const KUBECTLS = kubectlsFor(VERSIONS, 'its binary');

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess();
});
afterAll(async () => {
  await server?.stop();
});

/** A regular expression's text matching `s` literally. */
const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The caches CRD, in a group of its version's own (cache-1-27.example.com). */
const crd = (group: string): string => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: caches.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: caches, singular: cache, kind: Cache, shortNames: [cc]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Engine, type: string, jsonPath: .spec.engine, priority: 1}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`;

const cacheIn = (
  group: string,
  name: string,
  opts: { size?: number; labels?: Record<string, string>; namespace?: string } = {},
): string =>
  JSON.stringify({
    apiVersion: `${group}/v1`,
    kind: 'Cache',
    metadata: {
      name,
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      ...(opts.labels ? { labels: opts.labels } : {}),
    },
    spec: { size: opts.size ?? 3, engine: 'redis' },
  });

interface CacheObject {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation: number;
    resourceVersion: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: { size: number; engine: string };
}

for (const version of VERSIONS) {
  // Missing, the binary's own test above fails; these cannot run without it.
  const binary = KUBECTLS.get(version) ?? '';
  const present = binary !== '';

  describe.skipIf(!present)(`kubectl ${version}`, () => {
    const scope = kubectlScope(binary, version, () => server);
    const { kubectl, ok, namespace: ns } = scope;
    const group = `cache-${scope.suffix}.example.com`;
    const CRD = crd(group);
    const cache = (name: string, opts?: Parameters<typeof cacheIn>[2]): string => cacheIn(group, name, opts);
    /** Namespaces of this version's own, beside `ns`. */
    const [other, teamA] = [`other-${scope.suffix}`, `team-a-${scope.suffix}`];
    const getCache = async (name: string, namespace = ns): Promise<CacheObject> =>
      JSON.parse(await ok(['get', 'cache', name, '-n', namespace, '-o', 'json'])) as CacheObject;
    const status = async (path: string): Promise<number> => (await server.request(path)).status;

    afterAll(async () => {
      // The other version's `cc` and `cache` must find its own CRD alone (kubectl resolves a
      // resource name two groups serve to the first in discovery, without a word).
      await kubectl(['delete', 'crd', `caches.${group}`, '--ignore-not-found']);
    });

    it('applies a CRD and serves it at once, with its short name', async () => {
      expect(await ok(['apply', '-f', '-'], CRD)).toBe(
        `customresourcedefinition.apiextensions.k8s.io/caches.${group} created\n`,
      );
      await eventually('Established', async () => {
        const out = await ok([
          'get',
          'crd',
          `caches.${group}`,
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Established")].status}',
        ]);
        return out === 'True' ? true : undefined;
      });
      expect(await ok(['api-resources', `--api-group=${group}`])).toMatch(
        new RegExp(`^caches\\s+cc\\s+${literal(group)}/v1\\s+true\\s+Cache$`, 'm'),
      );
      expect(await ok(['apply', '-f', '-'], CRD)).toBe(
        `customresourcedefinition.apiextensions.k8s.io/caches.${group} unchanged\n`,
      );
      // A changed CRD is patched, without kubectl warning about the OpenAPI schema.
      const changed = await kubectl(['apply', '-f', '-'], CRD.replace('shortNames: [cc]', 'shortNames: [cc, cch]'));
      expect([changed.code, changed.stdout, changed.stderr]).toEqual([
        0,
        `customresourcedefinition.apiextensions.k8s.io/caches.${group} configured\n`,
        '',
      ]);
      await eventually('the new short name', async () =>
        (await ok(['api-resources', `--api-group=${group}`])).includes('cc,cch') ? true : undefined,
      );
      await ok(['apply', '-f', '-'], CRD);
    });

    it('creates an object and shows it as yaml, json, wide table and describe', async () => {
      expect(await ok(['create', '-f', '-'], cache('web-cache', { labels: { tier: 'web' } }))).toBe(
        `cache.${group}/web-cache created\n`,
      );

      const yaml = parseYaml(await ok(['get', 'cache', 'web-cache', '-o', 'yaml'])) as CacheObject;
      expect(yaml.spec).toEqual({ size: 3, engine: 'redis' });
      expect(yaml.metadata).toMatchObject({
        name: 'web-cache',
        namespace: ns,
        generation: 1,
        labels: { tier: 'web' },
      });
      expect(yaml.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      const json = await getCache('web-cache');
      expect(json.metadata.uid).toBe(yaml.metadata.uid);

      const table = (await ok(['get', 'cc'])).split('\n');
      expect(table[0]).toMatch(/^NAME\s+SIZE\s+AGE$/);
      expect(table[1]).toMatch(/^web-cache\s+3\s+\d+s$/);
      const wide = (await ok(['get', 'caches', '-o', 'wide'])).split('\n');
      expect(wide[0]).toMatch(/^NAME\s+SIZE\s+ENGINE\s+AGE$/);
      expect(wide[1]).toMatch(/^web-cache\s+3\s+redis\s+\d+s$/);

      const describe = await ok(['describe', 'cache', 'web-cache']);
      expect(describe).toMatch(/^Name:\s+web-cache$/m);
      expect(describe).toMatch(/^Labels:\s+tier=web$/m);
      expect(describe).toMatch(/^\s+Size:\s+3$/m);
    });

    it('labels, annotates and patches; generation counts spec changes only', async () => {
      expect(await ok(['label', 'cache', 'web-cache', 'team=a'])).toBe(`cache.${group}/web-cache labeled\n`);
      expect((await kubectl(['annotate', 'cache', 'web-cache', 'note=hello'])).code).toBe(0);
      let obj = await getCache('web-cache');
      expect(obj.metadata.labels).toEqual({ tier: 'web', team: 'a' });
      expect(obj.metadata.annotations).toEqual({ note: 'hello' });
      expect(obj.metadata.generation).toBe(1);

      expect(await ok(['patch', 'cache', 'web-cache', '--type=merge', '-p', '{"spec":{"size":5}}'])).toBe(
        `cache.${group}/web-cache patched\n`,
      );
      obj = await getCache('web-cache');
      expect([obj.spec.size, obj.metadata.generation]).toEqual([5, 2]);

      await ok([
        'patch',
        'cache',
        'web-cache',
        '--type=json',
        '-p',
        '[{"op":"test","path":"/spec/size","value":5},{"op":"replace","path":"/spec/size","value":6}]',
      ]);
      obj = await getCache('web-cache');
      expect([obj.spec.size, obj.metadata.generation]).toEqual([6, 3]);

      // A failed `test` operation fails the whole patch.
      const failed = await kubectl([
        'patch',
        'cache',
        'web-cache',
        '--type=json',
        '-p',
        '[{"op":"test","path":"/spec/size","value":1},{"op":"replace","path":"/spec/size","value":7}]',
      ]);
      expect(failed.code).not.toBe(0);
      expect((await getCache('web-cache')).spec.size).toBe(6);
    });

    it('applies twice: the second apply patches what changed', async () => {
      expect(await ok(['apply', '-f', '-'], cache('applied', { size: 1 }))).toBe(`cache.${group}/applied created\n`);
      expect(await ok(['apply', '-f', '-'], cache('applied', { size: 1 }))).toBe(`cache.${group}/applied unchanged\n`);
      const before = await getCache('applied');
      expect(await ok(['apply', '-f', '-'], cache('applied', { size: 2 }))).toBe(`cache.${group}/applied configured\n`);
      const after = await getCache('applied');
      expect(after.spec.size).toBe(2);
      expect(after.metadata.uid).toBe(before.metadata.uid);
      expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
      expect(
        JSON.parse(after.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']!),
      ).toMatchObject({ spec: { size: 2 } });
    });

    it('lists in chunks, by label, and across namespaces', async () => {
      await ok(['create', 'namespace', other]);
      for (let i = 1; i <= 5; i++)
        await ok(['create', '-f', '-'], cache(`chunk-${i}`, { labels: { batch: i % 2 ? 'odd' : 'even' } }));
      await ok(['create', '-f', '-'], cache('elsewhere', { namespace: other }));

      const chunked = await kubectl(['get', 'caches', '--chunk-size=2', '-o', 'name', '-v=6']);
      expect(chunked.code).toBe(0);
      expect(chunked.stdout.trim().split('\n')).toEqual(
        ['applied', 'chunk-1', 'chunk-2', 'chunk-3', 'chunk-4', 'chunk-5', 'web-cache'].map(
          (n) => `cache.${group}/${n}`,
        ),
      );
      // Seven objects two at a time: the first page and three continued ones (1.27 logs the URL
      // bare, 1.33 quoted).
      expect(chunked.stderr.match(/caches\?limit=2[\s"]/g)).toHaveLength(1);
      expect(chunked.stderr.match(/caches\?continue=[^&\s"]+&limit=2[\s"]/g)).toHaveLength(3);

      expect(await ok(['get', 'caches', '-l', 'batch=odd', '-o', 'name'])).toBe(
        ['chunk-1', 'chunk-3', 'chunk-5'].map((n) => `cache.${group}/${n}\n`).join(''),
      );
      expect(await ok(['get', 'caches', '-l', 'batch in (even),batch!=odd', '-o', 'name'])).toBe(
        ['chunk-2', 'chunk-4'].map((n) => `cache.${group}/${n}\n`).join(''),
      );
      const all = (await ok(['get', 'caches', '-A'])).split('\n');
      expect(all[0]).toMatch(/^NAMESPACE\s+NAME\s+SIZE\s+AGE$/);
      expect(all.filter((l) => new RegExp(`^${other}\\s+elsewhere\\s`).test(l))).toHaveLength(1);
      expect(all.filter((l) => new RegExp(`^${ns}\\s`).test(l))).toHaveLength(7);
    });

    it('words errors as kube does', async () => {
      const missing = await kubectl(['get', 'cache', 'nope']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(`Error from server (NotFound): caches.${group} "nope" not found`);

      const duplicate = await kubectl(['create', '-f', '-'], cache('web-cache'));
      expect(duplicate.code).toBe(1);
      expect(duplicate.stderr).toContain(
        `Error from server (AlreadyExists): error when creating "STDIN": caches.${group} "web-cache" already exists`,
      );

      const noNamespace = await kubectl(['create', '-n', 'absent', '-f', '-'], cache('x'));
      expect(noNamespace.code).toBe(1);
      expect(noNamespace.stderr).toContain(
        'Error from server (NotFound): error when creating "STDIN": namespaces "absent" not found',
      );

      // A PUT without resourceVersion: kube refuses it for custom resources (kubectl replace
      // reads the current resourceVersion first, so only raw clients meet this).
      const put = await server.request(`/apis/${group}/v1/namespaces/${ns}/caches/web-cache`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: cache('web-cache', { size: 8 }),
      });
      expect(put.status).toBe(422);
      expect(JSON.parse(put.body)).toMatchObject({
        reason: 'Invalid',
        message: `caches.${group} "web-cache" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
        details: {
          name: 'web-cache',
          group,
          kind: 'caches',
          causes: [{ reason: 'FieldValueInvalid', field: 'metadata.resourceVersion' }],
        },
      });
      expect(await ok(['replace', '-f', '-'], cache('web-cache', { size: 8 }))).toBe(
        `cache.${group}/web-cache replaced\n`,
      );
      expect((await getCache('web-cache')).spec.size).toBe(8);
    });

    it('deletes an object, waiting for it to go (a watch)', async () => {
      const r = await kubectl(['delete', 'cache', 'applied']);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, `cache.${group} "applied" deleted\n`, '']);
      expect(await status(`/apis/${group}/v1/namespaces/${ns}/caches/applied`)).toBe(404);
    });

    it('get --watch sees creates, updates and deletes as they happen', async () => {
      const child = spawn(binary, [...scope.flags(), 'get', 'caches', '--watch-only', '--output-watch-events'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      try {
        // The watch is open once kubectl has printed nothing and the server has it: create until seen.
        await eventually('the watch to see a create', async () => {
          const name = `watched-${Date.now()}`;
          await ok(['create', '-f', '-'], cache(name));
          return out.includes(name) ? name : undefined;
        }).then(async (name) => {
          await ok(['patch', 'cache', name, '--type=merge', '-p', '{"spec":{"size":4}}']);
          await ok(['delete', 'cache', name]);
          const lines = await eventually('the DELETED line', async () => {
            const mine = out.split('\n').filter((l) => l.includes(name));
            return mine.some((l) => l.startsWith('DELETED')) ? mine : undefined;
          });
          expect(lines.map((l) => l.split(/\s+/).slice(0, 3).join(' '))).toEqual([
            `ADDED ${name} 3`,
            `MODIFIED ${name} 4`,
            `DELETED ${name} 4`,
          ]);
        });
      } finally {
        child.kill();
      }
    });

    it('creates a namespace, and deleting one deletes what is in it', async () => {
      expect(await ok(['create', 'namespace', teamA])).toBe(`namespace/${teamA} created\n`);
      await ok(['create', '-n', teamA, '-f', '-'], cache('doomed'));
      expect(await ok(['delete', 'namespace', teamA])).toBe(`namespace "${teamA}" deleted\n`);
      expect(await status(`/api/v1/namespaces/${teamA}`)).toBe(404);
      expect(await status(`/apis/${group}/v1/namespaces/${teamA}/caches/doomed`)).toBe(404);
      expect((await kubectl(['get', 'namespace', teamA])).stderr).toContain(
        `Error from server (NotFound): namespaces "${teamA}" not found`,
      );
    });

    it('deletes the CRD: its objects, then its routes, go', async () => {
      expect(await ok(['delete', 'crd', `caches.${group}`])).toBe(
        `customresourcedefinition.apiextensions.k8s.io "caches.${group}" deleted\n`,
      );
      expect(await status(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/caches.${group}`)).toBe(404);
      expect(await status(`/apis/${group}/v1/namespaces/${ns}/caches`)).toBe(404);
      expect(await status(`/apis/${group}/v1`)).toBe(404);
      expect(await ok(['api-resources', `--api-group=${group}`, '--no-headers'])).toBe('');

      // Re-created, the CRD starts empty: the old objects went with it.
      await ok(['apply', '-f', '-'], CRD);
      await eventually('the CRD to be served again', async () =>
        (await status(`/apis/${group}/v1/namespaces/${ns}/caches`)) === 200 ? true : undefined,
      );
      const list = JSON.parse((await server.request(`/apis/${group}/v1/caches`)).body) as { items: unknown[] };
      expect(list.items).toEqual([]);
    });
  });
}

// The lab of the lesson behind the project (schema part): defaults, a bound, unknown fields under
// each fieldValidation kubectl can ask for, and explain.
const labCrd = (lab: string): string => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: caches.${lab}
spec:
  group: ${lab}
  scope: Namespaced
  names: {plural: caches, singular: cache, kind: Cache}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - {rule: self.maxSize >= self.size, message: maxSize must be >= size}
            properties:
              size: {type: integer, minimum: 1, maximum: 9, default: 3}
              maxSize: {type: integer, minimum: 1, maximum: 9, default: 9}
              engine: {type: string, enum: [redis, valkey], default: redis}
`;
// The status and scale part of the lab, on a CRD of its own.
const opsCrd = (ops: string): string => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: caches.${ops}
spec:
  group: ${ops}
  scope: Namespaced
  names: {plural: caches, singular: cache, kind: Cache}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.readyReplicas}
    additionalPrinterColumns:
    - {name: Engine, type: string, jsonPath: .spec.engine}
    - {name: Desired, type: integer, jsonPath: .spec.size}
    - {name: Ready, type: integer, jsonPath: .status.readyReplicas}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, minimum: 1, maximum: 9, default: 3}
              engine: {type: string, enum: [redis, valkey], default: redis}
          status:
            type: object
            properties:
              readyReplicas: {type: integer}
`;

const labCache = (lab: string, name: string, spec: Record<string, unknown>): string =>
  JSON.stringify({ apiVersion: `${lab}/v1`, kind: 'Cache', metadata: { name }, spec });

for (const version of VERSIONS) {
  const binary = KUBECTLS.get(version) ?? '';
  describe.skipIf(binary === '')(`kubectl ${version}`, () => {
    const scope = kubectlScope(binary, version, () => server);
    const { kubectl } = scope;
    // The lab's groups, this version's own. lab and ops both serve `caches`, so the tests name
    // their resources in full, and the other version's lab CRDs can stay.
    const lab = `lab-${scope.suffix}.example.com`;
    const opsGroup = `ops-${scope.suffix}.example.com`;
    const multi = `multi-${scope.suffix}.example.com`;
    const specOf = async (name: string): Promise<string> =>
      (await kubectl(['get', `caches.${lab}`, name, '-o', 'jsonpath={.spec}'])).stdout;

    beforeAll(async () => {
      expect((await kubectl(['apply', '-f', '-'], labCrd(lab))).code).toBe(0);
      expect((await kubectl(['apply', '-f', '-'], opsCrd(opsGroup))).code).toBe(0);
      await eventually('the lab CRDs served', async () =>
        (await server.request(`/apis/${lab}/v1/caches`)).status === 200 &&
        (await server.request(`/apis/${opsGroup}/v1/caches`)).status === 200
          ? true
          : undefined,
      );
    });

    it('lab: defaults fill a minimal Cache, and a size beyond the maximum is refused', async () => {
      expect((await kubectl(['apply', '-f', '-'], labCache(lab, 'web-cache', { size: 3 }))).code).toBe(0);
      expect(await specOf('web-cache')).toBe('{"engine":"redis","maxSize":9,"size":3}');
      const big = await kubectl(['apply', '-f', '-'], labCache(lab, 'big', { size: 99 }));
      expect(big.code).toBe(1);
      expect(big.stderr).toContain('spec.size: Invalid value: 99: spec.size in body should be less than or equal to 9');
    });

    it('lab: an unknown field is refused (Strict), warned about and dropped, or dropped silently', async () => {
      const strict = await kubectl(['apply', '-f', '-'], labCache(lab, 'typo', { size: 2, repicas: 4 }));
      expect(strict.code).toBe(1);
      expect(strict.stderr).toContain('strict decoding error: unknown field "spec.repicas"');

      const warned = await kubectl(
        ['apply', '--validate=warn', '-f', '-'],
        labCache(lab, 'typo', { size: 2, repicas: 4 }),
      );
      expect(warned.code).toBe(0);
      expect(warned.stderr).toContain('Warning: unknown field "spec.repicas"');
      expect(await specOf('typo')).toBe('{"engine":"redis","maxSize":9,"size":2}');
      expect((await kubectl(['delete', `caches.${lab}`, 'typo'])).code).toBe(0);

      const silent = await kubectl(
        ['apply', '--validate=false', '-f', '-'],
        labCache(lab, 'typo', { size: 2, repicas: 4 }),
      );
      expect([silent.code, silent.stderr]).toEqual([0, '']);
      expect(await specOf('typo')).toBe('{"engine":"redis","maxSize":9,"size":2}');
    });

    it("a ConfigMap with a typo: refused (Strict, kubectl's default), warned about and dropped, as kube decodes built-in kinds", async () => {
      const typo = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typo-cm\ndatta:\n  k: v\n';
      const strict = await kubectl(['apply', '-f', '-'], typo);
      expect(strict.code).toBe(1);
      expect(strict.stderr).toContain(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "datta"',
      );
      const warned = await kubectl(['apply', '--validate=warn', '-f', '-'], typo);
      expect(warned.code).toBe(0);
      expect(warned.stderr).toContain('Warning: unknown field "datta"');
      const stored = JSON.parse((await kubectl(['get', 'configmap', 'typo-cm', '-o', 'json'])).stdout) as Record<
        string,
        unknown
      >;
      expect(stored).not.toHaveProperty('datta');
      expect((await kubectl(['delete', 'configmap', 'typo-cm'])).code).toBe(0);
    });

    it('lab: status patched alone, shown in the columns, and scale sets spec.size and generation', async () => {
      // `cache` alone would be the lab group's: name this group's resource in full.
      const ops = (args: string[], input?: string) =>
        kubectl(
          args.map((a) => a.replace(/^cache(\/|$)/, `caches.${opsGroup}$1`)),
          input,
        );
      expect(
        (
          await ops(
            ['apply', '-f', '-'],
            JSON.stringify({
              apiVersion: `${opsGroup}/v1`,
              kind: 'Cache',
              metadata: { name: 'web-cache' },
              spec: { size: 3 },
            }),
          )
        ).code,
      ).toBe(0);
      const patched = await ops([
        'patch',
        'cache',
        'web-cache',
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{"readyReplicas":3}}',
      ]);
      expect([patched.code, patched.stdout]).toEqual([0, `cache.${opsGroup}/web-cache patched\n`]);
      const table = (await ops(['get', 'cache'])).stdout.split('\n');
      expect(table[0]).toMatch(/^NAME\s+ENGINE\s+DESIRED\s+READY\s+AGE$/);
      expect(table[1]).toMatch(/^web-cache\s+redis\s+3\s+3\s+\d+s$/);
      const generation = async (): Promise<string> =>
        (await ops(['get', 'cache', 'web-cache', '-o', 'jsonpath={.spec.size} {.metadata.generation}'])).stdout;
      expect(await generation()).toBe('3 1');

      const scaled = await ops(['scale', 'cache/web-cache', '--replicas=5']);
      expect([scaled.code, scaled.stdout]).toEqual([0, `cache.${opsGroup}/web-cache scaled\n`]);
      expect(await generation()).toBe('5 2');
      const wrongCurrent = await ops(['scale', 'cache/web-cache', '--current-replicas=4', '--replicas=6']);
      expect([wrongCurrent.code, wrongCurrent.stderr]).toEqual([1, 'error: Expected replicas to be 4, was 5\n']);
      const tooMany = await ops(['scale', 'cache/web-cache', '--replicas=99']);
      expect(tooMany.code).toBe(1);
      expect(tooMany.stderr).toContain(
        'spec.size: Invalid value: 99: spec.size in body should be less than or equal to 9',
      );
    });

    it('lab: the CEL rule refuses a maxSize below size', async () => {
      const refused = await kubectl(['apply', '-f', '-'], labCache(lab, 'inverted', { size: 5, maxSize: 2 }));
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        'The Cache "inverted" is invalid: spec: Invalid value: "object": maxSize must be >= size',
      );
      expect((await kubectl(['apply', '-f', '-'], labCache(lab, 'fine', { size: 5, maxSize: 6 }))).code).toBe(0);
    });

    it('serves one object in each version of a two-version CRD, with the deprecation warning', async () => {
      const twoVersions = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.${multi}}
spec:
  group: ${multi}
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - {name: v1alpha1, served: true, storage: false, deprecated: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`;
      expect((await kubectl(['apply', '-f', '-'], twoVersions)).code).toBe(0);
      await eventually('both versions served', async () =>
        (await server.request(`/apis/${multi}/v1alpha1/widgets`)).status === 200 ? true : undefined,
      );
      const created = await kubectl(
        ['create', '-f', '-'],
        JSON.stringify({ apiVersion: `${multi}/v1alpha1`, kind: 'Widget', metadata: { name: 'w' } }),
      );
      expect(created.code).toBe(0);
      expect(created.stderr).toContain(`Warning: ${multi}/v1alpha1 Widget is deprecated`);
      expect((await kubectl(['get', `widgets.v1.${multi}`, 'w', '-o', 'jsonpath={.apiVersion}'])).stdout).toBe(
        `${multi}/v1`,
      );
      expect((await kubectl(['get', `widgets.v1alpha1.${multi}`, 'w', '-o', 'jsonpath={.apiVersion}'])).stdout).toBe(
        `${multi}/v1alpha1`,
      );
    });

    it('lab: explain lists the three fields', async () => {
      const explain = await kubectl(['explain', `caches.${lab}.spec`]);
      expect(explain.code).toBe(0);
      for (const f of ['engine', 'maxSize', 'size'])
        expect(explain.stdout).toMatch(new RegExp(`^\\s+${f}\\s+<(string|integer)>`, 'm'));
    });
  });
}
