// A small client for integration tests against an in-process server: one request with the admin
// token and the server's CA, the body as JSON when it is JSON, and polling without fixed sleeps.
import type { ServerHandle } from '../../server/index.js';
import { request } from './server-process.js';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: unknown;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is (malformed JSON, YAML); wins over `body`. */
  raw?: string;
  contentType?: string;
  accept?: string;
  /** Any other request headers (If-None-Match, User-Agent). */
  headers?: Record<string, string>;
}

export function apiClient(
  server: ServerHandle,
): (method: string, path: string, o?: CallOptions) => Promise<ApiResponse> {
  return async (method, path, o = {}) => {
    const body = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
    const headers: Record<string, string> = { ...o.headers };
    if (body !== undefined) {
      headers['content-type'] = o.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    if (o.accept) headers['accept'] = o.accept;
    const r = await request(server.url + path, {
      method,
      ca: server.caCert,
      token: server.token,
      headers,
      ...(body !== undefined ? { body } : {}),
      timeoutMs: 30_000,
    });
    let json: unknown;
    try {
      json = r.body ? JSON.parse(r.body) : undefined;
    } catch {
      json = undefined;
    }
    return { status: r.status, headers: r.headers, text: r.body, json };
  };
}
