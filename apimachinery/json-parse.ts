// A strict JSON parser (RFC 8259) for request bodies that returns what JSON.parse returns and,
// beside it, what kube-apiserver's decoder (sigs.k8s.io/json, Go's encoding/json underneath) knows
// and JSON.parse forgets:
//
// - duplicateFields: the paths of object keys seen twice, as the strict decoder reports them
//   (`duplicate field "<path>"`): keys joined with "." — map keys too, the decoder has no schema —
//   and list indexes as `[i]`: `spec.size`, `spec.items[0].name`, `[0].a` under a top-level array.
//   The last value wins (Go and JSON.parse agree; the key keeps its first position, as JSON.parse).
//   Each path is listed once, in the order the second occurrences appear, and the first 100 only:
//   kube's decoder dedupes its strict errors by text and keeps at most 100. Telling a duplicate
//   from one reported costs its key, not its depth (a trie of path pieces); a path's text is made
//   only for those reported.
// - floatLiterals: where the numbers are that kube decodes as float64 rather than int64: written
//   with a fraction or an exponent (`1.0`, `1e3`), or integers outside int64 (a trie, O(1) a
//   literal whatever its depth: float-literals.ts). So a validator can tell `1.0` (not an integer
//   for kube) from `1`.
//
// Numbers are JS numbers, as JSON.parse gives, except with `int64: true`: then an integer literal
// beyond 2^53 that fits int64 is a bigint, exact, as kube's decoder keeps it (int64); without the
// option it rounds. A literal that overflows float64 (`1e400`) is an error, as in Go (`json:
// cannot unmarshal number 1e400 into Go value of type float64`), where JSON.parse gives Infinity.
// Strings are JSON.parse's: an escaped lone surrogate (`"\ud800"`) is kept as is, where Go
// substitutes U+FFFD.
//
// Errors are JsonSyntaxError (a SyntaxError) with Go's messages (`invalid character 'x' looking
// for beginning of value`, `unexpected end of JSON input`, ...) and Go's byte offset (bytes read up
// to and including the offending byte, as encoding/json's SyntaxError.Offset), plus the UTF-16
// index, line and column of the offending character for the caller's message.
//
// The parser is iterative (an explicit stack), so depth costs no call stack; the nesting limit is
// Go's (10000, `exceeded max depth`) unless maxDepth says otherwise. Its state lives outside the
// loop, so a parse can stop between two values and go on later: parseJsonExactTask, which a
// request's body is parsed with, pauses every 1,024 values (200,000 map keys are 0.2 to 0.4 s of
// work, most of it V8 adding the keys to one object: JSON.parse takes as long).

import { FLOAT, FloatLiterals, FloatNode } from './float-literals.js';
import { INT64_MAX, INT64_MIN } from './int64.js';
import { setOwn } from './object.js';
import { PAUSE_EVERY, pause, type Task } from './structured-merge/trampoline.js';

interface ParseResult {
  value: unknown;
  duplicateFields: string[];
  floatLiterals: FloatLiterals;
}

interface ParseOptions {
  /** Deepest nesting of arrays and objects accepted; Go's encoding/json allows 10000. */
  maxDepth?: number;
  /** Integers beyond 2^53 within int64 as exact bigints (JS numbers would round them). */
  int64?: boolean;
  /**
   * The text's UTF-8 bytes, when every one is ASCII (one byte per character): strings are then
   * copied out of them rather than sliced from the text. V8's slices keep their whole text alive,
   * so a value that outlives its request (the watch cache keeps a create's object) would keep the
   * request's body with it.
   */
  asciiBytes?: Buffer;
}

export class JsonSyntaxError extends SyntaxError {
  /** Bytes of UTF-8 read when the error was found, as Go's SyntaxError.Offset. */
  readonly offset: number;
  /** UTF-16 index of the offending character in the text (text.length at end of input). */
  readonly index: number;
  /** 1-based line of the offending character. */
  readonly line: number;
  /** 1-based column of the offending character, in Unicode characters. */
  readonly column: number;

  constructor(message: string, text: string, index: number) {
    super(message);
    this.name = 'JsonSyntaxError';
    this.index = index;
    const before = text.slice(0, index);
    this.offset = Buffer.byteLength(before, 'utf8') + (index < text.length ? 1 : 0);
    const lineStart = before.lastIndexOf('\n') + 1;
    let line = 1;
    for (let i = before.indexOf('\n'); i !== -1; i = before.indexOf('\n', i + 1)) line++;
    this.line = line;
    this.column = codePoints(before, lineStart) + 1;
  }
}

/** The code points of text[from:], a pair of surrogates counting once: a loop, not a spread (a line may be megabytes). */
function codePoints(text: string, from: number): number {
  let n = 0;
  for (let k = from; k < text.length; k++, n++) {
    const u = text.charCodeAt(k);
    if (u >= 0xd800 && u <= 0xdbff) {
      const next = text.charCodeAt(k + 1);
      if (next >= 0xdc00 && next <= 0xdfff) k++;
    }
  }
  return n;
}

const DEFAULT_MAX_DEPTH = 10000;

// Character codes.
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const ZERO = 48;
const NINE = 57;

/** Go's quoteChar of the byte at text[i] (non-ASCII: the first byte of its UTF-8, as Go does). */
function goQuoteChar(text: string, i: number): string {
  const cp = text.codePointAt(i)!;
  let b: number;
  if (cp < 0x80) b = cp;
  else if (cp < 0x800) b = 0xc0 | (cp >> 6);
  else if (cp < 0x10000) b = 0xe0 | (cp >> 12);
  else b = 0xf0 | (cp >> 18);
  if (b === 0x27) return `'\\''`;
  if (b === 0x22) return `'"'`;
  if (b >= 0x80) return `'${String.fromCharCode(b)}'`; // U+00C2..U+00F4: printable letters in Go
  if (b >= 0x20 && b < 0x7f) return b === 0x5c ? `'\\\\'` : `'${String.fromCharCode(b)}'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };
  return `'${named[b] ?? `\\x${b.toString(16).padStart(2, '0')}`}'`;
}

const hexVal = (c: number): number => {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
};

type Container = Record<string, unknown> | unknown[];

function fail(text: string, context: string, at: number): never {
  if (at >= text.length) throw new JsonSyntaxError('unexpected end of JSON input', text, text.length);
  throw new JsonSyntaxError(`invalid character ${goQuoteChar(text, at)} ${context}`, text, at);
}

// Out-parameters of the scanners below (one parse runs at a time: JS is single-threaded and the
// scanners never call back into user code).
let scanEnd = 0;
let scanFloat = false;
let scanInt64 = false;
let scanBytes: Buffer | undefined;

/** V8 slices a string of this many characters or more (SlicedString::kMinLength); shorter ones are copies. */
const MIN_SLICE = 13;

/** text[start:end] as a string of its own, when the text's ASCII bytes are at hand (ParseOptions.asciiBytes). */
function cut(text: string, start: number, end: number): string {
  return scanBytes !== undefined && end - start >= MIN_SLICE
    ? scanBytes.toString('latin1', start, end)
    : text.slice(start, end);
}

/** What ends a string's plain run: its closing quote, an escape, or a control character (an error). */
const STRING_STOP = /["\\\x00-\x1f]/g;

/** Characters looked at one by one before STRING_STOP takes over: most keys and values are shorter. */
const SHORT_RUN = 16;

/**
 * The index of the first quote, backslash or control character at or after `from` (text.length if
 * none). Past the first few characters, found by the regular expression engine's compiled loop,
 * several times faster than charCodeAt's over the long strings (descriptions) of real objects, but
 * dearer to start.
 */
function stringStop(text: string, from: number): number {
  const end = Math.min(from + SHORT_RUN, text.length);
  for (let j = from; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c === QUOTE || c === BACKSLASH || c < 32) return j;
  }
  if (end === text.length) return end;
  STRING_STOP.lastIndex = end;
  return STRING_STOP.test(text) ? STRING_STOP.lastIndex - 1 : text.length;
}

/** Scans the string whose opening quote is at `q`; sets scanEnd after the closing quote. */
function scanString(text: string, q: number): string {
  const n = text.length;
  const start = q + 1;
  let j = stringStop(text, start);
  if (j >= n) fail(text, '', n);
  if (text.charCodeAt(j) === QUOTE) {
    scanEnd = j + 1;
    return cut(text, start, j);
  }
  // Slow path: escapes.
  let out = cut(text, start, j);
  let run = j;
  for (;;) {
    if (j >= n) fail(text, '', n);
    const c = text.charCodeAt(j);
    if (c === QUOTE) {
      scanEnd = j + 1;
      return out + cut(text, run, j);
    }
    if (c < 32) fail(text, 'in string literal', j);
    if (c !== BACKSLASH) {
      j = stringStop(text, j);
      continue;
    }
    out += cut(text, run, j);
    j++;
    const e = text.charCodeAt(j);
    switch (e) {
      case QUOTE:
        out += '"';
        break;
      case BACKSLASH:
        out += '\\';
        break;
      case 47:
        out += '/';
        break;
      case 98:
        out += '\b';
        break;
      case 102:
        out += '\f';
        break;
      case 110:
        out += '\n';
        break;
      case 114:
        out += '\r';
        break;
      case 116:
        out += '\t';
        break;
      case 117: {
        let u = 0;
        for (let k = 1; k <= 4; k++) {
          const h = hexVal(text.charCodeAt(j + k));
          if (h < 0) fail(text, 'in \\u hexadecimal character escape', j + k);
          u = u * 16 + h;
        }
        out += String.fromCharCode(u);
        j += 4;
        break;
      }
      default:
        fail(text, 'in string escape code', j);
    }
    j++;
    run = j;
  }
}

// Exact powers of ten as doubles (10^0 .. 10^22).
const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

/**
 * Scans the number starting at `start`; sets scanEnd after it and scanFloat. The value is the
 * correctly rounded double, as JSON.parse's: when the literal has at most 15 digits and a decimal
 * exponent within ±22, digits and power of ten are exact doubles and one division or
 * multiplication rounds correctly (Clinger's fast path); otherwise Number() converts the text.
 */
function scanNumber(text: string, start: number): number | bigint {
  let i = start;
  let c = text.charCodeAt(i);
  const neg = c === MINUS;
  if (neg) c = text.charCodeAt(++i);
  let m = 0; // the digits, as long as there are at most 15
  let digits = 0;
  if (c === ZERO) {
    c = text.charCodeAt(++i);
    digits = 1;
  } else if (c > ZERO && c <= NINE) {
    do {
      m = m * 10 + (c - ZERO);
      digits++;
      c = text.charCodeAt(++i);
    } while (c >= ZERO && c <= NINE);
  } else {
    fail(text, 'in numeric literal', i);
  }
  let isFloat = false;
  let exp = 0;
  if (c === DOT) {
    isFloat = true;
    c = text.charCodeAt(++i);
    if (!(c >= ZERO && c <= NINE)) fail(text, 'after decimal point in numeric literal', i);
    do {
      m = m * 10 + (c - ZERO);
      digits++;
      exp--;
      c = text.charCodeAt(++i);
    } while (c >= ZERO && c <= NINE);
  }
  if (c === 101 || c === 69) {
    isFloat = true;
    c = text.charCodeAt(++i);
    let expNeg = false;
    if (c === PLUS || c === MINUS) {
      expNeg = c === MINUS;
      c = text.charCodeAt(++i);
    }
    if (!(c >= ZERO && c <= NINE)) fail(text, 'in exponent of numeric literal', i);
    let e = 0;
    do {
      if (e < 100000) e = e * 10 + (c - ZERO);
      c = text.charCodeAt(++i);
    } while (c >= ZERO && c <= NINE);
    exp += expNeg ? -e : e;
  }
  scanEnd = i;
  let v: number;
  if (digits <= 15 && exp >= -22 && exp <= 22) {
    v = exp < 0 ? m / POW10[-exp]! : exp > 0 ? m * POW10[exp]! : m;
    if (neg) v = -v;
  } else {
    const lit = text.slice(start, i);
    v = +lit;
    if (v === Infinity || v === -Infinity) {
      throw new JsonSyntaxError(`json: cannot unmarshal number ${lit} into Go value of type float64`, text, start);
    }
    if (!isFloat && digits > 18) {
      const big = BigInt(lit);
      if (big > INT64_MAX || big < INT64_MIN) isFloat = true;
    }
    if (scanInt64 && !isFloat && !Number.isSafeInteger(v)) {
      scanFloat = false;
      return BigInt(lit);
    }
  }
  scanFloat = isFloat;
  return v;
}

/** Checks the literal `word` at i (its first character already matched); returns its end. */
function scanLiteral(text: string, i: number, word: string): number {
  for (let k = 1; k < word.length; k++) {
    if (text.charCodeAt(i + k) !== word.charCodeAt(k)) fail(text, `in literal ${word} (expecting '${word[k]}')`, i + k);
  }
  return i + word.length;
}

/**
 * A parse under way: its position, its open containers (and keys) and its findings, kept out of
 * closures so the hot loop's locals stay in registers, and so that a parse can stop between two
 * values and resume later (parseJsonExactTask).
 */
interface State {
  text: string;
  maxDepth: number;
  int64: boolean;
  asciiBytes: Buffer | undefined;
  /** Where the next value starts (after whitespace), below `depth` open containers. */
  i: number;
  depth: number;
  conts: Container[];
  isArr: boolean[];
  keys: string[];
  /** The path node of each open container, made when a duplicate key below it is first found. */
  pathNodes: (PathNode | undefined)[];
  duplicateFields: string[] | undefined;
  /** The float node of each open container, made when a float literal below it is first found. */
  floatNodes: (FloatNode | undefined)[];
  floatLiterals: FloatLiterals;
}

/**
 * A path text as a trie of its pieces, cut before each "." and "[": equal texts are one node,
 * however the keys that make them were split (`{"a.b":{..}}` and `{"a":{"b":{..}}}`), so a
 * duplicate is told from one already reported in O(its key) rather than O(its depth) (Go's
 * strictFieldStack, joined for every duplicate, which a deep body turns into seconds).
 */
class PathNode {
  private below: Map<string, PathNode> | undefined;
  /** Its text is among duplicateFields. */
  reported = false;
  private memo: string | undefined;
  constructor(
    private readonly parent: PathNode | undefined,
    private readonly piece: string,
  ) {}

  /** The node of this text followed by `text`. */
  descend(text: string): PathNode {
    let node: PathNode = this;
    let start = 0;
    for (let j = 1; j <= text.length; j++) {
      const c = text.charCodeAt(j);
      if (j < text.length && c !== DOT && c !== LBRACKET) continue;
      const piece = text.slice(start, j);
      node.below ??= new Map();
      let next = node.below.get(piece);
      if (!next) node.below.set(piece, (next = new PathNode(node, piece)));
      node = next;
      start = j;
    }
    return node;
  }

  /**
   * Its text, each node's kept: the texts of reported paths share their prefixes (V8's cons
   * strings) rather than each copying its own, which for 100 paths deep down is 100 bodies.
   */
  get text(): string {
    if (this.memo !== undefined) return this.memo;
    const up: PathNode[] = [];
    let n: PathNode | undefined = this;
    for (; n && n.memo === undefined; n = n.parent) up.push(n);
    let text = n?.memo ?? '';
    for (let i = up.length - 1; i >= 0; i--) up[i]!.memo = text = text + up[i]!.piece;
    return text;
  }
}

/** kube's decoder keeps at most 100 strict errors (sigs.k8s.io/json's saveStrictError). */
const MAX_DUPLICATES = 100;

/** The path node of the open container at `d`, made (with its ancestors') on first need: each once. */
function pathNode(st: State, d: number): PathNode {
  const nodes = st.pathNodes;
  let known = d;
  while (nodes[known] === undefined) known--;
  for (let k = known + 1; k <= d; k++) nodes[k] = nodes[k - 1]!.descend(pieceAt(st, k - 1));
  return nodes[d]!;
}

/** The text the next value of the open container at `d` adds to its path: `[i]`, `.key`, or a top-level key. */
function pieceAt(st: State, d: number): string {
  if (st.isArr[d]) return `[${(st.conts[d] as unknown[]).length}]`;
  return d === 0 ? st.keys[d]! : `.${st.keys[d]}`;
}

/** Records the number being parsed below the `depth` open containers as a float literal. */
function addFloat(st: State, depth: number): void {
  if (depth === 0) {
    st.floatLiterals.root = FLOAT;
    return;
  }
  const d = depth - 1;
  floatNode(st, d).below.set(keyAt(st, d), FLOAT);
}

/** The key (a list's index as a string) the next value of the open container at `d` goes under. */
function keyAt(st: State, d: number): string {
  return st.isArr[d] ? String((st.conts[d] as unknown[]).length) : st.keys[d]!;
}

/** The float node of the open container at `d`, made (with its ancestors') on first need: each once. */
function floatNode(st: State, d: number): FloatNode {
  const nodes = st.floatNodes;
  let known = d;
  while (known >= 0 && nodes[known] === undefined) known--;
  for (let k = known + 1; k <= d; k++) {
    const node = new FloatNode(st.isArr[k]!);
    if (k === 0) st.floatLiterals.root = node;
    else nodes[k - 1]!.below.set(keyAt(st, k - 1), node);
    nodes[k] = node;
  }
  return nodes[d]!;
}

// Recently seen object keys by a hash of length and end characters: a key found again is reused
// rather than sliced anew (an internalized string: less garbage, faster property stores). Emptied
// after every parse, so that no key (a slice of the text) keeps a request body alive.
const keyCache: (string | undefined)[] = new Array(1024);

/** Scans an object key at `q` (its opening quote), as scanString, reusing cached keys. */
function scanKey(text: string, q: number): string {
  const start = q + 1;
  const j = stringStop(text, start);
  if (j >= text.length || text.charCodeAt(j) !== QUOTE) return scanString(text, q);
  scanEnd = j + 1;
  const len = j - start;
  if (len === 0) return '';
  const h = (len * 31 + text.charCodeAt(start) * 7 + text.charCodeAt(j - 1)) & 1023;
  const cached = keyCache[h];
  if (cached !== undefined && cached.length === len && text.startsWith(cached, start)) return cached;
  const key = text.slice(start, j);
  keyCache[h] = key;
  return key;
}

/** Reads the object key at i into keys[depth-1], records a duplicate, consumes the ':'; returns the next index. */
function readKey(text: string, i: number, st: State, depth: number, obj: Record<string, unknown>): number {
  if (text.charCodeAt(i) !== QUOTE) fail(text, 'looking for beginning of object key string', i);
  const key = scanKey(text, i);
  i = scanEnd;
  st.keys[depth - 1] = key;
  if (obj[key] !== undefined && Object.hasOwn(obj, key) && (st.duplicateFields?.length ?? 0) < MAX_DUPLICATES) {
    const node = pathNode(st, depth - 1).descend(pieceAt(st, depth - 1));
    if (!node.reported) {
      node.reported = true;
      (st.duplicateFields ??= []).push(node.text);
    }
  }
  let c = text.charCodeAt(i);
  while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++i);
  if (c !== COLON) fail(text, 'after object key', i);
  return i + 1;
}

/** Values parsed between two pauses of parseJsonExactTask: a millisecond or so. */
const VALUES_PER_STEP = PAUSE_EVERY;

/** Parses `text` strictly; see the module comment for what comes back. */
export function parseJsonExact(text: string, opts: ParseOptions = {}): ParseResult {
  return advance(begin(text, opts), Infinity)!;
}

/**
 * parseJsonExact as a task that pauses every VALUES_PER_STEP values, for a request's body: run
 * sliced, a 3 MiB body gives the event loop way as it is parsed (the same result, the same errors).
 */
export function* parseJsonExactTask(text: string, opts: ParseOptions = {}): Task<ParseResult> {
  const st = begin(text, opts);
  for (;;) {
    const done = advance(st, VALUES_PER_STEP);
    if (done) return done;
    yield pause();
  }
}

function begin(text: string, opts: ParseOptions): State {
  return {
    text,
    maxDepth: opts.maxDepth ?? DEFAULT_MAX_DEPTH,
    int64: opts.int64 === true,
    asciiBytes: opts.asciiBytes,
    i: 0,
    depth: 0,
    conts: [],
    isArr: [],
    keys: [],
    pathNodes: [new PathNode(undefined, '')],
    duplicateFields: undefined,
    floatNodes: [],
    floatLiterals: new FloatLiterals(),
  };
}

/** Parses on from where `st` stopped: the result once the text ends, or undefined after `values` more values. */
function advance(st: State, values: number): ParseResult | undefined {
  scanInt64 = st.int64;
  scanBytes = st.asciiBytes;
  try {
    return parseValues(st, values);
  } finally {
    // Parses interleave when sliced: no key is kept from one step to another's.
    keyCache.fill(undefined);
    scanInt64 = false;
    scanBytes = undefined;
  }
}

function parseValues(st: State, values: number): ParseResult | undefined {
  const { text, maxDepth, conts, isArr, keys, pathNodes, floatNodes } = st;
  const n = text.length;
  let i = st.i;
  let c = 0;
  let depth = st.depth;
  let left = values;

  let value: unknown;
  for (;;) {
    // A value starts at i (after whitespace).
    if (left-- === 0) {
      st.i = i;
      st.depth = depth;
      return undefined;
    }
    c = text.charCodeAt(i);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++i);
    if (c === QUOTE) {
      value = scanString(text, i);
      i = scanEnd;
    } else if (c === LBRACE || c === LBRACKET) {
      if (depth >= maxDepth)
        throw new JsonSyntaxError(`invalid character ${goQuoteChar(text, i)} exceeded max depth`, text, i);
      const arr = c === LBRACKET;
      const cont: Container = arr ? [] : {};
      if (depth > 0) pathNodes[depth] = undefined;
      floatNodes[depth] = undefined;
      conts[depth] = cont;
      isArr[depth] = arr;
      depth++;
      c = text.charCodeAt(++i);
      while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++i);
      if (c === (arr ? RBRACKET : RBRACE)) {
        i++;
        depth--;
        value = cont;
      } else {
        if (!arr) i = readKey(text, i, st, depth, cont as Record<string, unknown>);
        continue;
      }
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      value = scanNumber(text, i);
      i = scanEnd;
      if (scanFloat) addFloat(st, depth);
    } else if (c === 116) {
      i = scanLiteral(text, i, 'true');
      value = true;
    } else if (c === 102) {
      i = scanLiteral(text, i, 'false');
      value = false;
    } else if (c === 110) {
      i = scanLiteral(text, i, 'null');
      value = null;
    } else fail(text, 'looking for beginning of value', i);

    // A value is complete: hand it to its container, closing containers as they end.
    for (;;) {
      c = text.charCodeAt(i);
      while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++i);
      if (depth === 0) {
        if (i < n) fail(text, 'after top-level value', i);
        return { value, duplicateFields: st.duplicateFields ?? [], floatLiterals: st.floatLiterals };
      }
      const top = depth - 1;
      const cont = conts[top]!;
      if (isArr[top]) {
        (cont as unknown[]).push(value);
        if (c === COMMA) {
          i++;
          break;
        }
        if (c !== RBRACKET) fail(text, 'after array element', i);
      } else {
        const k = keys[top]!;
        if (k === '__proto__') setOwn(cont as Record<string, unknown>, k, value);
        else (cont as Record<string, unknown>)[k] = value;
        if (c === COMMA) {
          c = text.charCodeAt(++i);
          while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++i);
          i = readKey(text, i, st, depth, cont as Record<string, unknown>);
          break;
        }
        if (c !== RBRACE) fail(text, 'after object key:value pair', i);
      }
      i++;
      depth--;
      value = cont;
    }
  }
}
