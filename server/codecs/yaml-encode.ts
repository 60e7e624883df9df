// YAML answers as kube writes them: its YAML serializer marshals the object to JSON and hands that
// to sigs.k8s.io/yaml's JSONToYAML, which reads the JSON with go-yaml v2 (numbers become ints,
// uints or floats) and marshals the result with go-yaml v2: map keys sorted in its natural order,
// strings quoted when they would read back as something else (numbers, booleans, null, timestamps),
// block style, sequences not indented under their key, lines folded past 80 columns. This is a port
// of the parts of go-yaml v2's encoder (encode.go, resolve.go, sorter.go) and libyaml's emitter
// (emitterc.go) that such documents reach.
import { parseJSON, stringifyJSON } from '../../apimachinery/json.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { INT64_MIN, UINT64_MAX } from '../../apimachinery/int64.js';
import { daysIn } from '../../apimachinery/validation/go-time.js';

/** The document `value` as kube's application/yaml serializer writes it. */
export function encodeYaml(value: unknown): string {
  let text = '';
  for (const chunk of encodeYamlChunks(value, Infinity)) text += chunk;
  return text;
}

/**
 * The same text in pieces of about `chunkChars` characters, each written when asked for: a large
 * list (thousands of items take hundreds of milliseconds) can go out between turns of the event loop.
 */
export function* encodeYamlChunks(value: unknown, chunkChars: number): Generator<string, void, undefined> {
  const doc = yield* asJson(value, chunkChars);
  const e = new Emitter();
  e.emitNode(doc, true, false, false);
  while (e.run(chunkChars)) yield e.take();
  e.documentEnd();
  yield e.take();
}

/**
 * `value` after a JSON round trip, which drops what JSON drops (undefined members, functions) and
 * applies toJSON. A list's items are taken one by one, with an empty piece after each `chunkChars`
 * characters of their JSON, so that a long list's round trip is split up too.
 */
function* asJson(value: unknown, chunkChars: number): Generator<string, unknown, undefined> {
  const items = isJsonObject(value) && typeof value['toJSON'] !== 'function' ? value['items'] : undefined;
  if (!Array.isArray(items)) return parseJSON(stringifyJSON(value));
  const { items: _items, ...rest } = value as Record<string, unknown>;
  const doc = parseJSON(stringifyJSON(rest)) as Record<string, unknown>;
  const out: unknown[] = [];
  let chars = 0;
  for (const item of items) {
    // As JSON.stringify writes array elements: what it would leave out is null there.
    const text = stringifyJSON(item) ?? 'null';
    out.push(parseJSON(text));
    chars += text.length;
    if (chars >= chunkChars) {
      chars = 0;
      yield '';
    }
  }
  doc['items'] = out;
  return doc;
}

// ---- scalars: what go-yaml's encoder makes of each JSON value ------------------------------------

type Style = 'plain' | 'single' | 'double' | 'literal';

interface Scalar {
  value: string;
  style: Style;
}

/**
 * A JSON number as go-yaml reads it back and writes it: integers that fit int64 or uint64 as they
 * are, anything else as a float64 in strconv.FormatFloat(f, 'g', -1, 64).
 */
function numberText(n: number | bigint): string {
  if (typeof n === 'bigint') return n.toString();
  if (Number.isInteger(n) && Math.abs(n) < 1e21) {
    // The JSON text of the number: JS writes shortest digits, zero-padded past 2^53.
    const text = String(n);
    const b = BigInt(text);
    if (b >= INT64_MIN && b <= UINT64_MAX) return text;
  }
  return formatFloatG(n);
}

/** strconv.FormatFloat(f, 'g', -1, 64), and go-yaml's .inf/.nan. */
export function formatFloatG(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa = '', expText = '0'] = Math.abs(f).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  const sign = f < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const e = Math.abs(exp);
    return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intLen = exp + 1;
  if (digits.length <= intLen) return sign + digits + '0'.repeat(intLen - digits.length);
  return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

/** go-yaml v2's resolveMap: plain words that read as booleans, null, special floats or a merge. */
const RESOLVED_WORDS = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '',
  '~',
  'null',
  'Null',
  'NULL',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
  '<<',
]);

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** Go's strconv.ParseFloat(s, 64) succeeding (decimal forms, hex floats, inf and nan words). */
function goParsesFloat(s: string): boolean {
  if (/^[+-]?(inf|infinity|nan)$/i.test(s)) return true;
  const body = s.replace(/^[+-]/, '');
  if (/^0[xX]/.test(body))
    return (
      /^0[xX](_?[0-9a-fA-F])*(\.([0-9a-fA-F](_?[0-9a-fA-F])*)?)?[pP][+-]?\d+$/.test(body) &&
      /[0-9a-fA-F]/.test(body.slice(2, body.search(/[pP]/)))
    );
  return /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(body);
}

/** Go's strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64) succeeding (underscores already gone). */
function goParsesInt(s: string): boolean {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return false;
  const sign = m[1]!;
  const body = m[2]!;
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) v = BigInt(`0o${body.slice(1)}`);
  else v = BigInt(body);
  if (sign === '-') return -v >= INT64_MIN;
  return v <= UINT64_MAX;
}

/** go-yaml v2's parseTimestamp over its allowedTimestampFormats, as time.Parse reads them. */
function isTimestamp(s: string): boolean {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-](\d{2}):(\d{2})))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?))?$/.exec(
      s,
    );
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  if (day > daysIn(month, year)) return false;
  const hour = m[4] ?? m[9];
  const min = m[5] ?? m[10];
  const sec = m[6] ?? m[11];
  if (hour !== undefined && (Number(hour) > 23 || Number(min) > 59 || Number(sec) > 59)) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  return true;
}

/** Whether go-yaml v2's resolve("", s) reads the plain scalar `s` as something other than a string. */
function resolvesToNonString(s: string): boolean {
  if (RESOLVED_WORDS.has(s)) return true;
  const c = s[0]!;
  if (c === '.') return goParsesFloat(s);
  if (c !== '+' && c !== '-' && !(c >= '0' && c <= '9')) return false;
  if (isTimestamp(s)) return true;
  const plain = s.replaceAll('_', '');
  if (goParsesInt(plain)) return true;
  if (YAML_STYLE_FLOAT.test(plain) && goParsesFloat(plain)) return true;
  if (plain.startsWith('0b')) return /^[01]+$/.test(plain.slice(2)) && BigInt(`0b${plain.slice(2)}`) <= UINT64_MAX;
  if (plain.startsWith('-0b')) return /^[01]+$/.test(plain.slice(3)) && BigInt(`0b${plain.slice(3)}`) <= -INT64_MIN;
  return false;
}

/** go-yaml v2's isBase60Float: quoted on the way out for other parsers' sake. */
function isBase60Float(s: string): boolean {
  if (s === '') return false;
  const c = s[0]!;
  if (!(c === '+' || c === '-' || (c >= '0' && c <= '9')) || !s.includes(':')) return false;
  return BASE60_FLOAT.test(s);
}

/** encoder.stringv: literal when multi-line, plain when it reads back as the string, else quoted. */
function stringScalar(s: string): Scalar {
  const canUsePlain = !resolvesToNonString(s) && !isBase60Float(s);
  return { value: s, style: s.includes('\n') ? 'literal' : canUsePlain ? 'plain' : 'double' };
}

function scalarOf(v: unknown): Scalar {
  if (v === null || v === undefined) return { value: 'null', style: 'plain' };
  if (typeof v === 'boolean') return { value: v ? 'true' : 'false', style: 'plain' };
  if (typeof v === 'number' || typeof v === 'bigint') return { value: numberText(v), style: 'plain' };
  return stringScalar(String(v));
}

// ---- key order: go-yaml v2's keyList.Less for string keys ----------------------------------------

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;
/** unicode.IsLetter and unicode.IsDigit, ASCII without a regular expression. */
function isLetter(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);
  return LETTER.test(String.fromCodePoint(cp));
}
function isDigit(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x30 && cp <= 0x39;
  return DIGIT.test(String.fromCodePoint(cp));
}

const NON_ASCII = /[^\x00-\x7f]/;

/** A string's code points (its UTF-16 units when it is ASCII, which are the same). */
function codePoints(s: string): number[] {
  const out: number[] = [];
  if (!NON_ASCII.test(s)) {
    for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i));
    return out;
  }
  for (const c of s) out.push(c.codePointAt(0)!);
  return out;
}

/** go-yaml v2's natural order of map keys: letters by code point, digit runs by their value. */
export function keyLess(a: string, b: string): boolean {
  const ar = codePoints(a);
  const br = codePoints(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]! < br[i]!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === 0x30 || br[i] === 0x30) {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== 0x30) {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = BigInt.asIntN(64, an * 10n + BigInt(ar[ai]! - 0x30));
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = BigInt.asIntN(64, bn * 10n + BigInt(br[bi]! - 0x30));
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]! < br[i]!;
  }
  return ar.length < br.length;
}

/** keyLess for two ASCII strings of letters, digits and punctuation: no arrays needed. */
function asciiKeyLess(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length < b.length;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  const xl = isLetter(x);
  const yl = isLetter(y);
  if (xl && yl) return x < y;
  if (xl || yl) return yl;
  // Digit runs: the general comparison.
  return keyLess(a, b);
}

const compareKeys = (x: string, y: string): number => {
  const less = NON_ASCII.test(x) || NON_ASCII.test(y) ? keyLess : asciiKeyLess;
  return less(x, y) ? -1 : less(y, x) ? 1 : 0;
};

/** Go's sort.Sort is not stable, but map keys are distinct, so any correct sort agrees. */
const sortKeys = (keys: string[]): string[] => keys.sort(compareKeys);

// ---- the emitter: libyaml's, for block mappings and sequences of scalars ------------------------

const BEST_INDENT = 2;
const BEST_WIDTH = 80;

const utf8Len = (cp: number): number => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
const isPrintable = (cp: number): boolean =>
  cp === 0x0a ||
  (cp >= 0x20 && cp <= 0x7e) ||
  (cp >= 0xa0 && cp <= 0xd7ff) ||
  (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff);
const isBreak = (cp: number | undefined): boolean =>
  cp === 0x0d || cp === 0x0a || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
const isSpace = (cp: number | undefined): boolean => cp === 0x20;
const isBlank = (cp: number | undefined): boolean => cp === 0x20 || cp === 0x09;
const isBlankz = (cp: number | undefined): boolean => isBlank(cp) || isBreak(cp) || cp === 0 || cp === undefined;

interface Analysis {
  multiline: boolean;
  flowPlainAllowed: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
  /** Length in bytes, as check_simple_key counts it. */
  bytes: number;
}

/** yaml_emitter_analyze_scalar. */
function analyzeScalar(cps: readonly number[]): Analysis {
  let bytes = 0;
  for (const cp of cps) bytes += utf8Len(cp);
  if (cps.length === 0) {
    return {
      multiline: false,
      flowPlainAllowed: false,
      blockPlainAllowed: true,
      singleQuotedAllowed: true,
      blockAllowed: false,
      bytes,
    };
  }
  let blockIndicators = false;
  let flowIndicators = false;
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  if (
    cps.length >= 3 &&
    ((cps[0] === 0x2d && cps[1] === 0x2d && cps[2] === 0x2d) || (cps[0] === 0x2e && cps[1] === 0x2e && cps[2] === 0x2e))
  ) {
    blockIndicators = true;
    flowIndicators = true;
  }
  let precededByWhitespace = true;
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!;
    const followedByWhitespace = i + 1 >= cps.length || isBlank(cps[i + 1]);
    if (i === 0) {
      switch (cp) {
        case 0x23:
        case 0x2c:
        case 0x5b:
        case 0x5d:
        case 0x7b:
        case 0x7d:
        case 0x26:
        case 0x2a: // # , [ ] { } & *
        case 0x21:
        case 0x7c:
        case 0x3e:
        case 0x27:
        case 0x22:
        case 0x25:
        case 0x40:
        case 0x60: // ! | > ' " % @ `
          flowIndicators = true;
          blockIndicators = true;
          break;
        case 0x3f:
        case 0x3a: // ? :
          flowIndicators = true;
          if (followedByWhitespace) blockIndicators = true;
          break;
        case 0x2d: // -
          if (followedByWhitespace) {
            flowIndicators = true;
            blockIndicators = true;
          }
          break;
      }
    } else {
      switch (cp) {
        case 0x2c:
        case 0x3f:
        case 0x5b:
        case 0x5d:
        case 0x7b:
        case 0x7d: // , ? [ ] { }
          flowIndicators = true;
          break;
        case 0x3a: // :
          flowIndicators = true;
          if (followedByWhitespace) blockIndicators = true;
          break;
        case 0x23: // #
          if (precededByWhitespace) {
            flowIndicators = true;
            blockIndicators = true;
          }
          break;
      }
    }
    if (!isPrintable(cp)) specialCharacters = true;
    if (isSpace(cp)) {
      if (i === 0) leadingSpace = true;
      if (i === cps.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(cp)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === cps.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankz(cp);
  }
  const a: Analysis = {
    multiline: lineBreaks,
    flowPlainAllowed: true,
    blockPlainAllowed: true,
    singleQuotedAllowed: true,
    blockAllowed: true,
    bytes,
  };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.flowPlainAllowed = a.blockPlainAllowed = false;
  if (trailingSpace) a.blockAllowed = false;
  if (breakSpace) a.flowPlainAllowed = a.blockPlainAllowed = a.singleQuotedAllowed = false;
  if (spaceBreak || specialCharacters)
    a.flowPlainAllowed = a.blockPlainAllowed = a.singleQuotedAllowed = a.blockAllowed = false;
  if (lineBreaks) a.flowPlainAllowed = a.blockPlainAllowed = false;
  if (flowIndicators) a.flowPlainAllowed = false;
  if (blockIndicators) a.blockPlainAllowed = false;
  return a;
}

/** A scalar as the encoder hands it over, with its code points and the emitter's analysis. */
interface Analyzed {
  scalar: Scalar;
  cps: number[];
  analysis: Analysis;
  /** Whether some character must be escaped in double quotes. */
  escapes: boolean;
  hasSpace: boolean;
}

function analyzed(scalar: Scalar): Analyzed {
  const cps = codePoints(scalar.value);
  const escapes = cps.some((cp) => !isPrintable(cp) || cp === 0xfeff || isBreak(cp) || cp === 0x22 || cp === 0x5c);
  return { scalar, cps, analysis: analyzeScalar(cps), escapes, hasSpace: cps.includes(0x20) };
}

const isCollection = (v: unknown): v is unknown[] | Record<string, unknown> => typeof v === 'object' && v !== null;
const isEmptyCollection = (v: unknown): boolean =>
  isCollection(v) && (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0);

class Emitter {
  out = '';
  private column = 0;
  private whitespace = true;
  private indention = true;
  private openEnded = false;
  private indent = -1;
  private readonly indents: number[] = [];
  private flowLevel = 0;
  private rootContext = false;
  private mappingContext = false;
  private simpleKeyContext = false;

  private put(c: string): void {
    this.out += c;
    this.column++;
  }

  private putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  /** write: one character of a value. */
  private write(cp: number): void {
    this.out += String.fromCodePoint(cp);
    this.column++;
  }

  /** write_break: a line break from a value (only \n becomes the emitter's own break). */
  private writeBreak(cp: number): void {
    if (cp === 0x0a) this.putBreak();
    else {
      this.write(cp);
      this.column = 0;
    }
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    if (this.column < indent) {
      this.out += ' '.repeat(indent - this.column);
      this.column = indent;
    }
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(
    indicator: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const c of indicator) this.put(c);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
    this.openEnded = false;
  }

  emitNode(v: unknown, root: boolean, mapping: boolean, simpleKey: boolean): void {
    this.rootContext = root;
    this.mappingContext = mapping;
    this.simpleKeyContext = simpleKey;
    if (!isCollection(v))
      return this.emitScalar(typeof v === 'string' ? this.analyzedString(v) : analyzed(scalarOf(v)));
    if (this.flowLevel > 0 || isEmptyCollection(v))
      return this.emitEmptyFlow(Array.isArray(v) ? '[' : '{', Array.isArray(v) ? ']' : '}');
    if (Array.isArray(v)) return this.emitBlockSequence(v);
    return this.emitBlockMapping(v);
  }

  /** A flow collection: only empty ones are written in flow style here. */
  private emitEmptyFlow(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.increaseIndent(true, false);
    this.popIndent();
    this.writeIndicator(close, false, false, false);
  }

  /**
   * Collections leave their items on a to-do stack instead of recursing, so that documents nested
   * 10,000 deep are written: each task runs, and what it leaves runs before its next sibling.
   */
  private readonly todo: (() => void)[] = [];

  /** Runs tasks until `out` holds `limit` characters or none are left; whether any are left. */
  run(limit: number): boolean {
    while (this.out.length < limit) {
      const task = this.todo.pop();
      if (!task) return false;
      task();
    }
    return this.todo.length > 0;
  }

  /** What was written since the last take. */
  take(): string {
    const text = this.out;
    this.out = '';
    return text;
  }

  private emitBlockSequence(items: unknown[]): void {
    this.increaseIndent(false, this.mappingContext && !this.indention);
    this.todo.push(() => this.popIndent());
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      this.todo.push(() => {
        this.writeIndent();
        this.writeIndicator('-', true, false, true);
        this.emitNode(item, false, false, false);
      });
    }
  }

  private emitBlockMapping(obj: Record<string, unknown>): void {
    this.increaseIndent(false, false);
    this.todo.push(() => this.popIndent());
    const keys = sortKeys(Object.keys(obj));
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      this.todo.push(() => {
        this.writeIndent();
        const k = this.analyzedString(key);
        // yaml_emitter_check_simple_key.
        if (!k.analysis.multiline && k.analysis.bytes <= 128) {
          this.rootContext = false;
          this.mappingContext = true;
          this.simpleKeyContext = true;
          this.emitScalar(k);
          this.writeIndicator(':', false, false, false);
        } else {
          this.writeIndicator('?', true, false, true);
          this.rootContext = false;
          this.mappingContext = true;
          this.simpleKeyContext = false;
          this.emitScalar(k);
          this.writeIndent();
          this.writeIndicator(':', true, false, true);
        }
        this.emitNode(obj[key], false, true, false);
      });
    }
  }

  /** Strings repeat (keys above all): their analysis is kept for the document. */
  private readonly analyses = new Map<string, Analyzed>();

  private analyzedString(s: string): Analyzed {
    let a = this.analyses.get(s);
    if (!a) {
      a = analyzed(stringScalar(s));
      if (s.length <= 256) this.analyses.set(s, a);
    }
    return a;
  }

  /** yaml_emitter_select_scalar_style, then the scalar written at one more indent. */
  private emitScalar(an: Analyzed): void {
    const { scalar, analysis: a } = an;
    let style = scalar.style;
    if (this.simpleKeyContext && a.multiline) style = 'double';
    if (style === 'plain') {
      if ((this.flowLevel > 0 && !a.flowPlainAllowed) || (this.flowLevel === 0 && !a.blockPlainAllowed))
        style = 'single';
      if (scalar.value === '' && (this.flowLevel > 0 || this.simpleKeyContext)) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || this.flowLevel > 0 || this.simpleKeyContext)) style = 'double';
    this.increaseIndent(true, false);
    const allowBreaks = !this.simpleKeyContext;
    if (style === 'plain') this.writePlain(an, allowBreaks);
    else if (style === 'single') this.writeSingleQuoted(an, allowBreaks);
    else if (style === 'double') this.writeDoubleQuoted(an, allowBreaks);
    else this.writeLiteral(an);
    this.popIndent();
  }

  /** Whether a line could be folded inside the scalar: it has a space that could pass column 80. */
  private mayFold(an: Analyzed, allowBreaks: boolean, extra: number): boolean {
    return allowBreaks && an.hasSpace && this.column + extra + an.cps.length > BEST_WIDTH + 1;
  }

  private writePlain(an: Analyzed, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    const cps = an.cps;
    if (!an.analysis.multiline && !this.mayFold(an, allowBreaks, 0)) {
      this.out += an.scalar.value;
      this.column += cps.length;
    } else this.writePlainSlowly(cps, allowBreaks);
    this.whitespace = false;
    this.indention = false;
    if (this.rootContext) this.openEnded = true;
  }

  private writePlainSlowly(cps: number[], allowBreaks: boolean): void {
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < cps.length; i++) {
      const cp = cps[i]!;
      if (isSpace(cp)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && !isSpace(cps[i + 1])) this.writeIndent();
        else this.write(cp);
        spaces = true;
      } else if (isBreak(cp)) {
        if (!breaks && cp === 0x0a) this.putBreak();
        this.writeBreak(cp);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.write(cp);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
  }

  private writeSingleQuoted(an: Analyzed, allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    const cps = an.cps;
    if (!an.analysis.multiline && !this.mayFold(an, allowBreaks, 0)) {
      this.out += an.scalar.value.replaceAll("'", "''");
      this.column += cps.length + (an.scalar.value.split("'").length - 1);
      this.writeIndicator("'", false, false, false);
      this.whitespace = false;
      this.indention = false;
      return;
    }
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < cps.length; i++) {
      const cp = cps[i]!;
      if (isSpace(cp)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < cps.length - 1 && !isSpace(cps[i + 1]))
          this.writeIndent();
        else this.write(cp);
        spaces = true;
      } else if (isBreak(cp)) {
        if (!breaks && cp === 0x0a) this.putBreak();
        this.writeBreak(cp);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (cp === 0x27) this.put("'");
        this.write(cp);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeDoubleQuoted(an: Analyzed, allowBreaks: boolean): void {
    let spaces = false;
    this.writeIndicator('"', true, false, false);
    const cps = an.cps;
    if (!an.escapes && !this.mayFold(an, allowBreaks, 0)) {
      this.out += an.scalar.value;
      this.column += cps.length;
      this.writeIndicator('"', false, false, false);
      this.whitespace = false;
      this.indention = false;
      return;
    }
    // The byte offset of the last byte, as the folding rule compares positions in bytes.
    const totalBytes = cps.reduce((n, cp) => n + utf8Len(cp), 0);
    let offset = 0;
    for (let i = 0; i < cps.length; i++) {
      const cp = cps[i]!;
      const at = offset;
      offset += utf8Len(cp);
      if (!isPrintable(cp) || cp === 0xfeff || isBreak(cp) || cp === 0x22 || cp === 0x5c) {
        this.put('\\');
        const named: Record<number, string> = {
          0x00: '0',
          0x07: 'a',
          0x08: 'b',
          0x09: 't',
          0x0a: 'n',
          0x0b: 'v',
          0x0c: 'f',
          0x0d: 'r',
          0x1b: 'e',
          0x22: '"',
          0x5c: '\\',
          0x85: 'N',
          0xa0: '_',
          0x2028: 'L',
          0x2029: 'P',
        };
        const name = named[cp];
        if (name !== undefined) this.put(name);
        else {
          const [letter, width] = cp <= 0xff ? ['x', 2] : cp <= 0xffff ? ['u', 4] : ['U', 8];
          this.put(letter);
          for (const d of cp.toString(16).toUpperCase().padStart(width, '0')) this.put(d);
        }
        spaces = false;
      } else if (isSpace(cp)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && at > 0 && at < totalBytes - 1) {
          this.writeIndent();
          if (isSpace(cps[i + 1])) this.put('\\');
        } else this.write(cp);
        spaces = true;
      } else {
        this.write(cp);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  /** yaml_emitter_write_block_scalar_hints: an indentation hint for leading space, the chomping. */
  private writeBlockHints(cps: number[]): void {
    if (isSpace(cps[0]) || isBreak(cps[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    this.openEnded = false;
    let chomp = '';
    const last = cps.length - 1;
    if (cps.length === 0 || !isBreak(cps[last])) chomp = '-';
    else if (last === 0 || isBreak(cps[last - 1])) {
      chomp = '+';
      this.openEnded = true;
    }
    // Writing the hint clears open_ended again, as libyaml's does.
    if (chomp) this.writeIndicator(chomp, false, false, false);
  }

  private writeLiteral(an: Analyzed): void {
    const cps = an.cps;
    this.writeIndicator('|', true, false, false);
    this.writeBlockHints(cps);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    if (!cps.some((cp) => isBreak(cp) && cp !== 0x0a)) {
      // Only \n breaks: each line's text at the indent, as the loop below writes it.
      const lines = an.scalar.value.split('\n');
      lines.forEach((text, i) => {
        if (i > 0) {
          this.putBreak();
          this.indention = true;
        }
        if (text === '') return;
        this.writeIndent();
        this.out += text;
        this.column += NON_ASCII.test(text) ? [...text].length : text.length;
        this.indention = false;
      });
      return;
    }
    let breaks = true;
    for (const cp of cps) {
      if (isBreak(cp)) {
        this.writeBreak(cp);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.write(cp);
        this.indention = false;
        breaks = false;
      }
    }
  }

  /** The implicit document end, and the stream end's `...` after an open-ended scalar. */
  documentEnd(): void {
    this.writeIndent();
    if (this.openEnded) {
      this.writeIndicator('...', true, false, false);
      this.writeIndent();
    }
  }
}
