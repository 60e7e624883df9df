// Writing answers: documents and kube's Status for errors, the one place each is written (the front
// door, the API and the REST verbs all answer through here). A document goes out as JSON, or as
// kube's protobuf when the request's Accept header prefers it and the kind has an encoding (built-in
// kinds, their lists, Status, PartialObjectMetadata); custom resources and Tables stay JSON, as kube's.
import type { ServerResponse } from 'node:http';
import type { ApiError } from '../../apimachinery/errors.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { auditOf } from '../audit/context.js';
import { PROTOBUF_MEDIA_TYPE, negotiateOutput } from './output.js';
import { UnencodableError, canEncodeProtobuf, encodeProtobufObject } from './protobuf-encode.js';

/** Conversions with a protobuf encoding: a plain-object clause never chose them. */
const CONVERSION_KINDS = new Set(['PartialObjectMetadata', 'PartialObjectMetadataList']);

/**
 * The protobuf body for `value`, when the request prefers protobuf for it. The handler negotiated
 * already (output.ts); this repeats the same negotiation from what the reply is, so both pick the
 * same clause: a conversion was chosen over plain-object clauses, hence those are skipped here.
 */
function protobufBody(res: ServerResponse, value: unknown, conversions: boolean): Buffer | undefined {
  // Unit tests hand in bare responses; a real one always knows its request.
  const accept = (res.req as ServerResponse['req'] | undefined)?.headers.accept;
  if (!accept || !canEncodeProtobuf(value)) return undefined;
  const kind = isJsonObject(value) ? value['kind'] : undefined;
  const objectProtobuf = !(typeof kind === 'string' && CONVERSION_KINDS.has(kind));
  const negotiated = negotiateOutput(accept, { objectProtobuf, conversions });
  if (negotiated?.mediaType !== PROTOBUF_MEDIA_TYPE) return undefined;
  try {
    return encodeProtobufObject(value);
  } catch (err) {
    // A definition short of a field the object holds: JSON, which every client here also accepts,
    // rather than losing the field.
    if (err instanceof UnencodableError) return undefined;
    throw err;
  }
}

function send(res: ServerResponse, code: number, value: unknown, headers: Record<string, string>, conversions: boolean): void {
  // kube's LogResponseObject: a Status becomes the audit event's responseStatus; at RequestResponse the body is kept.
  auditOf(res)?.responseObject(value);
  const proto = protobufBody(res, value, conversions);
  const body = proto ?? stringifyJSON(value);
  const contentType = proto ? PROTOBUF_MEDIA_TYPE : 'application/json';
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

/** A document in the media type the request negotiates: JSON, or protobuf (see above). */
export function sendJson(res: ServerResponse, code: number, value: unknown, headers: Record<string, string> = {}): void {
  send(res, code, value, headers, true);
}

/** An error as kube's Status; mid-stream there is no status left to send, so the connection is cut. */
export function writeStatus(res: ServerResponse, err: ApiError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  send(res, err.code, err.status, {}, false);
}
