// Kube's semver library at version 1 (k8s.io/apiserver/pkg/cel/library/semverlib.go), which
// kube 1.33 enables: semver() and isSemver() (with the normalizing overloads of version 1),
// major/minor/patch and the comparisons, on blang/semver v4's Parse with its error texts.
import { goQuote } from '../../apimachinery/quote.js';
import { func, memberOverload, overload } from '../decls.js';
import type { Impl } from '../functions.js';
import { BoolType, IntType, objectType, StringType } from '../types.js';
import { CelError, MAX_UINT64, ObjectValue, type Val, type Value } from '../values.js';
import type { KubeLibrary } from './library.js';

const SEMVER_TYPE = objectType('kubernetes.Semver');

type PreRelease = bigint | string;

class SemverValue extends ObjectValue {
  readonly typeName = 'kubernetes.Semver';
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly PreRelease[],
  ) {
    super();
  }
  /** blang's Version.Compare: the numbers, then a release above its prereleases, then prerelease parts (numbers below names). */
  compare(o: SemverValue): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const)
      if (a !== b) return a < b ? -1 : 1;
    if (this.pre.length === 0 || o.pre.length === 0)
      return this.pre.length === o.pre.length ? 0 : this.pre.length === 0 ? 1 : -1;
    for (let i = 0; i < Math.min(this.pre.length, o.pre.length); i++) {
      const a = this.pre[i]!;
      const b = o.pre[i]!;
      if (a === b) continue;
      if (typeof a !== typeof b) return typeof a === 'bigint' ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return this.pre.length === o.pre.length ? 0 : this.pre.length < o.pre.length ? -1 : 1;
  }
  equals(other: ObjectValue): boolean {
    return other instanceof SemverValue && this.compare(other) === 0;
  }
}

const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const leadingZero = (s: string): boolean => s.length > 1 && s.startsWith('0');

/** strconv.ParseUint(s, 10, 64) on digits. */
function parseUint(s: string): bigint | string {
  if (s === '') return 'strconv.ParseUint: parsing "": invalid syntax';
  const v = BigInt(s);
  return v > MAX_UINT64 ? `strconv.ParseUint: parsing ${goQuote(s)}: value out of range` : v;
}

/** A version number part: its value or blang's error. */
function number(s: string, what: string, capital: string): bigint | string {
  if (!NUMBERS.test(s)) return `Invalid character(s) found in ${what} number ${goQuote(s)}`;
  if (leadingZero(s)) return `${capital} number must not contain leading zeroes ${goQuote(s)}`;
  return parseUint(s);
}

/** blang/semver v4's Parse. */
function parseSemver(s: string): SemverValue | string {
  if (s === '') return 'Version string empty';
  const parts = s.split('.');
  if (parts.length < 3) return 'No Major.Minor.Patch elements found';
  const rest = parts.slice(2).join('.');
  const major = number(parts[0]!, 'major', 'Major');
  if (typeof major === 'string') return major;
  const minor = number(parts[1]!, 'minor', 'Minor');
  if (typeof minor === 'string') return minor;
  let patchText = rest;
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patchText.indexOf('+');
  if (plus >= 0) {
    build = patchText.slice(plus + 1).split('.');
    patchText = patchText.slice(0, plus);
  }
  const dash = patchText.indexOf('-');
  if (dash >= 0) {
    pre = patchText.slice(dash + 1).split('.');
    patchText = patchText.slice(0, dash);
  }
  const patch = number(patchText, 'patch', 'Patch');
  if (typeof patch === 'string') return patch;
  const preParts: PreRelease[] = [];
  for (const p of pre) {
    if (p === '') return 'Prerelease is empty';
    if (NUMBERS.test(p)) {
      if (leadingZero(p)) return `Numeric PreRelease version must not contain leading zeroes ${goQuote(p)}`;
      const n = parseUint(p);
      if (typeof n === 'string') return n;
      preParts.push(n);
    } else if (ALPHANUM.test(p)) preParts.push(p);
    else return `Invalid character(s) found in prerelease ${goQuote(p)}`;
  }
  for (const b of build) {
    if (b === '') return 'Build meta data is empty';
    if (!ALPHANUM.test(b)) return `Invalid character(s) found in build meta data ${goQuote(b)}`;
  }
  return new SemverValue(major, minor, patch, preParts);
}

/** kube's normalizeAndParse: no "v" prefix, leading zeros dropped, a missing minor or patch as 0. */
function normalizeAndParse(s: string): SemverValue | string {
  const text = s.startsWith('v') ? s.slice(1) : s;
  const split = text.split('.');
  const parts = split.length > 3 ? [split[0]!, split[1]!, split.slice(2).join('.')] : split;
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i]!;
    if (p.length > 1) {
      p = p.replace(/^0+/, '');
      if (p === '' || !/^[0-9]/.test(p)) p = `0${p}`;
      parts[i] = p;
    }
  }
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1]!)) return 'short version cannot contain PreRelease/Build meta data';
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

function toSemver(s: string, normalize: boolean): Val {
  const v = normalize ? normalizeAndParse(s) : parseSemver(s);
  return typeof v === 'string' ? new CelError(v) : v;
}

const v = (x: Value): SemverValue => x as SemverValue;

const IMPLS: readonly (readonly [string, Impl])[] = [
  ['string_to_semver', ([s]) => toSemver(s as string, false)],
  ['string_bool_to_semver', ([s, n]) => toSemver(s as string, n as boolean)],
  ['is_semver_string', ([s]) => typeof parseSemver(s as string) !== 'string'],
  [
    'is_semver_string_bool',
    ([s, n]) => typeof (n ? normalizeAndParse(s as string) : parseSemver(s as string)) !== 'string',
  ],
  ['semver_is_greater_than', ([a, b]) => v(a!).compare(v(b!)) === 1],
  ['semver_is_less_than', ([a, b]) => v(a!).compare(v(b!)) === -1],
  ['semver_compare_to', ([a, b]) => BigInt(v(a!).compare(v(b!)))],
  // Go's types.Int(uint64): a number past int64 wraps.
  ['semver_major', ([a]) => BigInt.asIntN(64, v(a!).major)],
  ['semver_minor', ([a]) => BigInt.asIntN(64, v(a!).minor)],
  ['semver_patch', ([a]) => BigInt.asIntN(64, v(a!).patch)],
];

const V = SEMVER_TYPE;

export const SEMVER_LIBRARY: KubeLibrary = {
  functions: [
    func(
      'semver',
      overload('string_to_semver', [StringType], V),
      overload('string_bool_to_semver', [StringType, BoolType], V),
    ),
    func(
      'isSemver',
      overload('is_semver_string', [StringType], BoolType),
      overload('is_semver_string_bool', [StringType, BoolType], BoolType),
    ),
    func('isGreaterThan', memberOverload('semver_is_greater_than', [V, V], BoolType)),
    func('isLessThan', memberOverload('semver_is_less_than', [V, V], BoolType)),
    func('compareTo', memberOverload('semver_compare_to', [V, V], IntType)),
    func('major', memberOverload('semver_major', [V], IntType)),
    func('minor', memberOverload('semver_minor', [V], IntType)),
    func('patch', memberOverload('semver_patch', [V], IntType)),
  ],
  impls: new Map(IMPLS),
};
