/**
 * Go's strings.Compare, the order of sort.Strings and encoding/json's map keys: by UTF-8 bytes, i.e. by code point.
 * JavaScript's `<` compares UTF-16 units, which puts U+10000 and above before U+E000..U+FFFF.
 * Compared unit by unit without encoding either string: sorts of user-sized key sets call this.
 */
export function compareGoStrings(a: string, b: string): -1 | 0 | 1 {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) return codePointRank(ca) < codePointRank(cb) ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

function codePointRank(u: number): number {
  // Surrogates stand for code points above U+FFFF: move them after U+E000..U+FFFF.
  if (u < 0xd800) return u;
  if (u <= 0xdfff) return u + 0x2000;
  return u - 0x800;
}
