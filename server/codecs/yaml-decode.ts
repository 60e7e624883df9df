// YAML request bodies as kube-apiserver decodes them (sigs.k8s.io/yaml's YAMLToJSON over its go-yaml
// v2 fork, then the JSON decoder): only the first document of a multi-document body counts
// (yaml.Unmarshal parses one), go-yaml's scanner refuses more than 10,000 nested flow collections
// or block indentation levels (`yaml: line N: exceeded max depth of 10000`, its max_flow_level and
// max_indents), and the JSON it produces may nest 10,000 deep, as any JSON body.
//
// The `yaml` package's lexer and CST parser are iterative, its composer recursive: it overflows the
// call stack near 800 levels, where kube takes 10,000. So the body is lexed and parsed first, with
// go-yaml's two counters kept along the way (a body far too deep fails fast, before it is all
// read); a document deeper than this thread can compose is composed on a worker thread with a large
// stack, which the request awaits (composing 10,000 levels takes about 0.3 s: on the event loop,
// every other client would wait for it).
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import type { CST, DocumentOptions, ParseOptions, SchemaOptions } from 'yaml';
import { lazyRequire } from '../../apimachinery/lazy-require.js';
import { parseJsonExact } from '../../apimachinery/json-parse.js';
import { deeperThan } from '../../apimachinery/json.js';
import { INT64_MAX, INT64_MIN } from '../../apimachinery/int64.js';
import { setOwn } from '../../apimachinery/object.js';

/** go-yaml's max_flow_level and max_indents, and Go's JSON nesting limit. */
const YAML_MAX_DEPTH = 10000;

/**
 * Deeper documents go to the worker: the recursive composer overflows near 800 levels, and the
 * nesting counted while lexing may be half the real one (indentless sequences are not counted).
 */
const IN_PLACE_MAX_NESTING = 250;
/** The worker's stack: 10,000 levels of composing and toJS take about 15 MiB. */
const WORKER_STACK_MB = 64;
/** A 3 MiB body composes in about a second; waiting much longer means the worker is gone. */
const WORKER_TIMEOUT_MS = 10_000;

/** Why a body is refused: a message for the 400 and, for syntax errors, where. */
export class YamlDecodeError extends Error {
  constructor(
    message: string,
    /** Character offset of the problem, when the parser reported one. */
    readonly offset?: number,
  ) {
    super(message);
    this.name = 'YamlDecodeError';
  }
}

type Options = ParseOptions & DocumentOptions & SchemaOptions;

const yaml = lazyRequire<typeof import('yaml')>('yaml');
/** Only a body too deep for this thread needs one. */
const workerThreads = lazyRequire<typeof import('node:worker_threads')>('node:worker_threads');
const composeOptions = (int64: boolean): Options => ({ prettyErrors: false, uniqueKeys: true, intAsBigInt: int64 });
/** Alias expansion is capped so a billion-laughs document cannot exhaust memory. */
const TO_JS = { maxAliasCount: 100 };

/** The first document of `text` as JS data; with `int64`, integers beyond 2^53 that fit int64 as bigints. */
export async function decodeYaml(text: string, int64: boolean): Promise<unknown> {
  const first = lexFirstDocument(text);
  const source = first.end < text.length ? text.slice(0, first.end) : text;
  const value =
    first.nesting > IN_PLACE_MAX_NESTING
      ? await composeOnWorker(source, int64)
      : composeFirst(parse(first.lexemes), source.length, int64);
  // Within go-yaml's counts (indentless sequences and flow inside block count in neither; aliases
  // nest data deeper than the text), yet deeper than JSON may nest: what the JSON decoder says then.
  const tooDeep = deeperThan(value, YAML_MAX_DEPTH);
  if (tooDeep)
    throw new YamlDecodeError(
      `couldn't get version/kind; json parse error: invalid character '${tooDeep}' exceeded max depth`,
    );
  return int64 ? safeIntsAsNumbers(value) : value;
}

/**
 * The lexemes of the first document (kube reads no further), where it ends in `text`, and how deep
 * its collections nest (at least; indentless sequences are not counted). Throws go-yaml's depth
 * error as soon as a limit is passed, before the rest is read.
 */
function lexFirstDocument(text: string): { lexemes: string[]; end: number; nesting: number } {
  const depth = new GoYamlDepth(text);
  const lexemes: string[] = [];
  for (const lexeme of new (yaml().Lexer)().lex(text)) {
    if (depth.endsFirstDocument(lexeme)) break;
    depth.lexeme(lexeme);
    lexemes.push(lexeme);
  }
  return { lexemes, end: depth.offsetNow, nesting: depth.deepest };
}

/** The CST of a whole-document lexeme stream. */
function parse(lexemes: readonly string[]): CST.Token[] {
  const parser = new (yaml().Parser)();
  const tokens: CST.Token[] = [];
  for (const lexeme of lexemes) for (const t of parser.next(lexeme)) tokens.push(t);
  for (const t of parser.end()) tokens.push(t);
  return tokens;
}

/**
 * go-yaml's scanner's two depth counters, kept over the `yaml` lexer's lexemes: the flow level
 * (`[`/`{` nesting) and the indentation stack, which grows when a block sequence entry, an explicit
 * key or a simple key's `:` sits further right than the current indentation, and shrinks when a
 * token in block context sits further left (yaml_parser_roll_indent, yaml_parser_unroll_indent).
 */
class GoYamlDepth {
  /** The most flow levels and indentation levels open at once. */
  deepest = 0;
  /** Whether the first document has begun (anything but blank lines, comments and directives). */
  private content = false;
  /** The first document's `...` was read. */
  private ended = false;
  private offset = 0;
  private lineStart = 0;
  private flow = 0;
  private indent = -1;
  private readonly indents: number[] = [];
  /** Where a simple key may have started on this line, until an indicator settles it. */
  private keyColumn: number | undefined;
  /** The next lexeme is a scalar's source (after CST.SCALAR), or a block scalar's body. */
  private scalarNext = false;
  private blockScalarBody = false;

  constructor(private readonly text: string) {}

  get offsetNow(): number {
    return this.offset;
  }

  /** Whether `lexeme` (not yet read) begins the second document, or follows the first's `...`. */
  endsFirstDocument(lexeme: string): boolean {
    if (this.scalarNext) return false;
    return this.ended || (this.content && yaml().CST.tokenType(lexeme) === 'doc-start');
  }

  lexeme(lexeme: string): void {
    if (this.scalarNext) {
      this.scalarNext = false;
      if (this.blockScalarBody) this.blockScalarBody = false;
      else this.startsKey();
      this.advance(lexeme);
      return;
    }
    const type = yaml().CST.tokenType(lexeme);
    if (
      type !== 'doc-mode' &&
      type !== 'space' &&
      type !== 'newline' &&
      type !== 'comment' &&
      type !== 'directive-line' &&
      type !== 'byte-order-mark' &&
      type !== 'doc-start'
    ) {
      this.content = true;
    }
    switch (type) {
      case 'scalar':
        this.scalarNext = true;
        return;
      case 'doc-mode':
        return;
      case 'flow-error-end':
        this.flow = 0;
        return;
      case 'newline':
        this.keyColumn = undefined;
        break;
      case 'doc-end':
        this.ended = true;
        this.unroll(-1);
        this.keyColumn = undefined;
        break;
      case 'doc-start':
      case 'directive-line':
        this.unroll(-1);
        this.keyColumn = undefined;
        break;
      case 'flow-map-start':
      case 'flow-seq-start':
        if (this.flow === 0) this.startsKey();
        if (++this.flow > YAML_MAX_DEPTH) this.exceeded(this.offset);
        this.deepest = Math.max(this.deepest, this.flow + this.indents.length);
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        if (this.flow > 0) this.flow--;
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        if (this.flow === 0) {
          this.unroll(this.column());
          this.roll(this.column());
        }
        this.keyColumn = undefined;
        break;
      case 'map-value-ind':
        if (this.flow === 0) {
          this.unroll(this.column());
          this.roll(this.keyColumn ?? this.column());
        }
        this.keyColumn = undefined;
        break;
      case 'block-scalar-header':
        if (this.flow === 0) this.unroll(this.column());
        this.blockScalarBody = true;
        break;
      case 'anchor':
      case 'tag':
      case 'alias':
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
        this.startsKey();
        break;
      default:
        break;
    }
    this.advance(lexeme);
  }

  private column(): number {
    return this.offset - this.lineStart;
  }

  /** A token that may begin a simple key: in block context, indentation first unrolls to it. */
  private startsKey(): void {
    if (this.flow > 0) return;
    const column = this.column();
    this.unroll(column);
    this.keyColumn ??= column;
  }

  private roll(column: number): void {
    if (this.indent >= column) return;
    this.indents.push(this.indent);
    this.indent = column;
    if (this.indents.length > YAML_MAX_DEPTH) this.exceeded(this.offset);
    this.deepest = Math.max(this.deepest, this.flow + this.indents.length);
  }

  private unroll(column: number): void {
    while (this.indent > column) this.indent = this.indents.pop() ?? -1;
  }

  private advance(lexeme: string): void {
    const lastBreak = Math.max(lexeme.lastIndexOf('\n'), lexeme.lastIndexOf('\r'));
    if (lastBreak >= 0) this.lineStart = this.offset + lastBreak + 1;
    this.offset += lexeme.length;
  }

  /** go-yaml's scanner error: its line counts from 1, and line 0 prints none. */
  private exceeded(at: number): never {
    const line = goYamlLine(this.text, at);
    throw new YamlDecodeError(
      `yaml: ${line > 0 ? `line ${line + 1}: ` : ''}exceeded max depth of ${YAML_MAX_DEPTH}`,
      at,
    );
  }
}

/** Composes the first document from CST tokens and converts it; throws YamlDecodeError. */
function composeFirst(tokens: Iterable<CST.Token>, length: number, int64: boolean): unknown {
  const composer = new (yaml().Composer)(composeOptions(int64));
  let doc;
  for (const d of composer.compose(tokens, true, length)) {
    doc = d;
    break;
  }
  const err = doc?.errors[0];
  if (err) throw new YamlDecodeError(err.message.split('\n')[0]!, err.pos[0]);
  try {
    return doc?.toJS(TO_JS) ?? null;
  } catch (e) {
    throw new YamlDecodeError(e instanceof Error ? e.message : String(e));
  }
}

/** go-yaml's line of an offset (counting from 0): each break, `\r\n` once. */
function goYamlLine(text: string, offset: number): number {
  return text.slice(0, offset).match(/\r\n|[\n\r\u0085\u2028\u2029]/g)?.length ?? 0;
}

/** YAML read with every integer a bigint: numbers again where a number is exact, or beyond int64 (a float64 to kube). */
function safeIntsAsNumbers(root: unknown): unknown {
  const fix = (v: unknown): unknown => {
    if (typeof v !== 'bigint') return v;
    const n = Number(v);
    return Number.isSafeInteger(n) || v < INT64_MIN || v > INT64_MAX ? n : v;
  };
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    const o = v as Record<string, unknown>;
    // setOwn, not assignment: a `__proto__` key is an own property here, not the prototype.
    for (const k of Object.keys(o)) {
      const x = o[k];
      setOwn(o, k, fix(x));
      if (typeof x === 'object' && x !== null) stack.push(x);
    }
  }
  return fix(root);
}

// ---- the worker ---------------------------------------------------------------------------------

/**
 * The worker's program (CommonJS, evaluated): it composes the first document with the options it is
 * sent and hands back, with the request's id, JSON text (bigints written as integers) or the error.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Parser, Composer } = require(workerData.yamlPath);
const write = (v, out) => {
  if (typeof v === 'bigint') out.push(v.toString());
  else if (Array.isArray(v)) {
    out.push('[');
    v.forEach((x, i) => { if (i > 0) out.push(','); if (x === undefined || typeof x === 'function') out.push('null'); else write(x, out); });
    out.push(']');
  } else if (typeof v === 'object' && v !== null) {
    out.push('{');
    let first = true;
    for (const k of Object.keys(v)) {
      const x = v[k];
      if (x === undefined || typeof x === 'function') continue;
      out.push((first ? '' : ',') + JSON.stringify(k) + ':');
      first = false;
      write(x, out);
    }
    out.push('}');
  } else out.push(JSON.stringify(v) ?? 'null');
};
parentPort.on('message', ({ id, text, options }) => {
  let reply;
  try {
    const composer = new Composer(options);
    let doc;
    for (const d of composer.compose(new Parser().parse(text), true, text.length)) { doc = d; break; }
    const err = doc && doc.errors[0];
    if (err) reply = { id, error: err.message.split('\\n')[0], offset: err.pos[0] };
    else {
      const out = [];
      write(doc ? doc.toJS(${JSON.stringify(TO_JS)}) : null, out);
      reply = { id, json: out.join('') };
    }
  } catch (e) {
    reply = { id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort.postMessage(reply);
});
`;

interface WorkerReply {
  id: number;
  json?: string;
  error?: string;
  offset?: number;
}

interface Pending {
  resolve(reply: WorkerReply): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** One composer for the process; requests queue on it, each answered by id. */
let composer: { worker: Worker; pending: Map<number, Pending> } | undefined;
let nextId = 0;

function startWorker(): NonNullable<typeof composer> {
  const yamlPath = createRequire(import.meta.url).resolve('yaml');
  const worker = new (workerThreads().Worker)(WORKER_SOURCE, {
    eval: true,
    workerData: { yamlPath },
    resourceLimits: { stackSizeMb: WORKER_STACK_MB },
  });
  const pending = new Map<number, Pending>();
  const self = { worker, pending };
  // Idle, it must not keep the process alive.
  worker.unref();
  worker.on('message', (reply: WorkerReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    clearTimeout(p.timer);
    p.resolve(reply);
  });
  // If it dies, what it was asked fails, and the next deep body starts another.
  const fail = (err: Error): void => {
    if (composer === self) composer = undefined;
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('decoding a deeply nested YAML body: the worker stopped')));
  return self;
}

async function composeOnWorker(text: string, int64: boolean): Promise<unknown> {
  composer ??= startWorker();
  const { worker, pending } = composer;
  const id = nextId++;
  const reply = await new Promise<WorkerReply>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A worker that takes this long is stuck: replace it (what it still holds fails with it).
      pending.delete(id);
      reject(new Error('decoding a deeply nested YAML body timed out'));
      void worker.terminate();
    }, WORKER_TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    worker.postMessage({ id, text, options: composeOptions(int64) });
  });
  if (reply.error !== undefined) throw new YamlDecodeError(reply.error, reply.offset);
  return parseJsonExact(reply.json ?? 'null', { int64, maxDepth: Infinity }).value;
}
