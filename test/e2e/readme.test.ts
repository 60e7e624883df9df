// README.md cannot rot: every command of its walkthroughs is run as written, in order, from a fresh
// directory (so a fresh data dir), with real make, the built binary, kubectl 1.33, openssl, curl and
// node, and must succeed, or fail where the README says it does (a `# refused`/`# no` comment, or
// shown output that is an error); a console block's output must be what the README shows (ages
// aside). The steps come from test/helpers/walkthrough.ts, the runner examples.test.ts uses too.
//
// What the test arranges, and nothing else:
// - the directory is a checkout whose install and build are done (as `make test` does them first):
//   Makefile, bin/, examples/ and node_modules/ linked from this one, package.json, its lock and
//   tsconfig.json copied with old times and a fresh dist/.build-stamp, so `make run` runs the
//   server and never `npm install` (the built dist/ is this checkout's, as for every test of the binary);
// - the fixed ports the README names (6443 and the replicas' 6444 and 6445, the webhooks' 8443 and
//   8444) are free ports picked for this run, and make run's PORT is the one for 6443, so that tests
//   running at once on this machine do not collide; 2379 is an etcd this test starts;
// - a command that stays in the foreground (`make run`, and the lines whose comment says they go
//   in a terminal) runs in a terminal of its own until it prints its serving line; a `make run` a
//   terminal already runs is stopped there (Ctrl-C) and run again, as a reader would.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EtcdProcess, freePort, startEtcd } from '../helpers/etcd.js';
import { findKubectl } from '../helpers/kubectl.js';
import { REPO_ROOT } from '../helpers/server-process.js';
import { ShellSession, type Step, shellWords, walkthroughSteps } from '../helpers/walkthrough.js';

const kubectl133 = findKubectl('1.33');

/** Steps the README shows but this test does not run, each with why. */
const NOT_RUN: { matches: (s: Step) => boolean; why: string }[] = [
  { matches: (s) => s.command.startsWith('make test'), why: 'this test is part of make test' },
  {
    matches: (s) => s.section === "Validate a CRD's objects without a server",
    why: "a transcript over the reader's own files (its CRD and objects): test/e2e/validate.test.ts runs the command on its own",
  },
  {
    matches: (s) => s.section === 'Testing controllers: faults, snapshots, the clock',
    why: "needs a server started with --enable-testing-apis and a Cache in cache-demo: test/e2e/testing-apis.test.ts runs these kubectl steps (the 409 in kube's words, a Snapshot restored, the frozen Clock)",
  },
  {
    matches: (s) => s.section === 'As a library',
    why: 'commands of another project, against the npm registry: test/e2e/package.test.ts installs the packed tarball into such a project and runs the example there',
  },
];

const PORTS = ['6443', '6444', '6445', '8443', '8444'];
const ETCD_PORT = '2379';

/** Lines as kubectl prints them, blanks collapsed and a table's ages (0s, 12s, 3m) made one word. */
const normalized = (text: string): string[] =>
  text
    .split('\n')
    .map((l) =>
      l
        .trim()
        .replace(/\s+/g, ' ')
        .replace(/(^| )\d+[smhd]( |$)/g, '$1AGE$2'),
    )
    .filter((l) => l !== '');

/** A checkout of this repository whose install and build are done, and nothing else: no .data. */
function freshCheckout(dir: string): void {
  for (const entry of ['Makefile', 'bin', 'examples', 'node_modules', 'scripts'])
    symlinkSync(join(REPO_ROOT, entry), join(dir, entry));
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json']) {
    copyFileSync(join(REPO_ROOT, file), join(dir, file));
    utimesSync(join(dir, file), 0, 0);
  }
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist', '.build-stamp'), '');
}

describe("README.md's walkthroughs, run as written", () => {
  let work: string;
  let checkout: string;
  let etcd: EtcdProcess;
  let session: ShellSession;
  const ports = new Map<string, string>();
  const steps = walkthroughSteps(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
  const toRun = steps.filter((s) => !NOT_RUN.some((n) => n.matches(s)));
  const withPorts = (command: string): string =>
    command.replace(new RegExp(`\\b(${[...PORTS, ETCD_PORT].join('|')})\\b`, 'g'), (p) => ports.get(p)!);

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'readme-'));
    checkout = join(work, 'mini-apiserver');
    mkdirSync(checkout);
    freshCheckout(checkout);
    const shim = join(work, 'bin');
    mkdirSync(shim);
    if (kubectl133.binary) symlinkSync(kubectl133.binary, join(shim, 'kubectl'));
    etcd = await startEtcd();
    ports.set(ETCD_PORT, new URL(etcd.endpoint).port);
    for (const p of PORTS) ports.set(p, String(await freePort()));
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${shim}:${process.env.PATH}`, PORT: ports.get('6443')! };
    delete env.KUBECONFIG;
    delete env.DATA_DIR;
    session = new ShellSession(checkout, env);
  });
  afterAll(async () => {
    await session?.close();
    await etcd?.destroy();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the kubectl 1.33 binary is there', () => {
    if (!kubectl133.binary) expect.fail(kubectl133.problem);
  });

  it('finds the walkthroughs: the quick start, users and roles, replicas, webhooks, policies and conversion', () => {
    const sections = new Set(toRun.map((s) => s.section));
    for (const s of [
      'mini-apiserver',
      'Running',
      'Users, roles and audit',
      'Replicas on one etcd',
      'Admission webhooks and policies',
      'Versions and conversion webhooks',
    ])
      expect(sections, s).toContain(s);
    expect(toRun.filter((s) => s.shown !== undefined).length).toBeGreaterThanOrEqual(8);
    // Each exception still names something the README has.
    for (const n of NOT_RUN) expect(steps.some(n.matches), n.why).toBe(true);
  });

  it('runs every command in order from a fresh data dir: each succeeds, or fails where the README says so', async () => {
    if (!kubectl133.binary) expect.fail(kubectl133.problem);
    expect(existsSync(join(checkout, '.data'))).toBe(false);
    for (const step of toRun) {
      const command = withPorts(step.command);
      const where = `README.md, "${step.section}":\n${step.command}`;
      if (step.command.startsWith('make run') || /\bterminal\b/.test(step.comment)) {
        const words = shellWords(command).words.join(' ');
        for (const t of session.openTerminals()) if (shellWords(t.command).words.join(' ') === words) await t.stop();
        await session.open(command, /serving on https:\/\//);
        continue;
      }
      const r = await session.run(command);
      const printed = `exited ${r.code}; printed:\n${r.stdout}${r.stderr}`;
      if (step.fails) expect(r.code, `${where}\nshould fail; ${printed}`).not.toBe(0);
      else expect(r.code, `${where}\n${printed}`).toBe(0);
      if (step.shown !== undefined)
        expect(normalized(`${r.stderr}\n${r.stdout}`), `${where}\nprints what the README shows`).toEqual(
          normalized(step.shown),
        );
    }
  }, 600_000);

  it('stops every server it started gracefully on Ctrl-C, as the README says', async () => {
    const terminals = session.openTerminals();
    expect(terminals.length).toBeGreaterThanOrEqual(3);
    for (const t of terminals.reverse()) {
      await t.stop();
      expect(t.output(), t.command).toContain('"msg":"stopped"');
    }
  });
});
