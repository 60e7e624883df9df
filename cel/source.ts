// An expression's text as cel-go's common.Source holds it: code points (CEL positions count
// code points, not UTF-16 units or bytes), line starts, and errors printed as cel-go prints
// them (common/error.go, common/errors.go): `ERROR: <input>:1:5: message`, the line, and a
// caret under the column, with full-width dot and caret for multi-byte characters.

/** A 1-based line and 0-based column; cel-go's NoLocation is line -1, column -1. */
export interface Location {
  readonly line: number;
  readonly column: number;
}
export const NO_LOCATION: Location = { line: -1, column: -1 };

export class Source {
  /** The text as code points; a lone surrogate becomes U+FFFD, as Go decodes invalid UTF-8. */
  readonly codePoints: readonly number[];
  /** Offsets of the first character of lines 2, 3, ... */
  readonly lineOffsets: readonly number[];

  constructor(
    readonly text: string,
    readonly description = '<input>',
  ) {
    this.codePoints = toCodePoints(text);
    const offs: number[] = [];
    this.codePoints.forEach((c, i) => {
      if (c === 0x0a) offs.push(i + 1);
    });
    this.lineOffsets = offs;
  }

  /** The location of a code-point offset (common.Source.OffsetLocation). */
  locationOf(offset: number): Location {
    let line = 1;
    let start = 0;
    for (const o of this.lineOffsets) {
      if (o > offset) break;
      line++;
      start = o;
    }
    return { line, column: offset - start };
  }

  /** The offset of a line and column (ComputeOffset). */
  offsetOf(line: number, column: number): number {
    if (line === 1) return column;
    if (line < 1 || line > this.lineOffsets.length + 1) return -1;
    return this.lineOffsets[line - 2]! + column;
  }

  /** One line's text without its newline, or undefined past the end (common.Source.Snippet). */
  snippet(line: number): string | undefined {
    if (this.codePoints.length === 0) return undefined;
    const start = line === 1 ? 0 : line > 1 && line <= this.lineOffsets.length + 1 ? this.lineOffsets[line - 2]! : -1;
    if (start < 0) return undefined;
    const end = line - 1 < this.lineOffsets.length ? this.lineOffsets[line - 1]! - 1 : this.codePoints.length;
    return cpString(this.codePoints, start, end);
  }
}

/** Code points [start, end) as a string, in chunks: a spread of 100k arguments overflows. */
export function cpString(cp: readonly number[], start = 0, end = cp.length): string {
  let out = '';
  for (let i = start; i < end; i += 4096) out += String.fromCodePoint(...cp.slice(i, Math.min(end, i + 4096)));
  return out;
}

function toCodePoints(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out.push(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
        i++;
        continue;
      }
    }
    out.push(c >= 0xd800 && c <= 0xdfff ? 0xfffd : c);
  }
  return out;
}

/** One issue: the id of the expression it concerns (0 for syntax errors) and where it is. */
interface CelIssue {
  readonly exprId: number;
  readonly location: Location;
  readonly message: string;
}

/** cel-go prints at most this many errors, then how many it left out. */
const MAX_ERRORS_TO_REPORT = 100;
/** Longer lines are printed without the snippet (common/error.go maxSnippetLength, in bytes). */
const MAX_SNIPPET_BYTES = 16384;

/** The errors of one parse or check, kept in report order, printed sorted by location. */
export class Issues {
  private readonly list: CelIssue[] = [];
  private count = 0;

  constructor(readonly source: Source) {}

  report(exprId: number, location: Location, message: string): void {
    this.count++;
    if (this.count > MAX_ERRORS_TO_REPORT) return;
    this.list.push({ exprId, location, message });
  }

  get errors(): readonly CelIssue[] {
    return this.list;
  }

  get length(): number {
    return this.list.length;
  }

  /** Errors.ToDisplayString: sorted (stably) by line then column, one block each. */
  toDisplayString(): string {
    const sorted = [...this.list].sort(
      (a, b) => a.location.line - b.location.line || a.location.column - b.location.column,
    );
    const out = sorted.slice(0, MAX_ERRORS_TO_REPORT).map((e) => displayError(this.source, e));
    if (this.count > MAX_ERRORS_TO_REPORT) out.push(`${this.count - MAX_ERRORS_TO_REPORT} more errors were truncated`);
    return out.join('\n');
  }
}

/** Error.ToDisplayString: the message, then the line and a caret under the column. */
function displayError(source: Source, e: CelIssue): string {
  let out = `ERROR: ${source.description}:${e.location.line}:${e.location.column + 1}: ${e.message}`;
  const snippet = source.snippet(e.location.line);
  if (snippet === undefined || toCodePoints(snippet).reduce((n, c) => n + utf8Width(c), 0) > MAX_SNIPPET_BYTES)
    return out;
  const line = snippet.replaceAll('\t', ' ');
  const cps = toCodePoints(line);
  let ind = '';
  let i = 0;
  for (; i < e.location.column && i < cps.length; i++) ind += utf8Width(cps[i]!) > 1 ? '\uff0e' : '.';
  ind += i < cps.length && utf8Width(cps[i]!) > 1 ? '\uff3e' : '^';
  out += `\n | ${line}\n | ${ind}`;
  return out;
}

function utf8Width(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}
