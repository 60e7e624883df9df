// The kubectl binaries the tests drive, found the same way everywhere, the first that applies:
//   $KUBECTL_1_27 (and so on): that path, and nothing else;
//   $KUBECTL_DIR/kubectl.<version>, KUBECTL_DIR being /usr/lib/google-cloud-sdk/bin unless set;
//   `kubectl` on PATH, if its client version is that version.
// A version not found is a failure with what was looked at and how to get it, never a skip.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type CommandResult, run } from './server-process.js';

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

/** kubectl `binary` against the server whose kubeconfig `kubeconfig()` names (known once it started). */
export function kubectlRunner(binary: string, kubeconfig: () => string): KubectlRunner {
  const kubectl = (args: string[], input?: string): Promise<CommandResult> =>
    run(binary, ['--kubeconfig', kubeconfig(), ...args], {
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
