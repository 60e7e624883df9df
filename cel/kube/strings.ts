// cel-go's strings extension (ext/strings.go) at version 2, which kube 1.29+ configures
// (environment/base.go: ext.Strings(ext.StringsVersion(2))): charAt, indexOf, lastIndexOf,
// lowerAscii, upperAscii, replace, split, substring, trim, format, strings.quote and join; no
// reverse (version 3). Positions and lengths count code points, as Go's []rune.
import { func, memberOverload, overload } from '../decls.js';
import type { Impl } from '../functions.js';
import { DynType, IntType, listType, StringType } from '../types.js';
import { CelError, type Val, type Value } from '../values.js';
import type { KubeLibrary } from './library.js';
import { FORMAT_VALIDATOR, FormatError, formatString } from './strings-format.js';
import { quote, trim } from './strings-text.js';

const outOfRange = (i: bigint): CelError => new CelError(`index out of range: ${i}`);
const runes = (s: string): string[] => Array.from(s);

function charAt(s: string, i: bigint): Val {
  const r = runes(s);
  if (i < 0n || i > BigInt(r.length)) return outOfRange(i);
  return r[Number(i)] ?? '';
}

/** Does `sub` occur in `r` at `i`? */
const occursAt = (r: readonly string[], sub: readonly string[], i: number): boolean =>
  sub.every((c, j) => r[i + j] === c);

function indexOf(s: string, sub: string, offset: bigint): Val {
  if (sub === '') return offset;
  if (offset < 0n) return outOfRange(offset);
  const r = runes(s);
  const u = runes(sub);
  if (offset >= BigInt(r.length)) return -1n;
  for (let i = Number(offset); i < r.length - (u.length - 1); i++) if (occursAt(r, u, i)) return BigInt(i);
  return -1n;
}

function lastIndexOf(s: string, sub: string, offset: bigint): Val {
  if (sub === '') return offset;
  if (offset < 0n) return outOfRange(offset);
  const r = runes(s);
  const u = runes(sub);
  if (offset >= BigInt(r.length)) return -1n;
  for (let i = Math.min(Number(offset), r.length - u.length); i >= 0; i--) if (occursAt(r, u, i)) return BigInt(i);
  return -1n;
}

/**
 * lastIndexOf without an offset: from the last rune, as cel-go v0.23.2 (kube 1.33) searches, so
 * an empty string is searched from -1, out of range (v0.26 answers -1 there).
 */
function lastIndexOfAll(s: string, sub: string): Val {
  const n = runes(s).length;
  if (sub === '') return BigInt(n);
  return lastIndexOf(s, sub, BigInt(n - 1));
}

/** unicode.ToLower/ToUpper on the ASCII runes only. */
const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
const upperAscii = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase());

/** Go's strings.Replace(s, old, new, n): n < 0 replaces all; an empty `old` matches before each rune and at the end. */
function replace(s: string, old: string, rep: string, n: bigint): string {
  if (n === 0n || old === rep) return s;
  let out = '';
  let count = 0n;
  if (old === '') {
    const r = runes(s);
    let i = 0;
    for (; i <= r.length && (n < 0n || count < n); i++, count++) out += rep + (r[i] ?? '');
    return out + r.slice(i).join('');
  }
  let from = 0;
  for (;;) {
    if (n >= 0n && count >= n) break;
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + rep;
    from = at + old.length;
    count++;
  }
  return out + s.slice(from);
}

/** Go's strings.SplitN: n == 0 gives no pieces, n < 0 all; an empty separator splits into runes. */
function split(s: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  if (sep === '') {
    const r = runes(s);
    if (n < 0n || n >= BigInt(r.length)) return r;
    const k = Number(n);
    return [...r.slice(0, k - 1), r.slice(k - 1).join('')];
  }
  const all = s.split(sep);
  if (n < 0n || n >= BigInt(all.length)) return all;
  const k = Number(n);
  return [...all.slice(0, k - 1), all.slice(k - 1).join(sep)];
}

function substring(s: string, start: bigint, end: bigint | undefined): Val {
  const r = runes(s);
  const l = BigInt(r.length);
  if (end !== undefined && start > end) return new CelError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > l) return outOfRange(start);
  if (end !== undefined && (end < 0n || end > l)) return outOfRange(end);
  return r.slice(Number(start), end === undefined ? undefined : Number(end)).join('');
}

/** join on a list(string); a non-string element (a dyn list) fails as cel-go's joinValSeparator. */
function join(list: readonly Value[], sep: string): Val {
  for (const e of list) if (typeof e !== 'string') return new CelError(`join: invalid input: ${String(e)}`);
  return list.join(sep);
}

function format(f: string, args: readonly Value[]): Val {
  try {
    return formatString(f, args);
  } catch (e) {
    if (e instanceof FormatError) return new CelError(e.message);
    throw e;
  }
}

const str = (v: Value): string => v as string;
const int = (v: Value): bigint => v as bigint;
const list = (v: Value): readonly Value[] => v as readonly Value[];

const IMPLS: readonly (readonly [string, Impl])[] = [
  ['string_char_at_int', ([s, i]) => charAt(str(s!), int(i!))],
  ['string_index_of_string', ([s, t]) => indexOf(str(s!), str(t!), 0n)],
  ['string_index_of_string_int', ([s, t, o]) => indexOf(str(s!), str(t!), int(o!))],
  ['string_last_index_of_string', ([s, t]) => lastIndexOfAll(str(s!), str(t!))],
  ['string_last_index_of_string_int', ([s, t, o]) => lastIndexOf(str(s!), str(t!), int(o!))],
  ['string_lower_ascii', ([s]) => lowerAscii(str(s!))],
  ['string_upper_ascii', ([s]) => upperAscii(str(s!))],
  ['string_replace_string_string', ([s, a, b]) => replace(str(s!), str(a!), str(b!), -1n)],
  ['string_replace_string_string_int', ([s, a, b, n]) => replace(str(s!), str(a!), str(b!), int(n!))],
  ['string_split_string', ([s, sep]) => split(str(s!), str(sep!), -1n)],
  ['string_split_string_int', ([s, sep, n]) => split(str(s!), str(sep!), int(n!))],
  ['string_substring_int', ([s, a]) => substring(str(s!), int(a!), undefined)],
  ['string_substring_int_int', ([s, a, b]) => substring(str(s!), int(a!), int(b!))],
  ['string_trim', ([s]) => trim(str(s!))],
  ['string_format', ([f, args]) => format(str(f!), list(args!))],
  ['strings_quote', ([s]) => quote(str(s!))],
  ['list_join', ([l]) => join(list(l!), '')],
  ['list_join_string', ([l, sep]) => join(list(l!), str(sep!))],
];

const S = StringType;
const I = IntType;

export const STRINGS_LIBRARY: KubeLibrary = {
  functions: [
    func('charAt', memberOverload('string_char_at_int', [S, I], S)),
    func(
      'indexOf',
      memberOverload('string_index_of_string', [S, S], I),
      memberOverload('string_index_of_string_int', [S, S, I], I),
    ),
    func(
      'lastIndexOf',
      memberOverload('string_last_index_of_string', [S, S], I),
      memberOverload('string_last_index_of_string_int', [S, S, I], I),
    ),
    func('lowerAscii', memberOverload('string_lower_ascii', [S], S)),
    func(
      'replace',
      memberOverload('string_replace_string_string', [S, S, S], S),
      memberOverload('string_replace_string_string_int', [S, S, S, I], S),
    ),
    func(
      'split',
      memberOverload('string_split_string', [S, S], listType(S)),
      memberOverload('string_split_string_int', [S, S, I], listType(S)),
    ),
    func(
      'substring',
      memberOverload('string_substring_int', [S, I], S),
      memberOverload('string_substring_int_int', [S, I, I], S),
    ),
    func('trim', memberOverload('string_trim', [S], S)),
    func('upperAscii', memberOverload('string_upper_ascii', [S], S)),
    func('format', memberOverload('string_format', [S, listType(DynType)], S)),
    func('strings.quote', overload('strings_quote', [S], S)),
    func(
      'join',
      memberOverload('list_join', [listType(S)], S),
      memberOverload('list_join_string', [listType(S), S], S),
    ),
  ],
  impls: new Map(IMPLS),
  validators: [FORMAT_VALIDATOR],
};
