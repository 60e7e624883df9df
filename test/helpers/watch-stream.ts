// One ?watch=true stream over HTTPS for integration tests. Each test file used to open the request
// and split newline-delimited JSON by hand, each with its own gaps (chunks cut inside a UTF-8
// character, an unhandled 'error', a bad line thrown from an event handler); this does it once.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import type { ServerHandle } from '../../server/index.js';

/** A watch event as the server writes it; tests narrow `object` with their own type. */
export interface WatchEvent<O = Record<string, unknown>> {
  type: string;
  object: O;
}

export interface WatchOptions<T> {
  /**
   * Open it without reading: the server sees a client that does not take its stream (its
   * buffers fill, as a slow watcher's do) until `resume()`.
   */
  paused?: boolean;
  /** How one line becomes an event; JSON.parse by default, `(l) => l` keeps the text. */
  decode?: (line: string) => T;
  /** How long to wait for the response headers. */
  openTimeoutMs?: number;
}

export interface WatchStream<T> {
  status: number;
  headers: IncomingHttpHeaders;
  /** Every event so far, in arrival order; grows as lines arrive. */
  readonly events: T[];
  /** The first `n` events, once they arrived; rejects if the stream ends or errs first, or after `timeoutMs`. */
  next(n: number, timeoutMs?: number): Promise<T[]>;
  /** Every event so far, once one satisfies `done`; rejects as `next` does. */
  until(what: string, done: (ev: T) => boolean, timeoutMs?: number): Promise<T[]>;
  /** Resolves when the server ended the stream cleanly (never, if it was cut off). */
  readonly ended: Promise<void>;
  /** Resolves when the response is over for any reason: ended, cut off, or closed here. */
  readonly closed: Promise<void>;
  /** Body bytes taken from the connection so far (none while paused). */
  bytesReceived(): number;
  /** The client's port, to find the connection on the server's side. */
  readonly localPort: number | undefined;
  /** Starts reading a stream opened with `paused`. */
  resume(): void;
  close(): void;
}

const DEFAULT_WAIT_MS = 10_000;

/**
 * Opens `path` (with its query, e.g. `...?watch=true&resourceVersion=0`) with the server's admin
 * token, and resolves once the response headers arrived. A status other than 200 rejects, with
 * the body, since no test reads a failed watch as a stream.
 */
export function openWatch<T = WatchEvent>(
  server: Pick<ServerHandle, 'url' | 'caCert' | 'token'>,
  path: string,
  opts: WatchOptions<T> = {},
): Promise<WatchStream<T>> {
  const decode = opts.decode ?? ((line: string) => JSON.parse(line) as T);
  return new Promise((resolveOpen, rejectOpen) => {
    const req = httpsRequest(server.url + path, {
      ca: server.caCert,
      agent: false,
      headers: { authorization: `Bearer ${server.token}` },
    });
    const openTimer = setTimeout(
      () => req.destroy(new Error(`watch ${path}: no response within ${opts.openTimeoutMs ?? DEFAULT_WAIT_MS}ms`)),
      opts.openTimeoutMs ?? DEFAULT_WAIT_MS,
    );
    req.on('error', (err) => {
      clearTimeout(openTimer);
      rejectOpen(err);
    });
    req.on('response', (res: IncomingMessage) => {
      clearTimeout(openTimer);
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('error', rejectOpen);
        res.on('end', () => rejectOpen(new Error(`watch ${path}: ${res.statusCode}: ${body}`)));
        return;
      }
      resolveOpen(stream(req, res, decode, opts.paused ?? false));
    });
    req.end();
  });
}

function stream<T>(
  req: ReturnType<typeof httpsRequest>,
  res: IncomingMessage,
  decode: (line: string) => T,
  paused: boolean,
): WatchStream<T> {
  const events: T[] = [];
  let bytes = 0;
  let failure: Error | undefined;
  let over = false;
  const wakers = new Set<() => void>();
  const wake = (): void => {
    for (const w of wakers) w();
  };

  // A line can span chunks and a chunk can end inside a UTF-8 character: decode as a stream, and
  // look for newlines only in the new text so that megabyte events stay linear.
  const utf8 = new StringDecoder('utf8');
  let partial: string[] = [];
  res.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    const text = utf8.write(chunk);
    let from = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
      const line = partial.join('') + text.slice(from, nl);
      partial = [];
      from = nl + 1;
      if (line.trim() === '' || failure) continue;
      try {
        events.push(decode(line));
      } catch (err) {
        // Thrown here it would escape the test as an uncaught exception; waiters report it instead.
        failure = new Error(`undecodable watch line (${(err as Error).message}): ${line.slice(0, 300)}`);
      }
    }
    if (from < text.length) partial.push(text.slice(from));
    wake();
  });
  // After the 'data' listener, which would start the flow.
  if (paused) res.pause();

  const ended = new Promise<void>((r) => res.once('end', r));
  const closed = new Promise<void>((r) =>
    res.once('close', () => {
      over = true;
      wake();
      r();
    }),
  );
  // A cut-off or closed stream errs ('aborted'); that is what `closed` reports.
  res.on('error', () => {});
  req.on('error', () => {});

  function wait<R>(what: string, ready: () => R | undefined, timeoutMs: number): Promise<R> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const v = ready();
        if (v !== undefined) finish(() => resolve(v));
        else if (failure) finish(() => reject(failure));
        else if (over)
          finish(() => reject(new Error(`the watch ended after ${events.length} events, waiting for ${what}`)));
      };
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(new Error(`timed out after ${timeoutMs}ms waiting for ${what}: ${events.length} events so far`)),
          ),
        timeoutMs,
      );
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        wakers.delete(check);
        settle();
      };
      wakers.add(check);
      check();
    });
  }

  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    events,
    next: (n, timeoutMs = DEFAULT_WAIT_MS) =>
      wait(`${n} events`, () => (events.length >= n ? events.slice(0, n) : undefined), timeoutMs),
    until: (what, done, timeoutMs = DEFAULT_WAIT_MS) =>
      wait(what, () => (events.some(done) ? [...events] : undefined), timeoutMs),
    ended,
    closed,
    bytesReceived: () => bytes,
    localPort: req.socket?.localPort,
    resume: () => void res.resume(),
    close: () => void req.destroy(),
  };
}
