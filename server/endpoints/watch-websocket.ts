// A watch over WebSocket, as kube-apiserver offers it to browsers and to clients that ask to
// upgrade: the same event documents, one text message each.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ApiError } from '../errors.js';
import type { WatchSink } from './watch.js';

// noServer: the HTTPS frontend owns the socket and hands over upgrades it has authenticated.
const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false });

export function webSocketWatchSink(ws: WebSocket): WatchSink {
  return {
    open() {},
    send: (event) => ws.send(event),
    buffered: () => ws.bufferedAmount,
    end: () => ws.close(1000),
    destroy: () => ws.terminate(),
    onClose: (listener) => void ws.once('close', listener),
  };
}

export function acceptWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<WebSocket> {
  return new Promise((resolve) => sockets.handleUpgrade(req, socket, head, resolve));
}

/** Refuses an upgrade with kube's Status, as a plain HTTP response on the raw socket. */
export function refuseUpgrade(socket: Duplex, err: ApiError): void {
  const body = JSON.stringify(err.status);
  const reason = err.status.reason ?? 'Error';
  socket.end(
    `HTTP/1.1 ${err.code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
