// List continue tokens as kube-apiserver mints and reads them
// (k8s.io/apiserver/pkg/storage/continue.go): base64url, unpadded, of the JSON
// {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the list prefix>"}. A token is
// only checked, never trusted: a bad one is the 400 `invalid continue token: ...` that
// storage.ValidateListOptions returns, with the Go decoder's own words after it, so this file
// carries a small port of Go's base64 and encoding/json error reporting.
import { type ApiError, badRequest, internalError, resourceExpired } from '../../apimachinery/errors.js';
import { isGoPrintable } from '../../apimachinery/quote.js';
import { goEncoderText } from '../../apimachinery/go-json.js';

const TOKEN_VERSION = 'meta.k8s.io/v1';

/** Where a continued list resumes. */
export interface ContinueFrom {
  /** The full storage key to start from (inclusive). */
  startKey: string;
  /**
   * The revision to read at, so every page comes from one snapshot; undefined means the latest
   * revision (a token handed out with a 410 after its revision was compacted carries rv -1).
   */
  revision?: number;
}

/**
 * storage.EncodeContinue. `key` is the first key of the next page (kube passes the last key
 * returned plus "\x00"); it must lie under `keyPrefix`, else this is a 500 as in kube.
 */
export function encodeContinue(revision: number, key: string, keyPrefix: string): string {
  if (!key.startsWith(keyPrefix))
    throw internalError(new Error('unable to encode next field: the key and key prefix do not match'));
  const json = goEncoderText(JSON.stringify({ v: TOKEN_VERSION, rv: revision, start: key.slice(keyPrefix.length) }));
  return Buffer.from(json, 'utf8').toString('base64url');
}

const INVALID = 'continue key is not valid';

/** storage.DecodeContinue as ValidateListOptions reports it: any problem is a 400. */
export function decodeContinue(token: string, keyPrefix: string): ContinueFrom {
  const fail = (why: string): ApiError => badRequest(`invalid continue token: ${why}`);
  const data = decodeRawURLBase64(token);
  if ('error' in data) throw fail(`${INVALID}: ${data.error}`);
  const decoded = decodeToken(data.bytes);
  if ('error' in decoded) throw fail(`${INVALID}: ${decoded.error}`);
  const { v, rv, start } = decoded;
  if (v !== TOKEN_VERSION) throw fail(`${INVALID}: server does not recognize this encoded version ${v}`);
  if (rv === 0n) throw fail(`${INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  if (start === '') throw fail(`${INVALID}: encoded start key empty (version meta.k8s.io/v1)`);
  // A start key that path.Clean would change could climb out of the prefix: refuse it.
  const key = start.startsWith('/') ? start : `/${start}`;
  if (cleanRootedPath(key) !== key) throw fail(`${INVALID}: ${start}`);
  const from: ContinueFrom = { startKey: keyPrefix + key.slice(1) };
  if (rv > 0n) from.revision = Number(rv);
  return from;
}

/**
 * The 410 for a continue whose revision was compacted (etcd3 store's
 * handleCompactedErrorForPaging): kube hands back, in the Status's list metadata, a token for the
 * same key at the latest revision (rv -1), should the client accept an inconsistent list.
 */
export function continueExpired(continueKey: string, keyPrefix: string): ApiError {
  if (!continueKey.startsWith(keyPrefix)) return resourceExpired(CONTINUE_EXPIRED);
  const err = resourceExpired(INCONSISTENT_CONTINUE);
  // Status.metadata is ListMeta in kube; errors.ts types it as always empty.
  Object.assign(err.status.metadata, { continue: encodeContinue(-1, continueKey, keyPrefix) });
  return err;
}

/** The 410 for a list at an exact resourceVersion that was compacted. */
export const listExpired = (): ApiError => resourceExpired('The resourceVersion for the provided list is too old.');

const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';
const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without ' +
  'the continue parameter, or use the continue token in this response to retrieve the remainder of the results. ' +
  'Continuing with the provided token results in an inconsistent list - objects that were created, modified, or ' +
  'deleted between the time the first chunk was returned and now may show up in the list.';

// ---- base64.RawURLEncoding.DecodeString ------------------------------------------------------

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Go skips CR and LF, rejects anything else outside the alphabet, and a lone final character. */
function decodeRawURLBase64(s: string): { bytes: Buffer } | { error: string } {
  const corrupt = (at: number) => ({ error: `illegal base64 data at input byte ${at}` });
  const input = Buffer.from(s, 'utf8');
  let kept = '';
  let inQuantum = 0;
  for (let i = 0; i < input.length; i++) {
    const c = String.fromCharCode(input[i]!);
    if (c === '\r' || c === '\n') continue;
    if (!B64URL.includes(c)) return corrupt(i);
    kept += c;
    inQuantum = (inQuantum + 1) % 4;
  }
  if (inQuantum === 1) return corrupt(input.length - 1);
  return { bytes: Buffer.from(kept, 'base64url') };
}

// ---- path.Clean for rooted paths -------------------------------------------------------------

function cleanRootedPath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return `/${out.join('/')}`;
}

// ---- json.Unmarshal into continueToken -------------------------------------------------------

type JsonNode =
  | { kind: 'object'; entries: Array<[string, JsonNode]> }
  | { kind: 'array' }
  | { kind: 'string'; value: string }
  | { kind: 'number'; text: string }
  | { kind: 'bool' }
  | { kind: 'null' };

class JsonSyntaxError extends Error {}

/** Go's quoteChar for scanner errors: the byte in single quotes, escaped as strconv.Quote would. */
function quoteByte(b: number): string {
  if (b === 0x27) return `'\\''`;
  if (b === 0x22) return `'"'`;
  // Go converts the byte to the rune of the same number (Latin-1), then quotes that rune.
  const c = String.fromCharCode(b);
  if (isGoPrintable(c)) return `'${c}'`;
  const short = SHORT_BYTE_ESCAPES[b];
  if (short) return `'${short}'`;
  return b < 0x20 || b === 0x7f ? `'\\x${b.toString(16).padStart(2, '0')}'` : `'\\u${b.toString(16).padStart(4, '0')}'`;
}

const SHORT_BYTE_ESCAPES: Record<number, string> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
};
const STRING_ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

/**
 * A recursive-descent reading of the bytes that fails where Go's scanner fails, with its
 * message, and keeps what decoding needs (number literals as written, every object entry in order).
 */
class JsonReader {
  private pos = 0;
  constructor(private readonly b: Buffer) {}

  document(): JsonNode {
    this.skipSpace();
    const node = this.value();
    this.skipSpace();
    if (this.pos < this.b.length) this.fail('after top-level value');
    return node;
  }

  private fail(context: string): never {
    if (this.pos >= this.b.length) throw new JsonSyntaxError('unexpected end of JSON input');
    throw new JsonSyntaxError(`invalid character ${quoteByte(this.b[this.pos]!)} ${context}`);
  }

  private peek(): number | undefined {
    return this.b[this.pos];
  }

  private skipSpace(): void {
    while ([0x20, 0x09, 0x0a, 0x0d].includes(this.peek() ?? -1)) this.pos++;
  }

  private value(): JsonNode {
    const c = this.peek();
    if (c === 0x7b) return this.object();
    if (c === 0x5b) return this.array();
    if (c === 0x22) return { kind: 'string', value: this.string() };
    if (c === 0x2d || (c !== undefined && c >= 0x30 && c <= 0x39)) return { kind: 'number', text: this.number() };
    if (c === 0x74) return this.literal('true', { kind: 'bool' });
    if (c === 0x66) return this.literal('false', { kind: 'bool' });
    if (c === 0x6e) return this.literal('null', { kind: 'null' });
    return this.fail('looking for beginning of value');
  }

  private literal(word: string, node: JsonNode): JsonNode {
    this.pos++;
    for (const expected of word.slice(1)) {
      if (this.peek() !== expected.charCodeAt(0)) this.fail(`in literal ${word} (expecting '${expected}')`);
      this.pos++;
    }
    return node;
  }

  private object(): JsonNode {
    this.pos++;
    const entries: Array<[string, JsonNode]> = [];
    this.skipSpace();
    if (this.peek() === 0x7d) {
      this.pos++;
      return { kind: 'object', entries };
    }
    for (;;) {
      if (this.peek() !== 0x22) this.fail('looking for beginning of object key string');
      const key = this.string();
      this.skipSpace();
      if (this.peek() !== 0x3a) this.fail('after object key');
      this.pos++;
      this.skipSpace();
      entries.push([key, this.value()]);
      this.skipSpace();
      if (this.peek() === 0x7d) {
        this.pos++;
        return { kind: 'object', entries };
      }
      if (this.peek() !== 0x2c) this.fail('after object key:value pair');
      this.pos++;
      this.skipSpace();
    }
  }

  private array(): JsonNode {
    this.pos++;
    this.skipSpace();
    if (this.peek() === 0x5d) {
      this.pos++;
      return { kind: 'array' };
    }
    for (;;) {
      this.skipSpace();
      this.value();
      this.skipSpace();
      if (this.peek() === 0x5d) {
        this.pos++;
        return { kind: 'array' };
      }
      if (this.peek() !== 0x2c) this.fail('after array element');
      this.pos++;
    }
  }

  /** A string's value: escapes resolved, invalid UTF-8 and lone surrogates as U+FFFD (as Go). */
  private string(): string {
    this.pos++;
    let out = '';
    let runStart = this.pos;
    const flush = (): void => {
      out += this.b.subarray(runStart, this.pos).toString('utf8');
    };
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('in string literal');
      if (c === 0x22) {
        flush();
        this.pos++;
        return out;
      }
      if (c < 0x20) this.fail('in string literal');
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      flush();
      this.pos++;
      const e = this.peek();
      if (e !== undefined && STRING_ESCAPES[e] !== undefined) {
        out += STRING_ESCAPES[e];
        this.pos++;
      } else if (e === 0x75) {
        this.pos++;
        let code = 0;
        for (let i = 0; i < 4; i++) {
          const h = this.peek();
          const digit = h === undefined ? NaN : parseInt(String.fromCharCode(h), 16);
          if (Number.isNaN(digit)) this.fail('in \\u hexadecimal character escape');
          code = code * 16 + digit;
          this.pos++;
        }
        out += String.fromCharCode(code);
      } else {
        this.fail('in string escape code');
      }
      runStart = this.pos;
    }
  }

  private number(): string {
    const start = this.pos;
    const digit = (): boolean => {
      const c = this.peek();
      return c !== undefined && c >= 0x30 && c <= 0x39;
    };
    if (this.peek() === 0x2d) {
      this.pos++;
      if (!digit()) this.fail('in numeric literal');
    }
    if (this.peek() === 0x30) this.pos++;
    else while (digit()) this.pos++;
    if (this.peek() === 0x2e) {
      this.pos++;
      if (!digit()) this.fail('after decimal point in numeric literal');
      while (digit()) this.pos++;
    }
    if (this.peek() === 0x65 || this.peek() === 0x45) {
      this.pos++;
      if (this.peek() === 0x2b || this.peek() === 0x2d) this.pos++;
      if (!digit()) this.fail('in exponent of numeric literal');
      while (digit()) this.pos++;
    }
    return this.b.subarray(start, this.pos).toString('latin1');
  }
}

/** Lone surrogates left by \u escapes become U+FFFD, as Go's decoder makes them. */
const wellFormed = (s: string): string =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

const FIELD_TYPES = { v: 'string', rv: 'int64', start: 'string' } as const;
type TokenField = keyof typeof FIELD_TYPES;

/** json.Unmarshal(data, &continueToken{}): syntax first, then the first type mismatch. */
function decodeToken(data: Buffer): { v: string; rv: bigint; start: string } | { error: string } {
  let root: JsonNode;
  try {
    root = new JsonReader(data).document();
  } catch (err) {
    if (err instanceof JsonSyntaxError) return { error: err.message };
    // The reader recurses; a token this deep is made up, and Go's decoder would stop at 10,000 levels.
    if (err instanceof RangeError) return { error: 'exceeded max depth' };
    throw err;
  }
  const token = { v: '', rv: 0n, start: '' };
  if (root.kind === 'null') return token;
  if (root.kind !== 'object')
    return { error: `json: cannot unmarshal ${root.kind} into Go value of type storage.continueToken` };
  let firstError: string | undefined;
  const mismatch = (what: string, field: TokenField): void => {
    firstError ??= `json: cannot unmarshal ${what} into Go struct field continueToken.${field} of type ${FIELD_TYPES[field]}`;
  };
  for (const [rawKey, node] of root.entries) {
    // Go matches keys exactly first, then case-insensitively; unknown keys are ignored.
    const field = (Object.keys(FIELD_TYPES) as TokenField[]).find((f) => f === rawKey || f === rawKey.toLowerCase());
    if (!field || node.kind === 'null') continue;
    if (field === 'rv') {
      if (node.kind !== 'number') mismatch(node.kind, field);
      else if (!/^-?\d+$/.test(node.text)) mismatch(`number ${node.text}`, field);
      else {
        const n = BigInt(node.text);
        if (n > 0x7fff_ffff_ffff_ffffn || n < -0x8000_0000_0000_0000n) mismatch(`number ${node.text}`, field);
        else token.rv = n;
      }
    } else if (node.kind !== 'string') {
      mismatch(node.kind, field);
    } else {
      token[field] = wellFormed(node.value);
    }
  }
  return firstError ? { error: firstError } : token;
}
