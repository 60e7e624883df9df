// The one hook of the testing API in the request path: the API handler the front door calls,
// wrapped (server/index.ts hands the front door this wrapper only with --enable-testing-apis;
// without it nothing here runs, and the front door calls the API handler as it always does).
//
// It sees every authenticated, authorized client request to the API, after audit and the
// in-flight limits began, so what a Fault does is audited and counted in /metrics as any answer.
// The server's own controllers read and write through their stores, never through the front door,
// so no Fault can reach them. Requests to the testing API itself are never faulted either: a Fault
// can always be read, changed and deleted, whatever it matches.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { WebSocket } from 'ws';
import { setTimeout as sleep } from 'node:timers/promises';
import { TESTING_GROUP } from '../../apimachinery/apis/testing.js';
import type { ApiError } from '../../apimachinery/errors.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { writeStatus } from '../endpoints/respond.js';
import type { ApiHandler } from '../pipeline/types.js';
import type { RequestInfo } from '../request/request-info.js';
import { goDurationMs } from '../registry/builtin/testing.js';
import { faultError } from './fault-status.js';
import type { ActiveFault, FaultEngine } from './faults.js';
import type { RequestFacts } from './match.js';

interface FaultHooks {
  engine: FaultEngine;
  /** Forgets history up to now: storage compacted, every watch cache's window dropped. */
  expireHistory(): Promise<void>;
}

function requestFacts(info: RequestInfo, user: UserInfo, userAgent: string | undefined): RequestFacts {
  return {
    verb: info.verb,
    apiGroup: info.apiGroup,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    user,
    userAgent: userAgent ?? '',
  };
}

/** `api`, with the Faults in force acting on the client requests they match. */
export function withFaults(api: ApiHandler, hooks: FaultHooks): ApiHandler {
  const { engine } = hooks;
  return {
    async handle(req, res, user, parsed) {
      const { info } = parsed;
      if (!faultable(info)) return api.handle(req, res, user, parsed);
      const facts = requestFacts(info, user, req.headers['user-agent']);
      const fault = engine.take(facts);
      const serve = async (): Promise<void> => {
        if (info.verb !== 'watch') return api.handle(req, res, user, parsed);
        const ending = watchEnding(res);
        const closed = engine.watchOpened({ facts, endAfter: ending.after });
        res.once('close', closed);
        if (fault?.spec.action?.endWatch) ending.after(fault.spec.action.endWatch.afterEvents);
        return api.handle(req, res, user, parsed);
      };
      if (!fault) return serve();
      // The hit is in the Fault's status before the client sees what it did.
      await engine.record(fault);
      if (!(await delayed(fault, res))) return;
      const action = fault.spec.action;
      if (action?.error) return writeStatus(res, faultError(action.error, facts, fault.name));
      if (action?.resetConnection) return resetConnection(req);
      if (action?.errorAfterCommit) answerInsteadOfSuccess(res, faultError(action.errorAfterCommit, facts, fault.name));
      if (action?.expireHistory) await hooks.expireHistory();
      return serve();
    },

    // A watch over WebSocket (browsers' way to watch): the same actions, the error refusing the
    // upgrade, and its messages counted (one per event) for endWatch.
    async handleUpgrade(req, socket, head, user, parsed, upgraded) {
      const { info } = parsed;
      if (!faultable(info)) return api.handleUpgrade(req, socket, head, user, parsed, upgraded);
      const facts = requestFacts(info, user, req.headers['user-agent']);
      const fault = engine.take(facts);
      if (fault) {
        await engine.record(fault);
        const ms = fault.spec.delay === undefined ? 0 : goDurationMs(fault.spec.delay);
        if (typeof ms === 'number' && ms > 0) await sleep(ms);
        const action = fault.spec.action;
        if (action?.error) throw faultError(action.error, facts, fault.name);
        if (action?.resetConnection) return void socket.destroy();
        if (action?.expireHistory) await hooks.expireHistory();
      }
      return api.handleUpgrade(req, socket, head, user, parsed, (ws) => {
        upgraded(ws);
        const ending = webSocketEnding(ws);
        ws.once('close', engine.watchOpened({ facts, endAfter: ending.after }));
        if (fault?.spec.action?.endWatch) ending.after(fault.spec.action.endWatch.afterEvents);
      });
    },
  };
}

/** Requests a Fault may act on: the API's resources, but the testing API's own. */
const faultable = (info: RequestInfo): boolean => info.isResourceRequest && info.apiGroup !== TESTING_GROUP;

/** Waits out the Fault's delay (real time); false when the client left meanwhile. */
async function delayed(fault: ActiveFault, res: ServerResponse): Promise<boolean> {
  if (fault.spec.delay === undefined) return true;
  const ms = goDurationMs(fault.spec.delay);
  if (typeof ms === 'number' && ms > 0) await sleep(ms);
  return !res.destroyed;
}

/**
 * Closes the connection without an answer, with a TCP reset, so the client sees ECONNRESET (Go's
 * "connection reset by peer"). TLS sockets cannot be reset themselves: the TCP socket under one
 * (Node keeps it as `_parent`) is; without one, the connection is closed.
 */
function resetConnection(req: IncomingMessage): void {
  const socket = req.socket;
  const tcp: unknown = (socket as { _parent?: unknown })._parent ?? socket;
  if (tcp instanceof Socket && !(tcp instanceof TLSSocket)) tcp.resetAndDestroy();
  else socket.destroy();
}

/**
 * watchEnding's twin for a watch over WebSocket: each event is one message (websocket.ts), counted
 * as it is sent; after the last the socket is closed normally (1000), as a watch whose time is up
 * is. Later messages go nowhere.
 */
export function webSocketEnding(ws: WebSocket): { after(events: number): void } {
  let left = Number.POSITIVE_INFINITY;
  const send = ws.send;
  ws.send = function (this: WebSocket, ...args: unknown[]) {
    if (left <= 0) return;
    left--;
    (send as (...a: unknown[]) => void).apply(ws, args);
    if (left === 0) ws.close(1000);
  } as WebSocket['send'];
  return {
    after(events) {
      left = events;
      if (events <= 0) ws.close(1000);
    },
  };
}

type Write = ServerResponse['write'];
type End = ServerResponse['end'];

/**
 * The request is served as usual (its write commits), but a success is never sent: `err` goes out
 * in its place, the moment the handler starts its answer. A failure of the request itself (a 4xx
 * or 5xx of its own) is sent as it is.
 */
function answerInsteadOfSuccess(res: ServerResponse, err: ApiError): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, code: number, ...rest: unknown[]) {
    res.writeHead = writeHead;
    if (code >= 400) return (writeHead as (...a: unknown[]) => ServerResponse).call(res, code, ...rest);
    writeStatus(res, err);
    // What the handler still writes of its success goes nowhere.
    res.write = ((..._args: unknown[]) => true) as Write;
    res.end = ((..._args: unknown[]) => res) as End;
    return res;
  } as ServerResponse['writeHead'];
}

/**
 * How a watch response is ended after a number of events: each event is one write of the stream
 * (watch.ts), so the writes are counted and the response ended cleanly after the last one, as the
 * server ends a watch whose time is up. Later writes go nowhere.
 */
function watchEnding(res: ServerResponse): { after(events: number): void } {
  let left = Number.POSITIVE_INFINITY;
  const write = res.write;
  const end = (): void => {
    if (!res.writableEnded && !res.destroyed) res.end();
  };
  res.write = function (this: ServerResponse, ...args: unknown[]) {
    if (left <= 0) return true;
    left--;
    const ok = (write as (...a: unknown[]) => boolean).apply(res, args);
    if (left === 0) end();
    return ok;
  } as Write;
  return {
    after(events) {
      left = events;
      if (events > 0) return;
      // Now: at once if the stream has begun, else as soon as its headers go out.
      if (res.headersSent) return end();
      const flushHeaders = res.flushHeaders;
      res.flushHeaders = () => {
        flushHeaders.call(res);
        end();
      };
    },
  };
}
