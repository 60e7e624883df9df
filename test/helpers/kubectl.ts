// The kubectl binaries the tests drive, found the same way everywhere, the first that applies:
//   $KUBECTL_1_27 (and so on): that path, and nothing else;
//   $KUBECTL_DIR/kubectl.<version>, KUBECTL_DIR being /usr/lib/google-cloud-sdk/bin unless set;
//   `kubectl` on PATH, if its client version is that version.
// A version not found is a failure with what was looked at and how to get it, never a skip.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { type CommandResult, type ServerProcess, run } from './server-process.js';

const KUBECTL_DIR = process.env.KUBECTL_DIR || '/usr/lib/google-cloud-sdk/bin';
export interface Kubectl {
  version: string;
  /** The binary to run, when one was found. */
  binary?: string;
  /** Its `kubectl version --client` gitVersion, when found. */
  gitVersion?: string;
  /** Why none was found: what was looked at, and how to get one. */
  problem?: string;
}

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The client version `bin` reports (major.minor, a trailing + dropped), or why it cannot say. */
function clientVersion(bin: string): { version: string; gitVersion: string } | { problem: string } {
  if (!isFile(bin)) return { problem: 'no such file' };
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    return { problem: 'not executable' };
  }
  try {
    const out = execFileSync(bin, ['version', '--client', '-o', 'json'], {
      encoding: 'utf8',
      timeout: 20_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const v = (JSON.parse(out) as { clientVersion: { major: string; minor: string; gitVersion: string } })
      .clientVersion;
    return { version: `${v.major}.${v.minor.replace(/\+$/, '')}`, gitVersion: v.gitVersion };
  } catch (err) {
    return { problem: `\`version --client -o json\` failed: ${String((err as Error).message).split('\n')[0]}` };
  }
}

export function findKubectl(version: string): Kubectl {
  const envVar = `KUBECTL_${version.replace('.', '_')}`;
  const candidates: [string, string][] = []; // [path, where it came from]
  if (process.env[envVar]) candidates.push([process.env[envVar], `$${envVar}`]);
  else {
    candidates.push([
      join(KUBECTL_DIR, `kubectl.${version}`),
      process.env.KUBECTL_DIR ? '$KUBECTL_DIR' : 'the Google Cloud SDK; KUBECTL_DIR overrides',
    ]);
    const onPath = (process.env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((d) => join(d, 'kubectl'));
    candidates.push([onPath.find(isFile) ?? 'kubectl', 'PATH']);
  }
  const tried: string[] = [];
  for (const [bin, from] of candidates) {
    const v = clientVersion(bin);
    if ('version' in v && v.version === version) return { version, binary: bin, gitVersion: v.gitVersion };
    tried.push(
      `${bin} (${from}): ${'problem' in v ? v.problem : `client version ${v.version} (${v.gitVersion}), not ${version}`}`,
    );
  }
  const file = `kubectl-${version}`;
  return {
    version,
    problem: [
      `kubectl ${version} not found: the tests that drive kubectl ${version} cannot run.`,
      ...tried.map((t, i) => `  ${i === 0 ? 'looked at:' : '          '} ${t}`),
      `  get it:    apt-get install kubectl (the Google Cloud SDK apt repository; or gcloud components install kubectl): it installs /usr/lib/google-cloud-sdk/bin/kubectl.${version};`,
      `             or curl -Lo ${file} https://dl.k8s.io/release/$(curl -Ls https://dl.k8s.io/release/stable-${version}.txt)/bin/linux/amd64/kubectl && chmod +x ${file}`,
      `             and run the tests with ${envVar}=$PWD/${file} (or KUBECTL_DIR=<a directory holding kubectl.${version}>).`,
    ].join('\n'),
  };
}

export interface KubectlRunner {
  /** kubectl with the server's kubeconfig; its result whatever it exits with. */
  kubectl(args: string[], input?: string): Promise<CommandResult>;
  /** kubectl that must succeed: its stdout (a failure throws with its stderr). */
  ok(args: string[], input?: string): Promise<string>;
}

/**
 * kubectl `binary` against the server whose kubeconfig `kubeconfig()` names (known once it started),
 * with `flags()` before each command's own arguments (a KubectlScope's --cache-dir).
 */
export function kubectlRunner(
  binary: string,
  kubeconfig: () => string,
  flags: () => readonly string[] = () => [],
): KubectlRunner {
  const kubectl = (args: string[], input?: string): Promise<CommandResult> =>
    run(binary, ['--kubeconfig', kubeconfig(), ...flags(), ...args], {
      ...(input !== undefined ? { input } : {}),
      timeoutMs: 30_000,
    });
  return {
    kubectl,
    async ok(args, input) {
      const r = await kubectl(args, input);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return r.stdout;
    },
  };
}

/**
 * Finds each version's kubectl and registers, per version, the test that fails (alone) when the
 * binary is missing or is not that version; the suite's other tests then skip on an empty binary.
 * Returns each version's binary ('' when missing).
 */
export function kubectlsFor(versions: readonly string[], topic: string): Map<string, string> {
  const binaries = new Map<string, string>();
  for (const version of versions) {
    const found = findKubectl(version);
    binaries.set(version, found.binary ?? '');
    describe(`kubectl ${version} (${topic})`, () => {
      it(`the kubectl ${version} binary is there, executable, and reports client version ${version}`, async () => {
        if (!found.binary) expect.fail(found.problem);
        const r = await run(found.binary, ['version', '--client', '-o', 'json'], { timeoutMs: 20_000 });
        expect(r.code, r.stderr).toBe(0);
        const v = (JSON.parse(r.stdout) as { clientVersion: { major: string; minor: string } }).clientVersion;
        expect(`${v.major}.${v.minor.replace(/\+$/, '')}`, `${found.binary} reports ${r.stdout}`).toBe(version);
      });
    });
  }
  return binaries;
}

/**
 * One kubectl version's part of a server the versions of a test file share (one server per file:
 * a server start costs seconds, the versions' tests run one after the other anyway).
 *
 * What keeps the versions apart: a namespace of its own, `kubectl-1-27`, set as the namespace of
 * the context of a kubeconfig of its own (a copy of the server's admin kubeconfig), so commands
 * without -n land there as they landed in `default` on a server of their own; names of
 * cluster-scoped objects are the tests' to keep apart, with `suffix`.
 *
 * And a discovery cache of its own (--cache-dir): warm after the version's first command, as a
 * user's is, but never the other version's. kubectl 1.27 reads legacy discovery and 1.33 the
 * aggregated kind into the same files, and a shared cache would have one version answer from what
 * the other fetched, so that neither test would exercise its own discovery. (kubectl's default,
 * ~/.kube/cache/discovery/<host_port>, is also shared with any earlier server on the same port.)
 */
export interface KubectlScope extends KubectlRunner {
  version: string;
  binary: string;
  /** `kubectl-1-27`: its kubeconfig context's namespace, created before the suite's tests. */
  namespace: string;
  /** `1-27`: to name this version's cluster-scoped objects apart from the other version's. */
  suffix: string;
  /** Its kubeconfig (known once the suite started). */
  kubeconfigPath(): string;
  /** --kubeconfig (its own, or `kubeconfig`) and --cache-dir: for kubectl started otherwise (a watch). */
  flags(kubeconfig?: string): string[];
  /** kubectl with another kubeconfig (another user's), sharing this version's cache. */
  runner(kubeconfig: () => string): KubectlRunner;
}

/**
 * Registers, in the calling describe, the hooks that make `version`'s scope on `server()` (started
 * by the file's own beforeAll, which runs first): its namespace, created through the API (once per
 * version, whichever of the version's describes comes first) so that
 * the version's first kubectl command is the test's; its kubeconfig and cache dir in a temp dir,
 * removed after the suite.
 */
export function kubectlScope(binary: string, version: string, server: () => ServerProcess): KubectlScope {
  const suffix = version.replace('.', '-');
  const namespace = `kubectl-${suffix}`;
  let dir: string | undefined;
  const need = (): string => {
    if (dir === undefined) throw new Error(`kubectl ${version}'s scope is used before its beforeAll`);
    return dir;
  };
  const kubeconfigPath = (): string => join(need(), 'kubeconfig');
  const cacheFlags = (): string[] => ['--cache-dir', join(need(), 'cache')];
  beforeAll(async () => {
    const s = server();
    const r = await s.request('/api/v1/namespaces', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
    });
    // 409: another describe of the same version made it (kubectl.test.ts has two per version).
    if (r.status !== 201 && r.status !== 409) throw new Error(`creating namespace ${namespace}: ${r.status} ${r.body}`);
    dir = mkdtempSync(join(tmpdir(), `kubectl-${suffix}-`));
    const kubeconfig = parseYaml(readFileSync(s.kubeconfigPath, 'utf8')) as {
      contexts: { context: Record<string, unknown> }[];
    };
    for (const c of kubeconfig.contexts) c.context['namespace'] = namespace;
    writeFileSync(kubeconfigPath(), stringifyYaml(kubeconfig), { mode: 0o600 });
  });
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  return {
    version,
    binary,
    namespace,
    suffix,
    kubeconfigPath,
    flags: (kubeconfig) => ['--kubeconfig', kubeconfig ?? kubeconfigPath(), ...cacheFlags()],
    runner: (kubeconfig) => kubectlRunner(binary, kubeconfig, cacheFlags),
    ...kubectlRunner(binary, kubeconfigPath, cacheFlags),
  };
}
