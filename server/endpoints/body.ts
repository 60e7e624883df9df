// Reading and decoding request bodies: a size cap (kube's 3 MiB), JSON or YAML or kube protobuf,
// a nesting cap, and a 4xx Status with the position for anything malformed, never a 500.
import type { IncomingMessage } from 'node:http';
import { parseDocument } from 'yaml';
import { badRequest, requestEntityTooLarge, unsupportedMediaType } from '../errors.js';
import { decodeProtobufObject, isProtobufContentType } from './protobuf.js';
import { JsonSyntaxError, parseJsonExact } from './json-parse.js';
import { INT64_MAX, INT64_MIN } from '../int64.js';

/** kube-apiserver's default limit on a request body. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;
/** Deeper documents are refused before anything walks them recursively. */
export const MAX_NESTING_DEPTH = 1000;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    throw requestEntityTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw requestEntityTooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A decoded body, with what strict decoding and number typing need to know about its text. */
export interface DecodedBody {
  value: unknown;
  /** Paths of keys given twice (the last one wins), for fieldValidation. */
  duplicateFields: string[];
  /** Paths of numbers written with a fraction or exponent: `1.0` is not an integer to kube. */
  floatLiterals: ReadonlySet<string>;
}

/**
 * JSON with Go's error texts, and the position people need to find the mistake; with `int64`,
 * integers beyond 2^53 that fit int64 come back as exact bigints.
 */
export function parseJson(text: string, int64 = false): DecodedBody {
  try {
    return parseJsonExact(text, { maxDepth: MAX_NESTING_DEPTH, int64 });
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

export function parseYaml(text: string, int64 = false): unknown {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, intAsBigInt: int64 });
  const err = doc.errors[0];
  if (err) {
    // Without prettyErrors the parser gives offsets, not line positions.
    const where = err.linePos?.[0] ? ` at line ${err.linePos[0].line}, column ${err.linePos[0].col}` : err.pos ? ` at ${position(text, err.pos[0])}` : '';
    throw badRequest(`the request body is not valid YAML${where}: ${err.message.split('\n')[0]}`);
  }
  try {
    // Alias expansion is capped so a billion-laughs document cannot exhaust memory.
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    return int64 ? safeIntsAsNumbers(value) : value;
  } catch (e) {
    throw badRequest(`the request body is not valid YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** YAML read with every integer a bigint: numbers again where a number is exact, or beyond int64 (a float64 to kube). */
function safeIntsAsNumbers(v: unknown): unknown {
  if (typeof v === 'bigint') {
    const n = Number(v);
    return Number.isSafeInteger(n) || v < INT64_MIN || v > INT64_MAX ? n : v;
  }
  if (typeof v === 'object' && v !== null) {
    const o = v as Record<string, unknown>;
    // defineProperty, not assignment: a `__proto__` key is an own property here, not the prototype.
    for (const k of Object.keys(o)) Object.defineProperty(o, k, { value: safeIntsAsNumbers(o[k]), writable: true, enumerable: true, configurable: true });
  }
  return v;
}

/** Throws a 400 when a decoded document nests deeper than MAX_NESTING_DEPTH. */
export function checkDepth(value: unknown): void {
  // Iterative, so the check itself cannot overflow the stack.
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_NESTING_DEPTH) throw badRequest(`the request body nests deeper than ${MAX_NESTING_DEPTH} levels`);
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
}

/**
 * What a 415 lists: every serializer the resource's NegotiatedSerializer has. Custom resources list
 * protobuf too (apiextensions' unstructuredNegotiatedSerializer), though they cannot decode it.
 */
const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/**
 * Decodes an object body by its Content-Type (JSON when none is given, as kube assumes); with
 * `int64`, integers beyond 2^53 that fit int64 come back as exact bigints.
 */
export function decodeObjectBody(body: Buffer, contentType: string | undefined, allowProtobuf: boolean, int64 = false): DecodedBody {
  const type = mediaType(contentType);
  let decoded: DecodedBody;
  if (type === '' || type === 'application/json' || type === '*/*') decoded = parseJson(body.toString('utf8'), int64);
  else if (type === 'application/yaml' || type === 'text/yaml' || type === 'application/x-yaml') decoded = plain(parseYaml(body.toString('utf8'), int64));
  else if (allowProtobuf && isProtobufContentType(type)) decoded = plain(decodeProtobufObject(body));
  else throw unsupportedMediaType(OBJECT_MEDIA_TYPES);
  checkDepth(decoded.value);
  return decoded;
}

/** YAML refuses duplicate keys itself, and its numbers' spelling is not kept: nothing to report. */
const plain = (value: unknown): DecodedBody => ({ value, duplicateFields: [], floatLiterals: new Set() });
