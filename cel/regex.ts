// Go (RE2) regular expressions for CEL's matches(), find() and findAll(), through re2js, with what
// a pattern taken from the object being validated must not be able to do to the server.
//
// re2js compiles far slower than Go (a 300 KB `a{0,9}...` pattern: 15 s on the event loop and
// hundreds of MB; Go: 2.6 s), so a pattern's cost is bounded before it is compiled: a linear pass
// estimates the program the way Go's parser sizes it (regexp/syntax parse.go calcSize: a capture
// or `x*` is 2 + x, `x+`/`x?` 1 + x, `x{n,m}` m·x + (m-n), n alternatives n - 1 more), character
// classes weighted by what re2js spends on them (a Unicode class such as \pL carries hundreds of
// ranges; case folding multiplies them). Past the bound the pattern is refused with Go's error for
// an oversized program, "expression too large", which Go gives past 3.3 M instructions; ours is
// 10,000 so that one compile stays within ~100 ms.
//
// Compiled patterns (and those that fail) are kept in a least-recently-used cache bounded in
// entries and in bytes, the DFA states re2js adds while matching included (at most
// REGEX_DFA_BYTES a pattern), so distinct patterns cannot grow memory without bound.
//
// Matching is bounded too: kube charges a call by the pattern's length, which does not bound
// re2js's time (see REGEX_WORK_BUDGET), so the caller may pass a `work` callback that is told,
// before each step runs, the work it is about to do (compiling a pattern not cached, and each
// search: (input code units + 1) × the program size) and throws to refuse it.
import type { RE2JS } from 're2js';
import { re2 } from '../apimachinery/re2.js';

/** Largest estimated program compiled (Go's calcSize units with character classes weighted). */
export const MAX_REGEX_PROGRAM = 10_000;
/** Longest pattern compiled (parsing costs ~1-3 µs a character in re2js). */
const MAX_REGEX_LENGTH = 32_768;
/** Cached patterns at most, and the bytes they may hold (programs, patterns, the DFA states re2js adds as they run). */
export const REGEX_CACHE_ENTRIES = 256;
export const REGEX_CACHE_BYTES = 64 * 1024 * 1024;
/** Heap of one compiled instruction (measured: a 10,000-instruction program holds 1.7 MB). */
const BYTES_PER_INSTRUCTION = 170;

// Character class weights, in units of one plain instruction's compile time (measured on re2js
// 2.10: one \pL ~ 10 literal instructions, a case-folded class ~ 4).
const UNICODE_CLASS_WEIGHT = 12;
const CLASS_ITEMS_PER_UNIT = 4;
const FOLD_FACTOR = 4;

/**
 * Memory re2js's lazy DFA may take for one pattern (re2js's default is 8 MB). Filling 8 MB with
 * states of thousands of instructions, as `(?:a|aa){0,450}[^a]{2}` does over a few hundred
 * characters, took up to 184 ms for a search of 1,000,000 units of work
 * (REGEX_WORK_BUDGET); at 1 MB the slowest such search took 97 ms (the DFA gives up sooner and
 * re2js finishes with its NFA, whose work the budget charges). It also keeps a cached pattern small.
 */
export const REGEX_DFA_BYTES = 1024 * 1024;

/**
 * Work charged for compiling a pattern not cached, per unit of its estimated program size. re2js
 * spends 4-15 µs an instruction compiling programs of 1,500-10,000 (measured over `a{0,9}` × k,
 * `x|a{0,9}` × k, `(x|y)` × k, `\pL` × k, `(?i)[a-z]` × k, `(?:a|aa){0,k}`: 10,000 take 65-145 ms),
 * and matching work runs at ~10 units a µs at the slowest (REGEX_WORK_BUDGET): 100 units an instruction.
 */
export const REGEX_COMPILE_WORK_PER_INSTRUCTION = 100;

/**
 * The regex work one request (one object's validation, one admission request) may do, alongside
 * kube's cost budget, in units of (input code units + 1) × program size.
 *
 * Why: kube charges matches/find/findAll by the pattern's LENGTH (⌈(|s| + 1) · 0.1⌉ · ⌈|p| · 0.25⌉),
 * which does not bound the matching time: `(?:a|aa){0,999}[^a]{2}` is 24 characters but a
 * 5,000-instruction program, and re2js takes 1.5-2.9 s over 14 KB, 14-24 s over 140 KB and
 * minutes over 1.4 MB (kube's per-call limit allows that); 40 rules `!self.s.matches('(a+)+$')` over
 * 1.4 MB take 0.7-1.4 s (kube's budget admits 35). Go runs the same work in the request's goroutine,
 * beside every other request; we run it on Node's event loop, where it stalls every client. So
 * each step is charged, before it runs, (input code units + 1) × the pattern's estimated program
 * size (each findAll search from where it starts; compiling a pattern not cached, 100 units an
 * instruction), and a step that would overrun what is left of this budget is not run: the request
 * fails as kube's does when its cost budget runs out.
 *
 * Calibrated on re2js 2.10, its DFA held to 1 MB a pattern (REGEX_DFA_BYTES), on this machine
 * (2 cores, Node 20, otherwise idle) so that the worst work admitted costs ~100 ms. The slowest
 * shape found is `(?:a|aa){0,k}[^a]{2}` (and its (?i) and `…|z` forms) over a few hundred
 * characters, where each character makes a DFA state of thousands of instructions: at 1,000,000
 * units, k = 300-600, 7 cold runs each, medians 43-84 ms and worst 97 ms, ~10 units a µs (with
 * re2js's default 8 MB DFA the worst was 184 ms). Simple patterns are far faster per unit
 * (1,000,000 units: a literal 1 ms, `(a+)+$` 10 ms, `^[a-z]+$` 35 ms; findAll's searches, on
 * re2js's NFA, 30-46 ms; a 10,000-instruction program, k = 999, 20-23 ms).
 *
 * This refuses objects kube accepts, whose rules need more regex work than this however fast
 * re2js would be: e.g. `^[a-z]+$` (6 instructions) over a string of more than ~166 KB, 100 such
 * rules over 2 KB strings, findAll with many matches over a long string (each search is charged
 * the rest of the string), a pattern from the object of more than ~5,000 instructions (compiled
 * and searched: (101 + |s|) × its size). A worker pool would lift it.
 */
export const REGEX_WORK_BUDGET = 1_000_000;

/** What is left of a request's REGEX_WORK_BUDGET, shared by every expression the request runs. */
export interface RegexBudget {
  remaining: number;
}

/**
 * Told the work a step is about to do, in units of (input code units + 1) × program size;
 * throws to refuse it, and the step does not run.
 */
export type RegexWork = (units: number) => void;

/** The work of one search from `from` to the end of `s` with a program of `size`. */
function searchWork(s: string, from: number, size: number): number {
  return (s.length - from + 1) * size;
}

/** Compiles and engine runs (re2js test() and find() calls) done, for tests and diagnostics. */
export const regexCounters = { compiles: 0, runs: 0 };

/** A pattern that does not compile, with Go's regexp error text. */
export class RegexError extends Error {}

/** Go's error for a pattern whose program is too large (the pattern is part of the text). */
function tooLarge(pattern: string): RegexError {
  return new RegexError(`error parsing regexp: expression too large: \`${pattern}\``);
}

interface Frame {
  /** Summed size of the finished alternatives. */
  alts: number;
  /** Number of `|` seen. */
  bars: number;
  /** Size of the current concatenation. */
  concat: number;
  /** Size of the last atom of the concatenation (what a repetition operator applies to). */
  last: number;
  /** Largest product of nested counted repetitions in the group so far, and in the last atom. */
  reps: number;
  lastReps: number;
  capture: boolean;
}

interface RegexEstimate {
  /** Estimated program size. */
  size: number;
  /**
   * The first counted repetition Go refuses ("invalid repeat count": a count over 1000, min over
   * max, or nested counts multiplying past 1000), as Go quotes it.
   */
  badRepeat?: string;
}

/** Go's regexp/syntax maxRepeat: the largest count, and the largest product of nested counts. */
const MAX_REPEAT = 1000;
const frame = (capture: boolean): Frame => ({ alts: 0, bars: 0, concat: 0, last: 0, reps: 1, lastReps: 1, capture });

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * The estimated compiled size of a Go regexp, in one pass over the pattern without building it:
 * Go's calcSize over the tree the pattern would parse to, character classes weighted. Invalid
 * syntax is estimated as far as it goes (the real parser reports it).
 */
export function estimateRegex(pattern: string): RegexEstimate {
  // (?i) anywhere makes every class and literal a folded one: an upper bound.
  const fold = /\(\?[a-zA-Z]*i/.test(pattern);
  const foldMul = fold ? FOLD_FACTOR : 1;
  const stack: Frame[] = [];
  let f = frame(false);
  let badRepeat: string | undefined;
  const cap = (n: number): number => Math.min(n, Number.MAX_SAFE_INTEGER);
  const atom = (n: number, reps = 1): void => {
    f.concat = cap(f.concat + n);
    f.last = n;
    f.lastReps = reps;
    f.reps = Math.max(f.reps, reps);
  };
  const repeat = (size: number, reps = f.lastReps): void => {
    f.concat = cap(f.concat - f.last + size);
    f.last = size;
    f.lastReps = reps;
    f.reps = Math.max(f.reps, reps);
  };
  const close = (): void => {
    const inner = f;
    f = stack.pop()!;
    atom(cap(inner.alts + inner.concat + inner.bars + (inner.capture ? 2 : 0)), inner.reps);
  };
  const n = pattern.length;
  let i = 0;
  while (i < n) {
    const c = pattern[i]!;
    switch (c) {
      case '(': {
        let capture = true;
        if (pattern[i + 1] === '?') {
          const named = pattern.startsWith('(?P<', i) ? i + 4 : pattern.startsWith('(?<', i) ? i + 3 : -1;
          if (named >= 0) {
            const end = pattern.indexOf('>', named);
            i = end < 0 ? n : end + 1;
          } else {
            // (?flags) sets flags for the rest of the group; (?flags:re) is a non-capturing group.
            let j = i + 2;
            while (j < n && /[a-zA-Z-]/.test(pattern[j]!)) j++;
            if (pattern[j] === ')') {
              i = j + 1;
              break;
            }
            capture = false;
            i = j + 1;
          }
        } else i++;
        stack.push(f);
        f = frame(capture);
        break;
      }
      case '|':
        f.alts = cap(f.alts + f.concat);
        f.bars++;
        f.concat = 0;
        f.last = 0;
        f.lastReps = 1;
        i++;
        break;
      case ')':
        // An unmatched ')' is Go's "unexpected )"; it must not reset the estimate.
        if (stack.length > 0) close();
        i++;
        break;
      case '*':
        repeat(2 + f.last);
        i += pattern[i + 1] === '?' ? 2 : 1;
        break;
      case '+':
      case '?':
        repeat(1 + f.last);
        i += pattern[i + 1] === '?' ? 2 : 1;
        break;
      case '{': {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
        if (!m) {
          atom(1);
          i++;
          break;
        }
        // Counts past 1000 are refused; clamped, the arithmetic stays finite.
        const min = Math.min(Number(m[1]), MAX_REPEAT + 1);
        const max = m[2] === undefined ? min : m[3] === '' ? -1 : Math.min(Number(m[3]), MAX_REPEAT + 1);
        const end = i + m[0].length + (pattern[i + m[0].length] === '?' ? 1 : 0);
        const count = max === -1 ? min : max;
        const reps = count === 0 ? 1 : count * f.lastReps;
        if (badRepeat === undefined) {
          if (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) badRepeat = m[0];
          else if ((min >= 2 || max >= 2) && reps > MAX_REPEAT) badRepeat = pattern.slice(i, end);
        }
        const sub = f.last;
        repeat(max === -1 ? (min === 0 ? 2 + sub : 1 + min * sub) : max * sub + Math.max(0, max - min), reps);
        i = end;
        break;
      }
      case '[': {
        let j = i + 1;
        if (pattern[j] === '^') j++;
        if (pattern[j] === ']') j++;
        let items = 0;
        let unicode = 0;
        while (j < n && pattern[j] !== ']') {
          if (pattern.startsWith('[:', j)) {
            const end = pattern.indexOf(':]', j + 2);
            j = end < 0 ? j + 2 : end + 2;
            items += 2;
          } else if (pattern[j] === '\\') {
            if (pattern[j + 1] === 'p' || pattern[j + 1] === 'P') unicode++;
            j += escapeLength(pattern, j);
          } else j++;
          items++;
        }
        i = j + 1;
        atom(cap((1 + Math.ceil(items / CLASS_ITEMS_PER_UNIT) + unicode * UNICODE_CLASS_WEIGHT) * foldMul));
        break;
      }
      case '\\': {
        const e = pattern[i + 1];
        if (e === 'Q') {
          // \Q...\E: each quoted character is a literal.
          const end = pattern.indexOf('\\E', i + 2);
          const stop = end < 0 ? n : end;
          for (let k = i + 2; k < stop; k++) atom(1);
          i = end < 0 ? n : end + 2;
          break;
        }
        atom(e === 'p' || e === 'P' ? UNICODE_CLASS_WEIGHT * foldMul : 1);
        i += escapeLength(pattern, i);
        break;
      }
      default:
        atom(1);
        i++;
    }
  }
  while (stack.length > 0) close();
  const size = cap(f.alts + f.concat + f.bars);
  return badRepeat === undefined ? { size } : { size, badRepeat };
}

/** Characters taken by the escape at `i` (`\x{10FFFF}`, `\p{Greek}`, `\pL`, `\123`, `\n`). */
function escapeLength(p: string, i: number): number {
  const e = p[i + 1];
  if ((e === 'p' || e === 'P' || e === 'x') && p[i + 2] === '{') {
    const close = p.indexOf('}', i + 3);
    return close < 0 ? p.length - i : close + 1 - i;
  }
  if (e === 'p' || e === 'P') return 3;
  if (e === 'x') return 4;
  if (isDigit(e)) {
    let j = i + 1;
    while (j < i + 4 && isDigit(p[j])) j++;
    return j - i;
  }
  return e === undefined ? 1 : 2;
}

/** Go's text for a re2js syntax error: re2js leaves the pattern out of two of them. */
function goError(e: unknown, pattern: string): RegexError {
  const msg = e instanceof Error ? e.message : String(e);
  if (
    msg === 'error parsing regexp: expression too large' ||
    msg === 'error parsing regexp: expression nests too deeply'
  ) {
    return new RegexError(`${msg}: \`${pattern}\``);
  }
  return new RegexError(msg);
}

// ---------------------------------------------------------------------------------------------
// Cache

interface Entry {
  re?: RE2JS;
  /** Program size matching is charged by: the estimate, or the compiled program's if larger. */
  size: number;
  /** A pattern that does not compile is remembered too: parsing it again would cost as much. */
  error?: RegexError;
  /** Bytes of the pattern and its program; the DFA's are added as it grows. */
  base: number;
  bytes: number;
}

const cache = new Map<string, Entry>();
let cacheBytes = 0;

/** The compiled-regex cache, for tests and diagnostics. */
export const regexCache = {
  get size(): number {
    return cache.size;
  },
  get bytes(): number {
    return cacheBytes;
  },
  /** True when the pattern was compiled (and is still cached). */
  compiled(pattern: string): boolean {
    return cache.get(pattern)?.re !== undefined;
  },
  clear(): void {
    cache.clear();
    cacheBytes = 0;
  },
};

/** Drops least recently used entries until the cache is within its bounds (the newest stays). */
function evict(): void {
  for (const [k, v] of cache) {
    if ((cache.size <= REGEX_CACHE_ENTRIES && cacheBytes <= REGEX_CACHE_BYTES) || cache.size === 1) break;
    cache.delete(k);
    cacheBytes -= v.bytes;
  }
}

/** Bytes of the lazy DFA re2js builds while matching (its own accounting, which tracks the heap). */
function dfaBytes(re: RE2JS): number {
  const dfa = re.re2Input.lazyDFA as RE2JS['re2Input']['lazyDFA'] | null;
  return dfa ? Math.max(0, dfa.maxMem - dfa.memBudget) : 0;
}

/** Creates the pattern's lazy DFA (test() would) with REGEX_DFA_BYTES as its memory, before its first use. */
function boundDFA(re: RE2JS): void {
  if ((re.re2Input.lazyDFA as RE2JS['re2Input']['lazyDFA'] | null) !== null) return;
  const dfa = re.re2Input.dfa;
  dfa.maxMem = dfa.stateBudget = dfa.memBudget = REGEX_DFA_BYTES;
}

/** Re-weighs an entry after a match (its DFA may have grown) and evicts what no longer fits. */
function settle(pattern: string, re: RE2JS): void {
  const entry = cache.get(pattern);
  if (!entry || entry.re !== re) return;
  const bytes = entry.base + dfaBytes(re);
  cacheBytes += bytes - entry.bytes;
  entry.bytes = bytes;
  evict();
}

function compileUncached(pattern: string, work?: RegexWork): Entry {
  const keyBytes = 2 * pattern.length;
  const est = estimateRegex(pattern);
  // An error's text may quote the pattern again.
  const failed = (error: RegexError): Entry => ({
    error,
    size: est.size,
    base: keyBytes + 2 * error.message.length,
    bytes: keyBytes + 2 * error.message.length,
  });
  if (est.size > MAX_REGEX_PROGRAM) {
    // Not compiled. A refused repetition count is Go's answer whatever the size.
    return failed(
      est.badRepeat !== undefined
        ? new RegexError(`error parsing regexp: invalid repeat count: \`${est.badRepeat}\``)
        : tooLarge(pattern),
    );
  }
  // Refused here, the pattern is neither compiled nor cached.
  work?.(est.size * REGEX_COMPILE_WORK_PER_INSTRUCTION);
  regexCounters.compiles++;
  try {
    const re = re2().RE2JS.compile(pattern);
    const base = keyBytes + re.programSize() * BYTES_PER_INSTRUCTION;
    return { re, size: Math.max(est.size, re.programSize()), base, bytes: base };
  } catch (e) {
    return failed(goError(e, pattern));
  }
}

/** The cache entry of a pattern, compiled (and charged to `work`) if it is not cached. */
function lookup(pattern: string, work?: RegexWork): Entry & { re: RE2JS } {
  let entry = cache.get(pattern);
  if (entry) {
    // Least recently used first: re-inserting moves the entry to the end.
    cache.delete(pattern);
    cache.set(pattern, entry);
  } else {
    if (pattern.length > MAX_REGEX_LENGTH) throw tooLarge(pattern);
    entry = compileUncached(pattern, work);
    cache.set(pattern, entry);
    cacheBytes += entry.bytes;
    evict();
  }
  if (entry.error) throw entry.error;
  return entry as Entry & { re: RE2JS };
}

/**
 * The compiled form of a Go regexp; throws a RegexError with Go's text when it does not compile
 * or is over the bound (then without having been compiled).
 */
export function compileRegex(pattern: string): RE2JS {
  return lookup(pattern).re;
}

/**
 * Go's regexp.MatchString: whether the pattern matches anywhere in `s` (no capture positions, so
 * re2js may use its DFA). `work` is told the compile (when not cached) and the search before each runs.
 */
export function regexMatches(s: string, pattern: string, work?: RegexWork): boolean {
  const { re, size } = lookup(pattern, work);
  work?.(searchWork(s, 0, size));
  boundDFA(re);
  regexCounters.runs++;
  const matched = re.test(s);
  settle(pattern, re);
  return matched;
}

/**
 * Go's FindAllString(s, n) (n < 0: all), on the leftmost-first matches re2js finds. Each search
 * starts where the last match ended and may scan to the end of `s` (`a*b|a` over `aaa…` does:
 * quadratic, in Go too), so `work` is told each search's (rest of `s` + 1) × size before it runs.
 */
export function regexFindAll(s: string, pattern: string, n: number, work?: RegexWork): string[] {
  const { re, size } = lookup(pattern, work);
  const out: string[] = [];
  if (n === 0) return out;
  const m = re.matcher(s);
  let from = 0;
  try {
    for (;;) {
      work?.(searchWork(s, from, size));
      regexCounters.runs++;
      if (!m.find()) break;
      out.push(m.group(0) ?? '');
      if (n > 0 && out.length >= n) break;
      from = Math.min(m.end(), s.length);
    }
  } finally {
    settle(pattern, re);
  }
  return out;
}
