// Clients that go away mid-request, over raw TLS sockets: a chunked upload past the body limit then
// a close, 4 MiB then a destroyed socket, a body that stops half-way, a close right after the
// headers (the first two crashed the server: `Cannot read properties of null (reading
// 'remoteAddress')`), plus handshakes cut short, plain HTTP on the TLS port, watches and large
// answers abandoned, and twenty such clients at once. Nobody reads an answer here, so none is
// required; any answer that comes must not be a 5xx, and the process must live with /readyz
// answering within 1 s during and after.
import { connect as netConnect } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process.js';
import { BODY_LIMIT, MIB } from './corpus.js';
import { FuzzServer, GROUP, type Outcome, head, installCRD, must, raw, sleep, widget, writeAll } from './harness.js';

const NS = 'fuzz';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
const fuzz = new FuzzServer(
  async (s) => {
    await must(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await installCRD(s, 'widgets', 'Widget');
    await must(s, 'POST', WIDGETS, widget('w1'));
    // Cut connections are what this file is about: check every /readyz on a new one.
  },
  { freshReadyz: true },
);
beforeAll(() => fuzz.start());
afterAll(() => fuzz.stop());

/**
 * Where uploads go: a built-in kind and an update of a custom resource (the body is read by one
 * function for every verb and kind; these two reach it through the most different handlers).
 */
const TARGETS: [string, string, string][] = [
  ['namespaces', 'POST', '/api/v1/namespaces'],
  ['a custom resource update', 'PUT', `${WIDGETS}/w1`],
];

const ABORTED = { allowNoResponse: true, during: true } as const;
const auth = (s: ServerProcess): Record<string, string> => ({
  Authorization: `Bearer ${s.token}`,
  'Content-Type': 'application/json',
});
/** A body that is valid JSON for as long as it goes: `{"spec":{"x":"aaaa…`. */
const filler = (bytes: number): Buffer =>
  Buffer.concat([Buffer.from('{"spec":{"x":"'), Buffer.alloc(Math.max(0, bytes - 14), 0x61)]);

/** Writes a chunked body of `total` bytes in 64 KiB chunks, stopping early if the socket dies. */
async function writeChunked(sock: TLSSocket, total: number, terminate: boolean): Promise<void> {
  const chunk = filler(64 * 1024);
  for (let sent = 0; sent < total && !sock.destroyed; sent += chunk.length) {
    await writeAll(sock, Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
  }
  if (terminate) await writeAll(sock, '0\r\n\r\n');
}

for (const [name, method, path] of TARGETS) {
  describe(`aborted uploads to ${name}`, () => {
    it('a chunked upload past the body limit, then the connection closed', () =>
      fuzz.check(
        (s) =>
          raw(s, async (sock) => {
            await writeAll(sock, head(method, path, { ...auth(s), 'Transfer-Encoding': 'chunked' }));
            await writeChunked(sock, BODY_LIMIT + MIB / 2, false);
            sock.destroy();
          }),
        ABORTED,
      ));

    it('a chunked upload past the body limit, finished: 413', () =>
      fuzz.check(
        (s) =>
          raw(s, async (sock) => {
            await writeAll(
              sock,
              head(method, path, { ...auth(s), 'Transfer-Encoding': 'chunked', Connection: 'close' }),
            );
            await writeChunked(sock, BODY_LIMIT + MIB / 2, true);
          }),
        // The server may answer 413 and close before the last chunk: the answer, if any, must be a 4xx.
        { allowNoResponse: true, expect4xx: true },
      ));

    it('4 MiB sent with its Content-Length, then the socket destroyed', () =>
      fuzz.check(
        (s) =>
          raw(s, async (sock) => {
            await writeAll(
              sock,
              Buffer.concat([head(method, path, { ...auth(s), 'Content-Length': String(4 * MIB) }), filler(4 * MIB)]),
            );
            sock.destroy();
          }),
        ABORTED,
      ));

    it('4 MiB sent chunked, then the socket destroyed', () =>
      fuzz.check(
        (s) =>
          raw(s, async (sock) => {
            await writeAll(sock, head(method, path, { ...auth(s), 'Transfer-Encoding': 'chunked' }));
            await writeChunked(sock, 4 * MIB, false);
            sock.destroy();
          }),
        ABORTED,
      ));

    it('a body that stops half-way and the client half-closes', () =>
      fuzz.check(
        (s) =>
          raw(s, async (sock) => {
            await writeAll(
              sock,
              Buffer.concat([head(method, path, { ...auth(s), 'Content-Length': '100000' }), filler(50_000)]),
            );
            // The server waits for the rest meanwhile; /readyz is probed all along.
            await sleep(600);
            sock.end();
          }),
        ABORTED,
      ));

    it('a body that stops half-way and the socket is destroyed', () =>
      fuzz.check(
        (s) =>
          raw(s, async (sock) => {
            await writeAll(
              sock,
              Buffer.concat([head(method, path, { ...auth(s), 'Content-Length': '100000' }), filler(50_000)]),
            );
            await sleep(300);
            sock.destroy();
          }),
        ABORTED,
      ));

    it('a close right after the headers', () =>
      fuzz.check(
        (s) =>
          raw(s, async (sock) => {
            await writeAll(sock, head(method, path, { ...auth(s), 'Content-Length': '100' }));
            sock.destroy();
          }),
        ABORTED,
      ));

    it('a Content-Length over the limit, a few bytes sent: 413 without waiting for the rest', () =>
      fuzz.check(
        (s) =>
          raw(s, async (sock) => {
            await writeAll(
              sock,
              Buffer.concat([
                head(method, path, { ...auth(s), 'Content-Length': String(BODY_LIMIT + 1) }),
                Buffer.from('{"spec":'),
              ]),
            );
          }),
        { expect4xx: true },
      ));

    it('a Content-Length smaller than the body (3 MiB + 1 sent, 100 declared)', () =>
      fuzz.check(
        (s) =>
          raw(s, async (sock) => {
            await writeAll(
              sock,
              Buffer.concat([
                head(method, path, { ...auth(s), 'Content-Length': '100', Connection: 'close' }),
                filler(BODY_LIMIT + 1),
              ]),
            );
          }),
        { expect4xx: true },
      ));

    it('a Content-Length larger than the body (1 MiB declared, 10 bytes sent), then a wait and a close', () =>
      fuzz.check(
        (s) =>
          raw(s, async (sock) => {
            await writeAll(
              sock,
              Buffer.concat([
                head(method, path, { ...auth(s), 'Content-Length': String(MIB) }),
                Buffer.from('{"spec":{}}'),
              ]),
            );
            await sleep(600);
            sock.destroy();
          }),
        ABORTED,
      ));
  });
}

describe('connections cut elsewhere', () => {
  it('a close in the middle of the headers', () =>
    fuzz.check(
      (s) =>
        raw(s, async (sock) => {
          await writeAll(
            sock,
            `POST ${WIDGETS} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${s.token}\r\nContent-Le`,
          );
          sock.destroy();
        }),
      ABORTED,
    ));

  it('headers trickled for 0.6 s, then a close', () =>
    fuzz.check(
      (s) =>
        raw(s, async (sock) => {
          const bytes = head('GET', '/api/v1/namespaces', { Authorization: `Bearer ${s.token}` });
          for (let i = 0; i < 10 && !sock.destroyed; i++) {
            await writeAll(sock, bytes.subarray(i, i + 1));
            await sleep(60);
          }
          sock.destroy();
        }),
      ABORTED,
    ));

  it('a TCP connection closed before the TLS handshake', () =>
    fuzz.check(
      (s) =>
        new Promise<Outcome>((resolve) => {
          const sock = netConnect({ host: '127.0.0.1', port: s.port }, () => {
            sock.destroy();
            resolve({ body: '', note: 'closed by the client' });
          });
          sock.on('error', (err) => resolve({ body: '', note: err.message }));
        }),
      ABORTED,
    ));

  it('half a TLS ClientHello, then a close', () =>
    fuzz.check(
      (s) =>
        new Promise<Outcome>((resolve) => {
          const sock = netConnect({ host: '127.0.0.1', port: s.port }, () => {
            sock.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]));
            setTimeout(() => (sock.destroy(), resolve({ body: '', note: 'closed by the client' })), 100);
          });
          sock.on('error', (err) => resolve({ body: '', note: err.message }));
        }),
      ABORTED,
    ));

  it('plain HTTP on the TLS port', () =>
    fuzz.check(
      (s) =>
        new Promise<Outcome>((resolve) => {
          const sock = netConnect({ host: '127.0.0.1', port: s.port }, () =>
            sock.write('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n'),
          );
          let data = '';
          sock.on('data', (c: Buffer) => (data += c.toString('latin1')));
          const done = (note: string): void => {
            sock.destroy();
            const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
            resolve(m ? { status: Number(m[1]), body: data } : { body: '', note });
          };
          sock.on('close', () => done('closed'));
          sock.on('error', (err) => done(err.message));
          setTimeout(() => done('no answer in 2 s'), 2000);
        }),
      ABORTED,
    ));

  it('a watch abandoned right after its headers', () =>
    fuzz.check((s) =>
      raw(
        s,
        async (sock) => {
          await writeAll(sock, head('GET', `${WIDGETS}?watch=true`, { Authorization: `Bearer ${s.token}` }));
        },
        { headersOnly: true },
      ),
    ));

  it('a large answer abandoned unread (the OpenAPI document)', () =>
    fuzz.check((s) =>
      raw(
        s,
        async (sock) => {
          await writeAll(sock, head('GET', '/openapi/v2', { Authorization: `Bearer ${s.token}` }));
        },
        { headersOnly: true },
      ),
    ));

  it('a request pipelined behind an aborted upload on the same connection', () =>
    fuzz.check(
      (s) =>
        raw(s, async (sock) => {
          await writeAll(
            sock,
            Buffer.concat([
              head('POST', WIDGETS, { ...auth(s), 'Content-Length': '10' }),
              Buffer.from('{"a":'),
              head('GET', '/readyz', {}),
            ]),
          );
          await sleep(300);
          sock.destroy();
        }),
      ABORTED,
    ));
});

it('twenty clients at once, each a chunked upload past the limit then a destroyed socket', async () => {
  const problems = await fuzz.problems(async (s) => {
    const one = (): Promise<Outcome> =>
      raw(
        s,
        async (sock) => {
          await writeAll(sock, head('POST', WIDGETS, { ...auth(s), 'Transfer-Encoding': 'chunked' }));
          await writeChunked(sock, BODY_LIMIT + 64 * 1024, false);
          sock.destroy();
        },
        { timeoutMs: 30_000 },
      );
    const all = await Promise.all(Array.from({ length: 20 }, one));
    // The case's answer: the first 5xx if any, else "no response" (expected: every client hung up).
    return all.find((o) => (o.status ?? 0) >= 500) ?? { body: '', note: 'all closed by the clients' };
  }, ABORTED);
  expect(problems, problems.join(' | ')).toEqual([]);
});
