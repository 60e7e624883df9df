// Engine errors in cel-go's words, as kube embeds them in its messages
// (`compilation failed: ERROR: <input>:1:5: undefined field 'replicaz'` + source and caret lines;
// `no such key: x evaluating rule: ...` at runtime).
import { unrenamed } from './env.js';

interface EngineError {
  name?: string;
  code?: string;
  message: string;
  summary?: string;
  node?: { op?: string; pos?: number; start?: number; end?: number; args?: unknown };
  range?: { start: number; end: number };
}

const opNames: Record<string, string> = {
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  in: '@in',
  '!': '!_',
  '&&': '_&&_',
  '||': '_||_',
};

/** Engine type names as cel-go prints them: list(int), map(string, int), objects as `object`. */
export function celGoType(t: string): string {
  return t
    .replace(/\bObject\d+\b/g, 'object')
    .replace(/\b(list|map|optional)</g, (_m, k: string) => (k === 'optional' ? 'optional_type(' : `${k}(`))
    .replace(/>/g, ')');
}

function summaryOf(e: EngineError): string {
  const s = e.summary ?? e.message.split('\n')[0] ?? '';
  return s.replace(/\bk8s_(\w+)/g, (m) => unrenamed[m] ?? m);
}

/** The position cel-go reports for an error node (0-based offset into the expression). */
function position(e: EngineError, src: string): number {
  const n = e.node;
  const pos = n?.pos ?? e.range?.start ?? 0;
  if (!n) return pos;
  if (n.op === '.' || n.op === '.?') {
    const dot = src.lastIndexOf('.', pos);
    return dot >= 0 ? dot : pos;
  }
  if ((n.op === 'call' || n.op === 'rcall') && typeof n.end === 'number') {
    // cel-go points at the call's '('.
    const name = Array.isArray(n.args) ? String(n.args[0]) : '';
    const plain = unrenamed[name] ?? name;
    const at = src.indexOf(`${plain}(`, n.start ?? 0);
    if (at >= 0) return at + plain.length;
  }
  if (n.op && opNames[n.op] && Array.isArray(n.args) && n.args.length === 2) {
    const l = n.args[0] as { end?: number };
    const at = src.indexOf(n.op, l.end ?? 0);
    if (at >= 0) return at;
  }
  return pos;
}

/** The text after `ERROR: <input>:L:C: ` for an engine compile error. */
function translate(e: EngineError, knownFunctions: ReadonlySet<string>): string {
  const s = summaryOf(e);
  let m: RegExpMatchArray | null;
  if (e.name === 'ParseError') return `Syntax error: ${s}`;
  if ((m = s.match(/^No such key: (.*)$/))) return `undefined field '${m[1]}'`;
  if ((m = s.match(/^Unknown variable: (.*)$/))) return `undeclared reference to '${m[1]}' (in container '')`;
  if ((m = s.match(/^no such overload: (\S+) (\S+) (\S+)$/)))
    return `found no matching overload for '${opNames[m[2]!] ?? m[2]}' applied to '(${celGoType(m[1]!)}, ${celGoType(m[3]!)})'`;
  // Unary operators: the engine writes `!string`, `-string`; cel-go names them !_ and -_.
  if ((m = s.match(/^no such overload: ([!-])(\S+)$/)))
    return `found no matching overload for '${m[1] === '!' ? '!_' : '-_'}' applied to '(${celGoType(m[2]!)})'`;
  if ((m = s.match(/^no such overload: (\S+)(\S+)$/)))
    return `found no matching overload for '${opNames[m[1]!] ?? m[1]}' applied to '(${celGoType(m[2]!)})'`;
  if ((m = s.match(/^found no matching overload for '(?:([^.(']+(?:<[^']*>)?)\.)?([\w]+)\((.*)\)'$/))) {
    const [, recv, fn, args] = m;
    if (!knownFunctions.has(fn!)) return `undeclared reference to '${fn}' (in container '')`;
    return `found no matching overload for '${fn}' applied to '${recv ? `${celGoType(recv)}.` : ''}(${celGoType(args!)})'`;
  }
  return s;
}

/** cel-go's Issues.String() for one error: message, the source line and a caret. */
export function compileIssue(e: unknown, src: string, knownFunctions: ReadonlySet<string>): string {
  const err = e as EngineError;
  const text = translate(err, knownFunctions);
  const pos = Math.max(0, Math.min(position(err, src), src.length));
  const before = src.slice(0, pos);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const col = pos - lineStart;
  const srcLine = src.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${text}\n | ${srcLine}\n | ${'.'.repeat(col)}^`;
}

/** A runtime error as cel-go words it (`no such key: x`, `index out of bounds: 5`). */
export function runtimeMessage(e: unknown): string {
  // A value too deep for the engine's recursion: cel-go's words for too deep, not JS's.
  if (e instanceof RangeError) return 'max recursion depth exceeded';
  const err = e as EngineError;
  const s = typeof err?.message === 'string' ? summaryOf(err) : String(e);
  let m: RegExpMatchArray | null;
  if ((m = s.match(/^No such key: index out of bounds, index (-?\d+)/))) return `index out of bounds: ${m[1]}`;
  if ((m = s.match(/^No such key: (.*)$/))) return `no such key: ${m[1]}`;
  if (/^integer overflow/.test(s)) return 'integer overflow';
  if ((m = s.match(/^no such overload: (.*)$/))) return `no such overload: ${m[1]}`;
  if ((m = s.match(/^found no matching overload for (.*)$/))) return `no such overload: ${m[1]}`;
  return s;
}
