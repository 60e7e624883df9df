// cel-go's debug form of an AST (common/debug/debug.go): the text cel-go's tests and
// cel-spec's parsing and checking data compare against. An adorner appends metadata to each
// node, e.g. its kind (`^#*expr.Expr_IdentExpr#`) or its id.
import type { Constant, Expr, StructEntry } from './ast.js';
import { goQuote, goQuoteBytes } from '../apimachinery/quote.js';

export type Adorner = (e: Expr | StructEntry, isEntry: boolean) => string;

const noAdorner: Adorner = () => '';

function constantKind(c: Constant): string {
  const names: Record<Constant['kind'], string> = {
    null: 'NullValue',
    bool: 'BoolValue',
    int: 'Int64Value',
    uint: 'Uint64Value',
    double: 'DoubleValue',
    string: 'StringValue',
    bytes: 'BytesValue',
  };
  return `*expr.Constant_${names[c.kind]}`;
}

/** The proto kind of a node, as cel-go's tests print it. */
function exprKindName(e: Expr): string {
  switch (e.kind) {
    case 'constant':
      return constantKind(e.value);
    case 'ident':
      return '*expr.Expr_IdentExpr';
    case 'select':
      return '*expr.Expr_SelectExpr';
    case 'call':
      return '*expr.Expr_CallExpr';
    case 'list':
      return '*expr.Expr_ListExpr';
    case 'struct':
      return '*expr.Expr_StructExpr';
    case 'comprehension':
      return '*expr.Expr_ComprehensionExpr';
    default:
      return '';
  }
}

/** `^#<kind>#`, as cel-spec's parsing data is adorned. */
export const kindAdorner: Adorner = (e, isEntry) =>
  `^#${isEntry ? '*expr.Expr_CreateStruct_Entry' : exprKindName(e as Expr)}#`;

/** `^#<id>:<kind>#`, as cel-go's parser tests are adorned. */
export const idKindAdorner: Adorner = (e, isEntry) =>
  `^#${e.id}:${isEntry ? '*expr.Expr_CreateStruct_Entry' : exprKindName(e as Expr)}#`;

class Writer {
  private out = '';
  private indent = 0;
  private lineStart = true;

  constructor(private readonly adorn: Adorner) {}

  private append(s: string): void {
    if (this.lineStart) {
      this.lineStart = false;
      this.out += '  '.repeat(this.indent);
    }
    this.out += s;
  }

  private newline(): void {
    this.out += '\n';
    this.lineStart = true;
  }

  /** Items separated by ",\n", each written by f, inside the current indentation. */
  private items<X>(xs: readonly X[], f: (x: X) => void): void {
    xs.forEach((x, i) => {
      if (i > 0) {
        this.append(',');
        this.newline();
      }
      f(x);
    });
  }

  expr(e: Expr): void {
    switch (e.kind) {
      case 'constant':
        this.append(formatConstant(e.value));
        break;
      case 'ident':
        this.append(e.name);
        break;
      case 'select':
        this.expr(e.operand);
        this.append(`.${e.field}`);
        if (e.testOnly) this.append('~test-only~');
        break;
      case 'call':
        if (e.target !== undefined) {
          this.expr(e.target);
          this.append('.');
        }
        this.append(`${e.function}(`);
        if (e.args.length > 0) {
          this.indent++;
          this.newline();
          this.items(e.args, (a) => this.expr(a));
          this.indent--;
          this.newline();
        }
        this.append(')');
        break;
      case 'list':
        this.append('[');
        if (e.elements.length > 0) {
          this.newline();
          this.indent++;
          this.items(e.elements, (a) => this.expr(a));
          this.indent--;
          this.newline();
        }
        this.append(']');
        break;
      case 'struct':
        this.append(`${e.messageName}{`);
        if (e.entries.length > 0) {
          this.newline();
          this.indent++;
          this.items(e.entries, (en) => {
            if (en.optionalEntry) this.append('?');
            if (en.key.kind === 'field') this.append(en.key.name);
            else this.expr(en.key.key);
            this.append(':');
            this.expr(en.value);
            this.append(this.adorn(en, true));
          });
          this.indent--;
          this.newline();
        }
        this.append('}');
        break;
      case 'comprehension':
        this.comprehension(e);
        break;
      default:
        break;
    }
    this.append(this.adorn(e, false));
  }

  private comprehension(e: Extract<Expr, { kind: 'comprehension' }>): void {
    this.append('__comprehension__(');
    this.indent++;
    this.newline();
    const part = (label: string, f: () => void, last = false): void => {
      this.append(`// ${label}`);
      this.newline();
      f();
      if (!last) {
        this.append(',');
        this.newline();
      }
    };
    part('Variable', () => this.append(e.iterVar));
    if (e.iterVar2 !== '') part('Variable2', () => this.append(e.iterVar2));
    part('Target', () => this.expr(e.iterRange));
    part('Accumulator', () => this.append(e.accuVar));
    part('Init', () => this.expr(e.accuInit));
    part('LoopCondition', () => this.expr(e.loopCondition));
    part('LoopStep', () => this.expr(e.loopStep));
    part('Result', () => this.expr(e.result), true);
    this.append(')');
    this.indent--;
  }

  toString(): string {
    return this.out;
  }
}

/** cel-go's debug.ToAdornedDebugString. Recursion follows the tree, whose depth the parser bounds. */
export function toDebugString(e: Expr, adorn: Adorner = noAdorner): string {
  const w = new Writer(adorn);
  w.expr(e);
  return w.toString();
}

function formatConstant(c: Constant): string {
  switch (c.kind) {
    case 'null':
      return 'null';
    case 'bool':
      return c.value ? 'true' : 'false';
    case 'int':
      return c.value.toString();
    case 'uint':
      return `${c.value.toString()}u`;
    case 'double':
      return formatDouble(c.value);
    case 'string':
      return goQuote(c.value);
    case 'bytes':
      return `b${goQuoteBytes(c.value)}`;
  }
}

/** Go's strconv.FormatFloat(v, 'g', -1, 64): shortest digits, exponent form below 1e-4 or from 1e6. */
function formatDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mant, expText] = v.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${mant}e${sign}${abs < 10 ? `0${abs}` : abs}`;
  }
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let s: string;
  if (exp >= 0) {
    const intLen = exp + 1;
    s =
      digits.length <= intLen
        ? digits + '0'.repeat(intLen - digits.length)
        : `${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
  } else s = `0.${'0'.repeat(-exp - 1)}${digits}`;
  return (neg ? '-' : '') + s;
}
