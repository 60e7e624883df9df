// Many requests on one kept-alive connection: ConfigMap POSTs with bodies from 1 KB to just under
// the body limit, sent back to back through node's keep-alive https.Agent and pipelined over a raw
// TLS socket (all written at once, the answers read in order), with refusals (400, 413) among them.
// Every request must get its own answer, in order, and the connection must carry the ones after a
// refusal; plus the fuzz contract (no 5xx, the process lives, /readyz within 1 s).
import { Agent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process.js';
import { BODY_LIMIT, MIB } from './corpus.js';
import { FuzzServer, type Outcome, head, must, tlsConnect } from './harness.js';

const NS = 'keepalive';
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
const fuzz = new FuzzServer(async (s) => {
  await must(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});
beforeAll(() => fuzz.start());
afterAll(() => fuzz.stop());

/** 1 KB to just under the limit; 16 KiB is node's stream buffer, the sizes past it were lost. */
const SIZES = [1000, 16 * 1024, 17 * 1024, 64 * 1024, 200 * 1024, MIB, BODY_LIMIT - 1] as const;

let serial = 0;
/**
 * A ConfigMap's JSON of exactly `bytes` bytes: data up to 512 KiB (a ConfigMap holds at most 1 MiB),
 * the rest trailing whitespace, which JSON allows.
 */
function configMap(bytes: number): Buffer {
  const name = `cm-${bytes}-${serial++}`;
  const base = (n: number): string =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { x: 'a'.repeat(n) } });
  const text = base(Math.min(512 * 1024, Math.max(0, bytes - base(0).length)));
  if (text.length > bytes) throw new Error(`a ConfigMap cannot be as small as ${bytes} bytes`);
  return Buffer.from(text + ' '.repeat(bytes - text.length));
}

/** One request to send: what it is called in a report, its bytes' parts, and the status it must get. */
interface Probe {
  name: string;
  headers: Record<string, string>;
  body: Buffer;
  expect: number;
}

const create = (bytes: number): Probe => ({ name: `${bytes} B`, headers: {}, body: configMap(bytes), expect: 201 });
/** A body that stops being JSON at its end: read whole, then refused. */
const malformed = (bytes: number): Probe => ({
  name: `${bytes} B malformed`,
  headers: {},
  body: configMap(bytes).subarray(0, bytes - 2),
  expect: 400,
});
/** Past the limit, all of it sent: refused on its Content-Length before it is read. */
const tooLarge = (): Probe => ({
  name: 'past the limit',
  headers: {},
  body: Buffer.alloc(BODY_LIMIT + 1, 0x20),
  expect: 413,
});
/** Past the limit in chunks: refused once the limit is crossed, the rest still on its way. */
const tooLargeChunked = (): Probe => {
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  const parts: Buffer[] = [];
  for (let sent = 0; sent <= BODY_LIMIT; sent += chunk.length)
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  parts.push(Buffer.from('0\r\n\r\n'));
  return {
    name: 'past the limit, chunked',
    headers: { 'Transfer-Encoding': 'chunked' },
    body: Buffer.concat(parts),
    expect: 413,
  };
};

/** A request's bytes: Content-Length unless it is chunked. */
function requestBytes(s: ServerProcess, p: Probe): Buffer {
  const length: Record<string, string> = p.headers['Transfer-Encoding']
    ? {}
    : { 'Content-Length': String(p.body.length) };
  const h = { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json', ...length, ...p.headers };
  return Buffer.concat([head('POST', CONFIGMAPS, h), p.body]);
}

/**
 * What came back for each probe, in order: a status and the connection it came on (0: the first),
 * or why there is none.
 */
type Answer = { status: number; connection: number } | { error: string };

function describeAnswer(a: Answer | undefined): string {
  if (!a) return 'no answer';
  if ('error' in a) return a.error;
  return a.connection === 0 ? String(a.status) : `${a.status} on connection ${a.connection + 1}`;
}

const show = (probes: readonly Probe[], answers: readonly Answer[]): string =>
  probes.map((p, i) => `${p.name}: ${describeAnswer(answers[i])}`).join(', ');

/**
 * The case's outcome for the fuzz contract: the highest status (so that a 5xx shows), or no status
 * when some request got none; the answers in the body for the report.
 */
function outcome(probes: readonly Probe[], answers: readonly Answer[]): Outcome {
  const statuses = answers.flatMap((a) => ('status' in a ? [a.status] : []));
  const summary = show(probes, answers);
  return statuses.length === probes.length
    ? { status: Math.max(...statuses), body: summary }
    : { body: summary, note: `not every request was answered: ${summary}` };
}

/**
 * The answers must be the expected ones, in order, all on the first connection: an answer that
 * closed the connection makes an agent open another for the next request, which a client that
 * had already sent it on the old one loses.
 */
function verify(probes: readonly Probe[], answers: () => readonly Answer[]): () => Promise<string[]> {
  return async () => {
    const got = answers();
    const right = probes.every((p, i) => describeAnswer(got[i]) === String(p.expect));
    return right
      ? []
      : [`expected ${probes.map((p) => `${p.name}: ${p.expect}`).join(', ')}; got ${show(probes, got)}`];
  };
}

/**
 * The probes through one keep-alive https.Agent with one socket: node queues them and sends each
 * when the previous answer is in, on the same connection.
 */
async function throughAgent(s: ServerProcess, probes: readonly Probe[]): Promise<Answer[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: s.ca });
  const sockets: Socket[] = [];
  try {
    return await Promise.all(
      probes.map(
        (p) =>
          new Promise<Answer>((resolve) => {
            const req = httpsRequest(
              `${s.url}${CONFIGMAPS}`,
              {
                method: 'POST',
                agent,
                headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json', ...p.headers },
              },
              (res) => {
                if (!sockets.includes(res.socket)) sockets.push(res.socket);
                const on = sockets.indexOf(res.socket);
                res.resume();
                res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: on }));
                res.on('error', (err) => resolve({ error: err.message }));
              },
            );
            req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
            req.on('error', (err) => resolve({ error: err.message }));
            req.end(p.body);
          }),
      ),
    );
  } finally {
    agent.destroy();
  }
}

/** The probes written at once on one raw TLS connection, and the answers read in order. */
async function pipelined(s: ServerProcess, probes: readonly Probe[]): Promise<Answer[]> {
  const socket = await tlsConnect(s);
  const answers: Answer[] = [];
  return new Promise<Answer[]>((resolve) => {
    let data = Buffer.alloc(0);
    const finish = (why?: string): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answers.length < probes.length && why ? [...answers, { error: why }] : answers);
    };
    const timer = setTimeout(() => finish('no answer within 30 s'), 30_000);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      for (;;) {
        const end = data.indexOf('\r\n\r\n');
        if (end < 0) return;
        const headText = data.subarray(0, end).toString('latin1');
        const status = /^HTTP\/1\.1 (\d{3}) /.exec(headText);
        const length = /\r\ncontent-length: *(\d+)/i.exec(headText);
        if (!status || !length)
          return finish(`an answer without a status or Content-Length: ${headText.slice(0, 200)}`);
        const total = end + 4 + Number(length[1]);
        if (data.length < total) return;
        answers.push({ status: Number(status[1]), connection: 0 });
        data = data.subarray(total);
        if (answers.length === probes.length) return finish();
      }
    });
    socket.on('error', (err) => finish(`socket error: ${err.message}`));
    socket.on('close', () => finish('connection closed'));
    socket.write(Buffer.concat(probes.map((p) => requestBytes(s, p))));
  });
}

/** One case: the probes sent one way, their answers checked, and the fuzz contract. */
function probe(
  send: (s: ServerProcess, probes: readonly Probe[]) => Promise<Answer[]>,
  probes: () => Probe[],
): () => Promise<void> {
  return async () => {
    const list = probes();
    let answers: Answer[] = [];
    await fuzz.check(async (s) => outcome(list, (answers = await send(s, list))), {
      verify: verify(list, () => answers),
    });
  };
}

const EVERY_SIZE = (): Probe[] => SIZES.map(create);
/** Every size three times over: the loss was a race, a few in thirty. */
const EVERY_SIZE_THRICE = (): Probe[] => [0, 1, 2].flatMap(() => SIZES.map(create));
const WITH_REFUSALS = (): Probe[] => [
  create(17 * 1024),
  malformed(64 * 1024),
  create(200 * 1024),
  tooLarge(),
  create(1000),
  tooLargeChunked(),
  create(MIB),
];

describe('requests on one kept-alive connection, each answered', () => {
  it(
    'every size from 1 KB to just under the limit, back to back through a keep-alive agent',
    probe(throughAgent, EVERY_SIZE_THRICE),
  );
  it('every size, pipelined: written at once, answered in order', probe(pipelined, EVERY_SIZE));
  it('every size three times over, pipelined', probe(pipelined, EVERY_SIZE_THRICE));
  it(
    'a 400 and two 413s among them, back to back: the requests after each are answered too',
    probe(throughAgent, WITH_REFUSALS),
  );
  it(
    'a 400 and two 413s among them, pipelined: the requests after each are answered too',
    probe(pipelined, WITH_REFUSALS),
  );
});
