// Load from outside the server's runtime: wrk (a C client, one thread, 64 keep-alive connections,
// bench/wrk.lua), so that the client costs little of the two cores the server shares with it; and,
// for what wrk cannot send (a storage client's own calls), the same figures from a Node loop.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, percentile, quick } from './report.js';

/** One run of load: requests per second and the latency of each, in milliseconds. */
export interface Load {
  /** Requests answered in the run. */
  requests: number;
  rate: number;
  p50: number;
  p99: number;
}

/** Seconds each wrk run lasts. */
export const WRK_SECONDS = quick ? 2 : 5;
/** wrk's connections, all kept alive, on one thread. */
export const CONNECTIONS = 64;

const SCRIPT = fileURLToPath(new URL('wrk.lua', import.meta.url));

export interface WrkOptions {
  /** Sent as `Authorization: Bearer`; through the environment (see wrk.lua). */
  token: string;
  connections?: number;
  seconds?: number;
  /** POSTs of this body (a file from `postBody`), each "{{name}}" in it replaced by `<prefix>-<n>`. */
  post?: { file: string; prefix: string };
  /**
   * For a warm-up: a run that completes no request passes (on a busy machine a second can go by
   * before a new server has done its 64 TLS handshakes); a failed request still rejects.
   */
  allowNone?: boolean;
}

interface WrkSummary {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  statusErrors: number;
  timeouts: number;
}

/** wrk against `url`; rejects when any request failed (a status of 400 or more, a socket error or a timeout). */
export function wrk(url: string, opts: WrkOptions): Promise<Load> {
  const args = [
    '-t1',
    `-c${opts.connections ?? CONNECTIONS}`,
    `-d${opts.seconds ?? WRK_SECONDS}s`,
    // wrk's default of 2 s would drop the slowest requests from the percentiles.
    '--timeout',
    '30s',
    '-s',
    SCRIPT,
    url,
    ...(opts.post ? ['--', 'post', opts.post.file, opts.post.prefix] : []),
  ];
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { env: { ...process.env, WRK_TOKEN: opts.token } }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`wrk ${url}: ${err.message} ${stderr}`));
      const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'));
      if (!line) return reject(new Error(`wrk ${url} printed no summary: ${stdout} ${stderr}`));
      const s = JSON.parse(line) as WrkSummary;
      const failed = s.connectErrors + s.readErrors + s.writeErrors + s.statusErrors + s.timeouts;
      if (failed > 0 || (s.requests === 0 && !opts.allowNone))
        return reject(
          new Error(`wrk ${opts.post ? 'POST' : 'GET'} ${url}: ${failed} of ${s.requests} failed: ${line}`),
        );
      resolve({
        requests: s.requests,
        rate: s.requests / (s.durationUs / 1e6),
        p50: s.p50Us / 1000,
        p99: s.p99Us / 1000,
      });
    });
  });
}

/** Writes a POST body for `wrk`'s `post` option into `dir`: `object` with "{{name}}" as its metadata.name. */
export function postBody(dir: string, file: string, object: { metadata: Record<string, unknown> }): string {
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify({ ...object, metadata: { ...object.metadata, name: '{{name}}' } }));
  return path;
}

/**
 * For what wrk cannot send: `op` run by `concurrency` callers for as long as a wrk run lasts.
 * The figures are a Node client's, and say so where they are printed.
 */
export async function nodeLoad(concurrency: number, op: () => Promise<unknown> | unknown): Promise<Load> {
  const ms: number[] = [];
  const start = performance.now();
  const end = start + WRK_SECONDS * 1000;
  const caller = async (): Promise<void> => {
    while (performance.now() < end) {
      const t = performance.now();
      await op();
      ms.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  const rate = ms.length / ((performance.now() - start) / 1000);
  ms.sort((a, b) => a - b);
  return { requests: ms.length, rate, p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

/** The median of each figure over runs of load. */
export function medianLoad(runs: readonly Load[]): Load {
  return {
    requests: median(runs.map((l) => l.requests)),
    rate: median(runs.map((l) => l.rate)),
    p50: median(runs.map((l) => l.p50)),
    p99: median(runs.map((l) => l.p99)),
  };
}
