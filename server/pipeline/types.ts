// What the serving layer hands the API layer once a request is authenticated.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
}

/** Serves every authenticated request that is not a health or version endpoint. */
export interface ApiHandler {
  handle(req: IncomingMessage, res: ServerResponse, user: UserInfo): Promise<void>;
}
