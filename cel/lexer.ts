// CEL's lexer: the token rules of cel-go's parser/gen/CEL.g4, run as ANTLR runs them, because
// cel-go's error messages depend on it. A token is the longest match of any rule (the earlier
// rule on a tie, so `in` is IN and `int` an IDENTIFIER); where no rule matches, ANTLR reports
// "token recognition error at: '<text>'" with the text from the token's start through the
// character where the last candidate rule died, skips that text and one more character, and
// goes on. Tokens are produced on demand, as ANTLR's token stream asks for them, so an
// aborted parse reports the same lexical errors cel-go reports.

import { cpString } from './source.js';

/** Token types, numbered as ANTLR numbers them (expected-token sets print in this order). */
export const T = {
  EOF: -1,
  EQUALS: 1,
  NOT_EQUALS: 2,
  IN: 3,
  LESS: 4,
  LESS_EQUALS: 5,
  GREATER_EQUALS: 6,
  GREATER: 7,
  LOGICAL_AND: 8,
  LOGICAL_OR: 9,
  LBRACKET: 10,
  RPRACKET: 11,
  LBRACE: 12,
  RBRACE: 13,
  LPAREN: 14,
  RPAREN: 15,
  DOT: 16,
  COMMA: 17,
  MINUS: 18,
  EXCLAM: 19,
  QUESTIONMARK: 20,
  COLON: 21,
  PLUS: 22,
  STAR: 23,
  SLASH: 24,
  PERCENT: 25,
  CEL_TRUE: 26,
  CEL_FALSE: 27,
  NUL: 28,
  WHITESPACE: 29,
  COMMENT: 30,
  NUM_FLOAT: 31,
  NUM_INT: 32,
  NUM_UINT: 33,
  STRING: 34,
  BYTES: 35,
  IDENTIFIER: 36,
  ESC_IDENTIFIER: 37,
} as const;

const LITERAL_NAMES: Record<number, string> = {
  1: "'=='",
  2: "'!='",
  3: "'in'",
  4: "'<'",
  5: "'<='",
  6: "'>='",
  7: "'>'",
  8: "'&&'",
  9: "'||'",
  10: "'['",
  11: "']'",
  12: "'{'",
  13: "'}'",
  14: "'('",
  15: "')'",
  16: "'.'",
  17: "','",
  18: "'-'",
  19: "'!'",
  20: "'?'",
  21: "':'",
  22: "'+'",
  23: "'*'",
  24: "'/'",
  25: "'%'",
  26: "'true'",
  27: "'false'",
  28: "'null'",
};
const SYMBOLIC_NAMES: Record<number, string> = {
  29: 'WHITESPACE',
  30: 'COMMENT',
  31: 'NUM_FLOAT',
  32: 'NUM_INT',
  33: 'NUM_UINT',
  34: 'STRING',
  35: 'BYTES',
  36: 'IDENTIFIER',
  37: 'ESC_IDENTIFIER',
};

/** How ANTLR names a token type in "expecting ..." (its literal if it has one). */
export function tokenTypeName(t: number): string {
  if (t === T.EOF) return '<EOF>';
  return LITERAL_NAMES[t] ?? SYMBOLIC_NAMES[t] ?? `<${t}>`;
}

export interface Token {
  readonly type: number;
  readonly text: string;
  /** Code-point offset of the first character. */
  readonly start: number;
  readonly line: number;
  readonly column: number;
  /** Position in the token buffer, hidden tokens included (ANTLR's token index; -1 for conjured tokens). */
  readonly index: number;
  /** Whitespace and comments are hidden: in the buffer, never seen by the parser. */
  readonly hidden: boolean;
}

/** The lexer reports through this; a listener may throw to stop the parse. */
type LexErrorListener = (line: number, column: number, message: string) => void;

// A Map: an identifier such as `constructor` or `__proto__` is no keyword (an object's would find its prototype's).
const KEYWORDS: ReadonlyMap<string, number> = new Map([
  ['in', T.IN],
  ['true', T.CEL_TRUE],
  ['false', T.CEL_FALSE],
  ['null', T.NUL],
]);

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined): boolean =>
  c !== undefined && (isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));
const isLetter = (c: number | undefined): boolean =>
  c !== undefined && ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a));
const isIdentPart = (c: number | undefined): boolean => isLetter(c) || isDigit(c) || c === 0x5f;
const isWhitespace = (c: number | undefined): boolean =>
  c === 0x09 || c === 0x20 || c === 0x0d || c === 0x0a || c === 0x0c;
const isQuote = (c: number | undefined): boolean => c === 0x22 || c === 0x27;

/** A rule's outcome at one position: the token it accepts, or where every candidate died. */
type Scan =
  | { readonly ok: true; readonly type: number; readonly end: number }
  | { readonly ok: false; readonly death: number };
const accept = (type: number, end: number): Scan => ({ ok: true, type, end });
const die = (death: number): Scan => ({ ok: false, death });

/** Where an escape sequence starting at the backslash at j ends, or the index of the character that broke it. */
function escapeEnd(cp: readonly number[], j: number): { end: number } | { death: number } {
  const c = cp[j + 1];
  if (c === undefined) return { death: cp.length };
  // a b f n r t v " ' \ ? `
  if ([0x61, 0x62, 0x66, 0x6e, 0x72, 0x74, 0x76, 0x22, 0x27, 0x5c, 0x3f, 0x60].includes(c)) return { end: j + 2 };
  const hexRun = (n: number): { end: number } | { death: number } => {
    for (let k = 0; k < n; k++) if (!isHex(cp[j + 2 + k])) return { death: Math.min(j + 2 + k, cp.length) };
    return { end: j + 2 + n };
  };
  if (c === 0x78 || c === 0x58) return hexRun(2);
  if (c === 0x75) return hexRun(4);
  if (c === 0x55) return hexRun(8);
  if (c >= 0x30 && c <= 0x33) {
    for (let k = 2; k < 4; k++) {
      const d = cp[j + k];
      if (d === undefined || d < 0x30 || d > 0x37) return { death: Math.min(j + k, cp.length) };
    }
    return { end: j + 4 };
  }
  return { death: j + 1 };
}

/** A quoted literal whose opening quote is at i: the single-line and the triple-quoted alternatives, longest wins. */
function scanQuoted(cp: readonly number[], i: number, raw: boolean): { end: number } | { death: number } {
  const q = cp[i]!;
  let single: { end: number } | { death: number } | undefined;
  for (let j = i + 1; single === undefined; ) {
    const c = cp[j];
    if (c === undefined) single = { death: cp.length };
    else if (c === q) single = { end: j + 1 };
    else if (c === 0x0a || c === 0x0d) single = { death: j };
    else if (!raw && c === 0x5c) {
      const e = escapeEnd(cp, j);
      if ('death' in e) single = e;
      else j = e.end;
    } else j++;
  }
  let triple: { end: number } | { death: number };
  if (cp[i + 1] !== q) triple = { death: i + 1 };
  else if (cp[i + 2] !== q) triple = { death: Math.min(i + 2, cp.length) };
  else {
    triple = { death: cp.length };
    // Non-greedy: the literal ends at the first closing triple quote.
    for (let j = i + 3; j < cp.length; ) {
      if (cp[j] === q && cp[j + 1] === q && cp[j + 2] === q) {
        triple = { end: j + 3 };
        break;
      }
      if (!raw && cp[j] === 0x5c) {
        const e = escapeEnd(cp, j);
        if ('death' in e) {
          triple = e;
          break;
        }
        j = e.end;
      } else j++;
    }
  }
  const ends = [single, triple].flatMap((s) => ('end' in s ? [s.end] : []));
  if (ends.length > 0) return { end: Math.max(...ends) };
  return { death: Math.max('death' in single ? single.death : 0, 'death' in triple ? triple.death : 0) };
}

function scanNumber(cp: readonly number[], i: number): Scan {
  if (cp[i] === 0x30 && cp[i + 1] === 0x78 && isHex(cp[i + 2])) {
    let j = i + 2;
    while (isHex(cp[j])) j++;
    return cp[j] === 0x75 || cp[j] === 0x55 ? accept(T.NUM_UINT, j + 1) : accept(T.NUM_INT, j);
  }
  let j = i;
  while (isDigit(cp[j])) j++;
  if (cp[j] === 0x75 || cp[j] === 0x55) return accept(T.NUM_UINT, j + 1);
  if (cp[j] === 0x2e && isDigit(cp[j + 1])) {
    let k = j + 1;
    while (isDigit(cp[k])) k++;
    return accept(T.NUM_FLOAT, exponentEnd(cp, k) ?? k);
  }
  const e = exponentEnd(cp, j);
  return e === undefined ? accept(T.NUM_INT, j) : accept(T.NUM_FLOAT, e);
}

/** The end of an exponent starting at k (`e`, a sign, digits), if there is a whole one. */
function exponentEnd(cp: readonly number[], k: number): number | undefined {
  if (cp[k] !== 0x65 && cp[k] !== 0x45) return undefined;
  let m = k + 1;
  if (cp[m] === 0x2b || cp[m] === 0x2d) m++;
  if (!isDigit(cp[m])) return undefined;
  while (isDigit(cp[m])) m++;
  return m;
}

/** Identifiers and keywords, and the r/b/br prefixes of string and bytes literals. */
function scanWord(cp: readonly number[], i: number): Scan {
  let j = i + 1;
  while (isIdentPart(cp[j])) j++;
  const word = cpString(cp, i, j);
  let best = accept(KEYWORDS.get(word) ?? T.IDENTIFIER, j);
  const c = cp[i]!;
  const isR = (x: number | undefined): boolean => x === 0x72 || x === 0x52;
  const isB = c === 0x62 || c === 0x42;
  const quoted = (at: number, raw: boolean, type: number): void => {
    const s = scanQuoted(cp, at, raw);
    if ('end' in s && s.end > j) best = accept(type, s.end);
  };
  if (isR(c) && isQuote(cp[i + 1])) quoted(i + 1, true, T.STRING);
  else if (isB && isQuote(cp[i + 1])) quoted(i + 1, false, T.BYTES);
  else if (isB && isR(cp[i + 1]) && isQuote(cp[i + 2])) quoted(i + 2, true, T.BYTES);
  return best;
}

const SINGLE: Record<number, number> = {
  0x5b: T.LBRACKET,
  0x5d: T.RPRACKET,
  0x7b: T.LBRACE,
  0x7d: T.RBRACE,
  0x28: T.LPAREN,
  0x29: T.RPAREN,
  0x2c: T.COMMA,
  0x2d: T.MINUS,
  0x3f: T.QUESTIONMARK,
  0x3a: T.COLON,
  0x2b: T.PLUS,
  0x2a: T.STAR,
  0x25: T.PERCENT,
};

/** The token at i: the longest match of CEL.g4's rules, or where matching died. */
function scanToken(cp: readonly number[], i: number): Scan {
  const c = cp[i]!;
  const next = cp[i + 1];
  if (isWhitespace(c)) {
    let j = i + 1;
    while (isWhitespace(cp[j])) j++;
    return accept(T.WHITESPACE, j);
  }
  const single = SINGLE[c];
  if (single !== undefined) return accept(single, i + 1);
  switch (c) {
    case 0x2f: // '/'
      if (next === 0x2f) {
        let j = i + 2;
        while (j < cp.length && cp[j] !== 0x0a) j++;
        return accept(T.COMMENT, j);
      }
      return accept(T.SLASH, i + 1);
    case 0x3d: // '='
      return next === 0x3d ? accept(T.EQUALS, i + 2) : die(Math.min(i + 1, cp.length));
    case 0x21: // '!'
      return next === 0x3d ? accept(T.NOT_EQUALS, i + 2) : accept(T.EXCLAM, i + 1);
    case 0x3c: // '<'
      return next === 0x3d ? accept(T.LESS_EQUALS, i + 2) : accept(T.LESS, i + 1);
    case 0x3e: // '>'
      return next === 0x3d ? accept(T.GREATER_EQUALS, i + 2) : accept(T.GREATER, i + 1);
    case 0x26: // '&'
      return next === 0x26 ? accept(T.LOGICAL_AND, i + 2) : die(Math.min(i + 1, cp.length));
    case 0x7c: // '|'
      return next === 0x7c ? accept(T.LOGICAL_OR, i + 2) : die(Math.min(i + 1, cp.length));
    case 0x2e: // '.'
      if (isDigit(next)) {
        let k = i + 1;
        while (isDigit(cp[k])) k++;
        return accept(T.NUM_FLOAT, exponentEnd(cp, k) ?? k);
      }
      return accept(T.DOT, i + 1);
    case 0x22:
    case 0x27: {
      const s = scanQuoted(cp, i, false);
      return 'end' in s ? accept(T.STRING, s.end) : die(s.death);
    }
    case 0x60: {
      // ESC_IDENTIFIER: '`' (LETTER | DIGIT | '_' | '.' | '-' | '/' | ' ')+ '`'
      let j = i + 1;
      const ok = (x: number | undefined): boolean =>
        isIdentPart(x) || x === 0x2e || x === 0x2d || x === 0x2f || x === 0x20;
      if (!ok(cp[j])) return die(Math.min(j, cp.length));
      while (ok(cp[j])) j++;
      return cp[j] === 0x60 ? accept(T.ESC_IDENTIFIER, j + 1) : die(Math.min(j, cp.length));
    }
  }
  if (isDigit(c)) return scanNumber(cp, i);
  if (isLetter(c) || c === 0x5f) return scanWord(cp, i);
  return die(i);
}

/** ANTLR's display of text in lexer errors: newlines and tabs escaped. */
function errorDisplay(cps: readonly number[]): string {
  return cps
    .map((c) => (c === 0x0a ? '\\n' : c === 0x09 ? '\\t' : c === 0x0d ? '\\r' : String.fromCodePoint(c)))
    .join('');
}

/** Produces tokens one at a time (hidden ones included), reporting unrecognized text as ANTLR does. */
export class Lexer {
  private pos = 0;
  private line = 1;
  private column = 0;
  private count = 0;

  constructor(
    private readonly cp: readonly number[],
    private readonly onError: LexErrorListener,
  ) {}

  /** Moves over the code points [pos, to), keeping line and column as ANTLR's lexer does. */
  private advance(to: number): void {
    for (; this.pos < to; this.pos++) {
      if (this.cp[this.pos] === 0x0a) {
        this.line++;
        this.column = 0;
      } else this.column++;
    }
  }

  next(): Token {
    for (;;) {
      if (this.pos >= this.cp.length) {
        return {
          type: T.EOF,
          text: '<EOF>',
          start: this.pos,
          line: this.line,
          column: this.column,
          index: this.count++,
          hidden: false,
        };
      }
      const start = this.pos;
      const line = this.line;
      const column = this.column;
      const s = scanToken(this.cp, start);
      if (s.ok) {
        this.advance(s.end);
        const type = s.type;
        const hidden = type === T.WHITESPACE || type === T.COMMENT;
        return { type, text: cpString(this.cp, start, s.end), start, line, column, index: this.count++, hidden };
      }
      const text = this.cp.slice(start, Math.min(s.death + 1, this.cp.length));
      // The failing character is consumed too: ANTLR's lexer recovery skips one character.
      this.advance(Math.min(s.death + 1, this.cp.length));
      this.onError(line, column, `token recognition error at: '${errorDisplay(text)}'`);
    }
  }
}
