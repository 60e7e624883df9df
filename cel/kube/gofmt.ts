// Numbers as Go's fmt and strconv print them (cel-go's format() and string() conversions print
// through Go): exact decimal expansions of doubles, rounding half to even.

/** |x| as n / 10^k exactly (a double is m·2^e, and 2^-j = 5^j / 10^j). */
function exactDecimal(x: number): { n: bigint; k: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  let e = -1074;
  if (biased !== 0) {
    mant |= 1n << 52n;
    e = biased - 1075;
  }
  if (e >= 0) return { n: mant << BigInt(e), k: 0 };
  return { n: mant * 5n ** BigInt(-e), k: -e };
}

/** n / d rounded to an integer, ties to even (Go's decimal rounding). */
function divRoundHalfEven(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r2 = (n % d) * 2n;
  return r2 > d || (r2 === d && q % 2n === 1n) ? q + 1n : q;
}

const signOf = (x: number): string => (x < 0 || Object.is(x, -0) ? '-' : '');

/** Go's fmt %.{p}f of a finite double (-0 keeps its sign). */
export function goFixed(x: number, p: number): string {
  const { n, k } = exactDecimal(x);
  const q = p >= k ? n * 10n ** BigInt(p - k) : divRoundHalfEven(n, 10n ** BigInt(k - p));
  let s = q.toString();
  if (p > 0) {
    s = s.padStart(p + 1, '0');
    s = `${s.slice(0, -p)}.${s.slice(-p)}`;
  }
  return signOf(x) + s;
}

/** |x| to p+1 significant digits, ties to even: the mantissa's digits and the decimal exponent. */
export function scientificParts(x: number, p: number): { digits: string; exp: number } {
  const { n, k } = exactDecimal(x);
  const want = p + 1;
  if (n === 0n) return { digits: '0'.repeat(want), exp: 0 };
  const len = n.toString().length;
  let exp = len - 1 - k;
  let q: bigint;
  if (len > want) {
    q = divRoundHalfEven(n, 10n ** BigInt(len - want));
    // 9.99… rounded up to 10.0…: one more digit, the next power of ten.
    if (q === 10n ** BigInt(want)) {
      q /= 10n;
      exp++;
    }
  } else {
    q = n * 10n ** BigInt(want - len);
  }
  return { digits: q.toString(), exp };
}

export const withPoint = (digits: string): string => (digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits);

/** Go's exponent suffix: e, a sign, at least two digits. */
const goExponent = (exp: number): string => `e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;

/** The shortest digits that read back as |x| (finite, non-zero) and its decimal exponent. */
function shortestParts(x: number): { digits: string; exp: number } {
  // toExponential() without an argument gives the shortest round-trip digits, as Go's shortest does.
  const [m, e] = Math.abs(x).toExponential().split('e') as [string, string];
  return { digits: m.replace('.', ''), exp: Number(e) };
}

/** Go's strconv.FormatFloat(x, 'f', -1, 64) of a finite double: shortest digits, never an exponent. */
function goShortest(x: number): string {
  if (x === 0) return signOf(x) + '0';
  const { digits, exp } = shortestParts(x);
  const point = exp + 1;
  let s: string;
  if (point <= 0) s = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) s = digits + '0'.repeat(point - digits.length);
  else s = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return signOf(x) + s;
}

/** Go's fmt names for the non-finite doubles. */
export function goNonFinite(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  return undefined;
}

/**
 * Go's fmt %g: shortest digits, in exponent form when the exponent is below -4 or at least 6
 * (strconv's rule for the shortest precision). cel-go's double-to-string conversion.
 */
export function goG(x: number): string {
  const nf = goNonFinite(x);
  if (nf !== undefined) return nf;
  if (x === 0) return signOf(x) + '0';
  const { digits, exp } = shortestParts(x);
  if (exp < -4 || exp >= 6) return signOf(x) + withPoint(digits) + goExponent(exp);
  return goShortest(x);
}
