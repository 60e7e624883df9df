// A watch over WebSocket, as kube-apiserver offers it to browsers and to clients that ask to
// upgrade: the same event documents, one text message each.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { lazyRequire } from '../../../apimachinery/lazy-require.js';
import { BEARER_PROTOCOL_PREFIX } from '../../authn/bearer.js';
import type { ApiError } from '../../../apimachinery/errors.js';
import { type WatchSink, jsonLine } from './sink.js';

/**
 * The subprotocol the server speaks: the client's first, as golang.org/x/net/websocket (behind
 * kube's watch) echoes the one left once the authenticator removed the token's. Never a token's
 * own: a credential does not travel back in a response header.
 */
export function chooseProtocol(protocols: ReadonlySet<string>): string | false {
  for (const p of protocols) if (!p.startsWith(BEARER_PROTOCOL_PREFIX)) return p;
  return false;
}

const ws = lazyRequire<typeof import('ws')>('ws');
let server: WebSocketServer | undefined;
// noServer: the HTTPS frontend owns the socket and hands over upgrades it has authenticated.
const sockets = (): WebSocketServer =>
  (server ??= new (ws().WebSocketServer)({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: chooseProtocol,
  }));

/** Below this many buffered bytes the client is taken to keep up: a stream's default highWaterMark, as for HTTP. */
const HIGH_WATER_MARK = 16 * 1024;

export function webSocketWatchSink(ws: WebSocket): WatchSink {
  let behind = false;
  const drainListeners: (() => void)[] = [];
  // ws has no 'drain': a send's callback runs once its frame is written to the socket.
  const written = (): void => {
    if (!behind || ws.bufferedAmount >= HIGH_WATER_MARK) return;
    behind = false;
    for (const listener of drainListeners) listener();
  };
  return {
    open() {},
    // The JSON line's bytes without the newline: one encoding for every watcher.
    send: (event) => ws.send(jsonLine(event).subarray(0, -1), { binary: false }, written),
    ready() {
      behind = ws.bufferedAmount >= HIGH_WATER_MARK;
      return !behind;
    },
    onDrain: (listener) => void drainListeners.push(listener),
    buffered: () => ws.bufferedAmount,
    end(graceMs) {
      ws.close(1000);
      if (graceMs === undefined) return;
      // ws itself waits 30 s for the client's close frame.
      const drop = setTimeout(() => ws.terminate(), graceMs);
      drop.unref();
      ws.once('close', () => clearTimeout(drop));
    },
    onClose: (listener) => void ws.once('close', listener),
  };
}

export function acceptWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<WebSocket> {
  return new Promise((resolve) => sockets().handleUpgrade(req, socket, head, resolve));
}

/** Refuses an upgrade with kube's Status, as a plain HTTP response on the raw socket. */
export function refuseUpgrade(socket: Duplex, err: ApiError, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(err.status);
  const reason = err.status.reason ?? 'Error';
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${err.code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}
