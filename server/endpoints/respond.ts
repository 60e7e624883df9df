// Writing answers: JSON documents and kube's Status for errors, the one place each is written
// (the front door, the API and the REST verbs all answer through here).
import type { ServerResponse } from 'node:http';
import type { ApiError } from '../../apimachinery/errors.js';
import { stringifyJSON } from '../../apimachinery/json.js';

export function sendJson(res: ServerResponse, code: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = stringifyJSON(value);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

/** An error as kube's Status; mid-stream there is no status left to send, so the connection is cut. */
export function writeStatus(res: ServerResponse, err: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, err.code, err.status);
}
