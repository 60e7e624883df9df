// The fuzz contract, shared by every file in test/fuzz: a hostile request against the REAL server
// process (bin/mini-apiserver over real TLS) may get any answer but a 5xx, the process must not
// exit, and /readyz must answer 200 within 1 s right after (and, for slow cases, all along).
// One case = one check = one assertion, whose failure message lists what broke.
//
// Ordinary requests go through test/helpers/server-process.ts `request()` (the /readyz after each
// case aside: it reuses one connection, which that helper cannot). Anything it cannot send
// (bytes that are not UTF-8, a lying Content-Length, a socket cut mid-body, megabyte headers,
// methods the HTTP client refuses) goes over a raw node:tls socket here.
import { Agent, request as httpsRequest } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { expect } from 'vitest';
import { type HttpResponse, type ServerProcess, request, startServerProcess } from '../helpers/server-process.js';

/** What a case got back. `status` is undefined when no response came (closed, or hung until the deadline). */
export interface Outcome {
  status?: number;
  body: string;
  /** The Warning header, its values joined by ", " (as Node gives them), when there is one. */
  warning?: string;
  /** Why there is no status, or what happened to the socket. */
  note?: string;
}

export interface CaseOptions {
  /**
   * Probe /readyz from the start of the case. Every case is probed anyway once it has run for
   * SLOW_CASE_MS: a request the server is still chewing on must not stall its health checks.
   */
  during?: boolean;
  /** The case may legitimately get no response (the client itself cuts the connection). */
  allowNoResponse?: boolean;
  /** The answer must be a 4xx (hostile CEL, lying sizes): anything else is a problem too. */
  expect4xx?: boolean;
  /** A 5xx kube itself gives for this input, allowed by name (see KUBE_RV_TOO_LARGE). */
  allow?: (o: Outcome) => boolean;
  /** What else must hold after the case (nothing deleted...): the problems found, if any. */
  verify?: (s: ServerProcess) => Promise<string[]>;
}

/** /readyz must answer within this, right after each case and during slow ones. */
export const READYZ_BUDGET_MS = 1000;
/** A case still running after this is a slow case, probed every PROBE_EVERY_MS until it ends. */
export const SLOW_CASE_MS = 250;
const PROBE_EVERY_MS = 250;
/** Default wait for a case's answer; a case past it counts as a stall. */
export const CASE_TIMEOUT_MS = 10_000;

/**
 * kube's own 5xx for a resourceVersion ahead of the store (the watch cache waits, then answers
 * 504 Timeout with cause ResourceVersionTooLarge and Retry-After): a defined answer, not a failure.
 */
export const KUBE_RV_TOO_LARGE = (o: Outcome): boolean =>
  o.status === 504 && /"reason":"Timeout"/.test(o.body) && /ResourceVersionTooLarge/.test(o.body);

const toOutcome = (r: HttpResponse): Outcome => {
  const w = r.headers['warning'];
  return { status: r.status, body: r.body, ...(typeof w === 'string' ? { warning: w } : {}) };
};

const brief = (s: string, n = 300): string => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

/**
 * One server process under attack, restarted (and set up again) when a case killed it, so every
 * later case still gets its own verdict instead of a cascade of "process exited".
 */
export class FuzzServer {
  private current: ServerProcess | undefined;
  /** One kept-alive connection for the /readyz after each case (see readyzProblem). */
  private agent: Agent | undefined;

  constructor(
    /** Creates what the cases need (namespaces, CRDs, objects) on a fresh server. */
    private readonly setup: (s: ServerProcess) => Promise<void> = async () => {},
    private readonly opts: {
      args?: readonly string[];
      /**
       * Every /readyz on a new connection, so that the accept path is checked too (for cases that
       * cut connections); else the after-case /readyz reuses one connection, which saves a TLS
       * handshake per case on a suite of about two thousand.
       */
      freshReadyz?: boolean;
    } = {},
  ) {}

  get server(): ServerProcess {
    if (!this.current) throw new Error('FuzzServer not started');
    return this.current;
  }

  async start(): Promise<ServerProcess> {
    this.agent?.destroy();
    this.current = await startServerProcess({ args: this.opts.args ?? [] });
    this.agent = this.opts.freshReadyz ? undefined : new Agent({ keepAlive: true, maxSockets: 1, ca: this.current.ca });
    await this.setup(this.current);
    return this.current;
  }

  async stop(): Promise<void> {
    this.agent?.destroy();
    await this.current?.stop();
  }

  private exited(): boolean {
    const c = this.server.child;
    return c.exitCode !== null || c.signalCode !== null;
  }

  /** What the process said as it died: from the last error line of stderr (a crash's message and first frames). */
  private stderrTail(): string {
    const lines = this.server.stderr().trimEnd().split('\n');
    let at = lines.length - 1;
    while (at > 0 && !/Error\b|\berror\b|"level":"(error|fatal)"/.test(lines[at]!)) at--;
    const from = at > 0 ? at : Math.max(0, lines.length - 6);
    return brief(lines.slice(from, from + 4).join('\n'), 1500);
  }

  private restarting: Promise<void> | undefined;

  /** A fresh server when the last case killed this one (once, however many cases ask at once). */
  private async ensureAlive(): Promise<void> {
    if (this.restarting) return this.restarting;
    if (!this.current || !this.exited()) return;
    const dead = this.current;
    this.restarting = (async () => {
      await dead.stop().catch(() => undefined);
      await this.start();
    })().finally(() => (this.restarting = undefined));
    return this.restarting;
  }

  /** /readyz on the kept-alive connection; once more on a new one if the server had just closed it. */
  private readyzKeptAlive(timeoutMs: number): Promise<HttpResponse> {
    const agent = this.agent!;
    const url = `${this.server.url}/readyz`;
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = httpsRequest(url, { agent, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`request to ${url} timed out`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        // The race node documents for reused sockets: the server closed an idle connection as we sent.
        if (req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          request(url, { ca: this.server.ca, timeoutMs: Math.max(1, timeoutMs - (performance.now() - started)) }).then(
            resolve,
            reject,
          );
        } else reject(err);
      });
      req.end();
    });
  }

  /**
   * One /readyz with the 1 s budget: undefined when fine, else what went wrong. `fresh`: on a new
   * connection (the probes during a case always are).
   */
  async readyzProblem(fresh = true): Promise<string | undefined> {
    const started = performance.now();
    try {
      const r =
        fresh || !this.agent
          ? await request(`${this.server.url}/readyz`, { ca: this.server.ca, timeoutMs: READYZ_BUDGET_MS })
          : await this.readyzKeptAlive(READYZ_BUDGET_MS);
      const ms = Math.round(performance.now() - started);
      if (r.status !== 200) return `/readyz answered ${r.status} ${brief(r.body, 200)}`;
      if (ms > READYZ_BUDGET_MS) return `/readyz took ${ms} ms`;
      return undefined;
    } catch (err) {
      return `/readyz failed after ${Math.round(performance.now() - started)} ms: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /**
   * Runs one case and returns what broke the contract (empty when nothing did). For properties
   * (fast-check), which need a predicate rather than an assertion.
   */
  async problems(send: (s: ServerProcess) => Promise<Outcome>, opts: CaseOptions = {}): Promise<string[]> {
    await this.ensureAlive();
    const problems: string[] = [];
    let done = false;
    let wake: () => void = () => {};
    const pause = (ms: number): Promise<void> =>
      new Promise((r) => {
        const t = setTimeout(r, ms);
        wake = () => (clearTimeout(t), r());
      });
    const probing = (async () => {
      await pause(opts.during ? 0 : SLOW_CASE_MS);
      while (!done) {
        const p = await this.readyzProblem();
        // One stall is enough to report; stop probing a dead process.
        if (p) return problems.push(`during the case: ${p}`);
        await pause(PROBE_EVERY_MS);
      }
    })();
    let outcome: Outcome;
    try {
      outcome = await send(this.server);
    } catch (err) {
      outcome = { body: '', note: err instanceof Error ? err.message : String(err) };
    } finally {
      done = true;
      wake();
    }
    await probing;

    if (outcome.status === undefined) {
      if (!opts.allowNoResponse) problems.push(`no response: ${outcome.note ?? 'unknown'}`);
    } else if (outcome.status >= 500 && !opts.allow?.(outcome)) {
      problems.push(`answered ${outcome.status}: ${brief(outcome.body)}`);
    } else if (opts.expect4xx && (outcome.status < 400 || outcome.status > 499) && !opts.allow?.(outcome)) {
      problems.push(`answered ${outcome.status}, not a 4xx: ${brief(outcome.body)}`);
    }
    const ready = await this.readyzProblem(false);
    if (ready) problems.push(`after the case: ${ready}`);
    if (!ready && opts.verify) problems.push(...(await opts.verify(this.server)));
    // A crash can land just after the answer (a 'close' handler): give the exit event a moment.
    if (ready && !this.exited()) await new Promise((r) => setTimeout(r, 300));
    if (this.exited())
      problems.push(
        `process exited (code ${this.server.child.exitCode}, signal ${this.server.child.signalCode}): ${this.stderrTail()}`,
      );
    return problems;
  }

  /** The one assertion of a case: nothing broke the contract. */
  async check(send: (s: ServerProcess) => Promise<Outcome>, opts: CaseOptions = {}): Promise<void> {
    const problems = await this.problems(send, opts);
    // The problems as the message too, so that a report's first line says what happened.
    expect(problems, problems.join(' | ')).toEqual([]);
  }
}

// ---------------------------------------------------------------------------------------------
// Sending

export interface CallOptions {
  method?: string;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Admin token unless null (anonymous). */
  token?: null;
  timeoutMs?: number;
}

/** An ordinary request (string body) through the shared helper, as an Outcome. */
export async function call(s: ServerProcess, path: string, o: CallOptions = {}): Promise<Outcome> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.body !== undefined) headers['content-type'] ??= o.contentType ?? 'application/json';
  try {
    const r = await s.request(path, {
      method: o.method ?? 'GET',
      headers,
      ...(o.body !== undefined ? { body: o.body } : {}),
      ...(o.token === null ? { token: null } : {}),
      timeoutMs: o.timeoutMs ?? CASE_TIMEOUT_MS,
    });
    return toOutcome(r);
  } catch (err) {
    return { body: '', note: err instanceof Error ? err.message : String(err) };
  }
}

/** A TLS connection to the server, trusting its CA. */
export function tlsConnect(s: ServerProcess): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: s.port, ca: s.ca }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The head of an HTTP/1.1 request, byte for byte as given (no header is added but Host). */
export function head(method: string, target: string, headers: Record<string, string>): Buffer {
  const lines = [
    `${method} ${target} HTTP/1.1`,
    'Host: 127.0.0.1',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** Authorization, Connection: close and, for a body, Content-Type and a true Content-Length. */
export function requestBytes(
  s: ServerProcess,
  method: string,
  target: string,
  body?: Buffer,
  headers: Record<string, string> = {},
): Buffer {
  const h: Record<string, string> = { Authorization: `Bearer ${s.token}`, Connection: 'close' };
  if (body) {
    h['Content-Type'] = 'application/json';
    h['Content-Length'] = String(body.length);
  }
  const head_ = head(method, target, { ...h, ...headers });
  return body ? Buffer.concat([head_, body]) : head_;
}

export interface RawOptions {
  /** Give up (and destroy the socket) after this long without a complete response. */
  timeoutMs?: number;
  /** Resolve as soon as a 2xx or 101 status line and headers are in (watches, streams); other answers are read whole. */
  headersOnly?: boolean;
}

/**
 * Opens a TLS socket, lets `write` do anything with it (write, pause, end, destroy), and reads
 * the first response: its status once headers are in, and the body up to its Content-Length or
 * the connection's end. The socket is always destroyed before this resolves.
 */
export async function raw(
  s: ServerProcess,
  write: (socket: TLSSocket) => void | Promise<void>,
  opts: RawOptions = {},
): Promise<Outcome> {
  let socket: TLSSocket;
  try {
    socket = await tlsConnect(s);
  } catch (err) {
    return { body: '', note: `connect: ${err instanceof Error ? err.message : String(err)}` };
  }
  return new Promise<Outcome>((resolve) => {
    let data = Buffer.alloc(0);
    let settled = false;
    /** The bytes after any interim responses (100 Continue, 102, 103), which are not the answer; 101 is. */
    const final = (): string =>
      data.toString('latin1').replace(/^(?:HTTP\/1\.[01] 1(?:0[02-9]|[1-9]\d)[^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
    const finish = (note?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const text = final();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      const end = text.indexOf('\r\n\r\n');
      resolve(
        m
          ? { status: Number(m[1]), body: end < 0 ? '' : Buffer.from(text.slice(end + 4), 'latin1').toString('utf8') }
          : { body: brief(text), note: note ?? 'no status line' },
      );
    };
    const timer = setTimeout(
      () => finish(`no response within ${opts.timeoutMs ?? CASE_TIMEOUT_MS} ms`),
      opts.timeoutMs ?? CASE_TIMEOUT_MS,
    );
    socket.on('data', (c: Buffer) => {
      data = Buffer.concat([data, c]);
      const text = final();
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (opts.headersOnly && /^HTTP\/1\.[01] (?:2|101)/.test(text)) return finish();
      const len = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      if (len && Buffer.byteLength(text, 'latin1') >= end + 4 + Number(len[1])) finish();
    });
    // A server that answered and closed while we still wrote gives EPIPE/ECONNRESET: the answer stands.
    socket.on('error', (err) => finish(`socket error: ${err.message}`));
    socket.on('end', () => finish('closed without a response'));
    socket.on('close', () => finish('closed without a response'));
    Promise.resolve()
      .then(() => write(socket))
      .catch((err: unknown) => finish(`write: ${err instanceof Error ? err.message : String(err)}`));
  });
}

/** Writes and waits until the bytes are handed to the kernel (or the socket failed). */
export function writeAll(socket: TLSSocket, bytes: Buffer | string): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    socket.write(bytes, () => resolve());
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Fixtures: a CRD whose schema has a string field with a CEL rule and a free-form
// (x-kubernetes-preserve-unknown-fields) part, so hostile bodies reach the decoder, pruning,
// structural validation and CEL.

export const GROUP = 'fuzz.example.com';
export const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

export function widgetSchema(): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          s: {
            type: 'string',
            'x-kubernetes-validations': [
              { rule: "!self.startsWith('forbidden')", message: 's must not start with forbidden' },
            ],
          },
          n: { type: 'integer' },
          f: { type: 'number' },
          items: { type: 'array', items: { type: 'string' } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
}

export function crdBody(
  plural: string,
  kind: string,
  schema: Record<string, unknown> = widgetSchema(),
): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        { name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: schema } },
      ],
    },
  };
}

/** The set-up steps must succeed: a failure here is not a fuzz finding but a broken fixture. */
export async function must(
  s: ServerProcess,
  method: string,
  path: string,
  body?: unknown,
  okStatus: readonly number[] = [200, 201],
): Promise<void> {
  const r = await call(s, path, { method, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  if (r.status === undefined || !okStatus.includes(r.status))
    throw new Error(`fixture ${method} ${path}: ${r.status ?? r.note} ${brief(r.body)}`);
}

/** Creates a CRD and waits until its resources are served. */
export async function installCRD(
  s: ServerProcess,
  plural: string,
  kind: string,
  schema?: Record<string, unknown>,
): Promise<void> {
  await must(s, 'POST', CRDS, crdBody(plural, kind, schema));
  for (let i = 0; ; i++) {
    const r = await call(s, `/apis/${GROUP}/v1/${plural}`);
    if (r.status === 200) return;
    if (i > 400) throw new Error(`${plural} never served: ${r.status} ${r.body}`);
    await sleep(25);
  }
}

export const widget = (name: string, spec: Record<string, unknown> = { s: 'ok', n: 1 }): Record<string, unknown> => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name },
  spec,
});

/** fast-check settings: deterministic (fixed seed), bounded, no shrinking against a live server. */
export const FC_PARAMS = { seed: 20240611, endOnFailure: true, includeErrorInReport: true } as const;
