// What the serving layer hands the API layer once a request is authenticated.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { RequestInfo } from '../request/request-info.js';
import type { UserInfo } from '../../apimachinery/user.js';

/** What the front door parsed of a request, once, for every layer after it. */
export interface ParsedRequest {
  info: RequestInfo;
  query: URLSearchParams;
}

/** Serves every authenticated request that is not a health or version endpoint. */
export interface ApiHandler {
  handle(req: IncomingMessage, res: ServerResponse, user: UserInfo, parsed: ParsedRequest): Promise<void>;
  /**
   * A request to upgrade to WebSocket (a watch); rejects with the ApiError to refuse it with, before
   * upgrading; calls `upgraded` with the WebSocket once the 101 is written, before the first
   * event is sent, and resolves when the watch ends.
   */
  handleUpgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    user: UserInfo,
    parsed: ParsedRequest,
    upgraded: (ws: WebSocket) => void,
  ): Promise<void>;
}
