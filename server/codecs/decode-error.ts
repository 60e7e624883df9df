// kube's answer to a body its decoder refuses (handlers/rest.go transformDecodeError): a 400 that
// names the kind the body was read as, or, when the decoder could not even read apiVersion and kind,
// the kind it had to be and a summary of what came.
import { type ApiError, badRequest } from '../../apimachinery/errors.js';
import { goQuote } from '../../apimachinery/field-errors.js';

/** A decoder's error, with the version and kind it had read from the body when it got that far. */
export class DecoderError extends Error {
  constructor(
    message: string,
    readonly gvk?: { version: string; kind: string },
  ) {
    super(message);
  }
}

/** summarizeData: an object's first 30 bytes as text, anything else's in hex, " ..." when cut. */
function summarizeData(body: Buffer, max: number): string {
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, max);
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > max ? `${text} ...` : text;
}

/** The 400 for a body that does not decode as a `into` (the resource's kind). */
export function transformDecodeError(into: string, err: DecoderError, body: Buffer): ApiError {
  if (err.gvk?.kind)
    return badRequest(
      `${err.gvk.kind} in version ${goQuote(err.gvk.version)} cannot be handled as a ${into}: ${err.message}`,
    );
  return badRequest(
    `the object provided is unrecognized (must be of type ${into}): ${err.message} (${summarizeData(body, 30)})`,
  );
}
