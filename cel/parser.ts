// CEL's parser as cel-go's parser.Parser: the parse tree (syntax.ts) turned into cel-spec's
// AST (ast.ts) by a visitor that follows cel-go's parser.go: operators become calls, `&&`
// and `||` chains become balanced trees, macros are expanded, ids are numbered in cel-go's
// order, and the errors (syntax and semantic) are cel-go's, at cel-go's positions.
import {
  type Constant,
  type Expr,
  type OffsetRange,
  type ParsedExpr,
  type SourceInfo,
  type StructEntry,
  Operators,
  call,
  comprehension,
  constant,
  fieldEntry,
  ident,
  list,
  mapEntry,
  select,
  struct,
  unspecified,
} from './ast.js';
import {
  type Macro,
  type MacroHelper,
  HIDDEN_ACCUMULATOR,
  LEGACY_ACCUMULATOR,
  OPTIONAL_MACROS,
  STANDARD_MACROS,
  TWO_VAR_COMPREHENSION_MACROS,
  macroKey,
} from './macros.js';
import { type Location, Issues, NO_LOCATION, Source } from './source.js';
import type { Token } from './lexer.js';
import {
  type AndNode,
  type CalcNode,
  type EscapeIdentNode,
  type ExprListNode,
  type ExprNode,
  type FieldInitNode,
  type ListInitNode,
  type LiteralNode,
  type MapInitNode,
  type MemberNode,
  type OrNode,
  type ParseNode,
  type PrimaryNode,
  type RelationNode,
  type UnaryNode,
  ParseAbort,
  SyntaxParser,
} from './syntax.js';
import { UnescapeError, unescapeBytes, unescapeString } from './unescape.js';
import { CEL_RESERVED_WORDS } from '../apimachinery/cel-reserved.js';

export interface ParserOptions {
  /** Nesting allowed per grammar rule, and AST depth the visitor allows (cel-go default 250; -1 for cel-go's unlimited; at most MAX_RECURSION_DEPTH). */
  readonly maxRecursionDepth?: number;
  /** Error recoveries before the parse gives up (default 30; -1: unlimited). */
  readonly errorRecoveryLimit?: number;
  /** Tokens one recovery may skip (default 256). */
  readonly errorRecoveryLookaheadTokenLimit?: number;
  /** Syntax errors reported before giving up (default 100). */
  readonly errorReportingLimit?: number;
  /** Longest expression, in code points (default 100,000; -1: unlimited). */
  readonly expressionSizeCodePointLimit?: number;
  /** Default: the standard macros (cel-go's AllMacros). */
  readonly macros?: readonly Macro[];
  /** Record each macro's call in SourceInfo.macroCalls (default false). */
  readonly populateMacroCalls?: boolean;
  /** `.?f`, `[?i]`, `{?k: v}`, `[?e]` (cel-go's EnableOptionalSyntax; default false). */
  readonly enableOptionalSyntax?: boolean;
  /** `a && b && c` as one call with three arguments instead of a balanced tree (default false). */
  readonly enableVariadicOperatorASTs?: boolean;
  /** Backquoted field names, a.`b-c` (default true, as cel-go's NewParser since 2026). */
  readonly enableIdentEscapeSyntax?: boolean;
  /** Name the accumulator '@result' rather than '__result__' (default true). */
  readonly enableHiddenAccumulatorName?: boolean;
  /** How errors name the source (default '<input>'). */
  readonly description?: string;
}

/**
 * The deepest nesting the parser accepts whatever a caller asks (-1, cel-go's "unlimited",
 * included): parsing recurses about eleven frames per nesting level and JavaScript's stack
 * is fixed; a cold (unoptimised) run overflows near 600 levels of `[[[...]]]`, so 400 keeps a
 * third in reserve. cel-go's default, and kube's, is 250.
 */
export const MAX_RECURSION_DEPTH = 400;

/**
 * What kube-apiserver's CEL environments parse with (k8s.io/apiserver/pkg/cel/environment/base.go):
 * cel-go's default limits (base.go sets none), the standard macros, optional syntax and its
 * macros (cel.OptionalTypes, from 1.28), the two-variable comprehensions (ext.TwoVarComprehensions,
 * from 1.32). Kube's cel-go predates escaped identifiers being on by default, and kube does not
 * enable them.
 */
export const KUBE_PARSER_OPTIONS: ParserOptions = {
  maxRecursionDepth: 250,
  errorRecoveryLimit: 30,
  errorRecoveryLookaheadTokenLimit: 256,
  errorReportingLimit: 100,
  expressionSizeCodePointLimit: 100_000,
  macros: [...STANDARD_MACROS, ...TWO_VAR_COMPREHENSION_MACROS, ...OPTIONAL_MACROS],
  enableOptionalSyntax: true,
  enableIdentEscapeSyntax: false,
};

export interface ParseResult {
  readonly ast: ParsedExpr;
  readonly issues: Issues;
}

const BINARY: Record<string, string> = {
  '==': Operators.equals,
  '!=': Operators.notEquals,
  '<': Operators.less,
  '<=': Operators.lessEquals,
  '>': Operators.greater,
  '>=': Operators.greaterEquals,
  in: Operators.in,
  '+': Operators.add,
  '-': Operators.subtract,
  '*': Operators.multiply,
  '/': Operators.divide,
  '%': Operators.modulo,
};

/** The Go type of each parse-tree context, as cel-go names an element it cannot visit. */
const GO_CONTEXT: Record<ParseNode['rule'], string> = {
  expr: 'Expr',
  or: 'ConditionalOr',
  and: 'ConditionalAnd',
  relation: 'Relation',
  calc: 'Calc',
  unary: 'Unary',
  member: 'Member',
  primary: 'Primary',
  exprList: 'ExprList',
  listInit: 'ListInit',
  fieldInit: 'FieldInitializerList',
  optField: 'OptField',
  mapInit: 'MapInitializerList',
  escapeIdent: 'EscapeIdent',
  optExpr: 'OptExpr',
  literal: 'Literal',
};

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const MAX_UINT64 = (1n << 64n) - 1n;

const normalizeLimit = (v: number | undefined, dflt: number, unlimited: number): number =>
  v === undefined || v === 0 ? dflt : v === -1 ? unlimited : v;

/** Parses one CEL expression. Errors are in `issues`; the AST is always returned, as cel-go returns it. */
export function parse(text: string, options: ParserOptions = {}): ParseResult {
  const source = new Source(text, options.description ?? '<input>');
  const issues = new Issues(source);
  const v = new Visitor(source, issues, options);
  const limit = normalizeLimit(options.expressionSizeCodePointLimit, 100_000, Number.MAX_SAFE_INTEGER);
  let expr: Expr;
  if (source.codePoints.length > limit) {
    expr = v.reportError(
      NO_LOCATION,
      `expression code point size exceeds limit: size: ${source.codePoints.length}, limit ${limit}`,
    );
  } else {
    expr = v.run();
  }
  return { ast: { expr, sourceInfo: v.sourceInfo() }, issues };
}

type IdContext = Token | ParseNode | Location | OffsetRange | undefined;

const isToken = (c: object): c is Token => 'type' in c && 'text' in c;
const isNode = (c: object): c is ParseNode => 'rule' in c;
const isLocation = (c: object): c is Location => 'line' in c && 'column' in c && !('type' in c);

/** The macros by key, built once per macro list (a parse per rule would otherwise build it each time). */
const macroTables = new WeakMap<readonly Macro[], ReadonlyMap<string, Macro>>();
function macroTable(macros: readonly Macro[]): ReadonlyMap<string, Macro> {
  let t = macroTables.get(macros);
  if (t === undefined) {
    t = new Map(macros.map((m) => [macroKey(m.name, m.argCount, m.receiver), m]));
    macroTables.set(macros, t);
  }
  return t;
}

class Visitor {
  private nextId = 1;
  private readonly positions = new Map<number, OffsetRange>();
  private readonly macroCalls = new Map<number, Expr>();
  private readonly macros: ReadonlyMap<string, Macro>;
  private readonly maxDepth: number;
  private depth = 0;
  private syntax: SyntaxParser | undefined;
  private readonly accuName: string;

  constructor(
    private readonly source: Source,
    private readonly issues: Issues,
    private readonly options: ParserOptions,
  ) {
    this.macros = macroTable(options.macros ?? STANDARD_MACROS);
    this.maxDepth = Math.min(normalizeLimit(options.maxRecursionDepth, 250, MAX_RECURSION_DEPTH), MAX_RECURSION_DEPTH);
    this.accuName = options.enableHiddenAccumulatorName === false ? LEGACY_ACCUMULATOR : HIDDEN_ACCUMULATOR;
  }

  sourceInfo(): SourceInfo {
    return {
      description: this.source.description,
      lineOffsets: this.source.lineOffsets,
      positions: this.positions,
      macroCalls: this.macroCalls,
    };
  }

  run(): Expr {
    const o = this.options;
    this.syntax = new SyntaxParser(
      this.source.codePoints,
      {
        maxRecursionDepth: this.maxDepth,
        errorRecoveryLimit: normalizeLimit(o.errorRecoveryLimit, 30, Number.MAX_SAFE_INTEGER),
        errorRecoveryLookaheadTokenLimit: o.errorRecoveryLookaheadTokenLimit || 256,
        errorReportingLimit: o.errorReportingLimit || 100,
      },
      (line, column, message) =>
        this.issues.report(0, this.source.locationOf(this.source.offsetOf(line, column)), `Syntax error: ${message}`),
    );
    try {
      const tree = this.syntax.parse();
      return this.visit(tree);
    } catch (e) {
      if (!(e instanceof ParseAbort)) throw e;
      if (e.internalMessage !== undefined) this.issues.report(0, NO_LOCATION, e.internalMessage);
      return unspecified(0);
    }
  }

  // ---- ids and positions (cel-go's parserHelper) ----

  private offsetRange(ctx: IdContext): OffsetRange | undefined {
    if (ctx === undefined) return undefined;
    if (isToken(ctx)) {
      const start = this.source.offsetOf(ctx.line, ctx.column);
      return { start, stop: start + [...ctx.text].length };
    }
    if (isNode(ctx)) {
      const start = this.source.offsetOf(ctx.start.line, ctx.start.column);
      return { start, stop: start + this.syntax!.textLength(ctx) };
    }
    if (isLocation(ctx)) {
      const start = this.source.offsetOf(ctx.line, ctx.column);
      return { start, stop: start };
    }
    return ctx;
  }

  /** A new id positioned at ctx (-1 when there is no ctx, as cel-go does). */
  private id(ctx: IdContext): number {
    const r = this.offsetRange(ctx);
    if (r === undefined) return -1;
    const id = this.nextId++;
    this.positions.set(id, r);
    return id;
  }

  private deleteId(id: number): void {
    this.positions.delete(id);
    if (id === this.nextId - 1) this.nextId--;
  }

  private location(id: number): Location {
    const r = this.positions.get(id);
    return r === undefined ? NO_LOCATION : this.source.locationOf(r.start);
  }

  /** Reports an error at ctx and returns the placeholder expression cel-go puts in its place. */
  reportError(ctx: IdContext, message: string): Expr {
    const err = unspecified(this.id(ctx));
    const loc = ctx !== undefined && isLocation(ctx) ? ctx : this.location(err.id);
    this.issues.report(err.id, loc, message);
    return err;
  }

  private literal(ctx: IdContext, value: Constant): Expr {
    return constant(this.id(ctx), value);
  }

  // ---- the visitor ----

  private enterDepth(): void {
    if (++this.depth > this.maxDepth) throw new ParseAbort('max recursion depth exceeded');
  }

  /** cel-go's unnest: skip the contexts that only wrap one child. */
  private unnest(n: ParseNode | undefined): ParseNode | undefined {
    while (n !== undefined) {
      switch (n.rule) {
        case 'expr':
          if (n.op !== undefined) return n;
          n = n.e;
          break;
        case 'or':
        case 'and':
          if (n.ops.length > 0) return n;
          n = n.e;
          break;
        case 'relation':
          if (n.op !== undefined) return n;
          n = n.calc;
          break;
        case 'calc':
          if (n.op !== undefined) return n;
          n = n.unary;
          break;
        case 'unary':
          if (n.alt !== 'member') return n;
          n = n.member;
          break;
        case 'member':
          if (n.alt !== 'primary') return n;
          n = n.primary;
          break;
        case 'primary':
          if (n.alt === 'nested') n = n.e;
          else if (n.alt === 'literal') n = n.literal;
          else return n;
          break;
        default:
          return n;
      }
    }
    return n;
  }

  private visit(node: ParseNode | undefined): Expr {
    const n = this.unnest(node);
    const depthCounted = (f: () => Expr): Expr => {
      this.enterDepth();
      const out = f();
      this.depth--;
      return out;
    };
    switch (n?.rule) {
      case 'expr':
        return depthCounted(() => this.visitExpr(n));
      case 'or':
        return this.visitLogic(n, Operators.logicalOr, "'||'");
      case 'and':
        return this.visitLogic(n, Operators.logicalAnd, "'&&'");
      case 'relation':
      case 'calc':
        return depthCounted(() => this.visitBinary(n));
      case 'unary':
        return this.visitUnary(n);
      case 'member':
        return depthCounted(() => this.visitMember(n));
      case 'primary':
        return this.visitPrimary(n);
      case 'literal':
        return this.visitLiteral(n);
    }
    return this.unknownElement(n);
  }

  /** A node the grammar could not complete: cel-go reports one error, if none was reported yet, naming the Go context type. */
  private unknownElement(n: ParseNode | undefined): Expr {
    if (this.issues.length > 0) return unspecified(this.id(NO_LOCATION));
    return this.reportError(
      NO_LOCATION,
      `unknown parse element encountered: ${n === undefined ? '<<nil>>' : `<<*gen.${GO_CONTEXT[n.rule]}Context>>`}`,
    );
  }

  private visitExpr(n: ExprNode): Expr {
    const cond = this.visit(n.e);
    const opId = this.id(n.op);
    const ifTrue = this.visit(n.e1);
    const ifFalse = this.visit(n.e2);
    return this.globalCallOrMacro(opId, Operators.conditional, [cond, ifTrue, ifFalse]);
  }

  private visitLogic(n: OrNode | AndNode, fn: string, opText: string): Expr {
    const terms = [this.visit(n.e)];
    const ops: number[] = [];
    for (let i = 0; i < n.ops.length; i++) {
      if (i >= n.rest.length) return this.reportError(n, `unexpected character, wanted ${opText}`);
      // cel-go visits the operand before numbering the operator.
      terms.push(this.visit(n.rest[i]));
      ops.push(this.id(n.ops[i]));
    }
    if (terms.length === 1) return terms[0]!;
    if (this.options.enableVariadicOperatorASTs) return call(ops[0]!, fn, terms);
    return balanced(fn, terms, ops);
  }

  private visitBinary(n: RelationNode | CalcNode): Expr {
    const fn = BINARY[n.op?.text ?? ''];
    if (fn === undefined) return this.reportError(n, 'operator not found');
    const lhs = this.visit(n.lhs);
    const opId = this.id(n.op);
    const rhs = this.visit(n.rhs);
    return this.globalCallOrMacro(opId, fn, [lhs, rhs]);
  }

  private visitUnary(n: UnaryNode): Expr {
    if (n.alt === 'error') return this.literal(n, { kind: 'string', value: '<<error>>' });
    if (n.ops.length % 2 === 0) return this.visit(n.member);
    const opId = this.id(n.ops[0]);
    const target = this.visit(n.member);
    return this.globalCallOrMacro(opId, n.alt === 'not' ? Operators.logicalNot : Operators.negate, [target]);
  }

  private visitMember(n: MemberNode): Expr {
    const operand = this.visit(n.operand);
    if (n.alt === 'select') {
      if (n.field === undefined || n.op === undefined) return unspecified(this.id(n));
      let field = this.normalizeIdent(n.field);
      if (typeof field !== 'string') {
        this.reportError(n.field, field.error);
        field = '';
      }
      if (n.opt === undefined) return select(this.id(n.op), operand, field);
      if (!this.options.enableOptionalSyntax) return this.reportError(n.op, "unsupported syntax '.?'");
      const name = this.literal(n.field, { kind: 'string', value: field });
      return call(this.id(n.op), Operators.optSelect, [operand, name]);
    }
    if (n.alt === 'call') {
      if (n.id === undefined) return unspecified(this.id(n));
      const opId = this.id(n.open);
      return this.receiverCallOrMacro(opId, n.id.text, operand, this.visitExprList(n.args));
    }
    if (n.op === undefined) return unspecified(this.id(n));
    const opId = this.id(n.op);
    const index = this.visit(n.index);
    let fn: string = Operators.index;
    if (n.opt !== undefined) {
      if (!this.options.enableOptionalSyntax) return this.reportError(n.op, "unsupported syntax '[?'");
      fn = Operators.optIndex;
    }
    return this.globalCallOrMacro(opId, fn, [operand, index]);
  }

  private normalizeIdent(n: EscapeIdentNode | undefined): string | { error: string } {
    if (n?.alt === 'simple') return n.id!.text;
    if (n?.alt === 'escaped') {
      if (this.options.enableIdentEscapeSyntax === false) return { error: "unsupported syntax: '`'" };
      const t = n.id!.text;
      if (t.length <= 2) return { error: 'invalid escaped identifier: underflow' };
      return t.slice(1, -1);
    }
    return { error: 'unsupported ident kind' };
  }

  private visitPrimary(n: PrimaryNode): Expr {
    switch (n.alt) {
      case 'ident':
      case 'call': {
        const prefix = n.leadingDot !== undefined ? '.' : '';
        if (n.id === undefined) return unspecified(this.id(n));
        const name = n.id.text;
        if (CEL_RESERVED_WORDS.has(name)) return this.reportError(n, `reserved identifier: ${name}`);
        if (n.alt === 'ident') return ident(this.id(n.id), prefix + name);
        const opId = this.id(n.op);
        return this.globalCallOrMacro(opId, prefix + name, this.visitExprList(n.args));
      }
      case 'list': {
        const listId = this.id(n.op);
        const { elements, optionals } = this.visitListInit(n.elems);
        return list(listId, elements, optionals);
      }
      case 'map': {
        const mapId = this.id(n.op);
        return struct(mapId, '', this.visitMapInit(n.entries));
      }
      case 'message': {
        const name = (n.leadingDot !== undefined ? '.' : '') + n.ids.map((t) => t.text).join('.');
        const objId = this.id(n.op);
        return struct(objId, name, this.visitFieldInit(n.fields));
      }
    }
    return this.unknownElement(n);
  }

  private visitExprList(n: ExprListNode | undefined): Expr[] {
    return n === undefined ? [] : n.e.map((e) => this.visit(e));
  }

  private visitListInit(n: ListInitNode | undefined): { elements: Expr[]; optionals: number[] } {
    const elements: Expr[] = [];
    const optionals: number[] = [];
    for (const [i, e] of (n?.elems ?? []).entries()) {
      elements.push(this.visit(e.e));
      if (e.opt === undefined) continue;
      if (!this.options.enableOptionalSyntax) {
        this.reportError(e.opt, "unsupported syntax '?'");
        continue;
      }
      optionals.push(i);
    }
    return { elements, optionals };
  }

  private visitMapInit(n: MapInitNode | undefined): StructEntry[] {
    if (n === undefined || n.keys.length === 0) return [];
    const out: StructEntry[] = [];
    for (let i = 0; i < n.cols.length; i++) {
      const colId = this.id(n.cols[i]);
      if (i >= n.keys.length || i >= n.values.length) return [];
      const k = n.keys[i]!;
      const optional = k.opt !== undefined;
      if (!this.options.enableOptionalSyntax && optional) {
        this.reportError(k, "unsupported syntax '?'");
        continue;
      }
      const key = this.visit(k.e);
      const value = this.visit(n.values[i]);
      out.push(mapEntry(colId, key, value, optional));
    }
    return out;
  }

  private visitFieldInit(n: FieldInitNode | undefined): StructEntry[] {
    if (n === undefined || n.fields.length === 0) return [];
    const out: StructEntry[] = [];
    for (let i = 0; i < n.fields.length; i++) {
      if (i >= n.cols.length || i >= n.values.length) return [];
      const initId = this.id(n.cols[i]);
      const f = n.fields[i]!;
      const optional = f.opt !== undefined;
      if (!this.options.enableOptionalSyntax && optional) {
        this.reportError(f, "unsupported syntax '?'");
        continue;
      }
      const name = this.normalizeIdent(f.ident);
      if (typeof name !== 'string') {
        this.reportError(n, name.error);
        continue;
      }
      out.push(fieldEntry(initId, name, this.visit(n.values[i]), optional));
    }
    return out;
  }

  private visitLiteral(n: LiteralNode): Expr {
    const text = n.tok?.text ?? '';
    switch (n.alt) {
      case 'int': {
        const v = parseInteger((n.sign?.text ?? '') + text);
        if (v === undefined || v > MAX_INT64 || v < MIN_INT64) return this.reportError(n, 'invalid int literal');
        return this.literal(n, { kind: 'int', value: v });
      }
      case 'uint': {
        const v = parseInteger(text.slice(0, -1));
        if (v === undefined || v > MAX_UINT64) return this.reportError(n, 'invalid uint literal');
        return this.literal(n, { kind: 'uint', value: v });
      }
      case 'double': {
        const v = Number((n.sign?.text ?? '') + text);
        if (!Number.isFinite(v)) return this.reportError(n, 'invalid double literal');
        return this.literal(n, { kind: 'double', value: v });
      }
      case 'string':
        return this.literal(n, { kind: 'string', value: this.unquote(n, text, unescapeString, (t) => t) });
      case 'bytes':
        return this.literal(n, {
          kind: 'bytes',
          value: this.unquote(
            n,
            text.slice(1),
            (t) => unescapeBytes(t, true),
            (t) => new TextEncoder().encode(t),
          ),
        });
      case 'true':
      case 'false':
        return this.literal(n, { kind: 'bool', value: n.alt === 'true' });
      case 'null':
        return this.literal(n, { kind: 'null' });
    }
    return this.unknownElement(n);
  }

  /** A literal's value; on a bad escape, the error and the literal's own text, as cel-go. */
  private unquote<T>(n: LiteralNode, text: string, value: (text: string) => T, asText: (text: string) => T): T {
    try {
      return value(text);
    } catch (e) {
      if (!(e instanceof UnescapeError)) throw e;
      this.reportError(n, e.message);
      return asText(text);
    }
  }

  // ---- calls and macros ----

  private globalCallOrMacro(id: number, fn: string, args: Expr[]): Expr {
    return this.expandMacro(id, fn, undefined, args) ?? call(id, fn, args);
  }

  private receiverCallOrMacro(id: number, fn: string, target: Expr, args: Expr[]): Expr {
    return this.expandMacro(id, fn, target, args) ?? call(id, fn, args, target);
  }

  private expandMacro(id: number, fn: string, target: Expr | undefined, args: Expr[]): Expr | undefined {
    const receiver = target !== undefined;
    const macro =
      this.macros.get(macroKey(fn, args.length, receiver)) ?? this.macros.get(macroKey(fn, 'vararg', receiver));
    if (macro === undefined) return undefined;
    const result = macro.expander(this.macroHelper(id), target, args);
    if (result === undefined) return undefined;
    if ('error' in result) {
      const loc = this.positions.has(result.error.exprId) ? this.location(result.error.exprId) : this.location(id);
      this.deleteId(id);
      return this.reportError(loc, result.error.message);
    }
    if (this.options.populateMacroCalls) this.addMacroCall(result.expr.id, fn, target, args);
    this.deleteId(id);
    return result.expr;
  }

  /** The node factory macros build with: each node at the macro call's position. */
  private macroHelper(callId: number): MacroHelper {
    const next = (): number => this.id(this.location(callId));
    const h: MacroHelper = {
      accuName: this.accuName,
      literal: (value) => constant(next(), value),
      list: (...elements) => list(next(), elements),
      map: (...entries) => struct(next(), '', entries),
      ident: (name) => ident(next(), name),
      accuIdent: () => ident(next(), this.accuName),
      call: (fn, ...args) => call(next(), fn, args),
      memberCall: (fn, target, ...args) => call(next(), fn, args, target),
      presenceTest: (operand, field) => select(next(), operand, field, true),
      comprehension: (p) => comprehension(next(), p),
      copy: (e) => this.copy(e, next),
    };
    return h;
  }

  /** A copy with fresh ids at the original positions (cel-go's exprHelper.Copy, in its order). */
  private copy(e: Expr, nextMacroId: () => number): Expr {
    const id = this.id(this.positions.get(e.id) ?? { start: 0, stop: 0 });
    const c = (x: Expr): Expr => this.copy(x, nextMacroId);
    switch (e.kind) {
      case 'constant':
        return constant(id, e.value);
      case 'ident':
        return ident(id, e.name);
      case 'select':
        return select(id, c(e.operand), e.field, e.testOnly);
      case 'call': {
        const args = e.args.map(c);
        return e.target === undefined ? call(id, e.function, args) : call(id, e.function, args, c(e.target));
      }
      case 'list':
        return list(id, e.elements.map(c), e.optionalIndices);
      case 'struct':
        return struct(
          id,
          e.messageName,
          e.entries.map((en) => {
            const entryId = nextMacroId();
            return en.key.kind === 'field'
              ? fieldEntry(entryId, en.key.name, c(en.value), en.optionalEntry)
              : mapEntry(entryId, c(en.key.key), c(en.value), en.optionalEntry);
          }),
        );
      case 'comprehension': {
        const iterRange = c(e.iterRange);
        const accuInit = c(e.accuInit);
        const loopCondition = c(e.loopCondition);
        const loopStep = c(e.loopStep);
        const result = c(e.result);
        return comprehension(id, {
          iterVar: e.iterVar,
          iterVar2: e.iterVar2,
          iterRange,
          accuVar: e.accuVar,
          accuInit,
          loopCondition,
          loopStep,
          result,
        });
      }
      default:
        return unspecified(id);
    }
  }

  private addMacroCall(id: number, fn: string, target: Expr | undefined, args: readonly Expr[]): void {
    const macroArgs = args.map((a) => this.macroCallArg(a));
    if (target === undefined) {
      this.macroCalls.set(id, call(0, fn, macroArgs));
      return;
    }
    const t = this.macroCalls.has(target.id) ? unspecified(target.id) : this.macroCallArg(target);
    this.macroCalls.set(id, call(0, fn, macroArgs, t));
  }

  /** An argument as the macro call records it: nested macros by their expansion's id. */
  private macroCallArg(e: Expr): Expr {
    if (this.macroCalls.has(e.id)) return unspecified(e.id);
    if (e.kind === 'call') {
      const args = e.args.map((a) => this.macroCallArg(a));
      return e.target === undefined
        ? call(e.id, e.function, args)
        : call(e.id, e.function, args, this.macroCallArg(e.target));
    }
    if (e.kind === 'list')
      return list(
        e.id,
        e.elements.map((x) => this.macroCallArg(x)),
        e.optionalIndices,
      );
    return e;
  }
}

/** `a || b || c || d` as a balanced tree of calls, as cel-go's logicManager builds it (depth log n). */
function balanced(fn: string, terms: readonly Expr[], ops: readonly number[]): Expr {
  const build = (lo: number, hi: number): Expr => {
    const mid = Math.floor((lo + hi + 1) / 2);
    const left = mid === lo ? terms[mid]! : build(lo, mid - 1);
    const right = mid === hi ? terms[mid + 1]! : build(mid + 1, hi);
    return call(ops[mid]!, fn, [left, right]);
  };
  return build(0, ops.length - 1);
}

/** Decimal or 0x-hex digits with an optional leading '-', as strconv.ParseInt/ParseUint read them. */
function parseInteger(text: string): bigint | undefined {
  const neg = text.startsWith('-');
  const body = neg ? text.slice(1) : text;
  const digits = body.startsWith('0x') ? body.slice(2) : body;
  if (digits === '' || !(body.startsWith('0x') ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits)) return undefined;
  const v = BigInt(body.startsWith('0x') ? `0x${digits}` : digits);
  return neg ? -v : v;
}
