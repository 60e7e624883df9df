// Writing answers: documents and kube's Status for errors, the one place each is written (the front
// door, the API and the REST verbs all answer through here). A document goes out in the media type
// its handler negotiated (output.ts): JSON, YAML (kube's sigs.k8s.io/yaml shape), or kube's protobuf
// for what has an encoding (built-in kinds, their lists, Status, PartialObjectMetadata).
import type { ServerResponse } from 'node:http';
import type { ApiError } from '../../apimachinery/errors.js';
import { goEncoderText } from '../../apimachinery/go-json.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import { auditOf } from '../audit/context.js';
import { levelAtLeast } from '../audit/policy.js';
import { defaultEndpointRestrictions, negotiateMediaTypeOptions } from './negotiate.js';
import { PROTOBUF_MEDIA_TYPE, type ReplyMediaType, SERVED, YAML_MEDIA_TYPE } from './output.js';
import {
  UnencodableError,
  canEncodeProtobuf,
  encodeProtobufList,
  encodeProtobufObject,
} from '../codecs/protobuf-encode.js';
import { encodeYamlChunks } from '../codecs/yaml-encode.js';

/** The protobuf body `encode` writes, or undefined for a kind without an encoding. */
function protobufOrNone(encode: () => Buffer): Buffer | undefined {
  try {
    return encode();
  } catch (err) {
    // A definition short of a field the object holds: JSON, which every client here also accepts,
    // rather than losing the field.
    if (err instanceof UnencodableError) return undefined;
    throw err;
  }
}

const protobufBody = (value: unknown): Buffer | undefined =>
  canEncodeProtobuf(value) ? protobufOrNone(() => encodeProtobufObject(value)) : undefined;

/** A reply document as written: its bytes and their media type. */
export interface Body {
  /** JSON ends with the newline Go's json.Encoder writes after each document (jsonDocument). */
  bytes: Buffer;
  contentType: 'application/json' | typeof PROTOBUF_MEDIA_TYPE;
}

/**
 * A document in JSON, or in protobuf when that was negotiated and the document has an encoding
 * (YAML is written in pieces: sendYaml).
 */
export function encodeBody(value: unknown, mediaType: ReplyMediaType): Body {
  const proto = mediaType === PROTOBUF_MEDIA_TYPE ? protobufBody(value) : undefined;
  return proto
    ? { bytes: proto, contentType: PROTOBUF_MEDIA_TYPE }
    : { bytes: jsonDocument(stringifyJSON(value)), contentType: 'application/json' };
}

/** A JSON reply's bytes as kube's serializer writes them (json.Encoder): Go's escapes, then a newline. */
export const jsonDocument = (text: string): Buffer => Buffer.from(`${goEncoderText(text)}\n`);

/**
 * A list of objects whose bodies were encoded before (endpoints/encoded.ts), in the media type
 * they were: what encodeBody writes for `{...head, items}`. Protobuf when every item has it and
 * the list kind an encoding, else JSON (`json` gives the items' JSON bodies).
 */
export async function listBody(
  head: { apiVersion: string; kind: string; metadata: Record<string, unknown> },
  items: readonly Body[],
  mediaType: Body['contentType'],
  json: () => Promise<readonly Body[]>,
): Promise<Body> {
  if (mediaType === PROTOBUF_MEDIA_TYPE && items.every((item) => item.contentType === PROTOBUF_MEDIA_TYPE)) {
    const itemBytes = items.map((item) => item.bytes);
    const bytes = protobufOrNone(() => encodeProtobufList(head, itemBytes));
    if (bytes) return { bytes, contentType: PROTOBUF_MEDIA_TYPE };
  }
  const jsonItems = items.some((item) => item.contentType !== 'application/json') ? await json() : items;
  const bytes = jsonList(
    head,
    jsonItems.map((item) => item.bytes),
  );
  return { bytes, contentType: 'application/json' };
}

const COMMA = Buffer.from(',');
const LIST_END = Buffer.from(']}\n');

/** A list's JSON from its items' JSON documents: what encodeBody writes for `{...head, items}`. */
function jsonList(head: Record<string, unknown>, items: readonly Buffer[]): Buffer {
  const open = goEncoderText(stringifyJSON(head));
  const parts: Buffer[] = [Buffer.from(`${open.slice(0, -1)},"items":[`)];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    // Without the item's own newline.
    parts.push(item.subarray(0, item.length - 1));
  });
  parts.push(LIST_END);
  return Buffer.concat(parts);
}

/**
 * YAML is written in pieces of this many characters: go-yaml's writer in JavaScript takes a few
 * milliseconds for each, and a list of thousands of objects hundreds of milliseconds in all.
 */
const YAML_CHUNK_CHARS = 64 * 1024;

function send(
  res: ServerResponse,
  code: number,
  value: unknown,
  headers: Record<string, string>,
  mediaType: ReplyMediaType,
): void {
  // kube's LogResponseObject: a Status becomes the audit event's responseStatus; at RequestResponse the body is kept.
  auditOf(res)?.responseObject(value);
  if (mediaType === YAML_MEDIA_TYPE) return sendYaml(res, code, value, headers);
  sendBody(res, code, encodeBody(value, mediaType), headers);
}

/**
 * A body encoded before (endpoints/encoded.ts), with nothing for the audit: for a request whose
 * audit keeps no response object (auditKeepsResponse), and of an object, never a Status.
 */
export function sendBody(res: ServerResponse, code: number, body: Body, headers: Record<string, string> = {}): void {
  res.writeHead(code, {
    'Content-Type': body.contentType,
    'Content-Length': String(body.bytes.length),
    ...headers,
  });
  res.end(body.bytes);
}

/** Whether the request's audit keeps the response's object (level RequestResponse), which must then be handed over. */
export function auditKeepsResponse(res: ServerResponse): boolean {
  const rec = auditOf(res);
  return rec !== undefined && levelAtLeast(rec.level, 'RequestResponse');
}

/**
 * YAML in one body when it is short; past one piece, chunked, the rest written a piece per turn of
 * the event loop (and only as fast as the client reads), so one large answer holds no one else up.
 */
function sendYaml(res: ServerResponse, code: number, value: unknown, headers: Record<string, string>): void {
  const chunks = encodeYamlChunks(value, YAML_CHUNK_CHARS);
  const first = chunks.next();
  const firstText = first.done ? '' : first.value;
  const second = chunks.next();
  if (second.done) {
    res.writeHead(code, {
      'Content-Type': YAML_MEDIA_TYPE,
      'Content-Length': String(Buffer.byteLength(firstText)),
      ...headers,
    });
    res.end(firstText);
    return;
  }
  res.writeHead(code, { 'Content-Type': YAML_MEDIA_TYPE, ...headers });
  res.write(firstText);
  let pending: string | undefined = second.value;
  const pump = (): void => {
    if (res.destroyed) return;
    if (pending === undefined) {
      const next = chunks.next();
      if (next.done) {
        res.end();
        return;
      }
      pending = next.value;
    }
    const ok = res.write(pending);
    pending = undefined;
    if (ok) setImmediate(pump);
    else res.once('drain', pump);
  };
  setImmediate(pump);
}

/**
 * A document in the media type the handler negotiated before it began (output.ts): protobuf only
 * for what has an encoding, JSON otherwise.
 */
export function sendJson(
  res: ServerResponse,
  code: number,
  value: unknown,
  mediaType: ReplyMediaType,
  headers: Record<string, string> = {},
): void {
  send(res, code, value, headers, mediaType);
}

/**
 * ErrorNegotiated's own negotiation: the resource serializers without conversions
 * (DefaultEndpointRestrictions), so that a Table clause does not stand for a Status; JSON when
 * nothing in Accept is served. An error may come before any handler negotiated, or from that
 * negotiation itself.
 */
function errorMediaType(res: ServerResponse): ReplyMediaType {
  // Unit tests hand in bare responses; a real one always knows its request.
  const accept = (res.req as ServerResponse['req'] | undefined)?.headers.accept;
  return (
    negotiateMediaTypeOptions(accept, SERVED, defaultEndpointRestrictions)?.accepted.mediaType ?? 'application/json'
  );
}

/**
 * An error as kube's Status (ErrorNegotiated: with a Retry-After header when the Status asks for a
 * retry); mid-stream there is no status left to send, so the connection is cut.
 */
export function writeStatus(res: ServerResponse, err: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const retryAfter = err.status.details?.retryAfterSeconds;
  send(
    res,
    err.code,
    err.status,
    retryAfter && retryAfter > 0 ? { 'Retry-After': String(retryAfter) } : {},
    errorMediaType(res),
  );
}
