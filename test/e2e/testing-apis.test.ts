// The testing API through the built binary with --enable-testing-apis, with the clients people
// test with: kubectl 1.27 and 1.33 (a Fault applied and printed, its injected 409 in kube's words,
// a Snapshot saved and restored, the Clock set, `kubectl explain`), and Debian's
// python3-kubernetes, whose watch ends on a Fault and resumes where it was, running the README's
// Python lines as they are.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlRunner, kubectlsFor } from '../helpers/kubectl.js';
import { REPO_ROOT, type ServerProcess, run, startServerProcess } from '../helpers/server-process.js';

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = kubectlsFor(VERSIONS, 'the testing API');
/** Debian's interpreter: `python3` on PATH may be a pyenv one that cannot see dist-packages. */
const PYTHON = '/usr/bin/python3';

let server: ServerProcess;

beforeAll(async () => {
  server = await startServerProcess({ args: ['--enable-testing-apis'] });
});
afterAll(async () => {
  await server?.stop();
});

describe('kubectl', () => {
  for (const version of VERSIONS) {
    const binary = KUBECTLS.get(version) ?? '';
    const suffix = version.replace('.', '-');

    it.skipIf(binary === '')(
      `kubectl ${version} prints an injected 409 in kube's words, and the Fault's hits`,
      async () => {
        const { kubectl, ok } = kubectlRunner(binary, () => server.kubeconfigPath);
        const name = `labelled-${suffix}`;
        await ok(['create', 'configmap', name, '--from-literal=a=1']);
        const fault = [
          'apiVersion: testing.mini-apiserver.io/v1alpha1',
          'kind: Fault',
          `metadata: {name: conflict-${suffix}}`,
          'spec:',
          `  match: {verbs: [patch], resources: [configmaps], names: [${name}]}`,
          '  count: 1',
          '  action: {error: {code: 409}}',
        ].join('\n');
        expect(await ok(['apply', '-f', '-'], fault)).toBe(
          `fault.testing.mini-apiserver.io/conflict-${suffix} created\n`,
        );
        await ok(['wait', '--for=jsonpath={.status.observedGeneration}=1', `fault/conflict-${suffix}`]);
        const refused = await kubectl(['label', 'configmap', name, 'tier=cache']);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toBe(
          `Error from server (Conflict): Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again\n`,
        );
        // Spent after one: the same command goes through.
        expect(await ok(['label', 'configmap', name, 'tier=cache'])).toBe(`configmap/${name} labeled\n`);
        expect(await ok(['get', 'fault', `conflict-${suffix}`, '-o', 'jsonpath={.status.hits}'])).toBe('1');
        const table = await ok(['get', 'fault', `conflict-${suffix}`]);
        expect(table.split('\n')[0]).toMatch(/^NAME\s+ACTION\s+HITS\s+COUNT\s+AGE$/);
        expect(table.split('\n')[1]).toMatch(new RegExp(`^conflict-${suffix}\\s+error 409\\s+1\\s+1\\s+\\d+s$`));
      },
    );

    it.skipIf(binary === '')(`kubectl ${version} saves a Snapshot, waits for it, and restores it`, async () => {
      const { ok } = kubectlRunner(binary, () => server.kubeconfigPath);
      const snapshot = `before-${suffix}`;
      await ok(['create', 'configmap', `kept-${suffix}`, '--from-literal=v=1']);
      const manifest = `apiVersion: testing.mini-apiserver.io/v1alpha1\nkind: Snapshot\nmetadata: {name: ${snapshot}}\n`;
      await ok(['apply', '-f', '-'], manifest);
      await ok(['wait', '--for=condition=Ready', `snapshot/${snapshot}`]);
      await ok(['delete', 'configmap', `kept-${suffix}`]);
      const restored = JSON.parse(
        await ok(
          ['create', '--raw', `/apis/testing.mini-apiserver.io/v1alpha1/snapshots/${snapshot}/restore`, '-f', '-'],
          '{"apiVersion":"testing.mini-apiserver.io/v1alpha1","kind":"SnapshotRestore"}',
        ),
      ) as { kind: string; status: { created: number } };
      expect(restored.kind).toBe('SnapshotRestore');
      expect(restored.status.created).toBeGreaterThanOrEqual(1);
      expect(await ok(['get', 'configmap', `kept-${suffix}`, '-o', 'jsonpath={.data.v}'])).toBe('1');
    });

    it.skipIf(binary === '')(`kubectl ${version} sets the Clock; objects are stamped by it`, async () => {
      const { ok } = kubectlRunner(binary, () => server.kubeconfigPath);
      const time = `2031-0${VERSIONS.indexOf(version) + 1}-01T00:00:00Z`;
      const clock = `apiVersion: testing.mini-apiserver.io/v1alpha1\nkind: Clock\nmetadata: {name: cluster}\nspec: {mode: Frozen, time: "${time}"}\n`;
      await ok(['apply', '-f', '-'], clock);
      const generation = await ok(['get', 'clock', 'cluster', '-o', 'jsonpath={.metadata.generation}']);
      await ok(['wait', `--for=jsonpath={.status.observedGeneration}=${generation}`, 'clock/cluster']);
      await ok(['create', 'configmap', `stamped-${suffix}`]);
      expect(await ok(['get', 'configmap', `stamped-${suffix}`, '-o', 'jsonpath={.metadata.creationTimestamp}'])).toBe(
        time,
      );
      await ok(['delete', 'clock', 'cluster']);
    });

    it.skipIf(binary === '')(`kubectl ${version} explains a Fault from OpenAPI`, async () => {
      const { ok } = kubectlRunner(binary, () => server.kubeconfigPath);
      const text = await ok(['explain', 'fault.spec.action']);
      expect(text).toContain('errorAfterCommit');
      expect(text).toContain('expireHistory');
    });
  }
});

const PY_WATCH = `
import sys
from kubernetes import client, config, watch
config.load_kube_config(sys.argv[1])
v1 = client.CoreV1Api()
w = watch.Watch()
# No timeout: when the server ends the stream, the client watches again from the last
# resourceVersion it saw.
for ev in w.stream(v1.list_namespaced_config_map, sys.argv[2], resource_version=sys.argv[3]):
    print(ev['type'], ev['object'].metadata.name, ev['object'].metadata.resource_version, flush=True)
    if ev['object'].metadata.name == 'last':
        w.stop()
`;

/** The README's Python lines, as they are: the ```python block of its testing section. */
function readmePython(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Testing controllers'));
  const block = /^```python\n([\s\S]*?)^```$/m.exec(section);
  if (!block) throw new Error("README.md: no ```python block under 'Testing controllers'");
  return block[1]!;
}

/** Why Debian's Python client cannot run here, or undefined when it can. */
function pythonProblem(): string | undefined {
  const probe = spawnSync(PYTHON, ['-c', 'import kubernetes.watch'], { encoding: 'utf8' });
  if (probe.status === 0) return undefined;
  return `${PYTHON} cannot import kubernetes.watch (${probe.stderr?.trim().split('\n').pop() ?? probe.error?.message}): install python3-kubernetes (make test does so as root via scripts/ensure-python-kubernetes.sh)`;
}

describe('python3-kubernetes', () => {
  it('a watch the server ends resumes from where it was: nothing missed, nothing twice', async () => {
    const problem = pythonProblem();
    if (problem) expect.fail(problem);
    const ns = 'python-watch';
    expect((await server.kubectl(['create', 'namespace', ns])).code).toBe(0);
    const created = await server.kubectl([
      'create',
      'configmap',
      'first',
      '-n',
      ns,
      '-o',
      'jsonpath={.metadata.resourceVersion}',
    ]);
    const fault = JSON.stringify({
      apiVersion: 'testing.mini-apiserver.io/v1alpha1',
      kind: 'Fault',
      metadata: { name: 'python-watch-end' },
      spec: {
        match: { verbs: ['watch'], namespaces: [ns], userAgents: ['OpenAPI-Generator/'] },
        count: 1,
        action: { endWatch: { afterEvents: 2 } },
      },
    });
    expect((await server.kubectl(['apply', '-f', '-'], { input: fault })).code).toBe(0);
    expect(
      (await server.kubectl(['wait', '--for=jsonpath={.status.observedGeneration}=1', 'fault/python-watch-end'])).code,
    ).toBe(0);
    for (const name of ['second', 'third'])
      expect((await server.kubectl(['create', 'configmap', name, '-n', ns])).code).toBe(0);
    const watcher = run(PYTHON, ['-c', PY_WATCH, server.kubeconfigPath, ns, created.stdout], { timeoutMs: 60_000 });
    // Written while the first stream is over or the second is open: either way the resumed watch has it.
    for (const name of ['fourth', 'last'])
      expect((await server.kubectl(['create', 'configmap', name, '-n', ns])).code).toBe(0);
    const r = await watcher;
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(' ').slice(0, 2).join(' ')),
    ).toEqual(['ADDED second', 'ADDED third', 'ADDED fourth', 'ADDED last']);
    const hits = await server.kubectl(['get', 'fault', 'python-watch-end', '-o', 'jsonpath={.status.hits}']);
    expect(hits.stdout).toBe('1');
  });

  it("the README's Python lines as they are: a Fault made, a Snapshot saved, waited for and restored", async () => {
    const problem = pythonProblem();
    if (problem) expect.fail(problem);
    const r = await run(PYTHON, ['-c', readmePython()], {
      env: { ...process.env, KUBECONFIG: server.kubeconfigPath },
      timeoutMs: 60_000,
    });
    try {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toMatch(/^\{'resourceVersion': '\d+', 'created': \d+, 'updated': \d+, 'deleted': \d+\}$/);
      const fault = await server.kubectl(['get', 'fault', 'end-watches', '-o', 'jsonpath={.spec.action}']);
      expect(JSON.parse(fault.stdout)).toEqual({ endWatch: { afterEvents: 2 } });
    } finally {
      // The Fault would end the next test's watches.
      await server.kubectl(['delete', 'fault', 'end-watches', '--ignore-not-found']);
      await server.kubectl(['delete', 'snapshot', 'clean', '--ignore-not-found']);
    }
  });
});
