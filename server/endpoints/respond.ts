// Writing answers: documents and kube's Status for errors, the one place each is written (the front
// door, the API and the REST verbs all answer through here). A document goes out as JSON; as YAML
// (kube's sigs.k8s.io/yaml shape) when the request's Accept header prefers it; or as kube's protobuf
// when the Accept header prefers that and the kind has an encoding (built-in kinds, their lists,
// Status, PartialObjectMetadata); custom resources and Tables stay JSON there, as kube's.
import type { ServerResponse } from 'node:http';
import type { ApiError } from '../../apimachinery/errors.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { auditOf } from '../audit/context.js';
import { PROTOBUF_MEDIA_TYPE, type ReplyMediaType, YAML_MEDIA_TYPE, negotiateOutput } from './output.js';
import { UnencodableError, canEncodeProtobuf, encodeProtobufObject } from './protobuf-encode.js';
import { encodeYamlChunks } from './yaml-encode.js';

/** Conversions with a protobuf encoding: a plain-object clause never chose them. */
const CONVERSION_KINDS = new Set(['PartialObjectMetadata', 'PartialObjectMetadataList']);

/**
 * The media type the request prefers for `value`. The handler negotiated already (output.ts); this
 * repeats the same negotiation from what the reply is, so both pick the same clause: a conversion
 * was chosen over plain-object clauses, hence those are skipped here.
 */
function replyMediaType(res: ServerResponse, value: unknown, conversions: boolean): ReplyMediaType {
  // Unit tests hand in bare responses; a real one always knows its request.
  const accept = (res.req as ServerResponse['req'] | undefined)?.headers.accept;
  if (!accept) return 'application/json';
  const kind = isJsonObject(value) ? value['kind'] : undefined;
  // A kind without an encoding (custom resources, Tables) was negotiated without protobuf: a
  // protobuf clause before a YAML one does not stand.
  const objectProtobuf = !(typeof kind === 'string' && CONVERSION_KINDS.has(kind)) && canEncodeProtobuf(value);
  return negotiateOutput(accept, { objectProtobuf, conversions })?.mediaType ?? 'application/json';
}

/** The protobuf body for `value`, or undefined for a kind without an encoding. */
function protobufBody(value: unknown): Buffer | undefined {
  if (!canEncodeProtobuf(value)) return undefined;
  try {
    return encodeProtobufObject(value);
  } catch (err) {
    // A definition short of a field the object holds: JSON, which every client here also accepts,
    // rather than losing the field.
    if (err instanceof UnencodableError) return undefined;
    throw err;
  }
}

/**
 * YAML is written in pieces of this many characters: go-yaml's writer in JavaScript takes a few
 * milliseconds for each, and a list of thousands of objects hundreds of milliseconds in all.
 */
const YAML_CHUNK_CHARS = 64 * 1024;

function send(res: ServerResponse, code: number, value: unknown, headers: Record<string, string>, conversions: boolean): void {
  // kube's LogResponseObject: a Status becomes the audit event's responseStatus; at RequestResponse the body is kept.
  auditOf(res)?.responseObject(value);
  const mediaType = replyMediaType(res, value, conversions);
  if (mediaType === YAML_MEDIA_TYPE) return sendYaml(res, code, value, headers);
  const proto = mediaType === PROTOBUF_MEDIA_TYPE ? protobufBody(value) : undefined;
  const body = proto ?? stringifyJSON(value);
  const contentType = proto ? PROTOBUF_MEDIA_TYPE : 'application/json';
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
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
    res.writeHead(code, { 'Content-Type': YAML_MEDIA_TYPE, 'Content-Length': String(Buffer.byteLength(firstText)), ...headers });
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

/** A document in the media type the request negotiates: JSON, YAML or protobuf (see above). */
export function sendJson(res: ServerResponse, code: number, value: unknown, headers: Record<string, string> = {}): void {
  send(res, code, value, headers, true);
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
  send(res, err.code, err.status, retryAfter && retryAfter > 0 ? { 'Retry-After': String(retryAfter) } : {}, false);
}
