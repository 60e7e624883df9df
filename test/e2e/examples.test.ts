// examples/ cannot rot: every `kubectl` line of examples/README.md's lab is run, in order, with
// kubectl 1.33 against a real server process, and what they print is checked. A line whose comment
// says it is refused (or answers `no`) must exit non-zero; every other line must succeed.
// kubectl 1.33 is found as test/e2e/kubectl.test.ts finds it; missing, the first test fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  type CommandResult,
  REPO_ROOT,
  type ServerProcess,
  run,
  startServerProcess,
} from '../helpers/server-process.js';
import { findKubectl } from '../helpers/kubectl.js';
import { saysItFails, shBlockCommands, shellWords } from '../helpers/walkthrough.js';

const EXAMPLES = join(REPO_ROOT, 'examples');
const kubectl133 = findKubectl('1.33');

interface LabLine {
  line: string;
  args: string[];
  /** The line's comment says kubectl refuses it (or answers no): it must exit non-zero. */
  fails: boolean;
}

/** The `kubectl` lines of the README's first sh block that has any. */
function labLines(): LabLine[] {
  const readme = readFileSync(join(EXAMPLES, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => /^kubectl /m.test(b));
  if (!block) throw new Error('examples/README.md has no sh block with kubectl lines');
  return shBlockCommands(block)
    .filter(({ command }) => command.startsWith('kubectl '))
    .map(({ command, comment }) => ({
      line: command,
      args: shellWords(command).words.slice(1),
      fails: saysItFails(comment),
    }));
}

describe('examples/ with kubectl 1.33', () => {
  let server: ServerProcess;
  const results = new Map<string, CommandResult>();
  const lines = labLines();
  const resultOf = (prefix: string): CommandResult => {
    const entry = [...results].find(([line]) => line.startsWith(prefix));
    if (!entry) throw new Error(`no lab line starts with ${prefix} (or it did not run)`);
    return entry[1];
  };

  beforeAll(async () => {
    server = await startServerProcess();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('the kubectl 1.33 binary is there', () => {
    if (!kubectl133.binary) expect.fail(kubectl133.problem);
  });

  it('every example file is YAML kubectl can read, and the README names them all', () => {
    const readme = readFileSync(join(EXAMPLES, 'README.md'), 'utf8');
    for (const f of ['namespace.yaml', 'cache-crd.yaml', 'caches.yaml', 'controller-rbac.yaml', 'controller.mjs'])
      expect(readme).toContain(`\`${f}\``);
    const crd = parseYaml(readFileSync(join(EXAMPLES, 'cache-crd.yaml'), 'utf8')) as {
      spec: { group: string; names: { kind: string }; versions: { subresources: Record<string, unknown> }[] };
    };
    expect(crd.spec.group).toBe('cache.example.com');
    expect(crd.spec.names.kind).toBe('Cache');
    expect(Object.keys(crd.spec.versions[0]!.subresources).sort()).toEqual(['scale', 'status']);
    expect(lines.length).toBeGreaterThanOrEqual(10);
  });

  it("runs examples/README.md's lab, line by line: each succeeds, or fails where it says so", async () => {
    if (!kubectl133.binary) expect.fail(kubectl133.problem);
    for (const { line, args, fails } of lines) {
      const r = await run(
        kubectl133.binary,
        ['--kubeconfig', server.kubeconfigPath, ...args.map((a) => a.replace(/^examples\//, `${EXAMPLES}/`))],
        { timeoutMs: 45_000 },
      );
      results.set(line, r);
      if (fails) expect(r.code, `${line}\nshould fail; printed:\n${r.stdout}${r.stderr}`).not.toBe(0);
      else expect(r.code, `${line}\nexited ${r.code}:\n${r.stdout}${r.stderr}`).toBe(0);
    }
  }, 300_000);

  it('prints what the README shows', () => {
    const table = (r: CommandResult) =>
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s+/));
    expect(table(resultOf('kubectl get caches ')).map((row) => row.slice(0, -1))).toEqual([
      ['NAME', 'SIZE', 'READY'],
      ['pages', '2'],
      ['sessions', '3'],
      ['tiny', '1'],
    ]);
    expect(table(resultOf('kubectl get cc ')).map((row) => row.slice(0, -1))).toEqual([
      ['NAME', 'SIZE', 'READY', 'IMAGE'],
      ['pages', '2', 'redis:7'],
      ['sessions', '3', 'memcached:1.6'],
      ['tiny', '1', 'memcached:1.6'],
    ]);
    expect(resultOf('kubectl get cache tiny ').stdout).toBe('memcached:1.6');
    expect(resultOf('kubectl explain cache.spec').stdout).toContain('How many cache instances to run.');
    expect(resultOf('kubectl scale cache/sessions -n cache-demo --replicas=5').stdout.trim()).toBe(
      'cache.cache.example.com/sessions scaled',
    );
    expect(resultOf('kubectl scale cache/sessions -n cache-demo --replicas=11').stderr.trim()).toBe(
      'The Cache "sessions" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10',
    );
    expect(resultOf('kubectl patch cache/sessions').stdout.trim()).toBe('cache.cache.example.com/sessions patched');
    expect(table(resultOf('kubectl get cache sessions ')).map((row) => row.slice(0, -1))).toEqual([
      ['NAME', 'SIZE', 'READY'],
      ['sessions', '5', '5'],
    ]);
    expect(resultOf('kubectl auth can-i update').stdout.trim()).toBe('yes');
    expect(resultOf('kubectl auth can-i delete').stdout.trim()).toBe('no');
    expect(resultOf('kubectl delete -f examples/caches.yaml').stdout.trim().split('\n')).toHaveLength(3);
  });

  it('the lab leaves nothing behind: the CRD and the namespace are gone', async () => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const crd = await server.request(
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/caches.cache.example.com',
      );
      const ns = await server.request('/api/v1/namespaces/cache-demo');
      if (crd.status === 404 && ns.status === 404) break;
      if (Date.now() > deadline) expect.fail(`still there after 30 s: CRD ${crd.status}, namespace ${ns.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
});
