// What the serving layer hands the API layer once a request is authenticated.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
}

/** Serves every authenticated request that is not a health or version endpoint. */
export interface ApiHandler {
  handle(req: IncomingMessage, res: ServerResponse, user: UserInfo): Promise<void>;
  /** A request to upgrade to WebSocket (a watch); answers on the raw socket when it refuses. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, user: UserInfo): Promise<void>;
}
