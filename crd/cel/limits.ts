// cel-go's parser limits, checked on a rule's source before the engine sees it, with cel-go's
// texts: kube-apiserver compiles rules with the parser's defaults (cel-go parser/parser.go:
// expressionSizeCodePointLimit 100,000 and maxRecursionDepth 250), and the engine's recursive
// parser, checker and evaluator would otherwise overflow the JS stack on input kube refuses.
//
// cel-go enforces the depth twice. While ANTLR parses, a listener counts, per grammar rule, how
// many invocations of that rule are open and stops past 250 ("expression recursion limit
// exceeded: 250"): nesting through parentheses, calls, lists, maps, indexes and ternaries opens
// every rule again, while a left-recursive chain (`a + b + c`, `a.b.c`, `a < b < c`) does not, as
// ANTLR closes one context for each it opens in the loop. Then, building the AST, the visitor
// counts nested compound nodes (ternary, relation, arithmetic, select, member call, index) and
// stops past 250 ("max recursion depth exceeded"): that catches the long chains. A shadow of
// cel-go's grammar replays both counts here, token by token, in linear time.
//
// Two shapes cel-go accepts at any length are deep in the engine: runs of `!` or unary `-`
// (cel-go keeps only their parity) and `&&`/`||` chains (cel-go balances them). The first are
// collapsed here in the source handed to the engine as cel-go collapses them (blanked, so
// positions in messages stay); the second are balanced in the parsed AST (env.ts balanceLogic).

/** cel-go parser default expressionSizeCodePointLimit (kube does not change it). */
export const EXPRESSION_SIZE_CODE_POINT_LIMIT = 100_000;
/** cel-go parser default maxRecursionDepth (kube does not change it). */
export const MAX_RECURSION_DEPTH = 250;

/** cel-go reports these at no location: line -1, column 0, and no source snippet. */
const noLocation = (msg: string): string => `ERROR: <input>:-1:0: ${msg}`;

export interface SourceCheck {
  /** cel-go's issues text when the source is over a limit. */
  issue?: string;
  /** The source for the engine: unary runs collapsed to their parity, same length and positions. */
  engineSource: string;
}

enum T {
  EOF,
  Ident,
  Literal,
  Op,
}

interface Token {
  t: T;
  /** The text of an operator or identifier; `number` for a numeric literal. */
  v: string;
  pos: number;
  end: number;
}

class Bail extends Error {}
class Limit extends Error {}

const LETTER = /[A-Za-z_]/;
const WORD = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;
const HEX = /[0-9a-fA-F]/;
const TWO_CHAR_OPS = new Set(['==', '!=', '<=', '>=', '&&', '||']);
const ONE_CHAR_OPS = new Set([
  '<',
  '>',
  '[',
  ']',
  '{',
  '}',
  '(',
  ')',
  '.',
  ',',
  '-',
  '!',
  '?',
  ':',
  '+',
  '*',
  '/',
  '%',
]);

/**
 * CEL.g4's tokens. What it does not know becomes a token of its own, where the shadow parser
 * stops (the engine reports the error); an unterminated string ends the tokens.
 */
function lex(src: string): Token[] {
  const out: Token[] = [];
  const n = src.length;
  let i = 0;
  while (i < n) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f') {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    // Strings and bytes, raw or not, single or triple quoted.
    let q = i;
    if (
      (src[q] === 'b' || src[q] === 'B') &&
      (src[q + 1] === '"' || src[q + 1] === "'" || src[q + 1] === 'r' || src[q + 1] === 'R')
    )
      q++;
    let raw = false;
    if ((src[q] === 'r' || src[q] === 'R') && (src[q + 1] === '"' || src[q + 1] === "'")) (raw = true), q++;
    if (src[q] === '"' || src[q] === "'") {
      const quote = src[q]!;
      const triple = src.startsWith(quote.repeat(3), q);
      const close = triple ? quote.repeat(3) : quote;
      let j = q + close.length;
      while (j < n && !src.startsWith(close, j) && (triple || (src[j] !== '\n' && src[j] !== '\r')))
        j += !raw && src[j] === '\\' ? 2 : 1;
      if (j >= n || !src.startsWith(close, j)) {
        out.push({ t: T.Op, v: src[start]!, pos: start, end: start + 1 });
        break;
      }
      i = j + close.length;
      out.push({ t: T.Literal, v: '', pos: start, end: i });
      continue;
    }
    if (LETTER.test(c)) {
      let j = i + 1;
      while (j < n && WORD.test(src[j]!)) j++;
      const word = src.slice(i, j);
      i = j;
      if (word === 'in') out.push({ t: T.Op, v: 'in', pos: start, end: i });
      else if (word === 'true' || word === 'false' || word === 'null')
        out.push({ t: T.Literal, v: '', pos: start, end: i });
      else out.push({ t: T.Ident, v: word, pos: start, end: i });
      continue;
    }
    if (c === '`') {
      const close = src.indexOf('`', i + 1);
      if (close < 0) {
        out.push({ t: T.Op, v: c, pos: start, end: start + 1 });
        break;
      }
      i = close + 1;
      out.push({ t: T.Ident, v: src.slice(start, i), pos: start, end: i });
      continue;
    }
    if (DIGIT.test(c) || (c === '.' && DIGIT.test(src[i + 1] ?? ''))) {
      let j = i;
      if (c === '0' && (src[j + 1] === 'x' || src[j + 1] === 'X')) {
        j += 2;
        while (j < n && HEX.test(src[j]!)) j++;
      } else {
        while (j < n && DIGIT.test(src[j]!)) j++;
        if (src[j] === '.' && DIGIT.test(src[j + 1] ?? '')) {
          j++;
          while (j < n && DIGIT.test(src[j]!)) j++;
        }
        if (
          (src[j] === 'e' || src[j] === 'E') &&
          (DIGIT.test(src[j + 1] ?? '') || ((src[j + 1] === '+' || src[j + 1] === '-') && DIGIT.test(src[j + 2] ?? '')))
        ) {
          j += 2;
          while (j < n && DIGIT.test(src[j]!)) j++;
        }
      }
      if (src[j] === 'u' || src[j] === 'U') j++;
      i = j;
      out.push({ t: T.Literal, v: 'number', pos: start, end: i });
      continue;
    }
    const two = src.slice(i, i + 2);
    if (TWO_CHAR_OPS.has(two)) {
      i += 2;
      out.push({ t: T.Op, v: two, pos: start, end: i });
      continue;
    }
    // Operators, and anything unknown as a token no rule accepts.
    i++;
    out.push({ t: T.Op, v: ONE_CHAR_OPS.has(c) ? c : `unknown ${c}`, pos: start, end: i });
  }
  out.push({ t: T.EOF, v: '', pos: n, end: n });
  return out;
}

// Rule indexes of CEL.g4, as the listener counts them.
enum R {
  start,
  expr,
  conditionalOr,
  conditionalAnd,
  relation,
  calc,
  unary,
  member,
  primary,
  exprList,
  listInit,
  fieldInitializerList,
  optField,
  mapInitializerList,
  escapeIdent,
  optExpr,
  literal,
  count,
}

const RELATION_OPS = new Set(['<', '<=', '>=', '>', '==', '!=', 'in']);

/**
 * Replays cel-go's parse of the tokens: the listener's open invocations per rule, and the
 * visitor's nested compound nodes (what each method returns).
 */
class Shadow {
  private i = 0;
  private readonly open = new Int32Array(R.count);
  visitorDepth = 0;

  constructor(
    private readonly toks: Token[],
    private readonly maxDepth: number,
  ) {}

  private enter(r: R): void {
    if (++this.open[r]! > this.maxDepth) throw new Limit();
  }
  private exit(r: R): void {
    if (this.open[r]! > 0) this.open[r]!--;
  }
  private peek(k = 0): Token {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)]!;
  }
  private is(v: string, k = 0): boolean {
    const t = this.peek(k);
    return t.t === T.Op && t.v === v;
  }
  private expect(v: string): void {
    if (!this.is(v)) throw new Bail();
    this.i++;
  }
  private compound(d: number): number {
    if (d > this.visitorDepth) this.visitorDepth = d;
    return d;
  }

  start(): void {
    this.enter(R.start);
    this.expr();
    if (this.peek().t !== T.EOF) throw new Bail();
    this.exit(R.start);
  }

  private expr(): number {
    this.enter(R.expr);
    let d = this.conditionalOr();
    if (this.is('?')) {
      this.i++;
      const a = this.conditionalOr();
      this.expect(':');
      const b = this.expr();
      d = this.compound(1 + Math.max(d, a, b));
    }
    this.exit(R.expr);
    return d;
  }

  private conditionalOr(): number {
    this.enter(R.conditionalOr);
    let d = this.conditionalAnd();
    while (this.is('||')) {
      this.i++;
      d = Math.max(d, this.conditionalAnd());
    }
    this.exit(R.conditionalOr);
    return d;
  }

  private conditionalAnd(): number {
    this.enter(R.conditionalAnd);
    let d = this.relation(0);
    while (this.is('&&')) {
      this.i++;
      d = Math.max(d, this.relation(0));
    }
    this.exit(R.conditionalAnd);
    return d;
  }

  // Left-recursive rules: each loop turn closes the context and opens a new one (ANTLR's
  // TriggerExitRuleEvent + PushNewRecursionContext); the rule ends with one close.
  private relation(prec: number): number {
    this.enter(R.relation);
    let d = this.calc(0);
    while (this.peek().t === T.Op && RELATION_OPS.has(this.peek().v) && 1 >= prec) {
      this.exit(R.relation);
      this.enter(R.relation);
      this.i++;
      d = this.compound(1 + Math.max(d, this.relation(2)));
    }
    this.exit(R.relation);
    return d;
  }

  private calc(prec: number): number {
    this.enter(R.calc);
    let d = this.unary();
    for (;;) {
      let next: number;
      if ((this.is('*') || this.is('/') || this.is('%')) && 2 >= prec) next = 3;
      else if ((this.is('+') || this.is('-')) && 1 >= prec) next = 2;
      else break;
      this.exit(R.calc);
      this.enter(R.calc);
      this.i++;
      d = this.compound(1 + Math.max(d, this.calc(next)));
    }
    this.exit(R.calc);
    return d;
  }

  private unary(): number {
    this.enter(R.unary);
    // `!`+ and `-`+ are loops in one invocation; the visitor keeps their parity, no depth.
    if (this.is('!')) while (this.is('!')) this.i++;
    else if (this.is('-')) while (this.is('-')) this.i++;
    const d = this.member();
    this.exit(R.unary);
    return d;
  }

  private member(): number {
    this.enter(R.member);
    let d = this.primary();
    for (;;) {
      if (this.is('.')) {
        this.exit(R.member);
        this.enter(R.member);
        this.i++;
        const opt = this.is('?');
        if (opt) this.i++;
        const id = this.peek();
        if (id.t !== T.Ident) throw new Bail();
        if (!opt && id.v[0] !== '`' && this.is('(', 1)) {
          this.i += 2;
          const args = this.is(')') ? 0 : this.exprList();
          this.expect(')');
          d = this.compound(1 + Math.max(d, args));
        } else {
          this.escapeIdent();
          d = this.compound(1 + d);
        }
      } else if (this.is('[')) {
        this.exit(R.member);
        this.enter(R.member);
        this.i++;
        if (this.is('?')) this.i++;
        const index = this.expr();
        this.expect(']');
        d = this.compound(1 + Math.max(d, index));
      } else break;
    }
    this.exit(R.member);
    return d;
  }

  private primary(): number {
    this.enter(R.primary);
    let d = 0;
    const t = this.peek();
    if (t.t === T.Ident || (this.is('.') && this.peek(1).t === T.Ident)) {
      if (this.is('.')) this.i++;
      if (this.peek().t !== T.Ident || this.peek().v[0] === '`') throw new Bail();
      // CreateMessage is `a.b.C{...}`; otherwise the dots belong to member selects.
      let k = 1;
      while (this.is('.', k) && this.peek(k + 1).t === T.Ident) k += 2;
      if (this.is('{', k)) {
        this.i += k + 1;
        if (!this.is('}')) d = this.fieldInitializerList();
        if (this.is(',')) this.i++;
        this.expect('}');
      } else {
        this.i++;
        if (this.is('(')) {
          this.i++;
          if (!this.is(')')) d = this.exprList();
          this.expect(')');
        }
      }
    } else if (this.is('(')) {
      this.i++;
      d = this.expr();
      this.expect(')');
    } else if (this.is('[')) {
      this.i++;
      if (!this.is(']') && !this.is(',')) d = this.list(R.listInit, ']', false);
      if (this.is(',')) this.i++;
      this.expect(']');
    } else if (this.is('{')) {
      this.i++;
      if (!this.is('}') && !this.is(',')) d = this.list(R.mapInitializerList, '}', true);
      if (this.is(',')) this.i++;
      this.expect('}');
    } else if (t.t === T.Literal || (this.is('-') && this.peek(1).t === T.Literal && this.peek(1).v === 'number')) {
      // A literal; a number may carry its sign (`!-1`).
      this.enter(R.literal);
      this.i += t.t === T.Literal ? 1 : 2;
      this.exit(R.literal);
    } else throw new Bail();
    this.exit(R.primary);
    return d;
  }

  private exprList(): number {
    this.enter(R.exprList);
    let d = this.expr();
    while (this.is(',')) {
      this.i++;
      d = Math.max(d, this.expr());
    }
    this.exit(R.exprList);
    return d;
  }

  /** listInit (optExpr, ...) or mapInitializerList (optExpr ':' expr, ...); a trailing ',' is the primary's. */
  private list(rule: R, close: string, entries: boolean): number {
    this.enter(rule);
    let d = 0;
    for (;;) {
      d = Math.max(d, this.optExpr());
      if (entries) {
        this.expect(':');
        d = Math.max(d, this.expr());
      }
      if (!this.is(',') || this.is(close, 1)) break;
      this.i++;
    }
    this.exit(rule);
    return d;
  }

  private optExpr(): number {
    this.enter(R.optExpr);
    if (this.is('?')) this.i++;
    const d = this.expr();
    this.exit(R.optExpr);
    return d;
  }

  private fieldInitializerList(): number {
    this.enter(R.fieldInitializerList);
    let d = 0;
    for (;;) {
      this.enter(R.optField);
      if (this.is('?')) this.i++;
      this.escapeIdent();
      this.exit(R.optField);
      this.expect(':');
      d = Math.max(d, this.expr());
      if (!this.is(',') || this.is('}', 1)) break;
      this.i++;
    }
    this.exit(R.fieldInitializerList);
    return d;
  }

  private escapeIdent(): void {
    if (this.peek().t !== T.Ident) throw new Bail();
    this.enter(R.escapeIdent);
    this.i++;
    this.exit(R.escapeIdent);
  }
}

/** Tokens that end an operand: a `-` after one is binary. */
const endsOperand = (t: Token | undefined): boolean =>
  t !== undefined &&
  (t.t === T.Ident || t.t === T.Literal || (t.t === T.Op && (t.v === ')' || t.v === ']' || t.v === '}')));

/**
 * Blanks each run of unary `!` or `-` down to what cel-go's visitor keeps: nothing of an even
 * run, the first operator of an odd one (where cel-go places the call).
 */
function collapseUnaryRuns(src: string, toks: Token[]): string {
  let out: string[] | undefined;
  for (let i = 0; i < toks.length; ) {
    const t = toks[i]!;
    if (t.t !== T.Op || (t.v !== '!' && t.v !== '-')) {
      i++;
      continue;
    }
    let j = i;
    while (toks[j]!.t === T.Op && toks[j]!.v === t.v) j++;
    const first = t.v === '-' && endsOperand(toks[i - 1]) ? i + 1 : i;
    const run = j - first;
    if (run > 1) {
      out ??= src.split('');
      for (let k = first + (run % 2); k < j; k++) for (let c = toks[k]!.pos; c < toks[k]!.end; c++) out[c] = ' ';
    }
    i = j;
  }
  return out ? out.join('') : src;
}

/** Code points in `s` (cel-go's size of a string and of a source). */
export function codePointCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) n--, i++;
    }
  }
  return n;
}

/**
 * cel-go's size and depth limits on one expression's source, and the source the engine should
 * parse. `maxDepth` is cel-go's MaxRecursionDepth option (kube keeps the default).
 */
export function checkSource(src: string, maxDepth = MAX_RECURSION_DEPTH): SourceCheck {
  const size = codePointCount(src);
  if (size > EXPRESSION_SIZE_CODE_POINT_LIMIT) {
    return {
      issue: noLocation(
        `expression code point size exceeds limit: size: ${size}, limit ${EXPRESSION_SIZE_CODE_POINT_LIMIT}`,
      ),
      engineSource: src,
    };
  }
  const toks = lex(src);
  const engineSource = collapseUnaryRuns(src, toks);
  const shadow = new Shadow(toks, maxDepth);
  try {
    shadow.start();
  } catch (e) {
    if (e instanceof Limit)
      return { issue: noLocation(`expression recursion limit exceeded: ${maxDepth}`), engineSource };
    if (!(e instanceof Bail)) throw e;
  }
  // The visitor runs after the parse, also over a tree with syntax errors.
  if (shadow.visitorDepth > maxDepth) return { issue: noLocation('max recursion depth exceeded'), engineSource };
  return { engineSource };
}

/** The issue for a JS stack overflow the checks above did not foresee: cel-go's words for too deep. */
export const TOO_DEEP_ISSUE = noLocation('max recursion depth exceeded');
