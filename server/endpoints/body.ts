// Reading and decoding request bodies: a size cap (kube's 3 MiB), JSON or YAML or kube protobuf,
// kube's nesting cap, and a 4xx Status with the position for anything malformed, never a 500.
import { isAscii } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { badRequest, requestEntityTooLarge, unsupportedMediaType } from '../../apimachinery/errors.js';
import { decodeProtobufObject } from '../codecs/protobuf.js';
import { DecoderError, transformDecodeError } from '../codecs/decode-error.js';
import { JsonSyntaxError, parseJsonExactTask } from '../../apimachinery/json-parse.js';
import { FloatLiterals } from '../../apimachinery/float-literals.js';
import { runSliced } from '../registry/give-way.js';
import { parseMediaType } from './negotiate.js';
import { YamlDecodeError, decodeYaml } from '../codecs/yaml-decode.js';
import { deeperThan, typeMetaError } from '../../apimachinery/json.js';

/**
 * kube's decoders take documents nested up to 10,000 deep (Go's encoding/json scanner, which
 * sigs.k8s.io/json inherits: `invalid character '{' exceeded max depth`; go-yaml's max_flow_level
 * and max_indents: `exceeded max depth of 10000`). Whatever walks a decoded object must therefore
 * not recurse on the call stack.
 */
const MAX_NESTING_DEPTH = 10000;

/**
 * The body, refused with a 413 past `limit` bytes (kube's MaxRequestBodyBytes,
 * --max-resource-write-bytes). Read by events, not async iteration: leaving an iteration early
 * destroys the request and its socket, and the client would get a reset instead of the 413.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.reject(requestEntityTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      done();
      reject(requestEntityTooLarge(limit));
    };
    const onEnd = (): void => {
      done();
      resolve(Buffer.concat(chunks));
    };
    // The client went away mid-body: nobody reads the answer, but it is not our 500.
    const onError = (err: Error): void => {
      done();
      reject(badRequest(`the request body could not be read: ${err.message}`));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** A decoded body, with what strict decoding and number typing need to know about its text. */
export interface DecodedBody {
  value: unknown;
  /** Paths of keys given twice (the last one wins), for fieldValidation. */
  duplicateFields: string[];
  /** Paths of numbers written with a fraction or exponent: `1.0` is not an integer to kube. */
  floatLiterals: FloatLiterals;
  /**
   * Strings of `value` may be slices of the body's text, which keep all of it alive (WriteContext
   * slicesBody). Not so for an ASCII JSON body (most are: 101 of the real-world corpus's 112
   * CRDs) nor a protobuf one.
   */
  slicesBody: boolean;
}

/**
 * A body's JSON parsed sliced: a 3 MiB body of 200,000 keys is 0.2 to 0.4 s of work, which gives
 * way as it goes. An ASCII body's strings are copied out of its bytes, not sliced from its text.
 */
async function parseBodyJson(body: Buffer, int64: boolean, text = body.toString('utf8')): Promise<DecodedBody> {
  const ascii = isAscii(body);
  const parsed = await runSliced(
    parseJsonExactTask(text, {
      maxDepth: MAX_NESTING_DEPTH,
      int64,
      ...(ascii ? { asciiBytes: body } : {}),
    }),
  );
  return { ...parsed, slicesBody: !ascii };
}

/**
 * JSON with Go's error texts, and the position people need to find the mistake; with `int64`,
 * integers beyond 2^53 that fit int64 come back as exact bigints. `text`: the body decoded, when
 * the caller has it already.
 */
export async function parseJson(body: Buffer, int64 = false, text?: string): Promise<DecodedBody> {
  try {
    return await parseBodyJson(body, int64, text);
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
    throw badRequest(`the request body is not valid JSON at line ${err.line}, column ${err.column}: ${err.message}`);
  }
}

/** Line and column of a character offset, for error messages people can act on. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/**
 * The first document of a YAML body (kube decodes only that one), with kube's depth limits; with
 * `int64`, integers beyond 2^53 that fit int64 come back as exact bigints.
 */
export async function parseYaml(text: string, int64 = false): Promise<unknown> {
  try {
    return await decodeYaml(text, int64);
  } catch (err) {
    if (!(err instanceof YamlDecodeError)) throw err;
    const where = err.offset === undefined ? '' : ` at ${position(text, err.offset)}`;
    throw badRequest(`the request body is not valid YAML${where}: ${err.message}`);
  }
}

/** Throws a 400 when a decoded document nests deeper than MAX_NESTING_DEPTH. */
function checkDepth(value: unknown): void {
  if (deeperThan(value, MAX_NESTING_DEPTH))
    throw badRequest(`the request body nests deeper than ${MAX_NESTING_DEPTH} levels`);
}

/**
 * What a 415 lists: every serializer the resource's NegotiatedSerializer has. Custom resources list
 * protobuf too (apiextensions' unstructuredNegotiatedSerializer), though they cannot decode it.
 */
const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/**
 * Decodes an object body by its Content-Type, as kube's NegotiateInputSerializer picks the decoder:
 * no Content-Type means JSON (the first serializer); otherwise it must parse as a media type (Go's
 * mime.ParseMediaType) whose type, parameters aside, is exactly one served. Anything else, an
 * unparsable value included, is a 415. With `int64`, integers beyond 2^53 that fit int64 come back
 * as exact bigints.
 */
export async function decodeObjectBody(
  body: Buffer,
  contentType: string | undefined,
  allowProtobuf: boolean,
  int64 = false,
  into?: string,
): Promise<DecodedBody> {
  const type = contentType ? parseMediaType(contentType)?.type : 'application/json';
  try {
    if (type === 'application/json')
      return into === undefined ? await parseJson(body, int64) : withTypeMeta(await interpretJson(body, int64));
    if (type === 'application/yaml') {
      const decoded = plain(await parseYaml(body.toString('utf8'), int64), true);
      return into === undefined ? decoded : withTypeMeta(decoded);
    }
    if (allowProtobuf && type === 'application/vnd.kubernetes.protobuf') {
      const decoded = plain(decodeProtobufObject(body), false);
      checkDepth(decoded.value);
      return decoded;
    }
  } catch (err) {
    if (!(err instanceof DecoderError)) throw err;
    throw into === undefined ? badRequest(err.message) : transformDecodeError(into, err, body);
  }
  throw unsupportedMediaType(OBJECT_MEDIA_TYPES);
}

/** JSON text, whose syntax errors end kube's decoder where it reads apiVersion and kind (meta.Interpret). */
async function interpretJson(body: Buffer, int64: boolean): Promise<DecodedBody> {
  try {
    return await parseBodyJson(body, int64);
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
    throw new DecoderError(`couldn't get version/kind; json parse error: ${err.message}`);
  }
}

/**
 * meta.Interpret's encoding/json view of a document (JSON, or YAML converted to it): an object, or
 * null, whose apiVersion and kind, if there, are strings; its first type error otherwise.
 */
function withTypeMeta(decoded: DecodedBody): DecodedBody {
  const err = typeMetaError(decoded.value);
  if (err !== undefined) throw new DecoderError(err);
  return decoded;
}

/** YAML refuses duplicate keys itself, and its numbers' spelling is not kept: nothing to report. */
const plain = (value: unknown, slicesBody: boolean): DecodedBody => ({
  value,
  duplicateFields: [],
  floatLiterals: new FloatLiterals(),
  slicesBody,
});
