// Label selectors exactly as k8s.io/apimachinery/pkg/labels parses and matches them: the same
// lexer and recursive-descent parser (so the same inputs fail, with the same text), the same
// requirement validation (field paths and all), and the same matching rules. The apiserver
// answers a bad `labelSelector` with a 400 whose message is the parser's error as it stands.
import { aggregateErrors, badRequest } from '../errors.js';
import { type FieldError, formatFieldError, goQuote, index, invalid, key as keyPath } from '../field-errors.js';
import { isQualifiedName, isValidLabelValue } from '../validation/names.js';
import { compareGoStrings } from '../go-sort.js';

/** kube's selection.Operator values. */
type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and without duplicates when parsed from a string, as kube's sets.String.List(). */
  readonly values: readonly string[];
}

export interface LabelSelector {
  /** ANDed; none at all selects everything. */
  readonly requirements: readonly LabelRequirement[];
  /** labels.Nothing(): what a nil metav1.LabelSelector converts to. */
  readonly matchesNothing: boolean;
}

/** metav1.LabelSelector as it appears in objects. */
export interface MetaLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

type Labels = Readonly<Record<string, string>>;

/**
 * strconv.ParseInt(s, 10, 64). The error is Go's NumError text minus the function name, so
 * callers can prefix `strconv.ParseInt: ` where kube surfaces it.
 */
export function parseGoInt64(s: string): { value: bigint } | { error: string } {
  const syntax = { error: `parsing ${goQuote(s)}: invalid syntax` };
  const range = { error: `parsing ${goQuote(s)}: value out of range` };
  let digits = s;
  let negative = false;
  if (s.startsWith('+') || s.startsWith('-')) {
    negative = s.startsWith('-');
    digits = s.slice(1);
  }
  if (digits === '') return syntax;
  // ParseUint stops at the first overflow of uint64 before looking at later characters.
  let n = 0n;
  for (const c of digits) {
    if (c < '0' || c > '9') return syntax;
    n = n * 10n + BigInt(c.charCodeAt(0) - 48);
    if (n > 0xffff_ffff_ffff_ffffn) return range;
  }
  if (!negative && n > 0x7fff_ffff_ffff_ffffn) return range;
  if (negative && n > 0x8000_0000_0000_0000n) return range;
  return { value: negative ? -n : n };
}

// ---- Requirements ----------------------------------------------------------------------------

/** validateLabelKey: the whole qualified-name complaint on one field error. */
function labelKeyError(k: string, path: string): FieldError | undefined {
  const errs = isQualifiedName(k);
  return errs.length ? invalid(path, k, errs.join('; ')) : undefined;
}

/** Go's %#v of a []string, which field.Invalid prints for a whole values list. */
function goStringSlice(vals: readonly string[]): string {
  return vals.length === 0 ? '[]string(nil)' : `[]string{${vals.map(goQuote).join(', ')}}`;
}

/**
 * labels.NewRequirement with no field path: every problem with the key, the operator's arity and
 * the values, aggregated. Returns the requirement or kube's error text.
 */
function newRequirement(
  k: string,
  operator: LabelOperator,
  vals: readonly string[],
): LabelRequirement | { error: string } {
  const errs: string[] = [];
  const keyErr = labelKeyError(k, 'key');
  if (keyErr) errs.push(formatFieldError(keyErr));
  // formatBadValue cannot print Go's %#v of a slice, so these are written out here.
  const wholeValues = (detail: string): string => `values: Invalid value: ${goStringSlice(vals)}: ${detail}`;
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0) errs.push(wholeValues("for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) errs.push(wholeValues('exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0) errs.push(wholeValues('values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1) errs.push(wholeValues("for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if ('error' in parseGoInt64(v)) {
          errs.push(
            formatFieldError(invalid(index('values', i), v, "for 'Gt', 'Lt' operators, the value must be an integer")),
          );
        }
      });
      break;
  }
  vals.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) errs.push(formatFieldError(invalid(keyPath(index('values', i), k), v, valueErrs.join('; '))));
  });
  return errs.length ? { error: aggregateErrors(errs) } : { key: k, operator, values: vals };
}

// ---- Lexer -----------------------------------------------------------------------------------

type Token = 'eos' | 'id' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'in' | 'notin';

interface Item {
  tok: Token;
  lit: string;
}

const OPERATOR_TOKENS = new Set<string>(['(', ')', ',', '!', '=', '==', '!=', '>', '<']);
const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch);
/** Go's lexer reads a NUL byte and the end of input alike (both are byte 0). */
const END = '\0';

class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  private read(): string {
    if (this.pos >= this.s.length) return END;
    return this.s[this.pos++]!;
  }

  private unread(): void {
    this.pos--;
  }

  lex(): Item {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === END) return { tok: 'eos', lit: '' };
    this.unread();
    return isSpecial(ch) ? this.scanSpecial() : this.scanIdentifier();
  }

  /**
   * The longest operator made of special characters: `!=` rather than `!`, `==` rather than `=`.
   * Every special character is an operator by itself, so the first one always is one.
   */
  private scanSpecial(): Item {
    let op = this.read();
    for (;;) {
      const ch = this.read();
      // As in Go, a NUL right after an operator is swallowed, not taken as the end.
      if (ch === END) break;
      if (!OPERATOR_TOKENS.has(op + ch)) {
        this.unread();
        break;
      }
      op += ch;
    }
    return { tok: op as Token, lit: op };
  }

  private scanIdentifier(): Item {
    let buffer = '';
    for (;;) {
      const ch = this.read();
      if (ch === END) break;
      if (isSpecial(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buffer += ch;
    }
    if (buffer === 'in' || buffer === 'notin') return { tok: buffer, lit: buffer };
    return { tok: 'id', lit: buffer };
  }
}

// ---- Parser ----------------------------------------------------------------------------------

/** Where `in`/`notin` are keywords (after a key) and where they are plain values. */
type Context = 'keyAndOperator' | 'values';

class ParseError extends Error {}

class Parser {
  private readonly items: Item[] = [];
  private position = 0;

  constructor(selector: string) {
    const lexer = new Lexer(selector);
    for (;;) {
      const item = lexer.lex();
      this.items.push(item);
      if (item.tok === 'eos') break;
    }
  }

  private lookahead(ctx: Context): Item {
    return this.asContext(this.items[this.position]!, ctx);
  }

  private consume(ctx: Context): Item {
    return this.asContext(this.items[this.position++]!, ctx);
  }

  private asContext(item: Item, ctx: Context): Item {
    return ctx === 'values' && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'id', lit: item.lit } : item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead('values');
      if (tok === 'eos') return requirements;
      if (tok !== 'id' && tok !== '!')
        throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        requirements.push(this.parseRequirement());
      } catch (err) {
        if (err instanceof ParseError) throw new ParseError(`unable to parse requirement: ${err.message}`);
        throw err;
      }
      const next = this.consume('values');
      if (next.tok === 'eos') return requirements;
      if (next.tok !== ',') throw new ParseError(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.lookahead('values');
      if (after.tok !== 'id' && after.tok !== '!')
        throw new ParseError(`found '${after.lit}', expected: identifier after ','`);
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    let result: LabelRequirement | { error: string };
    if (operator === 'exists' || operator === '!') {
      result = newRequirement(key, operator, []);
    } else {
      const op = this.parseOperator();
      const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
      result = newRequirement(key, op, [...values].sort(compareGoStrings));
    }
    if ('error' in result) throw new ParseError(result.error);
    return result;
  }

  /** The key, and `exists` (or `!`) when nothing but `,` or the end follows it. */
  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | undefined } {
    let operator: LabelOperator | undefined;
    let item = this.consume('values');
    if (item.tok === '!') {
      operator = '!';
      item = this.consume('values');
    }
    if (item.tok !== 'id') throw new ParseError(`found '${item.lit}', expected: identifier`);
    // kube validates the key against a nil field path here, hence its `<nil>: Invalid value`.
    const keyErr = labelKeyError(item.lit, '<nil>');
    if (keyErr) throw new ParseError(formatFieldError(keyErr));
    const next = this.lookahead('values').tok;
    if ((next === 'eos' || next === ',') && operator !== '!') operator = 'exists';
    return { key: item.lit, operator };
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume('keyAndOperator');
    switch (tok) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
        return tok;
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        // kube's text, unbalanced quote included.
        throw new ParseError(`found '${lit}', expected: '=', '!=', '==', 'in', notin'`);
    }
  }

  /** `(a,b,c)`: possibly empty, with empty members where commas leave gaps. */
  private parseValues(): Set<string> {
    const open = this.consume('values');
    if (open.tok !== '(') throw new ParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead('values');
    if (tok === ')') {
      this.consume('values');
      return new Set(['']);
    }
    if (tok !== 'id' && tok !== ',') throw new ParseError(`found '${lit}', expected: ',', ')' or identifier`);
    const values = this.parseIdentifiersList();
    // kube reports the token after `(`, not the one found, should this ever fail.
    if (this.consume('values').tok !== ')') throw new ParseError(`found '${lit}', expected: ')'`);
    return values;
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume('values');
      if (tok === 'id') {
        values.add(lit);
        const next = this.lookahead('values');
        if (next.tok === ',') continue;
        if (next.tok === ')') return values;
        throw new ParseError(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok !== ',') throw new ParseError(`found '${lit}', expected: ',', or identifier`);
      // A comma with nothing before it, after it, or next to another comma stands for "".
      if (values.size === 0) values.add('');
      const next = this.lookahead('values').tok;
      if (next === ')') {
        values.add('');
        return values;
      }
      if (next === ',') {
        this.consume('values');
        values.add('');
      }
    }
  }

  /** The value after `=`, `==`, `!=`, `>` or `<`; nothing at all means "". */
  private parseExactValue(): Set<string> {
    const next = this.lookahead('values').tok;
    if (next === 'eos' || next === ',') return new Set(['']);
    const { tok, lit } = this.consume('values');
    if (tok === 'id') return new Set([lit]);
    throw new ParseError(`found '${lit}', expected: identifier`);
  }
}

// ---- Public API ------------------------------------------------------------------------------

export const EVERYTHING: LabelSelector = { requirements: [], matchesNothing: false };

/** labels.Parse; a bad selector is the 400 the apiserver sends, with the parser's text. */
export function parseLabelSelector(s: string): LabelSelector {
  try {
    return { requirements: new Parser(s).parse(), matchesNothing: false };
  } catch (err) {
    if (err instanceof ParseError) throw badRequest(err.message);
    throw err;
  }
}

const META_OPERATORS: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector: absent matches nothing, empty matches everything. A bad
 * selector throws a 400 with kube's text (callers with another status to give can re-wrap it).
 */
export function labelSelectorFromMeta(ps: MetaLabelSelector | null | undefined): LabelSelector {
  if (!ps) return { requirements: [], matchesNothing: true };
  const matchLabels = Object.entries(ps.matchLabels ?? {}).sort(([a], [b]) => compareGoStrings(a, b));
  const expressions = ps.matchExpressions ?? [];
  const requirements: LabelRequirement[] = [];
  const add = (r: LabelRequirement | { error: string }): void => {
    if ('error' in r) throw badRequest(r.error);
    requirements.push(r);
  };
  for (const [k, v] of matchLabels) add(newRequirement(k, '=', [v]));
  for (const expr of expressions) {
    const op = META_OPERATORS[expr.operator];
    if (!op) throw badRequest(`${goQuote(expr.operator)} is not a valid label selector operator`);
    add(newRequirement(expr.key, op, [...(expr.values ?? [])]));
  }
  return { requirements, matchesNothing: false };
}

function matchesRequirement(r: LabelRequirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key]! : '';
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseGoInt64(value);
      const wanted = parseGoInt64(r.values[0]!);
      if ('error' in actual || 'error' in wanted) return false;
      return r.operator === 'gt' ? actual.value > wanted.value : actual.value < wanted.value;
    }
  }
}

export function matchesLabels(sel: LabelSelector, labels: Labels | undefined): boolean {
  if (sel.matchesNothing) return false;
  const set = labels ?? {};
  return sel.requirements.every((r) => matchesRequirement(r, set));
}
