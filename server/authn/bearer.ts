// Bearer-token authentication with kube's outcomes: no credentials (anonymous: only the public
// health and version paths), a known token (the user), or a token that is not known (401 on
// every path, the public ones included, as kube answers a failed authentication).
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../pipeline/types.js';
import type { TokenRecord } from './token-file.js';

export type AuthResult =
  | { kind: 'anonymous' }
  | { kind: 'user'; user: UserInfo }
  | { kind: 'invalid' };

/**
 * The token of an `Authorization: Bearer <token>` header, as kube's bearertoken authenticator reads
 * it: the scheme is case-insensitive and exactly one space separates it from the token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const auth = header?.trim();
  if (!auth) return undefined;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

export class TokenAuthenticator {
  private readonly users: Map<string, UserInfo>;

  constructor(records: readonly TokenRecord[]) {
    this.users = new Map(records.map((r) => [r.token, r.user]));
  }

  authenticate(req: IncomingMessage): AuthResult {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return { kind: 'anonymous' };
    const user = this.users.get(token);
    if (!user) return { kind: 'invalid' };
    // As kube does: nothing past authentication should see, log or forward the credential.
    delete req.headers.authorization;
    return { kind: 'user', user };
  }
}
