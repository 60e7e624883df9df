// Runs the real mini-apiserver binary for e2e tests: a temp data dir, a free port (the server
// picks it: --secure-port 0, so no port race), /readyz awaited; then the URL, kubeconfig, token
// and CA, a request helper, kubectl with the admin kubeconfig, and a graceful stop.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** BENCH_BIN: another checkout's binary, for a benchmark that measures two builds in turns. */
export const BIN = process.env.BENCH_BIN ?? join(REPO_ROOT, 'bin', 'mini-apiserver');

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RequestOptions {
  method?: string;
  /** CA certificate (PEM) to verify the server with. */
  ca: string;
  /** Sent as `Authorization: Bearer <token>` when given. */
  token?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

/** One HTTPS request with a custom CA (global fetch cannot take one without undici's Agent). */
export function request(url: string, opts: RequestOptions): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  return new Promise((resolvePromise, reject) => {
    const req = httpsRequest(
      url,
      { method: opts.method ?? 'GET', ca: opts.ca, headers, agent: false, timeout: opts.timeoutMs ?? 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolvePromise({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${url} timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** Runs a command to completion (real curl, kubectl, or the binary for start-up failures). */
export function run(
  cmd: string,
  args: readonly string[],
  opts: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  const started = performance.now();
  return new Promise((resolvePromise) => {
    const child = execFile(
      cmd,
      args,
      { timeout: opts.timeoutMs ?? 60_000, env: opts.env ?? process.env, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        const e = err as (Error & { code?: number | string; signal?: NodeJS.Signals }) | null;
        resolvePromise({
          code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
          signal: e?.signal ?? null,
          stdout,
          stderr,
          durationMs: performance.now() - started,
        });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    else child.stdin?.end();
  });
}

/** The binary with these flags, to completion: for the start-up failure paths. */
export const runBinary = (args: readonly string[], timeoutMs = 60_000): Promise<CommandResult> =>
  run(process.execPath, [BIN, ...args], { timeoutMs });

export interface ServerProcess {
  url: string;
  port: number;
  dataDir: string;
  kubeconfigPath: string;
  token: string;
  /** CA certificate (PEM) from the kubeconfig. */
  ca: string;
  child: ChildProcess;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** A request to a path of this server, with the admin token unless another (or none: null) is given. */
  request(path: string, opts?: Omit<RequestOptions, 'ca' | 'token'> & { token?: string | null }): Promise<HttpResponse>;
  kubectl(args: readonly string[], opts?: { input?: string; timeoutMs?: number }): Promise<CommandResult>;
  /**
   * Sends `signal` (SIGTERM by default) and resolves with the exit code (null when killed);
   * removes a data dir it created. Rejects, after a SIGKILL, if the process outlives `timeoutMs`.
   */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

export interface StartOptions {
  /** Reuse a data dir (kept on stop); default: a fresh temp dir, removed on stop. */
  dataDir?: string;
  /** More flags, e.g. ['--etcd-servers', url] or ['-v', '4']. */
  args?: readonly string[];
  readyTimeoutMs?: number;
}

const SERVING_LINE = /serving on (https:\/\/\S+) \((\w+)\); kubeconfig: (\S+)/;

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function startServerProcess(opts: StartOptions = {}): Promise<ServerProcess> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'mini-apiserver-'));
  const child = spawn(process.execPath, [BIN, '--data-dir', dataDir, '--secure-port', '0', ...(opts.args ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let exit: number | null | undefined;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r((exit = code))));
  const timeoutMs = opts.readyTimeoutMs ?? 30_000;

  try {
    const line = await waitFor('the serving line on stdout', timeoutMs, async () => {
      if (exit !== undefined) throw new Error(`mini-apiserver exited with ${exit} before serving:\n${stderr}`);
      return SERVING_LINE.exec(stdout) ?? undefined;
    });
    const url = line[1]!;
    const kubeconfigPath = line[3]!;
    const kubeconfig = parseYaml(readFileSync(kubeconfigPath, 'utf8')) as {
      clusters: { cluster: { 'certificate-authority-data': string } }[];
      users: { user: { token: string } }[];
    };
    const ca = Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString('utf8');
    const token = kubeconfig.users[0]!.user.token;
    await waitFor('/readyz', timeoutMs, async () => {
      if (exit !== undefined) throw new Error(`mini-apiserver exited with ${exit} before ready:\n${stderr}`);
      const r = await request(`${url}/readyz`, { ca }).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    });

    let stopped: Promise<number | null> | undefined;
    return {
      url,
      port: Number(new URL(url).port),
      dataDir,
      kubeconfigPath,
      token,
      ca,
      child,
      stdout: () => stdout,
      stderr: () => stderr,
      request: (path, { token: given, ...o } = {}) =>
        request(url + path, { ...o, ca, ...(given === null ? {} : { token: given ?? token }) }),
      kubectl: (args, o = {}) => run('kubectl', ['--kubeconfig', kubeconfigPath, ...args], o),
      stop: (signal = 'SIGTERM', timeoutMs = 15_000) =>
        (stopped ??= (async () => {
          if (exit === undefined) child.kill(signal);
          let timer: NodeJS.Timeout | undefined;
          const hung = new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), timeoutMs)));
          const code = await Promise.race([exited, hung]);
          clearTimeout(timer);
          if (code === 'hung') child.kill('SIGKILL');
          if (ownDir) rmSync(dataDir, { recursive: true, force: true });
          if (code === 'hung') throw new Error(`mini-apiserver did not exit within ${timeoutMs}ms of ${signal}`);
          return code;
        })()),
    };
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
