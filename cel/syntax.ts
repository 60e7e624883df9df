// CEL's grammar (cel-go parser/gen/CEL.g4) as a parse tree, built the way cel-go's generated
// ANTLR parser builds it, error recovery included: cel-go's syntax errors are ANTLR's
// messages ("mismatched input ... expecting {...}", "extraneous input", "no viable
// alternative", "missing ..."), and which of them appear depends on ANTLR's recovery (sync
// points, single-token deletion and insertion, resynchronising on the follow sets of the
// rules being parsed). Each rule below follows the generated parser's control flow; the
// numbers are the ATN states it passes through, the prediction functions stand for ANTLR's
// adaptive prediction on this grammar, and the token sets are the ATN's next-token sets.
//
// Recursion is bounded: every rule counts its nesting (cel-go's recursionListener) and the
// parse stops with "expression recursion limit exceeded" past the limit, so hostile nesting
// ends long before the JavaScript stack does.
import { Lexer, T, type Token, tokenTypeName } from './lexer.js';

// ---- The parse tree: cel-go's parser contexts, with only what its visitor reads. ----

interface Node {
  /** LT(1) when the rule was entered (the left operand's start for left-recursive rules). */
  start: Token;
  /** LT(-1) when the rule was left. */
  stop?: Token;
}
export interface ExprNode extends Node {
  readonly rule: 'expr';
  e?: OrNode;
  op?: Token;
  e1?: OrNode;
  e2?: ExprNode;
}
export interface OrNode extends Node {
  readonly rule: 'or';
  e?: AndNode;
  readonly ops: Token[];
  readonly rest: AndNode[];
}
export interface AndNode extends Node {
  readonly rule: 'and';
  e?: RelationNode;
  readonly ops: Token[];
  readonly rest: RelationNode[];
}
export interface RelationNode extends Node {
  readonly rule: 'relation';
  calc?: CalcNode;
  lhs?: RelationNode;
  op?: Token;
  rhs?: RelationNode;
}
export interface CalcNode extends Node {
  readonly rule: 'calc';
  unary?: UnaryNode;
  lhs?: CalcNode;
  op?: Token;
  rhs?: CalcNode;
}
export interface UnaryNode extends Node {
  readonly rule: 'unary';
  /** 'error' is the bare UnaryContext a failed prediction leaves (cel-go makes it "<<error>>"). */
  alt: 'error' | 'member' | 'not' | 'negate';
  readonly ops: Token[];
  member?: MemberNode;
}
export interface MemberNode extends Node {
  readonly rule: 'member';
  alt: 'primary' | 'select' | 'call' | 'index';
  primary?: PrimaryNode;
  operand?: MemberNode;
  op?: Token;
  opt?: Token;
  /** Select's field. */
  field?: EscapeIdentNode;
  /** MemberCall's function name and open paren. */
  id?: Token;
  open?: Token;
  args?: ExprListNode;
  index?: ExprNode;
}
export interface PrimaryNode extends Node {
  readonly rule: 'primary';
  alt: 'error' | 'ident' | 'call' | 'nested' | 'list' | 'map' | 'message' | 'literal';
  leadingDot?: Token;
  id?: Token;
  op?: Token;
  args?: ExprListNode;
  e?: ExprNode;
  elems?: ListInitNode;
  entries?: MapInitNode;
  fields?: FieldInitNode;
  readonly ids: Token[];
  literal?: LiteralNode;
}
export interface ExprListNode extends Node {
  readonly rule: 'exprList';
  readonly e: ExprNode[];
}
export interface ListInitNode extends Node {
  readonly rule: 'listInit';
  readonly elems: OptExprNode[];
}
export interface FieldInitNode extends Node {
  readonly rule: 'fieldInit';
  readonly fields: OptFieldNode[];
  readonly cols: Token[];
  readonly values: ExprNode[];
}
interface OptFieldNode extends Node {
  readonly rule: 'optField';
  opt?: Token;
  ident?: EscapeIdentNode;
}
export interface MapInitNode extends Node {
  readonly rule: 'mapInit';
  readonly keys: OptExprNode[];
  readonly cols: Token[];
  readonly values: ExprNode[];
}
export interface EscapeIdentNode extends Node {
  readonly rule: 'escapeIdent';
  alt: 'error' | 'simple' | 'escaped';
  id?: Token;
}
interface OptExprNode extends Node {
  readonly rule: 'optExpr';
  opt?: Token;
  e?: ExprNode;
}
export interface LiteralNode extends Node {
  readonly rule: 'literal';
  alt: 'error' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'true' | 'false' | 'null';
  sign?: Token;
  tok?: Token;
}
export type ParseNode =
  | ExprNode
  | OrNode
  | AndNode
  | RelationNode
  | CalcNode
  | UnaryNode
  | MemberNode
  | PrimaryNode
  | ExprListNode
  | ListInitNode
  | FieldInitNode
  | OptFieldNode
  | MapInitNode
  | EscapeIdentNode
  | OptExprNode
  | LiteralNode;

// ---- Token sets (the ATN's next-token sets). EPS marks "the rule may end here". ----

const EPS = -2;
type TokenSet = ReadonlySet<number>;
const set = (...groups: (number | readonly number[])[]): TokenSet => new Set(groups.flat());

const MEMBER_START: readonly number[] = [
  T.LBRACKET,
  T.LBRACE,
  T.LPAREN,
  T.DOT,
  T.MINUS,
  T.CEL_TRUE,
  T.CEL_FALSE,
  T.NUL,
  T.NUM_FLOAT,
  T.NUM_INT,
  T.NUM_UINT,
  T.STRING,
  T.BYTES,
  T.IDENTIFIER,
];
const EXPR_START: readonly number[] = [...MEMBER_START, T.EXCLAM];
const LITERAL_START: readonly number[] = [
  T.MINUS,
  T.NUM_FLOAT,
  T.NUM_INT,
  T.NUM_UINT,
  T.STRING,
  T.BYTES,
  T.CEL_TRUE,
  T.CEL_FALSE,
  T.NUL,
];
const REL_OPS: readonly number[] = [T.EQUALS, T.NOT_EQUALS, T.IN, T.LESS, T.LESS_EQUALS, T.GREATER_EQUALS, T.GREATER];
const MUL_OPS: readonly number[] = [T.STAR, T.SLASH, T.PERCENT];
const ADD_OPS: readonly number[] = [T.PLUS, T.MINUS];
const FIELD_START: readonly number[] = [T.QUESTIONMARK, T.IDENTIFIER, T.ESC_IDENTIFIER];
// Membership tests on the hot path.
const IS_MEMBER_START = new Set(MEMBER_START);
const IS_EXPR_START = new Set(EXPR_START);
const IS_OPT_EXPR_START = new Set([T.QUESTIONMARK, ...EXPR_START]);
const IS_FIELD_START = new Set(FIELD_START);
const IS_LITERAL_START = new Set(LITERAL_START);
const IS_REL_OP = new Set(REL_OPS);

/** What may follow each rule invocation inside its caller (keyed by the invoking state). */
const FOLLOW: Record<number, TokenSet> = {
  34: set(T.EOF),
  37: set(T.QUESTIONMARK, EPS),
  39: set(T.COLON),
  41: set(EPS),
  45: set(T.LOGICAL_OR, EPS),
  47: set(T.LOGICAL_OR, EPS),
  53: set(T.LOGICAL_AND, EPS),
  55: set(T.LOGICAL_AND, EPS),
  62: set(REL_OPS, EPS),
  66: set(REL_OPS, EPS),
  73: set(MUL_OPS, ADD_OPS, EPS),
  77: set(MUL_OPS, ADD_OPS, EPS),
  80: set(MUL_OPS, ADD_OPS, EPS),
  86: set(EPS),
  92: set(EPS),
  98: set(EPS),
  102: set(T.DOT, T.LBRACKET, EPS),
  109: set(T.DOT, T.LBRACKET, EPS),
  114: set(T.RPAREN),
  123: set(T.RPRACKET),
  140: set(T.RPAREN),
  145: set(T.RPAREN),
  149: set(T.COMMA, T.RPRACKET),
  157: set(T.COMMA, T.RBRACE),
  176: set(T.COMMA, T.RBRACE),
  183: set(EPS),
  186: set(T.COMMA, EPS),
  188: set(T.COMMA, EPS),
  194: set(T.COMMA, EPS),
  196: set(T.COMMA, EPS),
  202: set(T.COLON),
  206: set(T.COLON),
  204: set(T.COMMA, EPS),
  208: set(T.COMMA, EPS),
  218: set(EPS),
  220: set(T.COLON),
  224: set(T.COLON),
  222: set(T.COMMA, EPS),
  226: set(T.COMMA, EPS),
  240: set(EPS),
};

/** The tokens expected at a state where a sync or a match may fail (no EPS: these states cannot end their rule). */
const EXPECT: Record<number, TokenSet> = {
  // sync points that are block starts
  99: set(EXPR_START),
  107: set(FIELD_START),
  115: set(EXPR_START, T.RPAREN),
  121: set(T.QUESTIONMARK, EXPR_START),
  184: set(MEMBER_START),
  132: set(T.DOT, T.IDENTIFIER),
  136: set(T.DOT, T.IDENTIFIER),
  141: set(EXPR_START, T.RPAREN),
  150: set(T.QUESTIONMARK, EXPR_START, T.COMMA, T.RPRACKET),
  153: set(T.COMMA, T.RPRACKET),
  158: set(T.QUESTIONMARK, EXPR_START, T.COMMA, T.RBRACE),
  161: set(T.COMMA, T.RBRACE),
  165: set(T.DOT, T.IDENTIFIER),
  172: set(T.DOT, T.LBRACE),
  177: set(FIELD_START, T.COMMA, T.RBRACE),
  180: set(T.COMMA, T.RBRACE),
  216: set(FIELD_START),
  235: set(T.IDENTIFIER, T.ESC_IDENTIFIER),
  238: set(T.QUESTIONMARK, EXPR_START),
  256: set(LITERAL_START),
  243: set(T.MINUS, T.NUM_INT),
  248: set(T.MINUS, T.NUM_FLOAT),
  88: set(T.EXCLAM),
  94: set(T.MINUS),
  81: set(MUL_OPS, ADD_OPS),
  126: set(T.DOT, T.LBRACKET),
  // loop-back sync points
  90: set(T.EXCLAM, MEMBER_START),
  96: set(T.MINUS, MEMBER_START),
  174: set(T.DOT, T.LBRACE),
  // set matches
  65: set(REL_OPS),
  76: set(MUL_OPS),
  79: set(ADD_OPS),
};
const LOOP_BACK = new Set([90, 96, 174]);

/** The token each match state matches: what it expects when it fails. */
const MATCH: Record<number, number> = {
  35: T.EOF,
  38: T.QUESTIONMARK,
  40: T.COLON,
  46: T.LOGICAL_OR,
  54: T.LOGICAL_AND,
  87: T.EXCLAM,
  93: T.MINUS,
  105: T.DOT,
  106: T.QUESTIONMARK,
  111: T.DOT,
  112: T.IDENTIFIER,
  113: T.LPAREN,
  117: T.RPAREN,
  119: T.LBRACKET,
  120: T.QUESTIONMARK,
  124: T.RPRACKET,
  131: T.DOT,
  134: T.IDENTIFIER,
  135: T.DOT,
  138: T.IDENTIFIER,
  139: T.LPAREN,
  143: T.RPAREN,
  144: T.LPAREN,
  146: T.RPAREN,
  148: T.LBRACKET,
  152: T.COMMA,
  155: T.RPRACKET,
  156: T.LBRACE,
  160: T.COMMA,
  163: T.RBRACE,
  164: T.DOT,
  167: T.IDENTIFIER,
  168: T.DOT,
  169: T.IDENTIFIER,
  175: T.LBRACE,
  179: T.COMMA,
  182: T.RBRACE,
  187: T.COMMA,
  195: T.COMMA,
  203: T.COLON,
  205: T.COMMA,
  207: T.COLON,
  215: T.QUESTIONMARK,
  221: T.COLON,
  223: T.COMMA,
  225: T.COLON,
  233: T.IDENTIFIER,
  234: T.ESC_IDENTIFIER,
  237: T.QUESTIONMARK,
  242: T.MINUS,
  245: T.NUM_INT,
  246: T.NUM_UINT,
  247: T.MINUS,
  250: T.NUM_FLOAT,
  251: T.STRING,
  252: T.BYTES,
  253: T.CEL_TRUE,
  254: T.CEL_FALSE,
  255: T.NUL,
};

/** What may follow the token matched at each match state (EPS: the rule may end after it). */
const AFTER: Record<number, TokenSet> = {
  35: set(T.EOF),
  38: set(EXPR_START),
  40: set(EXPR_START),
  46: set(EXPR_START),
  54: set(EXPR_START),
  65: set(EXPR_START),
  76: set(EXPR_START),
  79: set(EXPR_START),
  87: set(T.EXCLAM, MEMBER_START),
  93: set(T.MINUS, MEMBER_START),
  105: set(FIELD_START),
  106: set(T.IDENTIFIER, T.ESC_IDENTIFIER),
  111: set(T.IDENTIFIER),
  112: set(T.LPAREN),
  113: set(EXPR_START, T.RPAREN),
  117: set(T.DOT, T.LBRACKET, EPS),
  119: set(T.QUESTIONMARK, EXPR_START),
  120: set(EXPR_START),
  124: set(T.DOT, T.LBRACKET, EPS),
  131: set(T.IDENTIFIER),
  134: set(EPS),
  135: set(T.IDENTIFIER),
  138: set(T.LPAREN),
  139: set(EXPR_START, T.RPAREN),
  143: set(EPS),
  144: set(EXPR_START),
  146: set(EPS),
  148: set(T.QUESTIONMARK, EXPR_START, T.COMMA, T.RPRACKET),
  152: set(T.RPRACKET),
  155: set(EPS),
  156: set(T.QUESTIONMARK, EXPR_START, T.COMMA, T.RBRACE),
  160: set(T.RBRACE),
  163: set(EPS),
  164: set(T.IDENTIFIER),
  167: set(T.DOT, T.LBRACE),
  168: set(T.IDENTIFIER),
  169: set(T.DOT, T.LBRACE),
  175: set(FIELD_START, T.COMMA, T.RBRACE),
  179: set(T.RBRACE),
  182: set(EPS),
  187: set(EXPR_START),
  195: set(T.QUESTIONMARK, EXPR_START),
  203: set(EXPR_START),
  207: set(EXPR_START),
  205: set(FIELD_START),
  215: set(T.IDENTIFIER, T.ESC_IDENTIFIER),
  221: set(EXPR_START),
  225: set(EXPR_START),
  223: set(T.QUESTIONMARK, EXPR_START),
  233: set(EPS),
  234: set(EPS),
  237: set(EXPR_START),
  242: set(T.NUM_INT),
  245: set(EPS),
  246: set(EPS),
  247: set(T.NUM_FLOAT),
  250: set(EPS),
  251: set(EPS),
  252: set(EPS),
  253: set(EPS),
  254: set(EPS),
  255: set(EPS),
};

/** Rule indexes, for the per-rule nesting count. */
const RULE = {
  start: 0,
  expr: 1,
  or: 2,
  and: 3,
  relation: 4,
  calc: 5,
  unary: 6,
  member: 7,
  primary: 8,
  exprList: 9,
  listInit: 10,
  fieldInit: 11,
  optField: 12,
  mapInit: 13,
  escapeIdent: 14,
  optExpr: 15,
  literal: 16,
} as const;

// ---- Token stream: ANTLR's CommonTokenStream, fetching from the lexer on demand. ----

class TokenStream {
  readonly tokens: Token[] = [];
  /** Buffer indexes of the tokens the parser sees (EOF last), so LT(k) is one lookup. */
  private readonly visible: number[] = [];
  private vp = 0;
  private eof = false;

  constructor(private readonly lexer: Lexer) {}

  /** Lexes until the parser-visible token n exists (or the input ends). */
  private fetch(n: number): void {
    while (this.visible.length <= n && !this.eof) {
      const t = this.lexer.next();
      this.tokens.push(t);
      if (t.hidden) continue;
      this.visible.push(this.tokens.length - 1);
      if (t.type === T.EOF) this.eof = true;
    }
  }

  private at(n: number): Token {
    this.fetch(n);
    return this.tokens[this.visible[Math.min(n, this.visible.length - 1)]!]!;
  }

  /** The buffer index of the current token (ANTLR's TokenStream.Index). */
  get index(): number {
    return this.at(this.vp).index;
  }

  /** LT(k), k >= 1: the k-th token ahead (EOF past the end); LT(-1): the last one consumed. */
  LT(k: number): Token {
    if (k === -1) return this.at(Math.max(this.vp - 1, 0));
    return this.at(this.vp + k - 1);
  }

  LA(k: number): number {
    return this.LT(k).type;
  }

  consume(): void {
    if (this.at(this.vp).type === T.EOF) return;
    this.vp++;
    this.fetch(this.vp);
  }

  /** The text of every token from a through b, hidden ones included, EOF left out. */
  textBetween(a: Token, b: Token): string {
    let s = '';
    for (let i = a.index; i <= b.index && i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (t.type === T.EOF) break;
      s += t.text;
    }
    return s;
  }

  /** The length (code points) of the parser-visible text from a through b, as a context's GetText(). */
  visibleLength(a: Token, b: Token | undefined): number {
    if (b === undefined || a.index < 0) return 0;
    let n = 0;
    for (let i = a.index; i <= b.index && i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (!t.hidden && t.type !== T.EOF) n += [...t.text].length;
    }
    return n;
  }
}

// ---- Errors and aborts. ----

/** An error inside a rule: the rule reports it (unless already recovering) and resynchronises. */
class RecognitionError {
  constructor(
    readonly message: string,
    readonly offending: Token,
  ) {}
}

/** Ends the parse: cel-go panics with these and recovers at the top. */
export class ParseAbort {
  constructor(
    /** An internal error to report at no location, or undefined when it is already reported. */
    readonly internalMessage: string | undefined,
  ) {}
}

interface SyntaxLimits {
  readonly maxRecursionDepth: number;
  readonly errorRecoveryLimit: number;
  readonly errorRecoveryLookaheadTokenLimit: number;
  readonly errorReportingLimit: number;
}

/** Receives every syntax error (lexical ones too), with ANTLR's 1-based line and 0-based column. */
type SyntaxErrorSink = (line: number, column: number, message: string) => void;

interface Frame {
  readonly rule: number;
  /** The state the rule was invoked from (-1 for start); its FOLLOW is what may come after the rule. */
  readonly invokingState: number;
}

const escapeWS = (s: string): string => s.replaceAll('\t', '\\t').replaceAll('\n', '\\n').replaceAll('\r', '\\r');
const tokenDisplay = (t: Token): string => `'${escapeWS(t.text === '' ? `<${t.type}>` : t.text)}'`;
function setDisplay(s: TokenSet): string {
  const names = [...s]
    .filter((t) => t !== EPS)
    .sort((a, b) => a - b)
    .map(tokenTypeName);
  return names.length === 1 ? names[0]! : `{${names.join(', ')}}`;
}
const RESERVED_NO_VIABLE = /no viable alternative at input '.(true|false|null)'/g;

/** Parses one expression into cel-go's parse tree, reporting syntax errors as cel-go does. */
export class SyntaxParser {
  private readonly ts: TokenStream;
  private state = -1;
  private readonly frames: Frame[] = [];
  private readonly depth: number[] = new Array<number>(17).fill(0);
  private errorRecoveryMode = false;
  private lastErrorIndex = -1;
  private lastErrorStates: Set<number> | undefined;
  private recoveryAttempts = 0;
  private errorReports = 0;

  constructor(
    codePoints: readonly number[],
    private readonly limits: SyntaxLimits,
    private readonly sink: SyntaxErrorSink,
  ) {
    this.ts = new TokenStream(new Lexer(codePoints, (line, column, msg) => this.syntaxError(line, column, msg)));
  }

  /** The code-point length of a context's text, for offset ranges. */
  textLength(n: Node): number {
    return this.ts.visibleLength(n.start, n.stop);
  }

  // ---- The error listener (cel-go's parser.SyntaxError). ----

  private syntaxError(line: number, column: number, message: string): void {
    const msg = message.includes('no viable alternative')
      ? message.replace(RESERVED_NO_VIABLE, "mismatched input '$1' expecting IDENTIFIER")
      : message;
    if (this.errorReports < this.limits.errorReportingLimit) {
      this.errorReports++;
      this.sink(line, column, msg);
      return;
    }
    this.sink(line, column, `More than ${this.limits.errorReportingLimit} syntax errors`);
    throw new ParseAbort(undefined);
  }

  private notify(message: string, t: Token): void {
    this.syntaxError(t.line, t.column, message);
  }

  // ---- Rule entry and exit (with cel-go's recursion listener). ----

  private enter<N extends Node>(rule: number, node: N): N {
    this.frames.push({ rule, invokingState: this.state });
    this.depth[rule]!++;
    if (this.depth[rule]! > this.limits.maxRecursionDepth) {
      throw new ParseAbort(`expression recursion limit exceeded: ${this.limits.maxRecursionDepth}`);
    }
    return node;
  }

  private exit(node: Node): void {
    node.stop = this.ts.LT(-1);
    const f = this.frames.pop()!;
    if (this.depth[f.rule]! > 0) this.depth[f.rule]!--;
    this.state = f.invokingState;
  }

  /** A rule's errorExit: a recognition error is reported (unless already recovering) and recovered from. */
  private recoverFrom(e: unknown): void {
    if (!(e instanceof RecognitionError)) throw e;
    this.reportError(e);
    this.recover();
  }

  // ---- ANTLR's DefaultErrorStrategy, with cel-go's recovery and lookahead limits. ----

  private beginErrorCondition(): void {
    this.errorRecoveryMode = true;
  }

  private endErrorCondition(): void {
    this.errorRecoveryMode = false;
    this.lastErrorStates = undefined;
    this.lastErrorIndex = -1;
  }

  private reportError(e: RecognitionError): void {
    if (this.errorRecoveryMode) return;
    this.beginErrorCondition();
    this.notify(e.message, e.offending);
  }

  /** ATN.getExpectedTokens: the state's tokens, and while the rule may end, what follows each caller. */
  private expectedAt(local: TokenSet): Set<number> {
    const out = new Set([...local].filter((t) => t !== EPS));
    let following = local;
    for (let i = this.frames.length - 1; i >= 0 && following.has(EPS); i--) {
      const f = this.frames[i]!;
      if (f.invokingState < 0) break;
      following = FOLLOW[f.invokingState]!;
      for (const t of following) if (t !== EPS) out.add(t);
    }
    if (following.has(EPS)) out.add(T.EOF);
    return out;
  }

  private expectedTokens(state: number): Set<number> {
    const local = EXPECT[state] ?? (MATCH[state] !== undefined ? set(MATCH[state]!) : undefined);
    if (local === undefined) throw new Error(`no expected-token set for ATN state ${state}`);
    return this.expectedAt(local);
  }

  private mismatch(state: number): RecognitionError {
    const t = this.ts.LT(1);
    return new RecognitionError(
      `mismatched input ${tokenDisplay(t)} expecting ${setDisplay(this.expectedTokens(state))}`,
      t,
    );
  }

  private noViable(start: Token, offending: Token): RecognitionError {
    const text = start.type === T.EOF ? '<EOF>' : this.ts.textBetween(start, offending);
    return new RecognitionError(`no viable alternative at input '${escapeWS(text)}'`, offending);
  }

  /** The recovery set: what may follow every rule on the stack. */
  private errorRecoverySet(): Set<number> {
    const out = new Set<number>();
    for (const f of this.frames) {
      if (f.invokingState < 0) continue;
      for (const t of FOLLOW[f.invokingState]!) if (t !== EPS) out.add(t);
    }
    return out;
  }

  private consumeUntil(stop: ReadonlySet<number>, consume: () => void): void {
    for (let t = this.ts.LA(1); t !== T.EOF && !stop.has(t); t = this.ts.LA(1)) consume();
  }

  /** cel-go's recoveryLimitErrorStrategy.checkAttempts. */
  private checkAttempts(): void {
    if (this.recoveryAttempts === this.limits.errorRecoveryLimit) {
      this.recoveryAttempts++;
      this.notify(`error recovery attempt limit exceeded: ${this.limits.errorRecoveryLimit}`, this.ts.LT(1));
      throw new ParseAbort(undefined);
    }
    this.recoveryAttempts++;
  }

  /** A consumer that counts: one recovery may consume at most the lookahead limit (cel-go's lookaheadConsumer). */
  private limitedConsumer(): () => void {
    let n = 0;
    return () => {
      if (n >= this.limits.errorRecoveryLookaheadTokenLimit) {
        throw new ParseAbort(
          `error recovery token lookahead limit exceeded: ${this.limits.errorRecoveryLookaheadTokenLimit}`,
        );
      }
      n++;
      this.ts.consume();
    };
  }

  private recover(): void {
    this.checkAttempts();
    const consume = this.limitedConsumer();
    if (this.lastErrorIndex === this.ts.index && this.lastErrorStates?.has(this.state)) consume();
    this.lastErrorIndex = this.ts.index;
    (this.lastErrorStates ??= new Set()).add(this.state);
    this.consumeUntil(this.errorRecoverySet(), consume);
  }

  private reportUnwantedToken(state: number): void {
    if (this.errorRecoveryMode) return;
    this.beginErrorCondition();
    const t = this.ts.LT(1);
    this.notify(`extraneous input ${tokenDisplay(t)} expecting ${setDisplay(this.expectedTokens(state))}`, t);
  }

  private singleTokenDeletion(state: number, consume: () => void): Token | undefined {
    if (!this.expectedTokens(state).has(this.ts.LA(2))) return undefined;
    this.reportUnwantedToken(state);
    consume();
    const matched = this.ts.LT(1);
    this.endErrorCondition();
    return matched;
  }

  /** Match's fallback: delete one extra token, or conjure a missing one, or fail. */
  private recoverInline(state: number, type: number): Token {
    this.checkAttempts();
    const consume = this.limitedConsumer();
    const matched = this.singleTokenDeletion(state, consume);
    if (matched !== undefined) {
      consume();
      return matched;
    }
    if (this.expectedAt(AFTER[state] ?? new Set()).has(this.ts.LA(1))) {
      if (!this.errorRecoveryMode) {
        this.beginErrorCondition();
        const t = this.ts.LT(1);
        this.notify(`missing ${setDisplay(this.expectedTokens(state))} at ${tokenDisplay(t)}`, t);
      }
      const at = this.ts.LA(1) === T.EOF ? this.ts.LT(-1) : this.ts.LT(1);
      return {
        type,
        text: `<missing ${tokenTypeName(type)}>`,
        start: at.start,
        line: at.line,
        column: at.column,
        index: -1,
        hidden: false,
      };
    }
    throw this.mismatch(state);
  }

  private match(state: number, type: number): Token {
    this.state = state;
    const t = this.ts.LT(1);
    if (t.type === type) {
      this.endErrorCondition();
      this.ts.consume();
      return t;
    }
    return this.recoverInline(state, type);
  }

  /** A match of one of several tokens (the operators of relation and calc). */
  private matchSet(state: number, types: readonly number[]): Token {
    this.state = state;
    const t = this.ts.LT(1);
    if (types.includes(t.type)) {
      this.endErrorCondition();
      this.ts.consume();
      return t;
    }
    return this.recoverInline(state, types[0]!);
  }

  /** DefaultErrorStrategy.Sync at a state whose rule cannot end there. */
  private sync(state: number): void {
    this.state = state;
    if (this.errorRecoveryMode) return;
    const expected = EXPECT[state]!;
    if (expected.has(this.ts.LA(1))) return;
    if (LOOP_BACK.has(state)) {
      this.reportUnwantedToken(state);
      const stop = this.expectedTokens(state);
      for (const t of this.errorRecoverySet()) stop.add(t);
      this.consumeUntil(stop, () => this.ts.consume());
      return;
    }
    if (this.singleTokenDeletion(state, () => this.ts.consume()) !== undefined) return;
    throw this.mismatch(state);
  }

  private la(k = 1): number {
    return this.ts.LA(k);
  }

  // ---- Adaptive prediction, decision by decision. ----

  /** unary: MemberExpr (1), LogicalNot (2), Negate (3). `-` before a number is the literal: cel-go's full-context prediction resolves the ambiguity to the lower alternative. */
  private predictUnary(): 1 | 2 | 3 {
    const t1 = this.la(1);
    if (t1 === T.EXCLAM) return 2;
    if (t1 === T.MINUS) {
      const t2 = this.la(2);
      if (t2 === T.NUM_INT || t2 === T.NUM_FLOAT) return 1;
      if (IS_MEMBER_START.has(t2)) return 3;
      throw this.noViable(this.ts.LT(1), this.ts.LT(2));
    }
    if (IS_MEMBER_START.has(t1)) return 1;
    throw this.noViable(this.ts.LT(1), this.ts.LT(1));
  }

  /** Negate's loop: another `-` (1) or the operand (2). */
  private predictNegateLoop(): 1 | 2 {
    const t1 = this.la(1);
    if (t1 === T.MINUS) {
      const t2 = this.la(2);
      if (t2 === T.NUM_INT || t2 === T.NUM_FLOAT || IS_MEMBER_START.has(t2)) return 1;
      throw this.noViable(this.ts.LT(1), this.ts.LT(2));
    }
    if (IS_MEMBER_START.has(t1)) return 2;
    throw this.noViable(this.ts.LT(1), this.ts.LT(1));
  }

  /** member's postfix: Select (1), MemberCall (2), Index (3). */
  private predictPostfix(): 1 | 2 | 3 {
    if (this.la(1) === T.LBRACKET) return 3;
    const t2 = this.la(2);
    if (t2 === T.QUESTIONMARK || t2 === T.ESC_IDENTIFIER) return 1;
    if (t2 === T.IDENTIFIER) return this.la(3) === T.LPAREN ? 2 : 1;
    throw this.noViable(this.ts.LT(1), this.ts.LT(2));
  }

  /** primary: Ident (1), GlobalCall (2), Nested (3), CreateList (4), CreateStruct (5), CreateMessage (6), literal (7). */
  private predictPrimary(): number {
    const t1 = this.la(1);
    if (t1 === T.LPAREN) return 3;
    if (t1 === T.LBRACKET) return 4;
    if (t1 === T.LBRACE) return 5;
    if (IS_LITERAL_START.has(t1)) return 7;
    if (t1 !== T.DOT && t1 !== T.IDENTIFIER) throw this.noViable(this.ts.LT(1), this.ts.LT(1));
    let k = t1 === T.DOT ? 2 : 1;
    if (this.la(k) !== T.IDENTIFIER) throw this.noViable(this.ts.LT(1), this.ts.LT(k));
    k++;
    if (this.la(k) === T.LPAREN) return 2;
    // A dotted name is a message name only if a '{' follows it.
    for (;;) {
      const t = this.la(k);
      if (t === T.LBRACE) return 6;
      if (t !== T.DOT || this.la(k + 1) !== T.IDENTIFIER) return 1;
      k += 2;
    }
  }

  /** literal's alternatives, in CEL.g4's order. */
  private predictLiteral(): number {
    const t1 = this.la(1);
    if (t1 === T.MINUS) {
      const t2 = this.la(2);
      if (t2 === T.NUM_INT) return 1;
      if (t2 === T.NUM_FLOAT) return 3;
      throw this.noViable(this.ts.LT(1), this.ts.LT(2));
    }
    const i = (
      [T.NUM_INT, T.NUM_UINT, T.NUM_FLOAT, T.STRING, T.BYTES, T.CEL_TRUE, T.CEL_FALSE, T.NUL] as readonly number[]
    ).indexOf(t1);
    if (i < 0) throw this.noViable(this.ts.LT(1), this.ts.LT(1));
    return i + 1;
  }

  /** The `(',' item)*` loops of listInit, fieldInitializerList and mapInitializerList: another item, or a trailing comma. */
  private continuesList(itemStart: ReadonlySet<number>, close: number): boolean {
    if (this.la(1) !== T.COMMA) return false;
    const t2 = this.la(2);
    if (t2 === close) return false;
    return itemStart.has(t2);
  }

  // ---- The rules. ----

  parse(): ExprNode | undefined {
    let e: ExprNode | undefined;
    const node = this.enter(RULE.start, { start: this.ts.LT(1) } as Node);
    try {
      this.state = 34;
      e = this.expr();
      this.match(35, T.EOF);
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(node);
    return e;
  }

  expr(): ExprNode {
    const n = this.enter(RULE.expr, { rule: 'expr', start: this.ts.LT(1) } as ExprNode);
    try {
      this.state = 37;
      n.e = this.or();
      this.state = 43;
      if (this.la() === T.QUESTIONMARK) {
        n.op = this.match(38, T.QUESTIONMARK);
        this.state = 39;
        n.e1 = this.or();
        this.match(40, T.COLON);
        this.state = 41;
        n.e2 = this.expr();
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private or(): OrNode {
    const n = this.enter(RULE.or, { rule: 'or', start: this.ts.LT(1), ops: [], rest: [] } as OrNode);
    try {
      this.state = 45;
      n.e = this.and();
      this.state = 50;
      while (this.la() === T.LOGICAL_OR) {
        n.ops.push(this.match(46, T.LOGICAL_OR));
        this.state = 47;
        n.rest.push(this.and());
        this.state = 52;
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private and(): AndNode {
    const n = this.enter(RULE.and, { rule: 'and', start: this.ts.LT(1), ops: [], rest: [] } as AndNode);
    try {
      this.state = 53;
      n.e = this.relation(0);
      this.state = 58;
      while (this.la() === T.LOGICAL_AND) {
        n.ops.push(this.match(54, T.LOGICAL_AND));
        this.state = 55;
        n.rest.push(this.relation(0));
        this.state = 60;
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  /**
   * A left-recursive rule: the operand, then a loop that wraps what was parsed as the left
   * operand of a new context; the rule returns the last context built, as ANTLR does.
   */
  private relation(prec: number): RelationNode {
    const node = this.enter(RULE.relation, { rule: 'relation', start: this.ts.LT(1) } as RelationNode);
    let last: RelationNode = node;
    try {
      this.state = 62;
      last.calc = this.calc(0);
      last.stop = this.ts.LT(-1);
      this.state = 69;
      while (prec <= 1 && IS_REL_OP.has(this.la())) {
        const n: RelationNode = { rule: 'relation', start: last.start, lhs: last };
        last = n;
        n.op = this.matchSet(65, REL_OPS);
        this.state = 66;
        n.rhs = this.relation(2);
        this.state = 71;
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(node);
    last.stop = this.ts.LT(-1);
    return last;
  }

  private calc(prec: number): CalcNode {
    const node = this.enter(RULE.calc, { rule: 'calc', start: this.ts.LT(1) } as CalcNode);
    let last: CalcNode = node;
    try {
      this.state = 73;
      last.unary = this.unary();
      last.stop = this.ts.LT(-1);
      this.state = 83;
      for (;;) {
        const t = this.la();
        const mul = MUL_OPS.includes(t) && prec <= 2;
        const add = ADD_OPS.includes(t) && prec <= 1;
        if (!mul && !add) break;
        this.sync(81);
        const n: CalcNode = { rule: 'calc', start: last.start, lhs: last };
        last = n;
        if (mul) {
          n.op = this.matchSet(76, MUL_OPS);
          this.state = 77;
          n.rhs = this.calc(3);
        } else {
          n.op = this.matchSet(79, ADD_OPS);
          this.state = 80;
          n.rhs = this.calc(2);
        }
        this.state = 85;
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(node);
    last.stop = this.ts.LT(-1);
    return last;
  }

  private unary(): UnaryNode {
    const n = this.enter(RULE.unary, { rule: 'unary', alt: 'error', start: this.ts.LT(1), ops: [] } as UnaryNode);
    try {
      this.sync(99);
      const alt = this.predictUnary();
      if (alt === 1) {
        n.alt = 'member';
        this.state = 86;
        n.member = this.member();
      } else if (alt === 2) {
        n.alt = 'not';
        this.sync(88);
        do {
          n.ops.push(this.match(87, T.EXCLAM));
          this.sync(90);
        } while (this.la() === T.EXCLAM);
        this.state = 92;
        n.member = this.member();
      } else {
        n.alt = 'negate';
        this.sync(94);
        let loop: 1 | 2 = 1;
        while (loop === 1) {
          n.ops.push(this.match(93, T.MINUS));
          this.sync(96);
          loop = this.predictNegateLoop();
        }
        this.state = 98;
        n.member = this.member();
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private member(): MemberNode {
    const node = this.enter(RULE.member, { rule: 'member', alt: 'primary', start: this.ts.LT(1) } as MemberNode);
    let last: MemberNode = node;
    try {
      this.state = 102;
      last.primary = this.primary();
      last.stop = this.ts.LT(-1);
      this.state = 128;
      while (this.la() === T.DOT || this.la() === T.LBRACKET) {
        this.sync(126);
        const alt = this.predictPostfix();
        const n: MemberNode = { rule: 'member', alt: 'select', start: last.start, operand: last };
        last = n;
        if (alt === 1) {
          n.op = this.match(105, T.DOT);
          this.sync(107);
          if (this.la() === T.QUESTIONMARK) n.opt = this.match(106, T.QUESTIONMARK);
          this.state = 109;
          n.field = this.escapeIdent();
        } else if (alt === 2) {
          n.alt = 'call';
          n.op = this.match(111, T.DOT);
          n.id = this.match(112, T.IDENTIFIER);
          n.open = this.match(113, T.LPAREN);
          this.sync(115);
          if (IS_EXPR_START.has(this.la())) {
            this.state = 114;
            n.args = this.exprList();
          }
          this.match(117, T.RPAREN);
        } else {
          n.alt = 'index';
          n.op = this.match(119, T.LBRACKET);
          this.sync(121);
          if (this.la() === T.QUESTIONMARK) n.opt = this.match(120, T.QUESTIONMARK);
          this.state = 123;
          n.index = this.expr();
          this.match(124, T.RPRACKET);
        }
        this.state = 130;
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(node);
    last.stop = this.ts.LT(-1);
    return last;
  }

  private primary(): PrimaryNode {
    const n = this.enter(RULE.primary, { rule: 'primary', alt: 'error', start: this.ts.LT(1), ids: [] } as PrimaryNode);
    try {
      this.sync(184);
      switch (this.predictPrimary()) {
        case 1:
          n.alt = 'ident';
          this.sync(132);
          if (this.la() === T.DOT) n.leadingDot = this.match(131, T.DOT);
          n.id = this.match(134, T.IDENTIFIER);
          break;
        case 2:
          n.alt = 'call';
          this.sync(136);
          if (this.la() === T.DOT) n.leadingDot = this.match(135, T.DOT);
          n.id = this.match(138, T.IDENTIFIER);
          n.op = this.match(139, T.LPAREN);
          this.sync(141);
          if (IS_EXPR_START.has(this.la())) {
            this.state = 140;
            n.args = this.exprList();
          }
          this.match(143, T.RPAREN);
          break;
        case 3:
          n.alt = 'nested';
          this.match(144, T.LPAREN);
          this.state = 145;
          n.e = this.expr();
          this.match(146, T.RPAREN);
          break;
        case 4:
          n.alt = 'list';
          n.op = this.match(148, T.LBRACKET);
          this.sync(150);
          if (IS_OPT_EXPR_START.has(this.la())) {
            this.state = 149;
            n.elems = this.listInit();
          }
          this.sync(153);
          if (this.la() === T.COMMA) this.match(152, T.COMMA);
          this.match(155, T.RPRACKET);
          break;
        case 5:
          n.alt = 'map';
          n.op = this.match(156, T.LBRACE);
          this.sync(158);
          if (IS_OPT_EXPR_START.has(this.la())) {
            this.state = 157;
            n.entries = this.mapInit();
          }
          this.sync(161);
          if (this.la() === T.COMMA) this.match(160, T.COMMA);
          this.match(163, T.RBRACE);
          break;
        case 6:
          n.alt = 'message';
          this.sync(165);
          if (this.la() === T.DOT) n.leadingDot = this.match(164, T.DOT);
          n.ids.push(this.match(167, T.IDENTIFIER));
          this.sync(172);
          while (this.la() === T.DOT) {
            this.match(168, T.DOT);
            n.ids.push(this.match(169, T.IDENTIFIER));
            this.sync(174);
          }
          n.op = this.match(175, T.LBRACE);
          this.sync(177);
          if (IS_FIELD_START.has(this.la())) {
            this.state = 176;
            n.fields = this.fieldInit();
          }
          this.sync(180);
          if (this.la() === T.COMMA) this.match(179, T.COMMA);
          this.match(182, T.RBRACE);
          break;
        default:
          n.alt = 'literal';
          this.state = 183;
          n.literal = this.literal();
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private exprList(): ExprListNode {
    const n = this.enter(RULE.exprList, { rule: 'exprList', start: this.ts.LT(1), e: [] } as ExprListNode);
    try {
      this.state = 186;
      n.e.push(this.expr());
      this.state = 191;
      while (this.la() === T.COMMA) {
        this.match(187, T.COMMA);
        this.state = 188;
        n.e.push(this.expr());
        this.state = 193;
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private listInit(): ListInitNode {
    const n = this.enter(RULE.listInit, { rule: 'listInit', start: this.ts.LT(1), elems: [] } as ListInitNode);
    try {
      this.state = 194;
      n.elems.push(this.optExpr());
      this.state = 199;
      while (this.continuesList(IS_OPT_EXPR_START, T.RPRACKET)) {
        this.match(195, T.COMMA);
        this.state = 196;
        n.elems.push(this.optExpr());
        this.state = 201;
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private fieldInit(): FieldInitNode {
    const n = this.enter(RULE.fieldInit, {
      rule: 'fieldInit',
      start: this.ts.LT(1),
      fields: [],
      cols: [],
      values: [],
    } as FieldInitNode);
    try {
      this.state = 202;
      n.fields.push(this.optField());
      n.cols.push(this.match(203, T.COLON));
      this.state = 204;
      n.values.push(this.expr());
      this.state = 212;
      while (this.continuesList(IS_FIELD_START, T.RBRACE)) {
        this.match(205, T.COMMA);
        this.state = 206;
        n.fields.push(this.optField());
        n.cols.push(this.match(207, T.COLON));
        this.state = 208;
        n.values.push(this.expr());
        this.state = 214;
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private optField(): OptFieldNode {
    const n = this.enter(RULE.optField, { rule: 'optField', start: this.ts.LT(1) } as OptFieldNode);
    try {
      this.sync(216);
      if (this.la() === T.QUESTIONMARK) n.opt = this.match(215, T.QUESTIONMARK);
      this.state = 218;
      n.ident = this.escapeIdent();
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private mapInit(): MapInitNode {
    const n = this.enter(RULE.mapInit, {
      rule: 'mapInit',
      start: this.ts.LT(1),
      keys: [],
      cols: [],
      values: [],
    } as MapInitNode);
    try {
      this.state = 220;
      n.keys.push(this.optExpr());
      n.cols.push(this.match(221, T.COLON));
      this.state = 222;
      n.values.push(this.expr());
      this.state = 230;
      while (this.continuesList(IS_OPT_EXPR_START, T.RBRACE)) {
        this.match(223, T.COMMA);
        this.state = 224;
        n.keys.push(this.optExpr());
        n.cols.push(this.match(225, T.COLON));
        this.state = 226;
        n.values.push(this.expr());
        this.state = 232;
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private escapeIdent(): EscapeIdentNode {
    const n = this.enter(RULE.escapeIdent, {
      rule: 'escapeIdent',
      alt: 'error',
      start: this.ts.LT(1),
    } as EscapeIdentNode);
    try {
      this.sync(235);
      const t = this.la();
      if (t === T.IDENTIFIER) {
        n.alt = 'simple';
        n.id = this.match(233, T.IDENTIFIER);
      } else if (t === T.ESC_IDENTIFIER) {
        n.alt = 'escaped';
        n.id = this.match(234, T.ESC_IDENTIFIER);
      } else throw this.noViable(this.ts.LT(1), this.ts.LT(1));
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private optExpr(): OptExprNode {
    const n = this.enter(RULE.optExpr, { rule: 'optExpr', start: this.ts.LT(1) } as OptExprNode);
    try {
      this.sync(238);
      if (this.la() === T.QUESTIONMARK) n.opt = this.match(237, T.QUESTIONMARK);
      this.state = 240;
      n.e = this.expr();
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }

  private literal(): LiteralNode {
    const n = this.enter(RULE.literal, { rule: 'literal', alt: 'error', start: this.ts.LT(1) } as LiteralNode);
    try {
      this.sync(256);
      switch (this.predictLiteral()) {
        case 1:
          n.alt = 'int';
          this.sync(243);
          if (this.la() === T.MINUS) n.sign = this.match(242, T.MINUS);
          n.tok = this.match(245, T.NUM_INT);
          break;
        case 2:
          n.alt = 'uint';
          n.tok = this.match(246, T.NUM_UINT);
          break;
        case 3:
          n.alt = 'double';
          this.sync(248);
          if (this.la() === T.MINUS) n.sign = this.match(247, T.MINUS);
          n.tok = this.match(250, T.NUM_FLOAT);
          break;
        case 4:
          n.alt = 'string';
          n.tok = this.match(251, T.STRING);
          break;
        case 5:
          n.alt = 'bytes';
          n.tok = this.match(252, T.BYTES);
          break;
        case 6:
          n.alt = 'true';
          n.tok = this.match(253, T.CEL_TRUE);
          break;
        case 7:
          n.alt = 'false';
          n.tok = this.match(254, T.CEL_FALSE);
          break;
        default:
          n.alt = 'null';
          n.tok = this.match(255, T.NUL);
      }
    } catch (e) {
      this.recoverFrom(e);
    }
    this.exit(n);
    return n;
  }
}
