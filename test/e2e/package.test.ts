// The package as another project gets it: `npm pack` of the checkout `make test` has just built
// (its prepack, which builds dist/ for a user's `npm pack`, is that same build: held to it below,
// not run a second time), the tarball installed with npm into a fresh project outside the repo, and that project's own code run with
// plain node: the examples/controller.mjs it ships (startServer from 'mini-apiserver', the Cache CRD applied with
// @kubernetes/client-node, a Cache created, watched and reconciled, the server closed), and a
// TypeScript file type-checked against the package's declarations.
//
// No network: the project's node_modules starts as a copy of the repo's (which `make test`
// installed), so `npm install --offline` only adds the tarball and prunes what the project does not
// need; --ignore-scripts keeps better-sqlite3's native build from that copy instead of compiling
// SQLite again (~90 s). Every step that fails (pack, install, run, type-check) fails its test.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandResult, REPO_ROOT, run } from '../helpers/server-process.js';

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

const repoPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};
const clientNodeVersion = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules/@kubernetes/client-node/package.json'), 'utf8')) as {
    version: string;
  }
).version;

/**
 * A hang guard per step (and per test), not a speed bound: npm's offline install and tsc's check
 * of the declarations take tens of seconds on a loaded two-core machine.
 */
const STEP_MS = 600_000;

/**
 * The top folders of `modules` (`name`, or `@scope` and `@scope/name`) holding `roots` and what they
 * depend on, found as Node finds a dependency (the nearest node_modules up the tree), from npm's
 * record of the tree; a nested node_modules comes with the package it is in.
 */
function neededFolders(modules: string, roots: readonly string[]): Set<string> {
  const { packages } = JSON.parse(readFileSync(join(modules, '.package-lock.json'), 'utf8')) as {
    packages: Record<string, Partial<Record<'dependencies' | 'optionalDependencies' | 'peerDependencies', object>>>;
  };
  const needed = new Set<string>();
  const visit = (from: string, name: string): void => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const key = `${dir && `${dir}/`}node_modules/${name}`;
      const found = packages[key];
      if (found) {
        if (needed.has(key)) return;
        needed.add(key);
        for (const d of Object.keys({
          ...found.dependencies,
          ...found.optionalDependencies,
          ...found.peerDependencies,
        }))
          visit(key, d);
        return;
      }
      if (!dir) return;
    }
  };
  for (const r of roots) visit('', r);
  const folders = new Set<string>();
  for (const key of needed) {
    const top = topFolder(key.slice('node_modules/'.length));
    folders.add(top).add(top.split('/')[0]!);
  }
  return folders;
}

/** The package folder a path inside node_modules is in: `name`, or `@scope/name` (or `@scope` itself). */
function topFolder(path: string): string {
  const [first, second] = path.split(/[/\\]/);
  return first!.startsWith('@') && second ? `${first}/${second}` : first!;
}

/** A command in `cwd`, to completion, whatever it exits with. */
function runIn(cwd: string, cmd: string, args: readonly string[]): Promise<CommandResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, timeout: STEP_MS, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const e = err as (Error & { code?: number | string; signal?: NodeJS.Signals }) | null;
      resolve({
        code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
        signal: e?.signal ?? null,
        stdout,
        stderr: e && !stderr ? String(e.message) : stderr,
        durationMs: performance.now() - started,
      });
    });
  });
}

describe('the npm package', () => {
  let work: string;
  let project: string;
  let packed: PackResult | undefined;
  let installed = false;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'mini-apiserver-package-'));
    project = join(work, 'project');
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it(
    'npm pack builds (prepack) and packs dist/ and bin/, no tests, sources or source maps',
    async () => {
      expect(repoPackage.scripts['prepack'], 'prepack builds what is packed').toBe('npm run build');
      // The build prepack would run is the one `make test` ran: packed as it is, not built again.
      const r = await runIn(REPO_ROOT, 'npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work]);
      expect(r.code, `npm pack exited ${r.code}:\n${r.stderr}`).toBe(0);
      // prepack's banner and tsc's output go to stderr; stdout is the JSON report.
      const result = (JSON.parse(r.stdout) as PackResult[])[0]!;
      expect(result.filename).toBe(`mini-apiserver-${repoPackage.version}.tgz`);
      const paths = result.files.map((f) => f.path);
      expect(paths).toEqual(
        expect.arrayContaining([
          'package.json',
          'README.md',
          'bin/mini-apiserver',
          'dist/server/index.js',
          'dist/server/index.d.ts',
          'dist/server/main.js',
          'dist/storage/sqlite.js',
          'dist/bin/main.cjs',
          'examples/controller.mjs',
          'examples/cache-crd.yaml',
        ]),
      );
      const unexpected = paths.filter(
        (p) =>
          !(
            p.startsWith('dist/') ||
            p.startsWith('bin/') ||
            p.startsWith('examples/') ||
            ['package.json', 'README.md', 'LICENSE'].includes(p)
          ),
      );
      expect(unexpected, 'files outside dist/, bin/ and examples/').toEqual([]);
      const notShipped = paths.filter((p) =>
        /(^|\/)test\/|\.test\.|\.map$|\.tsbuildinfo$|\.build-stamp$|(?<!\.d)\.ts$/.test(p),
      );
      expect(notShipped, 'tests, TypeScript sources, source maps or build state in the tarball').toEqual([]);
      packed = result;
    },
    STEP_MS,
  );

  it('leaves git nothing to track: the tarball npm pack writes in a checkout is ignored', async () => {
    if (!packed) expect.fail('npm pack failed: no tarball name');
    const r = await runIn(REPO_ROOT, 'git', ['check-ignore', '--no-index', packed.filename]);
    expect(r.code, `${packed.filename} is not ignored by .gitignore`).toBe(0);
  });

  it(
    'installs into a fresh project with npm (offline, from the tarball)',
    async () => {
      if (!packed) expect.fail('npm pack failed: nothing to install');
      // realpath: a worktree's node_modules may be a link to another checkout's. Only the packages
      // the project's dependencies need: the repo's tools (Biome, TypeScript, vitest) are half of it.
      const modules = realpathSync(join(REPO_ROOT, 'node_modules'));
      const wanted = neededFolders(modules, [...Object.keys(repoPackage.dependencies), '@kubernetes/client-node']);
      cpSync(modules, join(project, 'node_modules'), {
        recursive: true,
        verbatimSymlinks: true,
        filter: (src) => src === modules || wanted.has(topFolder(relative(modules, src))),
      });
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify(
          {
            name: 'a-controller',
            private: true,
            type: 'module',
            dependencies: {
              'mini-apiserver': `file:../${packed.filename}`,
              '@kubernetes/client-node': clientNodeVersion,
            },
          },
          null,
          2,
        ),
      );
      const r = await runIn(project, 'npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund']);
      expect(r.code, `npm install exited ${r.code}:\n${r.stdout}\n${r.stderr}`).toBe(0);
      const pkg = JSON.parse(readFileSync(join(project, 'node_modules/mini-apiserver/package.json'), 'utf8')) as {
        version: string;
      };
      expect(pkg.version).toBe(repoPackage.version);
      // What the tarball brought and nothing else: the tests the repo has are not there.
      expect(() => readFileSync(join(project, 'node_modules/mini-apiserver/test/e2e/package.test.ts'))).toThrow();
      installed = true;
    },
    STEP_MS,
  );

  it(
    "a controller in that project runs with plain node: startServer from 'mini-apiserver', a CRD, a Cache watched and reconciled",
    async () => {
      if (!installed) expect.fail('the install failed: nothing to run');
      // As the README says: the example the package ships, copied next to the project's code.
      for (const f of ['controller.mjs', 'cache-crd.yaml'])
        cpSync(join(project, 'node_modules/mini-apiserver/examples', f), join(project, f));
      const r = await runIn(project, process.execPath, ['controller.mjs']);
      expect(r.code, `controller.mjs exited ${r.code}:\n${r.stdout}\n${r.stderr}`).toBe(0);
      const report = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
        version: string;
        image: string;
        readyReplicas: number;
        seen: string[];
      };
      expect(report).toMatchObject({ image: 'memcached:1.6', readyReplicas: 3 });
      expect(report.version).toMatch(
        new RegExp(`^v1\\.\\d+\\.\\d+\\+mini-apiserver\\.${repoPackage.version.replaceAll('.', '\\.')}$`),
      );
      expect(report.seen[0]).toBe('ADDED sessions size=3 ready=-');
      expect(report.seen).toContain('MODIFIED sessions size=3 ready=3');
    },
    STEP_MS,
  );

  it(
    "the installed bin runs, and TypeScript resolves 'mini-apiserver' to its declarations (strict, skipLibCheck off)",
    async () => {
      if (!installed) expect.fail('the install failed: nothing to check');
      const help = await run(join(project, 'node_modules/.bin/mini-apiserver'), ['--help'], { timeoutMs: 30_000 });
      expect(`${help.stdout}${help.stderr}`).toContain('mini-apiserver');
      expect(`${help.stdout}${help.stderr}`).not.toContain('cannot load the server');

      writeFileSync(
        join(project, 'consumer.ts'),
        [
          "import { type ServerHandle, type ServerOptions, StartupError, startServer } from 'mini-apiserver';",
          '',
          "const options: ServerOptions = { storage: 'memory', maxRequestsInflight: 10 };",
          'const server: ServerHandle = await startServer(options);',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: source text of a consumer's file
          'const where: string = `${server.url} ${server.port}`;',
          'await server.close();',
          '// @ts-expect-error: not an option',
          "await startServer({ storage: 'memory', noSuchOption: true });",
          'export { where, StartupError };',
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: [],
          },
          files: ['consumer.ts'],
        }),
      );
      const tsc = await runIn(project, process.execPath, [
        join(REPO_ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        'tsconfig.json',
      ]);
      expect(tsc.code, `tsc exited ${tsc.code}:\n${tsc.stdout}\n${tsc.stderr}`).toBe(0);
    },
    STEP_MS,
  );
});
