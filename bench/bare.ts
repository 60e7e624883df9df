// The baseline of what HTTPS itself costs: a bare node:https server in its own process (as ours
// is), with our certificate and key, answering `METHOD path` with canned replies (ours, captured)
// after reading the whole request body; and the time from spawning a server process to the first
// 200 of its /readyz, ours or the bare one.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';

export interface Canned {
  status: number;
  contentType: string;
  body: string;
}

const BARE_SOURCE = `
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
const [cert, key, canned] = process.argv.slice(1);
const routes = new Map(Object.entries(JSON.parse(readFileSync(canned, 'utf8'))).map(([k, v]) => [k, { ...v, bytes: Buffer.from(v.body) }]));
const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    const r = routes.get(req.method + ' ' + req.url);
    if (!r) { res.writeHead(404).end(); return; }
    res.writeHead(r.status, { 'content-type': r.contentType, 'content-length': r.bytes.length });
    res.end(r.bytes);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write('serving on https://127.0.0.1:' + server.address().port + '\\n'));
`;

/**
 * The bare server's command line (after node), serving `canned` (plus `GET /readyz`) with the
 * certificate and key in `dataDir`'s pki/, as ours does; the routes are written into `dataDir`.
 */
export function bareArgs(dataDir: string, canned: Record<string, Canned>): string[] {
  const file = join(dataDir, 'bare-routes.json');
  const routes = { 'GET /readyz': { status: 200, contentType: 'text/plain', body: 'ok' }, ...canned };
  // Owner-only, as the server keeps its data dir (it warns about anything readable by others).
  writeFileSync(file, JSON.stringify(routes), { mode: 0o600 });
  const pki = join(dataDir, 'pki');
  return ['--input-type=module', '-e', BARE_SOURCE, join(pki, 'apiserver.crt'), join(pki, 'apiserver.key'), file];
}

/** Spawns node with `args` and resolves with the URL of the `serving on` line it prints. */
function spawnServing(args: string[]): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /serving on (https:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ').slice(0, 200)} exited with ${code}`)));
  });
  return { child, url };
}

export interface Bare {
  url: string;
  pid: number;
  stop(): void;
}

export async function startBare(dataDir: string, canned: Record<string, Canned>): Promise<Bare> {
  const { child, url } = spawnServing(bareArgs(dataDir, canned));
  return { url: await url, pid: child.pid!, stop: () => child.kill() };
}

/** Status of GET url/readyz, or 0 when nothing answers yet; without a CA (a first start makes its own), any certificate. */
function readyz(url: string, ca: string | undefined): Promise<number> {
  return new Promise((resolve) => {
    const tls = ca === undefined ? { rejectUnauthorized: false } : { ca };
    const req = request(`${url}/readyz`, { ...tls, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

export async function untilReady(url: string, ca: string | undefined): Promise<void> {
  while ((await readyz(url, ca)) !== 200) await new Promise((r) => setTimeout(r, 1));
}

/** A process's start: wall time, and the CPU time its threads took, to its first 200 of /readyz. */
export interface ProcessStart {
  ms: number;
  cpuMs: number;
}

/**
 * CPU time so far of every thread of `pid` (each one's /proc schedstat, in ns): steadier than the
 * wall clock on a shared machine, where waiting for a core is most of a start's time.
 */
export function cpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended in between: its time is no longer counted anywhere
    }
  }
  return ns / 1e6;
}

/** From spawning node with `args` to the first 200 of /readyz at the URL it prints. */
export async function processStart(args: string[], ca: string | undefined): Promise<ProcessStart> {
  const start = performance.now();
  const { child, url } = spawnServing(args);
  try {
    await untilReady(await url, ca);
    return { ms: performance.now() - start, cpuMs: cpuMs(child.pid!) };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}
